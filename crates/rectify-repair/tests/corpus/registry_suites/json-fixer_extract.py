"""Extract repair cases from the Rust crate json-fixer 0.1.0 (crates.io), src/tests/jsonfixer_tests.rs.
Run: python3 json-fixer_extract.py  (after `cargo info json-fixer`)
Cases: JsonFixer::fix(LIT) compared with a literal expected text (parsed as JSON).
Calls with a JsonFixerConfig (fix_with_config, formatting options) are not used.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _rustlit import text_repair_package
root = glob.glob("/root/.cargo/registry/src/*/json-fixer-0.1.0")[0]
files = [(f"{root}/src/tests/jsonfixer_tests.rs", "src/tests/jsonfixer_tests.rs")]
text_repair_package("json-fixer", HERE, files, {"fix": 1})
