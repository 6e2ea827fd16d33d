//! Compiling a schema: draft detection, meta-validation and `$ref` resolution, with errors
//! that name the place in the schema.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ReferencingError, ValidationError, Validator};
use rectify_core::push_pointer;
use serde_json::Value;

use super::refs::{Confined, RefAccess};
use crate::ConfigError;

/// Compiles `schema`; `base` is the schema file, for relative `$ref`s, which read files as
/// `access` allows.
pub(super) fn build(
    schema: &Value,
    origin: &str,
    base: Option<&Path>,
    access: RefAccess,
) -> Result<Validator, ConfigError> {
    // Formats are assertions in every draft (drafts 4-7 already assert them; 2019-09 and
    // 2020-12 would only annotate): a model's `"date": "tomorrow"` must not pass. Unknown
    // formats (such as schemars' `uint32`) are ignored.
    let mut options = jsonschema::options()
        .should_validate_formats(true)
        .with_retriever(Confined::new(base, access));
    if let Some(uri) = base.and_then(file_uri) {
        options = options.with_base_uri(uri);
    }
    options
        .build(schema)
        .map_err(|err| compile_error(schema, origin, &err))
}

fn compile_error(schema: &Value, origin: &str, err: &ValidationError<'_>) -> ConfigError {
    if let ValidationErrorKind::Referencing(reference) = err.kind() {
        return ConfigError::SchemaReference {
            origin: origin.to_owned(),
            pointer: find_ref(schema, reference),
            message: lowercase_first(&reference.to_string()),
        };
    }
    ConfigError::InvalidSchema {
        origin: origin.to_owned(),
        pointer: err.instance_path().as_str().to_owned(),
        message: lowercase_first(&err.to_string()),
    }
}

/// The pointer of the `$ref` that most likely caused `err`, found by walking the schema.
fn find_ref(schema: &Value, err: &ReferencingError) -> Option<String> {
    let matches = |target: &str| -> bool {
        let (resource, fragment) = target.split_once('#').unwrap_or((target, ""));
        let fragment = percent_decode(fragment);
        match err {
            ReferencingError::PointerToNowhere { pointer } => fragment == *pointer,
            ReferencingError::NoSuchAnchor { anchor }
            | ReferencingError::InvalidAnchor { anchor } => fragment == *anchor,
            ReferencingError::Unretrievable { uri, .. } => {
                let resource = resource.trim_start_matches("./");
                !resource.is_empty() && uri.split('#').next().is_some_and(|u| u.ends_with(resource))
            }
            _ => false,
        }
    };
    let mut pointer = String::new();
    find_ref_in(schema, &matches, &mut pointer).then_some(pointer)
}

fn find_ref_in(value: &Value, matches: &dyn Fn(&str) -> bool, pointer: &mut String) -> bool {
    let len = pointer.len();
    let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Object(map) => {
            for key in ["$ref", "$dynamicRef"] {
                if map.get(key).and_then(Value::as_str).is_some_and(matches) {
                    push_pointer(pointer, key);
                    return true;
                }
            }
            Box::new(map.iter().map(|(k, v)| (k.clone(), v)))
        }
        Value::Array(items) => Box::new(items.iter().enumerate().map(|(i, v)| (i.to_string(), v))),
        _ => return false,
    };
    for (segment, child) in children {
        push_pointer(pointer, &segment);
        if find_ref_in(child, matches, pointer) {
            return true;
        }
        pointer.truncate(len);
    }
    false
}

pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `file:///abs/path`, percent-encoding what a URI cannot hold.
fn file_uri(path: &Path) -> Option<String> {
    let absolute: PathBuf = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let text = absolute.to_str()?;
    let mut uri = String::from("file://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    Some(uri)
}

/// Reads a schema file as JSON, or YAML when its extension says so.
pub(super) fn read_file(path: &Path) -> Result<Value, ConfigError> {
    use crate::files::{Failure, read_document};
    match read_document(path) {
        Ok(doc) => Ok(doc.value),
        Err(Failure::Read(rectify_parse::ReadError::Io { path, source })) => {
            Err(ConfigError::Io { path, source })
        }
        Err(failure) => Err(ConfigError::Unreadable {
            origin: path.display().to_string(),
            message: failure.to_string(),
        }),
    }
}

/// `Foo bar` → `foo bar`, leaving acronyms such as `URI` alone.
pub(crate) fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_owned(),
    }
}
