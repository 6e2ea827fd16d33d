"""Cases from smolagents' tests: parse_json_blob (tests/test_utils.py, parametrized valid cases)
and parse_json_if_needed (tests/test_models.py).

Run: python3 smolagents_extract.py   (reads sdists/smolagents/*.tar.gz, writes smolagents.jsonl)
Skipped: the invalid-JSON parametrization (failure expected), parse_json_if_needed calls whose
input is not a string or that return the text unchanged (not JSON), get_tool_call_from_text
(the tests assert single fields, not the whole parsed value), parse_code_blobs (code, not JSON).
"""
import ast
from _common import open_sdist, read_source, scan_function, parametrize_rows, Writer

PKG = "smolagents"
tf, top, _ = open_sdist(PKG)
w = Writer("smolagents")

FILE = "tests/test_utils.py"
tree = ast.parse(read_source(tf, top, FILE))
for fn in ast.walk(tree):
    if isinstance(fn, ast.FunctionDef) and fn.name == "test_parse_json_blob_with_valid_json":
        for row in parametrize_rows(fn) or []:
            w.add(f"{FILE}::{fn.name}", row["raw_json"], row["expected_data"])

FILE = "tests/test_models.py"
tree = ast.parse(read_source(tf, top, FILE))
for fn in ast.walk(tree):
    if isinstance(fn, ast.FunctionDef) and fn.name == "test_parse_json_if_needed":
        for text, exp, extra, line in scan_function(fn, {"parse_json_if_needed"}):
            if isinstance(text, str) and exp != text:
                w.add(f"{FILE}::{fn.name}", text, exp)
w.write()
