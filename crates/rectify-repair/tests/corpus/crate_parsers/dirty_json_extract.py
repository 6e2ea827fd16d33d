"""Cases from crate dirty-json 0.1.0 (MIT), src/lib.rs unit test.

Run: python3 dirty_json_extract.py   (after `cargo fetch` in probe/p_dirty-json)
Writes dirty_json.jsonl: the test's input literal and its expected fixed JSON text, parsed."""
import json
from rustlit import *

D = crate_dir("dirty-json-0.1.0")
F = "src/lib.rs"
T = read(f"{D}/{F}")
fn = "test_fix_json"
write("dirty_json", [{"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0),
                      "expected": json.loads(lit(T, "fn:" + fn, 1)), "schema": None}])
