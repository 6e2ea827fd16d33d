"""A command-line agent behind `rectify.Client`, sync and async: the prompt goes to the command's
standard input, its output is repaired, checked and, when it fails, the problems go back.

    python examples/python/command_agent.py
"""

from __future__ import annotations

import asyncio
import sys

from pydantic import BaseModel

import rectify


class City(BaseModel):
    """A city."""

    name: str
    country: str


# Stands in for `claude -p`, `codex exec` or your own script: it answers with a fenced block.
AGENT = [sys.executable, "-c", "print('```json\\n{\"name\": \"Lyon\", \"country\": \"France\",}\\n```')"]


async def ask_async(client: rectify.Client) -> City:
    return await client.aextract(City, "Name a city in France.")


def main() -> None:
    client = rectify.Client("command", command=AGENT, max_attempts=2)
    print(client.extract(City, "Name a city in France."))
    print(asyncio.run(ask_async(client)))


if __name__ == "__main__":
    main()
