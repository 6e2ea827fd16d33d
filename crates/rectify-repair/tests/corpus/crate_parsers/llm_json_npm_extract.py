"""Cases from npm package llm-json 1.0.4 (MIT), tests/llm-json.test.js.

Run: python3 llm_json_npm_extract.py   (after `npm pack llm-json` in npm/ and untarring it
into npm/llm-json-1.0.4/)
Writes llm_json_npm.jsonl. The two tests that expect `validate(output)` to succeed against
the test's JSON Schema; the value is the JSON object inside the fence / after the prose
(the only JSON in the text). Audit: the test itself only asserts `validate(output) === true`,
but src/index.js fixes the value: `validate` always runs `parseFuzzyJSON` (its guard tests
the undeclared `str`, so `typeof str !== "string"` is always true), which slices from the
first `{`, strips the closing fence and `JSON.parse`s the rest: exactly this object. The
test that expects a validation failure is left out.
JS string literals are read as text, not run."""
import ast, json, os, re
from rustlit import write, HERE

F = "tests/llm-json.test.js"
T = open(os.path.join(HERE, "npm/llm-json-1.0.4/package", F)).read()
src = re.search(r"const schema = (\{.*?\n\});", T, re.S).group(1)
src = re.sub(r"(\w+):", r'"\1":', src)          # bare JS keys -> JSON keys
src = re.sub(r",(\s*[}\]])", r"\1", src)        # JS trailing commas
schema = json.loads(src)
cases = []
for name in ["markdown-wrapped JSON still validates", "JSON with pre text still validates"]:
    body = T[T.index(f'test("{name}"'):]
    m = re.search(r"const output =\s*('(?:[^'\\]|\\.)*');", body)
    inp = ast.literal_eval(m.group(1))
    assert "expect(llm.validate(output)).toBe(true)" in body[:body.index("});")]
    cases.append({"source": f"{F}::{name}", "input": inp, "expected": {"name": "Alice", "age": 30},
                  "schema": schema})
write("llm_json_npm", cases)
