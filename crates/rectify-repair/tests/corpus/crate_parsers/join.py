#!/usr/bin/env python3
"""Joins the per-package files the extractors here write into ../crate_parsers.jsonl, and
splits each package into parts: its even-indexed cases are tuned (`measured_only: false`),
its odd-indexed ones measured only.

    python3 join.py     # after running each <pkg>_extract.py (see their headers)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ["llm_extract", "langchain_rust", "llm_toolkit", "jsonfix", "json_partial",
            "dirty_json", "llm_json_npm"]

with open(os.path.join(HERE, "..", "crate_parsers.jsonl"), "w") as out:
    for name in PACKAGES:
        with open(os.path.join(HERE, name + ".jsonl")) as part:
            cases = [json.loads(line) for line in part if line.strip()]
        for i, case in enumerate(cases):
            case["measured_only"] = i % 2 == 1
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
