"""Mutants generated from the headers: a lexer, the places a mutant may go, the operators.

A candidate is one operator applied at one token (or one region) of a header. Its key is stable
across unrelated edits: the header, the operator, the text of the line it sits on (stripped) and
its occurrence among candidates with that same header, operator and line text. The equivalents
list (tools/mutation/equivalent.txt) is keyed that way.

Mutants are placed only in regions where one can be switched on at run time (a mutant schema,
as Stryker and Mull do: every sampled mutant compiled into one build, one of them active per
run), so that a mutant costs a test run, not a rebuild:
  cond    the condition of `if (...)`, `while (...)`, the middle of `for (;;)`
  return  the value of `return ...;`
  init    the initializer of a declaration, `T x = ...;`
  stmt    an expression statement, `x = ...;`, `f(...);`
"""
import hashlib
import re

PUNCT = sorted("""
>>= <<= <=> ->* ... :: -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= .* ## 
{ } [ ] ( ) ; : , . ? ~ ! + - * / % ^ & | = < > #
""".split(), key=len, reverse=True)

KEYWORDS = {
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
    "consteval", "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private",
    "protected", "public", "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "while", "char8_t", "char16_t", "char32_t", "wchar_t",
}
# A statement that starts with one of these declares something.
DECL_START = {
    "const", "constexpr", "static", "auto", "thread_local", "unsigned", "signed", "int", "long", "short",
    "char", "bool", "double", "float", "void", "using", "typedef", "struct", "class", "enum", "typename",
    "volatile", "register", "union", "template", "static_assert", "friend", "explicit", "inline",
}
CASTS = {"static_cast", "const_cast", "reinterpret_cast", "dynamic_cast"}
UNEVALUATED = {"sizeof", "alignof", "decltype", "noexcept", "alignas", "typeid", "static_assert"}


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "template")

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = kind, text, start, end, line
        self.template = False  # a < or > (or >>) that brackets template arguments

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


_ID = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_NUM = re.compile(r"(?:0[xX][0-9a-fA-F']+|0[bB][01']+|(?:\d[\d']*\.?[\d']*|\.\d[\d']*)(?:[eEpP][+-]?\d+)?)[uUlLfF]*")


def past_comment(text, i, line):
    """(the offset past the /* comment at i, the line there)."""
    j = text.find("*/", i + 2)
    j = len(text) if j < 0 else j + 2
    return j, line + text.count("\n", i, j)


def lex(text):
    """Tokens of C++ source, with comments, whitespace and preprocessor lines left out."""
    toks, i, n, line, at_line_start = [], 0, len(text), 1, True
    while i < n:
        c = text[i]
        if c == "\n":
            line, i, at_line_start = line + 1, i + 1, True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line, i = line + 1, i + 2
                    continue
                if text.startswith("/*", i):
                    i, line = past_comment(text, i, line)
                    continue
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            i, line = past_comment(text, i, line)
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(', text[i:i + 40])
        if m:  # a raw string
            close = ")" + m.group(1) + '"'
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            toks.append(Tok("str", text[i:j], i, j, line))
            line += text.count("\n", i, j)
            i = j
            continue
        m = re.match(r"(?:u8|u|U|L)?(['\"])", text[i:i + 3])
        if m and (m.end() == 1 or not _ID.match(text[i - 1:i] or " ")):
            q, j = m.group(1), i + m.end()
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            j += 1
            toks.append(Tok("str" if q == '"' else "chr", text[i:j], i, j, line))
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            m = _NUM.match(text, i)
            toks.append(Tok("num", m.group(0), i, m.end(), line))
            i = m.end()
            continue
        m = _ID.match(text, i)
        if m:
            toks.append(Tok("id", m.group(0), i, m.end(), line))
            i = m.end()
            continue
        for p in PUNCT:
            if text.startswith(p, i):
                toks.append(Tok("p", p, i, i + len(p), line))
                i += len(p)
                break
        else:
            toks.append(Tok("p", c, i, i + 1, line))
            i += 1
    mark_templates(toks)
    return toks


OPEN, CLOSE = {"(": ")", "[": "]", "{": "}"}, {")": "(", "]": "[", "}": "{"}


def mark_templates(toks):
    """Marks the < and > that bracket template arguments (a heuristic: a < after a name whose
    matching > comes before any token that cannot be inside a template argument list)."""
    stop = {";", "{", "}", "&&", "||", "?", "return", "=", "+=", "-=", "|=", "&=", "==", "!="}
    for k, t in enumerate(toks):
        if t.text != "<" or k == 0:
            continue
        prev = toks[k - 1]
        if not (prev.kind == "id" and (prev.text not in KEYWORDS or prev.text in CASTS or prev.text == "template")
                or prev.text == "operator"):
            continue
        depth, angle, j = 0, 1, k + 1
        closers = []
        while j < len(toks):
            u = toks[j]
            if u.text in OPEN:
                depth += 1
            elif u.text in CLOSE:
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and u.text in stop:
                break
            elif depth == 0 and u.text == "<":
                angle += 1
                closers.append(("open", j))
            elif depth == 0 and u.text in (">", ">>"):
                need = 1 if u.text == ">" else 2
                angle -= need
                closers.append(("close", j))
                if angle <= 0:
                    after = toks[j + 1].text if j + 1 < len(toks) else ";"
                    if after in ("(", ")", "::", "{", ",", ";", ">", "&", "*", "&&", "...", "[", "]", "=", ":") or \
                            toks[j + 1].kind == "id":
                        t.template = True
                        for what, idx in closers:
                            toks[idx].template = True
                    break
            j += 1


def matching(toks, k):
    """Index of the bracket that closes toks[k] (one of ( [ {)."""
    depth = 0
    for j in range(k, len(toks)):
        if toks[j].text in OPEN:
            depth += 1
        elif toks[j].text in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


class Region:
    __slots__ = ("kind", "first", "last", "start", "end", "stmt_end", "first_line", "last_line")

    def __init__(self, kind, first, last, toks, stmt_end=None):
        self.kind, self.first, self.last = kind, first, last  # token indexes, inclusive
        self.start, self.end = toks[first].start, toks[last].end
        self.first_line, self.last_line = toks[first].line, toks[last].line
        self.stmt_end = stmt_end  # for stmt: the offset just past its ';'


def is_declaration(toks, a, b):
    """Whether the statement toks[a..b) declares something (a heuristic on its first tokens)."""
    t = toks[a]
    if t.text in DECL_START:
        return True
    if t.kind != "id" or t.text in KEYWORDS:
        return False
    j = a
    # Name(::Name)*(<...>)?
    while j < b and toks[j].kind == "id":
        j += 1
        if j < b and toks[j].text == "<" and toks[j].template:
            depth = 0
            while j < b:
                if toks[j].text == "<" and toks[j].template:
                    depth += 1
                elif toks[j].text in (">", ">>") and toks[j].template:
                    depth -= 1 if toks[j].text == ">" else 2
                    if depth <= 0:
                        j += 1
                        break
                j += 1
        if j < b and toks[j].text == "::":
            j += 1
            continue
        break
    while j < b and toks[j].text in ("&", "*", "&&", "const"):
        j += 1
    return j < b and toks[j].kind == "id" and toks[j].text not in KEYWORDS and j > a


def find_regions(toks):
    """The regions of every function body in the header."""
    regions = []
    n = len(toks)

    def body_opens(k):
        """Whether the { at k opens a block of code (a function's body, a lambda's)."""
        j = k - 1
        while j >= 0 and toks[j].text in ("const", "noexcept", "override", "final", "mutable"):
            j -= 1
        if j >= 0 and toks[j].text == ")":
            # noexcept(...) or a function's parameters; not a control statement's (those are statements)
            return True
        if j >= 0 and toks[j].text == "]":
            return True  # [&] { ... }
        # a trailing return type: ) -> T {
        m = j
        while m >= 0 and toks[m].text not in (";", "{", "}", ")"):
            if toks[m].text == "->":
                return True
            m -= 1
        return False

    def statements(a, b, in_loop, constexpr_fn):
        """Parses statements in toks[a..b)."""
        k = a
        while k < b:
            k = statement(k, b, in_loop, constexpr_fn)

    def statement(k, b, in_loop, cfn):
        t = toks[k]
        if t.text == "{":
            e = matching(toks, k)
            statements(k + 1, e, in_loop, cfn)
            return e + 1
        if t.text == ";":
            return k + 1
        if t.text in ("case",):
            j = k
            while j < b and toks[j].text != ":":
                j += 1
            return j + 1
        if t.text == "default" and k + 1 < b and toks[k + 1].text == ":":
            return k + 2
        if t.text in ("if", "while", "switch"):
            j = k + 1
            constexpr = j < b and toks[j].text == "constexpr"
            if constexpr:
                j += 1
            if toks[j].text != "(":
                return k + 1
            e = matching(toks, j)
            inner = toks[j + 1:e]
            depth0 = [u.text for u in top_level(toks, j + 1, e)]
            if (not constexpr and not cfn and t.text != "switch" and e > j + 1 and ";" not in depth0
                    and "=" not in depth0):
                regions.append(Region("cond_if" if t.text == "if" else "cond", j + 1, e - 1, toks))
            nxt = statement(e + 1, b, in_loop or t.text == "while", cfn)
            if t.text == "if" and nxt < b and toks[nxt].text == "else":
                nxt = statement(nxt + 1, b, in_loop, cfn)
            return nxt
        if t.text == "for":
            j = k + 1
            e = matching(toks, j)
            semis = [q for q in range(j + 1, e) if toks[q].text == ";" and depth_between(toks, j + 1, q) == 0]
            if len(semis) == 2 and semis[1] > semis[0] + 1 and not cfn:
                regions.append(Region("cond", semis[0] + 1, semis[1] - 1, toks))
            if len(semis) == 2 and not cfn:  # for (T i = start; ...): the start
                top = list(top_level(toks, j + 1, semis[0]))
                eqs = [u for u in top if u.text == "="]
                if len(eqs) == 1 and not any(u.text == "," for u in top) and is_declaration(toks, j + 1, semis[0]):
                    q = toks.index(eqs[0], j + 1, semis[0])
                    if q + 1 < semis[0] and toks[q + 1].text not in ("{", "["):
                        regions.append(Region("init", q + 1, semis[0] - 1, toks))
            return statement(e + 1, b, True, cfn)
        if t.text == "do":
            nxt = statement(k + 1, b, True, cfn)
            # while (...);
            if nxt < b and toks[nxt].text == "while":
                e = matching(toks, nxt + 1)
                return e + 2
            return nxt
        if t.text == "try":
            nxt = statement(k + 1, b, in_loop, cfn)
            while nxt < b and toks[nxt].text == "catch":
                e = matching(toks, nxt + 1)
                nxt = statement(e + 1, b, in_loop, cfn)
            return nxt
        if t.text == "else":
            return statement(k + 1, b, in_loop, cfn)
        if t.text in ("break", "continue", "goto", "throw", "co_return", "static_assert", "using", "typedef",
                      "struct", "class", "enum", "union", "template", "asm"):
            return end_of_statement(k, b) + 1
        # a statement up to its ; at depth 0
        e = end_of_statement(k, b)
        if e >= b or toks[e].text != ";":
            return e + 1
        if cfn:
            return e + 1
        if t.text == "return":
            if e > k + 1 and toks[k + 1].text != "{":
                regions.append(Region("return", k + 1, e - 1, toks))
            return e + 1
        if is_declaration(toks, k, e):
            if any(u.text == "constexpr" for u in toks[k:e]) or any(u.text == "static" for u in toks[k:e]):
                return e + 1
            top = list(top_level(toks, k, e))
            eqs = [u for u in top if u.text == "="]
            if len(eqs) == 1 and not any(u.text == "," for u in top):
                q = toks.index(eqs[0], k, e)
                if q + 1 < e and toks[q + 1].text == "[":  # a lambda: its body's statements
                    o = next((z for z in range(q + 1, e) if toks[z].text == "{"), None)
                    if o is not None:
                        statements(o + 1, matching(toks, o), False, cfn)
                elif q + 1 < e and toks[q + 1].text != "{":
                    regions.append(Region("init", q + 1, e - 1, toks))
            return e + 1
        if e > k:
            r = Region("stmt", k, e - 1, toks, stmt_end=toks[e].end)
            regions.append(r)
        return e + 1

    def end_of_statement(k, b):
        depth = 0
        j = k
        while j < b:
            x = toks[j].text
            if x in OPEN:
                depth += 1
            elif x in CLOSE:
                depth -= 1
                if depth < 0:
                    return j
            elif x == ";" and depth == 0:
                return j
            j += 1
        return j

    # Find the outermost function bodies (at namespace or class scope) and parse each.
    stack = []  # kinds of open braces: 'code' or 'scope'
    k = 0
    while k < n:
        x = toks[k].text
        if x == "{":
            if body_opens(k):
                e = matching(toks, k)
                cfn = is_constexpr_function(toks, k)
                statements(k + 1, e, False, cfn)
                k = e + 1
                continue
            stack.append(k)
        elif x == "}":
            if stack:
                stack.pop()
        k += 1
    return regions


def is_constexpr_function(toks, brace):
    """Whether the function whose body opens at `brace` is constexpr (it may run at compile time,
    where a mutant's switch cannot)."""
    j = brace - 1
    depth = 0
    while j >= 0:
        x = toks[j].text
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            depth -= 1
        elif depth == 0 and x in (";", "{", "}"):
            break
        if depth == 0 and x in ("constexpr", "consteval"):
            return True
        j -= 1
    return False


def depth_between(toks, a, q):
    depth = 0
    for j in range(a, q):
        if toks[j].text in OPEN:
            depth += 1
        elif toks[j].text in CLOSE:
            depth -= 1
    return depth


def top_level(toks, a, b):
    depth = 0
    for j in range(a, b):
        x = toks[j].text
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            depth -= 1
        elif depth == 0:
            yield toks[j]


# --- operators -------------------------------------------------------------------------------
# name: what it does. Named after Mull's operators where one matches (cxx_lt_to_le, ...).
OPERATORS = {
    "lt_to_le": "< to <= (boundary)", "le_to_lt": "<= to < (boundary)",
    "gt_to_ge": "> to >= (boundary)", "ge_to_gt": ">= to > (boundary)",
    "lt_to_ge": "< to >= (negated)", "le_to_gt": "<= to > (negated)",
    "gt_to_le": "> to <= (negated)", "ge_to_lt": ">= to < (negated)",
    "eq_to_ne": "== to !=", "ne_to_eq": "!= to ==",
    "add_to_sub": "+ to -", "sub_to_add": "- to +", "mul_to_div": "* to /", "div_to_mul": "/ to *",
    "rem_to_div": "% to /",
    "add_assign_to_sub_assign": "+= to -=", "sub_assign_to_add_assign": "-= to +=",
    "mul_assign_to_div_assign": "*= to /=", "div_assign_to_mul_assign": "/= to *=",
    "and_to_or": "&& to ||", "or_to_and": "|| to &&",
    "bitand_to_bitor": "& to |", "bitor_to_bitand": "| to &", "xor_to_bitor": "^ to |",
    "lshift_to_rshift": "<< to >>", "rshift_to_lshift": ">> to <<",
    "remove_negation": "!x to x",
    "int_plus_one": "an integer constant n to n + 1", "int_one_to_zero": "the constant 1 to 0",
    "float_changed": "a floating constant x to 2x (0 to 1)",
    "true_to_false": "true to false", "false_to_true": "false to true",
    "negate_condition": "if (c) to if (!(c))", "condition_true": "if (c) to if (true)",
    "condition_false": "if (c) to if (false)",
    "remove_statement": "an expression statement removed", "return_default": "return x to return T{}",
    "swap_arguments": "two neighbouring arguments of a call swapped",
    "field_neighbour": "a field read or written swapped for its neighbour of the same type",
}

SWAP = {"<": ["lt_to_le", "lt_to_ge"], "<=": ["le_to_lt", "le_to_gt"], ">": ["gt_to_ge", "gt_to_le"],
        ">=": ["ge_to_gt", "ge_to_lt"], "==": ["eq_to_ne"], "!=": ["ne_to_eq"], "+": ["add_to_sub"],
        "-": ["sub_to_add"], "*": ["mul_to_div"], "/": ["div_to_mul"], "%": ["rem_to_div"],
        "+=": ["add_assign_to_sub_assign"], "-=": ["sub_assign_to_add_assign"],
        "*=": ["mul_assign_to_div_assign"], "/=": ["div_assign_to_mul_assign"], "&&": ["and_to_or"],
        "||": ["or_to_and"], "&": ["bitand_to_bitor"], "|": ["bitor_to_bitand"], "^": ["xor_to_bitor"],
        "<<": ["lshift_to_rshift"], ">>": ["rshift_to_lshift"]}
REPLACEMENT = {"lt_to_le": "<=", "lt_to_ge": ">=", "le_to_lt": "<", "le_to_gt": ">", "gt_to_ge": ">=",
               "gt_to_le": "<=", "ge_to_gt": ">", "ge_to_lt": "<", "eq_to_ne": "!=", "ne_to_eq": "==",
               "add_to_sub": "-", "sub_to_add": "+", "mul_to_div": "/", "div_to_mul": "*", "rem_to_div": "/",
               "add_assign_to_sub_assign": "-=", "sub_assign_to_add_assign": "+=",
               "mul_assign_to_div_assign": "/=", "div_assign_to_mul_assign": "*=", "and_to_or": "||",
               "or_to_and": "&&", "bitand_to_bitor": "|", "bitor_to_bitand": "&", "xor_to_bitor": "|",
               "lshift_to_rshift": ">>", "rshift_to_lshift": "<<"}
BINARY_NEEDS_OPERAND = {"+", "-", "*", "&", "&&"}  # also unary (or a declarator): binary only after an operand


def operand_before(t):
    return t.kind in ("id", "num", "str", "chr") and t.text not in KEYWORDS - {"this", "true", "false", "nullptr"} \
        or t.text in (")", "]")


def template_close(toks, k, b):
    """The index of the > (or >>) that closes the template arguments opened at toks[k], or b."""
    depth, q = 0, k
    while q <= b:
        if toks[q].text == "<" and toks[q].template:
            depth += 1
        elif toks[q].text in (">", ">>") and toks[q].template:
            depth -= 1 if toks[q].text == ">" else 2
            if depth <= 0:
                return q
        q += 1
    return b


def operand_end(toks, k, b):
    """The last token of the unary operand that starts at toks[k]: a name with its member
    accesses, calls and subscripts, or a bracketed expression."""
    j = k
    if toks[j].text == "!":
        return operand_end(toks, j + 1, b)
    if toks[j].text == "(":
        j = matching(toks, j)
    while j + 1 <= b:
        nxt = toks[j + 1].text
        if nxt in ("(", "["):
            j = matching(toks, j + 1)
        elif nxt in (".", "->", "::") and j + 2 <= b and toks[j + 2].kind == "id":
            j += 2
        elif nxt == "<" and toks[j + 1].template:
            j = template_close(toks, j + 1, b)
        else:
            break
    return min(j, b)


def render(toks, a, b, replace=None):
    """toks[a..b] as one line of text, with replace = {index: text} applied."""
    replace = replace or {}
    out = []
    for j in range(a, b + 1):
        out.append(replace.get(j, toks[j].text))
    return " ".join(x for x in out if x != "")


def unevaluated_spans(toks, a, b):
    """Token indexes in toks[a..b] that no mutant may touch: unevaluated operands (sizeof, decltype),
    template arguments, the type of a cast, and __builtin_expect's expected value (a hint to the
    compiler: any value computes the same)."""
    skip = set()
    j = a
    while j <= b:
        t = toks[j]
        if t.text == "__builtin_expect" and j + 1 <= b and toks[j + 1].text == "(":
            e, depth = matching(toks, j + 1), 0
            for k in range(j + 2, e):
                if toks[k].text in ("(", "[", "{"):
                    depth += 1
                elif toks[k].text in (")", "]", "}"):
                    depth -= 1
                elif depth == 0 and toks[k].text == ",":
                    skip.update(range(k + 1, e))
                    break
        if t.text in UNEVALUATED and j + 1 <= b and toks[j + 1].text == "(":
            e = matching(toks, j + 1)
            skip.update(range(j, e + 1))
            j = e + 1
            continue
        if t.text == "<" and t.template:
            q = template_close(toks, j, b)
            skip.update(range(j, q + 1))
            j = q + 1
            continue
        j += 1
    return skip


def field_neighbours(all_toks):
    """Each struct field's neighbours of the same declared type, read from the headers' structs:
    `T a, b;` or `T a = ...; T b = ...;` in a row. Only names declared once across the headers."""
    decl = {}  # name -> (struct, type, index)
    counts = {}
    by_struct = {}
    for toks in all_toks:
        k = 0
        n = len(toks)
        while k < n - 2:
            if toks[k].text in ("struct", "class") and toks[k + 1].kind == "id" and \
                    not (k > 0 and toks[k - 1].text == "enum"):
                j = k + 2
                while j < n and toks[j].text not in ("{", ";"):
                    j += 1
                if j >= n or toks[j].text != "{":
                    k += 1
                    continue
                e = matching(toks, j)
                sname = toks[k + 1].text
                fields = []
                q = j + 1
                while q < e:
                    if toks[q].text == "{":
                        q = matching(toks, q) + 1
                        continue
                    s = q
                    depth = 0
                    while q < e and not (toks[q].text == ";" and depth == 0):
                        if toks[q].text in OPEN:
                            depth += 1
                        elif toks[q].text in CLOSE:
                            depth -= 1
                        q += 1
                    stmt = toks[s:q]
                    q += 1
                    texts = [u.text for u in stmt]
                    if not stmt or "(" in texts or texts[0] in ("using", "static", "friend", "enum", "struct",
                                                                 "class", "public", "private", "template",
                                                                 "static_assert", "constexpr", "typedef"):
                        continue
                    # type tokens up to the first declarator name
                    names = []
                    depth = 0
                    i = 0
                    type_end = None
                    for i, u in enumerate(stmt):
                        if u.text in OPEN:
                            depth += 1
                        elif u.text in CLOSE:
                            depth -= 1
                        elif depth == 0 and u.kind == "id" and i + 1 <= len(stmt) and (
                                i + 1 == len(stmt) or stmt[i + 1].text in ("{", "=", ",", "[", ";")) and i > 0:
                            if type_end is None:
                                type_end = i
                            if i >= type_end and (i == type_end or stmt[i - 1].text == ","):
                                names.append(u.text)
                    if type_end is None or not names:
                        continue
                    ftype = " ".join(u.text for u in stmt[:type_end])
                    for nm in names:
                        fields.append((nm, ftype))
                by_struct.setdefault(sname, []).append(fields)
                for idx, (nm, ft) in enumerate(fields):
                    counts[nm] = counts.get(nm, 0) + 1
                    decl[nm] = (sname, ft, idx, fields)
                k = j + 1
                continue
            k += 1
    out = {}
    for nm, (sname, ft, idx, fields) in decl.items():
        if counts[nm] != 1:
            continue
        nb = []
        for d in (-1, 1):
            i = idx + d
            if 0 <= i < len(fields) and fields[i][1] == ft and counts.get(fields[i][0]) == 1:
                nb.append(fields[i][0])
        if nb:
            out[nm] = nb
    return out


def candidates_in(header, text, fields=None):
    """Every candidate mutant of one header: dicts with header, operator, region, the mutated
    region's text, the line and its text."""
    toks = lex(text)
    regions = find_regions(toks)
    lines = text.split("\n")
    out = []

    def add(op, region, mutated, at):
        out.append({"header": header, "operator": op, "region": region, "mutated": mutated,
                    "line": toks[at].line, "col": toks[at].start - text.rfind("\n", 0, toks[at].start),
                    "line_text": lines[toks[at].line - 1].strip()})

    for r in regions:
        a, b = r.first, r.last
        skip = unevaluated_spans(toks, a, b)
        for j in range(a, b + 1):
            if j in skip:
                continue
            t = toks[j]
            prev = toks[j - 1] if j > 0 else None
            if t.kind == "p" and t.text in SWAP and not t.template:
                if t.text in BINARY_NEEDS_OPERAND and not (j > a and operand_before(prev)):
                    continue
                if t.text in ("&", "&&") and j + 1 <= b and toks[j + 1].text in (")", ",", "]"):
                    continue
                for op in SWAP[t.text]:
                    add(op, r, render(toks, a, b, {j: REPLACEMENT[op]}), j)
            elif t.text == "!" and j + 1 <= b:
                # !x to static_cast<bool>(x): still a bool, so that the switch's two arms keep one
                # type (an optional beside a bool would turn the bool into an optional).
                e = operand_end(toks, j + 1, b)
                add("remove_negation", r, render(toks, a, b, {j: "static_cast<bool>(", e: toks[e].text + ")"}), j)
            elif t.kind == "num":
                if prev is not None and prev.text in ("[",) and j + 1 <= b and toks[j + 1].text == "]" and \
                        j >= 2 and toks[j - 2].kind == "id" and r.kind == "init":
                    continue
                lit = t.text.replace("'", "")
                m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)", lit)
                if m:
                    if re.fullmatch(r"0\d+", m.group(1)):
                        continue  # octal (file modes): left alone
                    v = int(m.group(1), 0)
                    add("int_plus_one", r, render(toks, a, b, {j: str(v + 1) + m.group(2)}), j)
                    if v == 1:
                        add("int_one_to_zero", r, render(toks, a, b, {j: "0" + m.group(2)}), j)
                else:
                    m = re.fullmatch(r"([0-9.eE+-]+)([fFlL]?)", lit)
                    if m:
                        try:
                            v = float(m.group(1))
                        except ValueError:
                            continue
                        nv = 1.0 if v == 0 else v * 2
                        add("float_changed", r, render(toks, a, b, {j: repr(nv) + m.group(2)}), j)
            elif t.text == "true":
                add("true_to_false", r, render(toks, a, b, {j: "false"}), j)
            elif t.text == "false":
                add("false_to_true", r, render(toks, a, b, {j: "true"}), j)
            elif t.text in (".", "->") and fields and j + 1 <= b and toks[j + 1].kind == "id" \
                    and toks[j + 1].text in fields and not (j + 2 <= b and toks[j + 2].text == "("):
                for nb in fields[toks[j + 1].text]:
                    add("field_neighbour", r, render(toks, a, b, {j + 1: nb}), j + 1)
            elif t.text == "(" and prev is not None and prev.kind == "id" and prev.text not in KEYWORDS:
                # f(a, b): neighbouring single-token arguments swapped
                e = matching(toks, j)
                if e > b:
                    continue
                args, s, depth = [], j + 1, 0
                for q in range(j + 1, e + 1):
                    x = toks[q].text
                    if x in OPEN:
                        depth += 1
                    elif x in CLOSE and q != e:
                        depth -= 1
                    if (x == "," and depth == 0) or q == e:
                        args.append((s, q - 1))
                        s = q + 1
                for (s1, e1), (s2, e2) in zip(args, args[1:]):
                    if s1 == e1 and s2 == e2 and toks[s1].text != toks[s2].text and \
                            toks[s1].kind in ("id", "num") and toks[s2].kind in ("id", "num") and \
                            toks[s1].text not in KEYWORDS and toks[s2].text not in KEYWORDS:
                        add("swap_arguments", r, render(toks, a, b, {s1: toks[s2].text, s2: toks[s1].text}), s1)
        if r.kind == "cond_if":
            orig = render(toks, a, b)
            add("negate_condition", r, f"!({orig})", a)
            add("condition_true", r, "true", a)
            add("condition_false", r, "false", a)
        elif r.kind == "stmt":
            # (void)x; marks x used and does nothing else: removing it changes nothing.
            if not re.fullmatch(r"\( void \) [A-Za-z_]\w*", render(toks, a, b)):
                add("remove_statement", r, "", a)
        elif r.kind == "return":
            body = render(toks, a, b)
            # return false, 0, nullptr, {}: already the default, so removing it changes nothing.
            if "[" not in body and body not in ("false", "0", "0u", "nullptr", "0.0", "std :: nullopt"):
                add("return_default", r, f"std::decay_t<decltype({body})>{{}}", a - 1)
    return assign_keys(out), toks


def assign_keys(cands):
    """Each candidate's occurrence and stable key (header, operator, line text, occurrence)."""
    seen = {}
    for c in cands:
        k = (c["header"], c["operator"], c["line_text"])
        c["occurrence"] = seen.get(k, 0) + 1
        seen[k] = c["occurrence"]
        c["key"] = key_of(c["header"], c["operator"], c["line_text"], c["occurrence"])
    return cands


def key_of(header, op, line_text, occurrence):
    h = hashlib.sha1(f"{header}\0{op}\0{line_text}\0{occurrence}".encode()).hexdigest()[:10]
    return h
