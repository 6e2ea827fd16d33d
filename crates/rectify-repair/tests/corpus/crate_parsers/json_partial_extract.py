"""Cases from crate json_partial 0.2.1 (MIT OR Apache-2.0; a port of BAML's jsonish parser).

Run: python3 json_partial_extract.py   (after `cargo fetch` in probe/p_json_partial)
Writes json_partial.jsonl. Inputs are Rust string literals of the tests. Expected:
src/jsonish/mod.rs compares with a JSON literal (parsed here); the fixing_parser tests
match the value structurally (array of one number 12; object with exactly a=11, b=22),
written out here. Tests that only check `is_ok()` (no expected value), the markdown
multi-block test and the should_panic test are left out."""
import json
from rustlit import *

D = crate_dir("json_partial-0.2.1")
cases = []
F = "src/jsonish/mod.rs"
T = read(f"{D}/{F}")
fn = "test_to_json_string_compact"
cases.append({"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0),
              "expected": json.loads(lit(T, "fn:" + fn, 3)), "schema": None})  # 1, 2: expect() messages
F = "src/jsonish/parser/fixing_parser.rs"
T = read(f"{D}/{F}")
for fn, exp in [("test_partial_array", [12]), ("test_partial_object", {"a": 11, "b": 22}),
                ("test_partial_object_newlines", {"a": 11, "b": 22})]:
    cases.append({"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0), "expected": exp, "schema": None})
write("json_partial", cases)
