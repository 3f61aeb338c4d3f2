"""Tests of the Python package boids (ctest label `python`).

BOIDS_LIBRARY names the built libboids.so and BOIDS_BIN_DIR the directory
of boids-run; the GPU cases run on the headless EGL context (llvmpipe in
CI): no OpenGL 4.5 context is a failure, never a skip.
"""

import copy
import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pytest

import boids

BIN_DIR = os.environ.get("BOIDS_BIN_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))


def run_hash(*flags):
    """boids-run's state-hash for the flags."""
    out = subprocess.run([os.path.join(BIN_DIR, "boids-run"), *flags, "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    line = [x for x in out.splitlines() if x.startswith("state-hash:")][0]
    return int(line.split()[1], 16)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("count,dim,steps,seed", [(500, 2, 30, 1), (700, 3, 20, 0x1234567890)])
def test_hash_matches_boids_run(backend, count, dim, steps, seed):
    """The same flags and seed give boids-run's state-hash on either backend."""
    expected = run_hash("--count", str(count), "--dim", str(dim), "--steps", str(steps),
                        "--seed", str(seed), "--backend", backend)
    with boids.Simulation(count=count, dim=dim, backend=backend, seed=seed) as sim:
        assert sim.backend == backend
        sim.step(steps)
        assert sim.steps == steps
        assert sim.state_hash == expected


def test_seed_changes_the_flock():
    """Another seed, another flock; the default seed is 1."""
    with boids.Simulation(count=300) as a, boids.Simulation(count=300, seed=1) as b, \
            boids.Simulation(count=300, seed=2) as c:
        assert a.state_hash == b.state_hash != c.state_hash


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_save_load_continues_bit_for_bit(tmp_path, backend):
    """save, load and step on: the same hash as never stopping."""
    path = str(tmp_path / "run.boids")
    with boids.Simulation(count=400, backend=backend, seed=5) as sim:
        sim.step(10)
        sim.save(path)
        sim.step(15)
        expected = sim.state_hash
    with boids.Simulation.load(path, backend=backend) as again:
        assert again.steps == 10
        again.step(15)
        assert again.state_hash == expected


def test_arrays_shape_dtype_copy():
    """positions / velocities are (N, dim) float32 copies; groups, ids by id."""
    with boids.Simulation(count=250, dim=3) as sim:
        pos, vel = sim.positions, sim.velocities
        assert pos.shape == (250, 3) and pos.dtype == np.float32 and pos.flags.c_contiguous
        assert vel.shape == (250, 3) and vel.dtype == np.float32
        assert sim.groups.shape == (250,) and sim.groups.dtype == np.uint32
        assert np.array_equal(sim.ids, np.arange(250))
        sim.step(3)
        assert not np.array_equal(pos, sim.positions)  # the old array stays as it was
        full_pos, full_vel, group = sim.read()
        assert full_pos.shape == (250, 4)
        assert np.array_equal(full_pos[:, :3], sim.positions)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_neighbors_match_boids_run_csv(tmp_path, backend):
    """neighbors by id equal boids-run --export-csv's column after the same
    steps; their mean is the stats' mean and nearest is 0 exactly where
    there are none."""
    csv = tmp_path / "state.csv"
    subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--count", "600", "--steps", "12", "--seed", "4",
                    "--backend", backend, "--export-csv", str(csv), "--quiet"], check=True, capture_output=True)
    rows = np.loadtxt(csv, delimiter=",", skiprows=1)
    expected = rows[np.argsort(rows[:, 0]), -1].astype(np.uint32)
    with boids.Simulation(count=600, seed=4, backend=backend) as sim:
        assert not sim.neighbors.any()  # no step yet
        sim.step(12)
        nb, near = sim.neighbors, sim.nearest
        assert nb.shape == (600,) and nb.dtype == np.uint32 and near.dtype == np.float32
        assert np.array_equal(nb, expected)
        assert np.array_equal(near == 0, nb == 0)
        assert sim.stats().mean_neighbors == pytest.approx(nb.mean(), rel=1e-6)
        assert near.max() > 0


def test_init_round_trip():
    """init= arrays come back as given, and the hash is boids-run's for them."""
    with boids.Simulation(count=200, seed=3) as src:
        src.step(5)
        pos, vel, group = src.read()
        expected = src.state_hash
    with boids.Simulation(count=200, init=(pos, vel, group)) as sim:
        p, v, g = sim.read()
        assert np.array_equal(p[:, :3], pos[:, :3]) and np.array_equal(v[:, :3], vel[:, :3])
        assert np.array_equal(g, group)
        sim.set_agents(pos, vel, group)
        assert sim.positions.shape == (200, 2)
    assert expected != 0


def test_enable_disable_and_stats():
    """Behaviours toggle through their names; stats is a Stats of the step."""
    with boids.Simulation(count=300) as sim:
        assert "wander" not in sim.behaviors()
        sim.enable("wander")
        assert "wander" in sim.behaviors()
        sim.disable("alignment")
        assert "alignment" not in sim.behaviors()
        sim.step(4)
        st = sim.stats()
        assert st.step == 4 and 0.0 <= st.polarisation <= 1.0 and st.mean_speed > 0
        with pytest.raises(ValueError, match="not a behaviour"):
            sim.enable("flying")
    assert "flocking" in boids.scenarios()


@pytest.mark.parametrize("kwargs,match", [
    ({"count": 0}, "count"),
    ({"dim": 4}, "dim"),
    ({"backend": "tpu"}, "backend"),
    ({"seed": -1}, "seed"),
    ({"count": 10, "init": (np.zeros((9, 2)), np.zeros((10, 2)), np.zeros(10, int))}, "count, init"),
    ({"count": 10, "init": (np.zeros((10, 2)), np.zeros((10, 5)), np.zeros(10, int))}, "init vel"),
    ({"init": (np.zeros((10, 2)), np.zeros((10, 2)), np.zeros(10))}, "init group"),
])
def test_bad_parameters_raise_value_error(kwargs, match):
    """Bad parameters and arrays: ValueError naming them."""
    with pytest.raises(ValueError, match=match):
        boids.Simulation(**kwargs)


def test_engine_message_in_value_error():
    """A value the engine rejects: ValueError with the engine's line."""
    with pytest.raises(ValueError, match="agents"):
        boids.Simulation(count=10, init=(np.full((10, 2), np.nan), np.zeros((10, 2)), np.zeros(10, int)))
    with boids.Simulation(count=10) as sim:
        with pytest.raises(ValueError, match="agents"):
            sim.set_agents(np.zeros((10, 2)), np.zeros((10, 2)), np.full(10, 7))


@pytest.mark.parametrize("row,match", [
    ("1,0,150,50,1,0", "agent 1 is outside the world on axis x"),
    ("1,0,50,50,40,0", "agent 1 is faster"),
    ("1,3,50,50,1,0", "agent 1 is in group 3"),
])
def test_init_held_to_boids_run_rules(tmp_path, row, match):
    """init= follows boids-run --init's rules: an agent outside the world, too
    fast or in a group the parameters lack is refused naming it (not wrapped,
    slowed down or given the defaults), and boids-run refuses the same file."""
    csv = tmp_path / "o.csv"
    csv.write_text("id,group,px,py,vx,vy\n0,0,10,10,1,0\n" + row + "\n")
    with pytest.raises(ValueError, match=match):
        boids.Simulation(init=str(csv), world=(100, 100))
    run = subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--init", str(csv), "--world", "100x100",
                          "--steps", "1"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and match in run.stderr, run.stderr


def test_files_raise_os_error(tmp_path):
    """A missing or malformed snapshot, an unwritable path: OSError."""
    with pytest.raises(OSError, match="nothing.boids"):
        boids.Simulation.load(str(tmp_path / "nothing.boids"))
    bad = tmp_path / "bad.boids"
    bad.write_bytes(b"not a snapshot")
    with pytest.raises(OSError):
        boids.Simulation.load(str(bad))
    with boids.Simulation(count=10) as sim, pytest.raises(OSError):
        sim.save(str(tmp_path / "no" / "such" / "dir.boids"))


def test_use_after_close():
    """Every call on a closed simulation: ValueError, never a crash."""
    sim = boids.Simulation(count=10)
    sim.close()
    sim.close()
    assert sim.closed
    for call in (lambda: sim.step(1), lambda: sim.positions, lambda: sim.state_hash,
                 lambda: sim.stats(), lambda: sim.save("x.boids"), lambda: sim.enable("wander")):
        with pytest.raises(ValueError, match="closed"):
            call()


def test_gpu_from_another_thread():
    """A GPU simulation used from another thread: RuntimeError, no crash."""
    with boids.Simulation(count=100, backend="gpu") as sim:
        caught = []

        def use():
            try:
                sim.step(1)
            except RuntimeError as exc:
                caught.append(exc)
        t = threading.Thread(target=use)
        t.start()
        t.join()
        assert caught
        sim.step(1)
        assert sim.steps == 1


def test_gpu_simulations_share_one_context():
    """Several GPU simulations at once, stepped in turn, each give boids-run's
    hash; one made on another thread meanwhile is a RuntimeError, and once
    all are closed another thread may make its own."""
    expected = {n: run_hash("--count", str(n), "--steps", "6", "--seed", "9", "--backend", "gpu")
                for n in (300, 450)}
    a = boids.Simulation(count=300, backend="gpu", seed=9)
    b = boids.Simulation(count=450, backend="gpu", seed=9)
    c = boids.Simulation(count=300, backend="gpu", seed=9)
    for _ in range(3):
        for sim in (a, b, c):
            sim.step(2)
    caught = []

    def make(out):
        try:
            with boids.Simulation(count=50, backend="gpu") as other:
                other.step(1)
                out.append(other.steps)
        except RuntimeError as exc:
            out.append(exc)
    t = threading.Thread(target=make, args=(caught,))
    t.start()
    t.join()
    assert len(caught) == 1 and isinstance(caught[0], RuntimeError) and "another thread" in str(caught[0])
    assert [a.state_hash, b.state_hash, c.state_hash] == [expected[300], expected[450], expected[300]]
    a.close()
    b.step(1)  # the context outlives a closed simulation
    b.close()
    c.close()
    later = []
    t = threading.Thread(target=make, args=(later,))
    t.start()
    t.join()
    assert later == [1]


def test_set_changes_the_flock():
    """set(maxspeed=...) and weights change the hash against the same flock not set."""
    with boids.Simulation(count=400, seed=3) as a, boids.Simulation(count=400, seed=3) as b, \
            boids.Simulation(count=400, seed=3) as c:
        b.set(maxspeed=4.0)
        c.set(weights={"alignment": 2.0}, group=0)
        for s in (a, b, c):
            s.step(20)
        assert a.state_hash != b.state_hash
        assert a.state_hash != c.state_hash
        assert np.abs(b.velocities).max() > 3.0 >= np.linalg.norm(a.velocities, axis=1).max() - 1e-4


def test_models_from_python():
    """The Vicsek and Couzin scenarios run; eta / sigma / turn set through set();
    stats carries milling; a bad eta names itself and its range."""
    with boids.Simulation(scenario="vicsek", seed=2) as v, boids.Simulation(scenario="vicsek", seed=2) as w:
        w.set(eta=0.5)
        for s in (v, w):
            s.step(50)
        assert v.state_hash != w.state_hash
        assert 0.0 <= v.stats().milling <= 1.0
        with pytest.raises(ValueError) as info:
            v.set(eta=7.0)
        assert "eta" in str(info.value) and "2 pi" in str(info.value)
    with boids.Simulation(scenario="couzin-mill") as c, boids.Simulation(scenario="couzin-mill") as d:
        d.set(sigma=0.1, turn=0.5)
        for s in (c, d):
            s.step(300)
        assert c.state_hash != d.state_hash
        st = c.stats()
        assert st.milling > 0.5, st  # the mill (docs/MODELS.md: 0.88 at step 300)


@pytest.mark.parametrize("kwargs,words", [
    ({"maxspeed": -1}, ["maxspeed", "-1", "1e-6..1e9"]),
    ({"weights": {"alignment": 2e6}}, ["weights", "alignment", "-1e6..1e6"]),
    ({"weights": {"nosuch": 1}}, ["nosuch"]),
    ({"radius": 1e6}, ["radius"]),
    ({"maxforce": 1, "group": 5}, ["group", "5"]),
])
def test_set_bad_value_raises_the_engines_line(kwargs, words):
    """A refused value is a ValueError whose message names it; the flock stays."""
    with boids.Simulation(count=200) as sim, boids.Simulation(count=200) as same:
        with pytest.raises(ValueError) as info:
            sim.set(**kwargs)
        for w in words:
            assert w in str(info.value)
        sim.step(5)
        same.step(5)
        assert sim.state_hash == same.state_hash


def test_set_wrong_type_is_a_type_error():
    """A value of the wrong type (a str for a number) is a TypeError naming it."""
    with boids.Simulation(count=50) as sim:
        with pytest.raises(TypeError) as info:
            sim.set(separation="wide")
        assert "separation" in str(info.value) and "wide" in str(info.value)


def test_scenario_matches_boids_run():
    """scenario= gives boids-run --scenario's state-hash (the file's seed)."""
    assert "predators-prey" in boids.scenarios()
    expected = run_hash("--scenario", "predators-prey", "--steps", "20")
    with boids.Simulation(scenario="predators-prey") as sim:
        assert sim.groups.max() >= 1
        sim.step(20)
        assert sim.state_hash == expected


def test_scenario_errors(tmp_path):
    """A missing file is an OSError naming it; a bad one names its line; count with it is refused."""
    with pytest.raises(OSError, match="nowhere.ini"):
        boids.Simulation(scenario=str(tmp_path / "nowhere.ini"))
    bad = tmp_path / "bad.ini"
    bad.write_text("[world]\ncount = -3\n")
    with pytest.raises(OSError, match="bad.ini:2"):
        boids.Simulation(scenario=str(bad))
    with pytest.raises(ValueError, match="count"):
        boids.Simulation(scenario="predators-prey", count=10)


def test_recording_frames_match_boids_run(tmp_path):
    """Recording iterates boids-run --record's frames: steps, shapes, the last frame's state."""
    rec = str(tmp_path / "flock.rec")
    run_hash("--count", "300", "--steps", "10", "--record", rec, "--record-every", "5")
    with boids.Recording(rec) as r:
        assert (r.count, r.dim, r.every, len(r)) == (300, 2, 5, 3)
        frames = list(r)
        assert [f.step for f in frames] == [0, 5, 10]
        for f in frames:
            assert f.positions.shape == f.velocities.shape == (300, 2)
            assert f.positions.dtype == np.float32
        assert r[-1].step == 10
        assert r.groups.shape == (300,)
    with boids.Simulation(count=300) as sim:
        sim.step(10)
        np.testing.assert_array_equal(frames[-1].positions, sim.positions)
        np.testing.assert_array_equal(frames[-1].velocities, sim.velocities)
    with pytest.raises(ValueError, match="closed"):
        r[0]


def test_recording_bad_file_is_oserror(tmp_path):
    """A missing or damaged recording is an OSError with the reader's line."""
    with pytest.raises(OSError, match="none.rec"):
        boids.Recording(str(tmp_path / "none.rec"))
    junk = tmp_path / "junk.rec"
    junk.write_bytes(b"not a recording at all" * 10)
    with pytest.raises(OSError, match="junk.rec"):
        boids.Recording(str(junk))


def test_exit_with_an_open_simulation_does_not_crash():
    """A script that steps a simulation and exits without closing it ends with
    status 0, with OpenMP's default (spinning) wait policy: the library is
    never unloaded under its worker threads (it crashed with SIGSEGV)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    code = "import boids\nsim = boids.Simulation(count=2000, threads=2)\nsim.step(5)\n"
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"exit status {done.returncode}, stderr: {done.stderr}"


def test_gpu_kernels_same_hash():
    """kernel= picks the GPU kernel variant: every one gives the reference's
    state-hash (boids-run's); the CPU has only the reference, a bad name (a
    removed kernel's too) is a ValueError."""
    expected = run_hash("--count", "700", "--steps", "4", "--seed", "5", "--backend", "gpu")
    for kernel in ("reference", "morton"):
        with boids.Simulation(count=700, backend="gpu", seed=5, kernel=kernel) as sim:
            sim.step(4)
            assert sim.state_hash == expected, kernel
    with pytest.raises(ValueError):
        boids.Simulation(count=10, kernel="morton")
    for bad in ("fast", "tiled", "fused", "all", "morton-fused"):
        with pytest.raises(ValueError):
            boids.Simulation(count=10, backend="gpu", kernel=bad)


# ---- ensembles ------------------------------------------------------------------------

_PLANS = os.path.join(os.path.dirname(__file__), "..", "..", "plans")


def test_run_ensemble(tmp_path):
    """The tests' plan from Python: the same results.csv as boids-ensemble
    writes (byte for byte), columns as numpy arrays, failed runs as rows."""
    plan = os.path.join(_PLANS, "tiny.ini")
    seen = []
    res = boids.run_ensemble(plan, str(tmp_path / "py"), jobs=2, progress=lambda d, f, t: seen.append((d, f, t)))
    assert len(seen) == 12 and seen[-1] == (12, 6, 12)  # every run reported, 6 failed (radius 0)
    for name in ["run", "seed", "step", "group", "state_hash", "status"] + boids.stat_names():
        assert name in res, name
    assert "polarisation" in boids.stat_names()
    assert res["run"].dtype == np.float64 and res["status"].dtype.kind == "U"
    ok = res["status"] == "ok"
    assert (res["status"] == "failed").sum() == 6
    assert np.all(np.isnan(res["polarisation"][~ok]))
    assert np.all((res["polarisation"][ok] >= 0) & (res["polarisation"][ok] <= 1))
    assert set(res["group.boids.weight.alignment"]) == {0.0, 1.0, 2.0}
    final = ok & (res["step"] == 30) & (res["group"] == "all")
    assert len(set(res["state_hash"][final])) == 6  # six ok runs, six different final states
    exe = os.path.join(os.environ.get("BOIDS_BIN_DIR", os.path.join(_PLANS, "..", "build", "bin")), "boids-ensemble")
    subprocess.run([exe, plan, "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    assert (tmp_path / "py" / "results.csv").read_bytes() == (tmp_path / "cli" / "results.csv").read_bytes()
    # --resume from Python: nothing left to run, the same results.
    again = boids.run_ensemble(plan, str(tmp_path / "py"), resume=True)
    assert np.array_equal(again["state_hash"], res["state_hash"])


def test_run_ensemble_bad_plan(tmp_path):
    bad = tmp_path / "bad.ini"
    bad.write_text("[plan]\nscenario = flocking\nsteps = 5\n[sweep]\nworld.cuont = 1 | 2\n")
    with pytest.raises(ValueError, match=r"bad.ini:5: \[world\] cuont: is not a key"):
        boids.run_ensemble(str(bad), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_run_ensemble_interrupted_and_changed(tmp_path, monkeypatch):
    """A run the environment stopped (BOIDS_DEBUG=ensemble-enospc=4: its
    snapshot's write fails with ENOSPC, as on a full disk) raises OSError and
    is recorded as interrupted; resume=True runs it again, giving the
    uninterrupted results.csv. A plan changed since the folder was started
    (its steps) is a ValueError, and nothing is written."""
    plan = os.path.join(_PLANS, "tiny.ini")
    boids.run_ensemble(plan, str(tmp_path / "ref"), jobs=2)
    monkeypatch.setenv("BOIDS_DEBUG", "ensemble-enospc=4")
    with pytest.raises(OSError, match="run 4: .*No space left on device; recorded as interrupted"):
        boids.run_ensemble(plan, str(tmp_path / "full"))
    monkeypatch.delenv("BOIDS_DEBUG")
    assert '"status": "interrupted"' in (tmp_path / "full" / "runs" / "000004.json").read_text()
    assert not (tmp_path / "full" / "results.csv").exists()
    boids.run_ensemble(plan, str(tmp_path / "full"), resume=True)
    assert (tmp_path / "full" / "results.csv").read_bytes() == (tmp_path / "ref" / "results.csv").read_bytes()
    (tmp_path / "changed").mkdir()
    changed = tmp_path / "changed" / "tiny.ini"
    with open(plan) as f:
        changed.write_text(f.read().replace("steps = 30", "steps = 31"))
    before = (tmp_path / "full" / "plan.csv").stat().st_mtime_ns
    with pytest.raises(ValueError, match="the plan changed since this folder was started"):
        boids.run_ensemble(str(changed), str(tmp_path / "full"), resume=True)
    assert (tmp_path / "full" / "plan.csv").stat().st_mtime_ns == before


def test_gpu_after_its_thread_ended():
    """A GPU Simulation made on a thread that ended without closing it: the
    next GPU Simulation (here, on the main thread) is made and gives
    boids-run's hash instead of being refused or blocked; the orphan refuses
    every use with a RuntimeError that says why."""
    orphans = []

    def make():
        sim = boids.Simulation(count=200, backend="gpu", seed=3)
        sim.step(2)
        orphans.append(sim)
    t = threading.Thread(target=make)
    t.start()
    t.join(60)
    assert not t.is_alive()
    expected = run_hash("--count", "300", "--steps", "4", "--seed", "5", "--backend", "gpu")
    with boids.Simulation(count=300, backend="gpu", seed=5) as sim:
        sim.step(4)
        assert sim.state_hash == expected
    with pytest.raises(RuntimeError, match="thread has ended"):
        orphans[0].step(1)
    orphans.clear()  # its finalizer leaves the engine (its GL objects went with the context)


def test_paths_with_nul_refused(tmp_path):
    """A NUL inside a path or an option would cut the C string short (saving
    out.boids for "out.boids\\0x"): ValueError, nothing written."""
    sim = boids.Simulation(count=50)
    with pytest.raises(ValueError, match="NUL"):
        sim.save(str(tmp_path / "out.boids\0x"))
    assert not (tmp_path / "out.boids").exists()
    with pytest.raises(ValueError, match="NUL"):
        boids.Recording(str(tmp_path / "r.rec\0x"))
    with pytest.raises(ValueError, match="NUL"):
        boids.Simulation(count=50, behaviors="seek\0flee")
    sim.close()


def test_closed_recording_len(tmp_path):
    """len() of a closed Recording is a ValueError like every other use."""
    path = str(tmp_path / "r.rec")
    subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--count", "20", "--steps", "3", "--record", path, "--quiet"],
                   check=True, capture_output=True)
    rec = boids.Recording(path)
    assert len(rec) > 0
    rec.close()
    with pytest.raises(ValueError, match="closed"):
        len(rec)


def test_copies_and_pickles_refused(tmp_path):
    """A Simulation or Recording owns a C handle: copy.copy, copy.deepcopy
    and pickle refuse with a TypeError saying what to do instead (a shared
    handle would be freed twice), and the original keeps working."""
    sim = boids.Simulation(count=50, seed=2)
    for make in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match=r"Simulation cannot be .*save\(\) a snapshot"):
            make(sim)
    sim.step(2)
    snap = str(tmp_path / "s.boids")
    sim.save(snap)
    twin = boids.Simulation.load(snap)
    assert twin.state_hash == sim.state_hash
    twin.close()
    sim.close()
    path = str(tmp_path / "r.rec")
    subprocess.run([os.path.join(BIN_DIR, "boids-run"), "--count", "20", "--steps", "3", "--record", path, "--quiet"],
                   check=True, capture_output=True)
    with boids.Recording(path) as rec:
        for make in (copy.copy, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError, match="Recording cannot be .*another Recording"):
                make(rec)
        assert len(rec) > 0
