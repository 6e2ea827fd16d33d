#!/usr/bin/env python3
"""Joins the per-package files the extractors here write into ../llm_frameworks.jsonl.

    python3 join.py     # after running each <pkg>_extract.py (see their headers)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ["mirascope", "magentic", "crewai", "openai_agents"]

with open(os.path.join(HERE, "..", "llm_frameworks.jsonl"), "w") as out:
    for name in PACKAGES:
        with open(os.path.join(HERE, name + ".jsonl")) as part:
            out.writelines(line for line in part if line.strip())
