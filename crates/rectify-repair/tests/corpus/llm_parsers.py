#!/usr/bin/env python3
"""Writes llm_parsers.jsonl: schema-guided repair cases taken from the unit tests of LLM-output
parsers published on PyPI (all MIT): langchain-core 1.8.4, json-repair-llm 0.1.0, instructor 1.17.0
(llm-output-parser 0.3.0 ships no tests). Used only as test data.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install pydantic
    mkdir /tmp/sd && cd /tmp/sd && /tmp/v/bin/pip download --no-deps --no-binary :all: \\
        langchain-core==1.8.4 json-repair-llm==0.1.0 instructor==1.17.0
    for f in *.tar.gz; do tar xzf "$f"; done; cd -
    /tmp/v/bin/python llm_parsers.py /tmp/sd > llm_parsers.jsonl   # skip counts on stderr

Nothing from the packages is imported. Test data is read with `ast` and evaluated without
builtins: module constants, a test's local literals, its `parametrize` lists, and the values its
asserts state (`assert x.a == 1`, `self.assertEqual(x.a, 1)`, `assert x["a"] == 1`). The pydantic
classes a test parses into are executed alone (class definitions only) to give the JSON Schema
(`model_json_schema()`) and to check that the asserted fields make a complete, valid instance.
"""
import ast
import collections
import enum
import json
import os
import sys
import typing

import pydantic

ROOT = sys.argv[1]
LC = "langchain_core-1.8.4"
JRL = "json_repair_llm-0.1.0"
INS = "instructor-1.17.0"
LC_OP = "tests/unit_tests/output_parsers/"
SAFE = {"__builtins__": {}, "json": json}
LIST_SCHEMA = {"type": "array", "items": {"type": "string"}}

skipped = collections.Counter()
cases = []
_trees = {}


def tree(pkg, rel):
    key = (pkg, rel)
    if key not in _trees:
        with open(os.path.join(ROOT, pkg, rel), encoding="utf-8") as f:
            _trees[key] = ast.parse(f.read())
    return _trees[key]


def ev(node, env=None):
    """Evaluates a literal-data expression with no builtins."""
    return eval(compile(ast.Expression(node), "<data>", "eval"), dict(SAFE), env or {})


def constants(pkg, rel, stubs=None):
    env = dict(stubs or {})
    for node in tree(pkg, rel).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                env[node.targets[0].id] = ev(node.value, env)
            except Exception:  # not literal data (a class call, a type, ...)
                pass
    return env


def func(pkg, rel, name):
    for node in ast.walk(tree(pkg, rel)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise KeyError(name)


def local_literals(pkg, rel, name):
    env = constants(pkg, rel)
    for node in ast.walk(func(pkg, rel, name)):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                env[node.targets[0].id] = ev(node.value, env)
            except Exception:
                pass
    return env


def loop_pairs(pkg, rel, name):
    env = local_literals(pkg, rel, name)
    loop = next(n for n in ast.walk(func(pkg, rel, name)) if isinstance(n, ast.For))
    return ev(loop.iter, env)


def parametrize(pkg, rel, name, argname=None):
    for deco in func(pkg, rel, name).decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "parametrize":
            if argname is None or ev(deco.args[0]) == argname:
                return ev(deco.args[1], constants(pkg, rel))
    raise KeyError(name)


def _path(node):
    """`x.a.b` or `x["a"]` -> ["a", "b"] (the root name dropped); None when not rooted at one."""
    keys = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
        else:
            keys.append(ev(node.slice))
        node = node.value
    return list(reversed(keys)) if isinstance(node, ast.Name) and keys else None


def asserted(pkg, rel, name):
    """The value the asserts of a test state field by field, as a nested dict."""
    out = {}

    def put(path, value):
        d = out
        for k in path[:-1]:
            d = d.setdefault(k, {})
        d[path[-1]] = value

    for node in ast.walk(func(pkg, rel, name)):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            t = node.test
            if len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.Is)):
                path = _path(t.left)
                if path:
                    put(path, ev(t.comparators[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "assertEqual" and _path(node.args[0]):
                put(_path(node.args[0]), ev(node.args[1]))
            elif node.func.attr == "assertTrue" and _path(node.args[0]):
                put(_path(node.args[0]), True)
    return out


def models(pkg, rel, names, base_alias=None):
    """Executes only the named class definitions (and the enums they use)."""
    ns = {
        "BaseModel": pydantic.BaseModel, "Field": pydantic.Field, "pydantic": pydantic,
        "Enum": enum.Enum, "Literal": typing.Literal, "Optional": typing.Optional,
    }
    ns.update(base_alias or {})
    for node in ast.walk(tree(pkg, rel)):
        if isinstance(node, ast.ClassDef) and node.name in names:
            keep = [b for b in node.body if not isinstance(b, ast.Expr) or b is node.body[0]]
            node = ast.ClassDef(node.name, node.bases, node.keywords, keep, [], type_params=[])
            exec(compile(ast.fix_missing_locations(ast.Module([node], [])), rel, "exec"), ns)
    return ns


def add(pkg, rel, test, text, expected, model=None, schema=None):
    if model is not None:
        model.model_validate(expected)  # the asserted fields form a complete instance
        schema = model.model_json_schema()
    json.dumps(expected, allow_nan=False)
    cases.append({
        "source": f"{pkg} {rel}::{test}", "input": text,
        "expected": expected, "schema": schema,
    })


def skip(reason, n=1):
    skipped[reason] += n


def langchain_json():
    rel = LC_OP + "test_json.py"
    c = constants(LC, rel)
    for i, text in enumerate(c["TEST_CASES"]):
        add(LC, rel, f"test_parse_json[{i}]", text, {"foo": "bar"})
    single = {
        "test_parse_json_with_code_blocks": "JSON_WITH_MARKDOWN_CODE_BLOCK",
        "test_parse_json_with_part_code_blocks": "JSON_WITH_PART_MARKDOWN_CODE_BLOCK",
        "test_parse_json_with_code_blocks_and_newlines": "JSON_WITH_MARKDOWN_CODE_BLOCK_AND_NEWLINES",
        "test_parse_json_with_python_dict": "JSON_WITH_PYTHON_DICT",
    }
    for test, const in single.items():
        add(LC, rel, test, c[const], _assert_rhs(LC, rel, test, "parsed"))
    exp = _assert_rhs(LC, rel, "test_parse_nested_json_with_escaped_quotes", "parsed")
    for i, text in enumerate(c["TEST_CASES_ESCAPED_QUOTES"]):
        add(LC, rel, f"test_parse_nested_json_with_escaped_quotes[{i}]", text, exp)
    skip("expects an exception")  # test_parse_non_dict_json_output
    for i, (text, expected) in enumerate(c["TEST_CASES_PARTIAL"]):
        add(LC, rel, f"test_parse_partial_json[{i}]", text, json.loads(expected))
    skip("asserts only that some value is returned (no expected value)", 3)  # long tails
    # Streaming: the tokens joined are the full text; the last state is the full value.
    add(LC, rel, "test_partial_text_json_output_parser", "".join(c["STREAMED_TOKENS"]),
        c["EXPECTED_STREAMED_JSON"][-1])
    skip("streaming duplicate of a kept final state (async / JSON-patch diff variant)", 3)
    add(LC, rel, "test_partial_text_json_output_parser_with_json_code_block",
        "".join(c["TOKENS_WITH_JSON_CODE_BLOCK"]),
        _assert_rhs(LC, rel, "test_partial_text_json_output_parser_with_json_code_block",
                    None)[-1])
    skip("expects an exception")  # test_raises_error


def _assert_rhs(pkg, rel, test, lhs_name):
    """The right side of the (last) `assert <lhs> == <literal>` in a test."""
    found = None
    for node in ast.walk(func(pkg, rel, test)):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            left = node.test.left
            if lhs_name is None or (isinstance(left, ast.Name) and left.id == lhs_name):
                try:
                    found = ev(node.test.comparators[0])
                except Exception:
                    pass
    return found


def langchain_pydantic():
    rel = LC_OP + "test_pydantic_parser.py"
    ns = models(LC, rel, {"ForecastV2", "Actions", "TestModel"})
    c = constants(LC, rel)
    # PromptTemplate (f-string) turns `{{`/`}}` into braces; the parrot model echoes the prompt.
    tmpl = _template(rel, "test_pydantic_parser_chaining")
    add(LC, rel, "test_pydantic_parser_chaining[ForecastV2]", tmpl,
        asserted(LC, rel, "test_pydantic_parser_chaining"), ns["ForecastV2"])
    skip("duplicate input (pydantic.v1 model variant, or the same text through JsonOutputParser)", 3)
    skip("expects an exception", 2)  # test_pydantic_parser_validation x2
    for node in tree(LC, rel).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "DEF_EXPECTED_RESULT":
            expected = eval(compile(ast.Expression(node.value), rel, "eval"), ns)
    add(LC, rel, "test_pydantic_output_parser", c["DEF_RESULT"],
        expected.model_dump(mode="json"), ns["TestModel"])
    skip("expects an exception")  # test_pydantic_output_parser_fail


def _template(rel, test):
    call = next(n for n in ast.walk(func(LC, rel, test))
                if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "PromptTemplate")
    src = ev(next(k.value for k in call.keywords if k.arg == "template"))
    return src.replace("{{", "{").replace("}}", "}")


def langchain_functions():
    rel = LC_OP + "test_openai_functions.py"
    # The text is the function call's `arguments` string; args_only results are the parsed text.
    fn = func(LC, rel, "test_json_output_function_parser")
    call = next(n for n in ast.walk(fn) if isinstance(n, ast.Dict)
                and any(getattr(k, "value", None) == "arguments" and isinstance(v, ast.Constant)
                        for k, v in zip(n.keys, n.values)))
    args = ev(call)["arguments"]
    add(LC, rel, "test_json_output_function_parser", args, _assert_rhs(LC, rel,
        "test_json_output_function_parser", "result"))
    for i, cfg in enumerate(_strictness(rel)):
        if cfg.get("exception") is not None:
            skip("expects an exception")
        elif not cfg["args_only"]:
            skip("duplicate input (full function-call wrapper variant)")
        else:
            add(LC, rel, f"test_json_output_function_parser_strictness[{i}]", cfg["args"],
                cfg["result"])
    skip("expects an exception", 4)  # test_exceptions_raised_while_parsing
    ns = models(LC, rel, {"Model", "Cookie"})
    text = json.dumps({"name": "value", "age": 10})
    add(LC, rel, "test_pydantic_output_functions_parser", text,
        {"name": "value", "age": 10}, ns["Model"])
    skip("duplicate input (several-schema variant)")


def _strictness(rel):
    fn = func(LC, rel, "test_json_output_function_parser_strictness")
    deco = fn.decorator_list[0]
    out = []
    for elt in deco.args[1].elts:  # the `exception` entries name a class: keep only its presence
        d = {}
        for k, v in zip(elt.keys, elt.values):
            key = ev(k)
            d[key] = (None if isinstance(v, ast.Constant) and v.value is None else "raises") \
                if key == "exception" else ev(v)
        out.append(d)
    return out


def _message(**kw):
    """Stands in for a message class: keeps the keyword data."""
    return kw


def langchain_tools():
    rel = LC_OP + "test_openai_tools.py"
    c = constants(LC, rel, {"AIMessageChunk": _message})
    args = "".join(call["function"]["arguments"] for m in c["STREAMED_MESSAGES"]
                   for call in m.get("additional_kwargs", {}).get("tool_calls", []))
    ns = models(LC, rel, {"Person", "NameCollector"})
    final = None
    for node in tree(LC, rel).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == \
                "EXPECTED_STREAMED_PYDANTIC":
            final = eval(compile(ast.Expression(node.value), rel, "eval"), ns)[-1]
    add(LC, rel, "test_partial_pydantic_output_parser (streamed tool-call arguments)", args,
        final.model_dump(mode="json"), ns["NameCollector"])
    # 7 parametrized x2 JSON streaming tests and 2 pydantic ones looping twice over the
    # same chunks: 16 runs, one kept.
    skip("streaming duplicate of a kept final state (async / JSON-patch diff variant)", 15)
    for test in ["test_parse_tool_call_with_empty_string_arguments",
                 "test_parse_tool_call_with_valid_arguments"]:
        raw = local_literals(LC, rel, test)["raw_tool_call"]
        add(LC, rel, test, raw["function"]["arguments"], asserted(LC, rel, test)["args"])
    skip("input is not text (arguments None)", 2)
    rel = LC_OP + "test_refusal.py"
    fn = func(LC, rel, "test_parser_parses_non_refusal")
    texts = [ev(call.args[0]) for call in fn.decorator_list[0].args[1].elts]
    expected = _assert_rhs(LC, rel, "test_parser_parses_non_refusal", None)
    add(LC, rel, "test_parser_parses_non_refusal[anthropic]", texts[0], expected)
    skip("duplicate input (another provider's metadata)", len(texts) - 1)
    skip("expects an exception (refusal)", 12)
    skip("reports a refusal (no parsed value)")  # include_raw
    rel = "tests/unit_tests/test_messages.py"
    fn = func(LC, rel, "test_message_chunk_to_message")
    chunks, calls = {}, {}
    for call in ast.walk(fn):
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") in (
                "create_tool_call_chunk", "create_tool_call"):
            kw = {k.arg: ev(k.value) for k in call.keywords}
            (chunks if call.func.id == "create_tool_call_chunk" else calls)[kw["name"]] = kw
    for name, chunk in chunks.items():
        if not isinstance(chunk["args"], str):
            skip("input is not text (arguments None)")
        elif name not in calls:
            skip("expects no value (an invalid tool call)")
        else:
            add(LC, rel, f"test_message_chunk_to_message ({name})", chunk["args"],
                calls[name]["args"])


def langchain_lists():
    rel = LC_OP + "test_list_parser.py"
    for test in ["test_single_item", "test_multiple_items_with_spaces", "test_multiple_items",
                 "test_multiple_items_with_comma"]:
        env = local_literals(LC, rel, test)
        add(LC, rel, test + " (CommaSeparatedListOutputParser)", env["text"], env["expected"],
            schema=LIST_SCHEMA)
    for test, parser in [("test_numbered_list", "NumberedListOutputParser"),
                         ("test_markdown_list", "MarkdownListOutputParser")]:
        for i, (text, expected) in enumerate(loop_pairs(LC, rel, test)):
            add(LC, rel, f"{test}[{i}] ({parser})", text, expected, schema=LIST_SCHEMA)
    seen = {c["input"] for c in cases}
    for test in ["test_single_item_async", "test_multiple_items_async"]:
        if local_literals(LC, rel, test)["text"] in seen:
            skip("duplicate input (async variant)")
    for test, parser in [("test_numbered_list_async", "NumberedListOutputParser"),
                         ("test_markdown_list_async", "MarkdownListOutputParser")]:
        for i, (text, expected) in enumerate(loop_pairs(LC, rel, test)):
            if text in seen:
                skip("duplicate input (async variant)")
            else:
                add(LC, rel, f"{test}[{i}] ({parser})", text, expected, schema=LIST_SCHEMA)


def json_repair_llm():
    rel = "tests/test_json_repair.py"
    ns = models(JRL, rel, {"TestModel", "NestedModel"})
    plan = [("test_valid_json", "valid_json", "TestModel", "processor"),
            ("test_minor_json_errors", "broken_json", "TestModel", "processor"),
            ("test_nested_json", "nested_json", "NestedModel", "nested_processor"),
            ("test_broken_nested_json", "broken_nested_json", "NestedModel", "nested_processor")]
    for test, var, model, _ in plan:
        exp = asserted(JRL, rel, test)
        add(JRL, rel, test, local_literals(JRL, rel, test)[var], exp, ns[model])
    skip("expects no value (None / an exception)", 2)  # invalid, empty input
    skip("duplicate input (same text through another backend)", 2)  # fsm, llm backends
    skip("asserts only that some value is returned (no expected value)", 2)  # all_backend_*
    skip("needs an LLM (slot filling from prose)")


def instructor():
    rel = "tests/processing/test_json_extraction_edge_cases.py"
    skip("expects no JSON (empty / plain text returned as is)", 2)
    skip("asserts only some fields (no full expected value)")  # multiple objects
    for i, (text, expected) in enumerate(parametrize(INS, rel, "test_codeblock_parsing_variants")):
        add(INS, rel, f"test_codeblock_parsing_variants[{i}]", text, expected)
    skip("expects an exception")  # comments make the extraction invalid JSON
    skip("asserts only some fields (no full expected value)", 2)  # streams
    rel = "tests/processing/test_json_extraction.py"
    skip("asserts only some fields (no full expected value)", 5)  # extract_* tests
    skip("expects no JSON (empty / plain text returned as is)")  # test_invalid_json
    skip("asserts only some fields (no full expected value)")  # extract_from_stream
    skip("extracts text from a provider message object, not parsing", 5)
    ns = models(INS, rel, {"Person", "PersonSchema"}, {"ResponseSchema": pydantic.BaseModel})
    for test in ["test_validate_model_strict", "test_validate_model_non_strict"]:
        add(INS, rel, test, local_literals(INS, rel, test)["json_str"],
            asserted(INS, rel, test), ns["Person"])
    skip("expects an exception", 2)  # json_error, json_error_non_strict
    for test in ["test_parse_bedrock_json_simple", "test_parse_bedrock_json_with_reasoning_content",
                 "test_parse_bedrock_json_with_codeblock"]:
        content = local_literals(INS, rel, test)["completion"]["output"]["message"]["content"]
        text = next(b["text"] for b in content if "text" in b)
        add(INS, rel, test, text, asserted(INS, rel, test), ns["PersonSchema"])
    skip("expects an exception")  # bedrock no text content
    skip("picks one of several text blocks of a message object", 1)
    rel = "tests/processing/test_anthropic_json.py"
    ns = models(INS, rel, {"_AnthropicTestModel"})
    skip("expects an exception")  # strict control characters
    add(INS, rel, "test_parse_anthropic_json_non_strict_preserves_control_characters",
        constants(INS, rel)["CONTROL_CHAR_JSON"],
        asserted(INS, rel, "test_parse_anthropic_json_non_strict_preserves_control_characters"),
        ns["_AnthropicTestModel"])
    rel = "tests/processing/test_function_calls.py"
    ns = models(INS, rel, {"_FunctionCallTestModel"}, {"ResponseSchema": pydantic.BaseModel})
    fixture = local_literals(INS, rel, "mock_completion")["data_content"]
    add(INS, rel, "test_complete_output_no_exception", fixture,
        asserted(INS, rel, "test_complete_output_no_exception"),
        ns["_FunctionCallTestModel"])
    fixture = local_literals(INS, rel, "mock_anthropic_message")["data_content"]
    add(INS, rel, "test_anthropic_no_exception", fixture,
        asserted(INS, rel, "test_anthropic_no_exception"),
        ns["_FunctionCallTestModel"])
    skip("expects an exception", 3)  # incomplete output x2, control chars strict
    skip("duplicate input (same text as test_anthropic_json.py)")  # control chars non-strict


langchain_json()
langchain_pydantic()
langchain_functions()
langchain_tools()
langchain_lists()
json_repair_llm()
instructor()

seen = set()
n = with_schema = 0
for case in cases:
    if case["input"] in seen:
        skip("duplicate input")
        print("duplicate:", case["source"], file=sys.stderr)
        continue
    seen.add(case["input"])
    with_schema += case["schema"] is not None
    line = {"id": f"llm_parsers-{n:04d}", **case, "measured_only": n % 4 == 3}
    print(json.dumps(line, ensure_ascii=False))
    n += 1
print(f"{n} cases, {with_schema} with a schema, {(n + 1) // 4} measured only", file=sys.stderr)
for reason, count in sorted(skipped.items()):
    print(f"skipped {count}: {reason}", file=sys.stderr)
