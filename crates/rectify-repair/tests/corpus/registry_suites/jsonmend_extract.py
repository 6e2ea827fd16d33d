"""Extract cases from the PyPI package jsonmend 0.1.4, sdist tests/*.py.
Run: pip download jsonmend==0.1.4 --no-deps --no-binary :all: -d /tmp/pysd && tar xzf ...;
     python3 jsonmend_extract.py [/tmp/pysd/jsonmend-0.1.4]
Cases: repair_json(LIT) (text; with return_objects=True a value) and loads(LIT) (value) compared
with a literal. Its conformance corpus (tests/test_corpus.py reads it through conftest.load_corpus)
is not in the sdist; ensure_ascii / skip_json_loads / strict options and the streaming API are not used.
"""
import glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from _pylit import py_repair_package
root = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pysd/jsonmend-0.1.4"
files = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/tests/test_*.py"))]
py_repair_package("jsonmend", HERE, files, text_funcs=("repair_json",), value_funcs=("loads",), value_kw="return_objects")
