//! What to ask and how to judge the answer.

use std::fmt;
use std::sync::Arc;

use rectify_check::{Checker, CompiledSchema, ConfigError, schema_of};
use rectify_core::Diagnostic;
use rectify_judge::{RepairPolicy, Schema, Validator, ValueCheck};
use rectify_provider::{Message, Request, Role};
use rectify_stream::{PrefixChecker, PrefixOptions};
use schemars::JsonSchema;
use serde_json::Value;

/// A custom check: takes the repaired value, returns diagnostics (errors make it invalid).
pub type ValidatorFn = dyn Fn(&Value) -> Vec<Diagnostic> + Send + Sync;

/// One request to a model and the checks its answer must pass.
///
/// Cheap to clone (schemas, checkers and validators are shared).
///
/// ```
/// use rectify_core::{Diagnostic, Location};
/// use rectify_loop::Task;
/// use serde_json::json;
///
/// let task = Task::new("List three colours as {\"colours\": [...]}")
///     .system("Answer with JSON only.")
///     .schema(json!({"type": "object", "required": ["colours"]}))?
///     .validator("three", |v| match v["colours"].as_array() {
///         Some(a) if a.len() == 3 => vec![],
///         _ => vec![Diagnostic::error("custom.count", Location::from_pointer("/colours"), "expected exactly 3 colours")],
///     });
/// assert!(task.check_value(&json!({"colours": ["red", "green", "blue"]})).is_empty());
/// assert_eq!(task.check_value(&json!({"colours": []}))[0].code, "custom.count");
/// # Ok::<(), rectify_check::ConfigError>(())
/// ```
#[derive(Clone)]
pub struct Task {
    pub(crate) prompt: String,
    pub(crate) system: Option<String>,
    pub(crate) history: Vec<Message>,
    pub(crate) schema: Option<Arc<Schema>>,
    pub(crate) checker: Option<Arc<Checker>>,
    pub(crate) validators: Vec<(String, Arc<ValidatorFn>)>,
    pub(crate) step: String,
    pub(crate) template: Request,
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.validators.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Task")
            .field("prompt", &self.prompt)
            .field("system", &self.system)
            .field("history", &self.history.len())
            .field("schema", &self.schema_value())
            .field("checker", &self.checker)
            .field("validators", &names)
            .field("step", &self.step)
            .finish_non_exhaustive()
    }
}

impl Task {
    /// A task that sends `prompt` as the user message.
    pub fn new(prompt: impl Into<String>) -> Task {
        Task {
            prompt: prompt.into(),
            system: None,
            history: Vec::new(),
            schema: None,
            checker: None,
            validators: Vec::new(),
            step: String::new(),
            template: Request::default(),
        }
    }

    /// A task that continues a conversation. Leading system messages become the system
    /// prompt; when the conversation ends with a user message, that message is the prompt
    /// (the schema, when the provider cannot enforce it, and the feedback attach to it) and
    /// the messages before it are sent first, unchanged, on every attempt. A conversation
    /// that does not end with a user message is sent whole, and the loop adds only what it
    /// must (the schema, the feedback).
    ///
    /// ```
    /// use rectify_loop::Task;
    /// use rectify_provider::Message;
    ///
    /// let task = Task::from_messages([
    ///     Message::system("You extract invoices."),
    ///     Message::user("Invoice 7: 3 pens at 2 EUR."),
    ///     Message::assistant("Noted."),
    ///     Message::user("Now as JSON, please."),
    /// ]);
    /// assert_eq!(task.prompt(), "Now as JSON, please.");
    /// assert_eq!(task.history().len(), 2);
    /// ```
    pub fn from_messages(messages: impl IntoIterator<Item = Message>) -> Task {
        let mut messages: Vec<Message> = messages.into_iter().collect();
        let leading = messages
            .iter()
            .take_while(|m| m.role == Role::System)
            .count();
        let system: Vec<Message> = messages.drain(..leading).collect();
        let prompt = match messages.last() {
            Some(last) if last.role == Role::User => messages.pop().map(|m| m.content),
            _ => None,
        };
        let mut task = Task::new(prompt.unwrap_or_default());
        if !system.is_empty() {
            let text: Vec<String> = system.into_iter().map(|m| m.content).collect();
            task.system = Some(text.join("\n\n"));
        }
        task.history = messages;
        task
    }

    /// A task whose answer must deserialize into `T`; the schema comes from the type.
    pub fn typed<T: JsonSchema + 'static>(prompt: impl Into<String>) -> Result<Task, ConfigError> {
        Task::new(prompt).schema_of::<T>()
    }

    /// Sets the system prompt.
    pub fn system(mut self, system: impl Into<String>) -> Task {
        self.system = Some(system.into());
        self
    }

    /// Sets the JSON Schema: sent to the provider, used to guide repair, checked on every
    /// answer. A schema that is itself invalid is an error.
    pub fn schema(self, schema: Value) -> Result<Task, ConfigError> {
        let compiled = CompiledSchema::compile(&schema)?;
        Ok(self.compiled_schema(schema, compiled))
    }

    /// Sets an already compiled schema together with its source value.
    pub fn compiled_schema(mut self, schema: Value, compiled: CompiledSchema) -> Task {
        self.schema = Some(Arc::new(Schema {
            compiled: Arc::new(compiled),
            value: schema,
        }));
        self
    }

    /// Uses the JSON Schema of `T` (generated by `schemars`, compiled once per type).
    pub fn schema_of<T: JsonSchema + 'static>(mut self) -> Result<Task, ConfigError> {
        let compiled = schema_of::<T>()?;
        self.schema = Some(Arc::new(Schema {
            compiled,
            value: schemars::schema_for!(T).to_value(),
        }));
        Ok(self)
    }

    /// Adds a checker (rules and their reference documents, further schemas) run after the
    /// schema on every answer.
    pub fn checker(mut self, checker: impl Into<Arc<Checker>>) -> Task {
        self.checker = Some(checker.into());
        self
    }

    /// Adds a custom validator; `name` appears in traces.
    pub fn validator(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&Value) -> Vec<Diagnostic> + Send + Sync + 'static,
    ) -> Task {
        self.validators.push((name.into(), Arc::new(check)));
        self
    }

    /// Names the workflow step this task belongs to (for the cross-step error memory).
    pub fn step(mut self, step: impl Into<String>) -> Task {
        self.step = step.into();
        self
    }

    /// Request options (temperature, output token limit, timeout, stop sequences, agent
    /// options); its messages and schema are replaced by the loop's.
    pub fn request_template(mut self, template: Request) -> Task {
        self.template = template;
        self
    }

    /// The prompt.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The system prompt, if one was set.
    pub fn system_prompt(&self) -> Option<&str> {
        self.system.as_deref()
    }

    /// The messages sent before the prompt (see [`Task::from_messages`]).
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The step name (empty when none was set).
    pub fn step_name(&self) -> &str {
        &self.step
    }

    /// The JSON Schema, if one was set.
    pub fn schema_value(&self) -> Option<&Value> {
        self.schema.as_ref().map(|s| &s.value)
    }

    /// The prefix judge of this task's answers as they arrive: its schema (any value when
    /// none was set), the rules of its checker that can be judged on list items, and the
    /// schema named as the full check names it (`schema:PATH` for a file).
    pub fn prefix_checker(&self, unsafe_repairs: bool) -> PrefixChecker {
        let options = PrefixOptions { unsafe_repairs };
        let mut checker =
            PrefixChecker::new(self.schema_value().unwrap_or(&Value::Bool(true)), options);
        if let Some(rules) = &self.checker {
            checker = checker.with_rules(rules);
        }
        match self.schema.as_ref().map(|s| s.compiled.origin()) {
            Some(origin) if origin != "schema" => checker.with_source(format!("schema:{origin}")),
            _ => checker,
        }
    }

    /// Runs every check on a value: the schema, the checker, then the validators.
    pub fn check_value(&self, value: &Value) -> Vec<Diagnostic> {
        self.judge(RepairPolicy::Off).check_value(value)
    }

    /// The judge of this task's answers (docs/architecture.md, "What is decided where"): its
    /// schema, checker and validators, with `repair`.
    pub fn judge(&self, repair: RepairPolicy) -> Validator {
        let mut validator =
            Validator::compiled(self.schema.clone(), self.checker.clone()).with_repair(repair);
        for (name, check) in &self.validators {
            validator = validator.with_check(name.clone(), Arc::clone(check) as Arc<ValueCheck>);
        }
        validator
    }
}
