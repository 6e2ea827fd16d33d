"""Cases from letta's tests/test_optimistic_json_parser.py (OptimisticJSONParser.parse).

Run: python3 letta_extract.py   (reads sdists/letta/*.tar.gz, writes letta.jsonl)
Kept: `parse(x)` calls outside pytest.raises/try whose result is asserted equal to a literal.
Skipped: empty input (parsed as {} by the package's policy), the '.5' number case (the test
accepts two outcomes), anything inside try/except (outcome not fixed by the test).
"""
import ast
from _common import open_sdist, read_source, scan_function, lit, Writer

PKG, FILE = "letta", "tests/test_optimistic_json_parser.py"
tf, top, _ = open_sdist(PKG)
tree = ast.parse(read_source(tf, top, FILE))
w = Writer("letta")
for fn in tree.body:
    if not (isinstance(fn, ast.FunctionDef) and fn.name.startswith("test")):
        continue
    src = f"{FILE}::{fn.name}"
    if fn.name == "test_parse_number_cases":
        # test_cases = {...} with one conditional entry ('.5'), which is skipped
        for st in fn.body:
            if isinstance(st, ast.Assign) and getattr(st.targets[0], "id", "") == "test_cases":
                d = st.value
                for k, v in zip(d.keys, d.values):
                    if isinstance(v, ast.IfExp):
                        continue
                    w.add(src, lit(k), lit(v))
        continue
    for text, exp, extra, line in scan_function(fn, {"parse"}):
        if text.strip() == "":
            continue
        w.add(src, text, exp)
w.write()
