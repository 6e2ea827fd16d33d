//! The front door for programs without an async runtime.
//!
//! A [`Client`] owns a small current-thread runtime and blocks on each call. Do not use it
//! from inside an async runtime (tokio refuses to block a thread that drives one): use
//! [`crate::Client`] there.
//!
//! ```
//! use rectify::provider::from_fn;
//!
//! let model = from_fn("demo", |_request| async { Ok::<_, String>(r#"{"ok": true}"#.into()) });
//! let client = rectify::blocking::Client::new(model)?;
//! let value = client.extract_value("Say ok as JSON.", serde_json::json!({"required": ["ok"]}))?;
//! assert_eq!(value["ok"], true);
//! # Ok::<(), rectify::Error>(())
//! ```

use rectify_loop::{Outcome, Task};
use rectify_provider::Provider;
use rectify_provider::spec::ProviderSpec;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::runtime::Runtime;

use crate::{Error, Prompt};

/// [`crate::Client`] with blocking calls.
#[derive(Debug)]
pub struct Client {
    inner: crate::Client,
    runtime: Runtime,
}

impl Client {
    /// Wraps a configured async client.
    pub fn wrap(inner: crate::Client) -> Result<Client, Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::config(format!("cannot start the async runtime: {e}")))?;
        Ok(Client { inner, runtime })
    }

    /// A client asking `provider` with the default settings.
    pub fn new(provider: impl Provider + 'static) -> Result<Client, Error> {
        Client::wrap(crate::Client::new(provider))
    }

    /// The provider the environment names (see [`crate::Client::from_env`]).
    pub fn from_env() -> Result<Client, Error> {
        Client::wrap(crate::Client::from_env()?)
    }

    /// The provider `spec` describes.
    pub fn from_spec(spec: &ProviderSpec) -> Result<Client, Error> {
        Client::wrap(crate::Client::from_spec(spec)?)
    }

    /// Changes the settings with the async client's builder methods.
    pub fn configure(mut self, change: impl FnOnce(crate::Client) -> crate::Client) -> Client {
        self.inner = change(self.inner);
        self
    }

    /// The async client inside.
    pub fn inner(&self) -> &crate::Client {
        &self.inner
    }

    /// See [`crate::Client::extract`].
    pub fn extract<T>(&self, prompt: impl Into<Prompt>) -> Result<T, Error>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        self.runtime.block_on(self.inner.extract(prompt))
    }

    /// See [`crate::Client::extract_value`].
    pub fn extract_value(&self, prompt: impl Into<Prompt>, schema: Value) -> Result<Value, Error> {
        self.runtime
            .block_on(self.inner.extract_value(prompt, schema))
    }

    /// See [`crate::Client::run`].
    pub fn run(&self, task: &Task) -> Outcome<Value> {
        self.runtime.block_on(self.inner.run(task))
    }

    /// See [`crate::Client::run_typed`].
    pub fn run_typed<T>(&self, task: &Task) -> Outcome<T>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        self.runtime.block_on(self.inner.run_typed(task))
    }
}
