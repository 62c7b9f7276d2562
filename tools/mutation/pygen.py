"""Mutants generated from the Python module's own Python (python/warmup/*.py), as generate.py
makes them from C++: the places come from Python's own parser (ast), each an expression that a
conditional expression can switch, or a simple statement alone on its lines.

  compare         a comparison's operator swapped or its boundary moved (< to <= or >=, == to !=,
                  in to not in, is to is not)
  arithmetic      + and -, * and /, // to *, % to *, ** to *
  logic           and to or, or to and; not x to x
  constant        an integer plus one, 1 to 0, a float doubled (0.0 to 1.0), True and False
  keyword         a call's keyword argument dropped (a wrapper that does not pass it on)
  arguments       a call's neighbouring plain arguments swapped
  condition       an if's or while's condition negated, forced true, forced false
  statement       an expression statement or assignment removed; a returned value made None

Each region is written, on the lines it occupies, as
  (M7 if _wm_on(7) else M9 if _wm_on(9) else (original))
and a statement as `if not _wm_on(7): statement`, so the file keeps its line numbers below the
two lines that define `_wm_on` (inserted after the docstring). They import `_warmup_mutation`
(SWITCH_MODULE below), which the mutation build writes beside the package; where it is not
found (the package copied elsewhere), no mutant is active.
"""
import ast
import os
import re

from generate import assign_keys

COMPARE = {ast.Lt: ("<", [("lt_to_le", "<="), ("lt_to_ge", ">=")]),
           ast.LtE: ("<=", [("le_to_lt", "<"), ("le_to_gt", ">")]),
           ast.Gt: (">", [("gt_to_ge", ">="), ("gt_to_le", "<=")]),
           ast.GtE: (">=", [("ge_to_gt", ">"), ("ge_to_lt", "<")]),
           ast.Eq: ("==", [("eq_to_ne", "!=")]),
           ast.NotEq: ("!=", [("ne_to_eq", "==")]),
           ast.In: ("in", [("in_to_not_in", "not in")]),
           ast.NotIn: ("not in", [("not_in_to_in", "in")]),
           ast.Is: ("is", [("is_to_is_not", "is not")]),
           ast.IsNot: ("is not", [("is_not_to_is", "is")])}
ARITHMETIC = {ast.Add: ("+", [("add_to_sub", "-")]), ast.Sub: ("-", [("sub_to_add", "+")]),
              ast.Mult: ("*", [("mul_to_div", "/")]), ast.Div: ("/", [("div_to_mul", "*")]),
              ast.FloorDiv: ("//", [("floordiv_to_mul", "*")]), ast.Mod: ("%", [("mod_to_mul", "*")]),
              ast.Pow: ("**", [("pow_to_mul", "*")])}
SWITCH_LINES = ("try: from _warmup_mutation import on as _wm_on\n"
                "except ImportError: _wm_on = lambda i: False\n")


class Region:
    """A mutated span of a Python file, in character offsets, as generate.Region has them."""
    __slots__ = ("kind", "start", "end", "stmt_end", "first_line", "last_line")

    def __init__(self, kind, start, end, first_line, last_line):
        self.kind, self.start, self.end = kind, start, end
        self.stmt_end = end
        self.first_line, self.last_line = first_line, last_line


class _Source:
    """Offsets of a text from ast's (line, UTF-8 byte column) positions."""

    def __init__(self, text):
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0]
        for ln in self.lines:
            self.starts.append(self.starts[-1] + len(ln) + 1)

    def offset(self, line, byte_col):
        return self.starts[line - 1] + len(self.lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def span(self, node):
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def seg(self, node):
        a, b = self.span(node)
        return self.text[a:b]


def _is_expression(text):
    try:
        compile("(" + text + ")", "<mutant>", "eval")
        return True
    except SyntaxError:
        return False


def _skipped_spans(tree, src):
    """Where no mutant goes: f-strings (ast's positions inside them are not exact before 3.12),
    annotations, docstrings."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            spans.append(src.span(node))
        for field in ("annotation", "returns"):
            a = getattr(node, field, None)
            if isinstance(a, ast.AST):
                spans.append(src.span(a))
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                spans.append(src.span(first))
    return spans


def _replace_in_gap(text, a, b, symbol, new):
    """`text` with the operator `symbol` between offsets a and b (the gap between two operands,
    which may hold brackets and comments) replaced by `new`; None where it is not found once."""
    gap = text[a:b]
    word = r"\s+".join(re.escape(w) for w in symbol.split(" "))
    pat = rf"(?<![\w<>=!*/]){word}(?![\w<>=*/])" if not symbol[0].isalpha() else rf"\b{word}\b"
    found = list(re.finditer(pat, gap))
    if len(found) != 1:
        return None
    m = found[0]
    return text[:a + m.start()] + new + text[a + m.end():]


def candidates_in(path, text):
    """Every candidate mutant of one Python file: dicts as generate.candidates_in makes them."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    src = _Source(text)
    skip = _skipped_spans(tree, src)
    out = []

    def skipped(a, b):
        return any(s <= a and b <= e for s, e in skip)

    def add(op, node, kind, region_text_new, at_node=None):
        a, b = src.span(node)
        at = at_node or node
        if kind == "stmt":
            out.append({"header": path, "operator": op, "region": Region("stmt", a, b, node.lineno, node.end_lineno),
                        "mutated": "", "line": at.lineno, "col": at.col_offset + 1,
                        "line_text": src.lines[at.lineno - 1].strip()})
            return
        if region_text_new is None or not _is_expression(region_text_new):
            return
        out.append({"header": path, "operator": op, "region": Region(kind, a, b, node.lineno, node.end_lineno),
                    "mutated": region_text_new, "line": at.lineno, "col": at.col_offset + 1,
                    "line_text": src.lines[at.lineno - 1].strip()})

    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or isinstance(node, (ast.arg, ast.keyword, ast.alias)):
            continue
        a, b = src.span(node)
        if skipped(a, b):
            continue
        seg = text[a:b]
        if isinstance(node, ast.Compare):
            prev = node.left
            for op, right in zip(node.ops, node.comparators):
                symbol, swaps = COMPARE[type(op)]
                ga, gb = src.span(prev)[1] - a, src.span(right)[0] - a
                for name, new in swaps:
                    add(name, node, "expr", _replace_in_gap(seg, ga, gb, symbol, new))
                prev = right
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            symbol, swaps = ARITHMETIC[type(node.op)]
            ga, gb = src.span(node.left)[1] - a, src.span(node.right)[0] - a
            for name, new in swaps:
                add(name, node, "expr", _replace_in_gap(seg, ga, gb, symbol, new))
        elif isinstance(node, ast.BoolOp):
            symbol, new, name = ("and", "or", "and_to_or") if isinstance(node.op, ast.And) else ("or", "and", "or_to_and")
            for left, right in zip(node.values, node.values[1:]):
                ga, gb = src.span(left)[1] - a, src.span(right)[0] - a
                add(name, node, "expr", _replace_in_gap(seg, ga, gb, symbol, new), right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add("remove_negation", node, "expr", "(" + src.seg(node.operand) + ")")
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                add("true_to_false" if v else "false_to_true", node, "expr", "False" if v else "True")
            elif isinstance(v, int):
                add("int_plus_one", node, "expr", str(v + 1))
                if v == 1:
                    add("int_one_to_zero", node, "expr", "0")
            elif isinstance(v, float):
                add("float_changed", node, "expr", repr(1.0 if v == 0 else v * 2))
        elif isinstance(node, ast.Call):
            func = src.seg(node.func)
            parts = [("a", src.seg(x), x) for x in node.args] + \
                    [("k", ("**" if k.arg is None else k.arg + "=") + src.seg(k.value), k) for k in node.keywords]
            if any(isinstance(x, ast.Starred) for x in node.args) and node.keywords:
                continue  # *args before keywords: rebuilt in order below, which keeps it simple
            for i, (kind, _, k) in enumerate(parts):
                if kind == "k" and k.arg is not None:
                    rest = [p[1] for j, p in enumerate(parts) if j != i]
                    add("drop_keyword", node, "expr", f"{func}({', '.join(rest)})", k.value)
            plain = (ast.Name, ast.Constant, ast.Attribute)
            for i in range(len(node.args) - 1):
                x, y = node.args[i], node.args[i + 1]
                if isinstance(x, plain) and isinstance(y, plain) and src.seg(x) != src.seg(y):
                    texts = [p[1] for p in parts]
                    texts[i], texts[i + 1] = texts[i + 1], texts[i]
                    add("swap_arguments", node, "expr", f"{func}({', '.join(texts)})", x)
        if isinstance(node, (ast.If, ast.While)):
            t = src.seg(node.test)
            add("negate_condition", node.test, "cond", f"not ({t})", node)
            add("condition_true", node.test, "cond", "True", node)
            add("condition_false", node.test, "cond", "False", node)
        elif isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                add("return_default", node.value, "return", "None", node)
        elif isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign)) or \
                (isinstance(node, ast.AnnAssign) and node.value is not None):
            if isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.Yield, ast.YieldFrom, ast.Await)):
                continue  # a bare constant does nothing; a yield's or await's removal changes the function's kind
            line = src.lines[node.lineno - 1]
            after = src.lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset:].decode("utf-8", "replace")
            alone = line[:len(line) - len(line.lstrip())] == line.encode("utf-8")[:node.col_offset].decode("utf-8", "replace")
            if alone and (not after.strip() or after.strip().startswith("#")):
                add("remove_statement", node, "stmt", None)
    return assign_keys(out)


def planted_region(text, old, new):
    """A planted change of `old` (which occurs once) to `new` as a region and its mutated text:
    the smallest expression that holds the change, where the changed expression is one; else
    None (the change is planted as text)."""
    off = text.index(old)
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[len(old) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    a, b = off + p, off + len(old) - q
    src = _Source(text)
    best = None
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.expr) and not isinstance(node, ast.JoinedStr):
            s, e = src.span(node)
            if s <= a and b <= e and (best is None or e - s < best[1] - best[0]):
                best = (s, e, node)
    if best is None:
        return None
    s, e, node = best
    mutated = text[s:a] + new[p:len(new) - q] + text[b:e]
    if not _is_expression(mutated):
        return None
    return Region("expr", s, e, node.lineno, node.end_lineno), mutated


def insertion_point(text):
    """The offset where the switch's two lines go: before the module's first statement that is
    not its docstring or a `from __future__` import."""
    tree = ast.parse(text)
    src = _Source(text)
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        return src.offset(node.lineno, 0)
    return len(text)


def call(mid):
    return f"_wm_on({mid})"


def apply(text, mutants):
    """`text` with `mutants` switched in (regions disjoint: run.resolve_overlaps made them so),
    and the switch's definition; (text, dropped) as schema.apply returns them."""
    if not mutants:
        return text, []
    by_region = {}
    for m in mutants:  # a statement and its expression share a span: one region, both switched
        r = m["region"]
        by_region.setdefault((r.start, r.end), []).append(m)
    spans = sorted(by_region, key=lambda s: (s[0], -s[1]))
    kept, dropped, last_end = [], [], -1
    for s in spans:
        if s[0] < last_end:
            dropped.extend(by_region[s])
            continue
        kept.append(s)
        last_end = s[1]
    insert_at = insertion_point(text)
    out, at, inserted = [], 0, False
    for start, end in kept:
        ms = by_region[(start, end)]
        new = text[start:end]
        if not inserted and insert_at <= start:
            out.append(text[at:insert_at] + SWITCH_LINES)
            at, inserted = insert_at, True
        out.append(text[at:start])
        exprs = [m for m in ms if m["region"].kind != "stmt"]
        stmts = [m for m in ms if m["region"].kind == "stmt"]
        if exprs:
            new = "(" + "".join(f"({m['mutated']}) if {call(m['id'])} else " for m in exprs) + "(" + new + "))"
        if stmts:
            new = "if not (" + " or ".join(call(m["id"]) for m in stmts) + "): " + new
        out.append(new)
        at = end
    if not inserted:
        out.append(text[at:insert_at] + SWITCH_LINES)
        at = insert_at
    out.append(text[at:])
    return "".join(out), dropped


SWITCH_MODULE = '''"""Generated by tools/mutation: which mutant is active in this process (WARMUPTEST_MUTANT, else
the build's file), and which mutants' regions it reaches (WARMUPTEST_REACH), as the C++ switch."""
import os

_active = None
_seen = set()


def _read_active():
    v = os.environ.get("WARMUPTEST_MUTANT")
    if v is None:
        try:
            with open("@ACTIVE@") as f:
                v = f.read()
        except OSError:
            v = "-1"
    try:
        return int(v.strip() or "-1")
    except ValueError:
        return -1


def on(i):
    global _active
    folder = os.environ.get("WARMUPTEST_REACH")
    if folder and i not in _seen:
        _seen.add(i)
        try:
            fd = os.open(os.path.join(folder, str(os.getpid())), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, b"%d\\n" % i)
            finally:
                os.close(fd)
        except OSError:
            pass
    if _active is None:
        _active = _read_active()
    return _active == i
'''


def write_switch_module(path, active_file):
    text = SWITCH_MODULE.replace("@ACTIVE@", active_file)
    if os.path.exists(path) and open(path).read() == text:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

