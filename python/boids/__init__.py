"""Python bindings of the boids engine (include/boids/engine.h).

The bindings are cffi in ABI mode: no compiler is needed, the shared library
``libboids.so`` is opened at import.  It is looked for, in this order:

1. ``$BOIDS_LIBRARY`` (a path to the file; an error if it cannot be opened),
2. next to this package (``boids/libboids.so*``, put there by an install),
3. the source tree's build (``build/lib/libboids.so`` beside ``python/``),
4. the system loader path (``libboids.so.0``, e.g. after ``cmake --install``).

Arrays handed out (``positions``, ``velocities``, ``groups``, ``ids``) are
numpy copies made by one ``boids_engine_read`` each: they are the caller's,
stay valid for ever and do not change when the simulation steps.

``Simulation(...)`` takes boids-run's flags as keywords (``world=(800, 600),
boundary="walls", radius=60, behaviors=[...]``: ``options()`` lists them)
with boids-run's state-hash for the same flags; ``sim.neighbor_graph(distances=True)``
is the neighbour graph of the current state as CSR arrays.  A process
forked from one that stepped a simulation (``multiprocessing``'s default
``fork``) steps on one thread, with the same results.

Errors: ``TypeError`` for an argument of the wrong type (integers are
whatever ``operator.index`` takes, numpy's included), ``ValueError`` for bad
values or arrays (the engine's message, naming the keyword),
``RuntimeError`` for OpenGL / device problems, ``OSError`` for files,
``MemoryError`` when the engine runs out of memory; every method of a closed
simulation raises ``ValueError("... closed")``.

>>> import boids
>>> with boids.Simulation(count=100, seed=1) as sim:
...     sim.step(2)
...     sim.steps, sim.count, sim.positions.dtype
(2, 100, dtype('float32'))
"""

from __future__ import annotations

import dataclasses
import glob
import operator
import os
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import cffi
import numpy as np

__all__ = ["Simulation", "Stats", "Recording", "Frame", "scenarios", "behaviors", "library_path",
           "run_ensemble", "read_ensemble", "stat_names", "options", "__version__"]

_CDEF = """
typedef int boids_result;
typedef int boids_backend;
typedef int boids_distribution;
typedef int boids_index;
typedef int boids_update;
typedef int boids_kernel;
typedef int boids_engine_buffer;
typedef void *boids_gl_loadfn;
typedef struct boids_engine boids_engine;
typedef struct boids_engine_headless boids_engine_headless;
typedef struct boids_scenario boids_scenario;
typedef struct boids_params boids_params;

typedef struct boids_stats {
    uint64_t step;
    double polarisation;
    double mean_speed;
    double mean_neighbors;
    double mean_nearest;
    uint32_t cell_max;
    double cell_mean;
    uint64_t candidate_pairs;
    uint64_t neighbor_pairs;
    double milling;
} boids_stats;

typedef struct boids_engine_desc {
    const boids_scenario *scenario;
    const boids_params *params;
    uint32_t count;
    uint32_t dim;
    boids_distribution distribution;
    const float (*pos)[4];
    const float (*vel)[4];
    const uint32_t *group;
    boids_backend backend;
    int threads;
    boids_index index;
    boids_gl_loadfn gl_load;
    boids_engine_headless *headless;
    const char *shader_dir;
    bool quiet;
    bool timing;
    bool silent_errors;
    uint64_t seed;
    boids_update update;
    boids_kernel kernel;
    bool background_builds;
} boids_engine_desc;

const char *boids_result_str(boids_result r);
int boids_behavior_index(const char *name);
const char *boids_behavior_name(uint32_t index);
extern const char *const boids_kernel_names[];
const char *boids_scenario_dir(void);

boids_result boids_engine_headless_open(boids_engine_headless **out, char *err, size_t err_size);
void boids_engine_headless_close(boids_engine_headless *h);

boids_result boids_engine_create(boids_engine **out, const boids_engine_desc *desc,
                                 char *err, size_t err_size);
boids_result boids_engine_load(boids_engine **out, const char *path,
                               const boids_engine_desc *desc, char *err, size_t err_size);
void boids_engine_destroy(boids_engine *e);
boids_result boids_engine_step(boids_engine *e, uint64_t n, uint64_t *done);
boids_result boids_engine_create_scenario(boids_engine **out, const char *name_or_path,
                                          const boids_engine_desc *desc, char *err, size_t err_size);
boids_result boids_engine_set_group_value(boids_engine *e, uint32_t group, const char *name,
                                          float value, char *err, size_t err_size);
boids_result boids_engine_set_behaviors(boids_engine *e, uint32_t group, uint32_t behaviors, char *err,
                                       size_t err_size);
boids_result boids_engine_behaviors(const boids_engine *e, uint32_t group, uint32_t *out);
boids_result boids_engine_read(boids_engine *e, float (*pos)[4], float (*vel)[4], uint32_t *group);
boids_result boids_engine_set_agents(boids_engine *e, const float (*pos)[4],
                                     const float (*vel)[4], const uint32_t *group);
boids_result boids_engine_stats(boids_engine *e, boids_stats *out);
boids_result boids_engine_read_buffer(boids_engine *e, boids_engine_buffer which, void *dst, size_t bytes);
uint64_t boids_engine_hash(boids_engine *e);
boids_result boids_engine_check(boids_engine *e, char *err, size_t err_size);
boids_result boids_engine_save(boids_engine *e, const char *path, char *err, size_t err_size);
const char *boids_engine_error(const boids_engine *e);
uint32_t boids_engine_count(const boids_engine *e);
uint32_t boids_engine_dim(const boids_engine *e);
uint64_t boids_engine_steps(const boids_engine *e);
boids_backend boids_engine_backend(const boids_engine *e);
const char *boids_engine_describe(const boids_engine *e);

const char *boids_version(int *major, int *minor, int *patch);
boids_result boids_csv_read(const char *path, uint32_t dim, uint32_t *count, float (**pos)[4],
                            float (**vel)[4], uint32_t **group, char *msg, size_t msg_size);
void free(void *p);
typedef struct boids_engine_option {
    const char *name, *value;
} boids_engine_option;
boids_result boids_engine_create_options(boids_engine **out, const char *scenario, const boids_engine_desc *desc,
                                         const boids_engine_option *opt, uint32_t n, char *err, size_t err_size);
boids_result boids_engine_set_options(boids_engine *e, uint32_t group, const boids_engine_option *opt, uint32_t n,
                                      char *err, size_t err_size);
typedef struct boids_neighbor_graph {
    uint32_t count;
    uint64_t edges;
    uint64_t *indptr;
    uint32_t *indices;
    float *distances;
} boids_neighbor_graph;
boids_result boids_engine_neighbor_graph(boids_engine *e, bool distances, boids_neighbor_graph *out, char *err,
                                         size_t err_size);
void boids_neighbor_graph_free(boids_neighbor_graph *g);

typedef struct boids_recording boids_recording;
typedef struct boids_recording_info {
    uint32_t count, dim, components, group_count;
    uint64_t every;
    float min[3], size[3];
    const uint32_t *group;
    uint32_t frames;
    bool truncated;
    char note[256];
} boids_recording_info;
boids_result boids_recording_open(const char *path, boids_recording **out, char *err, size_t err_size);
const boids_recording_info *boids_recording_get_info(const boids_recording *r);
boids_result boids_recording_frame(boids_recording *r, uint32_t i, uint64_t *step, float (*pos)[4],
                                   float (*vel)[4], char *err, size_t err_size);
void boids_recording_close(boids_recording *r);

uint32_t boids_engine_stat_count(void);
const char *boids_engine_stat_name(uint32_t i);
typedef struct boids_plan boids_plan;
typedef struct boids_ensemble_desc {
    const char *out_dir;
    int jobs;
    int threads;
    bool resume;
    void (*progress)(void *user, uint32_t done, uint32_t failed, uint32_t total);
    void *user;
    uint32_t kill_after;
} boids_ensemble_desc;
boids_result boids_plan_load(const char *path, boids_plan **out, char *err, size_t err_size);
void boids_plan_free(boids_plan *p);
uint32_t boids_plan_runs(const boids_plan *p);
boids_result boids_ensemble_run(const boids_plan *p, const boids_ensemble_desc *d, uint32_t *failed,
                                char *err, size_t err_size);
"""

# boids/error.h's codes, in order.
_OK, _NOMEM, _ARGUMENT, _COUNT, _WORLD, _RADIUS, _CELL, _PARAM, _PATH = range(9)
_IO, _FORMAT, _GL, _SHADER, _GPU_LIMIT, _BODY, _GPU_LOST, _GL_ERRORS = range(9, 17)
_RUNTIME = {_GL, _SHADER, _GPU_LIMIT, _GPU_LOST, _GL_ERRORS}
_FILE = {_IO, _FORMAT}
_MAX_GROUPS = 64  # more than BOIDS_MAX_GROUPS: the loops stop at the engine's count
_ERR_SIZE = 1024
_BACKENDS = {"cpu": 0, "gpu": 1}
# boids/engine.h's boids_engine_buffer values used here.
_BUF_ID, _BUF_NEIGHBORS, _BUF_NEAREST = 2, 8, 9

ffi = cffi.FFI()
ffi.cdef(_CDEF)


def _candidates():
    """The places libboids.so is looked for, in order (see the module doc)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("BOIDS_LIBRARY")
    if env:
        return [env], True
    found = sorted(glob.glob(os.path.join(here, "libboids.so*")))
    found.append(os.path.join(here, "..", "..", "build", "lib", "libboids.so"))
    found = [p for p in found if os.path.exists(p)]
    return found + ["libboids.so.0", "libboids.so"], False


def _open_library():
    """Opens the first libboids.so found; ImportError naming where it looked."""
    names, strict = _candidates()
    problems = []
    for name in names:
        try:
            # Never unloaded: OpenMP's worker threads (libgomp, loaded with the
            # library) may still be spinning when the interpreter exits, and
            # unmapping their code under them would crash it.
            return ffi.dlopen(name, ffi.RTLD_NOW | ffi.RTLD_NODELETE), name
        except OSError as exc:
            problems.append(f"{name}: {exc}")
            if strict:
                break
    raise ImportError("boids: libboids.so not found (set BOIDS_LIBRARY to its path); tried: "
                      + "; ".join(problems))


_lib, _lib_path = _open_library()


def library_path() -> str:
    """The path or name the shared library was opened from."""
    return _lib_path


#: The version of the libboids.so loaded (its BOIDS_VERSION, e.g. "0.1.0").
__version__: str = ffi.string(_lib.boids_version(ffi.NULL, ffi.NULL, ffi.NULL)).decode()

_MAX_AGENTS = 16777216  # BOIDS_MAX_AGENTS (shaders/shared.h)
_MAX_THREADS = 1024  # boids-run's --threads limit


def _fspath(path) -> bytes:
    """A path as the C library takes it (os.fsencode); ValueError for a NUL
    inside, which C would silently cut the name at."""
    b = os.fsencode(path)
    if b"\0" in b:
        raise ValueError(f"path {os.fsdecode(b)!r} contains a NUL character; expected a file name without one")
    return b


def _integer(name: str, value: Any, lo: int, hi: int, expected: str) -> int:
    """value as an int through operator.index (int, numpy integers, ...):
    TypeError naming `name` for another type, ValueError outside lo..hi."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not an integer; expected {expected}") \
            from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: {v} is out of range; expected {expected}")
    return v


def _number(name: str, value: Any) -> float:
    """value as a float: a real number (int, float, numpy scalars), not a
    bool or str (TypeError naming `name`)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a number") from None


def _text(ptr):
    """A C string as str ('' for NULL)."""
    return ffi.string(ptr).decode("utf-8", "replace") if ptr != ffi.NULL else ""


def _raise(code, message):
    """Raises the Python exception of a boids_result with the engine's message."""
    what = _text(_lib.boids_result_str(code))
    line = message or what
    if code == _NOMEM:
        raise MemoryError(line)
    if code in _RUNTIME:
        raise RuntimeError(line)
    if code in _FILE:
        raise OSError(line)
    raise ValueError(line)


def _check(code, err=None):
    """Raises on a result other than BOIDS_OK (err: the engine's err buffer)."""
    if code != _OK:
        _raise(code, _text(err) if err is not None else "")


def behaviors() -> List[str]:
    """The behaviour names the engine knows, in index order."""
    names = []
    for i in range(64):
        name = _text(_lib.boids_behavior_name(i))
        if not name or _lib.boids_behavior_index(name.encode()) != i:
            break
        names.append(name)
    return names


def scenarios() -> List[str]:
    """The names of the shipped scenarios, sorted: ``$BOIDS_SCENARIOS``, else
    the ones bundled with the package (or installed beside the library),
    else the source tree's; [] when there is no such directory."""
    directory = _text(_lib.boids_scenario_dir())
    if not directory:
        return []
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(directory, "*.ini")))


class _Closable:
    """close(), the context manager and the finalizer of an object that holds
    one C handle in the attribute named by ``_handle_attr`` (freed by
    ``_destroy``), under ``self._lock``."""

    _handle_attr = None

    def _destroy(self, handle):
        """Frees the handle (each class its own)."""
        raise NotImplementedError

    def _finalize_here(self):
        """Whether a finalizer may free the handle on this thread."""
        return True

    def close(self) -> None:
        """Frees the handle; later calls raise ValueError. Closing twice is fine."""
        with self._lock:
            handle = getattr(self, self._handle_attr)
            if handle is not None:
                self._destroy(handle)
                setattr(self, self._handle_attr, None)

    def __enter__(self):
        """The object itself (closed at the end of the with block)."""
        return self

    def __exit__(self, *exc):
        """Closes the object."""
        self.close()

    def __del__(self):
        """Closes the object if it is still open (where _finalize_here allows)."""
        try:
            if getattr(self, self._handle_attr, None) is not None and self._finalize_here():
                self.close()
        except Exception:  # noqa: BLE001 (nothing may escape a finalizer)
            pass


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


def _agents(count, name, array, dtype, width):
    """`array` (a numpy array, a list, ...) as a C-contiguous (count, width)
    copy of dtype for the engine.

    Accepts (count, 2..4) real numbers (integers converted) for positions /
    velocities (missing lanes are 0) and (count,) integers for groups;
    another shape or kind is a ValueError naming it.
    """
    try:
        a = np.asarray(array)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: not an array ({exc})") from None
    if width is None:
        if a.shape == (count,) and a.dtype == np.bool_:
            a = a.astype(np.uint32)
        if a.shape != (count,) or not (np.issubdtype(a.dtype, np.integer) or (count == 0 and a.dtype == float)):
            raise ValueError(f"{name}: expected an integer array of shape ({count},), "
                             f"got {a.dtype} {a.shape}")
        if count and (a.min() < 0 or a.max() > 0xFFFFFFFF):
            raise ValueError(f"{name}: groups must be in 0..2^32-1")
        return np.ascontiguousarray(a, dtype=np.uint32)
    real = np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)
    if a.ndim != 2 or a.shape[0] != count or not 2 <= a.shape[1] <= width or not real:
        raise ValueError(f"{name}: expected a real-number array of shape ({count}, 2..{width}), "
                         f"got {a.dtype} {a.shape}")
    out = np.zeros((count, width), dtype=np.float32)
    out[:, :a.shape[1]] = a
    return out


class _SharedContext:
    """The one headless GL context of the library that every GPU Simulation
    of the process shares (the engine allows one open at a time, current on
    the thread that opened it): opened by the first GPU Simulation, closed
    after the last one is destroyed, on one thread. If that thread has ended
    with Simulations still open, the context went with it: the next GPU
    Simulation closes it and opens a new one on its own thread, and those
    orphans (an older ``generation``) refuse every use."""

    def __init__(self):
        """No context yet."""
        self._lock = threading.Lock()
        self._handle = None
        self._thread = None  # the threading.Thread that opened it
        self._users = 0
        self.generation = 0

    def acquire(self):
        """(context, generation) for one more GPU Simulation on this thread
        (opened on the first); RuntimeError if it lives on another, running
        thread or cannot open."""
        with self._lock:
            if self._handle is not None and not self._thread.is_alive():
                # Its thread ended: nothing can use it again. Closing it from
                # here is safe (EGL releases a dead thread's context).
                _lib.boids_engine_headless_close(self._handle)
                self._handle, self._thread, self._users = None, None, 0
                self.generation += 1
            if self._handle is not None and self._thread is not threading.current_thread():
                raise RuntimeError("gpu: the GPU Simulations of this process live on another thread "
                                   "(their GL context is current there); make this one on that thread")
            if self._handle is None:
                out = ffi.new("boids_engine_headless **")
                err = ffi.new("char[]", _ERR_SIZE)
                _check(_lib.boids_engine_headless_open(out, err, _ERR_SIZE), err)
                self._handle, self._thread = out[0], threading.current_thread()
            self._users += 1
            return self._handle, self.generation

    def release(self, generation):
        """One GPU Simulation of `generation` fewer (its engine destroyed);
        closes the context after the last."""
        with self._lock:
            if generation != self.generation:
                return
            self._users -= 1
            if self._users == 0 and self._handle is not None:
                _lib.boids_engine_headless_close(self._handle)
                self._handle = None
                self._thread = None


_context = _SharedContext()


# The keywords of Simulation(...) and set(...) that are boids-run flags: the
# Python name (snake_case) -> (the flag without "--", the kind of value).
_OPTIONS: Dict[str, Tuple[str, str]] = {
    "world": ("world", "extents"),
    "origin": ("origin", "point"),
    "boundary": ("boundary", "name"),
    "margin": ("margin", "number"),
    "wall_corner": ("wall-corner", "name"),
    "behaviors": ("behaviors", "behaviors"),
    "radius": ("radius", "number"),
    "separation": ("separation", "number"),
    "fov": ("fov", "number"),
    "alignment_radius": ("alignment-radius", "number"),
    "cohesion_radius": ("cohesion-radius", "number"),
    "separation_fov": ("separation-fov", "number"),
    "alignment_fov": ("alignment-fov", "number"),
    "cohesion_fov": ("cohesion-fov", "number"),
    "neighbors_max": ("neighbors-max", "integer"),
    "eta": ("eta", "number"),
    "sigma": ("sigma", "number"),
    "turn": ("turn", "number"),
    "grid_fine": ("grid-fine", "grid_fine"),
    "maxspeed": ("maxspeed", "number"),
    "maxforce": ("maxforce", "number"),
    "maxspeed_range": ("maxspeed-range", "range"),
    "maxforce_range": ("maxforce-range", "range"),
    "rules": ("rules", "name"),
    "leader": ("leader", "agent"),
    "formation": ("formation", "name"),
    "interpose": ("interpose", "agents"),
    "combine": ("combine", "name"),
    "dt": ("dt", "number"),
    "bodies": ("bodies", "name"),
    "joints": ("joints", "integer"),
    "body_length": ("body-length", "number"),
    "path_outside": ("path-outside", "name"),
    "path_line": ("path-line", "name"),
    "distribution": ("distribution", "name"),
    "index": ("index", "name"),
    "update": ("update", "name"),
    "weights": ("weights", "weights"),
}
_FLAG_NAMES = {flag: name for name, (flag, _) in _OPTIONS.items()}


def options() -> List[str]:
    """The keywords ``Simulation(...)`` takes beside count, dim, backend,
    seed, init, threads, scenario and kernel: boids-run's flags in
    snake_case (``wall_corner`` for ``--wall-corner``)."""
    return list(_OPTIONS)


def _numbers(name: str, value: Any, lo: int, hi: int) -> List[str]:
    """A sequence of lo..hi numbers as their texts (TypeError / ValueError naming `name`)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a sequence of {lo} to {hi} numbers")
    if not lo <= len(value) <= hi:
        raise ValueError(f"{name}: {value!r} has {len(value)} numbers; expected {lo} to {hi}")
    return [repr(_number(name, v)) for v in value]


def _agent_text(name: str, value: Any) -> str:
    """An agent id or "target" as boids-run's --leader takes it."""
    if isinstance(value, str):
        return value
    return str(_integer(name, value, 0, _MAX_AGENTS - 1, "an agent id or 'target'"))


def _option_text(name: str, value: Any) -> str:
    """The boids-run value text of keyword `name` (TypeError for a value of
    the wrong type; the library checks the value itself)."""
    kind = _OPTIONS[name][1]
    if kind == "number":
        return repr(_number(name, value))
    if kind == "integer":
        return str(_integer(name, value, 0, 2**32 - 1, "an integer"))
    if kind == "name":
        if not isinstance(value, str):
            raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a name (str)")
        return value
    if kind == "extents":
        return "x".join(_numbers(name, value, 2, 3))
    if kind == "point":
        return ",".join(_numbers(name, value, 2, 3))
    if kind == "range":
        return ",".join(_numbers(name, value, 2, 2))
    if kind == "grid_fine":
        return value if isinstance(value, str) else str(_integer(name, value, 1, 4, "1..4 or 'auto'"))
    if kind == "agent":
        return _agent_text(name, value)
    if kind == "agents":
        if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 2:
            raise TypeError(f"{name}: {value!r} is not a pair of agent ids (or 'target')")
        return ",".join(_agent_text(name, v) for v in value)
    if kind == "behaviors":
        if isinstance(value, str):
            return value
        try:
            names = list(value)
        except TypeError:
            raise TypeError(f"{name}: {value!r} is not a behaviour name or a list of them") from None
        if not all(isinstance(v, str) for v in names):
            raise TypeError(f"{name}: {value!r} is not a list of behaviour names (str)")
        return ",".join(names) if names else "none"
    # weights
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: {value!r} is not a dict of behaviour name -> weight")
    return ",".join(f"{k}={_number(f'weights[{k!r}]', v)!r}" for k, v in value.items())


def _option_array(values: Mapping[str, Any]):
    """(cdata array of boids_engine_option, n, the texts kept alive) for the keywords."""
    keep = []
    arr = ffi.new("boids_engine_option[]", max(1, len(values)))
    for i, (name, value) in enumerate(values.items()):
        flag = ffi.new("char[]", _OPTIONS[name][0].encode())
        value_text = _option_text(name, value)
        if "\0" in value_text:
            raise ValueError(f"{name}: {value_text!r} contains a NUL character")
        text = ffi.new("char[]", value_text.encode())
        keep += [flag, text]
        arr[i].name = flag
        arr[i].value = text
    return arr, len(values), keep


def _unknown_keyword(where: str, names: Sequence[str]) -> None:
    """TypeError for keywords that are not options, with the nearest known ones."""
    import difflib

    bad = ", ".join(repr(n) for n in names)
    near = [m for n in names for m in difflib.get_close_matches(n, list(_OPTIONS), 1)]
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise TypeError(f"{where}: unexpected keyword {bad}{hint}; boids.options() lists the keywords")


def _python_words(message: str) -> str:
    """An engine line "wall-corner: ..." with the flag spelt as the keyword ("wall_corner: ...")."""
    head, sep, rest = message.partition(":")
    return _FLAG_NAMES.get(head, head) + sep + rest if sep else message


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
    ``distribution="clustered"``, ``bodies="snake"``, ``leader=0``, ...
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
        ValueError outside); RuntimeError on a GPU fault (the fault's line).
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

    def set(self, maxspeed: Optional[float] = None, maxforce: Optional[float] = None,
            radius: Optional[float] = None, separation: Optional[float] = None,
            weights: Optional[Mapping[str, float]] = None, group: Optional[int] = None, *,
            eta: Optional[float] = None, sigma: Optional[float] = None, turn: Optional[float] = None,
            alignment_radius: Optional[float] = None, cohesion_radius: Optional[float] = None,
            **options: Any) -> None:
        """Sets values after creation, in every group (group=None) or one:
        maxspeed, maxforce, radius, separation (> 0) and weights ({"alignment": 2.0,
        ...}: behaviour name -> weight, -1e6..1e6), as a scenario file's
        [group] keys; the collective-motion models' (docs/MODELS.md):
        eta (rules vicsek, 0..2 pi), sigma (rules couzin, 0..pi), turn
        (radians per time unit, 0..pi), alignment_radius and cohesion_radius
        (Couzin's r_o, r_a); and any other keyword of ``Simulation(...)``
        that does not fix the grid or the world: boundary, margin,
        wall_corner, behaviors, fov and the rules' fovs, neighbors_max,
        maxspeed_range, maxforce_range, rules, leader, formation, interpose,
        combine, dt, path_outside, path_line (boundary, margin, wall_corner,
        combine, dt and the path's are the world's: every group's, whatever
        ``group`` says).  world, origin, grid_fine,
        bodies, joints, body_length, distribution, index and update need a
        new simulation: ValueError saying so.  The named values go through
        boids_engine_set_group_value in turn, then the others at once; the
        first refused raises ValueError with the engine's line (values set
        before it stay).  A radius wider than the grid the simulation was
        made with is refused (give it to ``Simulation(radius=...)``); a
        dynamic scenario's varying weight is overwritten by its schedule at
        the next step."""
        unknown = [k for k in options if k not in _OPTIONS]
        if unknown:
            _unknown_keyword("set", unknown)
        values = [(k, _number(k, v)) for k, v in (("maxspeed", maxspeed), ("maxforce", maxforce),
                                                  ("radius", radius), ("separation", separation),
                                                  ("eta", eta), ("sigma", sigma), ("turn", turn),
                                                  ("alignment_radius", alignment_radius),
                                                  ("cohesion_radius", cohesion_radius)) if v is not None]
        if weights is not None:
            if not isinstance(weights, Mapping):
                raise TypeError(f"weights: {weights!r} is not a dict of behaviour name -> weight")
            values += [(f"weight.{k}", _number(f"weights[{k!r}]", v)) for k, v in weights.items()]
        g = 0xFFFFFFFF if group is None else _integer("group", group, 0, 0xFFFFFFFE, "a group index")
        opts, n, texts = _option_array(options)
        with self._lock:
            e = self._owner()
            for name, value in values:
                err = ffi.new("char[]", _ERR_SIZE)
                code = _lib.boids_engine_set_group_value(e, g, str(name).encode(), value, err, _ERR_SIZE)
                if code == _RADIUS and name in ("radius", "separation", "alignment_radius", "cohesion_radius"):
                    _raise(code, _text(err) + f"; or give {name}= to Simulation(...) to make a grid for it")
                _check(code, err)
            if n:
                err = ffi.new("char[]", _ERR_SIZE)
                code = _lib.boids_engine_set_options(e, g, opts, n, err, _ERR_SIZE)
                if code != _OK:
                    _raise(code, _python_words(_text(err)))
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


def _raise_engine(e, code):
    """Raises the exception of a failed engine call `code`: the line of the
    engine's fault check (boids_engine_check) when it has one, else the
    code's own words."""
    err = ffi.new("char[]", _ERR_SIZE)
    _lib.boids_engine_check(e, err, _ERR_SIZE)
    _raise(code, _text(err) or _text(_lib.boids_result_str(code)))


def _make(desc, create):
    """(engine, generation) from create(out, err) (boids_engine_create or a
    sibling) for desc, a GPU one on the shared context (generation: the
    context's; None on the CPU); raises the engine's error."""
    gpu = desc.backend == 1
    generation = None
    if gpu:
        desc.headless, generation = _context.acquire()
    out = ffi.new("boids_engine **")
    err = ffi.new("char[]", _ERR_SIZE)
    try:
        _check(create(out, err), err)
    except BaseException:
        if gpu:
            _context.release(generation)
        raise
    return out[0], generation


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


def _kernel_names():
    """The GPU kernel names in boids_kernel order, from the library's NULL-terminated boids_kernel_names."""
    names, i = [], 0
    while _lib.boids_kernel_names[i] != ffi.NULL:
        names.append(_text(_lib.boids_kernel_names[i]))
        i += 1
    return tuple(names)


_KERNELS = _kernel_names()


def _backend(name):
    """The boids_backend of "cpu" / "gpu"; ValueError otherwise."""
    if name not in _BACKENDS:
        raise ValueError(f"backend: {name!r} is not a backend; expected 'cpu' or 'gpu'")
    return _BACKENDS[name]


@dataclasses.dataclass(frozen=True)
class Frame:
    """One recorded frame: its step and (N, dim) float32 positions and
    velocities by agent id (copies, the caller's)."""

    step: int
    positions: np.ndarray
    velocities: np.ndarray


class Recording(_Closable):
    """A recording (.boidsrec of ``boids-run --record``) opened for reading.

    ``for frame in Recording(path): frame.step, frame.positions`` iterates
    the complete frames in order; ``len(rec)``, ``rec[i]``, ``count``,
    ``dim``, ``every``, ``groups`` ((N,) uint32), ``truncated`` and ``note``
    describe it.  The file is checked whole when opened (header, every
    frame's CRC and values): OSError with the reader's line for a missing or
    damaged file.  A context manager; ``close()`` frees it, after which
    every use raises ValueError.  Not thread-safe beyond its lock.
    """

    def __init__(self, path: Union[str, os.PathLike]) -> None:
        """Opens and checks path; OSError ("FILE: problem") if it cannot."""
        self._r = None
        self._lock = threading.RLock()
        out = ffi.new("boids_recording **")
        err = ffi.new("char[]", _ERR_SIZE)
        _check(_lib.boids_recording_open(_fspath(path), out, err, _ERR_SIZE), err)
        self._r = out[0]
        info = _lib.boids_recording_get_info(self._r)
        self.count = int(info.count)
        self.dim = int(info.dim)
        self.every = int(info.every)
        self.truncated = bool(info.truncated)
        self.note = _text(info.note)
        self._frames = int(info.frames)
        self.groups = np.frombuffer(ffi.buffer(info.group, 4 * self.count), dtype=np.uint32).copy() \
            if self.count else np.empty(0, dtype=np.uint32)

    _handle_attr = "_r"

    def _destroy(self, reader):
        """Frees the reader."""
        _lib.boids_recording_close(reader)

    def __len__(self) -> int:
        """The number of complete frames; ValueError once closed."""
        if self._r is None:
            raise ValueError("boids: operation on a closed Recording")
        return self._frames

    def __getitem__(self, i: int) -> "Frame":
        """Frame i (negative from the end) as a Frame; IndexError past the end."""
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(f"Recording indices are integers, not {type(i).__name__}") from None
        if i < 0:
            i += self._frames
        if not 0 <= i < self._frames:
            raise IndexError(f"frame {i} of a recording of {self._frames}")
        with self._lock:
            if self._r is None:
                raise ValueError("boids: operation on a closed Recording")
            pos = np.empty((self.count, 4), dtype=np.float32)
            vel = np.empty((self.count, 4), dtype=np.float32)
            step = ffi.new("uint64_t *")
            err = ffi.new("char[]", _ERR_SIZE)
            code = _lib.boids_recording_frame(
                self._r, i, step, ffi.cast("float (*)[4]", ffi.from_buffer(pos, require_writable=True)),
                ffi.cast("float (*)[4]", ffi.from_buffer(vel, require_writable=True)), err, _ERR_SIZE)
            _check(code, err)
        return Frame(int(step[0]), np.ascontiguousarray(pos[:, :self.dim]),
                     np.ascontiguousarray(vel[:, :self.dim]))

    def __iter__(self) -> Iterator["Frame"]:
        """The frames in order."""
        for i in range(self._frames):
            yield self[i]

    def __repr__(self):
        """Agents, dimension, frames and the recording interval."""
        state = "closed" if self._r is None else f"{self._frames} frames"
        return f"<boids.Recording {self.count} agents {self.dim}D every {self.every}, {state}>"


# ---- ensembles (boids/ensemble.h, docs/ENSEMBLES.md) ----------------------------------


def stat_names() -> List[str]:
    """The statistics' names (boids_engine_stat_name), the columns of an ensemble's results."""
    return [_text(_lib.boids_engine_stat_name(i)) for i in range(_lib.boids_engine_stat_count())]


def _column(values):
    """A results.csv column as a numpy array: float64 when every non-empty
    value is a number (empty: NaN), else str."""
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=str)


def read_ensemble(out_dir: Union[str, os.PathLike]) -> Dict[str, np.ndarray]:
    """An ensemble's results.csv as a dict of columns (numpy arrays, in the
    file's order: run, the swept keys, seed, [group,] step, the statistics,
    state_hash, status). Numeric columns are float64 (NaN where empty: a
    failed run's row, a statistic of the whole flock on a group's row);
    state_hash, status, group and any swept key with text values are str."""
    import csv

    path = os.path.join(out_dir, "results.csv")
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    cols = list(zip(*rows)) if rows else [()] * len(header)
    out = {}
    for name, values in zip(header, cols):
        out[name] = np.array(values, dtype=str) if name in ("state_hash", "status", "group") else _column(values)
    return out


def run_ensemble(plan: Union[str, os.PathLike], out_dir: Union[str, os.PathLike], jobs: int = 1, threads: int = 1,
                 resume: bool = False,
                 progress: Optional[Callable[[int, int, int], None]] = None) -> Dict[str, np.ndarray]:
    """Runs an ensemble plan (a plan file's path) as boids-ensemble does on
    one process: `jobs` runs at once on threads (the GPU backend: one after
    another), each engine on `threads` CPU threads; `resume` runs only what
    out_dir lacks. `progress(done, failed, total)`, if given, is called after
    each run is written. Returns read_ensemble(out_dir). A bad plan raises
    ValueError naming the file, line and key (before any run); a failed run
    is a row with status 'failed' (its message in out_dir/runs/RUN.json)."""
    err = ffi.new("char[]", _ERR_SIZE * 2)
    out = ffi.new("boids_plan **")
    code = _lib.boids_plan_load(_fspath(plan), out, err, _ERR_SIZE * 2)
    if code == _FORMAT:
        raise ValueError(_text(err))
    _check(code, err)
    p = out[0]
    try:
        desc = ffi.new("boids_ensemble_desc *")
        dir_c = ffi.new("char[]", _fspath(out_dir))
        desc.out_dir = dir_c
        desc.jobs = _integer("jobs", jobs, 1, _MAX_THREADS, f"1..{_MAX_THREADS}")
        desc.threads = _integer("threads", threads, 0, _MAX_THREADS, f"0..{_MAX_THREADS}")
        desc.resume = bool(resume)
        callback = None
        if progress is not None:
            @ffi.callback("void(void *, uint32_t, uint32_t, uint32_t)")
            def callback(_user, done, failed, total):
                progress(done, failed, total)
            desc.progress = callback
        failed = ffi.new("uint32_t *")
        _check(_lib.boids_ensemble_run(p, desc, failed, err, _ERR_SIZE * 2), err)
    finally:
        _lib.boids_plan_free(p)
    return read_ensemble(out_dir)
