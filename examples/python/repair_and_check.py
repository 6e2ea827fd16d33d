"""Deterministic repair and checking, no model involved.

    python examples/python/repair_and_check.py
"""

from __future__ import annotations

from pydantic import BaseModel

import rectify


class Invoice(BaseModel):
    """An invoice as a model reads it."""

    number: str
    total: float


def main() -> None:
    answer = "Sure! ```json\n{'number': 'INV-7', total: '12.50',}\n```"
    result = rectify.repair(answer, schema=Invoice)
    print("value:", result.value)
    for r in result.repairs:
        where = f"{r.span.line}:{r.span.column}" if r.span else r.path
        print(f"  repaired[{r.code}] {where} ({r.safety})")

    checked = rectify.check('{\n  "number": 7\n}', schema=Invoice)
    for d in checked.diagnostics:
        print(f"{d.line}:{d.column} {d.path}: {d.message} [{d.code}]")


if __name__ == "__main__":
    main()
