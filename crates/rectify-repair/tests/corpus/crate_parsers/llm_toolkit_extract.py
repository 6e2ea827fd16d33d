"""Cases from crate llm-toolkit 0.63.1 (MIT): unit tests of its JSON extraction
(src/lib.rs `extract_json`, src/extract/extractors.rs `FlexibleExtractor`).

Run: python3 llm_toolkit_extract.py   (after `cargo fetch` in probe/p_llm-toolkit)
Writes llm_toolkit.jsonl. Each test gives the LLM text and the exact JSON text the function
must return, both as Rust string literals; the expected value is that JSON text parsed.
Tests on tags, keywords and non-JSON markdown blocks are left out, as is the one test
that only checks substrings of the result."""
import json
from rustlit import *

D = crate_dir("llm-toolkit-0.63.1")
cases = []


def add(file, fn, i, e, doc=False):
    T = read(f"{D}/{file}")
    inp = lit(T, "fn:" + fn, i)
    exp = inp if e == "same" else lit(T, "fn:" + fn, e)
    cases.append({"source": f"{file}::{fn}", "input": inp, "expected": json.loads(exp), "schema": None})


X = "src/extract/extractors.rs"
for fn, pairs in [
    ("test_extract_json_like", [(0, 1)]),
    ("test_extract_first_json_object", [(0, 1)]),
    ("test_extract_json_array", [(0, 1)]),
    ("test_extraction_strategies", [(1, 2)]),  # literal 0 is the tag name
    ("test_clean_json_trailing_commas_object", [(0, 1), (2, 3)]),
    ("test_clean_json_trailing_commas_array", [(0, 1), (2, 3)]),
    ("test_clean_json_trailing_commas_nested", [(0, 1)]),
    ("test_clean_json_preserves_commas_in_strings", [(0, 1), (2, 3)]),
    ("test_clean_json_valid_json_unchanged", [(0, "same"), (1, "same")]),
    ("test_extract_json_like_with_trailing_commas", [(0, 1)]),
]:
    for i, e in pairs:
        add(X, fn, i, e)

L = "src/lib.rs"
for fn in ["test_json_extraction", "test_standard_extraction_from_tagged_content",
           "test_extract_json_from_json_markdown_block", "test_extract_json_from_generic_markdown_block",
           "test_extract_json_priority_json_block_over_inline",
           "test_extract_json_priority_json_block_over_generic_block",
           "test_extract_json_fallback_from_non_json_markdown_block",
           "test_extract_json_from_rust_block_fallback"]:
    add(L, fn, 0, 1)
write("llm_toolkit", cases)
