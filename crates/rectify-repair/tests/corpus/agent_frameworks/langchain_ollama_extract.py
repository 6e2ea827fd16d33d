"""Cases from langchain-ollama's tests/unit_tests/test_chat_models.py
(_parse_json_string: tool-call argument strings, parametrized success cases).

Run: python3 langchain_ollama_extract.py   (reads sdists/langchain-ollama/*.tar.gz, writes langchain_ollama.jsonl)
Skipped: the failure and skip=True tests (no value or the text returned unchanged), and
_parse_arguments_from_tool_call (its input is already a dict, not text).
"""
import ast
from _common import open_sdist, read_source, parametrize_rows, Writer

PKG, FILE = "langchain-ollama", "tests/unit_tests/test_chat_models.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("langchain_ollama")
for fn in tree.body:
    if isinstance(fn, ast.FunctionDef) and fn.name == "test_parse_json_string_success_cases":
        for row in parametrize_rows(fn) or []:
            w.add(f"{FILE}::{fn.name}", row["input_string"], row["expected_output"])
w.write()
