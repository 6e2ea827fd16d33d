use rectify_core::{Diagnostic, Document, Format};
use rectify_parse::{Limits, read};
use serde_json::json;

use super::*;

fn doc(text: &str) -> Document {
    read(text.to_owned(), Format::Json, &Limits::default())
        .document
        .unwrap()
}

fn tasks_schema() -> CompiledSchema {
    CompiledSchema::compile(&json!({
        "type": "object",
        "required": ["tasks"],
        "additionalProperties": false,
        "properties": {
            "tasks": {"type": "array", "uniqueItems": true, "items": {
                "type": "object",
                "required": ["id", "acceptanceCriteria"],
                "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "status": {"enum": ["todo", "done"]},
                    "name": {"type": "string", "minLength": 3},
                    "tags": {"type": "array", "maxItems": 1},
                    "acceptanceCriteria": {"type": "array"}
                }
            }}
        }
    }))
    .unwrap()
}

const TASKS: &str = r#"{
  "tasks": [
    {"id": 1, "acceptanceCriteria": []},
    {"id": "two", "status": "doing", "name": "ab", "tags": [1, 2]},
    {"id": 1, "acceptanceCriteria": []}
  ],
  "extra": true
}"#;

fn find<'a>(diags: &'a [Diagnostic], code: &str, pointer: &str) -> &'a Diagnostic {
    diags
        .iter()
        .find(|d| d.code == code && d.location.pointer == pointer)
        .unwrap_or_else(|| panic!("no {code} at {pointer} in {diags:#?}"))
}

fn line_col(d: &Diagnostic) -> (usize, usize) {
    let s = d.location.span.unwrap();
    (s.line, s.column)
}

#[test]
fn required_points_at_the_missing_field_with_the_objects_span() {
    let diags = tasks_schema().check(&doc(TASKS));
    let d = find(&diags, "schema.required", "/tasks/1/acceptanceCriteria");
    assert_eq!(d.location.path, "tasks[1].acceptanceCriteria");
    assert_eq!(d.message, "missing required field \"acceptanceCriteria\"");
    assert_eq!(d.expected.as_deref(), Some("field \"acceptanceCriteria\""));
    assert_eq!(line_col(d), (4, 5), "span of the task object");
    assert_eq!(d.source, "schema");
    assert!(d.is_error());
}

#[test]
fn type_enum_and_sizes_say_expected_and_received() {
    let diags = tasks_schema().check(&doc(TASKS));
    let d = find(&diags, "schema.type", "/tasks/1/id");
    assert_eq!(d.message, "expected integer, got string");
    assert_eq!(
        (d.expected.as_deref(), d.received.as_deref()),
        (Some("integer"), Some("\"two\""))
    );
    assert_eq!(line_col(d), (4, 12));
    let d = find(&diags, "schema.enum", "/tasks/1/status");
    assert_eq!(
        d.message,
        "\"doing\" is not one of the allowed values (\"todo\", \"done\")"
    );
    assert_eq!(d.expected.as_deref(), Some("one of \"todo\", \"done\""));
    let d = find(&diags, "schema.min_length", "/tasks/1/name");
    assert_eq!(d.message, "expected at least 3 characters, got 2");
    let d = find(&diags, "schema.max_items", "/tasks/1/tags");
    assert_eq!(d.message, "expected at most 1 item, got 2");
    assert_eq!(d.received.as_deref(), Some("[1,2]"));
}

#[test]
fn additional_properties_and_duplicates_point_at_the_offender() {
    let diags = tasks_schema().check(&doc(TASKS));
    let d = find(&diags, "schema.additional_properties", "/extra");
    assert_eq!(d.location.path, "extra");
    assert_eq!(d.message, "field \"extra\" is not allowed here");
    assert_eq!(d.received.as_deref(), Some("true"));
    assert_eq!(line_col(d), (7, 12));
    let d = find(&diags, "schema.unique_items", "/tasks/2");
    assert_eq!(d.message, "duplicate item (same as item [0])");
    assert_eq!(line_col(d), (5, 5));
    assert_eq!(diags.len(), 7, "{diags:#?}");
}

#[test]
fn numbers_patterns_alternatives_and_const() {
    let s = CompiledSchema::compile(&json!({
        "properties": {
            "n": {"exclusiveMaximum": 10, "multipleOf": 3},
            "p": {"pattern": "^T\\d+$"},
            "c": {"const": "v1"},
            "u": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["k"]}]},
            "f": false
        }
    }))
    .unwrap();
    let diags = s.check_value(&json!({"n": 10, "p": "X1", "c": "v2", "u": {}, "f": 1}));
    assert_eq!(
        find(&diags, "schema.exclusive_maximum", "/n").message,
        "expected a number < 10, got 10"
    );
    assert_eq!(
        find(&diags, "schema.multiple_of", "/n").message,
        "expected a multiple of 3, got 10"
    );
    let d = find(&diags, "schema.pattern", "/p");
    assert_eq!(d.message, r#""X1" does not match the pattern "^T\\d+$""#);
    assert_eq!(
        find(&diags, "schema.const", "/c").message,
        "expected \"v1\", got \"v2\""
    );
    let d = find(&diags, "schema.any_of", "/u");
    assert!(
        d.message
            .starts_with("does not match any of the 2 alternatives of \"anyOf\""),
        "{}",
        d.message
    );
    assert_eq!(
        find(&diags, "schema.false_schema", "/f").message,
        "no value is allowed here"
    );
    assert!(
        diags.iter().all(|d| d.location.span.is_none()),
        "values without source have no spans"
    );
}

#[test]
fn valid_documents_have_no_diagnostics() {
    let s = tasks_schema();
    let ok = doc(r#"{"tasks": [{"id": 1, "acceptanceCriteria": ["a"]}]}"#);
    assert!(s.is_valid(&ok.value));
    assert!(s.check(&ok).is_empty());
}

#[test]
fn invalid_schema_names_the_place() {
    let err =
        CompiledSchema::compile(&json!({"properties": {"a": {"type": "strng"}}})).unwrap_err();
    match &err {
        ConfigError::InvalidSchema {
            origin, pointer, ..
        } => {
            assert_eq!(
                (origin.as_str(), pointer.as_str()),
                ("schema", "/properties/a/type")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("invalid schema `schema` at `/properties/a/type`:")
    );
}

#[test]
fn broken_ref_names_the_ref() {
    let err = CompiledSchema::compile(&json!({
        "$defs": {"ok": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/ok"}, "b": {"items": {"$ref": "#/$defs/missing"}}}
    }))
    .unwrap_err();
    match &err {
        ConfigError::SchemaReference {
            pointer, message, ..
        } => {
            assert_eq!(pointer.as_deref(), Some("/properties/b/items/$ref"));
            assert!(message.contains("/$defs/missing"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_meta_schema_is_a_config_error() {
    let err =
        CompiledSchema::compile(&json!({"$schema": "https://example.invalid/s", "type": "object"}))
            .unwrap_err();
    assert!(
        matches!(err, ConfigError::SchemaReference { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("unknown meta-schema"), "{err}");
}

#[test]
fn drafts_are_detected_from_dollar_schema() {
    // Draft 4: boolean exclusiveMinimum.
    let d4 = CompiledSchema::compile(&json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "minimum": 5, "exclusiveMinimum": true
    }))
    .unwrap();
    assert_eq!(d4.draft(), Draft::Draft4);
    assert_eq!(
        d4.check_value(&json!(5))[0].code,
        "schema.exclusive_minimum"
    );
    // Draft 7: `dependencies` and array-form `items`.
    let d7 = CompiledSchema::compile(&json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "dependencies": {"a": ["b"]},
        "properties": {"t": {"items": [{"type": "string"}], "additionalItems": false}}
    }))
    .unwrap();
    assert_eq!(d7.draft(), Draft::Draft7);
    let diags = d7.check_value(&json!({"a": 1, "t": ["x", 2]}));
    assert_eq!(
        find(&diags, "schema.required", "/b").message,
        "missing required field \"b\""
    );
    assert!(
        diags.iter().any(|d| d.code == "schema.additional_items"),
        "{diags:#?}"
    );
    // 2020-12 is the default: prefixItems.
    let d2020 =
        CompiledSchema::compile(&json!({"prefixItems": [{"type": "integer"}], "items": false}))
            .unwrap();
    assert_eq!(d2020.draft(), Draft::Draft202012);
    let diags = d2020.check_value(&json!(["x", 2]));
    assert_eq!(
        find(&diags, "schema.type", "/0").message,
        "expected integer, got string"
    );
    assert_eq!(
        find(&diags, "schema.false_schema", "/1").message,
        "no value is allowed here"
    );
}

#[test]
fn schema_files_resolve_relative_refs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("id.json"), r#"{"type": "integer"}"#).unwrap();
    let main = dir.path().join("main schema.json");
    std::fs::write(&main, r#"{"properties": {"id": {"$ref": "id.json"}}}"#).unwrap();
    let s = CompiledSchema::compile_file(&main).unwrap();
    assert_eq!(s.origin(), main.display().to_string());
    let diags = s.check_value(&json!({"id": "x"}));
    assert_eq!(diags[0].message, "expected integer, got string");
    assert_eq!(diags[0].source, format!("schema:{}", main.display()));

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, r#"{"properties": {"id": {"$ref": "nope.json"}}}"#).unwrap();
    let err = CompiledSchema::compile_file(&broken).unwrap_err();
    assert!(
        matches!(&err, ConfigError::SchemaReference { pointer: Some(p), .. } if p == "/properties/id/$ref"),
        "{err:?}"
    );
    let missing = CompiledSchema::compile_file(&dir.path().join("absent.json")).unwrap_err();
    assert!(matches!(missing, ConfigError::Io { .. }));
    std::fs::write(dir.path().join("bad.json"), "{\n  \"type\": }").unwrap();
    let bad = CompiledSchema::compile_file(&dir.path().join("bad.json")).unwrap_err();
    assert!(bad.to_string().contains("line 2"), "{bad}");
}

#[test]
fn schema_sets_require_every_schema() {
    let set: SchemaSet = [
        CompiledSchema::compile(&json!({"required": ["a"]})).unwrap(),
        CompiledSchema::compile(&json!({"required": ["b"]})).unwrap(),
    ]
    .into_iter()
    .collect();
    assert_eq!(set.len(), 2);
    let d = doc(r#"{"a": 1}"#);
    assert!(!set.is_valid(&d.value));
    let diags = set.check(&d);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].location.pointer, "/b");
    assert!(SchemaSet::new().check(&d).is_empty());
}

#[test]
fn compiled_schemas_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledSchema>();
    assert_send_sync::<SchemaSet>();
}

#[test]
fn yaml_schema_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task.schema.yaml");
    std::fs::write(
        &path,
        "type: object\nrequired: [id]\nproperties:\n  id: {type: integer}\n",
    )
    .unwrap();
    let s = CompiledSchema::compile_file(&path).unwrap();
    let diags = s.check(
        &read("id: x\n".to_owned(), Format::Yaml, &Limits::default())
            .document
            .unwrap(),
    );
    assert_eq!(diags[0].message, "expected integer, got string");
    assert_eq!(line_col(&diags[0]), (1, 5));
}

#[test]
fn formats_are_asserted_in_every_draft() {
    for dollar_schema in [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
    ] {
        let s = CompiledSchema::compile(&json!({
            "$schema": dollar_schema,
            "properties": {"due": {"format": "date"}, "n": {"type": "integer", "format": "uint32"}}
        }))
        .unwrap();
        let diags = s.check_value(&json!({"due": "tomorrow", "n": 3}));
        assert_eq!(diags.len(), 1, "{dollar_schema}: {diags:#?}");
        let d = &diags[0];
        assert_eq!(d.code, "schema.format");
        assert_eq!(d.message, "\"tomorrow\" is not a valid date");
        assert_eq!(d.expected.as_deref(), Some("a valid date"));
        assert!(s.is_valid(&json!({"due": "2026-11-22"})));
    }
}

/// A `$ref` reads files only under the schema's directory (symbolic links resolved), so a
/// schema cannot put another file's values into error messages; `RefAccess::Anywhere` allows
/// it; remote references are never fetched.
#[test]
fn refs_are_confined_to_the_schema_directory() {
    let outer = tempfile::tempdir().unwrap();
    let secret = outer.path().join("secret.json");
    std::fs::write(&secret, r#"{"api_key": "sk-very-secret"}"#).unwrap();
    let dir = outer.path().join("schemas");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("id.yaml"), "type: integer\n").unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("link.json")).unwrap();
    let schema = |file: &str, r: &str| {
        let path = dir.join(file);
        std::fs::write(
            &path,
            format!(r#"{{"properties": {{"id": {{"$ref": "{r}"}}}}}}"#),
        )
        .unwrap();
        path
    };
    // Inside the directory, YAML included: read.
    let ok = CompiledSchema::compile_file(&schema("ok.json", "id.yaml")).unwrap();
    assert!(!ok.is_valid(&json!({"id": "x"})));
    for (file, r) in [
        ("up.json", "../secret.json#/api_key"),
        ("link.json.schema", "link.json#/api_key"),
        ("abs.json", &format!("file://{}#/api_key", secret.display())),
    ] {
        let err = CompiledSchema::compile_file(&schema(file, r))
            .unwrap_err()
            .to_string();
        assert!(err.contains("outside the schema's directory"), "{r}: {err}");
        assert!(!err.contains("sk-very-secret"), "{r}: {err}");
    }
    let anywhere = CompiledSchema::compile_named_with(
        &json!({"properties": {"id": {"$ref": "../secret.json"}}}),
        "s",
        Some(&dir.join("up.json")),
        RefAccess::Anywhere,
    );
    assert!(anywhere.is_ok(), "{anywhere:?}");
    // A schema that is not a file reads no file; a remote reference is not fetched.
    let inline = CompiledSchema::compile(&json!({"$ref": format!("file://{}", secret.display())}))
        .unwrap_err()
        .to_string();
    assert!(inline.contains("may read no file"), "{inline}");
    let remote = CompiledSchema::compile(&json!({"$ref": "https://example.invalid/s.json"}))
        .unwrap_err()
        .to_string();
    assert!(remote.contains("not fetched"), "{remote}");
}
