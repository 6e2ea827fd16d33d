"""Deterministic repair and checking, without any model."""

from __future__ import annotations

import os
from typing import Any, Literal, Mapping, Optional, Union

from . import _native
from ._schema import Shape, shape_of
from ._types import CheckResult, Diagnostic, RepairResult

_NO_SCHEMA = Shape(None)

PathLike = Union[str, "os.PathLike[str]"]
Format = Literal["json", "yaml", "markdown"]


def repair(
    text: Union[str, bytes],
    schema: Any = None,
    unsafe: bool = False,
    *,
    format: Optional[Literal["json", "yaml"]] = None,
) -> RepairResult:
    """Extracts the payload of a model's answer and repairs it deterministically.

    The payload is found in prose and code fences; broken JSON (trailing commas, single quotes,
    comments, unquoted keys, truncation, ...) and YAML are repaired, each repair recorded with its
    code, place and safety. With a ``schema`` (pydantic model class, dataclass, JSON Schema dict
    or file) the value is also coerced towards it (``"42"`` → ``42`` where a number is expected,
    a key typo, ...). Repairs that may change the meaning are applied only with ``unsafe=True``.

    Never raises for bad text: what cannot be repaired is in ``diagnostics`` (and ``value`` is
    ``None``). Raises :class:`ConfigError` for an invalid schema.
    """
    shape = _NO_SCHEMA if schema is None else shape_of(schema)
    valid, json, findings = _native.repair(text, shape.json_schema, unsafe, format)
    return RepairResult(valid, json, findings)


def check(
    document: Any,
    schema: Any = None,
    *,
    rules: Optional[PathLike] = None,
    refs: Optional[Mapping[str, PathLike]] = None,
    format: Optional[Format] = None,
) -> CheckResult:
    """Checks a document without changing it.

    ``document`` is text (JSON, YAML or Markdown, read as ``format`` or recognised from its
    first character; diagnostics then carry a line and column) or a value (``dict``, ``list``,
    ...; a pydantic model instance is dumped first). It is checked against ``schema`` (pydantic
    model class, dataclass, JSON Schema dict or file), the ``rules`` file and the reference
    documents ``refs`` (name → file, overriding those the rules file names).

    Raises:
        ConfigError: an invalid schema, rules file or reference document.
    """
    shape = shape_of(schema)
    if hasattr(document, "model_dump"):
        document = document.model_dump(mode="json")
    out = _native.check(
        document,
        shape.json_schema,
        None if rules is None else os.fspath(rules),
        None if refs is None else {k: os.fspath(v) for k, v in refs.items()},
        format,
    )
    return CheckResult(out["valid"], [Diagnostic._from(d) for d in out["diagnostics"]])
