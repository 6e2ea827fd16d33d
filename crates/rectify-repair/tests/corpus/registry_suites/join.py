"""Joins the per-package files the extractors write (`<package>.jsonl`, beside them) into
`../registry_suites.jsonl`, marking every case of a package outside TUNED `measured_only`.

Run: for f in *_extract.py; do python3 "$f"; done; python3 join.py
"""
import glob
import json
import os

TUNED = {"json-repair", "llm-output-parser", "partialjson"}
here = os.path.dirname(os.path.abspath(__file__))
rows = []
for path in sorted(glob.glob(os.path.join(here, "*.jsonl"))):
    name = os.path.basename(path)[: -len(".jsonl")]
    for line in open(path, encoding="utf-8"):
        if not line.strip():
            continue
        case = json.loads(line)
        row = {k: case[k] for k in ("id", "source", "input", "expected")}
        if case.get("schema") is not None:
            row["schema"] = case["schema"]
        row["measured_only"] = name not in TUNED
        rows.append(row)
with open(os.path.join(here, "..", "registry_suites.jsonl"), "w", encoding="utf-8") as f:
    for row in rows:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(rows), "cases,", sum(r["measured_only"] for r in rows), "measured only")
