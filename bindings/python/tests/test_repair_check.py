"""rectify.repair and rectify.check: the CLI's wire fields, from the Rust engine."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest

import rectify


def test_repair_returns_value_repairs_with_code_span_safety() -> None:
    r = rectify.repair('Sure! Here it is:\n```json\n{"a": 1, "b": [1, 2,],}\n```')
    assert r.valid and r
    assert r.value == {"a": 1, "b": [1, 2]}
    codes = [x.code for x in r.repairs]
    assert "json.trailing_comma" in codes
    assert "extract.code_fence" in codes
    comma = next(x for x in r.repairs if x.code == "json.trailing_comma")
    assert comma.safety == "safe"
    assert comma.span is not None and comma.span.line >= 1 and comma.span.column >= 1
    assert r.diagnostics == []


def test_repair_keeps_big_integers_order_and_types() -> None:
    r = rectify.repair('{"z": 123456789012345678901234567890, "a": 1.5, "t": true, "n": null}')
    assert list(r.value) == ["z", "a", "t", "n"]
    assert r.value["z"] == 123456789012345678901234567890
    assert r.value == {"z": 123456789012345678901234567890, "a": 1.5, "t": True, "n": None}


def test_repair_accepts_bytes() -> None:
    assert rectify.repair(b"{'a': 'x'}").value == {"a": "x"}


def test_unrepairable_text_is_a_diagnostic_not_an_exception() -> None:
    r = rectify.repair("no json here at all, sorry")
    assert not r.valid
    assert r.diagnostics and r.diagnostics[0].is_error
    assert r.diagnostics[0].code.count(".") == 1


class Item(pydantic.BaseModel):
    count: int
    tags: list[str]


def test_repair_with_a_pydantic_schema_coerces() -> None:
    r = rectify.repair('{"count": "3", "tags": "a"}', schema=Item)
    assert r.value == {"count": 3, "tags": ["a"]}
    assert {x.code for x in r.repairs} >= {"coerce.string_to_number"}


def test_unsafe_repairs_need_unsafe() -> None:
    text = '{"count": 2.7, "tags": []}'
    safe = rectify.repair(text, schema=Item)
    risky = rectify.repair(text, schema=Item, unsafe=True)
    assert risky.value == {"count": 3, "tags": []}
    assert any(x.safety == "unsafe" for x in risky.repairs)
    assert safe.value != risky.value or not safe.valid


def test_check_text_reports_path_line_column_expected_received() -> None:
    text = '{\n  "count": "many",\n  "tags": []\n}'
    result = rectify.check(text, schema=Item)
    assert not result.valid
    d = result.errors[0]
    assert (d.path, d.pointer, d.line, d.column) == ("count", "/count", 2, 12)
    assert d.code.startswith("schema.")
    assert d.expected is not None and d.received is not None


def test_check_value_and_model_instance() -> None:
    assert rectify.check({"count": 1, "tags": ["x"]}, schema=Item).valid
    bad = rectify.check({"count": 1}, schema=Item)
    assert [d.code for d in bad.errors] == ["schema.required"]
    assert bad.errors[0].line is None
    assert rectify.check(Item(count=1, tags=[]), schema=Item).valid


def test_check_rules_and_refs(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text(json.dumps({"phases": [{"id": "P1"}]}))
    (tmp_path / "tasks.rules.yaml").write_text(
        "documents:\n  plan: plan.json\nrules:\n"
        "  - id: phase-exists\n    each: \"$.tasks[*].phaseId\"\n    in: \"plan:$.phases[*].id\"\n"
    )
    doc = '{"tasks": [{"phaseId": "P1"}, {"phaseId": "P9"}]}'
    result = rectify.check(doc, rules=tmp_path / "tasks.rules.yaml")
    assert not result.valid
    assert [d.path for d in result.errors] == ["tasks[1].phaseId"]
    (tmp_path / "other.json").write_text(json.dumps({"phases": [{"id": "P1"}, {"id": "P9"}]}))
    ok = rectify.check(doc, rules=tmp_path / "tasks.rules.yaml", refs={"plan": tmp_path / "other.json"})
    assert ok.valid, ok.diagnostics


def test_invalid_schema_is_a_config_error() -> None:
    with pytest.raises(rectify.ConfigError):
        rectify.check({}, schema={"type": "no-such-type"})
    with pytest.raises(rectify.ConfigError):
        rectify.repair("{}", schema={"type": 12})
    assert issubclass(rectify.ConfigError, rectify.Error)


def test_markdown_and_yaml_text() -> None:
    assert rectify.check("a: 1\nb: [x]\n", schema={"required": ["a", "b"]}).valid
    r = rectify.check("a: 1\n", schema={"required": ["a", "b"]}, format="yaml")
    assert [d.code for d in r.errors] == ["schema.required"]


def test_value_is_what_json_loads_gives_on_every_corpus_case() -> None:
    # `.value` decodes with json's C scanner directly: the same objects as json.loads, on
    # every repair corpus case (big integers, floats, unicode escapes, deep nesting).
    corpus = Path(__file__).resolve().parents[3] / "crates/rectify-repair/tests/corpus"
    seen = 0
    for file in sorted(corpus.glob("*.jsonl")):
        for line in file.read_text().splitlines():
            case = json.loads(line)
            if not isinstance(case.get("input"), str):
                continue
            r = rectify.repair(case["input"], unsafe=True)
            if r.json is not None:
                assert r.value == json.loads(r.json), case.get("id")
                seen += 1
    assert seen > 1500
    deep = "[" * 5000 + "]" * 5000
    r = rectify.repair(deep)
    if r.json is not None:
        try:
            expected = json.loads(r.json)
        except RecursionError:
            return
        assert r.value == expected
