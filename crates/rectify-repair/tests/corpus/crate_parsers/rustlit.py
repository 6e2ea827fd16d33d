"""Shared helpers for the crate extractors: read Rust string literals out of test sources
without running any of the crate's code.

Not run by itself; imported by <pkg>_extract.py.
"""
import glob, json, os, re

HERE = os.path.dirname(os.path.abspath(__file__))


def crate_dir(name_version):
    hits = glob.glob(os.path.expanduser(f"~/.cargo/registry/src/*/{name_version}"))
    if not hits:
        raise SystemExit(f"{name_version} not fetched: run `cargo fetch` in "
                         f"{HERE}/probe/p_<crate> first")
    return hits[0]


def read(path, doc=False):
    text = open(path, encoding="utf-8").read()
    if doc:  # turn `/// x` and `//! x` doc lines into plain code so doctests read like tests
        text = re.sub(r"(?m)^[ \t]*//[/!] ?", "", text)
    return text


_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def _cooked(body):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c); i += 1; continue
        n = body[i + 1]
        if n in _ESC:
            out.append(_ESC[n]); i += 2
        elif n == "x":
            out.append(chr(int(body[i + 2:i + 4], 16))); i += 4
        elif n == "u":
            j = body.index("}", i)
            out.append(chr(int(body[i + 3:j], 16))); i = j + 1
        elif n == "\n":  # line continuation: skip newline and leading whitespace
            i += 2
            while i < len(body) and body[i] in " \t\n\r":
                i += 1
        else:
            raise ValueError(f"unknown escape \\{n}")
    return "".join(out)


def literals(text, start=0):
    """Yields (pos, end, value) for each Rust string literal from `start`, skipping
    comments and char literals."""
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i); i = n if i < 0 else i; continue
        if text.startswith("/*", i):
            i = text.find("*/", i) + 2; continue
        m = re.match(r'b?r(#*)"', text[i:])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = m.group(1)
            close = '"' + hashes
            j = text.find(close, i + m.end())
            yield i, j + len(close), text[i + m.end():j]
            i = j + len(close); continue
        if c == '"' or (c == "b" and text.startswith('b"', i) and not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = i + (2 if c == "b" else 1)
            j = k
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield i, j + 1, _cooked(text[k:j])
            i = j + 1; continue
        if c == "'":  # char literal or lifetime
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:])
            if m:
                i += m.end(); continue
        i += 1


def fn_span(text, name):
    """Text range of `fn name(` up to the next `fn ` at test level (good enough for tests)."""
    m = list(re.finditer(r"\bfn\s+" + re.escape(name) + r"\s*\(", text))
    if len(m) != 1:
        raise ValueError(f"fn {name}: {len(m)} matches")
    s = m[0].start()
    nxt = re.search(r"\n\s*(#\[(tokio::)?test|fn\s)", text[m[0].end():])
    e = m[0].end() + nxt.start() if nxt else len(text)
    return s, e


def lit(text, anchor, k=0):
    """k-th string literal after the unique occurrence of `anchor`
    (anchor 'fn:NAME' means the test function NAME)."""
    if anchor.startswith("fn:"):
        s, e = fn_span(text, anchor[3:])
    else:
        cnt = text.count(anchor)
        if cnt != 1:
            raise ValueError(f"anchor {anchor!r}: {cnt} matches")
        s, e = text.index(anchor), len(text)
    for idx, (p, q, v) in enumerate(x for x in literals(text, s) if x[0] < e):
        if idx == k:
            return v
    raise ValueError(f"no literal {k} after {anchor!r}")


def json_macro(text, anchor, k=0):
    """Value of the k-th `json!(...)` after anchor, only if it is pure JSON syntax."""
    if anchor.startswith("fn:"):
        s, _ = fn_span(text, anchor[3:])
    else:
        s = text.index(anchor)
    pos = s
    for _ in range(k + 1):
        pos = text.index("json!(", pos) + len("json!(")
    depth, j, parts, last = 1, pos, [], pos
    lits = {p: (q, v) for p, q, v in literals(text, pos)}
    while depth:
        if j in lits:
            q, v = lits[j]
            parts.append(text[last:j]); parts.append(json.dumps(v)); j = last = q; continue
        if text[j] in "([{": depth += 1
        if text[j] in ")]}": depth -= 1
        j += 1
    parts.append(text[last:j - 1])
    src = "".join(parts)
    return json.loads(src)


def write(pkg, cases, id_prefix=None):
    """cases: list of dicts with source/input/expected/schema. Dedups by input, validates
    expected against schema, writes <pkg>.jsonl."""
    import jsonschema
    seen, out = set(), []
    for c in cases:
        if c["input"] in seen:
            continue
        seen.add(c["input"])
        if c.get("schema") is not None:
            jsonschema.Draft202012Validator.check_schema(c["schema"])
            jsonschema.validate(c["expected"], c["schema"])
        out.append(c)
    path = os.path.join(HERE, f"{pkg}.jsonl")
    with open(path, "w") as f:
        for i, c in enumerate(out, 1):
            f.write(json.dumps({"id": f"{id_prefix or pkg}-{i:04d}", "source": c["source"],
                                "input": c["input"], "expected": c["expected"],
                                "schema": c.get("schema"), "measured_only": True},
                               ensure_ascii=False) + "\n")
    ns = sum(1 for c in out if c.get("schema") is not None)
    print(f"{pkg}: {len(out)} cases ({ns} with schema, {len(out) - ns} without) -> {path}")
    return out


# exact JSON Schema translations of Rust field types
STRING = {"type": "string"}
BOOL = {"type": "boolean"}
I64 = {"type": "integer", "minimum": -2**63, "maximum": 2**63 - 1}
I32 = {"type": "integer", "minimum": -2**31, "maximum": 2**31 - 1}
U32 = {"type": "integer", "minimum": 0, "maximum": 2**32 - 1}
U16 = {"type": "integer", "minimum": 0, "maximum": 2**16 - 1}
U8 = {"type": "integer", "minimum": 0, "maximum": 255}
U64 = {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}
F32_MAX = 3.4028234663852886e38  # jsonfix::from_value rejects numbers that overflow f32
F32 = {"type": "number", "minimum": -F32_MAX, "maximum": F32_MAX}


def vec(t):
    return {"type": "array", "items": t}


def struct(**fields):
    """A Rust struct with `#[derive(Deserialize)]` and no serde attributes besides renames
    (already applied to the keyword names): every field required. serde ignores unknown
    keys unless the struct has `#[serde(deny_unknown_fields)]` (none of the structs used
    here does), so extra keys are allowed: no `additionalProperties: false`."""
    return {"type": "object", "properties": fields, "required": list(fields)}
