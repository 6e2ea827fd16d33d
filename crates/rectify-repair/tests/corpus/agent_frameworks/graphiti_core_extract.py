"""Cases from graphiti-core's tests/llm_client/test_anthropic_client.py
(AnthropicClient._extract_json_from_text).

Run: python3 graphiti_core_extract.py   (reads sdists/graphiti-core/*.tar.gz, writes graphiti_core.jsonl)
Skipped: test_generate_response_with_text_response (asserts one field, not the whole value).
"""
import ast
from _common import open_sdist, read_source, scan_function, Writer

PKG, FILE = "graphiti-core", "tests/llm_client/test_anthropic_client.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("graphiti_core")
for fn in ast.walk(tree):
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test"):
        for text, exp, extra, line in scan_function(fn, {"_extract_json_from_text"}):
            w.add(f"{FILE}::{fn.name}", text, exp)
w.write()
