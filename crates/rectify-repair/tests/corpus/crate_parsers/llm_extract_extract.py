"""Cases from crate llm-extract 0.2.0 (MIT OR Apache-2.0), tests/integration.rs.

Run: python3 llm_extract_extract.py   (after `cargo fetch` in probe/p_llm-extract)
Writes llm_extract.jsonl. Inputs are read from the test source as Rust string literals.
Expected values: the tests assert field by field; a case is kept only when every leaf of
the value is asserted, or the unasserted leaves sit in input that is already valid JSON
(so they can only be copied unchanged). Left out: multi-value extract_all tests, the
ambiguous "first of two objects" test, and (audit) python_style_dict_in_fence and
combined_syntax_errors, whose unasserted array items come from input that needed repair.
Typed tests (`extract::<Struct>`) get the struct as a JSON Schema (String, u32, bool
fields; serde(rename) applied; every field required; no struct has
`#[serde(deny_unknown_fields)]`, so extra keys are allowed)."""
from rustlit import *

D = crate_dir("llm-extract-0.2.0")
F = "tests/integration.rs"
T = read(f"{D}/{F}")

API = struct(status=STRING, count=U32)
TASK = struct(target=STRING, priority=U32)
ACTION = struct(type=STRING, target=STRING)
CONFIG = struct(enabled=BOOL, retries=U32)
OUTER = struct(name=STRING, details=struct(description=STRING, value=U32))

CASES = [
    ("bare_json_object", {"a": 1}, None),
    ("bare_json_array", [1, 2, 3], None),
    ("fenced_json", {"status": "ok", "count": 42}, None),
    ("fenced_no_lang", {"a": 1}, None),
    ("json_with_prose_before", {"a": 1}, None),
    ("json_with_prose_after", {"a": 1}, None),
    ("json_with_prose_both", {"a": 1}, None),
    ("trailing_comma_object", {"a": 1}, None),
    ("trailing_comma_array", [1, 2], None),
    ("nested_trailing_commas", {"a": [1], "b": {"c": 2}}, None),
    ("unclosed_string", {"a": "test"}, None),
    ("unclosed_bracket", {"a": 1}, None),
    ("empty_array", [], None),
    ("empty_object", {}, None),
    ("commas_in_strings_preserved", {"msg": "hello, world"}, None),
    ("deserialize_to_struct", {"status": "ok", "count": 42}, API),
    ("strict_mode_no_repair", {"status": "ok", "count": 42}, API),
    ("repair_field_name_typo", {"target": "main.rs", "priority": 1}, TASK),
    ("extract_with_serde_rename", {"type": "AddDerive", "target": "User"}, ACTION),
    ("repair_multiple_field_typos", {"target": "User", "priority": 5}, TASK),
    ("full_llm_response_with_explanation", {"status": "complete", "count": 7}, API),
    ("llm_response_with_trailing_commas_and_prose", {"target": "lib.rs", "priority": 3}, TASK),
    ("single_quotes", {"status": "ok", "count": 42}, None),
    ("unquoted_keys", {"status": "ok", "count": 42}, None),
    ("python_true_false_none", {"active": True, "deleted": False, "data": None}, None),
    ("line_comments", {"name": "Alice", "age": 30}, None),
    ("block_comments", {"version": 1, "stable": True}, None),
    ("single_quotes_with_prose_and_fence", {"name": "Bob", "score": 95}, None),
    ("typed_extract_with_single_quotes", {"status": "ok", "count": 42}, API),
    ("typed_extract_with_python_keywords", {"enabled": True, "retries": 3}, CONFIG),
    ("think_block_with_json", {"status": "ok", "count": 42}, None),
    ("think_block_with_fence_and_prose", {"status": "complete", "count": 7}, API),
    ("think_block_with_typo_repair", {"target": "main.rs", "priority": 1}, TASK),
    ("nested_repair_inner_field_typo", {"name": "test", "details": {"description": "hello", "value": 42}}, OUTER),
    ("nested_repair_both_levels_typo", {"name": "test", "details": {"description": "hello", "value": 42}}, OUTER),
    ("verbose_via_extractor", {"target": "lib.rs", "priority": 2}, TASK),
]

cases = [{"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0), "expected": exp, "schema": sch}
         for fn, exp, sch in CASES]
write("llm_extract", cases)
