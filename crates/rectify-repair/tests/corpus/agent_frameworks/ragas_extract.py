"""Cases from ragas' tests/unit/prompt/test_prompt_utils.py (ragas.prompt.utils.extract_json).

Run: python3 ragas_extract.py   (reads sdists/ragas/*.tar.gz, writes ragas.jsonl)
extract_json returns the JSON text it found; the expected value is that text parsed with
json.loads. Class attributes of TestExtractJson (prefix, suffix, object, ...) are evaluated as
literals. Skipped: the incomplete-JSON test, where extract_json returns the text unchanged
(no JSON value is stated).
"""
import ast, json
from _common import open_sdist, read_source, scan_function, parametrize_rows, lit, NotLiteral, Writer

PKG, FILE = "ragas", "tests/unit/prompt/test_prompt_utils.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("ragas")


def add(src, text, exp_text):
    try:
        exp = json.loads(exp_text)
    except (TypeError, ValueError):
        return
    w.add(src, text, exp)


for cls in tree.body:
    if not (isinstance(cls, ast.ClassDef) and cls.name == "TestExtractJson"):
        continue
    env = {}
    for st in cls.body:
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
            try:
                env[st.targets[0].id] = lit(st.value, env)
            except NotLiteral:
                pass
    for fn in cls.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        src = f"{FILE}::{cls.name}::{fn.name}"
        rows = parametrize_rows(fn, env)
        if rows:
            for r in rows:
                add(src, r["text"], r["expected"])
            continue
        for text, exp, extra, line in scan_function(fn, {"extract_json"}, env):
            add(src, text, exp)
w.write()
