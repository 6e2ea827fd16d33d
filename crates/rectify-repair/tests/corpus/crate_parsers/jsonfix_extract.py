"""Cases from crate jsonfix 0.2.0 (MIT OR Apache-2.0): its doctests (read from the `///`
and `//!` comments) and unit tests in src/lib.rs, src/options.rs, src/serde_support.rs,
src/serde_json_support.rs.

Run: python3 jsonfix_extract.py   (after `cargo fetch` in probe/p_jsonfix)
Writes jsonfix.jsonl. Inputs are Rust string literals of the source. Where the test
compares with the repaired JSON text, the expected value is that literal parsed; where it
compares field by field or with a Rust struct, the value is written here and noted.
Every typed test gets its target type as a JSON Schema: structs (u64, i64, f32, String;
every non-Option field required, Option fields nullable and optional; no struct has
deny_unknown_fields, so extra keys are allowed), Vec<i64>, and the externally tagged enum
`Step { Done, Note(String) }` in serde's representation. Cases whose result depends on
non-default number handling (1e400 kept as a string), streaming and error cases are left out.
Audit: loads_repairs_straight_into_a_serde_json_value dropped (scores[0] is not asserted and
comes from input that needed repair); the serde_json_support `deserialize` doctest dropped
(asserts only `answer`; same input as from_value_reads_a_struct_from_repaired_input)."""
import json
from rustlit import *

D = crate_dir("jsonfix-0.2.0")
cases = []


def add(file, test, inp, exp, schema=None):
    cases.append({"source": f"{file}::{test}", "input": inp, "expected": exp, "schema": schema})


F = "src/lib.rs"
T = read(f"{D}/{F}", doc=True)
add(F, "doctest(crate docs)", lit(T, 'let reply = "Sure! Here you go'),
    json.loads(lit(T, "assert_eq!(repair_extract(reply).unwrap(),")))
add(F, "doctest(crate docs)", lit(T, "assert_eq!(repair(\"{name: 'Ada'}\")"),
    json.loads(lit(T, "assert_eq!(repair(\"{name: 'Ada'}\")", 1)))
add(F, "doctest(partial values)", lit(T, "parse_partial(r#\"{\"answer\""),
    json.loads(lit(T, "parse_partial(r#\"{\"answer\"", 1)))
add(F, "doctest(numbers keep their text)", lit(T, 'repair("{id: 1234567890123456789'),
    json.loads(lit(T, 'repair("{id: 1234567890123456789', 1)))
add(F, "doctest(choosing repairs)", lit(T, 'assert_eq!(repair_with("```json\\n{\\"a\\": 1} // done'),
    json.loads(lit(T, 'assert_eq!(repair_with("```json\\n{\\"a\\": 1} // done', 1)))
add(F, "doctest(parse)", lit(T, "let value = parse(\"{name: 'Ada', tags"),
    json.loads(lit(T, "let value = parse(\"{name: 'Ada', tags", 1)))
add(F, "doctest(repair)", lit(T, "assert_eq!(repair(\"{a: 1, /* note */"),
    json.loads(lit(T, "assert_eq!(repair(\"{a: 1, /* note */", 1)))
add(F, "doctest(repair_bytes)", lit(T, "let out = jsonfix::repair_bytes("),
    json.loads(lit(T, "let out = jsonfix::repair_bytes(", 1)))
add(F, "doctest(repair_extract)", lit(T, 'let reply = "The result is'),
    json.loads(lit(T, 'let reply = "The result is', 1)))
prefix = lit(T, "fn:repair_bytes_into_appends_canonical_json", 0)
got = lit(T, "fn:repair_bytes_into_appends_canonical_json", 3)  # literal 2 is the expect() message
assert got.startswith(prefix)
add(F, "repair_bytes_into_appends_canonical_json", lit(T, "fn:repair_bytes_into_appends_canonical_json", 1),
    json.loads(got[len(prefix):]))
add(F, "repair_bytes_returns_the_repaired_document", lit(T, "fn:repair_bytes_returns_the_repaired_document"),
    json.loads(lit(T, "fn:repair_bytes_returns_the_repaired_document", 2)))
inp = lit(T, "fn:loads_matches_deserialize")  # valid JSON, loads == serde_json's reading of it
add(F, "loads_matches_deserialize", inp, json.loads(inp))

F = "src/options.rs"
T = read(f"{D}/{F}", doc=True)
add(F, "doctest(Repairs)", lit(T, 'assert_eq!(repair_with("```json\\n// hi'),
    json.loads(lit(T, 'assert_eq!(repair_with("```json\\n// hi', 1)))
add(F, "doctest(Allow)", lit(T, 'assert_eq!(parse_partial("{\\"a\\": \\"v"'),
    json.loads(lit(T, 'assert_eq!(parse_partial("{\\"a\\": \\"v"', 1)))

F = "src/serde_support.rs"
T = read(f"{D}/{F}")
# struct Reply { answer: String, score: f32 } == Reply { answer: "yes", score: 0.9 }
add(F, "from_value_reads_a_struct_from_repaired_input",
    lit(T, "fn:from_value_reads_a_struct_from_repaired_input"), {"answer": "yes", "score": 0.9},
    struct(answer=STRING, score=F32))
add(F, "from_value_keeps_64_bit_integer_text_exact", lit(T, "fn:from_value_keeps_64_bit_integer_text_exact"),
    {"big": 1234567890123456789, "small": -2**63}, struct(big=U64, small=I64))
OPT_I32 = {"anyOf": [I32, {"type": "null"}]}
add(F, "from_value_treats_null_as_none", lit(T, "fn:from_value_treats_null_as_none"), {"a": None, "b": 2},
    {"type": "object", "properties": {"a": OPT_I32, "b": OPT_I32}})  # Option: nullable, not required
add(F, "from_value_walks_sequences", lit(T, "fn:from_value_walks_sequences"), [1, 2, 3], vec(I64))
# enum Step { Done, Note(String) }, externally tagged: "Done" (or {"Done": null}) | {"Note": "..."}
STEP = {"oneOf": [
    {"const": "Done"},
    {"type": "object", "properties": {"Done": {"type": "null"}}, "required": ["Done"],
     "additionalProperties": False},
    {"type": "object", "properties": {"Note": STRING}, "required": ["Note"],
     "additionalProperties": False}]}
assert lit(T, "fn:from_value_supports_externally_tagged_enums", 4) == '"Done"'
add(F, "from_value_supports_externally_tagged_enums", lit(T, "fn:from_value_supports_externally_tagged_enums"),
    {"Note": "x"}, STEP)
add(F, "from_value_supports_externally_tagged_enums", lit(T, "fn:from_value_supports_externally_tagged_enums", 4),
    "Done", STEP)

write("jsonfix", cases)
