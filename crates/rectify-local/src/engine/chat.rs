//! The model's own chat template, from its GGUF metadata.
//!
//! An instruction-tuned model expects its turns in the format it was tuned on; the GGUF file
//! carries that format as `tokenizer.chat_template` (a Jinja text). The template is untrusted
//! input: it is never executed. llama.cpp's `llama_chat_apply_template` only matches it
//! against the formats llama.cpp implements itself (ChatML, Llama 3, Gemma, Phi, …) and
//! renders the turns with its own code; a template it does not recognise, or one longer than
//! [`MAX_TEMPLATE_BYTES`], leaves the model on the plain transcript prompt.

use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};

use crate::LocalError;

/// The longest chat template read from a model file (the longest of common models is about
/// 10 KiB).
pub const MAX_TEMPLATE_BYTES: usize = 64 * 1024;

/// The longest conversation rendered (llama.cpp sizes its buffer from it).
const MAX_CHAT_BYTES: usize = 64 * 1024 * 1024;

/// The chat template of `model`, when it has one that llama.cpp can render.
pub(crate) fn template_of(model: &LlamaModel) -> Option<LlamaChatTemplate> {
    let template = model.chat_template(None).ok()?;
    if template.as_c_str().to_bytes().len() > MAX_TEMPLATE_BYTES {
        return None;
    }
    let probe = [message("system", "s").ok()?, message("user", "u").ok()?];
    model.apply_chat_template(&template, &probe, true).ok()?;
    Some(template)
}

/// Renders `turns` (role, content) with `template`, ending with the opening of the
/// assistant's turn.
pub(crate) fn render(
    model: &LlamaModel,
    template: &LlamaChatTemplate,
    turns: &[(&str, &str)],
) -> Result<String, LocalError> {
    let bytes: usize = turns.iter().map(|(r, c)| r.len() + c.len()).sum();
    if bytes > MAX_CHAT_BYTES {
        return Err(LocalError::PromptTooLong {
            prompt_tokens: bytes / 4,
            context_tokens: MAX_CHAT_BYTES / 4,
        });
    }
    let messages = turns
        .iter()
        .map(|(role, content)| message(role, content))
        .collect::<Result<Vec<_>, _>>()?;
    model
        .apply_chat_template(template, &messages, true)
        .map_err(|e| LocalError::Inference {
            message: format!("chat template: {e}"),
        })
}

fn message(role: &str, content: &str) -> Result<LlamaChatMessage, LocalError> {
    // A NUL byte cannot cross into C; it carries nothing a model could use. The rendered
    // prompt is tokenized with special tokens parsed (the template's markers are special
    // tokens), so a request cannot write them: `<|` is broken up.
    let content = content.replace('\0', "").replace("<|", "< |");
    LlamaChatMessage::new(role.to_owned(), content).map_err(|e| LocalError::Inference {
        message: format!("chat message: {e}"),
    })
}
