//! Hooks for the fuzz targets (`fuzz/fuzz_targets/provider.rs`); not a stable API. They reach
//! the private response readers and the argument template exactly as the providers use them.

use crate::{ErrorKind, FinishReason, Request};

/// What the OpenAI-compatible reader makes of a completion body: the answer's text and
/// finish reason, or the error.
pub fn read_openai(body: &str) -> Result<(String, FinishReason), ErrorKind> {
    crate::openai::wire::parse_response(body).map(|a| (a.text, a.finish_reason))
}

/// What the Anthropic reader makes of a messages body.
pub fn read_anthropic(body: &str) -> Result<(String, FinishReason), ErrorKind> {
    crate::anthropic::wire::parse_response(body).map(|a| (a.text, a.finish_reason))
}

/// The argument list a command agent with the template `args` is started with for `request`.
pub fn command_args(args: &[String], request: &Request, model: &str) -> Vec<String> {
    use crate::command::template::{Values, expand_args, uses};
    let values = Values::new(request, model, uses(args, "{system}"));
    expand_args(args, &[], &[], &values)
}
