"""Cases from crate langchain-rust 7.0.0 (MIT), src/output_parsers/tests.rs.

Run: python3 langchain_rust_extract.py   (after `cargo fetch` in probe/p_langchain-rust)
Writes langchain_rust.jsonl. Inputs and expected values are read from the test source:
string literals, and `json!(...)` expected values that are plain JSON syntax.
Schemas: JsonParser::<Movie> -> struct Movie {title: String, year: u16, genres: Vec<String>} (all
required; no deny_unknown_fields, so extra keys allowed);
JsonParser::<Vec<i32>>; StructuredOutputParser with fields answer/source -> an object that
must have both keys (that is all the parser checks). Boolean / comma-list / regex parsers
are not JSON and are left out, as are the error cases."""
import re
from rustlit import *

D = crate_dir("langchain-rust-7.0.0")
F = "src/output_parsers/tests.rs"
T = read(f"{D}/{F}")

MOVIE = struct(title=STRING, year=U16, genres=vec(STRING))
QA = {"type": "object", "required": ["answer", "source"]}
cases = []

# extract_json(LIT).unwrap(), json!(...)
fn = "extract_json_finds_fenced_bare_and_embedded_json"
s, e = fn_span(T, fn)
for m in re.finditer(r"extract_json\(", T[s:e]):
    p = s + m.end()
    start, end, value = next(literals(T, p))
    if start != p or not T[end:].startswith(").unwrap()"):
        continue  # the error case
    cases.append({"source": f"{F}::{fn}", "input": value,
                  "expected": json_macro(T[end:], "", 0), "schema": None})

fn = "structured_parser_checks_required_fields"
cases.append({"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0),
              "expected": {"answer": "Paris", "source": "wiki", "n": 3}, "schema": QA})

fn = "json_parser_deserializes_into_the_target_type"
cases.append({"source": f"{F}::{fn}", "input": lit(T, "fn:" + fn, 0),
              "expected": {"title": "Alien", "year": 1979, "genres": ["horror", "sci-fi"]},
              "schema": MOVIE})
assert lit(T, "parse_output(\"[1, 2, 3]\")", 0) == "[1, 2, 3]"
cases.append({"source": f"{F}::{fn}", "input": "[1, 2, 3]", "expected": [1, 2, 3], "schema": vec(I32)})

fn = "typed_parsers_work_as_chain_output_parsers"
cases.append({"source": f"{F}::{fn}", "input": lit(T, "qa_schema().into(),", 0),
              "expected": json_macro(T, "qa_schema().into(),", 0), "schema": QA})
cases.append({"source": f"{F}::{fn}", "input": lit(T, "JsonParser::<Movie>::new().into(),", 0),
              "expected": json_macro(T, "JsonParser::<Movie>::new().into(),", 0), "schema": MOVIE})
write("langchain_rust", cases)
