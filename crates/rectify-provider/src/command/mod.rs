//! Command-line agents: run a program, give it the prompt, take its stdout as the answer.
//!
//! No shell is involved: the program and its arguments are passed as a list. Placeholders in
//! arguments (`{prompt}`, `{system}`, `{model}`, `{max_turns}`, `{allowed_tools}`) are expanded
//! in one pass. Unless an argument uses `{prompt}`, the prompt goes to stdin. stdout (bounded)
//! is the answer; stderr is read concurrently and its tail goes into errors. The program runs
//! in its own process group, and the whole group is killed on timeout (SIGTERM, a grace period,
//! then SIGKILL), when the call is cancelled, and after the program exits.
//!
//! [`Provider::complete_streaming`] hands stdout to the caller's sink as it is read (unless the
//! answer is read from a JSON envelope, [`CommandConfig::answer_pointer`]): split characters are
//! joined first ([`Utf8Joiner`](crate::Utf8Joiner)) and keys redacted
//! ([`Redactor`](crate::Redactor): the start of what may be a key is held until the next read
//! says, so no part of a key reaches the sink). When the sink says stop, the program's group is
//! stopped as at a timeout, and the answer is what the sink was handed, its `finish_reason`
//! [`STOPPED`](crate::STOPPED). A transient exit is retried only while no text has reached the
//! sink; a failure after that is an error carrying the text received.

mod capture;
mod process;
mod stream;

pub use process::{Outcome, run_to_end};
pub(crate) mod template;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::process::Command;

use crate::retry::{Retrier, RetryPolicy};
use crate::{
    Capabilities, CompletionFuture, ErrorKind, FinishReason, Provider, ProviderError, Request,
    Response, StreamSink, Usage,
};

/// Where the prompt goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptInput {
    /// On stdin unless an argument uses `{prompt}`.
    #[default]
    Auto,
    /// Always on stdin.
    Stdin,
    /// Only through the arguments (stdin is empty).
    Args,
}

/// Configuration of a command-line agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandConfig {
    /// The program (a path, or a name looked up in `PATH`).
    pub program: String,
    /// Arguments, with placeholders.
    pub args: Vec<String>,
    /// Arguments added when the request sets `max_turns` (e.g. `["--max-turns", "{max_turns}"]`).
    pub max_turns_args: Vec<String>,
    /// Arguments added when the request lists tools (e.g. `["--allowedTools", "{allowed_tools}"]`).
    pub allowed_tools_args: Vec<String>,
    /// Where the prompt goes.
    pub prompt_input: PromptInput,
    /// The value of `{model}` and part of the provider name.
    pub model: Option<String>,
    /// The working directory (default: the caller's).
    pub cwd: Option<PathBuf>,
    /// Variables set for the program.
    pub env: Vec<(String, String)>,
    /// Variables removed from the program's environment (by default the provider keys,
    /// [`SECRET_VARIABLES`](crate::SECRET_VARIABLES)).
    pub env_remove: Vec<String>,
    /// Start from an empty environment (then `env` only).
    pub env_clear: bool,
    /// Time limit for one run; a request's own `timeout` overrides it.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when the time limit is hit.
    pub kill_grace: Duration,
    /// The largest stdout accepted.
    pub max_stdout_bytes: usize,
    /// How much of the end of stderr is kept for errors.
    pub stderr_tail_bytes: usize,
    /// Exit codes that mean "try again" (retried under `retry`).
    pub transient_exit_codes: Vec<i32>,
    /// A JSON Pointer into stdout parsed as JSON, for agents with a JSON envelope
    /// (e.g. `/result`); `/usage/input_tokens` and `/usage/output_tokens` are read when present.
    pub answer_pointer: Option<String>,
    /// Retry budget (default: no retries, since agent runs are expensive).
    pub retry: RetryPolicy,
}

impl Default for CommandConfig {
    fn default() -> Self {
        Self {
            program: String::new(),
            args: Vec::new(),
            max_turns_args: Vec::new(),
            allowed_tools_args: Vec::new(),
            prompt_input: PromptInput::Auto,
            model: None,
            cwd: None,
            env: Vec::new(),
            env_remove: crate::secret_variables(),
            env_clear: false,
            timeout: Duration::from_secs(600),
            kill_grace: Duration::from_secs(2),
            max_stdout_bytes: 16 * 1024 * 1024,
            stderr_tail_bytes: 16 * 1024,
            transient_exit_codes: Vec::new(),
            answer_pointer: None,
            retry: RetryPolicy::none(),
        }
    }
}

impl CommandConfig {
    /// A configuration that runs `program` with `args`.
    pub fn new(
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

/// A provider that runs a command-line agent.
#[derive(Debug)]
pub struct CommandProvider {
    config: CommandConfig,
    name: String,
    retrier: Retrier,
}

impl CommandProvider {
    /// Builds the provider; fails when the program is empty.
    pub fn new(config: CommandConfig) -> Result<Self, ProviderError> {
        let base = std::path::Path::new(&config.program)
            .file_name()
            .map_or_else(
                || config.program.clone(),
                |n| n.to_string_lossy().into_owned(),
            );
        let name = match &config.model {
            Some(model) => format!("command:{base}:{model}"),
            None => format!("command:{base}"),
        };
        if config.program.trim().is_empty() {
            return Err(ProviderError::config(name, "no program given"));
        }
        if config
            .answer_pointer
            .as_deref()
            .is_some_and(|p| !p.is_empty() && !p.starts_with('/'))
        {
            return Err(ProviderError::config(
                name,
                "answer_pointer must be a JSON Pointer (`/result`)",
            ));
        }
        let retrier = Retrier::new(config.retry.clone());
        Ok(Self {
            config,
            name,
            retrier,
        })
    }

    /// Replaces the retrier (for example to inject a recording sleeper in tests).
    pub fn with_retrier(mut self, retrier: Retrier) -> Self {
        self.retrier = retrier;
        self
    }

    async fn call(&self, request: &Request) -> Result<Response, ProviderError> {
        let started = Instant::now();
        let retried = self
            .retrier
            .run(&self.name, |_| self.run_once(request))
            .await?;
        let (stdout, answer) = retried.value;
        let mut response = self.response(answer.text, stdout, started, retried.retries);
        response.usage = answer.usage;
        response.notices.extend(answer.notice);
        Ok(response)
    }

    /// An answer of this agent, finished, with nothing unusual about it.
    fn response(&self, text: String, raw: String, started: Instant, retries: u32) -> Response {
        Response {
            text,
            finish_reason: FinishReason::Stop,
            usage: Usage::default(),
            model: self
                .config
                .model
                .clone()
                .unwrap_or_else(|| self.name.clone()),
            latency: started.elapsed(),
            transport_retries: retries,
            raw,
            notices: Vec::new(),
        }
    }

    /// The limits of one run of `request`.
    fn limits(&self, request: &Request) -> process::Limits {
        process::Limits {
            timeout: request.timeout.unwrap_or(self.config.timeout),
            kill_grace: self.config.kill_grace,
            max_stdout: self.config.max_stdout_bytes,
            stderr_keep: self.config.stderr_tail_bytes,
        }
    }

    async fn run_once(&self, request: &Request) -> Result<(String, Answer), ErrorKind> {
        let (command, input) = self.command(request);
        let mut stdout = capture::Whole::default();
        let ran = process::run(command, input, self.limits(request), &mut stdout).await?;
        let process::Ran::Exited {
            status,
            stderr_tail,
        } = ran
        else {
            // `Whole` never asks to stop.
            return Err(ErrorKind::InvalidResponse {
                message: "the run was stopped".into(),
            });
        };
        // A key given through `pass_env` that the agent echoes is not kept anywhere.
        if let Some(kind) = process::exit_error(
            status,
            &self.config.transient_exit_codes,
            &crate::redact_secrets(&stderr_tail),
        ) {
            return Err(kind);
        }
        let stdout = crate::redact_secrets(&String::from_utf8_lossy(&stdout.0));
        let answer = extract(&stdout, self.config.answer_pointer.as_deref());
        Ok((stdout, answer))
    }

    fn command(&self, request: &Request) -> (Command, Option<Vec<u8>>) {
        let config = &self.config;
        let all_args = [
            config.args.as_slice(),
            &config.max_turns_args,
            &config.allowed_tools_args,
        ]
        .concat();
        let system_separate = template::uses(&all_args, "{system}");
        let model = config.model.as_deref().unwrap_or("");
        let values = template::Values::new(request, model, system_separate);
        let args = template::expand_args(
            &config.args,
            &config.max_turns_args,
            &config.allowed_tools_args,
            &values,
        );
        let stdin = match config.prompt_input {
            PromptInput::Stdin => true,
            PromptInput::Args => false,
            PromptInput::Auto => !template::uses(&all_args, "{prompt}"),
        };
        let mut command = Command::new(&config.program);
        command.args(&args);
        if config.env_clear {
            command.env_clear();
        }
        for name in &config.env_remove {
            command.env_remove(name);
        }
        command.envs(config.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &config.cwd {
            command.current_dir(dir);
        }
        (command, stdin.then(|| values.prompt.into_bytes()))
    }
}

/// The answer text and usage read from stdout, and what was unusual about reading it.
#[derive(Debug)]
struct Answer {
    text: String,
    usage: Usage,
    notice: Option<String>,
}

/// The answer in `stdout`: all of it, or the string at `pointer` in its JSON envelope. Output
/// that is not the envelope (the agent printed prose, an error report, half a document) is a
/// content problem, not a transport one: the whole of stdout is the answer, to be read,
/// repaired or sent back like any other, and a notice says why.
fn extract(stdout: &str, pointer: Option<&str>) -> Answer {
    let whole = |notice: String| Answer {
        text: stdout.to_owned(),
        usage: Usage::default(),
        notice: Some(notice),
    };
    let Some(pointer) = pointer else {
        return Answer {
            text: stdout.to_owned(),
            usage: Usage::default(),
            notice: None,
        };
    };
    let value: Value = match serde_json::from_str(stdout) {
        Ok(value) => value,
        Err(e) => {
            return whole(format!(
                "stdout is not the expected JSON envelope ({e}); all of it is taken as the answer"
            ));
        }
    };
    let text = match value.pointer(pointer) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => {
            return whole(format!(
                "the JSON envelope has nothing at `{pointer}`; all of stdout is taken as the answer"
            ));
        }
    };
    let count = |p| value.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Answer {
        text,
        usage: Usage::new(count("/usage/input_tokens"), count("/usage/output_tokens")),
        notice: None,
    }
}

impl Provider for CommandProvider {
    fn complete<'a>(&'a self, request: &'a Request) -> CompletionFuture<'a> {
        Box::pin(self.call(request))
    }

    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        sink: &'a mut dyn StreamSink,
    ) -> CompletionFuture<'a> {
        Box::pin(async move {
            if !self.streams() {
                return crate::provider::hand_over_whole(self, request, sink).await;
            }
            self.call_streaming(request, sink).await
        })
    }

    /// True unless the answer is read from a JSON envelope ([`CommandConfig::answer_pointer`]):
    /// stdout is then not the answer's text until the envelope is complete, and the answer is
    /// handed over whole.
    fn streams(&self) -> bool {
        self.config.answer_pointer.is_none()
    }

    fn capabilities(&self) -> Capabilities {
        let all_args = [self.config.args.as_slice(), &self.config.max_turns_args].concat();
        Capabilities {
            json_mode: false,
            json_schema: false,
            system_prompt: template::uses(&all_args, "{system}"),
            multi_turn: false,
            agent: !self.config.max_turns_args.is_empty()
                || !self.config.allowed_tools_args.is_empty(),
            max_context_tokens: None,
        }
    }

    fn name(&self) -> &str {
        &self.name
    }
}
