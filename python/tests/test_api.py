"""Tests of the Python API's contract: fork-started pools after OpenMP,
integer and array arguments, boids-run's flags as keywords, documented
examples, the cffi declarations against the C headers, and the neighbour
graph against a brute-force numpy computation."""

import doctest
import importlib
import multiprocessing
import os
import pkgutil
import re
import subprocess

import numpy as np
import pytest

import boids

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BIN_DIR = os.environ.get("BOIDS_BIN_DIR", os.path.join(ROOT, "build", "bin"))


def run_hash(*flags):
    """boids-run's state-hash for the flags."""
    out = subprocess.run([os.path.join(BIN_DIR, "boids-run"), *flags, "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    line = [x for x in out.splitlines() if x.startswith("state-hash:")][0]
    return int(line.split()[1], 16)


# ---- fork after OpenMP ----------------------------------------------------------


def _hash_after(seed):
    """A forked worker: the hash of a 600-agent flock of `seed` after 12 steps
    (the worker's own OpenMP steps, after the parent's)."""
    with boids.Simulation(count=600, seed=seed, threads=2) as sim:
        sim.step(12)
        return sim.state_hash


def test_fork_pool_after_the_parent_stepped():
    """A fork-started pool steps simulations after the parent used OpenMP
    threads (libgomp's pool does not survive fork: the children step on one
    thread), with the parent's hashes; a hang fails on the timeout."""
    seeds = [1, 2, 3, 4]
    expected = []
    for seed in seeds:
        expected.append(_hash_after(seed))  # the parent's OpenMP pool now exists
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(2)
    try:
        got = pool.map_async(_hash_after, seeds).get(timeout=120)
    except multiprocessing.TimeoutError:
        pytest.fail("a fork-started worker hung stepping a simulation (OpenMP after fork)")
    finally:
        pool.terminate()
        pool.join()
    assert got == expected


# ---- integers, arrays ----------------------------------------------------------


def test_numpy_integers_are_accepted():
    """Anything operator.index takes is an integer argument."""
    with boids.Simulation(count=np.int64(100), dim=np.int32(2), seed=np.uint64(4), threads=np.int8(1)) as sim, \
            boids.Simulation(count=100, seed=4) as same:
        sim.step(np.int64(2))
        same.step(2)
        assert sim.count == 100 and sim.steps == 2
        assert sim.state_hash == same.state_hash
        sim.set(maxspeed=np.float32(2.5), group=np.int64(0))
        sim.enable("wander", group=np.uint8(0))


@pytest.mark.parametrize("call", [
    lambda: boids.Simulation(count="10"),
    lambda: boids.Simulation(count=10.0),
    lambda: boids.Simulation(dim=2.0),
    lambda: boids.Simulation(seed="1"),
    lambda: boids.Simulation(threads=1.5),
    lambda: boids.Simulation(count=10, radius="wide"),
    lambda: boids.Simulation(count=10, boundary=3),
    lambda: boids.Simulation(count=10, world=800),
    lambda: boids.Simulation(count=10, behaviors=[1, 2]),
    lambda: boids.Simulation(count=10, nosuch=1),
])
def test_wrong_types_are_type_errors(call):
    """A wrong type (or an unknown keyword) is a TypeError."""
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("call,words", [
    (lambda: boids.Simulation(count=0), ["count", "0"]),
    (lambda: boids.Simulation(count=2**40), ["count"]),
    (lambda: boids.Simulation(threads=2**40), ["threads"]),
    (lambda: boids.Simulation(threads=-1), ["threads"]),
    (lambda: boids.Simulation(seed=2**64), ["seed"]),
    (lambda: boids.Simulation(dim=4), ["dim", "4"]),
    (lambda: boids.Simulation(count=10, radius=-1), ["radius", "-1"]),
    (lambda: boids.Simulation(count=10, boundary="sticky"), ["boundary", "sticky", "walls"]),
    (lambda: boids.Simulation(count=10, wall_corner="x"), ["wall_corner", "both"]),
    (lambda: boids.Simulation(count=10, behaviors="flying"), ["behaviors", "flying"]),
    (lambda: boids.Simulation(count=10, world=(800, 600, 100)), ["world", "3"]),
    (lambda: boids.Simulation(count=10, rules="vicsek"), ["vicsek", "alignment"]),
])
def test_bad_values_are_value_errors(call, words):
    """A value out of range or refused by the engine: ValueError naming the keyword."""
    with pytest.raises(ValueError) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_step_bad_counts():
    """step: TypeError for a float or str, ValueError below 0 or past 2^64 - 1."""
    with boids.Simulation(count=50) as sim:
        for bad in (1.0, "2", None):
            with pytest.raises(TypeError):
                sim.step(bad)
        for bad in (-1, 2**64):
            with pytest.raises(ValueError):
                sim.step(bad)
        assert sim.steps == 0


def test_init_sets_the_count_and_converts():
    """init= gives the count (and 3 columns the dimension); integer arrays
    and lists are converted; a conflicting count names both."""
    with boids.Simulation(count=120, seed=3) as src:
        src.step(4)
        pos, vel, group = src.read()
        expected = src.state_hash
    with boids.Simulation(init=(pos, vel, group)) as sim:
        assert sim.count == 120 and sim.dim == 2
        assert sim.state_hash == expected
    ints = np.arange(20).reshape(10, 2) * 3
    with boids.Simulation(init=(ints, np.ones((10, 2), dtype=np.int64), [0] * 10)) as sim:
        assert sim.count == 10
        assert np.array_equal(sim.positions, ints.astype(np.float32))
    with boids.Simulation(init=(np.full((5, 3), 10.0).tolist(), np.zeros((5, 3)).tolist(), [0] * 5)) as sim:
        assert sim.count == 5 and sim.dim == 3
    with pytest.raises(ValueError) as info:
        boids.Simulation(count=50, init=(pos, vel, group))
    assert "50" in str(info.value) and "120" in str(info.value)


def test_init_from_a_csv(tmp_path):
    """init= a CSV path reads it as boids-run --init does: the same hash;
    a bad file names itself."""
    csv = str(tmp_path / "start.csv")
    subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--count", "150", "--steps", "3", "--quiet",
                    "--export-csv", csv], check=True, capture_output=True)
    # (A flag that resizes the world, --radius, would leave agents outside it:
    # refused, as a snapshot's would be.)
    expected = run_hash("--init", csv, "--steps", "5", "--maxforce", "0.07")
    with boids.Simulation(init=csv, maxforce=0.07) as sim:
        assert sim.count == 150
        sim.step(5)
        assert sim.state_hash == expected
    bad = tmp_path / "bad.csv"
    bad.write_text("id,group,px\n0,0,1\n")
    with pytest.raises(ValueError, match="bad.csv"):
        boids.Simulation(init=str(bad))
    with pytest.raises(OSError, match="nowhere.csv"):
        boids.Simulation(init=str(tmp_path / "nowhere.csv"))


# ---- boids-run's flags as keywords -----------------------------------------------


@pytest.mark.parametrize("kwargs,flags", [
    ({"radius": 60}, ["--radius", "60"]),
    ({"world": (400, 300), "boundary": "walls"}, ["--world", "400x300", "--boundary", "walls"]),
    ({"behaviors": ["separation", "cohesion", "wander"]}, ["--behaviors", "separation,cohesion,wander"]),
    ({"world": (500, 500), "origin": (-250, -250), "boundary": "bounce", "separation": 20, "fov": 270,
      "maxspeed": 4, "maxforce": 0.1, "weights": {"alignment": 2}, "dt": 0.5},
     ["--world", "500x500", "--origin", "-250,-250", "--boundary", "bounce", "--separation", "20",
      "--fov", "270", "--maxspeed", "4", "--maxforce", "0.1", "--weights", "alignment=2", "--dt", "0.5"]),
    ({"boundary": "margin", "margin": 5, "wall_corner": "book", "grid_fine": 2},
     ["--boundary", "margin", "--margin", "5", "--wall-corner", "book", "--grid-fine", "2"]),
    ({"rules": "vicsek", "behaviors": "alignment", "eta": 0.4},
     ["--rules", "vicsek", "--behaviors", "alignment", "--eta", "0.4"]),
    ({"rules": "heading", "turn": 0.3}, ["--rules", "heading", "--turn", "0.3"]),
    ({"maxspeed_range": (2, 4), "index": "brute", "update": "sequential"},
     ["--maxspeed-range", "2,4", "--index", "brute", "--update", "sequential"]),
    ({"behaviors": ["separation", "wander", "speed"], "wander_distance": 40, "wander_radius": 10,
      "wander_change": 0.5, "target_speed": 2.5},
     ["--behaviors", "separation,wander,speed", "--wander-distance", "40", "--wander-radius", "10",
      "--wander-change", "0.5", "--target-speed", "2.5"]),
    ({"behaviors": "flocking,view", "view_radius": 30, "view_fov": 200, "neighbors_max": 7},
     ["--behaviors", "flocking,view", "--view-radius", "30", "--view-fov", "200", "--neighbors-max", "7"]),
    ({"leader": 0, "behaviors": ["separation", "offset"], "leader_offset": (0, -20)},
     ["--leader", "0", "--behaviors", "separation,offset", "--leader-offset", "0,-20"]),
])
def test_keywords_match_boids_run_flags(kwargs, flags):
    """Each keyword gives boids-run's state-hash for its flag."""
    expected = run_hash("--count", "400", "--seed", "5", "--steps", "6", *flags)
    with boids.Simulation(count=400, seed=5, **kwargs) as sim:
        sim.step(6)
        assert sim.state_hash == expected


def test_keywords_in_3d_and_with_a_scenario():
    """A 3D world; a scenario's values changed by keywords, as its flags do."""
    expected = run_hash("--count", "300", "--dim", "3", "--world", "200x200x200", "--radius", "40", "--steps", "4")
    with boids.Simulation(count=300, dim=3, world=(200, 200, 200), radius=40) as sim:
        sim.step(4)
        assert sim.state_hash == expected
    expected = run_hash("--scenario", "predators-prey", "--boundary", "walls", "--steps", "5")
    with boids.Simulation(scenario="predators-prey", boundary="walls") as sim:
        sim.step(5)
        assert sim.state_hash == expected


def test_set_after_creation():
    """set() takes what may change after creation; a wider radius is refused
    with the way out; world and the like need a new simulation."""
    with boids.Simulation(count=300, seed=2, radius=60) as wide:
        wide.set(radius=55)  # within the grid made for 60
    with boids.Simulation(count=300, seed=2) as sim, boids.Simulation(count=300, seed=2) as other:
        with pytest.raises(ValueError) as info:
            sim.set(radius=100)
        assert "radius" in str(info.value) and "Simulation(" in str(info.value)
        with pytest.raises(ValueError) as info:
            sim.set(world=(900, 900))
        assert "world" in str(info.value) and "made" in str(info.value)
        with pytest.raises(ValueError) as info:
            sim.set(boundary="sticky")
        assert "boundary" in str(info.value)
        sim.set(boundary="walls", behaviors=["separation", "alignment"], fov=300)
        assert sim.behaviors() == ["separation", "alignment"]
        sim.step(5)
        other.step(5)
        assert sim.state_hash != other.state_hash
    # set(boundary=...) before any step equals the flag given from the start
    expected = run_hash("--count", "300", "--seed", "2", "--boundary", "walls", "--steps", "5")
    with boids.Simulation(count=300, seed=2) as sim:
        sim.set(boundary="walls")
        sim.step(5)
        assert sim.state_hash == expected


def test_shader_dir_keyword():
    """shader_dir= (boids-run's --shader-dir) builds the GPU programs from the source tree's shaders."""
    shaders = os.path.join(ROOT, "shaders")
    expected = run_hash("--count", "200", "--steps", "3", "--backend", "gpu", "--shader-dir", shaders)
    with boids.Simulation(count=200, backend="gpu", shader_dir=shaders) as sim:
        sim.step(3)
        assert sim.state_hash == expected


def test_distribution_keyword():
    """distribution= (boids-bench's --distribution) clusters the start."""
    with boids.Simulation(count=300, distribution="clustered") as a, boids.Simulation(count=300) as b:
        assert a.state_hash != b.state_hash


def test_options_lists_the_keywords():
    """boids.options() names every keyword, in snake_case."""
    names = boids.options()
    for n in ("world", "origin", "boundary", "margin", "behaviors", "weights", "radius", "separation", "fov",
              "maxspeed", "maxforce", "maxspeed_range", "maxforce_range", "dt", "index", "update", "grid_fine",
              "eta", "sigma", "turn", "rules"):
        assert n in names
    assert all("-" not in n for n in names)


def test_options_come_from_the_library():
    """The keywords are the library's options (boids_engine_option_name) in
    snake_case, every kind of value among those the package converts, none
    of them a parameter of Simulation(...) itself; set() takes the new
    steering keywords as the flags give them from the start."""
    import inspect

    from boids import _options

    kind = boids.ffi.new("const char **")
    listed = {}
    for i in range(boids._lib.boids_engine_option_count()):
        flag = boids.ffi.string(boids._lib.boids_engine_option_name(i, kind)).decode()
        listed[flag.replace("-", "_")] = (flag, boids.ffi.string(kind[0]).decode())
    own = set(inspect.signature(boids.Simulation.__init__).parameters)
    assert boids._OPTIONS == {k: v for k, v in listed.items() if k not in own}
    assert {k for _, k in boids._OPTIONS.values()} <= set(_options._KINDS)
    assert own.isdisjoint(boids.options())
    for name in ("predict", "wander_radius", "target_speed", "view_radius", "leader_offset"):
        assert name in boids.options()
    flags = ["--behaviors", "separation,wander,speed,pursue", "--predict", "2", "--wander-radius", "4",
             "--target-speed", "1.5", "--leader-offset", "3,-20"]
    expected = run_hash("--count", "300", "--seed", "2", "--steps", "5", *flags)
    with boids.Simulation(count=300, seed=2) as sim:
        sim.set(behaviors=["separation", "wander", "speed", "pursue"], predict=2, wander_radius=4,
                target_speed=1.5, leader_offset=(3, -20))
        sim.step(5)
        assert sim.state_hash == expected


# ---- documented examples, version, typing ---------------------------------------------


def test_documented_examples_run():
    """The docstrings' and python/README.md's >>> examples run as written."""
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    modules = [boids] + [importlib.import_module(f"boids.{m.name}") for m in pkgutil.iter_modules(boids.__path__)]
    failed = attempted = 0
    for module in modules:  # each object's examples are found in the module that defines it
        result = doctest.testmod(module, optionflags=flags, extraglobs={"np": np})
        failed, attempted = failed + result.failed, attempted + result.attempted
    assert failed == 0 and attempted >= 8, (failed, attempted)
    readme = os.path.join(HERE, "..", "README.md")
    result = doctest.testfile(readme, module_relative=False, optionflags=flags, globs={"np": np})
    assert result.failed == 0 and result.attempted >= 5, result


def test_stats_by_name_and_version():
    """stats()["mean_neighbors"] (as the docs write it), __version__, py.typed."""
    with boids.Simulation(count=200) as sim:
        sim.step(1)
        st = sim.stats()
        assert st["mean_neighbors"] == st.mean_neighbors
        assert dict(zip(st.keys(), (st[k] for k in st.keys())))["step"] == 1
        with pytest.raises(KeyError, match="mean_neighbors"):
            st["neighbours"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", boids.__version__)
    assert boids.__version__ in subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--version"],
                                               capture_output=True, text=True).stdout
    assert os.path.exists(os.path.join(os.path.dirname(boids.__file__), "py.typed"))


def test_public_api_has_type_hints():
    """Every public function and method says its parameter and return types."""
    import inspect

    objs = [boids.Simulation, boids.Recording, boids.scenarios, boids.behaviors, boids.run_ensemble,
            boids.read_ensemble, boids.stat_names, boids.options, boids.library_path]
    missing = []
    for obj in objs:
        fns = [obj] if inspect.isfunction(obj) else \
            [f for n, f in vars(obj).items() if not n.startswith("_") or n in ("__init__", "__getitem__")]
        for f in fns:
            f = f.fget if isinstance(f, property) else getattr(f, "__func__", f)
            if not inspect.isfunction(f):
                continue
            ann = f.__annotations__
            params = [p for p in inspect.signature(f).parameters if p not in ("self", "cls")]
            if "return" not in ann or any(p not in ann for p in params):
                missing.append(f.__qualname__)
    assert not missing, missing


# ---- the cffi declarations against the headers ---------------------------------------


def _strip(text):
    """C text without comments, preprocessor lines or repeated blanks."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    return text


def _norm(t):
    """A type's text with canonical spacing."""
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"\s*([*()\[\],])\s*", r"\1", t)
    return t


def _split_top(text, sep=","):
    """text split at `sep` outside parentheses and brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def _declarator(piece):
    """(name, type with the name taken out) of one declaration 'T *name[3]'."""
    names = [m for m in re.finditer(r"[A-Za-z_]\w*", piece)
             if m.group() not in ("const", "struct", "unsigned", "void", "char", "int", "float", "double", "bool")]
    m = names[-1]
    return m.group(), _norm(piece[:m.start()] + piece[m.end():])


def _fields(body):
    """(name, type) of each field of a struct body, in order."""
    out = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fp = re.match(r"(.*)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", decl, flags=re.S)
        if fp:
            params = ",".join(_declarator(p)[1] if len(re.findall(r"\w+", p)) > 1 and "*" not in p.strip()[-1:]
                              else _norm(p) for p in _split_top(fp.group(3)))
            out.append((fp.group(2), _norm(f"{fp.group(1)}(*)({params})")))
            continue
        pieces = _split_top(decl)
        name, first = _declarator(pieces[0])
        out.append((name, first))
        base = re.split(r"[*(\[]", first)[0].strip()
        for p in pieces[1:]:
            n, t = _declarator(base + " " + p)
            out.append((n, t))
    return out


def _functions(text):
    """name -> (return type, [parameter types]) of each prototype."""
    out = {}
    for m in re.finditer(r"([A-Za-z_][\w\s\*]*?)\b(boids_\w+)\s*\(([^;{}]*?)\)\s*;", text):
        params = [] if m.group(3).strip() in ("", "void") else [_declarator(p)[1] for p in _split_top(m.group(3))]
        out[m.group(2)] = (_norm(m.group(1).replace("extern", "")), params)
    return out


def _structs(text):
    """name -> fields of each 'typedef struct NAME { ... } NAME;'."""
    return {m.group(1): _fields(m.group(2))
            for m in re.finditer(r"typedef struct (\w+)\s*\{(.*?)\}\s*\1\s*;", text, flags=re.S)}


def test_cffi_declarations_match_the_headers():
    """Every function and struct of the cffi cdef is the headers' own: the
    same names, return and parameter types, and fields in order (an enum
    in C is a typedef of int in the cdef, so its name must agree)."""
    headers = ""
    for name in sorted(os.listdir(os.path.join(ROOT, "include", "boids"))):
        with open(os.path.join(ROOT, "include", "boids", name)) as f:
            headers += _strip(f.read()) + "\n"
    cdef = _strip(boids._CDEF)
    c_funcs, py_funcs = _functions(headers), _functions(cdef)
    assert len(py_funcs) >= 40, sorted(py_funcs)
    problems = []
    for name, sig in py_funcs.items():
        if name not in c_funcs:
            problems.append(f"{name}: not in the headers")
        elif c_funcs[name] != sig:
            problems.append(f"{name}: cdef {sig} != header {c_funcs[name]}")
    c_structs, py_structs = _structs(headers), _structs(cdef)
    assert {"boids_stats", "boids_engine_desc", "boids_recording_info", "boids_ensemble_desc",
            "boids_neighbor_graph", "boids_engine_option"} <= set(py_structs)
    for name, fields in py_structs.items():
        if c_structs.get(name) != fields:
            problems.append(f"struct {name}: cdef {fields} != header {c_structs.get(name)}")
    for m in re.finditer(r"extern\s+const\s+char\s*\*\s*const\s+(\w+)", cdef):
        if not re.search(r"extern\s+const\s+char\s*\*\s*const\s+" + m.group(1) + r"\b", headers):
            problems.append(f"{m.group(1)}: not declared so in the headers")
    assert not problems, "\n".join(problems)


# ---- the neighbour graph ------------------------------------------------------------


def _brute_graph(pos, size, radius, wrap):
    """Each agent's neighbours by numpy: 0 < |delta| < radius, delta the
    minimum image on a wrapped world (float32, as the engine measures)."""
    pos = pos.astype(np.float32)
    d = pos[None, :, :] - pos[:, None, :]
    if wrap:
        size = np.asarray(size, dtype=np.float32)
        half = np.float32(0.5) * size
        d = np.where(d > half, d - size, np.where(d < -half, d + size, d))
    d2 = (d * d).sum(axis=2, dtype=np.float32)
    return d2, (d2 > 0) & (d2 < np.float32(radius) * np.float32(radius))


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("kwargs,wrap", [
    ({"count": 400, "world": (300, 200), "radius": 30}, True),
    ({"count": 400, "world": (300, 200), "radius": 30, "boundary": "walls"}, False),
    ({"count": 300, "dim": 3, "world": (150, 150, 150), "radius": 35}, True),
])
def test_neighbor_graph_matches_brute_force(backend, kwargs, wrap):
    """The CSR graph equals a brute-force numpy computation (wrap across
    the seam included); rows sorted; distances as measured; each row's
    length is the engine's neighbour count of the next step."""
    with boids.Simulation(seed=9, backend=backend, **kwargs) as sim:
        sim.step(7)
        indptr, indices, dist = sim.neighbor_graph(distances=True)
        pos = sim.positions
        n = sim.count
        assert indptr.shape == (n + 1,) and indptr.dtype == np.int64 and indices.dtype == np.int32
        assert indptr[0] == 0 and indptr[-1] == len(indices) == len(dist)
        d2, near = _brute_graph(pos, kwargs["world"], kwargs["radius"], wrap)
        crossing = 0
        for i in range(n):
            row = indices[indptr[i]:indptr[i + 1]]
            assert np.all(np.diff(row) > 0), f"row {i} not sorted"
            assert np.array_equal(row, np.flatnonzero(near[i])), f"row {i}"
            assert np.allclose(dist[indptr[i]:indptr[i + 1]], np.sqrt(d2[i, row]), rtol=1e-6)
            crossing += int(np.any(np.abs(pos[row] - pos[i]) > kwargs["radius"]))
        if wrap:
            assert crossing > 0, "no pair across the seam: the wrap case was not exercised"
        again = sim.neighbor_graph()
        assert np.array_equal(again[0], indptr) and np.array_equal(again[1], indices)
        sim.step(1)
        assert np.array_equal(np.diff(indptr), sim.neighbors.astype(np.int64))


def test_neighbor_graph_scipy_form():
    """(distances, indices, indptr) is scipy.sparse.csr_matrix's form, when scipy is there."""
    sparse = pytest.importorskip("scipy.sparse")
    with boids.Simulation(count=200, seed=1) as sim:
        indptr, indices, dist = sim.neighbor_graph(distances=True)
        m = sparse.csr_matrix((dist, indices, indptr), shape=(200, 200))
        assert m.nnz == len(indices)
        assert abs(m - m.T).max() < 1e-4  # one radius for all: a symmetric graph


# ---- Ctrl-C ----------------------------------------------------------------------


def test_keyboard_interrupt_between_steps():
    """SIGINT during step(10**9): KeyboardInterrupt soon after, the state that of
    the last whole step (its hash equals a fresh run of as many steps)."""
    import signal
    import sys
    import time
    script = ("import sys, boids\n"
              "sim = boids.Simulation(count=3000, seed=5, threads=1)\n"
              "print('ready', flush=True)\n"
              "try:\n"
              "    sim.step(10**9)\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted', sim.steps, '%016x' % sim.state_hash, flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=60)
    finally:
        p.kill()  # (a run that ignored the signal: not left behind)
    took = time.monotonic() - sent
    words = out.split()
    assert words[0] == "interrupted", out
    steps = int(words[1])
    assert 0 < steps < 10**9
    assert took < 10, f"KeyboardInterrupt {took:.1f} s after SIGINT"
    with boids.Simulation(count=3000, seed=5, threads=1) as again:
        again.step(steps)
        assert "%016x" % again.state_hash == words[2]


# ---- ranges that keep a state finite, and a state that is not ---------------------


@pytest.mark.parametrize("kwargs,words", [
    ({"maxspeed": 1.2e-38, "behaviors": "offset"}, "maxspeed"),
    ({"dt": 1.2e-38}, "dt"),
    ({"maxforce": 1e37, "behaviors": "avoid"}, "maxforce"),
    ({"predict": 3.4e38}, "predict"),
    ({"origin": (1e8, 1e8), "world": (1000, 1000)}, "origin 1e+08,1e+08: positions at the far corner"),
])
def test_values_that_made_nan_refused(kwargs, words):
    """The values whose runs turned every agent into NaN, and a world too far
    from 0 for a step to move an agent: refused as boids-run refuses them
    (the same registry ranges, the same finalize)."""
    with pytest.raises(ValueError, match=re.escape(words)):
        boids.Simulation(count=100, **kwargs)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_state_not_finite_raises(backend, monkeypatch):
    """A NaN planted in agent 3 after step 2 (BOIDS_DEBUG nan=3@2): on the
    CPU the step that made it raises FloatingPointError naming the step, the
    agent and its group's behaviours; on the GPU (checked at its read-backs)
    the next read-back does. The engine then steps no more, and new agents
    from set_agents start it anew."""
    monkeypatch.setenv("BOIDS_DEBUG", "nan=3@2")
    with boids.Simulation(count=20, seed=3, backend=backend) as sim:
        sim.step(1)
        if backend == "cpu":
            with pytest.raises(FloatingPointError, match="not finite after step 2: agent 3 of group 0 "
                                                         r"\(behaviours separation, alignment, cohesion\)"):
                sim.step(5)
            assert sim.steps == 2
        else:
            sim.step(5)
            with pytest.raises(FloatingPointError, match="not finite at step 6 .*: agent 3 of group 0"):
                sim.stats()
        with pytest.raises(FloatingPointError, match="agent 3"):
            sim.step(1)
        sim.set_agents(np.full((20, 2), 10.0), np.zeros((20, 2)), np.zeros(20, int))
        sim.step(1)
        assert np.isfinite(sim.positions).all()
