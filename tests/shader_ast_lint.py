#!/usr/bin/env python3
"""tests/shader_ast_lint.py DIR: the bit-exactness lint of the compute shaders,
read from the reference compiler's AST.

DIR holds every compute shader as the backend assembles it (written by
boids-shader-source, tests/shader_source.c). Each *.comp goes through
glslangValidator -i (its AST: each node "STRING:LINE <indent>op (qualifiers
type)") and -E (the preprocessed source, line for line), and each node is
checked for what lets a GPU's bits differ from the C reference's (compiled
with -ffp-contract=off; GLSL 4.50 section 4.7.1 leaves the rest to the
driver):

  division    a float division (/, /=) outside the bodies of fdiv and
              cr_sqrt (shaders/rounding.glsl), unless the divisor is a
              constant power of two (exact in any rounding): the AST prints
              constants to 6 decimals, so the divisor must also be written in
              the preprocessed line as a literal that is exactly 2^k;
  imprecise   a built-in whose precision the table of section 4.7.1 leaves
              undefined, inherits from a division or may contract (sin, pow,
              exp, length, dot, normalize, float mod, float mix, fma, round,
              the norm packings, matrix products...); sqrt and inversesqrt
              only inside cr_sqrt and fdiv;
  double      any node of a double type (FP64 is 1/32 to 1/64 of the FP32
              rate on consumer GPUs, and the C reference computes in float);
  contraction a float add or subtract (+=, -= too) that is not precise and
              has an operand that may be a product (a multiply, looked
              through swizzles, indexing, negation, constructors, selects; a
              variable assigned a product in the same function or through an
              out parameter; a user function that may return one; an in
              parameter some call passes one; to a fixed point over the call
              graph): a driver may fuse it into one fma, whose single rounding
              the C never does. Precise means noContraction in glslang's AST
              and reached from a `precise` declaration of the same function
              through local variables: glslang also marks every write into a
              buffer that a precise value reads, which GLSL does not require.

Prints one line per finding (shaders/FILE:LINE: kind: what, each once however
many assembled shaders hold the line) and exits 1 if any, 2 on a usage or
tool error. --self-test writes small shaders, each with one hazard (and a
clean twin that must give nothing), so the lint cannot pass vacuously.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

GLSLANG = "glslangValidator"
EXEMPT = {"fdiv", "cr_sqrt"}  # the correctly rounded division and root (rounding.glsl)
EXEMPT_FILE = "rounding.glsl"

DIVIDE = {"divide", "divide second child into first child"}
ADDS = {"add", "subtract", "add second child into first child", "subtract second child into first child"}
ASSIGN = "move second child to first child"
# Products (glslang's names, simple and compound forms).
PRODUCT = {
    "component-wise multiply", "multiply", "vector-scale", "matrix-scale", "vector-times-matrix",
    "matrix-times-vector", "matrix-multiply", "outer product", "multiply second child into first child",
    "vector scale second child into first child", "matrix scale second child into first child",
    "matrix mult second child into first child",
}
# Built-ins (glslang's node name: GLSL's name) whose result GLSL 4.50 does not
# fix to the bit: undefined precision (trigonometry, hyperbolic), ULP bounds
# (exp, log, pow, sqrt, inversesqrt), formulas built on a division or on sums
# of products a driver may order or fuse (geometry, smoothstep, determinant,
# inverse, the matrix products), round (halves: the implementation's
# direction), the norm packings (round, division) and packHalf2x16 (the
# conversion's rounding is the driver's).
IMPRECISE = {
    "sine": "sin", "cosine": "cos", "tangent": "tan", "arc sine": "asin", "arc cosine": "acos",
    "arc tangent": "atan", "hyp. sine": "sinh", "hyp. cosine": "cosh", "hyp. tangent": "tanh",
    "arc hyp. sine": "asinh", "arc hyp. cosine": "acosh", "arc hyp. tangent": "atanh", "pow": "pow",
    "exp": "exp", "log": "log", "exp2": "exp2", "log2": "log2", "sqrt": "sqrt", "inverse sqrt": "inversesqrt",
    "length": "length", "distance": "distance", "dot-product": "dot", "cross-product": "cross",
    "normalize": "normalize", "face-forward": "faceforward", "reflect": "reflect", "refract": "refract",
    "smoothstep": "smoothstep", "fma": "fma", "radians": "radians", "degrees": "degrees",
    "determinant": "determinant", "inverse": "inverse", "round": "round",
    "packUnorm2x16": "packUnorm2x16", "packSnorm2x16": "packSnorm2x16", "PackUnorm4x8": "packUnorm4x8",
    "PackSnorm4x8": "packSnorm4x8", "unpackUnorm2x16": "unpackUnorm2x16", "unpackSnorm2x16": "unpackSnorm2x16",
    "UnpackUnorm4x8": "unpackUnorm4x8", "UnpackSnorm4x8": "unpackSnorm4x8", "packHalf2x16": "packHalf2x16",
    "matrix-multiply": "matrix * matrix", "matrix-times-vector": "matrix * vector",
    "vector-times-matrix": "vector * matrix", "matrix mult second child into first child": "*= matrix",
}
BUILTIN_NAMES = {"Absolute value": "abs", "Floor": "floor", "Ceiling": "ceil", "Fraction": "fract", "Sign": "sign"}
ROOT_ONLY = {"sqrt", "inverse sqrt"}  # allowed inside EXEMPT
ACCESS = ("vector swizzle", "direct index", "indirect index")
LINE = re.compile(r"^(\d+):(\d+|\?)( *)(.*)$")


class Node:
    __slots__ = ("s", "line", "op", "attrs", "children")

    def __init__(self, s, line, text):
        self.s, self.line, self.children = s, line, []
        k = text.find(" (")
        if k >= 0 and text.endswith(")"):
            self.op, self.attrs = text[:k], text[k + 2 : -1]
        else:
            self.op, self.attrs = text.rstrip(), ""

    def walk(self):
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))


def parse_ast(text):
    """The root of glslang's AST text (-i), or None."""
    root, stack = None, []
    for raw in text.split("\n"):
        m = LINE.match(raw)
        if not m:
            continue
        s, line, spaces, body = m.groups()
        depth = (len(spaces) - 1) // 2 if line == "?" else len(spaces) // 2
        node = Node(int(s), 0 if line == "?" else int(line), body)
        del stack[depth:]
        if stack:
            stack[-1].children.append(node)
        elif root is None:
            root = node
        else:
            continue
        stack.append(node)
    return root


def is_float(n):
    return n.attrs.endswith("float")


def type_of(n):
    if n.op == "Constant:" and n.children:
        return n.children[0].attrs or "float"
    return n.attrs


def symbol_name(n):
    return n.op[1:-1] if n.op.startswith("'") and n.op.endswith("'") else None


def is_local(n):
    """A symbol of the function: a temporary or a parameter (not a global,
    shared, buffer, uniform or built-in input)."""
    name = symbol_name(n)
    if name is None or name.startswith("gl_") or name.startswith("anon@"):
        return False
    quals = " " + re.sub(r"layout\([^)]*\)", "", n.attrs) + " "
    if any(" %s " % q in quals for q in ("global", "shared", "buffer", "uniform")):
        return False
    return any(" %s " % q in quals for q in ("temp", "in", "out", "inout")) or "const (read only)" in quals


def key_of(n):
    """The variable an access chain names: its root symbol (a block member:
    the member), or None (the chain starts at a call or a constant)."""
    while True:
        name = symbol_name(n)
        if name is not None:
            return name
        if n.op.endswith(": direct index for structure") and n.children:
            base = n.children[0]
            if (symbol_name(base) or "").startswith("anon@"):
                return n.op.split(":")[0]
            n = base
        elif n.op in ACCESS and n.children:
            n = n.children[0]
        else:
            return None


def select_cases(n):
    """The two value children of a select (Condition, c, true case, t, false case, f)."""
    out, kids = [], n.children
    for k, c in enumerate(kids):
        if c.op in ("true case", "false case") and k + 1 < len(kids):
            out.append(kids[k + 1])
    return out


def callee_of(n):
    return n.op[len("Function Call: ") :] if n.op.startswith("Function Call: ") else None


def short(name):
    return name.split("(")[0]


class Function:
    def __init__(self, key, node, params, body_nodes, s):
        self.key, self.name, self.node, self.params, self.s = key, short(key), node, params, s
        self.nodes = body_nodes  # every node of the body (params included)
        self.file = None
        self.lines = (min((x.line for x in body_nodes if x.line), default=0), max((x.line for x in body_nodes), default=0))


def functions_of(root):
    funcs = {}
    glob = []
    for c in root.children:
        if c.op.startswith("Function Definition: "):
            key = c.op[len("Function Definition: ") :]
            params = []
            for p in c.children:
                if p.op.startswith("Function Parameters"):
                    for q in p.children:
                        quals = q.attrs.split()
                        mode = "out" if quals[:1] == ["out"] else "inout" if quals[:1] == ["inout"] else "in"
                        params.append((symbol_name(q), mode))
            nodes = list(c.walk())
            funcs[key] = Function(key, c, params, nodes, c.s)
        elif c.op != "Linker Objects":
            glob.extend(c.walk())
    if glob:
        funcs["(global)"] = Function("(global)", None, [], glob, glob[0].s)
    return funcs


class Analysis:
    """Which expressions may be a product, to a fixed point over the call graph."""

    def __init__(self, funcs):
        self.funcs = funcs
        self.vars = {k: set() for k in funcs}  # variables assigned a product in each function
        self.in_params = {k: set() for k in funcs}  # parameters some call passes a product
        self.returns = {k: False for k in funcs}
        self.out_params = {k: set() for k in funcs}  # out parameter indices assigned a product
        changed = True
        while changed:
            changed = False
            for f in funcs.values():
                changed |= self.scan(f)

    def product(self, e, f, seen=0):
        if seen > 64:  # deeper than any real expression: assume the worst
            return True
        op = e.op
        if op in PRODUCT:
            return is_float(e)
        if op in ("Negate value",) or op.startswith("Construct "):
            return any(self.product(c, f, seen + 1) for c in e.children)
        if op == "Comma" and e.children:
            return self.product(e.children[-1], f, seen + 1)
        if op == "Test condition and select":
            return any(self.product(c, f, seen + 1) for c in select_cases(e))
        if op == ASSIGN and len(e.children) == 2:
            return self.product(e.children[1], f, seen + 1)
        callee = callee_of(e)
        if callee is not None:
            return self.returns.get(callee, False)
        key = key_of(e) if (symbol_name(e) or op in ACCESS or op.endswith("direct index for structure")) else None
        if key is not None:
            return key in self.vars[f.key] or key in self.in_params[f.key]
        if (op in ACCESS or op.endswith("direct index for structure")) and e.children:
            return self.product(e.children[0], f, seen + 1)
        return False

    def scan(self, f):
        changed = False
        v = self.vars[f.key]
        for n in f.nodes:
            if n.op == ASSIGN and len(n.children) == 2 and self.product(n.children[1], f):
                k = key_of(n.children[0])
                if k is not None and k not in v:
                    v.add(k)
                    changed = True
            elif n.op in PRODUCT and n.op.endswith("first child") and is_float(n) and n.children:
                k = key_of(n.children[0])
                if k is not None and k not in v:
                    v.add(k)
                    changed = True
            elif n.op == "Branch: Return with expression" and n.children and not self.returns[f.key]:
                if self.product(n.children[0], f):
                    self.returns[f.key] = True
                    changed = True
            callee = callee_of(n)
            if callee is not None and callee in self.funcs:
                params = self.funcs[callee].params
                for i, arg in enumerate(n.children[: len(params)]):
                    name, mode = params[i]
                    if mode != "out" and name not in self.in_params[callee] and self.product(arg, f):
                        self.in_params[callee].add(name)
                        changed = True
                    if mode != "in" and i in self.out_params[callee]:
                        k = key_of(arg)
                        if k is not None and k not in v:
                            v.add(k)
                            changed = True
        for i, (name, mode) in enumerate(f.params):
            if mode != "in" and name in v and i not in self.out_params[f.key]:
                self.out_params[f.key].add(i)
                changed = True
        return changed


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def split_top(text):
    """text split at its commas outside parentheses and brackets."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def declared_precise(f, pp):
    """Names declared `precise` in the source lines of function f."""
    a, b = f.lines
    text = strip_comments("\n".join(pp.get((f.s, k), "") for k in range(a, b + 1)))
    names = set()
    for m in re.finditer(r"\bprecise\s+([^;]*);", text):
        words = re.match(r"((?:(?:highp|mediump|lowp|const|in|out|inout)\s+)*)(\w+)\s*(.*)$", m.group(1), re.S)
        if not words:
            continue
        if not words.group(3).strip():  # precise name; (an existing variable)
            names.add(words.group(2))
            continue
        for part in split_top(words.group(3)):
            d = re.match(r"\s*(\w+)", part)
            if d:
                names.add(d.group(1))
    return names


def protected_nodes(f, pp):
    """The nodes whose values flow, through local variables of f, into a
    variable f declares precise: GLSL's precise (4.7.2) covers them."""
    live = declared_precise(f, pp)
    marked = set()
    assigns = [n for n in f.nodes if (n.op == ASSIGN or n.op.endswith("second child into first child")) and len(n.children) == 2]
    changed = True
    while changed:
        changed = False
        for n in assigns:
            if id(n) in marked:
                continue
            lhs = n.children[0]
            root = lhs
            while symbol_name(root) is None and root.children:
                root = root.children[0]
            if key_of(lhs) not in live or not is_local(root):
                continue
            marked.add(id(n))
            changed = True
            for x in n.children[1].walk():
                marked.add(id(x))
                name = symbol_name(x)
                if name is not None and is_local(x) and name not in live:
                    live.add(name)
    return marked


def pow2_value(text):
    """The exact value of a decimal literal if it is +-2^k (a normal float), else None."""
    text = re.sub(r"\s+", "", text)  # glslang -E writes "- 0.25"
    m = re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(lf|LF|f|F|u|U)?", text)
    if not m:
        return None
    v = Fraction(text.rstrip("fFlLuU"))
    if v == 0:
        return None
    a = abs(v)
    k = a.numerator.bit_length() - a.denominator.bit_length()
    for e in (k - 1, k, k + 1):
        if a == (Fraction(2) ** e) and -126 <= e <= 127:
            return v
    return None


LIT = r"[-+]?\s*(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?:lf|LF|f|F|u|U)?"


def literal_divisors(line):
    """The divisors written as literals after each / or /= of a preprocessed
    line: a list of value tuples (None for a divisor that is not a literal
    power of two)."""
    found = []
    code = strip_comments(line)
    for m in re.finditer(r"(?<![/*])/=?(?![/*])", code):
        rest = code[m.end() :]
        v = re.match(r"\s*((?:\(\s*)*)(" + LIT + r")\s*((?:\)\s*)*)(.?)", rest)
        vec = re.match(r"\s*(?:d?vec[234])\(\s*(" + LIT + r"(?:\s*,\s*" + LIT + r")*)\s*\)", rest)
        if vec:
            vals = tuple(pow2_value(x) for x in vec.group(1).split(","))
            found.append(None if None in vals else vals)
        elif v and v.group(1).count("(") <= v.group(3).count(")") and v.group(4) not in ("(", "[", "."):
            p = pow2_value(v.group(2))
            found.append(None if p is None else (p,))
        else:
            found.append(None)
    return found


def glslang_text(v):
    """A float constant as glslang -i prints it (OutputDouble)."""
    return ("%-.13e" if v != 0 and (abs(v) < 1e-5 or abs(v) > 1e12) else "%f") % v


def printed_pow2(text):
    """Whether glslang's printed constant could be +-2^k."""
    try:
        v = float(text.split()[0])
    except (ValueError, IndexError):
        return False
    if v == 0 or not math.isfinite(v):
        return False
    return glslang_text(math.copysign(2.0 ** round(math.log2(abs(v))), v)) == text.split()[0]


def const_text(printed):
    """A constant as glslang prints it, shorter: 2.000000 -> 2.0, 1 (const int) -> 1."""
    text = printed.split(" (")[0]
    if re.fullmatch(r"-?\d+\.\d+", text):
        text = text.rstrip("0")
        text += "0" if text.endswith(".") else ""
    return text


def render(n, depth=0):
    """A short infix text of an expression node."""
    if depth > 6:
        return "..."
    r = lambda c: render(c, depth + 1)
    op, kids = n.op, n.children
    if symbol_name(n) is not None:
        return symbol_name(n)
    if op == "Constant:":
        vals = [const_text(c.op) for c in kids]
        return vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"
    infix = {"add": "+", "subtract": "-", "divide": "/", "component-wise multiply": "*", "vector-scale": "*",
             "matrix-scale": "*", "vector-times-matrix": "*", "matrix-times-vector": "*", "matrix-multiply": "*",
             ASSIGN: "="}
    if op in infix and len(kids) == 2:
        return "(%s %s %s)" % (r(kids[0]), infix[op], r(kids[1])) if depth else "%s %s %s" % (r(kids[0]), infix[op], r(kids[1]))
    if op.endswith(" second child into first child") and len(kids) == 2:
        sym = {"add": "+=", "subtract": "-=", "divide": "/=", "multiply": "*=", "mod": "%="}.get(op.split(" second")[0], "*=")
        return "%s %s %s" % (r(kids[0]), sym, r(kids[1]))
    if op == "vector swizzle" and len(kids) == 2:
        return r(kids[0]) + "." + "".join("xyzw"[int(c.children[0].op)] for c in kids[1].children if c.children)
    if op == "direct index" and len(kids) == 2:
        k = kids[1].children[0].op if kids[1].children else "?"
        if "vector" in kids[0].attrs and k.isdigit() and int(k) < 4:
            return r(kids[0]) + "." + "xyzw"[int(k)]
        return "%s[%s]" % (r(kids[0]), k)
    if op == "indirect index" and len(kids) == 2:
        return "%s[%s]" % (r(kids[0]), r(kids[1]))
    if op.endswith(": direct index for structure") and kids:
        base = r(kids[0])
        field = op.split(":")[0]
        return field if base.startswith("anon@") else base + "." + field
    if op == "Negate value" and kids:
        return "-" + r(kids[0])
    if op == "Test condition and select":
        c = select_cases(n)
        cond = kids[1] if len(kids) > 1 else None
        return "(%s ? %s)" % (r(cond) if cond else "?", " : ".join(r(x) for x in c))
    name = callee_of(n)
    if name is not None:
        name = short(name)
    elif op.startswith("Construct "):
        name = op[len("Construct ") :]
    elif op.startswith("Convert ") and " to " in op:
        name = op.split(" to ")[1]
    else:
        name = IMPRECISE.get(op, BUILTIN_NAMES.get(op, op))
    return "%s(%s)" % (name, ", ".join(r(c) for c in kids))


def clip(text, width=72):
    return text if len(text) <= width else text[: width - 3] + "..."


def run_glslang(path, flag):
    try:
        p = subprocess.run([GLSLANG, flag, "-S", "comp", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    return (p.stdout if p.returncode == 0 else None), p.stdout


def errors(out):
    """glslang's ERROR lines of a failed run (its partial AST left out)."""
    return "; ".join(l.strip() for l in out.split("\n") if l.startswith("ERROR")) or out.strip()[:400]


def string_names(text):
    """Source string index -> shader file, from each `#line 1 N` and the
    file's first line (// shaders/NAME: ...); None where one is not told."""
    names, lines = {0: "(version)"}, text.split("\n")
    for k, line in enumerate(lines):
        m = re.match(r"\s*#\s*line\s+1\s+(\d+)\s*$", line)
        if m:
            head = lines[k + 1] if k + 1 < len(lines) else ""
            h = re.match(r"\s*(?://|/\*)\s*shaders/([\w.\-]+):", head)
            names[int(m.group(1))] = h.group(1) if h else None
    return names


def preprocessed_lines(pp):
    """(string, line) -> text of glslang's -E output."""
    out, s, line = {}, 0, 1
    for text in pp.split("\n"):
        m = re.match(r"\s*#\s*line\s+(\d+)(?:\s+(\d+))?\s*$", text)
        if m:
            line = int(m.group(1))
            if m.group(2):
                s = int(m.group(2))
            continue
        out[(s, line)] = text
        line += 1
    return out


def lint_file(path):
    """[(file, line, kind, what)] of one assembled shader; raises RuntimeError
    when glslang rejects it or a string's file cannot be told."""
    with open(path, encoding="utf-8") as fp:
        text = fp.read()
    names = string_names(text)
    ast, out = run_glslang(path, "-i")
    if ast is None:
        raise RuntimeError("%s: glslangValidator -i fails: %s" % (path, errors(out)))
    pp_text, out = run_glslang(path, "-E")
    if pp_text is None:
        raise RuntimeError("%s: glslangValidator -E fails: %s" % (path, errors(out)))
    pp = preprocessed_lines(pp_text)
    root = parse_ast(ast)
    if root is None:
        raise RuntimeError("%s: no AST in glslangValidator's output" % path)
    funcs = functions_of(root)
    for f in funcs.values():
        if names.get(f.s) is None:
            raise RuntimeError("%s: source string %d has no '// shaders/NAME:' first line" % (path, f.s))
        f.file = names[f.s]
    products = Analysis(funcs)
    findings = []

    def add(n, kind, what):
        name = names.get(n.s)
        if name is None:
            raise RuntimeError("%s: source string %d has no '// shaders/NAME:' first line" % (path, n.s))
        findings.append((name, n.line, kind, what))

    for f in funcs.values():
        exempt = f.name in EXEMPT and f.file == EXEMPT_FILE
        guarded = protected_nodes(f, pp)
        # Divisions by a constant that prints as a power of two, per line,
        # confirmed against the literal divisors of the preprocessed line.
        pending, double_lines = {}, set()
        for n in f.nodes:
            if re.search(r"\bdouble\b", n.attrs) and (n.s, n.line) not in double_lines:
                double_lines.add((n.s, n.line))  # the outermost node of each line (the walk is preorder)
                t = re.search(r"(?:\d+-component vector of |\d+X\d+ matrix of )?double", n.attrs)
                add(n, "double", "%s: a %s (FP64; the C computes in float)" % (clip(render(n), 50), t.group(0)))
            op = n.op
            if op in DIVIDE and is_float(n) and not exempt and len(n.children) == 2:
                d = n.children[1]
                if d.op == "Constant:" and d.children and all(printed_pow2(c.op) for c in d.children):
                    pending.setdefault((n.s, n.line), []).append(n)
                else:
                    add(n, "division", "%s: a float division (fdiv() is the correctly rounded one)" % clip(render(n)))
            imprecise = (
                (op in IMPRECISE and not (op in ROOT_ONLY and exempt))
                or (op == "mod" and is_float(n))  # glslang's mod is % too
                or (op == "mix" and is_float(n) and len(n.children) == 3 and "bool" not in type_of(n.children[2]))
            )
            if imprecise:
                add(n, "imprecise", "%s: %s is not exact in GLSL 4.50 (4.7.1)" % (clip(render(n)), IMPRECISE.get(op, op)))
            if op in ADDS and is_float(n) and len(n.children) == 2:
                prod = [c for c in n.children if products.product(c, f)]
                if prod and not ("noContraction" in n.attrs and id(n) in guarded):
                    why = "not precise" if "noContraction" not in n.attrs else (
                        "noContraction only through a precise value read from storage, not a precise local")
                    add(n, "contraction", "%s: %s, and %s may be a product (a driver may fuse an fma)"
                        % (clip(render(n), 60), why, clip(render(prod[0]), 40)))
        for (s, line), nodes in pending.items():
            written = [v for v in literal_divisors(pp.get((s, line), "")) if v is not None]
            for n in nodes:
                want = tuple(c.op.split()[0] for c in n.children[1].children)
                hit = next((w for w in written if tuple(glslang_text(float(x)) for x in w) == want), None)
                if hit is None:
                    add(n, "division", "%s: a float division by a constant not written as a literal 2^k" % clip(render(n)))
                else:
                    written.remove(hit)
    return findings


def lint_dir(directory):
    files = sorted(f for f in os.listdir(directory) if f.endswith(".comp"))
    if not files:
        print("shader_ast_lint.py: no .comp file in %s" % directory, file=sys.stderr)
        return 2
    seen = {}
    for f in files:
        try:
            for found in lint_file(os.path.join(directory, f)):
                seen.setdefault(found, f)
        except RuntimeError as e:
            print("shader_ast_lint.py: %s" % e, file=sys.stderr)
            return 2
    for name, line, kind, what in sorted(seen):
        print("shaders/%s:%d: %s: %s" % (name, line, kind, what))
    print("shader AST lint: %d shaders, %d findings" % (len(files), len(seen)))
    return 1 if seen else 0


# ---- self-test -------------------------------------------------------------
# Each case: a hazard shader whose lines marked //! KIND must be found (and
# nothing else), and its clean twin, which must give nothing. The body goes
# after HEAD as shaders/t.glsl, after ROUNDING as shaders/rounding.glsl.
HEAD = """#version 450 core
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { vec4 v[]; };
#line 1 1
// shaders/rounding.glsl: the exempt bodies
float cr_sqrt(float x) { return sqrt(x); }
float fdiv(float a, float b) { return a / b; }
#line 1 2
// shaders/t.glsl: one hazard
"""
CASES = [
    ("raw division", "void main() { v[0].x = v[1].x / v[2].x; } //! division",
     "void main() { v[0].x = fdiv(v[1].x, v[2].x); }"),
    ("vector division, compound", "void main() { vec3 a = v[1].xyz;\n a /= v[2].x; //! division\n v[0].xyz = a; }",
     "void main() { vec3 a = v[1].xyz;\n a /= 4.0;\n v[0].xyz = a / vec3(2.0, 0.5, 8.0); }"),
    ("division by a constant not 2^k", "void main() { v[0].x = v[1].x / 3.0; } //! division",
     "void main() { v[0].x = v[1].x / 2.0 + v[1].y / -0.25; }"),
    ("division by a near power of two", "void main() { v[0].x = v[1].x / 2.0000001; } //! division",
     "void main() { v[0].x = v[1].x / 0.000030517578125; }"),
    ("division in an fdiv of another file", "float fdiv2(float a, float b) { return a / b; } //! division\n"
     "void main() { v[0].x = fdiv2(v[1].x, v[2].x); }",
     "void main() { int i = int(v[1].x); uint u = uint(v[1].y);\n v[0].x = float(i / 3) + float(u % 5u); }"),
    ("double", "void main() { double d = double(v[1].x); //! double\n v[0].x = float(d); } //! double",
     "void main() { float d = v[1].x;\n v[0].x = d; }"),
    ("sin", "void main() { v[0].x = sin(v[1].x); } //! imprecise",
     "void main() { float x = v[1].x;\n precise float s = x - x * x * x * 0.16666667;\n v[0].x = s; }"),
    ("sqrt outside cr_sqrt", "void main() { v[0].x = sqrt(v[1].x); } //! imprecise",
     "void main() { v[0].x = cr_sqrt(v[1].x); }"),
    ("float mod and mix", "void main() { v[0].x = mod(v[1].x, 3.0); //! imprecise\n v[0].y = mix(v[1].x, v[1].y, 0.5); } //! imprecise",
     "void main() { v[0].x = mix(v[1].x, v[1].y, v[1].z > 0.0);\n v[0].y = float(int(v[1].x) % 3); }"),
    ("a * b + c", "void main() { float a = v[1].x, b = v[1].y, c = v[1].z;\n v[0].x = a * b + c; } //! contraction",
     "void main() { float a = v[1].x, b = v[1].y, c = v[1].z;\n precise float r = a * b + c;\n v[0].x = r; }"),
    ("c - (a * b).x, -(a * b) + c, select, comma", "void main() { vec2 a = v[1].xy; float c = v[1].z; int k = 0;\n"
     " v[0].x = c - (a * c).x; //! contraction\n v[0].z = (c > 0.0 ? a.x * c : c) + c; //! contraction\n"
     " v[0].w = c + (k++, a.y * c); //! contraction\n"
     " v[0].y = -(a.x * c) + c; } //! contraction",
     "void main() { vec2 a = v[1].xy; float c = v[1].z; int k = 0;\n precise float r = c - (a * c).x, s = -(a.x * c) + c;\n"
     " precise float t = (c > 0.0 ? a.x * c : c) + c, u = c + (k++, a.y * c);\n"
     " v[0] = vec4(r, s, t, u); }"),
    ("+= a product", "void main() { float s = v[1].x;\n s += v[1].y * v[1].z; //! contraction\n v[0].x = s; }",
     "void main() { precise float s = v[1].x;\n s += v[1].y * v[1].z;\n v[0].x = s; }"),
    ("a variable assigned a product", "void main() { float p = v[1].x * v[1].y;\n"
     " v[0].x = p + v[1].z; } //! contraction",
     "void main() { float p = v[1].x * v[1].y;\n precise float r = p + v[1].z;\n v[0].x = r; }"),
    ("a product into a function", "float add2(float x, float y) { return x + y; } //! contraction\n"
     "void main() { v[0].x = add2(v[1].x * v[1].y, v[1].z); }",
     "float add2(float x, float y) { precise float r = x + y; return r; }\n"
     "void main() { v[0].x = add2(v[1].x * v[1].y, v[1].z); }"),
    ("a product out of a function", "float mul(float x, float y) { return x * y; }\n"
     "void mulo(float x, out float o) { o = mul(x, x); }\n"
     "void main() { float p; mulo(v[1].x, p);\n v[0].x = p + v[1].z; } //! contraction",
     "float mul(float x, float y) { return x * y; }\n"
     "void mulo(float x, out float o) { o = mul(x, x); }\n"
     "void main() { float p; mulo(v[1].x, p);\n precise float r = p + v[1].z;\n v[0].x = r; }"),
    ("noContraction through a buffer or shared only", "shared float sh[64];\n"
     "void main() { precise float r = v[1].x + sh[1];\n"
     " v[2].x = v[3].x * v[3].y + v[3].z; //! contraction\n"
     " sh[2] = v[3].x * v[3].y + v[3].z; //! contraction\n v[0].x = r; }",
     "shared float sh[64];\n"
     "void main() { precise float r = v[1].x + sh[1];\n precise float t = v[3].x * v[3].y + v[3].z;\n"
     " v[2].x = t;\n sh[2] = t;\n v[0].x = r; }"),
]
BUILTINS = """void main() { float a = v[1].x, b = v[1].y, c = v[1].z; vec3 x = v[2].xyz, y = v[3].xyz;
 mat2 m = mat2(v[4]); uint u = uint(a);
 v[0].x = cos(a); //! imprecise
 v[0].x = tan(a); //! imprecise
 v[0].x = asin(a); //! imprecise
 v[0].x = acos(a); //! imprecise
 v[0].x = atan(a, b); //! imprecise
 v[0].x = atan(a); //! imprecise
 v[0].x = sinh(a); //! imprecise
 v[0].x = cosh(a); //! imprecise
 v[0].x = tanh(a); //! imprecise
 v[0].x = asinh(a); //! imprecise
 v[0].x = acosh(a); //! imprecise
 v[0].x = atanh(a); //! imprecise
 v[0].x = pow(a, b); //! imprecise
 v[0].x = exp(a); //! imprecise
 v[0].x = log(a); //! imprecise
 v[0].x = exp2(a); //! imprecise
 v[0].x = log2(a); //! imprecise
 v[0].x = inversesqrt(a); //! imprecise
 v[0].x = length(x); //! imprecise
 v[0].x = distance(x, y); //! imprecise
 v[0].x = dot(x, y); //! imprecise
 v[0].xyz = cross(x, y); //! imprecise
 v[0].xyz = normalize(x); //! imprecise
 v[0].xyz = faceforward(x, y, x); //! imprecise
 v[0].xyz = reflect(x, y); //! imprecise
 v[0].xyz = refract(x, y, a); //! imprecise
 v[0].x = smoothstep(a, b, c); //! imprecise
 v[0].x = fma(a, b, c); //! imprecise
 v[0].x = radians(a); //! imprecise
 v[0].x = degrees(a); //! imprecise
 v[0].x = round(a); //! imprecise
 v[0].x = determinant(m); //! imprecise
 v[0].xy = inverse(m)[0]; //! imprecise
 v[0].xy = m * x.xy; //! imprecise
 v[0].xy = x.xy * m; //! imprecise
 v[0].xy = (m * m)[1]; //! imprecise
 v[0].x = uintBitsToFloat(packUnorm2x16(x.xy)); //! imprecise
 v[0].x = uintBitsToFloat(packSnorm4x8(v[2])); //! imprecise
 v[0].x = uintBitsToFloat(packHalf2x16(x.xy)); //! imprecise
 v[0] = unpackUnorm4x8(u); //! imprecise
 v[0].xy = unpackSnorm2x16(u); //! imprecise
}"""
BUILTINS_CLEAN = """void main() { float a = v[1].x, b = v[1].y, c = v[1].z; uint u = uint(a);
 v[0].x = abs(a) + sign(b); v[0].y = floor(a) + ceil(b); v[0].z = trunc(a) + roundEven(b);
 v[0].w = fract(a) + min(a, b); v[1].x = max(a, b) + clamp(a, b, c); v[1].y = step(a, b) + ldexp(a, 3);
 v[1].zw = unpackHalf2x16(u); v[2].x = uintBitsToFloat(floatBitsToUint(a) + 1u);
 v[2].y = float(isnan(a)) + float(isinf(b)); v[2].z = a + b; v[3].x = a - b; }"""


def self_test():
    cases = CASES + [("every imprecise built-in", BUILTINS, BUILTINS_CLEAN)]
    bad = 0
    tmp = tempfile.mkdtemp()
    try:
        for k, (name, hazard, clean) in enumerate(cases):
            for twin, body in (("hazard", hazard), ("clean", clean)):
                path = os.path.join(tmp, "case%d.%s.comp" % (k, twin))
                with open(path, "w", encoding="utf-8") as fp:
                    fp.write(HEAD + body + "\n")
                want = set()
                for i, line in enumerate(body.split("\n")):
                    for kind in re.findall(r"//! (\w+)", line):
                        want.add((i + 2, kind))  # line 1 of t.glsl is its header
                try:
                    found = lint_file(path)
                    got = {(line, kind) for f, line, kind, what in found if f == "t.glsl"}
                    other = [x for x in found if x[0] != "t.glsl"]
                except RuntimeError as e:
                    print("self-test FAIL: %s (%s): %s" % (name, twin, e))
                    bad += 1
                    continue
                if other:
                    print("self-test FAIL: %s (%s): findings in the exempt bodies: %s" % (name, twin, other))
                    bad += 1
                if got != want:
                    print("self-test FAIL: %s (%s): missed %s, extra %s" % (name, twin, sorted(want - got), sorted(got - want)))
                    bad += 1
    finally:
        shutil.rmtree(tmp)
    total = 2 * len(cases)
    print("shader AST lint self-test: %d passed, %d failed (%d hazards and their clean twins)" % (total - bad, bad, len(cases)))
    return bad == 0


def main(argv):
    if shutil.which(GLSLANG) is None:
        print("FAIL: glslangValidator not found: run tools/deps.sh (installs Debian's glslang-tools)", file=sys.stderr)
        return 2
    if len(argv) == 2 and argv[1] == "--self-test":
        return 0 if self_test() else 1
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: shader_ast_lint.py DIR (the assembled shaders of boids-shader-source) | --self-test", file=sys.stderr)
        return 2
    return lint_dir(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
