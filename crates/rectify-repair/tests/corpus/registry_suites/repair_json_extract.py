"""Extract completion cases from the Rust crate repair_json 0.1.0 (crates.io), src/lib.rs tests.
Run: python3 repair_json_extract.py  (after `cargo info repair_json`)
Cases: repair(LIT) compared with a literal expected text (parsed as JSON).
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _rustlit import text_repair_package
root = glob.glob("/root/.cargo/registry/src/*/repair_json-0.1.0")[0]
files = [(f"{root}/src/lib.rs", "src/lib.rs")]
text_repair_package("repair_json", HERE, files, {"repair": 1})
