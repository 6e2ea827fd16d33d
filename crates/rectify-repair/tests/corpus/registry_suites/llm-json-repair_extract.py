"""Extract cases from the Rust crate llm-json-repair 0.1.0 (crates.io): tests/integration.rs and
the unit tests in src/*.rs.
Run: python3 llm-json-repair_extract.py  (after `cargo info llm-json-repair`)
Cases: repair(LIT) (the whole clean-up: fences, prose, trailing commas) compared with a literal
expected text, parsed as JSON. The single-pass helpers (strip_fences, strip_trailing_commas,
extract_balanced) are not used, nor parse::<Struct> (target is a Rust struct).
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _rustlit import text_repair_package
root = glob.glob("/root/.cargo/registry/src/*/llm-json-repair-0.1.0")[0]
files = [(f, f[len(root) + 1:]) for f in [f"{root}/tests/integration.rs"] + sorted(glob.glob(f"{root}/src/*.rs"))]
text_repair_package("llm-json-repair", HERE, files, {"repair": 1})
