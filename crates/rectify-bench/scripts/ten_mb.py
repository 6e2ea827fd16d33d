"""The 10 MB broken document of the repair benchmarks, and the valid one it stands for: 40,000
records with unquoted keys, trailing commas, `//` and `/* */` comments, from a fixed seed.

One generator for every benchmark that uses it (crates/rectify-bench/scripts/repair_10mb.sh,
bindings/python/bench/bench.py, bindings/node/bench/run.sh), so their "same document" is the
same bytes.

    python3 crates/rectify-bench/scripts/ten_mb.py DIR   # writes DIR/broken.json, DIR/valid.json
"""

import json
import random
import sys
from typing import Any, List, Tuple

WORDS = ["invoice", "export", "phase", "review", "customer", "ledger", "quarterly", "report",
         "draft", "approved", "pending", "résumé"]


def _s(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def documents() -> Tuple[str, List[Any]]:
    """The broken document's text, and the records it holds."""
    rng = random.Random(35)
    records = []
    broken = ["// 40,000 records, written by hand\n[\n"]
    for i in range(40000):
        r = {"id": i, "sku": f"SKU-{rng.randint(0, 99999):05d}",
             "title": " ".join(rng.choice(WORDS) for _ in range(3)),
             "amount": round(rng.random() * 100000, 2), "done": rng.random() < .5,
             "tags": [rng.choice(WORDS), rng.choice(WORDS)],
             "owner": {"name": rng.choice(WORDS) + " " + rng.choice(WORDS),
                       "email": f"user{rng.randint(0, 999)}@example.org"}}
        records.append(r)
        broken.append(
            f"  // record {i}\n"
            f"  {{\n"
            f"    id: {r['id']},\n"
            f"    sku: {_s(r['sku'])}, /* stock unit */\n"
            f"    title: {_s(r['title'])},\n"
            f"    \"amount\": {r['amount']},\n"
            f"    done: {_s(r['done'])},\n"
            f"    tags: [{_s(r['tags'][0])}, {_s(r['tags'][1])},],\n"
            f"    owner: {{name: {_s(r['owner']['name'])}, \"email\": {_s(r['owner']['email'])},}},\n"
            f"  }},\n")
    broken.append("]\n")
    return "".join(broken), records


if __name__ == "__main__":
    out = sys.argv[1]
    text, records = documents()
    with open(f"{out}/broken.json", "w", encoding="utf-8") as f:
        f.write(text)
    with open(f"{out}/valid.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(records, indent=2, ensure_ascii=False))
