"""Extract repair cases from the Rust crate jsonrepair 0.1.0 (crates.io), src/tests/*.rs.
Run: python3 jsonrepair_extract.py  (after `cargo info jsonrepair`)
Cases: repair_to_string(LIT, &opts()/Options::default()) whose output (parsed) is compared
with a literal/json!(..) whole value, and the helper assert_repair_eq(input, expected_json_text).
Streaming / writer / file tests, and tests checking single fields (v["a"]) are not used.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _rustlit import text_repair_package
root = glob.glob("/root/.cargo/registry/src/*/jsonrepair-0.1.0")[0]
files = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/src/tests/*.rs"))]
# every `fn opts()` in these files returns Options::default() (checked by hand)
text_repair_package("jsonrepair", HERE, files, {"repair_to_string": 1, "repair_to_value": 1}, nargs=(1, 2),
                    local_default_fns=("opts",), helpers={"assert_repair_eq": (0, 1)}, value_funcs=("repair_to_value",))
