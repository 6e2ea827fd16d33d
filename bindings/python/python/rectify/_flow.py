"""Workflows from Python: run one, resume it after a pause, read where it stands."""

from __future__ import annotations

import os
from typing import Any, List, Mapping, Optional, Tuple, Union

from . import _native
from ._errors import ConfigError
from ._types import RunSummary

PathLike = Union[str, "os.PathLike[str]"]


def run(
    workflow: PathLike,
    inputs: Optional[Mapping[str, Any]] = None,
    *,
    workdir: PathLike = ".",
    run_id: Optional[str] = None,
    max_parallel: int = 2,
) -> RunSummary:
    """Loads the workflow file and runs it in ``workdir`` (its run store is
    ``workdir/.rectify/rectify.db``) until it completes, fails or pauses for a person.

    ``inputs`` are the workflow's inputs (``rectify run --input KEY=VALUE``): strings as they
    are, other values as JSON.

    Returns:
        the run's summary (``status`` is ``completed``, ``waiting``, ``failed`` or
        ``interrupted``; ``waiting`` says what a paused run waits for).

    Raises:
        ConfigError: the workflow file is invalid (every problem, with file, line and column), an
            input is missing, or the run id exists already.
    """
    import json

    pairs = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in (inputs or {}).items()]
    summary = _native.run_workflow(
        os.fspath(workflow), pairs, os.fspath(workdir), run_id=run_id, max_parallel=max_parallel
    )
    return RunSummary._from(summary)


def resume(
    run_id: str,
    *,
    approve: bool = False,
    reject: Optional[str] = None,
    edit: Optional[Mapping[str, Union[str, bytes, Any]]] = None,
    step: Optional[str] = None,
    workdir: PathLike = ".",
    max_parallel: int = 2,
) -> RunSummary:
    """Continues a paused (or interrupted) run with a person's decision, at most one of:

    - ``approve=True``: a human step passes; an exhausted step is accepted as it is;
    - ``reject="why"``: the work goes back with these words as feedback;
    - ``edit={"out/plan.json": new_content}``: outputs replaced with a person's versions (text,
      bytes, or a value written as JSON), checked like any output;
    - none: continue what can continue (after a crash or a kill).

    ``step`` names the waiting step when several wait.

    Raises:
        ConfigError: no such run, no run store in ``workdir``, or more than one decision.
    """
    chosen = sum([approve, reject is not None, edit is not None])
    if chosen > 1:
        raise ConfigError("resume takes one decision: approve, reject or edit")
    if edit is not None:
        import json
        import tempfile

        with tempfile.TemporaryDirectory(prefix="rectify-edit-") as tmp:
            edits: List[Tuple[str, str]] = []
            for i, (path, content) in enumerate(edit.items()):
                file = os.path.join(tmp, f"{i}-{os.path.basename(path)}")
                data = content if isinstance(content, bytes) else (
                    content if isinstance(content, str) else json.dumps(content, indent=2)
                ).encode()
                with open(file, "wb") as f:
                    f.write(data)
                edits.append((path, file))
            summary = _native.resume_workflow(
                run_id, os.fspath(workdir), "edit", step=step, edits=edits, max_parallel=max_parallel
            )
    else:
        decision = "approve" if approve else "reject" if reject is not None else "continue"
        summary = _native.resume_workflow(
            run_id, os.fspath(workdir), decision, step=step, feedback=reject, max_parallel=max_parallel
        )
    return RunSummary._from(summary)


def status(run_id: str, *, workdir: PathLike = ".") -> RunSummary:
    """Where the run ``run_id`` in ``workdir`` stands.

    Raises:
        ConfigError: ``workdir`` has no run store, or the store no such run.
    """
    summary = _native.run_status(run_id, os.fspath(workdir))
    if summary is None:
        raise ConfigError(f"no run `{run_id}` in `{os.fspath(workdir)}`")
    return RunSummary._from(summary)
