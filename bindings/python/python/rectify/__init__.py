"""rectify: validate, repair and retry the structured output of language models and agents.

The engine is the Rust ``rectify`` library; this package is its Python face:

- :func:`repair` — extract and repair a model's answer deterministically (no model call);
- :func:`check` — check a document against a JSON Schema, a pydantic model, a rules file;
- :func:`validate_with_retry` — your own function as the model: its answer is repaired,
  checked (pydantic validators included) and, when it fails, fed back until it passes;
- :class:`Client` — the same loop over a provider (OpenAI-compatible, Anthropic, a command
  agent), chosen as the ``rectify`` command chooses it;
- :func:`run`, :func:`resume`, :func:`status` — workflows, with human pauses resumed from
  Python.

Errors are :class:`Error` and its kinds :class:`ConfigError`, :class:`ProviderError`,
:class:`Exhausted` (carrying the best candidate and every attempt) and :class:`Refused`.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: importing `typing` would be most of the import time (mypy
# recognises the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._check import check, repair
    from ._errors import ConfigError, Error, Exhausted, ProviderError, Refused
    from ._flow import resume, run, status
    from ._loop import Client, FeedbackMode, avalidate_with_retry, validate_with_retry
    from ._types import (
        Attempt,
        Candidate,
        CheckResult,
        Diagnostic,
        Repair,
        RepairResult,
        RunSummary,
        Span,
        StepSummary,
        Waiting,
    )

# Names load with their module on first use (PEP 562): `import rectify` stays cheap, and the
# extension module is loaded by the first call that needs it.
_WHERE = {
    "check": "_check", "repair": "_check",
    "ConfigError": "_errors", "Error": "_errors", "Exhausted": "_errors",
    "ProviderError": "_errors", "Refused": "_errors",
    "resume": "_flow", "run": "_flow", "status": "_flow",
    "Client": "_loop", "FeedbackMode": "_loop", "avalidate_with_retry": "_loop",
    "validate_with_retry": "_loop",
    "Attempt": "_types", "Candidate": "_types", "CheckResult": "_types", "Diagnostic": "_types",
    "Repair": "_types", "RepairResult": "_types", "RunSummary": "_types", "Span": "_types",
    "StepSummary": "_types", "Waiting": "_types",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'rectify' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_WHERE))


__version__ = "0.1.0"

__all__ = [
    "Attempt",
    "Candidate",
    "CheckResult",
    "Client",
    "ConfigError",
    "Diagnostic",
    "Error",
    "Exhausted",
    "FeedbackMode",
    "ProviderError",
    "Refused",
    "Repair",
    "RepairResult",
    "RunSummary",
    "Span",
    "StepSummary",
    "Waiting",
    "avalidate_with_retry",
    "check",
    "repair",
    "resume",
    "run",
    "status",
    "validate_with_retry",
]
