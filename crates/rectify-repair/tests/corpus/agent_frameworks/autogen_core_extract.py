"""Cases from autogen-core's tests/test_json_extraction.py (extract_json_from_str).

Run: python3 autogen_core_extract.py   (reads sdists/autogen-core/*.tar.gz, writes autogen_core.jsonl)
extract_json_from_str returns the list of JSON values found; a case is kept only when that list
has exactly one element (the expected value is that element). Multi-block results are skipped.
"""
import ast
from _common import open_sdist, read_source, scan_function, Writer

PKG, FILE = "autogen-core", "tests/test_json_extraction.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("autogen_core")
for fn in tree.body:
    if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test"):
        for text, exp, extra, line in scan_function(fn, {"extract_json_from_str"}):
            if isinstance(exp, list) and len(exp) == 1 and text.strip():
                w.add(f"{FILE}::{fn.name}", text, exp[0])
w.write()
