//! Prompts: "fix these diagnostics", built from a check of a file.

use std::fmt::Write as _;

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::Value;

use crate::Root;
use crate::tools::schemas::CheckParams;

/// The prompt's name.
pub const FIX: &str = "fix-diagnostics";

/// The prompts.
pub fn list() -> Vec<Prompt> {
    let args = vec![
        PromptArgument::new("file")
            .with_description("The file to fix, beneath the server's root")
            .with_required(true),
        PromptArgument::new("schema")
            .with_description("JSON Schema files beneath the root, separated by commas")
            .with_required(false),
        PromptArgument::new("rules")
            .with_description("A rules file beneath the root")
            .with_required(false),
    ];
    vec![Prompt::new(
        FIX,
        Some(
            "Fix the problems `check` finds in a file: the file is checked now, and its diagnostics become the request",
        ),
        Some(args),
    )]
}

/// The prompt `request` names, built from a check of its file.
pub fn get(root: &Root, request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    if request.name != FIX {
        return Err(ErrorData::invalid_params(
            format!("no prompt `{}`", request.name),
            None,
        ));
    }
    let arg = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|a| a.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let file = arg("file").ok_or_else(|| ErrorData::invalid_params("`file` is required", None))?;
    let params = CheckParams {
        file: Some(file.clone()),
        content: None,
        format: None,
        schema: arg("schema")
            .map(|s| {
                s.split(',')
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        rules: arg("rules"),
        refs: crate::tools::Refs::new(),
    };
    let checked = crate::tools::check_value(root, &params)
        .map_err(|e| ErrorData::invalid_params(e.message().to_owned(), None))?;
    let text = request_text(&file, &params, &checked);
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(format!("Fix the diagnostics of `{file}`")),
    )
}

/// The request: every diagnostic on one line, and how to check again.
fn request_text(file: &str, params: &CheckParams, checked: &Value) -> String {
    let empty = Vec::new();
    let list = checked["diagnostics"].as_array().unwrap_or(&empty);
    if checked["valid"] == true && list.is_empty() {
        return format!("`{file}` passes every check; there is nothing to fix.");
    }
    let mut text = format!(
        "`{file}` does not pass its checks. Fix these problems in the file, changing nothing else:\n"
    );
    for d in list {
        let at = match (d["line"].as_u64(), d["column"].as_u64()) {
            (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
            _ => String::new(),
        };
        let path = d["path"]
            .as_str()
            .filter(|p| !p.is_empty())
            .unwrap_or("(document)");
        let _ = writeln!(
            text,
            "- {path}{at}: {} [{} {}]",
            d["message"].as_str().unwrap_or_default(),
            d["severity"].as_str().unwrap_or_default(),
            d["code"].as_str().unwrap_or_default()
        );
    }
    let mut again = format!("{{\"file\": \"{file}\"");
    if !params.schema.is_empty() {
        let _ = write!(
            again,
            ", \"schema\": {}",
            Value::from(params.schema.clone())
        );
    }
    if let Some(rules) = &params.rules {
        let _ = write!(again, ", \"rules\": \"{rules}\"");
    }
    let _ = write!(
        text,
        "\nThen call the `check` tool with {again}}} and repeat until it answers `\"valid\": true`. \
         The codes are explained in the resource rectify://diagnostics."
    );
    text
}
