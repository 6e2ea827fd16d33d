//! Provider calls through Restate's journal: the engine's providers hand each request to the
//! handler, which makes the call inside `ctx.run` (or takes its journaled answer on replay).

use std::sync::Arc;

use rectify_flow::ProviderFactory;
use rectify_flow::engine::CallContext;
use rectify_provider::spec::ProviderSpec;
use rectify_provider::{
    Capabilities, CompletionFuture, ErrorKind, Provider, ProviderError, Request, Response,
};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use crate::artifacts::{ArtifactError, ArtifactStore, INLINE_LIMIT, Text};

/// One call waiting for the handler.
pub(crate) struct Call {
    /// The unit making it (a unit makes one call at a time): the order of a round.
    pub(crate) unit: String,
    /// The provider that makes the call.
    pub(crate) provider: Arc<dyn Provider>,
    /// The request.
    pub(crate) request: Request,
    /// Where the answer goes.
    pub(crate) reply: oneshot::Sender<Result<Response, ProviderError>>,
}

/// What the journal keeps of a call: its answer (with a text or raw body larger than
/// [`INLINE_LIMIT`] in the artifact store), or the provider's failure (a failure is an
/// outcome too: a replay must fail the same way, not call again).
#[derive(Serialize, Deserialize)]
pub(crate) enum Journaled {
    /// The provider answered.
    Answer {
        /// The response, with `text` and `raw` moved to the fields below.
        response: Response,
        /// The answer text.
        text: Text,
        /// The raw body.
        raw: Text,
    },
    /// The provider gave up.
    Failed {
        /// What went wrong.
        kind: ErrorKind,
        /// The provider's name.
        provider: String,
        /// Transport retries used.
        retries: u32,
    },
}

impl Journaled {
    /// Makes the call; a large answer goes to `store`.
    pub(crate) async fn make(
        provider: &dyn Provider,
        request: &Request,
        store: &dyn ArtifactStore,
    ) -> Result<Journaled, ArtifactError> {
        Ok(match provider.complete(request).await {
            Ok(mut response) => {
                let text = Text::keep(std::mem::take(&mut response.text), INLINE_LIMIT, store)?;
                let raw = Text::keep(std::mem::take(&mut response.raw), INLINE_LIMIT, store)?;
                Journaled::Answer {
                    response,
                    text,
                    raw,
                }
            }
            Err(e) => Journaled::Failed {
                kind: e.kind,
                provider: e.provider,
                retries: e.retries,
            },
        })
    }

    /// The call's result as the engine sees it (large texts read back from `store`).
    pub(crate) fn into_result(
        self,
        store: &dyn ArtifactStore,
    ) -> Result<Result<Response, ProviderError>, ArtifactError> {
        Ok(match self {
            Journaled::Answer {
                mut response,
                text,
                raw,
            } => {
                response.text = text.take(store)?;
                response.raw = raw.take(store)?;
                Ok(response)
            }
            Journaled::Failed {
                kind,
                provider,
                retries,
            } => {
                let mut e = ProviderError::new(provider, kind);
                e.retries = retries;
                Err(e)
            }
        })
    }
}

/// Makes the engine's providers, each sending its calls to the handler.
pub(crate) struct JournaledFactory {
    /// Builds the real providers.
    pub(crate) inner: Arc<dyn ProviderFactory>,
    /// The handler's queue of calls.
    pub(crate) calls: mpsc::UnboundedSender<Call>,
}

impl ProviderFactory for JournaledFactory {
    fn provider(
        &self,
        spec: &ProviderSpec,
        context: &CallContext,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        Ok(Arc::new(JournaledProvider {
            unit: context.unit.clone(),
            inner: self.inner.provider(spec, context)?,
            calls: self.calls.clone(),
        }))
    }
}

/// A provider whose calls are made by the handler.
struct JournaledProvider {
    unit: String,
    inner: Arc<dyn Provider>,
    calls: mpsc::UnboundedSender<Call>,
}

impl JournaledProvider {
    fn ended(&self) -> ProviderError {
        ProviderError::new(
            self.inner.name(),
            ErrorKind::Connection {
                message: "the Restate invocation that makes this call has ended".to_owned(),
            },
        )
    }
}

impl Provider for JournaledProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            let call = Call {
                unit: self.unit.clone(),
                provider: Arc::clone(&self.inner),
                request: request.clone(),
                reply,
            };
            self.calls.send(call).map_err(|_| self.ended())?;
            answer.await.map_err(|_| self.ended())?
        })
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn name(&self) -> &str {
        self.inner.name()
    }
}
