"""The seed's story from Python: an agent call validated against a model, retried with the
problems as feedback, and escalated to a person with the best candidate when it never passes.

Runs as is, offline: `execute_agent` stands in for your own agent call (a subprocess, an SDK,
LangGraph node, ...). It answers like agents do: prose around a fenced block, a trailing
comma, a task that names a phase that does not exist.

    python examples/python/seed_story.py
"""

from __future__ import annotations

import json
from typing import List, Optional

from pydantic import BaseModel, Field, model_validator

import rectify


class Task(BaseModel):
    """One task of the plan."""

    id: str = Field(pattern=r"^T\d+$")
    title: str
    phase_id: str = Field(alias="phaseId")


class Plan(BaseModel):
    """The plan the agent must produce."""

    phases: List[str] = Field(min_length=1)
    tasks: List[Task] = Field(min_length=1)

    @model_validator(mode="after")
    def tasks_name_known_phases(self) -> Plan:
        """Every task belongs to a phase of the plan (a check JSON Schema cannot express)."""
        for i, task in enumerate(self.tasks):
            if task.phase_id not in self.phases:
                raise ValueError(
                    f"tasks[{i}].phaseId {task.phase_id!r} is not one of the phases {self.phases}"
                )
        return self


ANSWERS = [
    # 1: prose, a fence, a trailing comma (repaired), a missing title (fed back).
    'Here is the plan:\n```json\n{"phases": ["P1"], "tasks": [{"id": "T1", "phaseId": "P1"},]}\n```',
    # 2: the shape is right, but a task names a phase that does not exist (pydantic, fed back).
    '{"phases": ["P1"], "tasks": [{"id": "T1", "title": "Set up", "phaseId": "P2"}]}',
    # 3: right.
    '{"phases": ["P1", "P2"], "tasks": [{"id": "T1", "title": "Set up", "phaseId": "P2"}]}',
]


class Agent:
    """Stands in for the agent: answers from a script and shows what it was told."""

    def __init__(self, answers: List[str]) -> None:
        self.answers = answers
        self.calls = 0

    def __call__(self, feedback: Optional[str]) -> str:
        prompt = "Write the plan for the feature as JSON."
        if feedback is not None:
            prompt = f"{feedback}\n\n{prompt}"
            print(f"--- call {self.calls + 1}, with feedback:\n{feedback}\n")
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


def main() -> None:
    agent = Agent(ANSWERS)
    plan = rectify.validate_with_retry(agent, Plan, max_attempts=3)
    print(f"valid after {agent.calls} calls: {plan.model_dump(by_alias=True)}\n")

    # A stubborn agent: never right. The person gets the best candidate and what is left.
    stubborn = Agent(ANSWERS[:2])
    try:
        rectify.validate_with_retry(stubborn, Plan, max_attempts=2)
    except rectify.Exhausted as e:
        print(f"escalated after {len(e.attempts)} attempts: {e}")
        if e.best is not None:
            print("best candidate:", json.dumps(e.best.value))
        for d in e.diagnostics:
            print(f"  {d.code} at {d.path}: {d.message}")


if __name__ == "__main__":
    main()
