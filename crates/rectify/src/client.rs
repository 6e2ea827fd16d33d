//! [`Client`]: the one-call front door over the retry loop.

use std::sync::Arc;

use rectify_check::Checker;
use rectify_core::Diagnostic;
use rectify_loop::{Budget, Engine, EventSink, FeedbackMode, Outcome, Task};
use rectify_provider::spec::{ProviderChoice, ProviderSpec};
use rectify_provider::{Message, Provider};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;
use crate::build::{LocalOptions, provider_from_spec_with};
use crate::stream::RunStream;

/// What to ask: a prompt, or a conversation that ends with the request (see
/// [`Task::from_messages`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Prompt {
    /// One user message.
    Text(String),
    /// A conversation.
    Messages(Vec<Message>),
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Prompt {
        Prompt::Text(text.to_owned())
    }
}

impl From<String> for Prompt {
    fn from(text: String) -> Prompt {
        Prompt::Text(text)
    }
}

impl From<&String> for Prompt {
    fn from(text: &String) -> Prompt {
        Prompt::Text(text.clone())
    }
}

impl From<Vec<Message>> for Prompt {
    fn from(messages: Vec<Message>) -> Prompt {
        Prompt::Messages(messages)
    }
}

impl<const N: usize> From<[Message; N]> for Prompt {
    fn from(messages: [Message; N]) -> Prompt {
        Prompt::Messages(messages.into())
    }
}

impl From<&[Message]> for Prompt {
    fn from(messages: &[Message]) -> Prompt {
        Prompt::Messages(messages.to_vec())
    }
}

/// Asks a model until its answer passes every check, and returns the value or an
/// [`Error`] that says why there is none.
///
/// Each call is one run of the loop: the answer is extracted and repaired
/// deterministically, checked (the schema of `T` or the one given, the rules, the
/// validators), and on failure the problems are fed back and the model asked again, up to
/// `max_attempts` calls per provider, then down the fallback ladder. Cheap to clone; one
/// client serves any number of calls, concurrently too.
///
/// ```
/// use rectify::{Client, provider::from_fn};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Debug, Deserialize, JsonSchema)]
/// struct Invoice { number: String, total: f64 }
///
/// // Any model: here a function answering with a trailing comma first (repaired, no re-ask).
/// let model = from_fn("demo", |_request| async {
///     Ok::<_, std::io::Error>(r#"{"number": "INV-7", "total": 12.5,}"#.to_owned())
/// });
/// let client = Client::new(model).max_attempts(3);
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let invoice: Invoice = client.extract("Invoice INV-7 comes to 12.50 EUR.").await?;
/// assert_eq!((invoice.number.as_str(), invoice.total), ("INV-7", 12.5));
/// # Ok::<(), rectify::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Client {
    engine: Engine,
    system: Option<String>,
    checker: Option<Arc<Checker>>,
    validators: Vec<(String, Arc<rectify_loop::ValidatorFn>)>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.validators.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Client")
            .field("engine", &self.engine)
            .field("system", &self.system)
            .field("checker", &self.checker)
            .field("validators", &names)
            .finish()
    }
}

impl Client {
    /// A client asking `provider` with the default settings (3 attempts, `append`
    /// feedback, no budget).
    pub fn new(provider: impl Provider + 'static) -> Client {
        Client::from_engine(Engine::new(provider))
    }

    /// A client asking a shared provider.
    pub fn from_arc(provider: Arc<dyn Provider>) -> Client {
        Client::from_engine(Engine::from_arc(provider))
    }

    /// A client over an engine configured by hand.
    pub fn from_engine(engine: Engine) -> Client {
        Client {
            engine,
            system: None,
            checker: None,
            validators: Vec::new(),
        }
    }

    /// The provider the environment names, as the `rectify` command chooses it:
    /// `RECTIFY_PROVIDER` if set, else `openai` when `OPENAI_API_KEY` or `OPENAI_BASE_URL`
    /// is set, else `anthropic` when `ANTHROPIC_API_KEY` is set, else the embedded model
    /// (with the `local` feature; without it, a configuration error). `RECTIFY_MODEL` and
    /// `RECTIFY_STRUCTURED_OUTPUT` apply; the feedback mode is the one that suits the kind
    /// ([`FeedbackMode::default_for`]).
    pub fn from_env() -> Result<Client, Error> {
        let spec = ProviderChoice::from_env()?.resolve()?;
        Client::from_spec(&spec)
    }

    /// The provider `spec` describes (the embedded model with default options).
    pub fn from_spec(spec: &ProviderSpec) -> Result<Client, Error> {
        Client::from_spec_with(spec, LocalOptions::default())
    }

    /// The provider `spec` describes, with options for the embedded model.
    pub fn from_spec_with(spec: &ProviderSpec, local: LocalOptions) -> Result<Client, Error> {
        let provider = provider_from_spec_with(spec, local)?;
        Ok(Client::from_arc(provider).feedback(FeedbackMode::default_for(spec.kind)))
    }

    /// Model calls per provider, the first included (default 3).
    pub fn max_attempts(mut self, attempts: u32) -> Client {
        self.engine = self.engine.max_attempts(attempts);
        self
    }

    /// How feedback on a failed answer reaches the model.
    pub fn feedback(mut self, mode: FeedbackMode) -> Client {
        self.engine = self.engine.feedback(mode);
        self
    }

    /// Token, cost and time limits of each call.
    pub fn budget(mut self, budget: Budget) -> Client {
        self.engine = self.engine.budget(budget);
        self
    }

    /// Adds a fallback provider, asked (with the feedback gathered so far) when the ones
    /// before it used their attempts or failed.
    pub fn fallback(mut self, provider: impl Provider + 'static) -> Client {
        self.engine = self.engine.fallback(provider);
        self
    }

    /// Adds a fallback provider with its own number of attempts.
    pub fn fallback_with_attempts(
        mut self,
        provider: impl Provider + 'static,
        attempts: u32,
    ) -> Client {
        self.engine = self.engine.fallback_with_attempts(provider, attempts);
        self
    }

    /// Adds the provider `spec` describes as a fallback.
    pub fn fallback_spec(self, spec: &ProviderSpec) -> Result<Client, Error> {
        let provider = provider_from_spec_with(spec, LocalOptions::default())?;
        Ok(self.fallback(provider))
    }

    /// Allows repairs that may change meaning (off by default).
    pub fn allow_unsafe_repairs(mut self, allow: bool) -> Client {
        self.engine = self.engine.allow_unsafe_repairs(allow);
        self
    }

    /// A system prompt for every call.
    pub fn system(mut self, system: impl Into<String>) -> Client {
        self.system = Some(system.into());
        self
    }

    /// Rules (and their reference documents, further schemas) every answer must pass.
    pub fn rules(mut self, checker: impl Into<Arc<Checker>>) -> Client {
        self.checker = Some(checker.into());
        self
    }

    /// A custom check every answer must pass: it gets the repaired value and returns
    /// diagnostics (errors are fed back like any other problem). `name` appears in traces.
    pub fn validator(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&Value) -> Vec<Diagnostic> + Send + Sync + 'static,
    ) -> Client {
        self.validators.push((name.into(), Arc::new(check)));
        self
    }

    /// Adds an event sink (a trace file, progress display, ...).
    pub fn sink(mut self, sink: Arc<dyn EventSink>) -> Client {
        self.engine = self.engine.sink(sink);
        self
    }

    /// The engine, for its settings and rungs.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A task for `prompt` with the client's system prompt, rules and validators; add a
    /// schema and run it with [`Client::run`] for the whole [`Outcome`].
    pub fn task(&self, prompt: impl Into<Prompt>) -> Task {
        let mut task = match prompt.into() {
            Prompt::Text(text) => Task::new(text),
            Prompt::Messages(messages) => Task::from_messages(messages),
        };
        if let Some(system) = &self.system
            && task.system_prompt().is_none()
        {
            task = task.system(system.clone());
        }
        if let Some(checker) = &self.checker {
            task = task.checker(Arc::clone(checker));
        }
        for (name, check) in &self.validators {
            let check = Arc::clone(check);
            task = task.validator(name.clone(), move |v| check(v));
        }
        task
    }

    /// Asks until the answer deserializes into `T` and passes every check (the JSON Schema
    /// of `T`, generated by `schemars`, is sent to the model and checked).
    pub async fn extract<T>(&self, prompt: impl Into<Prompt>) -> Result<T, Error>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        let task = self.task(prompt).schema_of::<T>()?;
        Error::from_outcome(self.engine.run_typed(&task).await)
    }

    /// Asks until the answer satisfies the JSON Schema `schema` and every check.
    pub async fn extract_value(
        &self,
        prompt: impl Into<Prompt>,
        schema: Value,
    ) -> Result<Value, Error> {
        let task = self.task(prompt).schema(schema)?;
        Error::from_outcome(self.engine.run(&task).await)
    }

    /// [`Client::extract`] as a stream: the value as it arrives (with its final paths), each
    /// answer stopped as soon as it can no longer be valid (and asked again at once), each
    /// attempt as it ends, then the result, as [`Update::Done`](crate::stream::Update::Done).
    ///
    /// Providers that stream (OpenAI-compatible, Anthropic) give partial values; the others
    /// give their attempts and the result only.
    ///
    /// ```
    /// use rectify::{Client, provider::from_fn, stream::Update};
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// #[derive(Debug, Deserialize, JsonSchema)]
    /// struct Invoice { number: String, total: f64 }
    ///
    /// let model = from_fn("demo", |_request| async {
    ///     Ok::<_, std::io::Error>(r#"{"number": "INV-7", "total": 12.5}"#.to_owned())
    /// });
    /// let client = Client::new(model);
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut updates = client.extract_stream::<Invoice>("Invoice INV-7 comes to 12.50 EUR.");
    /// while let Some(update) = updates.next().await {
    ///     match update {
    ///         Update::Partial { partial, .. } => println!("so far: {}", partial.value),
    ///         Update::Abort { diagnostics, .. } => println!("stopped: {}", diagnostics[0].message),
    ///         Update::Attempt(attempt) => println!("attempt {} valid: {}", attempt.number, attempt.valid),
    ///         Update::Done(invoice) => assert_eq!(invoice?.number, "INV-7"),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok::<(), rectify::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn extract_stream<T>(&self, prompt: impl Into<Prompt>) -> RunStream<Result<T, Error>>
    where
        T: DeserializeOwned + JsonSchema + Send + 'static,
    {
        match self.task(prompt).schema_of::<T>() {
            Ok(task) => RunStream::start(&self.engine, &task, |engine, task| async move {
                Error::from_outcome(engine.run_typed::<T>(&task).await)
            }),
            Err(error) => RunStream::ready(Err(error.into())),
        }
    }

    /// [`Client::extract_value`] as a stream (see [`Client::extract_stream`]).
    pub fn extract_value_stream(
        &self,
        prompt: impl Into<Prompt>,
        schema: Value,
    ) -> RunStream<Result<Value, Error>> {
        match self.task(prompt).schema(schema) {
            Ok(task) => RunStream::start(&self.engine, &task, |engine, task| async move {
                Error::from_outcome(engine.run(&task).await)
            }),
            Err(error) => RunStream::ready(Err(error.into())),
        }
    }

    /// [`Client::run`] as a stream, ending with the whole [`Outcome`].
    pub fn run_stream(&self, task: &Task) -> RunStream<Outcome<Value>> {
        crate::stream::run(&self.engine, task)
    }

    /// Runs a task and returns the whole [`Outcome`]: the value or best candidate, the
    /// diagnostics, the repairs and the attempt ledger.
    pub async fn run(&self, task: &Task) -> Outcome<Value> {
        self.engine.run(task).await
    }

    /// [`Client::run`], deserializing the answer into `T`.
    pub async fn run_typed<T>(&self, task: &Task) -> Outcome<T>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        self.engine.run_typed(task).await
    }
}
