"""Extract completion cases from the Rust crate partial-json-fixer 0.5.5 (crates.io), tests/tests.rs.
Run: python3 partial-json-fixer_extract.py  (after `cargo info partial-json-fixer`)
Cases: fix_json_to_string(LIT) / fix_json_parse(LIT).to_string() compared with a literal
expected text (parsed as JSON). assert_parses(..) (only checks that the output parses) is not used.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _rustlit import text_repair_package
root = glob.glob("/root/.cargo/registry/src/*/partial-json-fixer-0.5.5")[0]
files = [(f"{root}/tests/tests.rs", "tests/tests.rs")]
text_repair_package("partial-json-fixer", HERE, files, {"fix_json_to_string": 1, "fix_json_parse": 1, "fix_json": 1})
