"""Extract cases from the Rust crate llm-output-parser 0.2.0 (crates.io), unit tests in src/*.rs.
Run: python3 llm-output-parser_extract.py  (after `cargo info llm-output-parser`)

Target type -> JSON Schema (only exact translations):
  parse_number::<i8..i64,u8..u64,usize> / let x: iN = parse_number(..)  -> {"type":"integer"}
  parse_number with f32/f64                                            -> {"type":"number"}
  parse_number_in_range(s, lo, hi)  -> the above plus "minimum": lo, "maximum": hi (inclusive, as implemented)
  parse_choice(s, &[c1, c2, ..])    -> {"enum": [c1, c2, ..]} (returns one of the given choices)
  parse_string_list(s)              -> {"type":"array","items":{"type":"string"}}
  parse_json::<Vec<i32>>            -> {"type":"array","items":{"type":"integer"}}
  parse_json::<Struct> with the test module's structs Kv/Sentiment/Outer/Inner (all fields String
    or Vec<i32>, all required): object schema; the expected object is assembled from field asserts
    only when every field of the struct is asserted.
  parse_json_value / try_repair_json: no schema (try_repair_json's expected text is parsed as JSON).
Float asserts written `assert!((r - LIT).abs() < f64::EPSILON)` are read as r == LIT.
Not used: parse_text (plain text), parse_xml_tag(s), parse_yaml, extract/preprocess helpers,
  *_with_trace variants (same functions, with options; only used when options are default and the
  value is asserted).
"""
import glob, json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
import _rustlit
from _rustlit import collect, finish, dump_jsonl, json_text, plain, is_default_opts, Opaque, expected_value
_rustlit.FIELDS_OK = True

PKG = "llm-output-parser"
root = glob.glob("/root/.cargo/registry/src/*/llm-output-parser-0.2.0")[0]
FILES = [(f, f[len(root) + 1:]) for f in sorted(glob.glob(f"{root}/src/*.rs"))]
FUNCS = {k: 1 for k in ["parse_number", "parse_number_in_range", "parse_choice", "parse_string_list",
                        "parse_json", "parse_json_value", "try_repair_json",
                        "parse_number_with_trace", "parse_number_in_range_with_trace", "parse_choice_with_trace",
                        "parse_string_list_with_trace", "parse_json_with_trace", "parse_json_value_with_trace"]}
INT = {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}
FLT = {"f32", "f64"}
S = {"type": "string"}
STRUCTS = {  # from the #[derive(Deserialize)] structs in src/json.rs tests
    "Kv": {"type": "object", "properties": {"key": S}, "required": ["key"]},
    "Sentiment": {"type": "object", "properties": {"sentiment": S}, "required": ["sentiment"]},
    "Inner": {"type": "object", "properties": {"inner": {"type": "array", "items": {"type": "integer"}}}, "required": ["inner"]},
}
STRUCTS["Outer"] = {"type": "object", "properties": {"outer": STRUCTS["Inner"]}, "required": ["outer"]}


def rtype(call):
    t = call.turbofish or call.ann or ""
    t = t.replace(" ", "")
    m = re.fullmatch(r"\((.*),ParseTrace\)", t)  # (T, ParseTrace) from *_with_trace
    if m:
        t = m.group(1)
    m = re.fullmatch(r"Result<(.*),_>", t)
    if m:
        t = m.group(1)
    return t


def schema_for(t):
    if t in INT:
        return {"type": "integer"}
    if t in FLT:
        return {"type": "number"}
    if t in STRUCTS:
        return STRUCTS[t]
    m = re.fullmatch(r"Vec<(\w+)>", t)
    if m and schema_for(m.group(1)):
        return {"type": "array", "items": schema_for(m.group(1))}
    if t == "String":
        return S
    return None


def make_case(call, exp, parsed):
    name = call.name.replace("_with_trace", "")
    if not call.args or not isinstance(call.args[0], str):
        return None, "input not a literal"
    if call.name.endswith("_with_trace") and not is_default_opts(call.args[-1]) and not isinstance(call.args[-1], Opaque):
        return None, "non-default options"
    inp = call.args[0]
    if isinstance(exp, tuple) and exp and exp[0] == "fields":
        t = rtype(call)
        sch = STRUCTS.get(t)
        if not sch:
            return None, "field asserts on a non-struct result"
        obj = {}
        for path, v in exp[1]:
            d = obj
            for p in path[:-1]:
                d = d.setdefault(p, {})
            d[path[-1]] = v
        def covers(s, o):
            if s.get("type") != "object":
                return True
            return isinstance(o, dict) and set(o) == set(s["properties"]) and all(covers(s["properties"][k], o[k]) for k in o)
        if not covers(sch, obj):
            return None, "struct result only partly asserted"
        return {"input": inp, "expected": obj, "schema": sch}, None
    exp, why = expected_value(exp)
    if why:
        return None, why
    if name == "try_repair_json":
        if parsed:
            return {"input": inp, "expected": exp}, None
        ok, v = json_text(exp) if isinstance(exp, str) else (False, None)
        if not ok:
            return None, "expected text is not JSON"
        return {"input": inp, "expected": v}, None
    if name == "parse_json_value":
        return {"input": inp, "expected": exp}, None
    if name == "parse_string_list":
        return {"input": inp, "expected": exp, "schema": {"type": "array", "items": S}}, None
    if name == "parse_choice":
        ch = call.args[1] if len(call.args) > 1 else None
        if not (isinstance(ch, list) and all(isinstance(c, str) for c in ch)):
            return None, "choices not literal"
        return {"input": inp, "expected": exp, "schema": {"enum": ch}}, None
    if name in ("parse_number", "parse_number_in_range"):
        sch = schema_for(rtype(call))
        if sch is None:
            return None, "numeric type not stated"
        if sch["type"] == "integer" and isinstance(exp, float):
            return None, "type mismatch"
        if name == "parse_number_in_range":
            lo, hi = call.args[1], call.args[2]
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi)):
                return None, "range not literal"
            sch = dict(sch, minimum=lo, maximum=hi)
        return {"input": inp, "expected": exp, "schema": sch}, None
    if name == "parse_json":
        sch = schema_for(rtype(call))
        if sch is None:
            return None, "target type not translatable"
        return {"input": inp, "expected": exp, "schema": sch}, None
    return None, "unhandled function"


# read the float asserts `assert!((x - 8.5).abs() < f64::EPSILON)` as assert_eq!(x, 8.5)
FLOAT_ASSERT = re.compile(r"assert!\(\s*\(\s*(\w+)\s*-\s*(-?[0-9.]+)\s*\)\s*\.abs\(\)\s*<\s*f(?:32|64)::EPSILON\s*\)")
tmpfiles = []
for f, label in FILES:
    src = open(f).read()
    src2 = FLOAT_ASSERT.sub(r"assert_eq!(\1, \2)", src)
    tf = f"/tmp/_lop_{os.path.basename(f)}"
    open(tf, "w").write(src2)
    tmpfiles.append((tf, label))
cases, skips = collect(tmpfiles, FUNCS, make_case, PKG)
cases, skips = finish(PKG, cases, skips)
dump_jsonl(f"{HERE}/{PKG}.jsonl", cases)
print(PKG, len(cases), "cases; skipped:", dict(skips))
