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
