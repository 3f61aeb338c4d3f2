"""The shared library and its C declarations: libboids.so opened through
cffi in ABI mode (the places it is looked for: the package's doc), the
declarations of the functions and structs used (copied from
include/boids/*.h), boids_result codes as Python exceptions, and the names
the library lists (behaviours, scenarios, GPU kernels, backends)."""

from __future__ import annotations

import glob
import os
from typing import List

import cffi


_CDEF = """
typedef int boids_result;
typedef int boids_backend;
typedef int boids_distribution;
typedef int boids_index;
typedef int boids_update;
typedef int boids_kernel;
typedef int boids_engine_buffer;
typedef int boids_debug_rounding;
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

typedef struct boids_debug {
    const char *emulate;
    const char *fault;
    boids_debug_rounding correct_rounding;
    bool steer_general;
    bool no_int64;
} boids_debug;

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
    boids_debug debug;
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

uint32_t boids_engine_option_count(void);
const char *boids_engine_option_name(uint32_t i, const char **kind);

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
    void (*work)(void *user, double done);
} boids_ensemble_desc;
boids_result boids_plan_load(const char *path, boids_plan **out, char *err, size_t err_size);
void boids_plan_free(boids_plan *p);
uint32_t boids_plan_runs(const boids_plan *p);
boids_result boids_ensemble_run(const boids_plan *p, const boids_ensemble_desc *d, uint32_t *failed,
                                char *err, size_t err_size);
"""

# boids/error.h's codes, in order.
_OK, _NOMEM, _ARGUMENT, _COUNT, _WORLD, _RADIUS, _CELL, _PARAM, _PATH = range(9)
_IO, _FORMAT, _GL, _SHADER, _GPU_LIMIT, _BODY, _GPU_LOST, _GL_ERRORS, _NONFINITE = range(9, 18)
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
    """The places libboids.so is looked for, in order (see the package's doc)."""
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


def _text(ptr):
    """A C string as str ('' for NULL)."""
    return ffi.string(ptr).decode("utf-8", "replace") if ptr != ffi.NULL else ""


def _raise(code, message):
    """Raises the Python exception of a boids_result with the engine's message."""
    what = _text(_lib.boids_result_str(code))
    line = message or what
    if code == _NOMEM:
        raise MemoryError(line)
    if code == _NONFINITE:  # the state is not finite: the engine steps no more (set_agents starts anew)
        raise FloatingPointError(line)
    if code in _RUNTIME:
        raise RuntimeError(line)
    if code in _FILE:
        raise OSError(line)
    raise ValueError(line)


def _check(code, err=None):
    """Raises on a result other than BOIDS_OK (err: the engine's err buffer)."""
    if code != _OK:
        _raise(code, _text(err) if err is not None else "")


def _raise_engine(e, code):
    """Raises the exception of a failed engine call `code`: the line of the
    engine's fault check (boids_engine_check) when it has one, else the
    code's own words."""
    err = ffi.new("char[]", _ERR_SIZE)
    _lib.boids_engine_check(e, err, _ERR_SIZE)
    _raise(code, _text(err) or _text(_lib.boids_result_str(code)))


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
