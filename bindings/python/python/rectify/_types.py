"""The typed results: diagnostics, repairs, attempts, run summaries.

The field names are those of the CLI's ``--output json`` (``docs/output/*.schema.json``), so a
program that read ``rectify check --output json`` reads these the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import json as _json
from json.decoder import JSONDecoder
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Tuple


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a value.

    Attributes:
        severity: ``"error"`` or ``"warning"``.
        code: a stable code such as ``schema.required`` (see ``docs/diagnostics.md``).
        path: the display path (``tasks[0].phaseId``, ``$`` for the root).
        pointer: the JSON Pointer (``/tasks/0/phaseId``, empty for the root).
        line: 1-based line in the text, when the value came from text.
        column: 1-based column (in characters), when the value came from text.
        message: one line for a person (or a model).
        expected: what was expected, when known.
        received: what was found (shortened), when known.
        source: which check: ``schema``, ``rules:ID``, ``parse``, ``repair``, ``validator:NAME``.
    """

    severity: Literal["error", "warning"]
    code: str
    path: str
    pointer: str
    line: Optional[int]
    column: Optional[int]
    message: str
    expected: Optional[str] = None
    received: Optional[str] = None
    source: str = ""

    @property
    def is_error(self) -> bool:
        """True for an error (a warning does not make a value invalid)."""
        return self.severity == "error"

    def __str__(self) -> str:
        where = f"{self.line}:{self.column} " if self.line is not None else ""
        return f"{where}{self.path}: {self.message} [{self.code}]"

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Diagnostic:
        if "location" in d:  # the library's own shape (run summaries)
            loc = d["location"]
            span = loc.get("span") or {}
            return cls(
                d["severity"], d["code"], loc.get("path", "$"), loc.get("pointer", ""),
                span.get("line"), span.get("column"), d["message"], d.get("expected"),
                d.get("received"), d.get("source", ""),
            )
        return cls(
            d["severity"], d["code"], d["path"], d["pointer"], d["line"], d["column"],
            d["message"], d["expected"], d["received"], d["source"],
        )


@dataclass(frozen=True)
class Span:
    """Where in the text: byte offsets ``start``..``end``, and the 1-based ``line`` and
    ``column`` (in characters) of ``start``."""

    start: int
    end: int
    line: int
    column: int


@dataclass(frozen=True)
class Repair:
    """One deterministic repair.

    Attributes:
        code: a stable code such as ``json.trailing_comma`` (see ``docs/rules/README.md``).
        path: the display path of the value repaired.
        pointer: its JSON Pointer.
        span: where in the text, when known.
        before: the text (or value) before.
        after: the text (or value) after.
        safety: ``"safe"`` (cannot change the meaning) or ``"unsafe"`` (may; applied only with
            ``unsafe=True``).
    """

    code: str
    path: str
    pointer: str
    span: Optional[Span]
    before: str
    after: str
    safety: Literal["safe", "unsafe"]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Repair:
        loc = d["location"]
        s = loc.get("span")
        return cls(
            d["code"], loc["path"], loc["pointer"],
            Span(s["start"], s["end"], s["line"], s["column"]) if s else None,
            d["before"], d["after"], d["applicability"],
        )


# The C scanner behind `json.loads`, called directly: on the small values most repairs give,
# `json.loads`'s own checks (type, whitespace on both sides) cost three times the decoding.
_scan: Callable[[str, int], Tuple[Any, int]] = JSONDecoder().scan_once  # type: ignore[attr-defined]


def _decode(text: str) -> Any:
    """The value of the compact JSON text the repair gave (exactly what ``json.loads`` gives)."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return _json.loads(text)  # raises the decoder's own error
    return value if end == len(text) else _json.loads(text)


class RepairResult:
    """What :func:`rectify.repair` made of a text. Its parts are converted when first read (a
    caller that wants only the value does not pay for 10,000 repair objects).

    Attributes:
        valid: a value was recovered and no diagnostic is an error.
        value: the repaired value (``None`` when none could be recovered: see ``diagnostics``).
        json: the repaired value as compact JSON text, numbers exactly as the repair left them
            (``None`` when none could be recovered).
        repairs: every repair applied, in order (the first 10,000 of a huge document).
        diagnostics: what could not be repaired, and warnings.
    """

    __slots__ = ("valid", "json", "_value", "_findings", "_repairs", "_diagnostics")

    _UNSET: Any = object()

    def __init__(self, valid: bool, json: Optional[str], findings: Any) -> None:
        self.valid = valid
        self.json = json
        self._value: Any = RepairResult._UNSET
        # The native `Findings`: repairs and diagnostics stay in Rust until read.
        self._findings = findings
        self._repairs: Optional[List[Repair]] = None
        self._diagnostics: Optional[List[Diagnostic]] = None

    @property
    def value(self) -> Any:
        """The repaired value (``None`` when none could be recovered)."""
        if self._value is RepairResult._UNSET:
            self._value = None if self.json is None else _decode(self.json)
        return self._value

    @property
    def repairs(self) -> List[Repair]:
        """Every repair applied, in order."""
        if self._repairs is None:
            self._repairs = [Repair._from(r) for r in self._findings.repairs()]
        return self._repairs

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """What could not be repaired, and warnings."""
        if self._diagnostics is None:
            self._diagnostics = [Diagnostic._from(d) for d in self._findings.diagnostics()]
        return self._diagnostics

    def __bool__(self) -> bool:
        return self.valid

    def __repr__(self) -> str:
        return (
            f"RepairResult(valid={self.valid}, value={self.value!r}, "
            f"repairs={len(self.repairs)}, diagnostics={self.diagnostics!r})"
        )


@dataclass(frozen=True)
class CheckResult:
    """What :func:`rectify.check` found.

    Attributes:
        valid: no diagnostic is an error.
        diagnostics: every problem, with its path and, for text, its line and column.
    """

    valid: bool
    diagnostics: List[Diagnostic]

    def __bool__(self) -> bool:
        return self.valid

    @property
    def errors(self) -> List[Diagnostic]:
        """The diagnostics that are errors."""
        return [d for d in self.diagnostics if d.is_error]


@dataclass(frozen=True)
class Attempt:
    """One call of the model and what the loop made of its answer.

    Attributes:
        number: 1-based.
        provider: the provider's name (``fn:python`` for your own function).
        model: the model that answered, as reported.
        raw: the answer as received.
        value: the repaired value, when one could be recovered.
        diagnostics: every problem found in it.
        repairs: the repairs applied to it.
        feedback: the feedback sent after it (``None`` for the accepted attempt).
        latency_ms: wall time of the call.
    """

    number: int
    provider: str
    model: str
    raw: str
    value: Any
    diagnostics: List[Diagnostic]
    repairs: List[Repair]
    feedback: Optional[str]
    latency_ms: float

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Attempt:
        return cls(
            d["number"], d["provider"], d["model"], d["raw"], d["value"],
            [Diagnostic._from(x) for x in d["diagnostics"]],
            [Repair._from(x) for x in d["repairs"]], d["feedback"], d["latency_ms"],
        )


@dataclass(frozen=True)
class Candidate:
    """The best answer of a run that found no valid one.

    Attributes:
        attempt: the attempt it came from.
        value: the repaired value, when one could be recovered.
        raw: the answer as received.
        diagnostics: everything wrong with it.
    """

    attempt: int
    value: Any
    raw: str
    diagnostics: List[Diagnostic]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Candidate:
        return cls(d["attempt"], d["value"], d["raw"], [Diagnostic._from(x) for x in d["diagnostics"]])


@dataclass(frozen=True)
class Waiting:
    """What a paused workflow run waits for.

    Attributes:
        step: the step.
        reason: ``"human"`` (a human step) or ``"exhausted"`` (a step that used its attempts).
        message: the question, or why the step escalated.
        diagnostics: the problems of the best candidate.
        files: the files concerned.
        best: the best candidate answer, when the step answers.
    """

    step: str
    reason: str
    message: Optional[str]
    diagnostics: List[Diagnostic]
    files: List[str]
    best: Optional[str] = None

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> Waiting:
        return cls(
            d["step"], d["reason"], d.get("message"),
            [Diagnostic._from(x) for x in d.get("diagnostics", [])], list(d.get("files", [])),
            d.get("best"),
        )


@dataclass(frozen=True)
class StepSummary:
    """One step of a workflow run.

    Attributes:
        id: the step id (``step[key]`` for a ``foreach`` item).
        status: ``done``, ``done_with_warnings``, ``waiting``, ``failed``, ``pending``,
            ``running`` or ``skipped``.
        attempts: producer runs.
        repairs: deterministic repairs applied to its outputs.
        revisions: producer runs with feedback.
        verdict: the last validator verdict, if any.
        warnings: warnings (validator WARN findings, confinement).
        diagnostics: errors of its last check, when it did not finish.
    """

    id: str
    status: str
    attempts: int
    repairs: int
    revisions: int
    verdict: Optional[str]
    warnings: List[str]
    diagnostics: List[Diagnostic]

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> StepSummary:
        return cls(
            d["id"], d["status"], d["attempts"], d["repairs"], d["revisions"], d.get("verdict"),
            list(d.get("warnings", [])), [Diagnostic._from(x) for x in d.get("diagnostics", [])],
        )


RunStatus = Literal["running", "waiting", "completed", "failed", "interrupted"]


@dataclass(frozen=True)
class RunSummary:
    """Where a workflow run stands.

    Attributes:
        run_id: the run id (give it to :func:`rectify.resume` and :func:`rectify.status`).
        workflow: the workflow's name.
        status: ``completed``, ``waiting``, ``failed``, ``running`` or ``interrupted``.
        waiting: what the run waits for (the first open wait), when it waits.
        waits: every open wait.
        failure: ``"provider"`` or ``"config"`` when the run failed for that reason.
        steps: the steps in the order they started.
        notes: things a person should know.
    """

    run_id: str
    workflow: str
    status: RunStatus
    waiting: Optional[Waiting]
    waits: List[Waiting]
    failure: Optional[str]
    steps: List[StepSummary]
    notes: List[str] = field(default_factory=list)

    def step(self, step_id: str) -> StepSummary:
        """The step ``step_id`` (``KeyError`` when the run has none)."""
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> RunSummary:
        waiting = d.get("waiting")
        return cls(
            d["run_id"], d["workflow"], d["status"],
            Waiting._from(waiting) if waiting else None,
            [Waiting._from(w) for w in d.get("waits", [])], d.get("failure"),
            [StepSummary._from(s) for s in d.get("steps", [])], list(d.get("notes", [])),
        )


def _diagnostics(items: List[Dict[str, Any]]) -> List[Diagnostic]:
    return [Diagnostic._from(x) for x in items]
