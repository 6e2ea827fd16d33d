//! The provider trait.

use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;

use crate::{Capabilities, ProviderError, Request, Response};

/// A boxed, sendable future (keeps [`Provider`] object safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The result of [`Provider::complete`].
pub type CompletionFuture<'a> = BoxFuture<'a, Result<Response, ProviderError>>;

/// The `finish_reason` (as [`FinishReason::Other`](crate::FinishReason::Other)) of an answer
/// whose stream the caller stopped through its [`StreamSink`].
pub const STOPPED: &str = "stopped_by_caller";

/// The `finish_reason` (as [`FinishReason::Other`](crate::FinishReason::Other)) the loop
/// records for the text of a stream that broke mid-way ([`ProviderError::received`](crate::ProviderError::received)).
pub const BROKEN: &str = "stream_broken";

/// Where a streaming call hands the answer's text as it arrives.
pub trait StreamSink: Send {
    /// The next piece of the answer's text. [`ControlFlow::Break`] stops the call: the
    /// provider closes the stream and returns what arrived, its `finish_reason`
    /// [`STOPPED`].
    fn text(&mut self, delta: &str) -> ControlFlow<()>;
}

impl<F: FnMut(&str) -> ControlFlow<()> + Send> StreamSink for F {
    fn text(&mut self, delta: &str) -> ControlFlow<()> {
        self(delta)
    }
}

/// A model behind some transport: an HTTP API, a command-line agent, a cassette, a local model.
///
/// The trait is object safe: hold providers as `Box<dyn Provider>` or `Arc<dyn Provider>`.
/// Implementations retry transport failures themselves (see [`crate::retry`]); an `Err` means
/// no answer could be had at all, while bad answers come back as [`Response`]s.
pub trait Provider: Send + Sync {
    /// Asks for one completion.
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a>;

    /// What this provider can do.
    fn capabilities(&self) -> Capabilities;

    /// A short name for logs and ledgers, such as `openai:gpt-4o-mini`.
    fn name(&self) -> &str;

    /// Asks for one completion, handing its text to `sink` as it arrives. Transport retries
    /// happen only before any text has arrived; a stream cut after that is an error
    /// ([`ErrorKind::Truncated`](crate::ErrorKind::Truncated)) and the sink holds what came.
    /// The default completes the whole answer and hands it over at once.
    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        Box::pin(hand_over_whole(self, request, sink))
    }

    /// True when [`Provider::complete_streaming`] hands text over as it arrives.
    fn streams(&self) -> bool {
        false
    }
}

/// [`Provider::complete_streaming`] for a provider that cannot stream (or not this call):
/// the whole answer, then its text handed to `sink` at once.
pub async fn hand_over_whole<P: Provider + ?Sized>(
    provider: &P,
    request: &Request,
    sink: &mut dyn StreamSink,
) -> Result<Response, ProviderError> {
    let response = provider.complete(request).await?;
    let _ = sink.text(&response.text);
    Ok(response)
}

impl std::fmt::Debug for dyn Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Provider({})", self.name())
    }
}

impl<P: Provider + ?Sized> Provider for Box<P> {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        (**self).complete(request)
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        (**self).complete_streaming(request, sink)
    }

    fn streams(&self) -> bool {
        (**self).streams()
    }

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }

    fn name(&self) -> &str {
        (**self).name()
    }
}

impl<P: Provider + ?Sized> Provider for Arc<P> {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        (**self).complete(request)
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        (**self).complete_streaming(request, sink)
    }

    fn streams(&self) -> bool {
        (**self).streams()
    }

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }

    fn name(&self) -> &str {
        (**self).name()
    }
}
