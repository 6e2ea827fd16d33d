//! Recording a cassette from a live provider.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Cassette, Interaction, Recorded, Redactor};
use crate::{
    ApiKey, Capabilities, CompletionFuture, Provider, ProviderError, Request, Response, StreamSink,
};

/// Wraps a provider and appends every call to a cassette file (written after each call,
/// atomically), with secrets redacted. Answers and errors pass through unchanged, streamed
/// when the inner provider streams.
#[derive(Debug)]
pub struct RecordingProvider {
    inner: Arc<dyn Provider>,
    path: PathBuf,
    redactor: Redactor,
    cassette: Mutex<Cassette>,
}

impl RecordingProvider {
    /// Records calls to `inner` into `path` (created or overwritten on the first call).
    pub fn new(inner: Arc<dyn Provider>, path: impl Into<PathBuf>) -> Self {
        let cassette = Cassette::new(inner.name(), inner.capabilities());
        Self {
            inner,
            path: path.into(),
            redactor: Redactor::new(),
            cassette: Mutex::new(cassette),
        }
    }

    /// Also redacts this key (pass the key the inner provider uses).
    pub fn redact(mut self, key: &ApiKey) -> Self {
        self.redactor = self.redactor.with_secret(key);
        self
    }

    /// Replaces the redactor.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The cassette file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The calls recorded so far (already redacted).
    pub fn cassette(&self) -> Cassette {
        self.cassette
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    async fn call(&self, request: &Request) -> Result<Response, ProviderError> {
        let result = self.inner.complete(request).await;
        self.record(request, result)
    }

    /// Appends one call's result to the cassette and passes it through.
    fn record(
        &self,
        request: &Request,
        result: Result<Response, ProviderError>,
    ) -> Result<Response, ProviderError> {
        let recorded = match &result {
            Ok(response) => Recorded::Response(response.clone()),
            Err(error) => Recorded::Error(error.clone()),
        };
        let interaction = self.redacted(Interaction {
            request: request.clone(),
            result: recorded,
        })?;
        let mut cassette = self.cassette.lock().unwrap_or_else(PoisonError::into_inner);
        cassette.interactions.push(interaction);
        cassette.save(&self.path)?;
        result
    }

    fn redacted(&self, interaction: Interaction) -> Result<Interaction, ProviderError> {
        let fail = |e: serde_json::Error| {
            super::replay_error(
                self.inner.name(),
                format!("cannot record the interaction: {e}"),
            )
        };
        let mut value = serde_json::to_value(interaction).map_err(fail)?;
        self.redactor.redact_value(&mut value);
        serde_json::from_value(value).map_err(fail)
    }
}

impl Provider for RecordingProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.call(request))
    }

    /// Streams through the inner provider (a stopped answer is recorded as it stopped; a
    /// replay hands it over whole).
    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        Box::pin(async move {
            let result = self.inner.complete_streaming(request, sink).await;
            self.record(request, result)
        })
    }

    fn streams(&self) -> bool {
        self.inner.streams()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn name(&self) -> &str {
        self.inner.name()
    }
}
