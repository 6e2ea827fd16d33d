"""Type stubs of the Rust extension module (``bindings/python/src/lib.rs``). Internal: use the
functions of the ``rectify`` package."""

from typing import Any, Callable, Dict, List, Optional, Tuple

LOCAL_MODEL: bool
"""True in a build with the embedded model (the ``local`` cargo feature)."""

class Findings:
    """The repairs and diagnostics of one ``repair`` call, converted when asked for."""

    def repairs(self) -> List[Dict[str, Any]]:
        """The repairs, as the wire dicts of ``rectify repair --output json``."""
    def diagnostics(self) -> List[Dict[str, Any]]:
        """The diagnostics, as wire dicts."""
    def counts(self) -> Tuple[int, int]:
        """``(repairs, diagnostics)``: how many of each."""

def repair(
    text: str | bytes, schema: Any = None, unsafe_: bool = False, format: Optional[str] = None
) -> Tuple[bool, Optional[str], Findings]:
    """``(valid, json, findings)``: the value as compact JSON text, and its repairs and
    diagnostics."""

def check(
    document: Any,
    schema: Any = None,
    rules: Optional[str] = None,
    refs: Optional[Dict[str, str]] = None,
    format: Optional[str] = None,
) -> Dict[str, Any]:
    """The dict of ``rectify check --output json``."""

class Cancel:
    """Set to stop a call running on a worker thread (its awaiting task was cancelled)."""

    def __init__(self) -> None: ...
    def cancel(self) -> None:
        """Stops the call: its future is dropped at the next poll."""
    def is_set(self) -> bool:
        """Whether ``cancel()`` was called."""

def validate_with_retry(
    execute: Callable[[Optional[str]], str],
    schema: Any = None,
    *,
    max_attempts: int = 3,
    feedback: str = "prefix",
    rules: Optional[str] = None,
    refs: Optional[Dict[str, str]] = None,
    validate: Optional[Callable[[Any], List[Dict[str, Any]]]] = None,
    unsafe_: bool = False,
    prompt: str = "",
    cancel: Optional[Cancel] = None,
) -> Dict[str, Any]:
    """One run of the loop with ``execute`` as the model: the outcome dict."""

class NativeClient:
    """A client over a provider chosen as ``rectify ask`` chooses it."""

    def __init__(
        self,
        provider: Optional[str] = None,
        *,
        model: Optional[str] = None,
        base_url: Optional[str] = None,
        command: Optional[List[str]] = None,
    ) -> None: ...
    def run(
        self,
        prompt: str,
        schema: Any = None,
        *,
        system: Optional[str] = None,
        max_attempts: int = 3,
        feedback: Optional[str] = None,
        rules: Optional[str] = None,
        refs: Optional[Dict[str, str]] = None,
        validate: Optional[Callable[[Any], List[Dict[str, Any]]]] = None,
        unsafe_: bool = False,
        cancel: Optional[Cancel] = None,
    ) -> Dict[str, Any]:
        """One run of the loop: the outcome dict."""

def run_workflow(
    workflow: str,
    inputs: List[Tuple[str, str]],
    workdir: str,
    run_id: Optional[str] = None,
    max_parallel: int = 2,
) -> Dict[str, Any]:
    """Runs a workflow: the run summary."""

def resume_workflow(
    run_id: str,
    workdir: str,
    decision: str,
    step: Optional[str] = None,
    feedback: Optional[str] = None,
    edits: Optional[List[Tuple[str, str]]] = None,
    max_parallel: int = 2,
) -> Dict[str, Any]:
    """Resumes a run with a decision: the run summary."""

def run_status(run_id: str, workdir: str) -> Optional[Dict[str, Any]]:
    """The summary of a run, ``None`` when there is none."""
