#!/usr/bin/env python3
"""tests/test_layers.py BUILD_DIR: the source files' dependencies point one way.

Two checks over src/ and include/boids/:

  layers  every `#include "..."` of a file, and every symbol its object takes
          from another file's object, goes to its own folder or to a folder
          LAYERS allows it (src/core reaches nothing above it, src/app never
          src/viewer, ...). The table follows the CMake targets' links
          (CMakeLists.txt): a folder may use what its targets link, narrowed
          where the design is narrower (the executables reach the GPU backend
          only through the engine).
  circles no two .c files depend on each other, directly or round a longer
          circle. X.c depends on Y.c when X's object has an undefined symbol
          that Y's object defines (`nm` of each target's objects, listed in
          BUILD_DIR/CMakeFiles/TARGET.dir/DependInfo.cmake; a symbol found in
          X's target, else in the targets it links, as the linker does), and
          when X includes Y.h, the header of the same stem beside Y.c,
          directly or through headers owned by no .c (viewer.h,
          engine_private.h, the public headers of include/boids/, a header
          declaring what several files define such as cli.h: each an
          interface of several files rather than one file's). Each strongly
          connected component of more than one file is a failure that names
          its files and the symbols and includes that close the circle.

A public header missing from HEADER_OWNERS, a folder of src/ or a target
with objects of src/ missing from LAYERS is a failure too, so the tables
keep up with the tree.

Prints one line per finding and exits 1 if any. The self-test (run first,
and alone with --self-test) feeds a small synthetic graph with a circle and
a folder reaching upwards, and checks that both are reported, so the test
cannot pass by finding nothing.
"""
import fnmatch
import os
import re
import subprocess
import sys

# Each folder, the CMake targets whose sources it holds, and the folders it
# may use besides itself. Lower folders first; nothing may point back up.
LAYERS = [
    # folder         CMake targets                        may use
    ("src/core",     ["boids_core"],                      []),
    ("src/platform", ["boids_platform", "boids_window"],  ["src/core"]),  # boids/platform.h: boids_result
    ("src/gl",       ["boids_gl"],                        ["src/core"]),
    ("src/gpu",      ["boids_gpu"],                       ["src/core", "src/gl", "src/platform"]),
    ("src/render",   ["boids_render"],                    ["src/core", "src/gl"]),
    ("src/engine",   ["boids_engine"],                    ["src/core", "src/gpu", "src/platform"]),
    ("src/mpi",      ["boids_mpi"],                       ["src/core", "src/engine"]),
    ("src/app",      ["boids_cli", "boids-run", "boids-validate", "boids-ensemble", "boids-bench"],
                     ["src/core", "src/platform", "src/render", "src/engine", "src/mpi"]),
    ("src/viewer",   ["boids"],                           ["src/core", "src/platform", "src/gl", "src/render",
                                                           "src/engine", "src/app"]),
]

# The public headers (include/boids/) and the folder each belongs to.
HEADER_OWNERS = {
    "src/core": ["atomic.h", "behaviors.h", "core.h", "debug.h", "error.h", "input.h", "parse.h", "quadtree.h",
                 "record.h", "registry.h", "scenario.h", "snapshot.h", "shared.h"],
    "src/platform": ["platform.h"],
    "src/gpu": ["gpu.h", "program_stats.h", "tolerance.h"],
    "src/engine": ["engine.h", "ensemble.h"],
    "src/render": ["render.h"],
}

# Exceptions: none, and none are to be added. An entry would be a set of
# file patterns (fnmatch: "src/mpi/*" is every file under src/mpi); a circle,
# or a folder edge, whose files all match one entry's patterns, each pattern
# matching one of them, would be reported as allowed instead of failing; an
# entry that matches nothing is reported for removal.
TEMPORARY_ALLOWED = []

SOURCE_SUFFIXES = (".c", ".h")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


# ---- the tree: files, folders, includes ----

def folder_of(path):
    """The LAYERS folder of a repository path (None for files outside it)."""
    if path.startswith("include/boids/") or path == "shaders/shared.h":
        name = os.path.basename(path)
        for folder, headers in HEADER_OWNERS.items():
            if name in headers:
                return folder
        return None
    for folder, _, _ in LAYERS:
        if path.startswith(folder + "/"):
            return folder
    return None


def allowed_folders():
    return {folder: set(uses) | {folder} for folder, _, uses in LAYERS}


def source_files(root):
    """Every .c and .h under src/ and include/boids/, as repository paths."""
    out = []
    for top in ("src", "include/boids"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith(SOURCE_SUFFIXES):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


def read_includes(root, files):
    """({file: [(line, quoted include)]}, {file: its text})."""
    out, texts = {}, {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            texts[f] = fh.read()
        out[f] = [(texts[f].count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE_RE.finditer(texts[f])]
    return out, texts


def resolve_include(including, name, files):
    """The repository path of `#include "name"` in file `including`: beside
    it, then under include/, then boids/shared.h (a copy of shaders/shared.h),
    then the one header of that name under src/ (the folders CMake puts on
    the include path). None if not found."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if beside in files:
        return beside
    if "include/" + name in files:
        return "include/" + name
    if name == "boids/shared.h":
        return "shaders/shared.h"
    found = [f for f in files if f.startswith("src/") and os.path.basename(f) == os.path.basename(name)
             and f.endswith("/" + name)]
    return found[0] if len(found) == 1 else None


COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
WORD_RE = re.compile(r"[A-Za-z_]\w*")


def header_owner(header, c_files, text="", definers=None):
    """The .c of the same stem beside header, or None: a header owned by no
    file (viewer.h, engine_private.h, every public header of include/boids/,
    and a header that declares what several files define, such as cli.h:
    each the interface of a module or of several files rather than one
    file's; their functions are followed through the symbols)."""
    beside = os.path.splitext(header)[0] + ".c"
    if beside not in c_files:
        return None
    if definers:
        words = set(WORD_RE.findall(COMMENT_RE.sub(" ", text)))
        files = {f for w in words for f in definers.get(w, ())}
        if files - {beside}:
            return None
    return beside


# ---- the build: symbols of the objects ----

DEPEND_PAIR_RE = re.compile(r'"([^"]+\.c)"\s+"(CMakeFiles/[^"]+\.o)"')
LINKED_RE = re.compile(r'CMakeFiles/([^/"]+)\.dir/DependInfo\.cmake')


def read_objects(root, build):
    """({source: [(target, object path)]}, {target: {targets it links}}) for
    the objects of src/ in the build directory: each target's own list
    (CMakeFiles/TARGET.dir/DependInfo.cmake, with the targets it links),
    else every object in its folder; objects whose source is gone are left
    out."""
    out, links = {}, {}
    top = os.path.join(build, "CMakeFiles")
    if not os.path.isdir(top):
        return out, links
    src_top = os.path.join(os.path.realpath(root), "src") + os.sep
    for entry in sorted(os.listdir(top)):
        if not entry.endswith(".dir"):
            continue
        target = entry[:-4]
        objs = []
        info = os.path.join(top, entry, "DependInfo.cmake")
        text = open(info, encoding="utf-8").read() if os.path.exists(info) else ""
        for source, obj in DEPEND_PAIR_RE.findall(text):
            source = os.path.realpath(source)
            if source.startswith(src_top):
                objs.append((os.path.relpath(source, os.path.realpath(root)), os.path.join(build, obj)))
        linked = text[text.find("CMAKE_TARGET_LINKED_INFO_FILES"):]
        links[target] = set(LINKED_RE.findall(linked[:linked.find(")")]))
        if not DEPEND_PAIR_RE.search(text):  # another generator: the folder's objects
            base = os.path.join(top, entry, "src")
            for dirpath, _, names in os.walk(base):
                for name in names:
                    if name.endswith(".c.o"):
                        obj = os.path.join(dirpath, name)
                        objs.append((os.path.relpath(obj, os.path.join(top, entry))[:-2], obj))
        for source, obj in objs:
            if os.path.exists(os.path.join(root, source)) and os.path.exists(obj):
                out.setdefault(source, []).append((target, obj))
    return out, links


def read_symbols(obj):
    """(defined, undefined) global symbols of an object file, via nm."""
    res = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def symbol_edges(objects, links):
    """({(X, Y): {symbol}}, {symbol: {files defining it}}): X's object needs
    a symbol Y's defines, found as the linker finds it: in X's own target,
    else in the targets it links (each executable has its own main), else
    anywhere."""
    syms = {}  # (source, target) -> (defined, undefined)
    for source, objs in objects.items():
        for target, obj in objs:
            syms[(source, target)] = read_symbols(obj)
    definers = {}  # symbol -> {(source, target)}
    for key, (defined, _) in syms.items():
        for s in defined:
            definers.setdefault(s, set()).add(key)
    edges = {}
    for (source, target), (_, undefined) in syms.items():
        for s in undefined:
            where = definers.get(s, set())
            found = ({src for src, tgt in where if tgt == target}
                     or {src for src, tgt in where if tgt in links.get(target, ())}
                     or {src for src, _ in where})
            for other in found:
                if other != source:
                    edges.setdefault((source, other), set()).add(s)
    return edges, {s: {src for src, _ in where} for s, where in definers.items()}


# ---- the checks (pure: graphs in, findings out) ----

def include_edges(includes, resolved, c_files, texts=None, definers=None):
    """{(X.c, Y.c): {"#include y.h"}}: X.c (or a header X.c owns) includes,
    directly or through headers owned by no .c, a header owned by Y.c."""
    texts = texts or {}
    owner = {h: header_owner(h, c_files, texts.get(h, ""), definers) for h in includes if h.endswith(".h")}

    def node(f):
        return f if f.endswith(".c") else owner.get(f)

    edges = {}
    for f in includes:
        start = node(f)
        if start is None:
            continue  # an unowned header counts where it is included
        seen, todo = set(), [f]
        while todo:
            cur = todo.pop()
            for _, name in includes.get(cur, []):
                h = resolved.get((cur, name))
                if h is None or h in seen:
                    continue
                seen.add(h)
                o = owner.get(h)
                if o is None:
                    todo.append(h)  # owned by no file: look through it
                elif o != start:
                    edges.setdefault((start, o), set()).add("#include " + os.path.basename(h))
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's strongly connected components of the graph."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(max(10000, 4 * len(succ)))
    for v in sorted(succ):
        if v not in index:
            visit(v)
    return out


def covered(files, entry):
    """Every file matches a pattern of entry, and every pattern a file."""
    return (all(any(fnmatch.fnmatchcase(f, e) for e in entry) for f in files)
            and all(any(fnmatch.fnmatchcase(f, e) for f in files) for e in entry))


def find_circles(edges, allowed):
    """(failures, notes, used entries) for every circle of more than one file."""
    nodes = {n for e in edges for n in e}
    failures, notes, used = [], [], set()
    for comp in strongly_connected(nodes, edges):
        if len(comp) < 2:
            continue
        inside = set(comp)
        lines = [f"  {a} -> {b}: {', '.join(sorted(why))}"
                 for (a, b), why in sorted(edges.items()) if a in inside and b in inside]
        entry = next((i for i, e in enumerate(allowed) if covered(comp, e)), None)
        head = "circle between " + ", ".join(comp)
        if entry is None:
            failures.append("FAIL: " + head + "\n" + "\n".join(lines))
        else:
            used.add(entry)
            notes.append("allowed for now (TEMPORARY_ALLOWED): " + head + "\n" + "\n".join(lines))
    return failures, notes, used


def find_layer_breaks(edges, allowed):
    """(failures, notes, used entries) for every file edge from a folder to
    one LAYERS does not let it use."""
    may = allowed_folders()
    failures, notes, used = [], [], set()
    for (a, b), why in sorted(edges.items()):
        fa, fb = folder_of(a), folder_of(b)
        if fa is None or fb is None or fb in may.get(fa, {fa}):
            continue
        line = f"{a} ({fa}) uses {b} ({fb}): {', '.join(sorted(why))}"
        entry = next((i for i, e in enumerate(allowed) if covered([a, b], e)), None)
        if entry is None:
            failures.append(f"FAIL: {line}; {fa} may use only {', '.join(sorted(may[fa]))}")
        else:
            used.add(entry)
            notes.append("allowed for now (TEMPORARY_ALLOWED): " + line)
    return failures, notes, used


def table_gaps(files, objects):
    """Failures for what the tables do not place: a public header, a folder
    of src/, a target with objects of src/."""
    out = []
    for f in sorted(files):
        if folder_of(f) is None:
            where = "HEADER_OWNERS" if f.startswith("include/") else "LAYERS"
            out.append(f"FAIL: {f} belongs to no folder of {where}: add it")
    targets = {t for _, row_targets, _ in LAYERS for t in row_targets}
    for source, objs in sorted(objects.items()):
        for target, _ in objs:
            if target not in targets:
                out.append(f"FAIL: target {target} (with {source}) is in no row of LAYERS: add it")
                targets.add(target)
    return out


# ---- the run ----

def check(root, build):
    files = set(source_files(root))
    files.add("shaders/shared.h")
    includes, texts = read_includes(root, sorted(files - {"shaders/shared.h"}))
    includes["shaders/shared.h"] = []
    failures = []
    resolved = {}
    file_edges = {}  # every include, owned or not, for the layers
    for f, incs in includes.items():
        for line, name in incs:
            h = resolve_include(f, name, files)
            if h is None:
                failures.append(f'FAIL: {f}:{line}: #include "{name}" found nowhere in the tree')
                continue
            resolved[(f, name)] = h
            if h != f:
                file_edges.setdefault((f, h), set()).add(f'#include "{name}" (line {line})')
    c_files = {f for f in files if f.endswith(".c")}

    objects, links = read_objects(root, build)
    missing = sorted(c for c in c_files if c not in objects)
    if not objects:
        failures.append(f"FAIL: no objects of src/ under {build}/CMakeFiles: build first")
    for c in missing:
        print(f"note: {c} has no object in {build} (not built, or not in this configuration): includes only")
    for c, objs in sorted(objects.items()):
        if any(os.path.getmtime(o) < os.path.getmtime(os.path.join(root, c)) for _, o in objs):
            print(f"note: {c} is newer than its object: build first, or its symbols are the old ones")
    sym_edges, definers = symbol_edges(objects, links)
    print(f"{len(files)} files, {len(c_files)} .c ({len(objects)} with objects), "
          f"{sum(len(v) for v in includes.values())} includes, {len(sym_edges)} symbol edges")

    layer_edges = dict(file_edges)
    for k, v in sym_edges.items():
        layer_edges.setdefault(k, set()).update(v)
    lf, ln, lu = find_layer_breaks(layer_edges, TEMPORARY_ALLOWED)
    failures += table_gaps(files, objects)

    dep_edges = dict(sym_edges)
    for k, v in include_edges(includes, resolved, c_files, texts, definers).items():
        dep_edges[k] = dep_edges.get(k, set()) | v
    cf, cn, cu = find_circles(dep_edges, TEMPORARY_ALLOWED)

    for note in ln + cn:
        print(note)
    failures += lf + cf
    for i, entry in enumerate(TEMPORARY_ALLOWED):
        present = all(any(fnmatch.fnmatchcase(c, e) for c in objects) for e in entry)
        if i not in lu | cu and present:
            print(f"note: TEMPORARY_ALLOWED entry {entry} matches nothing any more: remove it")
    return failures


def self_test():
    """A synthetic tree: a.c <-> b.c through a symbol and an include, c.c
    using a.c one way, a core file using an engine file."""
    problems = []
    sym = {("src/app/a.c", "src/app/b.c"): {"b_run"}, ("src/app/b.c", "src/app/c.c"): {"c_draw"}}
    includes = {"src/app/c.c": [(1, "a.h")], "src/app/a.h": [], "src/app/a.c": [(1, "a.h")],
                "src/app/b.c": [(1, "shared.h")], "src/app/shared.h": [(1, "c.h")], "src/app/c.h": []}
    resolved = {("src/app/c.c", "a.h"): "src/app/a.h", ("src/app/a.c", "a.h"): "src/app/a.h",
                ("src/app/b.c", "shared.h"): "src/app/shared.h",
                ("src/app/shared.h", "c.h"): "src/app/c.h"}
    c_files = {"src/app/a.c", "src/app/b.c", "src/app/c.c"}
    inc = include_edges(includes, resolved, c_files)
    if inc != {("src/app/c.c", "src/app/a.c"): {"#include a.h"},
               ("src/app/b.c", "src/app/c.c"): {"#include c.h"}}:
        problems.append(f"include edges (through an unowned header) wrong: {inc}")
    edges = dict(sym)
    for k, v in inc.items():
        edges[k] = edges.get(k, set()) | v
    failures, _, _ = find_circles(edges, [])
    if len(failures) != 1 or not all(s in failures[0] for s in ("src/app/a.c", "src/app/b.c", "src/app/c.c",
                                                                  "b_run", "c_draw", "#include a.h")):
        problems.append(f"the circle a.c -> b.c -> c.c -> a.c not reported with its symbols: {failures}")
    failures, notes, used = find_circles(edges, [("src/app/*",)])
    if failures or len(notes) != 1 or used != {0}:
        problems.append(f"an allowed circle not reported as allowed: {failures} {notes}")
    del edges[("src/app/c.c", "src/app/a.c")]
    failures, _, _ = find_circles(edges, [])
    if failures:
        problems.append(f"a circle reported in a graph without one: {failures}")
    failures, _, _ = find_layer_breaks({("src/core/x.c", "include/boids/engine.h"): {"#include"},
                                        ("src/engine/y.c", "src/core/x.c"): {"x"}}, [])
    if len(failures) != 1 or "src/core/x.c (src/core) uses include/boids/engine.h (src/engine)" not in failures[0]:
        problems.append(f"src/core using src/engine not reported (alone): {failures}")
    defs = {"a_run": {"src/app/a.c"}, "b_run": {"src/app/b.c"}}
    own = header_owner("src/app/a.h", c_files, "int a_run(void); // not b_run\n", defs)
    shared = header_owner("src/app/a.h", c_files, "int a_run(void);\nint b_run(void);\n", defs)
    if own != "src/app/a.c" or shared is not None:
        problems.append(f"a.h owned by a.c alone ({own}), a header of two files' functions by none ({shared})")
    for p in problems:
        print("SELF-TEST FAIL: " + p)
    if not problems:
        print("self-test: a circle of three files and a folder reaching upwards found")
    return not problems


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    if not self_test():
        return 1
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    failures = check(root, os.path.abspath(argv[1]))
    for f in failures:
        print(f)
    print(f"{len(failures)} finding(s)" if failures else "the dependencies point one way")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
