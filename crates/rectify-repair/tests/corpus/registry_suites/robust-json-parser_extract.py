"""Extract cases from the PyPI package robust-json-parser 0.1.7 (import name robust_json), sdist tests/*.py.
Run: pip download robust-json-parser==0.1.7 --no-deps --no-binary :all: -d /tmp/pysd && tar xzf ...;
     python3 robust-json-parser_extract.py [/tmp/pysd/robust_json_parser-0.1.7]
Cases: loads(LIT) (default options: allow_partial=True, strict=False) == LITERAL.
extract / extract_all / loads_batch / RobustJSONParser objects and field-only asserts are not used.
Inputs held in tests/fixtures.py constants are not followed (that module is not read).
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _pylit import py_repair_package
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pysd/robust_json_parser-0.1.7"
files = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/tests/test_*.py"))]
py_repair_package("robust-json-parser", HERE, files, value_funcs=("loads",),
                  kw_ok=lambda kw: kw in ({"allow_partial": True}, {"strict": False}))
