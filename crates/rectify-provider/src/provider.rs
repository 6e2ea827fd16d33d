//! The provider trait.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::{Capabilities, ProviderError, Request, Response};

/// A boxed, sendable future (keeps [`Provider`] object safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The result of [`Provider::complete`].
pub type CompletionFuture<'a> = BoxFuture<'a, Result<Response, ProviderError>>;

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

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }

    fn name(&self) -> &str {
        (**self).name()
    }
}
