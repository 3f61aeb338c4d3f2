#!/usr/bin/env python3
"""tests/shader_lint.py DIR: the portability lint of the compute shaders.

DIR holds every compute shader as the backend assembles it (written by
boids-shader-source, tests/shader_source.c: each stage with and without
GL_ARB_gpu_shader_int64 and with each kernel's defines). Each is scanned for
what GLSL 4.50 lets a driver do differently, the hazards that made an NVIDIA
H200 disagree with the C reference or hang where Mesa's llvmpipe did not:

  conversion  a float converted to a 64-bit integer (int64_t, uint64_t,
              i64vecN, u64vecN of a float expression): a driver may convert
              through 32 bits, which flips the sign of every value of 2^31
              or more;
  barrier     barrier() under a branch or loop whose condition depends on the
              invocation (gl_LocalInvocationID, gl_GlobalInvocationID,
              global_index() and what is computed from them), or after a
              return that such a condition guards: undefined in GLSL (all
              invocations of a work group must reach each barrier);
  shadow      a variable, parameter or function named as a GLSL built-in
              function (the built-in is hidden, or the driver rejects it);
  extension   a GL_ARB_gpu_shader_int64 type, function or literal outside a
              `#ifdef BOIDS_INT64` block (the only part compiled where the
              driver lacks it), or any other extension's built-ins.

Prints one line per finding (file:line: kind: text) and exits 1 if any.
--self-test checks that each hazard, written into a small shader, is found
(and that the clean twin is not), so the lint itself cannot pass vacuously.
"""
import os
import re
import sys

BUILTINS = set(
    """radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2 log2
    sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step
    smoothstep isnan isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat fma frexp ldexp
    packUnorm2x16 packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16 unpackSnorm2x16 unpackUnorm4x8
    unpackSnorm4x8 packHalf2x16 unpackHalf2x16 packDouble2x32 unpackDouble2x32 length distance dot cross
    normalize faceforward reflect refract matrixCompMult outerProduct transpose determinant inverse
    lessThan lessThanEqual greaterThan greaterThanEqual equal notEqual any all not uaddCarry usubBorrow
    umulExtended imulExtended bitfieldExtract bitfieldInsert bitfieldReverse bitCount findLSB findMSB
    atomicAdd atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExchange atomicCompSwap barrier
    memoryBarrier memoryBarrierShared memoryBarrierBuffer memoryBarrierImage groupMemoryBarrier
    texture texelFetch imageLoad imageStore""".split()
)
INT64_WORDS = re.compile(r"\b(int64_t|uint64_t|[iu]64vec[234]|packUint2x32|unpackUint2x32|packInt2x32|unpackInt2x32)\b")
INT64_LITERAL = re.compile(r"(?<![\w.])\d+u?[lL]\b")
OTHER_EXT = re.compile(r"\b(ballotARB|readInvocationARB|readFirstInvocationARB|subgroup\w+|gl_Subgroup\w+)\b")
WIDE_CTOR = re.compile(r"\b(int64_t|uint64_t|[iu]64vec[234])\s*\(")
TYPES = r"(?:float|double|int|uint|bool|[biud]?vec[234]|int64_t|uint64_t|[iu]64vec[234]|fix64|fix64x3|gather|boids_\w+)"
FLOAT_DECL = re.compile(r"\b(?:precise\s+)?(?:float|double|vec[234]|dvec[234])\s+(\w+)")
FLOAT_FUNC = re.compile(r"\b(?:float|double|vec[234])\s+(\w+)\s*\(")
INVOCATION = re.compile(r"gl_LocalInvocationID|gl_GlobalInvocationID|gl_LocalInvocationIndex|\bglobal_index\s*\(")


def strip_comments(text):
    """Comments blanked (line structure kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def balanced(text, open_at):
    """The text between the parenthesis at open_at and its match."""
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : k]
    return text[open_at + 1 :]


def function_at(code, pos):
    """(start, end) of the top-level brace block (a function body) holding
    pos, start at its header's line; (0, len) outside any."""
    depth, opened = 0, None
    for k, ch in enumerate(code):
        if ch == "{":
            if depth == 0:
                opened = k
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and opened is not None and opened <= pos <= k:
                return code.rfind("\n", 0, code.rfind(")", 0, opened)) + 1, k + 1
    return 0, len(code)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def active_lines(lines):
    """Per line: whether a BOIDS_INT64 guard encloses it (an #ifdef
    BOIDS_INT64 branch, not its #else)."""
    stack, guarded = [], []
    for line in lines:
        s = line.strip()
        if re.match(r"#\s*(ifdef|ifndef|if)\b", s):
            kind = re.match(r"#\s*(ifdef|ifndef|if)\b", s).group(1)
            on = "BOIDS_INT64" in s and kind != "ifndef" and "!" not in s
            stack.append([on, kind == "ifndef" and "BOIDS_INT64" in s])
        elif re.match(r"#\s*else\b", s) and stack:
            on, inverse = stack[-1]
            stack[-1] = [inverse, on]
        elif re.match(r"#\s*elif\b", s) and stack:
            stack[-1] = [False, False]
        elif re.match(r"#\s*endif\b", s) and stack:
            stack.pop()
        guarded.append(any(e[0] for e in stack))
    return guarded


def tainted_names(code):
    """Identifiers computed from the invocation's index, to a fixed point."""
    names = set()
    assign = re.compile(r"\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:[-+*/|&^]?=)(?!=)\s*([^;{}]*)[;{}]")
    for _ in range(4):
        grew = False
        for m in assign.finditer(code):
            lhs, rhs = m.group(1), m.group(2)
            if lhs in names:
                continue
            if INVOCATION.search(rhs) or any(re.search(r"\b%s\b" % re.escape(n), rhs) for n in names):
                names.add(lhs)
                grew = True
        # for (uint q = lid; ...) loops
        for m in re.finditer(r"\bfor\s*\(\s*\w+\s+(\w+)\s*=\s*([^;]*);", code):
            if m.group(1) not in names and (
                INVOCATION.search(m.group(2)) or any(re.search(r"\b%s\b" % re.escape(n), m.group(2)) for n in names)
            ):
                names.add(m.group(1))
                grew = True
        if not grew:
            break
    return names


def depends(cond, names):
    return bool(INVOCATION.search(cond)) or any(re.search(r"\b%s\b" % re.escape(n), cond) for n in names)


def enclosing_controls(code, pos):
    """The conditions of the if/for/while statements that enclose pos (with
    or without braces), innermost last."""
    found = []
    for m in re.finditer(r"\b(if|for|while)\s*\(", code[:pos]):
        open_at = code.index("(", m.start())
        cond = balanced(code, open_at)
        after = open_at + len(cond) + 2
        rest = code[after:]
        skip = len(rest) - len(rest.lstrip())
        body_at = after + skip
        if body_at < len(code) and code[body_at] == "{":
            depth, k = 0, body_at
            while k < len(code):
                if code[k] == "{":
                    depth += 1
                elif code[k] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            end = k
        else:
            end = code.find(";", body_at)
        if body_at <= pos <= end:
            found.append((m.group(1), cond))
    return found


def lint(name, text):
    findings = []
    code = strip_comments(text)
    lines = code.split("\n")
    guarded = active_lines(lines)

    # conversion: a 64-bit constructor of a float expression (the types of
    # its names from the enclosing function's declarations; a call from the
    # function's declared return type)
    int_funcs = set(re.findall(r"\b(?:u?int|[iu]vec[234]|int64_t|uint64_t|[iu]64vec[234]|fix64)\s+(\w+)\s*\(", code))
    int_funcs |= {"packUint2x32", "floatBitsToUint", "floatBitsToInt", "findMSB", "findLSB", "bitCount"}
    for m in WIDE_CTOR.finditer(code):
        arg = balanced(code, code.index("(", m.start()))
        a, b = function_at(code, m.start())
        local_floats = set(FLOAT_DECL.findall(code[a:b]))
        call = re.match(r"\s*(\w+)\s*\(", arg)
        if call and len(balanced(arg, arg.index("("))) + arg.index("(") + 2 >= len(arg.rstrip()):
            floaty = call.group(1) not in int_funcs
        else:
            bare = re.sub(r"\b\w+\s*\(", "(", arg)  # names of calls dropped
            floaty = (
                re.search(r"(?<![\w.])\d+\.\d*(?:[eE][-+]?\d+)?(?![\w])|(?<![\w.])\.\d+", bare)
                or any(re.search(r"\b%s\b" % re.escape(n), bare) for n in local_floats)
                or re.search(r"\b(float|vec[234]|uintBitsToFloat|intBitsToFloat)\s*\(", arg)
            )
        if floaty:
            findings.append((line_of(code, m.start()), "conversion", "%s(%s): a float to 64 bits" % (m.group(1), arg.strip())))

    # extension: int64 words and literals outside #ifdef BOIDS_INT64; others anywhere
    for i, line in enumerate(lines):
        if line.strip().startswith("#"):
            continue
        if not guarded[i]:
            for m in INT64_WORDS.finditer(line):
                findings.append((i + 1, "extension", "%s outside #ifdef BOIDS_INT64" % m.group(1)))
            for m in INT64_LITERAL.finditer(line):
                findings.append((i + 1, "extension", "64-bit literal %s outside #ifdef BOIDS_INT64" % m.group(0)))
        for m in OTHER_EXT.finditer(line):
            findings.append((i + 1, "extension", "%s: an extension's built-in (no fallback in GLSL 4.50 core)" % m.group(1)))

    # shadow: declarations named as built-in functions
    decl = re.compile(r"\b(?:(?:in|out|inout|const|precise)\s+)*" + TYPES + r"\s+(\w+)\s*(?=[=;,)\[(])")
    for m in decl.finditer(code):
        if m.group(1) in BUILTINS:
            findings.append((line_of(code, m.start(1)), "shadow", "'%s' hides the built-in" % m.group(1)))

    # barrier: under an invocation-dependent branch or loop, or after such a return
    for m in re.finditer(r"\bbarrier\s*\(\s*\)", code):
        fa, fb = function_at(code, m.start())
        names = tainted_names(code[fa:fb])
        for kind, cond in enclosing_controls(code, m.start()):
            if depends(cond, names):
                findings.append((line_of(code, m.start()), "barrier", "barrier() under %s (%s), which depends on the invocation" % (kind, cond.strip())))
        # returns earlier in the same function under an invocation-dependent condition
        for r in re.finditer(r"\breturn\b", code[fa : m.start()]):
            at = fa + r.start()
            for kind, cond in enclosing_controls(code, at):
                if depends(cond, names):
                    findings.append((line_of(code, m.start()), "barrier", "barrier() after a return under %s (%s)" % (kind, cond.strip())))
    return sorted(set(findings))


SELF_TEST = {
    "conversion": "#version 450 core\n#ifdef BOIDS_INT64\nint64_t f(float v) { return int64_t(v); }\n#endif\n",
    "barrier": "#version 450 core\nshared uint s[64];\nvoid main() {\n    uint lid = gl_LocalInvocationID.x;\n    if (lid < 32u) {\n        s[lid] = 1u;\n        barrier();\n    }\n}\n",
    "barrier-return": "#version 450 core\nvoid main() {\n    uint i = gl_GlobalInvocationID.x;\n    if (i >= 10u)\n        return;\n    barrier();\n}\n",
    "shadow": "#version 450 core\nfloat f(float distance) { float step = distance; return step; }\n",
    "extension": "#version 450 core\nuint64_t g(uint a) { return uint64_t(a) + 1ul; }\n",
}
CLEAN = (
    "#version 450 core\n#ifdef BOIDS_INT64\nint64_t f(uvec2 m) { return int64_t(packUint2x32(m)); }\n#endif\n"
    "shared uint s[64];\nvoid main() {\n    uint lid = gl_LocalInvocationID.x;\n    bool live = lid < 32u;\n"
    "    if (live)\n        s[lid] = 1u;\n    barrier();\n    for (int k = 0; k < 4; k++) {\n        barrier();\n    }\n}\n"
)


def self_test():
    bad = 0
    for kind, src in SELF_TEST.items():
        got = {f[1] for f in lint(kind, src)}
        want = kind.split("-")[0]
        if want not in got:
            print("self-test FAIL: the %s hazard was not found (found: %s)" % (kind, sorted(got) or "nothing"))
            bad += 1
    clean = lint("clean", CLEAN)
    if clean:
        print("self-test FAIL: the clean shader gives %s" % clean)
        bad += 1
    print("shader lint self-test: %d passed, %d failed" % (len(SELF_TEST) + 1 - bad, bad))
    return bad == 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return 0 if self_test() else 1
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: shader_lint.py DIR (the assembled shaders of boids-shader-source) | --self-test", file=sys.stderr)
        return 2
    files = sorted(f for f in os.listdir(argv[1]) if f.endswith(".comp"))
    if not files:
        print("shader_lint.py: no .comp file in %s" % argv[1], file=sys.stderr)
        return 1
    total = 0
    for f in files:
        with open(os.path.join(argv[1], f), encoding="utf-8") as fp:
            for line, kind, what in lint(f, fp.read()):
                print("%s:%d: %s: %s" % (f, line, kind, what))
                total += 1
    print("shader lint: %d shaders, %d findings" % (len(files), total))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
