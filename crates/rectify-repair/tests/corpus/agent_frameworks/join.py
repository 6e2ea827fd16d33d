"""Runs every <pkg>_extract.py, then concatenates the <pkg>.jsonl files into
../agent_frameworks.jsonl and checks
every case (ids unique, expected validates against its schema).

Run: python3 join.py
"""
import json, os, subprocess, sys
import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
PKGS = ["autogen_core", "letta", "smolagents", "ragas", "graphiti_core", "openai", "langchain_ollama"]
for p in PKGS:
    subprocess.run([sys.executable, os.path.join(HERE, f"{p}_extract.py")], check=True, cwd=HERE)
ids, n = set(), 0
with open(os.path.join(HERE, "..", "agent_frameworks.jsonl"), "w") as out:
    for p in PKGS:
        for line in open(os.path.join(HERE, f"{p}.jsonl")):
            c = json.loads(line)
            assert c["id"] not in ids
            ids.add(c["id"])
            if c["schema"] is not None:
                jsonschema.validate(c["expected"], c["schema"])
            out.write(line)
            n += 1
print(f"agent_frameworks.jsonl: {n} cases")
