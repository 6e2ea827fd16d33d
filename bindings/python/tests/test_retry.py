"""rectify.validate_with_retry: your own function as the model, driven through the Rust loop."""

from __future__ import annotations

import asyncio
import dataclasses
import traceback
from typing import List, Optional

import pydantic
import pytest

import rectify
from conftest import Scripted


class Contact(pydantic.BaseModel):
    name: str
    email: str

    @pydantic.field_validator("email")
    @classmethod
    def has_at(cls, v: str) -> str:
        if "@" not in v:
            raise ValueError("an email address has an @")
        return v


def test_invalid_then_valid_returns_the_model_with_feedback() -> None:
    model = Scripted('Sure! {"name": "Ada"}', '```json\n{"name": "Ada", "email": "ada@example.org",}\n```')
    contact = rectify.validate_with_retry(model, Contact)
    assert isinstance(contact, Contact)
    assert contact == Contact(name="Ada", email="ada@example.org")
    assert model.calls == 2
    assert model.feedback[0] is None
    assert model.feedback[1] is not None
    assert model.feedback[1].startswith("Your previous answer did not pass validation")
    assert '- missing required field "email"' in model.feedback[1]


def test_repairable_answer_needs_no_second_call() -> None:
    model = Scripted("{'name': 'Ada', 'email': 'ada@example.org',}")
    assert rectify.validate_with_retry(model, Contact).name == "Ada"
    assert model.calls == 1


def test_custom_pydantic_validator_error_is_fed_back_and_retried() -> None:
    model = Scripted('{"name": "Ada", "email": "ada-at-example.org"}', '{"name": "Ada", "email": "ada@example.org"}')
    contact = rectify.validate_with_retry(model, Contact)
    assert contact.email == "ada@example.org"
    assert model.calls == 2
    assert model.feedback[1] is not None and "an email address has an @" in model.feedback[1]


def test_exhausted_carries_best_diagnostics_and_attempts() -> None:
    model = Scripted('{"name": "Ada"}', '{"name": "Ada", "email": "nope"}', '{}')
    with pytest.raises(rectify.Exhausted) as info:
        rectify.validate_with_retry(model, Contact, max_attempts=3)
    e = info.value
    assert isinstance(e, rectify.Error)
    assert model.calls == 3
    assert len(e.attempts) == 3
    assert [a.number for a in e.attempts] == [1, 2, 3]
    assert e.attempts[0].feedback is not None
    assert e.best is not None
    assert e.best.attempt == 2
    assert e.best.value == {"name": "Ada", "email": "nope"}
    assert [d.code for d in e.diagnostics if d.is_error] == ["pydantic.value_error"]
    assert e.diagnostics[0].path == "email"
    assert "best answer (attempt 2)" in str(e)


def test_async_execute() -> None:
    calls: List[Optional[str]] = []

    async def agent(feedback: Optional[str]) -> str:
        await asyncio.sleep(0)
        calls.append(feedback)
        return '{"name": "Ada"}' if feedback is None else '{"name": "Ada", "email": "a@b.c"}'

    assert rectify.validate_with_retry(agent, Contact).email == "a@b.c"
    assert len(calls) == 2


def test_avalidate_with_retry_with_async_execute_on_the_callers_loop() -> None:
    async def main() -> Contact:
        loop = asyncio.get_running_loop()
        seen = []

        async def agent(feedback: Optional[str]) -> str:
            seen.append(asyncio.get_running_loop() is loop)
            return '{"name": "Ada"}' if feedback is None else '{"name": "Ada", "email": "a@b.c"}'

        result = await rectify.avalidate_with_retry(agent, Contact)
        assert seen == [True, True]
        return result

    assert asyncio.run(main()).name == "Ada"


def test_sync_call_with_async_execute_inside_a_running_loop_says_what_to_use() -> None:
    async def agent(feedback: Optional[str]) -> str:
        return "{}"

    async def main() -> None:
        with pytest.raises(rectify.ConfigError, match="avalidate_with_retry"):
            rectify.validate_with_retry(agent, Contact)

    asyncio.run(main())


class Boom(RuntimeError):
    pass


def test_an_exception_in_execute_reaches_the_caller_with_its_traceback() -> None:
    model = Scripted('{"name": "Ada"}')

    def execute(feedback: Optional[str]) -> str:
        if feedback is not None:
            raise Boom("the agent crashed")
        return model(feedback)

    with pytest.raises(Boom, match="the agent crashed") as info:
        rectify.validate_with_retry(execute, Contact)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "execute" in frames
    assert model.calls == 1  # not retried as feedback


def test_an_exception_in_a_validator_stops_the_run() -> None:
    model = Scripted('{"name": "Ada", "email": "a@b.c"}')

    def crashes(c: Contact) -> None:
        raise KeyError("bug in my validator")

    with pytest.raises(KeyError, match="bug in my validator"):
        rectify.validate_with_retry(model, Contact, validators=[crashes])
    assert model.calls == 1


def test_validators_raise_value_error_to_send_feedback() -> None:
    model = Scripted('{"name": "ada", "email": "a@b.c"}', '{"name": "Ada", "email": "a@b.c"}')

    def capitalised(c: Contact) -> None:
        if not c.name[:1].isupper():
            raise ValueError("the name starts with a capital letter")

    assert rectify.validate_with_retry(model, Contact, validators=[capitalised]).name == "Ada"
    assert model.feedback[1] is not None and "capital letter" in model.feedback[1]


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_dataclass_and_dict_schemas() -> None:
    assert rectify.validate_with_retry(Scripted('{"x": 1, "y": "2"}'), Point) == Point(1, 2)
    schema = {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}}
    model = Scripted('{"y": 1}', '{"x": 3}')
    assert rectify.validate_with_retry(model, schema) == {"x": 3}
    assert model.calls == 2


def test_feedback_modes_and_max_attempts() -> None:
    model = Scripted('{"name": "Ada"}')
    with pytest.raises(rectify.Exhausted):
        rectify.validate_with_retry(model, Contact, max_attempts=2, feedback="append")
    assert model.calls == 2
    assert model.feedback[1] is not None and "email" in model.feedback[1]
    with pytest.raises(rectify.ConfigError):
        rectify.validate_with_retry(model, Contact, feedback="shout")  # type: ignore[arg-type]
    with pytest.raises(rectify.ConfigError):
        rectify.validate_with_retry(model, Contact, max_attempts=0)


def test_invalid_schema_is_a_config_error_before_any_call() -> None:
    model = Scripted("{}")
    with pytest.raises(rectify.ConfigError):
        rectify.validate_with_retry(model, {"type": "nope"})
    with pytest.raises(rectify.ConfigError):
        rectify.validate_with_retry(model, 42)  # type: ignore[call-overload]
    assert model.calls == 0


def test_execute_returning_a_non_string_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        rectify.validate_with_retry(lambda fb: 42, Contact)  # type: ignore[arg-type,return-value]


def test_the_gil_is_released_while_the_engine_works() -> None:
    import threading

    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        big = "[" + ",".join('{"a": 1, "b": [1, 2, 3,],}' for _ in range(200_000)) + "]"
        before = ticks
        rectify.repair(big)
        assert ticks > before
    finally:
        stop.set()
        t.join()
