"""What a ``schema`` argument can be, and how a value becomes the caller's type.

A pydantic v2 model class, a dataclass (or any type pydantic's ``TypeAdapter`` takes), a JSON
Schema as a ``dict``, or the path of a JSON Schema file. pydantic is imported only when a type
is given, so ``import rectify`` stays fast and pydantic stays optional for the rest.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from ._errors import ConfigError

Problem = Dict[str, Any]
Validator = Callable[[Any], object]

_CODE = re.compile(r"[^a-z0-9_]+")


def shape_of(schema: Any) -> Shape:
    """The :class:`Shape` of ``schema``; a type's is made once (pydantic's schema generation
    costs far more than a run of the engine on a small answer)."""
    if isinstance(schema, type) or hasattr(schema, "__origin__"):
        try:
            return _typed_shape(schema)
        except TypeError:  # an unhashable type expression
            pass
    return Shape(schema)


@functools.lru_cache(maxsize=256)
def _typed_shape(schema: Any) -> Shape:
    return Shape(schema)


def _pointer(loc: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in loc)


class Shape:
    """The JSON Schema sent to the model and checked by the engine, and the conversion of the
    accepted value into the caller's type (pydantic validation, whose errors are problems)."""

    def __init__(self, schema: Any) -> None:
        self.json_schema: Any = None
        self._adapter: Any = None
        self._model: Any = None
        if schema is None:
            return
        if isinstance(schema, Mapping):
            self.json_schema = dict(schema)
        elif isinstance(schema, (str, os.PathLike)):
            self.json_schema = os.fspath(schema)
        elif isinstance(schema, type) or hasattr(schema, "__origin__"):
            try:
                import pydantic
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ConfigError(
                    f"a schema given as a type ({schema!r}) needs pydantic v2: pip install pydantic"
                ) from e
            if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
                self._model = schema
                self.json_schema = schema.model_json_schema()
            else:
                try:
                    self._adapter = pydantic.TypeAdapter(schema)
                    self.json_schema = self._adapter.json_schema()
                except pydantic.PydanticUserError as e:
                    raise ConfigError(f"{schema!r} cannot be used as a schema: {e}") from e
                except pydantic.errors.PydanticSchemaGenerationError as e:
                    raise ConfigError(f"{schema!r} cannot be used as a schema: {e}") from e
        else:
            raise ConfigError(
                "schema must be a pydantic model class, a dataclass or other type, a JSON Schema "
                f"dict or the path of a JSON Schema file, not {type(schema).__name__}"
            )

    @property
    def typed(self) -> bool:
        """True when values become instances of a type (pydantic validates them)."""
        return self._model is not None or self._adapter is not None

    def build(self, value: Any) -> Any:
        """The caller's value: a validated instance for a type, the value itself otherwise."""
        if self._model is not None:
            return self._model.model_validate(value)
        if self._adapter is not None:
            return self._adapter.validate_python(value)
        return value

    def validator(self, validators: Sequence[Validator]) -> Optional[Callable[[Any], List[Problem]]]:
        """The function the engine calls on every answer that passes the JSON Schema and the
        rules: pydantic's validation (custom validators included), then ``validators`` on the
        result. A ``ValueError`` or ``AssertionError`` (pydantic's ``ValidationError`` is one)
        is a problem fed back to the model; any other exception stops the run and reaches the
        caller."""
        if not self.typed and not validators:
            return None
        invalid: Any = ()
        if self.typed:
            import pydantic

            invalid = pydantic.ValidationError

        def validate(value: Any) -> List[Problem]:
            try:
                built = self.build(value)
            except invalid as e:
                return [_pydantic_problem(err) for err in e.errors(include_url=False)]
            problems: List[Problem] = []
            for check in validators:
                try:
                    check(built)
                except (ValueError, AssertionError) as e:
                    name = getattr(check, "__name__", "validator")
                    problems.append(
                        {
                            "message": str(e) or type(e).__name__,
                            "code": "validator." + (_CODE.sub("_", name.lower()).strip("_") or "failed"),
                        }
                    )
            return problems

        return validate


def _pydantic_problem(err: Mapping[str, Any]) -> Problem:
    loc = err.get("loc", ())
    kind = _CODE.sub("_", str(err.get("type", "error")).lower()).strip("_") or "error"
    problem: Problem = {
        "message": err.get("msg", "invalid value"),
        "pointer": _pointer(loc),
        "code": "pydantic." + kind,
    }
    if loc and "input" in err and not isinstance(err["input"], (dict, list)):
        problem["received"] = repr(err["input"])[:80]
    return problem
