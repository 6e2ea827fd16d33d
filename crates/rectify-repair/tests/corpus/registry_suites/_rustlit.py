"""Shared helper for the *_extract.py scripts: a small reader of Rust test code.

It tokenizes Rust, finds `#[test]` functions, and evaluates only literal data
(string/number/bool literals, vec![..], [..], json!(..), Some(..), String::from,
.to_string(), .into(), let bindings, for-loops over literal arrays). Calls of the
package's functions are kept as Call objects; assertions are turned into cases by
the per-package script. Nothing from the packages is executed.
"""
import json
import re


class Opaque:
    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return f"Opaque({self.what})"


class Call:
    def __init__(self, name, args, recv=None):
        self.name, self.args, self.recv = name, args, recv
        self.turbofish = None
        self.ann = None          # type annotation of the let it was bound by
        self.unwrapped = False   # .unwrap()/.expect()/? applied

    def __repr__(self):
        return f"Call({self.name},{self.args!r})"


CALLS = []
FIELDS_OK = False  # set by a package script that assembles struct results from field asserts
PARSE_FUNCS = set()  # package helpers equivalent to serde_json::from_str
SKIPLOG = []


class Index:
    def __init__(self, base, key):
        self.base, self.key = base, key


class FieldOf:  # call_result.field
    def __init__(self, base, name):
        self.base, self.name = base, name

    def chain(self):
        path, b = [self.name], self.base
        while isinstance(b, FieldOf):
            path.insert(0, b.name)
            b = b.base
        return (b, path) if isinstance(b, Call) else (None, None)


class Parsed:  # serde_json::from_str(x)
    def __init__(self, inner):
        self.inner = inner


class Method:  # unknown method applied to a value
    def __init__(self, base, name, args):
        self.base, self.name, self.args = base, name, args


class Struct:
    def __init__(self, path, fields):
        self.path, self.fields = path, fields


class Enum:  # Path(args) where Path is not a known function, e.g. JSON::Int(3)
    def __init__(self, path, args):
        self.path, self.args = path, args


# ---------------------------------------------------------------- tokenizer
TOK = re.compile(r"""
  (?P<ws>\s+)
 |(?P<lc>//[^\n]*)
 |(?P<bc>/\*)
 |(?P<raw>b?r(?P<h>\#*)")
 |(?P<str>b?"(?:\\.|[^"\\])*")
 |(?P<chr>b?'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])')
 |(?P<life>'[A-Za-z_][A-Za-z0-9_]*)
 |(?P<num>(?:0x[0-9a-fA-F_]+|0b[01_]+|[0-9][0-9_]*(?:\.(?![.A-Za-z_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)(?:[iuf](?:8|16|32|64|128|size))?)
 |(?P<id>[A-Za-z_][A-Za-z0-9_]*)
 |(?P<p>::|=>|->|==|!=|<=|>=|&&|\|\||\.\.=|\.\.|[-+*/%^!&|=<>@.,;:\#$?~()\[\]{}])
""", re.X | re.S)

ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def unescape(body):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in ESC:
            out.append(ESC[n])
            i += 2
        elif n == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif n == "u":
            j = body.index("}", i)
            out.append(chr(int(body[i + 3:j], 16)))
            i = j + 1
        elif n == "\n":  # line continuation: skip newline and leading whitespace
            i += 2
            while i < len(body) and body[i] in " \t\n\r":
                i += 1
        else:
            raise ValueError("bad escape \\" + n)
    return "".join(out)


def tokenize(src):
    toks, i = [], 0
    while i < len(src):
        m = TOK.match(src, i)
        if not m:
            raise ValueError(f"cannot tokenize at {src[i:i+30]!r}")
        k = m.lastgroup if m.lastgroup != "h" else "raw"
        if m.group("raw") is not None:
            k = "raw"
        if k == "bc":
            depth, j = 1, m.end()
            while depth:
                if src.startswith("/*", j):
                    depth += 1
                    j += 2
                elif src.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            i = j
            continue
        if k == "raw":
            h = m.group("h")
            end = src.index('"' + h, m.end())
            toks.append(("str", src[m.end():end], i))
            i = end + 1 + len(h)
            continue
        if k == "str":
            t = m.group()
            body = t[t.index('"') + 1:-1]
            toks.append(("str", unescape(body), i))
        elif k == "chr":
            t = m.group()
            toks.append(("chr", unescape(t[t.index("'") + 1:-1]), i))
        elif k in ("ws", "lc"):
            pass
        elif k == "num":
            toks.append(("num", m.group(), i))
        elif k == "id":
            toks.append(("id", m.group(), i))
        else:
            toks.append(("p", m.group(), i))
        i = m.end()
    return toks


def match_close(toks, i):
    """toks[i] is an opening bracket; return index of its match."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(toks)):
        t, v, _ = toks[j]
        if t == "p" and v in pairs:
            stack.append(pairs[v])
        elif t == "p" and v in (")", "]", "}"):
            if not stack or stack.pop() != v:
                raise ValueError("unbalanced")
            if not stack:
                return j
    raise ValueError("unclosed")


def find_tests(src):
    """Yield (name, body_tokens, attrs_before) for each #[test]/#[tokio::test] fn."""
    toks = tokenize(src)
    i = 0
    while i < len(toks):
        if toks[i][:2] == ("p", "#") and i + 1 < len(toks) and toks[i + 1][1] == "[":
            j = match_close(toks, i + 1)
            attr = " ".join(t[1] for t in toks[i + 2:j])
            if attr in ("test", "tokio :: test", "traced_test", "test_log :: test") or attr.startswith("tokio :: test"):
                k = j + 1
                attrs = [attr]
                while toks[k][1] != "fn":
                    if toks[k][1] == "#":
                        kk = match_close(toks, k + 1)
                        attrs.append(" ".join(t[1] for t in toks[k + 2:kk]))
                        k = kk + 1
                    else:
                        k += 1
                name = toks[k + 1][1]
                while toks[k][1] != "{":
                    k += 1
                e = match_close(toks, k)
                yield name, toks[k + 1:e], attrs
                i = e + 1
                continue
        i += 1


# ---------------------------------------------------------------- expressions
class P:
    def __init__(self, toks, env, funcs, enum_ctor=None):
        self.t, self.i, self.env, self.funcs = toks, 0, env, funcs
        self.enum_ctor = enum_ctor

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("eof", None, -1)

    def at(self, v, k=0):
        tk = self.peek(k)
        return tk[0] in ("p", "id") and tk[1] == v

    def eat(self, v):
        if not self.at(v):
            raise SyntaxError(f"expected {v} got {self.peek()}")
        self.i += 1

    def skip_generics(self):
        # after '::' '<' or in a type; skip balanced <...>
        depth = 0
        while True:
            tk = self.peek()
            if tk[0] == "eof":
                raise SyntaxError("eof in generics")
            if tk[1] == "<":
                depth += 1
            elif tk[1] == ">":
                depth -= 1
            elif tk[1] == ">>":
                depth -= 2
            self.i += 1
            if depth <= 0:
                return

    def parse_type(self):
        """Consume a type, return its text."""
        start = self.i
        depth = 0
        while True:
            tk = self.peek()
            if tk[0] == "eof":
                break
            v = tk[1]
            if tk[0] == "p" and v in ("<", "(", "["):
                depth += 1
            elif tk[0] == "p" and v in (">", ")", "]"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and tk[0] == "p" and v in ("=", ";", ",", "{", "|"):
                break
            self.i += 1
        return " ".join(str(t[1]) for t in self.t[start:self.i])

    def expr(self, nostruct=False):
        left = self.unary(nostruct)
        while True:
            tk = self.peek()
            if tk[0] == "p" and tk[1] in ("+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "..", "..=", "&", "|"):
                self.i += 1
                if tk[1] in ("..",) and (self.at(")") or self.at("]") or self.at(",")):
                    left = Opaque("range")
                    continue
                right = self.unary(nostruct)
                if tk[1] == "+" and isinstance(left, str) and isinstance(right, str):
                    left = left + right
                elif tk[1] == "==" :
                    left = Opaque(("eq", left, right))
                else:
                    left = Opaque(("bin", tk[1]))
            elif tk[0] == "id" and tk[1] == "as":
                self.i += 1
                self.parse_type()
            else:
                return left

    def unary(self, nostruct):
        if self.at("&"):
            self.i += 1
            if self.at("mut"):
                self.i += 1
            return self.unary(nostruct)
        if self.at("&&"):
            self.i += 1
            return self.unary(nostruct)
        if self.at("*"):
            self.i += 1
            return self.unary(nostruct)
        if self.at("-"):
            self.i += 1
            v = self.unary(nostruct)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else Opaque("neg")
        if self.at("!"):
            self.i += 1
            v = self.unary(nostruct)
            return Opaque(("not", v))
        return self.postfix(self.primary(nostruct))

    def args(self, close):
        out = []
        while not self.at(close):
            out.append(self.expr())
            if self.at(","):
                self.i += 1
        self.eat(close)
        return out

    def postfix(self, v):
        while True:
            if self.at("."):
                self.i += 1
                tk = self.peek()
                self.i += 1
                name = tk[1]
                if tk[0] == "num":
                    if isinstance(v, Opaque) and isinstance(v.what, tuple) and v.what[0] == "tuple" and re.fullmatch(r"[0-9]+", name) and int(name) < len(v.what[1]):
                        v = v.what[1][int(name)]
                    else:
                        v = Opaque("tuplefield")
                    continue
                if self.at("::"):
                    self.i += 1
                    self.skip_generics()
                if self.at("("):
                    self.i += 1
                    a = self.args(")")
                    v = self.method(v, name, a)
                else:
                    if isinstance(v, Struct):
                        v = v.fields.get(name, Opaque("field"))
                    elif isinstance(v, (Call, FieldOf)):
                        v = FieldOf(v, name)
                    else:
                        v = Opaque(("field", name))
            elif self.at("?"):
                self.i += 1
                if isinstance(v, Call):
                    v.unwrapped = True
            elif self.at("["):
                self.i += 1
                k = self.expr()
                self.eat("]")
                if isinstance(k, (str, int)) and isinstance(v, (list, dict)):
                    try:
                        v = v[k]
                        continue
                    except Exception:
                        pass
                v = Index(v, k)
            else:
                return v

    def method(self, v, name, a):
        if name in ("to_string", "to_owned", "into", "clone", "as_str", "trim_end_matches_never", "as_ref", "iter", "into_iter", "to_vec", "borrow", "as_slice", "deref") and not a:
            return v
        if name in ("map_err", "context", "with_context", "unwrap_or_else", "unwrap_or") and isinstance(v, (Call, Parsed)):
            return v
        if name in ("unwrap", "expect", "unwrap_or_default"):
            if isinstance(v, Call):
                v.unwrapped = True
            return v
        if name == "trim" and isinstance(v, str):
            return v.strip()
        if name == "repeat" and isinstance(v, str) and a and isinstance(a[0], int):
            return v * a[0]
        if name == "len" and isinstance(v, (str, list)):
            return len(v)
        if name in ("is_err", "is_ok", "is_none", "is_some"):
            return Opaque((name, v))
        if (name, len(a)) in self.funcs:
            return self.make_call(name, a, recv=v)
        if name in self.funcs and self.funcs[name] == "method":
            return self.make_call(name, a, recv=v)
        return Method(v, name, a)

    def make_call(self, name, a, recv=None):
        c = Call(name, a, recv)
        CALLS.append(c)
        return c

    def primary(self, nostruct):
        tk = self.peek()
        t, v = tk[0], tk[1]
        if t == "str":
            self.i += 1
            return v
        if t == "chr":
            self.i += 1
            return v
        if t == "num":
            self.i += 1
            s = re.sub(r"(?:[iuf](?:8|16|32|64|128|size))$", "", v).replace("_", "")
            if s.startswith("0x"):
                return int(s, 16)
            if re.fullmatch(r"[0-9]+", s):
                return int(s)
            return float(s)
        if t == "p" and v == "(":
            self.i += 1
            a = self.args(")")
            return a[0] if len(a) == 1 else Opaque(("tuple", a))
        if t == "p" and v == "[":
            self.i += 1
            out = []
            while not self.at("]"):
                out.append(self.expr())
                if self.at(";"):
                    self.i += 1
                    n = self.expr()
                    out = out * n if isinstance(n, int) else [Opaque("repeat")]
                if self.at(","):
                    self.i += 1
            self.eat("]")
            return out
        if t == "p" and v == "|":  # closure
            self.i += 1
            while not self.at("|"):
                self.i += 1
            self.i += 1
            self.expr()
            return Opaque("closure")
        if t == "p" and v == "{":
            e = match_close(self.t, self.i)
            self.i = e + 1
            return Opaque("block")
        if t == "id" and v in ("true", "false"):
            self.i += 1
            return v == "true"
        if t == "id" and v in ("move",):
            self.i += 1
            return self.primary(nostruct)
        if t == "id" and v in ("if", "match", "loop", "while", "unsafe", "async"):
            # skip to end of the following block(s)
            self.i += 1
            while not self.at("{"):
                self.i += 1
            self.i = match_close(self.t, self.i) + 1
            while self.at("else"):
                self.i += 1
                while not self.at("{"):
                    self.i += 1
                self.i = match_close(self.t, self.i) + 1
            return Opaque(v)
        if t == "id":
            # path
            parts = [v]
            self.i += 1
            turbofish = None
            while self.at("::"):
                self.i += 1
                if self.at("<"):
                    s = self.i
                    self.skip_generics()
                    turbofish = " ".join(str(x[1]) for x in self.t[s + 1:self.i - 1])
                    continue
                parts.append(self.peek()[1])
                self.i += 1
            path = "::".join(parts)
            last = parts[-1]
            if self.at("!"):  # macro
                self.i += 1
                op = self.peek()[1]
                e = match_close(self.t, self.i)
                inner = self.t[self.i + 1:e]
                self.i = e + 1
                return self.macro(last, inner, op)
            if self.at("("):
                self.i += 1
                a = self.args(")")
                if last == "Some" and len(a) == 1:
                    return ("Some", a[0])
                if last in ("Ok",) and len(a) == 1:
                    return a[0]
                if path in ("String::from", "String::from_str", "str::to_string", "Value::String", "serde_json::Value::String") and len(a) == 1:
                    return a[0]
                if (last in ("from_str", "from_slice") and parts[0] == "serde_json" or path in PARSE_FUNCS) and len(a) == 1:
                    if isinstance(a[0], str):
                        try:
                            return json.loads(a[0])
                        except Exception:
                            return Opaque("bad json")
                    return Parsed(a[0])
                if last in self.funcs or path in self.funcs:
                    c = self.make_call(last, a)
                    c.turbofish = turbofish
                    return c
                if self.enum_ctor:
                    r = self.enum_ctor(path, a)
                    if r is not None:
                        return r
                return Enum(path, a)
            if self.at("{") and not nostruct and last[:1].isupper():
                e = match_close(self.t, self.i)
                fields = {}
                sub = P(self.t[self.i + 1:e], self.env, self.funcs, self.enum_ctor)
                while sub.peek()[0] != "eof":
                    if sub.at(".."):
                        sub.i += 1
                        sub.expr()
                        continue
                    fname = sub.peek()[1]
                    sub.i += 1
                    if sub.at(":"):
                        sub.i += 1
                        fields[fname] = sub.expr()
                    else:
                        fields[fname] = self.env.get(fname, Opaque(fname))
                    if sub.at(","):
                        sub.i += 1
                self.i = e + 1
                return Struct(path, fields)
            if path == "None":
                return ("None",)
            if len(parts) == 1 and v in self.env:
                return self.env[v]
            if self.enum_ctor:
                r = self.enum_ctor(path, None)
                if r is not None:
                    return r
            return Opaque(("path", path))
        raise SyntaxError(f"unexpected {tk}")

    def macro(self, name, inner, op):
        if name == "vec":
            sub = P(inner + [("p", "]", -1)], self.env, self.funcs, self.enum_ctor)
            sub.t = [("p", "[", -1)] + sub.t
            return sub.primary(False)
        if name == "json":
            return json_macro(inner, self.env, self.funcs, self.enum_ctor)
        if name == "format":
            sub = P(inner, self.env, self.funcs, self.enum_ctor)
            a = sub.args("eof") if False else None
            return Opaque("format")
        if name == "concat":
            sub = P(inner + [("p", ")", -1)], self.env, self.funcs, self.enum_ctor)
            a = sub.args(")")
            if all(isinstance(x, str) for x in a):
                return "".join(a)
            return Opaque("concat")
        return Opaque(("macro", name, inner))


def json_macro(inner, env, funcs, enum_ctor):
    """serde_json::json!: JSON syntax with Rust expressions as values."""
    p = P(inner, env, funcs, enum_ctor)

    def val():
        if p.at("{"):
            p.i += 1
            d = {}
            while not p.at("}"):
                tk = p.peek()
                if tk[0] == "str":
                    k = tk[1]
                    p.i += 1
                elif tk[0] == "id" :
                    k = env.get(tk[1])
                    if not isinstance(k, str):
                        raise ValueError("json! key")
                    p.i += 1
                else:
                    raise ValueError("json! key")
                p.eat(":")
                d[k] = val()
                if p.at(","):
                    p.i += 1
            p.i += 1
            return d
        if p.at("["):
            p.i += 1
            a = []
            while not p.at("]"):
                a.append(val())
                if p.at(","):
                    p.i += 1
            p.i += 1
            return a
        if p.at("null"):
            p.i += 1
            return None
        v = p.expr()
        if not plain(v):
            raise ValueError("json! value not literal")
        return v

    v = val()
    if p.peek()[0] != "eof":
        raise ValueError("json! trailing")
    return v


def expected_value(exp):
    """The expected value stated by a test (`Some(v)` unwrapped), or a reason to skip."""
    if isinstance(exp, tuple):
        if exp[0] != "Some" or not plain(exp[1]):
            return None, "expects None (no value)"
        exp = exp[1]
    if not plain(exp):
        return None, "expected value not a literal"
    return exp, None


def plain(v):
    """True when v is plain JSON data."""
    if v is None or isinstance(v, (str, bool, int, float)):
        return True
    if isinstance(v, list):
        return all(plain(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and plain(x) for k, x in v.items())
    return False


# ---------------------------------------------------------------- statements
class Ctx:
    """Walks a test body. on_assert(kind, args, env) is called for each assert."""

    def __init__(self, funcs, on_assert, enum_ctor=None, on_stmt=None):
        self.funcs, self.on_assert, self.enum_ctor, self.on_stmt = funcs, on_assert, enum_ctor, on_stmt
        self.notes = []

    def run(self, toks, env):
        i = 0
        while i < len(toks):
            tk = toks[i]
            if tk[:2] == ("p", ";"):
                i += 1
                continue
            if tk[:2] == ("p", "#"):
                i = match_close(toks, i + 1) + 1
                continue
            if tk[0] == "id" and tk[1] in ("struct", "enum", "impl", "fn", "use", "mod", "const", "static", "type"):
                # item: skip to ; or block end
                j = i
                while j < len(toks) and toks[j][1] not in (";", "{"):
                    j += 1
                if j < len(toks) and toks[j][1] == "{":
                    j = match_close(toks, j)
                    if tk[1] in ("struct",) and j + 1 < len(toks) and toks[j + 1][1] == ";":
                        j += 1
                if tk[1] in ("const", "static"):
                    # const NAME: T = EXPR;
                    name = toks[i + 1][1]
                    k = i
                    while toks[k][1] != "=":
                        k += 1
                    try:
                        env[name] = P(toks[k + 1:j], env, self.funcs, self.enum_ctor).expr()
                    except Exception:
                        pass
                i = j + 1
                continue
            if tk[0] == "id" and tk[1] == "for":
                # for PAT in EXPR { body }
                j = i + 1
                pat = []
                while toks[j][1] != "in":
                    pat.append(toks[j])
                    j += 1
                p = P(toks[j + 1:], env, self.funcs, self.enum_ctor)
                try:
                    it = p.expr(nostruct=True)
                except Exception as e:
                    it = Opaque("iter")
                bstart = j + 1 + p.i
                bend = match_close(toks, bstart)
                body = toks[bstart + 1:bend]
                pnames = [t[1] for t in pat if t[0] == "id"]
                if isinstance(it, list) and pat and all(plain(x) or isinstance(x, Opaque) for x in it):
                    for item in it:
                        e2 = dict(env)
                        if len(pnames) == 1 and len(pat) in (1, 2):  # x or &x
                            e2[pnames[0]] = item
                        elif isinstance(item, Opaque) and isinstance(item.what, tuple) and item.what[0] == "tuple" and len(pnames) == len(item.what[1]):
                            for n_, v_ in zip(pnames, item.what[1]):
                                e2[n_] = v_
                        else:
                            self.notes.append("for-pattern")
                            break
                        self.run(body, e2)
                elif isinstance(it, list):
                    for item in it:
                        e2 = dict(env)
                        if isinstance(item, Opaque) and isinstance(item.what, tuple) and item.what[0] == "tuple" and len(pnames) == len(item.what[1]):
                            for n_, v_ in zip(pnames, item.what[1]):
                                e2[n_] = v_
                            self.run(body, e2)
                        elif len(pnames) == 1:
                            e2[pnames[0]] = item
                            self.run(body, e2)
                        else:
                            self.notes.append("for-pattern")
                            break
                else:
                    self.notes.append("for over non-literal")
                i = bend + 1
                continue
            # find end of statement: ';' at depth 0, or a block-ending '}' for if/match/etc
            j = i
            depth = 0
            while j < len(toks):
                v = toks[j][1]
                if toks[j][0] == "p" and v in ("(", "[", "{"):
                    depth += 1
                elif toks[j][0] == "p" and v in (")", "]", "}"):
                    depth -= 1
                    if depth == 0 and v == "}" and toks[i][1] in ("if", "match", "while", "loop", "{", "unsafe") and not (j + 1 < len(toks) and toks[j + 1][1] in ("else", ".", "?")):
                        j += 1
                        break
                elif depth == 0 and v == ";" and toks[j][0] == "p":
                    break
                j += 1
            stmt = toks[i:j]
            i = j + 1 if j < len(toks) and toks[j][1] == ";" else j
            self.stmt(stmt, env)

    def stmt(self, s, env):
        if not s:
            return
        if s[0][1] in ("if", "match", "while", "loop", "{", "unsafe"):
            self.notes.append("control-flow " + s[0][1])
            return
        if s[0][1] == "let":
            k = 1
            if s[k][1] == "mut":
                k += 1
            if s[k][1] == "(" or s[k][0] != "id":
                self.notes.append("let-pattern")
                # tuple destructure: let (a, b) = (x, y)
                if s[k][1] == "(":
                    e = match_close(s, k)
                    names = [t[1] for t in s[k + 1:e] if t[0] == "id" and t[1] != "mut"]
                    r = s[e + 1:]
                    if r and r[0][1] == "=":
                        try:
                            v = P(r[1:], env, self.funcs, self.enum_ctor).expr()
                        except Exception:
                            v = None
                        if isinstance(v, Opaque) and isinstance(v.what, tuple) and v.what[0] == "tuple" and len(v.what[1]) == len(names):
                            for n_, v_ in zip(names, v.what[1]):
                                env[n_] = v_
                        elif isinstance(v, Call):
                            for n_ in names:
                                env[n_] = v
                return
            name = s[k][1]
            k += 1
            ann = None
            if k < len(s) and s[k][1] == ":":
                p = P(s[k + 1:], env, self.funcs, self.enum_ctor)
                ann = p.parse_type()
                k = k + 1 + p.i
            if k < len(s) and s[k][1] == "=":
                try:
                    p = P(s[k + 1:], env, self.funcs, self.enum_ctor)
                    v = p.expr()
                    if p.peek()[0] != "eof":
                        v = Opaque("trailing")
                except Exception as e:
                    v = Opaque(("err", str(e)))
                if isinstance(v, Call) and ann:
                    v.ann = ann
                if isinstance(v, Parsed) and ann:
                    pass
                env[name] = v
            else:
                env[name] = Opaque("uninit")
            return
        # macro statement?
        if len(s) >= 3 and s[0][0] == "id" and s[1][1] == "!" and s[2][1] in ("(", "["):
            name = s[0][1]
            e = match_close(s, 2)
            inner = s[3:e]
            if name in ("assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne", "assert_matches"):
                try:
                    p = P(inner + [("p", ")", -1)], env, self.funcs, self.enum_ctor)
                    a = p.args(")")
                except Exception as ex:
                    self.on_assert(name, None, env, err=str(ex))
                    return
                self.on_assert(name, a, env)
                return
            if self.on_stmt:
                self.on_stmt(name, inner, env, self)
            return
        # expression statement
        try:
            P(s, env, self.funcs, self.enum_ctor).expr()
        except Exception:
            pass
        if self.on_stmt:
            self.on_stmt(None, s, env, self)


def dump_jsonl(path, cases):
    with open(path, "w") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- generic driver
def call_of(v):
    """The Call a value derives from (directly, parsed, unwrapped), or None."""
    if isinstance(v, Call):
        return v
    if isinstance(v, Parsed):
        return call_of(v.inner)
    if isinstance(v, Method) and v.name in ("unwrap_or", "ok", "as_deref", "expect_err"):
        return None
    return None


def refs_call(v, depth=0):
    if depth > 6:
        return None
    if isinstance(v, Call):
        return v
    if isinstance(v, (Parsed,)):
        return refs_call(v.inner, depth + 1)
    if isinstance(v, (Index, FieldOf)):
        return refs_call(v.base, depth + 1)
    if isinstance(v, Method):
        return refs_call(v.base, depth + 1) or next((c for c in (refs_call(a, depth + 1) for a in v.args) if c), None)
    if isinstance(v, Opaque) and isinstance(v.what, tuple):
        for x in v.what[1:]:
            c = refs_call(x, depth + 1)
            if c:
                return c
    if isinstance(v, Enum):
        for x in v.args:
            c = refs_call(x, depth + 1)
            if c:
                return c
    return None


def collect(files, funcs, make_case, pkg, enum_ctor=None, on_stmt=None, test_filter=None):
    """Walk every #[test] in files. make_case(call, expected, parsed_flag) returns
    (case_dict | None, skip_reason | None). Returns (cases, skips Counter, stats)."""
    from collections import Counter, OrderedDict
    cases, skips = [], Counter()
    for fpath, label in files:
        src = open(fpath).read()
        for name, body, attrs in find_tests(src):
            if any(a.startswith("ignore") for a in attrs):
                skips["test marked #[ignore]"] += 1
                continue
            if test_filter and not test_filter(label, name):
                continue
            CALLS.clear()
            outcome = OrderedDict()  # id(call) -> (call, list of (kind, expected))

            def note(c, kind, exp=None):
                outcome.setdefault(id(c), (c, []))[1].append((kind, exp))

            def on_assert(mname, a, env, err=None):
                if a is None:
                    return
                if mname in ("assert_eq", "debug_assert_eq") and len(a) >= 2:
                    l, r = a[0], a[1]
                    for x, y in ((l, r), (r, l)):
                        c = call_of(x)
                        if c is not None and not isinstance(y, (Call, Parsed)) and call_of(y) is None:
                            parsed = isinstance(x, Parsed)
                            note(c, "eq", (y, parsed))
                            return
                    for x, y in ((l, r), (r, l)):
                        if isinstance(x, FieldOf) and plain(y):
                            c, path = x.chain()
                            if c is not None:
                                note(c, "field", (path, y))
                                return
                    c = refs_call(l) or refs_call(r)
                    if c is not None:
                        note(c, "partial")
                    return
                if mname in ("assert", "debug_assert") and a:
                    v = a[0]
                    if isinstance(v, Opaque) and isinstance(v.what, tuple) and v.what[0] in ("is_err", "is_none"):
                        c = refs_call(v.what[1])
                        if c is not None:
                            note(c, "error")
                            return
                    if isinstance(v, Opaque) and isinstance(v.what, tuple) and v.what[0] == "eq":
                        on_assert("assert_eq", [v.what[1], v.what[2]], env)
                        return
                    c = refs_call(v)
                    if c is not None:
                        note(c, "partial")
                    return
                if mname.startswith("assert_ne"):
                    c = refs_call(a[0]) or (refs_call(a[1]) if len(a) > 1 else None)
                    if c is not None:
                        note(c, "partial")
                    return
                if mname.startswith("assert_matches") or mname.startswith("assert"):
                    c = next((refs_call(x) for x in a if refs_call(x)), None)
                    if c is not None:
                        note(c, "partial")

            ctx = Ctx(funcs, on_assert, enum_ctor, on_stmt)
            try:
                ctx.run(body, {})
            except Exception as e:
                skips["test body not understood: " + type(e).__name__] += 1
                continue
            for c, outs in outcome.values():
                eqs = [o for o in outs if o[0] == "eq"]
                src_label = f"{label}::{name}"
                if eqs:
                    exp, parsed = eqs[0][1]
                    case, why = make_case(c, exp, parsed)
                    if case is not None:
                        case["source"] = src_label
                        cases.append(case)
                    else:
                        skips[why] += 1
                        SKIPLOG.append((why, f"{label}::{name}"))
                elif FIELDS_OK and any(o[0] == "field" for o in outs) and all(o[0] == "field" for o in outs):
                    case, why = make_case(c, ("fields", [o[1] for o in outs]), False)
                    if case is not None:
                        case["source"] = f"{label}::{name}"
                        cases.append(case)
                    else:
                        skips[why] += 1
                        SKIPLOG.append((why, f"{label}::{name}"))
                elif any(o[0] == "error" for o in outs):
                    skips["expects an error / no value"] += 1
                    SKIPLOG.append(("error", f"{label}::{name}"))
                else:
                    skips["asserts only part of the result (fields, contains, is_ok, ...)"] += 1
                    SKIPLOG.append(("partial", f"{label}::{name}"))
    return cases, skips


def finish(pkg, cases, skips):
    """Deduplicate by (input, schema) (first kept; conflicting expectations dropped), number ids."""
    from collections import OrderedDict
    by = OrderedDict()
    for c in cases:
        k = (c["input"], json.dumps(c.get("schema"), sort_keys=True))
        by.setdefault(k, []).append(c)
    out = []
    for inp, cs in by.items():
        exps = {json.dumps(c["expected"], sort_keys=True) + "|" + json.dumps(c.get("schema"), sort_keys=True) for c in cs}
        if len(exps) > 1:
            skips["same input, conflicting expected values/schemas (all dropped)"] += len(cs)
            continue
        skips["duplicate input"] += len(cs) - 1
        out.append(cs[0])
    res = []
    for n, c in enumerate(out, 1):
        d = {"id": f"{pkg}-{n:04d}", "source": c["source"], "input": c["input"], "expected": c["expected"]}
        if c.get("schema") is not None:
            d["schema"] = c["schema"]
        res.append(d)
    if not skips["duplicate input"]:
        del skips["duplicate input"]
    return res, skips


def json_text(x):
    """Parse expected repaired text as JSON (strict, then allowing control chars)."""
    try:
        return True, json.loads(x)
    except Exception:
        try:
            return True, json.loads(x, strict=False)
        except Exception:
            return False, None


def is_default_opts(o, local_default_fns=()):
    if isinstance(o, Enum):
        return o.path.endswith("::default") or o.path in local_default_fns
    if isinstance(o, Opaque) and isinstance(o.what, tuple) and o.what[0] == "path":
        return o.what[1] in ("Default::default",)
    return False


def text_repair_package(pkg, here, files, funcs, input_idx=0, nargs=(1,), local_default_fns=(),
                        helpers=None, enum_ctor=None, value_funcs=()):
    """Common driver for repairers whose function returns repaired text (or a value, for
    names in value_funcs). helpers: {fn_name: (input_idx, expected_idx)} for the package's
    assert helpers taking (input, expected_text_or_value)."""
    helpers = helpers or {}

    def make_case(call, exp, parsed):
        if len(call.args) <= input_idx or not isinstance(call.args[input_idx], str):
            return None, "input not a literal"
        if len(call.args) not in nargs:
            return None, "unexpected arguments"
        extra = [a for k, a in enumerate(call.args) if k != input_idx]
        if not all(is_default_opts(a, local_default_fns) for a in extra):
            return None, "non-default options"
        exp, why = expected_value(exp)
        if why:
            return None, why
        if isinstance(exp, str) and not parsed and call.name not in value_funcs:
            ok, v = json_text(exp)
            if not ok:
                return None, "expected text is not JSON"
            exp = v
        return {"input": call.args[input_idx], "expected": exp}, None

    def on_stmt(name, s, env, ctx):
        if name is None and s and s[0][0] == "id" and s[0][1] in helpers:
            try:
                v = P(s, env, ctx.funcs, enum_ctor).expr()
            except Exception:
                return
            if isinstance(v, Enum):
                ii, ei = helpers[s[0][1]]
                if max(ii, ei) < len(v.args):
                    c = Call(s[0][1], [v.args[ii]])
                    ctx.on_assert("assert_eq", [c, v.args[ei]], env)
    allf = dict(funcs)
    cases, skips = collect(files, allf, make_case, pkg, enum_ctor=enum_ctor, on_stmt=on_stmt)
    cases, skips = finish(pkg, cases, skips)
    dump_jsonl(f"{here}/{pkg}.jsonl", cases)
    print(pkg, len(cases), "cases; skipped:", dict(skips))
    return cases, skips
