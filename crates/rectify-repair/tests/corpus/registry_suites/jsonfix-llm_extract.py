"""Extract cases from the PyPI package jsonfix-llm 0.1.1 (import name jsonfix_llm), sdist tests/*.py.
Run: pip download jsonfix-llm==0.1.1 --no-deps --no-binary :all: -d /tmp/pysd && tar xzf ...;
     python3 jsonfix-llm_extract.py [/tmp/pysd/jsonfix_llm-0.1.1]
Cases: repair_json(LIT) (the whole pipeline; returns text) compared as text or after json.loads.
The single passes (fix_quotes, strip_comments, auto_close_brackets, ...) and the CLI are not used.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _pylit import py_repair_package
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pysd/jsonfix_llm-0.1.1"
files = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/tests/test_*.py"))]
py_repair_package("jsonfix-llm", HERE, files, text_funcs=("repair_json",))
