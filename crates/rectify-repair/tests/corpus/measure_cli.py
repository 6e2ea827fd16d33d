"""Counts, per part of a corpus, the cases `rectify repair` gives back as expected.

    python3 measure_cli.py BIN CORPUS.jsonl

BIN is a built `rectify` binary. Each case is run through `BIN repair --output json` with
the case's schema, once with `--unsafe` and once without. A case counts when the result is
valid and its value equals `expected` (numbers compared by value). The counts are printed
for the tuned and the measured-only (`measured_only: true`) parts, with and without a
schema. Only counts are printed: the measured-only part's misses are not for reading.
"""
import json, os, subprocess, sys, tempfile


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) < 1e-9 * max(1, abs(a))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


def passes(binary, case, unsafe):
    args = [binary, "repair", "--output", "json", "-"] + (["--unsafe"] if unsafe else [])
    schema = None
    if case.get("schema") is not None:
        schema = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(case["schema"], schema)
        schema.close()
        args += ["--schema", schema.name]
    try:
        run = subprocess.run(args, input=case["input"].encode(), capture_output=True)
        out = json.loads(run.stdout)
        return bool(out.get("valid")) and same(out.get("value"), case["expected"])
    except ValueError:
        return False
    finally:
        if schema:
            os.unlink(schema.name)


def main():
    binary, corpus = sys.argv[1], sys.argv[2]
    counts = {}
    for line in open(corpus):
        if not line.strip():
            continue
        case = json.loads(line)
        if case.get("expect_error"):
            continue
        part = ("measured only" if case.get("measured_only") else "tuned",
                "with a schema" if case.get("schema") is not None else "no schema")
        n, unsafe, safe = counts.get(part, (0, 0, 0))
        counts[part] = (n + 1, unsafe + passes(binary, case, True),
                        safe + passes(binary, case, False))
    for part in sorted(counts):
        n, unsafe, safe = counts[part]
        print(f"{part[0]:14} {part[1]:14} {n:4} cases: --unsafe {unsafe:4}, without {safe:4}")


if __name__ == "__main__":
    main()
