"""Shared helper for the Python-package *_extract.py scripts: reads pytest files with `ast`,
evaluates only literal data (module/class constants, local literal assignments, parametrize
lists, for-loops over literal lists), keeps calls of the package's functions as PCall objects,
and turns `assert X == LITERAL` on their results into cases. Nothing from the packages is imported
or executed."""
import ast
import json
from collections import Counter, OrderedDict

from _rustlit import plain

OPAQUE = object()


class PCall:
    def __init__(self, name, args, kw):
        self.name, self.args, self.kw = name, args, kw


class Attr:  # attribute path on a call result: result.text / result.data
    def __init__(self, call, path):
        self.call, self.path = call, path


class Parsed:  # json.loads(<call or attr>)
    def __init__(self, inner):
        self.inner = inner


class Sub:  # subscript of a call-derived value (partial check)
    def __init__(self, base):
        self.base = base


def root_call(v):
    if isinstance(v, PCall):
        return v
    if isinstance(v, Attr):
        return v.call
    if isinstance(v, Parsed):
        return root_call(v.inner)
    if isinstance(v, Sub):
        return root_call(v.base)
    return None


class Walker:
    def __init__(self, targets, method_targets=()):
        self.targets = set(targets)            # bare function names (or attr names)
        self.method_targets = set(method_targets)
        self.outcome = OrderedDict()

    def note(self, c, kind, data=None):
        self.outcome.setdefault(id(c), (c, []))[1].append((kind, data))

    # ---------------- expressions
    def ev(self, n, env):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
            vs = [self.ev(x, env) for x in n.elts]
            return vs if isinstance(n, ast.List) else tuple(vs) if isinstance(n, ast.Tuple) else OPAQUE
        if isinstance(n, ast.Dict):
            if any(k is None for k in n.keys):
                return OPAQUE
            d = {}
            for k, v in zip(n.keys, n.values):
                kk = self.ev(k, env)
                if not isinstance(kk, str):
                    return OPAQUE
                d[kk] = self.ev(v, env)
            return d
        if isinstance(n, ast.Name):
            return env.get(n.id, OPAQUE)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            v = self.ev(n.operand, env)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else OPAQUE
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            a, b = self.ev(n.left, env), self.ev(n.right, env)
            if isinstance(a, str) and isinstance(b, str):
                return a + b
            return OPAQUE
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            a, b = self.ev(n.left, env), self.ev(n.right, env)
            if isinstance(a, str) and isinstance(b, int):
                return a * b
            return OPAQUE
        if isinstance(n, ast.Call):
            f = n.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "json" and fname == "loads" and len(n.args) == 1:
                a = self.ev(n.args[0], env)
                if isinstance(a, str):
                    try:
                        return json.loads(a)
                    except Exception:
                        return OPAQUE
                if root_call(a) is not None:
                    return Parsed(a)
                return OPAQUE
            if fname in self.targets and (isinstance(f, ast.Name) or isinstance(f, ast.Attribute)):
                c = PCall(fname, [self.ev(a, env) for a in n.args],
                          {k.arg: self.ev(k.value, env) for k in n.keywords if k.arg})
                c.recv = self.ev(f.value, env) if isinstance(f, ast.Attribute) else None
                if any(k.arg is None for k in n.keywords) or any(isinstance(a, ast.Starred) for a in n.args):
                    c.args = [OPAQUE]
                return c
            if isinstance(f, ast.Attribute) and fname in ("strip",) and not n.args:
                v = self.ev(f.value, env)
                return v.strip() if isinstance(v, str) else OPAQUE
            if isinstance(f, ast.Name) and fname == "dict" and not n.args:
                return {k.arg: self.ev(k.value, env) for k in n.keywords}
            return OPAQUE
        if isinstance(n, ast.Attribute):
            v = self.ev(n.value, env)
            if isinstance(v, PCall):
                return Attr(v, [n.attr])
            if isinstance(v, Attr):
                return Attr(v.call, v.path + [n.attr])
            return OPAQUE
        if isinstance(n, ast.Subscript):
            v = self.ev(n.value, env)
            k = self.ev(n.slice, env)
            if isinstance(v, (dict, list)) and isinstance(k, (str, int)) and not isinstance(k, bool):
                try:
                    return v[k]
                except Exception:
                    return OPAQUE
            if root_call(v) is not None:
                return Sub(v)
            return OPAQUE
        return OPAQUE

    # ---------------- statements
    def run(self, body, env, in_raises=False):
        for st in body:
            if isinstance(st, ast.Assign):
                v = self.ev(st.value, env)
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        env[t.id] = v
                    elif isinstance(t, ast.Tuple) and isinstance(v, tuple) and len(v) == len(t.elts):
                        for e, x in zip(t.elts, v):
                            if isinstance(e, ast.Name):
                                env[e.id] = x
                    elif isinstance(t, ast.Tuple):
                        for e in t.elts:
                            if isinstance(e, ast.Name):
                                env[e.id] = OPAQUE
                if in_raises and root_call(v) is not None:
                    self.note(root_call(v), "error")
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                env[st.target.id] = self.ev(st.value, env)
            elif isinstance(st, ast.Expr):
                v = self.ev(st.value, env)
                if in_raises and root_call(v) is not None:
                    self.note(root_call(v), "error")
            elif isinstance(st, ast.Assert):
                self.assert_(st.test, env)
            elif isinstance(st, ast.With):
                raises = any(isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Attribute)
                             and i.context_expr.func.attr == "raises" for i in st.items)
                self.run(st.body, env, in_raises=in_raises or raises)
            elif isinstance(st, ast.For) and isinstance(st.target, (ast.Name, ast.Tuple)):
                it = self.ev(st.iter, env)
                if isinstance(it, (list, tuple)):
                    for item in it:
                        e2 = dict(env)
                        if isinstance(st.target, ast.Name):
                            e2[st.target.id] = item
                        elif isinstance(item, (tuple, list)) and len(item) == len(st.target.elts):
                            for e, x in zip(st.target.elts, item):
                                if isinstance(e, ast.Name):
                                    e2[e.id] = x
                        else:
                            break
                        self.run(st.body, e2, in_raises)
            # if/try/while etc. are not followed

    def assert_(self, t, env):
        if isinstance(t, ast.Compare) and len(t.ops) == 1:
            l, r = self.ev(t.left, env), self.ev(t.comparators[0], env)
            op = t.ops[0]
            if isinstance(op, ast.Eq):
                for x, y in ((l, r), (r, l)):
                    if isinstance(x, (PCall, Attr, Parsed)) and root_call(y) is None:
                        self.note(root_call(x), "eq", (x, y))
                        return
            if isinstance(op, ast.Is) and r in (True, False) and type(r) is bool and isinstance(l, (PCall, Attr, Parsed)):
                self.note(root_call(l), "eq", (l, r))
                return
            if isinstance(op, ast.Is) and r is None and isinstance(l, (PCall, Attr, Parsed)):
                self.note(root_call(l), "isnone", l)
                return
            c = root_call(l) or root_call(r)
            if c is not None:
                self.note(c, "partial")
            return
        # any other assert mentioning a call
        for sub in ast.walk(t):
            if isinstance(sub, ast.expr):
                try:
                    v = self.ev(sub, env)
                except Exception:
                    continue
                c = root_call(v)
                if c is not None:
                    self.note(c, "partial")
                    return


def module_env(tree):
    env = {}
    w = Walker(())
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            env[st.targets[0].id] = w.ev(st.value, env)
    return env


def parametrize_rows(fn, env):
    """List of env-dicts from @pytest.mark.parametrize decorators (None when not literal)."""
    rows = [{}]
    w = Walker(())
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "parametrize":
            names = w.ev(d.args[0], env)
            vals = w.ev(d.args[1], env)
            if isinstance(names, str):
                names = [x.strip() for x in names.split(",") if x.strip()]
            elif isinstance(names, (list, tuple)):
                names = list(names)
            else:
                return None
            if not isinstance(vals, (list, tuple)):
                return None
            new = []
            for r in rows:
                for v in vals:
                    if len(names) == 1:
                        v = (v,)
                    if not isinstance(v, (list, tuple)) or len(v) != len(names):
                        return None
                    new.append(dict(r, **dict(zip(names, v))))
            rows = new
    return rows


def extract(files, targets, make_case, skip_tests=()):
    cases, skips = [], Counter()
    for fe in files:
        path, label = fe[0], fe[1]
        tree = ast.parse(open(path).read())
        menv = module_env(tree)
        if len(fe) > 2:
            menv.update(fe[2])  # fixtures, given by the package script
        fns = []
        for st in tree.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name.startswith("test"):
                fns.append((st.name, st, menv))
            elif isinstance(st, ast.ClassDef):
                cenv = dict(menv)
                cenv.update({k: v for k, v in module_env(ast.Module(body=st.body, type_ignores=[])).items()})
                for s2 in st.body:
                    if isinstance(s2, (ast.FunctionDef, ast.AsyncFunctionDef)) and s2.name.startswith("test"):
                        fns.append((f"{st.name}::{s2.name}", s2, cenv))
        for name, fn, env in fns:
            if name in skip_tests:
                continue
            rows = parametrize_rows(fn, env)
            if rows is None:
                skips["parametrize values not literal"] += 1
                continue
            for k, row in enumerate(rows):
                w = Walker(targets)
                e = dict(env)
                e.update(row)
                e["self"] = OPAQUE
                w.run(fn.body, e)
                src = f"{label}::{name}" + (f"[{k}]" if len(rows) > 1 else "")
                for c, outs in w.outcome.values():
                    eqs = [o for o in outs if o[0] == "eq"]
                    done = False
                    for kind, (x, y) in eqs:
                        case, why = make_case(c, x, y)
                        if case is not None:
                            case["source"] = src
                            cases.append(case)
                            done = True
                            break
                    if done:
                        continue
                    if eqs:
                        skips[why] += 1
                    elif any(o[0] in ("error", "isnone") for o in outs):
                        skips["expects an error / no value"] += 1
                    else:
                        skips["asserts only part of the result (fields, len, in, ...)"] += 1
    return cases, skips


def py_repair_package(pkg, here, files, text_funcs=(), value_funcs=(), kw_ok=None, value_kw=None, fixtures=None):
    """Generic driver for Python repairers. text_funcs return repaired JSON text, value_funcs a value.
    kw_ok(kw) -> True when the keyword options keep the default repair semantics.
    value_kw: a keyword that, when True, makes a text function return a value (e.g. return_objects)."""
    import sys as _s
    from _rustlit import finish, dump_jsonl

    def make_case(call, x, y):
        if call.recv is not None and call.recv is not OPAQUE:
            return None, "called on an object"
        if len(call.args) != 1 or not isinstance(call.args[0], str):
            return None, "input not a literal / extra positional arguments"
        kw = dict(call.kw)
        as_value = call.name in value_funcs
        if value_kw and kw.get(value_kw) is True:
            as_value = True
            kw.pop(value_kw)
        if kw and not (kw_ok and kw_ok(kw)):
            return None, "non-default options"
        if not plain(y):
            return None, "expected value not a literal"
        if x is call:
            if as_value:
                return {"input": call.args[0], "expected": y}, None
            if isinstance(y, str):
                try:
                    return {"input": call.args[0], "expected": json.loads(y)}, None
                except Exception:
                    return None, "expected text is not JSON"
            return None, "expected not text"
        if isinstance(x, Parsed) and x.inner is call and not as_value:
            return {"input": call.args[0], "expected": y}, None
        return None, "asserts a field of the result"

    cases, skips = extract(files, set(text_funcs) | set(value_funcs), make_case)
    cases, skips = finish(pkg, cases, skips)
    dump_jsonl(f"{here}/{pkg}.jsonl", cases)
    print(pkg, len(cases), "cases; skipped:", dict(skips))
