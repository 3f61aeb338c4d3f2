"""Simulation: one engine handle, stepped, read and changed from Python;
Stats, the statistics of one step."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from ._closable import _Closable
from ._context import _context, _make
from ._convert import _agents, _integer
from ._library import (_ARGUMENT, _BUF_ID, _BUF_NEAREST, _BUF_NEIGHBORS, _ERR_SIZE, _FORMAT, _KERNELS, _MAX_AGENTS,
                       _MAX_GROUPS, _MAX_THREADS, _OK, _RADIUS, _backend, _check, _fspath, _lib, _raise,
                       _raise_engine, _text, behaviors, ffi)
from ._options import _OPTIONS, _option_array, _python_words, _unknown_keyword


@dataclasses.dataclass(frozen=True)
class Stats:
    """Statistics of the state of one step (boids_stats of boids/core.h)."""

    step: int
    polarisation: float
    mean_speed: float
    mean_neighbors: float
    mean_nearest: float
    cell_max: int
    cell_mean: float
    candidate_pairs: int
    neighbor_pairs: int
    milling: float  # Couzin 2002's group angular momentum m_r, 0..1 (1: a mill)

    def __getitem__(self, name: str) -> Union[int, float]:
        """A statistic by its field name, as ``stats()["mean_neighbors"]``
        (KeyError naming the fields for another)."""
        names = [f.name for f in dataclasses.fields(self)]
        if name not in names:
            raise KeyError(f"{name!r} is not a statistic; expected one of {', '.join(names)}")
        return getattr(self, name)

    def keys(self) -> List[str]:
        """The statistics' names, in field order (so ``dict(stats)`` works)."""
        return [f.name for f in dataclasses.fields(self)]


class Simulation(_Closable):
    """One simulation behind one engine handle (CPU reference or GPU backend).

    ``Simulation(count=1000, dim=2, backend="cpu", seed=1, init=None,
    threads=0)`` makes the same flock as ``boids-run --count COUNT --dim DIM
    --seed SEED`` (the chapter's flocking).  ``Simulation(scenario="predators-prey")``
    (a shipped scenario's name, see ``scenarios()``, or a path to an .ini
    file) makes the flock of ``boids-run --scenario NAME``: its count,
    dimension, groups and schedule, its own seed unless ``seed`` is given;
    count and dim may not be given with it.  ``init=(pos, vel, group)`` starts
    from arrays of the caller's instead ((N, 2..4) numbers and (N,) integers
    by agent id: numpy arrays or lists, converted; or the path of a CSV
    as ``boids-run --init`` reads it): N is the count (a
    ``count`` that differs is a ValueError naming both) and, unless ``dim`` is
    given, positions of 3 columns make a 3D simulation.  ``backend="gpu"``
    runs the OpenGL 4.5 compute shaders on a headless EGL context that every
    GPU Simulation of the process shares (opened by the first, closed after
    the last); ``kernel`` picks the GPU kernel variant ("reference" or
    "morton": the same bits; the CPU has only "reference").

    Every other flag of boids-run that sets up the simulation is a keyword
    in snake_case (``boids.options()`` lists them), with the same values
    and the same state-hash as the flag: ``world=(800, 600)``,
    ``origin=(0, 0)``, ``boundary="walls"``, ``margin=3``,
    ``behaviors=["separation", "alignment"]`` (or "all", "none"),
    ``weights={"alignment": 2.0}``, ``radius=60``, ``separation=20``,
    ``fov=270``, ``maxspeed=4``, ``maxforce=0.1``, ``maxspeed_range=(2, 4)``,
    ``rules="vicsek"``, ``eta=0.3``, ``sigma=0.1``, ``turn=0.5``, ``dt=0.5``,
    ``grid_fine="auto"``, ``index="brute"``, ``update="sequential"``,
    ``distribution="clustered"``, ``bodies="snake"``, ``leader=0``, and
    each steering behaviour's own values (``predict=2``,
    ``wander_radius=4``, ``target_speed=1.5``, ``view_radius=80``,
    ``leader_offset=(0, -20)``, ...).
    ``shader_dir`` (GPU) reads the shaders from a directory instead of the
    library's built-in copies.
    With ``scenario=`` they change the scenario's values, as the flags do.

    >>> import boids
    >>> sim = boids.Simulation(count=200, seed=3, world=(300, 200), radius=40, boundary="walls")
    >>> sim.step(5)
    >>> sim.steps, sim.positions.shape
    (5, (200, 2))
    >>> sim.stats()["step"]
    5
    >>> sim.close()

    Wrong types are TypeError (``count="10"``); values out of range or
    refused by the engine are ValueError with its line naming the keyword.
    Not thread-safe in the engine; here every call takes a lock, and a GPU
    simulation may only be used from the thread that made it (its GL context
    is current there): another thread gets a RuntimeError.
    """

    def __init__(self, count: Optional[int] = None, dim: Optional[int] = None, backend: str = "cpu",
                 seed: Optional[int] = None,
                 init: Optional[Tuple[Any, Any, Any]] = None, threads: int = 0,
                 scenario: Optional[Union[str, os.PathLike]] = None, kernel: str = "reference",
                 *, shader_dir: Optional[Union[str, os.PathLike]] = None, _engine: Any = None,
                 **options: Any) -> None:
        """Makes the engine (see the class doc); TypeError / ValueError /
        RuntimeError on failure."""
        self._engine = None
        self._lock = threading.RLock()
        self._thread = threading.get_ident()
        self._gpu = False
        self._generation = None  # the shared context's generation (GPU)
        if _engine is not None:
            self._engine, self._generation = _engine
            self._gpu = self._generation is not None
            return
        unknown = [k for k in options if k not in _OPTIONS]
        if unknown:
            _unknown_keyword("Simulation", unknown)
        backend_id = _backend(backend)
        if count is not None:
            count = _integer("count", count, 1, _MAX_AGENTS, f"an agent count 1..{_MAX_AGENTS}")
        if dim is not None:
            dim = _integer("dim", dim, 2, 3, "2 or 3")
        if seed is not None:
            seed = _integer("seed", seed, 0, 2**64 - 1, "a seed 0..2^64-1")
        threads = _integer("threads", threads, 0, _MAX_THREADS, f"0 (the OpenMP default) to {_MAX_THREADS}")
        if not isinstance(kernel, str):
            raise TypeError(f"kernel: {kernel!r} is a {type(kernel).__name__}, not a kernel name")
        if scenario is not None:
            if count is not None or dim is not None:
                raise ValueError("count, dim: not with scenario= (the scenario gives them)")
            if init is not None:
                raise ValueError("init: not with scenario= (set_agents after making it)")
        keep = []
        pos = vel = group = None
        if isinstance(init, (str, bytes, os.PathLike)):
            init = _read_csv(init, 2 if dim is None else dim)
        if init is not None:
            if not hasattr(init, "__len__") or len(init) != 3:
                raise ValueError("init: expected (pos, vel, group)")
            first = np.asarray(init[0])
            if first.ndim != 2:
                raise ValueError(f"init pos: expected an array of shape (N, 2..4), got {first.dtype} {first.shape}")
            if count is not None and count != first.shape[0]:
                raise ValueError(f"count, init: count={count} but init has {first.shape[0]} agents; "
                                 "expected the same number (or no count)")
            count = first.shape[0]
            if count < 1 or count > _MAX_AGENTS:
                raise ValueError(f"init: {count} agents; expected 1..{_MAX_AGENTS}")
            if dim is None:
                dim = 3 if first.shape[1] == 3 else 2
        count = 1000 if count is None else count
        dim = 2 if dim is None else dim
        if seed is None:
            seed = 0 if scenario is not None else 1
        desc = ffi.new("boids_engine_desc *")
        desc.count = count
        desc.dim = dim
        desc.backend = backend_id
        desc.threads = threads
        if kernel not in _KERNELS:
            raise ValueError(f"kernel: {kernel!r} is not a kernel; expected one of {', '.join(_KERNELS)}")
        desc.kernel = _KERNELS.index(kernel)
        desc.quiet = True
        if shader_dir is not None:
            shader_dir_c = ffi.new("char[]", _fspath(shader_dir))
            keep.append(shader_dir_c)
            desc.shader_dir = shader_dir_c
        # 0 means "the params' (or the scenario's) seed" in C; without a
        # scenario that is the default 1.
        desc.seed = seed if seed or scenario is not None else 1
        if init is not None:
            pos = _agents(count, "init pos", init[0], np.float32, 4)
            vel = _agents(count, "init vel", init[1], np.float32, 4)
            group = _agents(count, "init group", init[2], np.uint32, None)
            keep += [pos, vel, group]
            desc.pos = ffi.cast("float (*)[4]", ffi.from_buffer(pos))
            desc.vel = ffi.cast("float (*)[4]", ffi.from_buffer(vel))
            desc.group = ffi.cast("uint32_t *", ffi.from_buffer(group))
        opts, n, texts = _option_array(options)
        name = ffi.NULL if scenario is None else ffi.new("char[]", _fspath(scenario))
        if options:
            create = (lambda out, err: _lib.boids_engine_create_options(out, name, desc, opts, n, err, _ERR_SIZE))
        elif scenario is not None:
            create = (lambda out, err: _lib.boids_engine_create_scenario(out, name, desc, err, _ERR_SIZE))
        else:
            create = (lambda out, err: _lib.boids_engine_create(out, desc, err, _ERR_SIZE))
        try:
            self._engine, self._generation = _make(desc, create)
            self._gpu = self._generation is not None
        except ValueError as exc:
            raise ValueError(_python_words(str(exc))) from None
        del keep, texts

    @classmethod
    def load(cls, path: Union[str, os.PathLike], backend: str = "cpu", threads: int = 0) -> "Simulation":
        """A simulation from a .boids snapshot (``save`` or ``boids-run --save``):
        its agents, parameters, step and scenario; OSError for a file problem."""
        desc = ffi.new("boids_engine_desc *")
        desc.backend = _backend(backend)
        desc.threads = _integer("threads", threads, 0, _MAX_THREADS, f"0 (the OpenMP default) to {_MAX_THREADS}")
        desc.quiet = True
        return cls(_engine=_make(desc, lambda out, err: _lib.boids_engine_load(
            out, _fspath(path), desc, err, _ERR_SIZE)))

    # -- lifetime -------------------------------------------------------------

    _handle_attr = "_engine"
    _copy_instead = "save() a snapshot and Simulation.load() it for an independent copy"

    def _destroy(self, engine):
        """Frees the engine (on its own thread only, for a GPU one). An
        orphan (its context ended with its thread) is left: its GL objects
        went with that context, and freeing them now would hit the new one."""
        if self._gpu and self._generation != _context.generation:
            return
        self._owner()
        _lib.boids_engine_destroy(engine)
        if self._gpu:
            _context.release(self._generation)

    def _finalize_here(self):
        """A finalizer frees the engine only on the thread that made it."""
        return threading.get_ident() == self._thread

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._engine is None

    def _owner(self):
        """The engine, after the closed and thread checks."""
        if self._engine is None:
            raise ValueError("boids: operation on a closed Simulation")
        if self._gpu and self._generation != _context.generation:
            raise RuntimeError("boids: this GPU Simulation's thread has ended and its GL context with it; "
                               "make GPU Simulations on a thread that outlives them")
        if self._gpu and threading.get_ident() != self._thread:
            raise RuntimeError("boids: a GPU Simulation is used from another thread than the one that made it")
        return self._engine

    def __repr__(self):
        """Count, dimension, step and backend description."""
        if self._engine is None:
            return "<boids.Simulation closed>"
        return (f"<boids.Simulation {self.count} agents {self.dim}D step {self.steps} "
                f"{self.describe}>")

    # -- description ----------------------------------------------------------

    @property
    def count(self) -> int:
        """The number of agents."""
        with self._lock:
            return int(_lib.boids_engine_count(self._owner()))

    @property
    def dim(self) -> int:
        """The dimension, 2 or 3."""
        with self._lock:
            return int(_lib.boids_engine_dim(self._owner()))

    @property
    def steps(self) -> int:
        """The step counter (a loaded snapshot's continues)."""
        with self._lock:
            return int(_lib.boids_engine_steps(self._owner()))

    @property
    def backend(self) -> str:
        """"cpu" or "gpu"."""
        with self._lock:
            return "gpu" if _lib.boids_engine_backend(self._owner()) == 1 else "cpu"

    @property
    def describe(self) -> str:
        """The engine's banner: "cpu (8 threads)" or "gpu: <renderer> (<context>)"."""
        with self._lock:
            return _text(_lib.boids_engine_describe(self._owner()))

    # -- running --------------------------------------------------------------

    def step(self, n: int = 1) -> None:
        """Runs n steps (an integer 0..2^64-1: TypeError for another type,
        ValueError outside); RuntimeError on a GPU fault (the fault's line);
        FloatingPointError when the state is not finite (its line names the
        step, the agent and its group's behaviours; on the GPU found at the
        next read-back: stats, positions, save), after which the simulation
        steps no more until set_agents gives it a new state.
        The steps run in calls of about a tenth of a second, so Ctrl-C
        (KeyboardInterrupt) stops a long run between two steps, the state
        that of the last whole step (``steps`` says which)."""
        n = _integer("step", n, 0, 2**64 - 1, "a step count 0..2^64-1")
        with self._lock:
            e = self._owner()
            done = ffi.new("uint64_t *")
            left, chunk = n, 1
            while True:  # Python runs its signal handlers between the calls (n = 0: one call, the fault check)
                k = min(chunk, left)
                t0 = time.perf_counter()
                code = _lib.boids_engine_step(e, k, done)
                if code != _OK:
                    err = ffi.new("char[]", _ERR_SIZE)
                    if _lib.boids_engine_check(e, err, _ERR_SIZE) == _OK:
                        msg = _text(_lib.boids_engine_error(e))
                    else:
                        msg = _text(err)
                    _raise(code, msg)
                left -= k
                if left == 0:
                    break
                took = time.perf_counter() - t0
                if took < 0.05:
                    chunk = min(2 * chunk, 1 << 20)
                elif took > 0.2:  # the steps grew slower (a flock that gathered)
                    chunk = max(chunk // 2, 1)

    def _groups_masks(self, e):
        """The behaviour mask of every group, in group order."""
        masks = []
        mask = ffi.new("uint32_t *")
        for g in range(_MAX_GROUPS):
            if _lib.boids_engine_behaviors(e, g, mask) != _OK:
                break
            masks.append(int(mask[0]))
        return masks

    def _toggle(self, name, on, group):
        """Sets or clears one behaviour's bit in one group or every group."""
        index = _lib.boids_behavior_index(str(name).encode())
        if index < 0:
            raise ValueError(f"behavior: {name!r} is not a behaviour; expected one of "
                             + ", ".join(behaviors()))
        with self._lock:
            e = self._owner()
            masks = self._groups_masks(e)
            if group is not None:
                group = _integer("group", group, 0, 2**32 - 1, "a group index")
            if group is not None and not 0 <= group < len(masks):
                raise ValueError(f"group: {group!r} is not in 0..{len(masks) - 1}")
            for g, m in enumerate(masks):
                if group is None or g == group:
                    m = m | (1 << index) if on else m & ~(1 << index)
                    err = ffi.new("char[]", _ERR_SIZE)
                    _check(_lib.boids_engine_set_behaviors(e, g, m, err, len(err)), err)

    def set(self, *, group: Optional[int] = None, **options: Any) -> None:
        """Sets values after creation, in every group (group=None) or one:
        any keyword of ``Simulation(...)`` (``boids.options()``) that does
        not fix the grid or the world, with the same values: maxspeed,
        maxforce, radius, separation, weights ({"alignment": 2.0, ...}:
        behaviour name -> weight, -1e6..1e6), behaviors, fov and the rules'
        fovs, the steering behaviours' distances and speeds (predict,
        wander_radius, target_speed, view_radius, leader_offset, ...),
        the collective-motion models' (docs/MODELS.md: eta for rules
        vicsek, 0..2 pi; sigma for rules couzin, 0..pi; turn, radians per
        time unit, 0..pi; alignment_radius and cohesion_radius, Couzin's
        r_o and r_a), boundary, margin, wall_corner, neighbors_max,
        maxspeed_range, maxforce_range, rules, leader, formation,
        interpose, combine, dt, path_outside, path_line (boundary, margin,
        wall_corner, combine, dt and the path's are the world's: every
        group's, whatever ``group`` says).  world, origin, grid_fine,
        bodies, joints, body_length, distribution, index and update need a
        new simulation: ValueError saying so.  The keywords are applied
        at once, as boids-run applies its flags; a refused one raises
        ValueError with the engine's line and nothing changes.  A radius
        wider than the grid the simulation was made with is refused (give
        it to ``Simulation(radius=...)``); a dynamic scenario's varying
        weight is overwritten by its schedule at the next step."""
        unknown = [k for k in options if k not in _OPTIONS]
        if unknown:
            _unknown_keyword("set", unknown)
        g = 0xFFFFFFFF if group is None else _integer("group", group, 0, 0xFFFFFFFE, "a group index")
        opts, n, texts = _option_array(options)
        with self._lock:
            e = self._owner()
            if n:
                err = ffi.new("char[]", _ERR_SIZE)
                code = _lib.boids_engine_set_options(e, g, opts, n, err, _ERR_SIZE)
                if code != _OK:
                    # The engine names the options as a whole "options": here, the call.
                    message = _python_words(_text(err))
                    if message.startswith("options "):
                        given = ", ".join(f"{k}={v!r}" for k, v in options.items())
                        message = f"set({given}) " + message[len("options "):]
                    if code == _RADIUS:
                        given = ", ".join(f"{k}=" for k in options)
                        message += f"; or give {given} to Simulation(...) to make a grid for it"
                    _raise(code, message)
        del texts

    def enable(self, name: str, group: Optional[int] = None) -> None:
        """Turns behaviour `name` ("wander", "separation", ...) on, in every group or one."""
        self._toggle(name, True, group)

    def disable(self, name: str, group: Optional[int] = None) -> None:
        """Turns behaviour `name` off, in every group or one."""
        self._toggle(name, False, group)

    def behaviors(self, group: int = 0) -> List[str]:
        """The names of the behaviours enabled in a group."""
        group = _integer("group", group, 0, 2**32 - 1, "a group index")
        with self._lock:
            masks = self._groups_masks(self._owner())
        if not 0 <= group < len(masks):
            raise ValueError(f"group: {group!r} is not in 0..{len(masks) - 1}")
        return [n for i, n in enumerate(behaviors()) if masks[group] >> i & 1]

    # -- state ----------------------------------------------------------------

    def read(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pos, vel, group) of every agent by id in one engine read: (N, 4)
        float32 arrays (xyz + the wander angle) and an (N,) uint32 array, all
        fresh copies owned by the caller."""
        with self._lock:
            e = self._owner()
            n = int(_lib.boids_engine_count(e))
            pos = np.empty((n, 4), dtype=np.float32)
            vel = np.empty((n, 4), dtype=np.float32)
            group = np.empty(n, dtype=np.uint32)
            self._read(e, pos, vel, group)
            return pos, vel, group

    def _read(self, e, pos, vel, group):
        """One boids_engine_read into the given numpy buffers (None: skipped)."""
        def ptr(a, t):
            return ffi.NULL if a is None else ffi.cast(t, ffi.from_buffer(a, require_writable=True))
        code = _lib.boids_engine_read(e, ptr(pos, "float (*)[4]"), ptr(vel, "float (*)[4]"),
                                      ptr(group, "uint32_t *"))
        if code != _OK:
            _raise_engine(e, code)

    def _lanes(self, which):
        """Positions (0) or velocities (1) as an (N, dim) float32 copy."""
        with self._lock:
            e = self._owner()
            n, dim = int(_lib.boids_engine_count(e)), int(_lib.boids_engine_dim(e))
            buf = np.empty((n, 4), dtype=np.float32)
            self._read(e, buf if which == 0 else None, buf if which == 1 else None, None)
            return np.ascontiguousarray(buf[:, :dim])

    @property
    def positions(self) -> np.ndarray:
        """(N, dim) float32 positions by agent id: a copy, valid for ever."""
        return self._lanes(0)

    @property
    def velocities(self) -> np.ndarray:
        """(N, dim) float32 velocities by agent id (world units per step): a copy."""
        return self._lanes(1)

    @property
    def groups(self) -> np.ndarray:
        """(N,) uint32 group of each agent by id: a copy."""
        with self._lock:
            e = self._owner()
            group = np.empty(int(_lib.boids_engine_count(e)), dtype=np.uint32)
            self._read(e, None, None, group)
            return group

    def _by_id(self, which, dtype):
        """A per-slot buffer of the last step (boids_engine_read_buffer)
        rearranged into id order with the slots' ids, in one numpy scatter."""
        with self._lock:
            e = self._owner()
            n = int(_lib.boids_engine_count(e))
            ids = np.empty(n, dtype=np.uint32)
            vals = np.empty(n, dtype=dtype)
            for buf, arr in ((_BUF_ID, ids), (which, vals)):
                code = _lib.boids_engine_read_buffer(e, buf, ffi.from_buffer(arr, require_writable=True),
                                                     arr.nbytes)
                if code != _OK:
                    _raise_engine(e, code)
            out = np.zeros(n, dtype=dtype)
            out[ids] = vals
            return out

    @property
    def neighbors(self) -> np.ndarray:
        """(N,) uint32 count of each agent's neighbours (the agents within the
        radius the steer stage saw) at the last step, by id: a copy; zeros
        before the first step. Their mean is ``stats().mean_neighbors`` of
        the state that step started from (``stats()["mean_neighbors"]``).
        Who those neighbours are: ``neighbor_graph()``."""
        return self._by_id(_BUF_NEIGHBORS, np.uint32)

    def neighbor_graph(self, distances: bool = False) -> Union[Tuple[np.ndarray, np.ndarray],
                                                              Tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Who is near whom in the current state, as CSR arrays by agent id:
        ``(indptr, indices)`` or, with distances, ``(indptr, indices,
        distances)``. The neighbours of agent i are
        ``indices[indptr[i]:indptr[i + 1]]``, sorted by id; indptr is (N + 1,)
        int64, indices int32, distances float32 (the distance to each).
        A neighbour is what the steer stage counts (``neighbors``): another
        agent closer than the agent's group radius, measured across the
        seam on a wrapped world; the same grid and rule on both backends (a
        GPU state is read back).  One step later, ``sim.neighbors`` holds each
        row's length.  ``scipy.sparse.csr_matrix((distances, indices,
        indptr), shape=(N, N))`` makes a sparse matrix of them.

        >>> sim = Simulation(count=300, seed=2)
        >>> indptr, indices = sim.neighbor_graph()
        >>> indptr.shape, int(indptr[-1]) == len(indices)
        ((301,), True)
        >>> sim.step(1)
        >>> bool((np.diff(indptr) == sim.neighbors).all())
        True
        >>> sim.close()
        """
        with self._lock:
            e = self._owner()
            graph = ffi.new("boids_neighbor_graph *")
            err = ffi.new("char[]", _ERR_SIZE)
            _check(_lib.boids_engine_neighbor_graph(e, bool(distances), graph, err, _ERR_SIZE), err)
            try:
                n, edges = int(graph.count), int(graph.edges)
                indptr = np.frombuffer(ffi.buffer(graph.indptr, 8 * (n + 1)), dtype=np.uint64).astype(np.int64)
                indices = np.frombuffer(ffi.buffer(graph.indices, 4 * edges), dtype=np.uint32).astype(np.int32) \
                    if edges else np.empty(0, dtype=np.int32)
                if not distances:
                    return indptr, indices
                dist = np.frombuffer(ffi.buffer(graph.distances, 4 * edges), dtype=np.float32).copy() \
                    if edges else np.empty(0, dtype=np.float32)
                return indptr, indices, dist
            finally:
                _lib.boids_neighbor_graph_free(graph)

    @property
    def nearest(self) -> np.ndarray:
        """(N,) float32 distance from each agent to its nearest neighbour at
        the last step, by id (0 for an agent without one): a copy."""
        return self._by_id(_BUF_NEAREST, np.float32)

    @property
    def ids(self) -> np.ndarray:
        """(N,) uint32 agent ids, 0..N-1: the row order of every array here."""
        return np.arange(self.count, dtype=np.uint32)

    def set_agents(self, pos: Any, vel: Any, group: Any) -> None:
        """Replaces every agent (arrays by id as ``init=``); speeds above a
        group's maxspeed are limited and positions wrapped or clamped in.
        ValueError for a wrong shape or dtype, a group out of range or a value
        that is not finite (nothing changed then)."""
        with self._lock:
            e = self._owner()
            n = int(_lib.boids_engine_count(e))
            p = _agents(n, "pos", pos, np.float32, 4)
            v = _agents(n, "vel", vel, np.float32, 4)
            g = _agents(n, "group", group, np.uint32, None)
            code = _lib.boids_engine_set_agents(e, ffi.cast("float (*)[4]", ffi.from_buffer(p)),
                                                ffi.cast("float (*)[4]", ffi.from_buffer(v)),
                                                ffi.cast("uint32_t *", ffi.from_buffer(g)))
            if code != _OK:
                _raise(code, f"agents: rejected by the simulation: {_text(_lib.boids_result_str(code))}")

    @property
    def state_hash(self) -> int:
        """FNV-1a 64 of (id, group, pos, vel): boids-run's state-hash, the same
        on both backends for the same bits."""
        with self._lock:
            e = self._owner()
            h = int(_lib.boids_engine_hash(e))
            err = ffi.new("char[]", _ERR_SIZE)
            _check(_lib.boids_engine_check(e, err, _ERR_SIZE), err)
            return h

    def stats(self) -> Stats:
        """Statistics of the current state (polarisation, mean speed,
        neighbours, nearest distance, grid occupancy, milling) as a Stats."""
        with self._lock:
            e = self._owner()
            out = ffi.new("boids_stats *")
            code = _lib.boids_engine_stats(e, out)
            if code != _OK:
                _raise_engine(e, code)
            return Stats(*(getattr(out, f.name) for f in dataclasses.fields(Stats)))

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes a .boids snapshot (atomically); ``Simulation.load`` continues
        it bit for bit. OSError for a file that cannot be written."""
        with self._lock:
            err = ffi.new("char[]", _ERR_SIZE)
            _check(_lib.boids_engine_save(self._owner(), _fspath(path), err, _ERR_SIZE), err)


def _read_csv(path: Union[str, bytes, os.PathLike], dim: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pos, vel, group) of a CSV as boids-run's --init reads it (header
    id,group,px,py,pz,vx,vy,vz, ids 0..N-1 once each): ValueError naming
    the file, the line and the column for bad content, OSError if unreadable."""
    count = ffi.new("uint32_t *")
    pos = ffi.new("float (**)[4]")
    vel = ffi.new("float (**)[4]")
    group = ffi.new("uint32_t **")
    msg = ffi.new("char[]", _ERR_SIZE)
    name = os.fsdecode(path)
    code = _lib.boids_csv_read(_fspath(path), dim, count, pos, vel, group, msg, _ERR_SIZE)
    try:
        if code != _OK:
            line = f"init: '{name}' {_text(msg) or _text(_lib.boids_result_str(code))}"
            if code in (_FORMAT, _ARGUMENT):
                raise ValueError(line + "; expected a CSV with the header id,group,px,py,pz,vx,vy,vz "
                                 "and ids 0..N-1 once each")
            _raise(code, line)
        n = int(count[0])
        return (np.frombuffer(ffi.buffer(pos[0], 16 * n), dtype=np.float32).reshape(n, 4).copy(),
                np.frombuffer(ffi.buffer(vel[0], 16 * n), dtype=np.float32).reshape(n, 4).copy(),
                np.frombuffer(ffi.buffer(group[0], 4 * n), dtype=np.uint32).copy())
    finally:
        for p in (pos[0], vel[0], group[0]):
            if p != ffi.NULL:
                _lib.free(p)
