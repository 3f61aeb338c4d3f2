#!/usr/bin/env python3
"""tests/div_rewrite.py SRC DST: a copy of the shaders directory SRC in DST
with every division of the compute shaders made a call, so that
BOIDS_DEBUG=emulate=div-up / div-down (shaders/emulate.glsl's emu_div) reaches each.

A driver may compute any `a / b` 2.5 ULP off or as `a * (1 / b)` (GLSL 4.50,
4.7.1), and an operator cannot be renamed by a macro: so the test rewrites
the source instead. In every *.glsl and *.comp file, and in the parts of
shared.h guarded by `#ifdef BOIDS_GLSL`:
  x / y   ->  emu_div(x, y)
  x /= y  ->  x = emu_div(x, y)
with C's precedence: the divisor is a unary expression (a literal, a name, a
call, a parenthesised expression, with postfix swizzles, indices, calls and
prefix - + ! ~), the dividend extends back over the chain of multiplicative
operators (`a * b / c` is `(a * b) / c`). Left as they are: comments,
preprocessor lines (which may hold constants such as `(1.0 / 4294967296.0)`),
divisions by a power-of-two literal (exact under any rounding), and
emulate.glsl itself (emu_div's own division is the driver's). The copy's
emulate.glsl starts with `#define BOIDS_DIV_REWRITTEN 1`: the div-* items
refuse to compile without it (an emulation that reaches nothing would pass
every check).

Then the copy is checked: no `/` is left in code but by a power of two (an
independent scan), else the exit status is 1 and the remaining divisions are
named. Drawing shaders (*.vert, *.frag) are copied unchanged: emulate.glsl is
assembled in compute stages only.
"""
import math
import os
import re
import shutil
import sys

TOKEN = re.compile(
    r"""(?P<ws>[ \t\r\n]+)
      | (?P<lcomment>//[^\n]*)
      | (?P<bcomment>/\*.*?\*/)
      | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?:lf|LF|f|F|u|U)?)
      | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<punct>\#\#|<<=|>>=|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\^\^|\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%<>=!~&|^?:;,.(){}\[\]\#])
    """,
    re.X | re.S,
)
# Identifiers that are not a function's or a type's name before "(".
KEYWORDS = {"return", "if", "while", "for", "switch", "case", "else", "do", "in", "out", "inout", "precise"}
UNARY = {"-", "+", "!", "~", "++", "--"}
OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {v: k for k, v in OPEN.items()}


class RewriteError(Exception):
    pass


def tokenize(text):
    """(kind, text, start) for every token; a preprocessor line (with its
    continuations and comments) is one 'pp' token."""
    toks = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        if line_start:
            m = re.compile(r"[ \t]*#").match(text, i)
            if m:
                j = i
                while j < n and text[j] != "\n":
                    if text.startswith("/*", j):
                        k = text.find("*/", j + 2)
                        j = n if k < 0 else k + 2
                    elif text.startswith("//", j):
                        while j < n and text[j] != "\n":
                            j += 1
                    elif text[j] == "\\" and text.startswith("\n", j + 1):
                        j += 2
                    else:
                        j += 1
                toks.append(("pp", text[i:j], i))
                i = j
                continue
        m = TOKEN.match(text, i)
        if not m:
            raise RewriteError("unexpected character %r at offset %d" % (text[i], i))
        kind = m.lastgroup
        toks.append((kind, m.group(), i))
        line_start = kind == "ws" and (line_start or "\n" in m.group())
        i = m.end()
    return toks


def glsl_mask(toks, guarded):
    """For each token: is it GLSL code to rewrite? Everything, or (guarded:
    shared.h, read by C too) only what lies under #ifdef BOIDS_GLSL (or #if
    defined(BOIDS_GLSL)) and not in its #else."""
    if not guarded:
        return [True] * len(toks)
    mask = []
    stack = []  # per open #if: True (GLSL only), False (C only), None (both)
    for kind, text, _ in toks:
        if kind == "pp":
            d = re.match(r"\s*#\s*(\w+)\s*(.*)", text, re.S)
            word, rest = (d.group(1), d.group(2)) if d else ("", "")
            if word in ("if", "ifdef", "ifndef"):
                glsl = re.match(r"(defined\s*\(?\s*)?BOIDS_GLSL\b", rest.strip()) is not None
                stack.append((True if word != "ifndef" else False) if glsl else None)
            elif word in ("else", "elif") and stack:
                top = stack[-1]
                stack[-1] = None if top is None else (not top)
            elif word == "endif" and stack:
                stack.pop()
        mask.append(any(s is True for s in stack) and not any(s is False for s in stack))
    return mask


def is_pow2_literal(text):
    t = re.sub(r"(lf|LF|f|F|u|U)$", "", text)
    try:
        v = float(int(t, 16)) if t[:2] in ("0x", "0X") else float(t)
    except ValueError:
        return False
    return v > 0 and math.isfinite(v) and math.frexp(v)[0] == 0.5


def pow2_divisor(sig, i, end):
    """Is sig[i..end] (a divisor) a power-of-two literal, signed or in
    parentheses?"""
    parts = [t for _, t, _ in sig[i : end + 1]]
    while len(parts) >= 3 and parts[0] == "(" and parts[-1] == ")":
        parts = parts[1:-1]
    if parts and parts[0] in ("-", "+"):
        parts = parts[1:]
    return len(parts) == 1 and sig[i][0] in ("number", "punct") and is_pow2_literal(parts[0])


def match_fwd(sig, i):
    depth = 0
    for k in range(i, len(sig)):
        t = sig[k][1]
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            depth -= 1
            if depth == 0:
                return k
    raise RewriteError("unbalanced %r" % sig[i][1])


def match_back(sig, i):
    depth = 0
    for k in range(i, -1, -1):
        t = sig[k][1]
        if t in CLOSE:
            depth += 1
        elif t in OPEN:
            depth -= 1
            if depth == 0:
                return k
    raise RewriteError("unbalanced %r" % sig[i][1])


def is_name(tok):
    return tok[0] == "ident" and tok[1] not in KEYWORDS


def unary_fwd(sig, i):
    """The last index of the unary expression that starts at sig[i]."""
    while i < len(sig) and sig[i][1] in UNARY:
        i += 1
    if i >= len(sig):
        raise RewriteError("a division without a divisor")
    kind, t, _ = sig[i]
    if t == "(":
        i = match_fwd(sig, i)
    elif kind == "ident":
        if i + 1 < len(sig) and sig[i + 1][1] == "(":
            i = match_fwd(sig, i + 1)
    elif kind != "number":
        raise RewriteError("a divisor that starts with %r" % t)
    while i + 1 < len(sig):
        nxt = sig[i + 1][1]
        if nxt == "[":
            i = match_fwd(sig, i + 1)
        elif nxt == "." and i + 2 < len(sig) and sig[i + 2][0] == "ident":
            i += 2
            if i + 1 < len(sig) and sig[i + 1][1] == "(":
                i = match_fwd(sig, i + 1)
        elif nxt in ("++", "--"):
            i += 1
        else:
            break
    return i


def is_unary_at(sig, i):
    if i == 0:
        return True
    prev = sig[i - 1]
    return not (is_name(prev) or prev[0] == "number" or prev[1] in (")", "]"))


def unary_back(sig, j):
    """The first index of the unary expression that ends at sig[j]."""
    k = j
    while True:
        kind, t, _ = sig[k]
        if t in ("++", "--"):
            k -= 1
            continue
        if t == "]":
            k = match_back(sig, k) - 1
            continue
        if t == ")":
            k = match_back(sig, k)
            if k > 0 and is_name(sig[k - 1]):
                k -= 1
        elif not (is_name(sig[k]) or kind == "number"):
            raise RewriteError("a dividend that ends with %r" % t)
        if k >= 2 and sig[k - 1][1] == ".":
            k -= 2
            continue
        break
    while k > 0 and sig[k - 1][1] in UNARY and is_unary_at(sig, k - 1):
        k -= 1
    return k


def assignment_end(sig, i):
    """The last index of the assignment expression that starts at sig[i]."""
    depth = 0
    k = i
    while k < len(sig):
        t = sig[k][1]
        if t in OPEN:
            depth += 1
        elif t in CLOSE:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and t in (";", ","):
            break
        k += 1
    if k == i:
        raise RewriteError("'/=' without a right side")
    return k - 1


def find_division(toks, mask):
    """(sig, index) of the first division in code that is not by a power of
    two; None when there is none."""
    sig = [(k, t, s, n) for n, (k, t, s) in enumerate(toks) if k not in ("ws", "lcomment", "bcomment", "pp")]
    sig3 = [(k, t, s) for k, t, s, _ in sig]
    for p, (kind, t, _, n) in enumerate(sig):
        if kind != "punct" or t not in ("/", "/=") or not mask[n]:
            continue
        end = unary_fwd(sig3, p + 1) if t == "/" else assignment_end(sig3, p + 1)
        if not pow2_divisor(sig3, p + 1, end):
            return sig, p, end
    return None


def rewrite_text(text, guarded):
    count = 0
    while True:
        toks = tokenize(text)
        found = find_division(toks, glsl_mask(toks, guarded))
        if not found:
            return text, count
        sig, p, end = found
        sig3 = [(k, t, s) for k, t, s, _ in sig]
        op = sig[p][1]
        if op == "/":
            k = unary_back(sig3, p - 1)
            while k >= 2 and sig[k - 1][1] in ("*", "/", "%"):
                k = unary_back(sig3, k - 2)
        else:
            k = unary_back(sig3, p - 1)
            lhs = [t for _, t, _, _ in sig[k:p]]
            if any(t in ("++", "--", "(") for t in lhs):
                raise RewriteError("'/=' whose left side has a call or a side effect: %s" % " ".join(lhs))
        first, last = sig[k][3], sig[end][3]
        if any(toks[n][0] == "pp" for n in range(first, last + 1)):
            raise RewriteError("a division across a preprocessor line")
        a0 = toks[first][2]
        a1 = toks[sig[p - 1][3]][2] + len(toks[sig[p - 1][3]][1])
        b0 = toks[sig[p + 1][3]][2]
        b1 = toks[last][2] + len(toks[last][1])
        left, right = text[a0:a1], text[b0:b1]
        call = "emu_div(%s, %s)" % (left, right)
        if op == "/=":
            call = "%s = %s" % (left, call)
        text = text[:a0] + call + text[b1:]
        count += 1


def divisions_in(sig, mask):
    """The offsets of the divisions among the significant tokens sig (kind,
    text, offset, index) whose mask[index] is set, but by a power-of-two
    literal."""
    found = []
    for p, (kind, t, s, n) in enumerate(sig):
        if kind != "punct" or t not in ("/", "/=") or not mask[n]:
            continue
        # The divisor: a literal, signed or in parentheses, and then nothing
        # that binds tighter than the operator (for "/=": the end of the
        # assignment).
        q, opened = p + 1, 0
        while q < len(sig) and sig[q][1] in ("(", "-", "+"):
            opened += sig[q][1] == "("
            q += 1
        literal = q < len(sig) and sig[q][0] == "number" and is_pow2_literal(sig[q][1])
        q += 1
        while literal and opened and q < len(sig) and sig[q][1] == ")":
            opened -= 1
            q += 1
        after = sig[q][1] if q < len(sig) else ";"
        ends = (";", ",", ")", "]", "}") if t == "/=" else None
        if not (literal and not opened and (after in ends if ends else after not in ("(", "[", ".", "++", "--"))):
            found.append(s)
    return found


def leftover(text, guarded):
    """Every division left in code, or in a macro's body (which code may
    expand), but by a power-of-two literal, as (line, text): an independent
    scan of the result."""
    toks = tokenize(text)
    mask = glsl_mask(toks, guarded)
    sig = [(k, t, s, n) for n, (k, t, s) in enumerate(toks) if k not in ("ws", "lcomment", "bcomment", "pp")]
    offsets = divisions_in(sig, mask)
    for n, (kind, t, s) in enumerate(toks):
        d = re.match(r"\s*#\s*define\s+\w+(\([^)]*\))?", t) if kind == "pp" and mask[n] else None
        if d:
            body = [x for x in tokenize(" " + t[d.end() :]) if x[0] not in ("ws", "lcomment", "bcomment", "pp")]
            offsets += [s + d.end() + o - 1 for o in divisions_in([b + (0,) for b in body], [True])]
    lines = text.splitlines()
    return [(text.count("\n", 0, s) + 1, lines[text.count("\n", 0, s)].strip()) for s in sorted(offsets)]


def main(argv):
    if len(argv) != 3:
        print("usage: div_rewrite.py SRC DST (SRC: the shaders directory; DST: made, must not exist)", file=sys.stderr)
        return 2
    src, dst = argv[1], argv[2]
    if not os.path.isfile(os.path.join(src, "emulate.glsl")):
        print("div_rewrite.py: %s has no emulate.glsl: not a shaders directory" % src, file=sys.stderr)
        return 2
    shutil.copytree(src, dst)
    total, bad = 0, []
    for name in sorted(os.listdir(dst)):
        path = os.path.join(dst, name)
        if name == "emulate.glsl":
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write("#define BOIDS_DIV_REWRITTEN 1\n" + text)
            continue
        guarded = name == "shared.h"
        if not (guarded or name.endswith(".glsl") or name.endswith(".comp")):
            continue
        with open(path) as f:
            text = f.read()
        try:
            text, n = rewrite_text(text, guarded)
        except RewriteError as e:
            print("div_rewrite.py: %s: %s" % (name, e), file=sys.stderr)
            return 1
        with open(path, "w") as f:
            f.write(text)
        total += n
        bad += ["%s:%d: %s" % (name, line, t) for line, t in leftover(text, guarded)]
    if bad:
        print("div_rewrite.py: divisions left after the rewrite:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print("div_rewrite.py: %d divisions rewritten into emu_div() in %s" % (total, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
