/* boids/engine.h: one simulation behind one handle, on either backend: the
 * CPU reference (src/core) or the OpenGL 4.5 compute shaders (src/gpu), on a
 * headless context of the engine's own (EGL) or on the caller's current one
 * (the viewer's window). Every executable, the Python package and the
 * distributed runs drive simulations through this header only; none reaches
 * into boids_sim or boids_gpu.
 *
 * Offers:
 *   boids_engine_desc      zero = defaults (1000 agents, 2D, the chapter's flocking, CPU)
 *   boids_engine_headless  one headless GL context for several GPU engines in turn (_open / _close /
 *                          _renderer / _context)
 *   boids_engine_create / _create_scenario (a scenario file) / _load (a .boids snapshot) / _destroy
 *   boids_engine_step      N steps, the scenario's schedule applied before each, faults checked after each
 *                          (_set_cancel: a signal's flag stops it early; _cut_short)
 *   boids_engine_params / _set_params / _set_group_value / _set_behaviors / _behaviors / _scenario / _set_scenario
 *   boids_engine_read / _read_joints / _set_agents / _set_state   the state by agent id, in caller memory
 *   boids_engine_copy_state / _copy_agents / _reset_bodies   (validation runs both backends from one state)
 *   boids_engine_read_buffer   per-slot outputs and grid buffers (validation)
 *   boids_engine_stage     one stage of a step (validation drives stages)
 *   boids_engine_stage_ms / _stats / _hash / _check (faults)
 *   boids_engine_stat_count / _stat_name / _stat_grouped / _stat_values   the statistics as one name -> value table
 *   boids_engine_create_options / _set_options   boids-run's flags by name and value text
 *   boids_engine_neighbor_graph / boids_neighbor_graph_free   who is near whom, as CSR by agent id
 *   boids_engine_save / _write_csv / _last_good / _record_open / _record_close / _error
 *   boids_engine_gl_buffers    the GPU's buffer names, to draw from (GPU backend only)
 *   boids_engine_fault_env (BOIDS_DEBUG's hooks checked before GL) / _corrects_rounding
 *   boids_engine_program_stats  the GPU's compute programs as the driver compiled them (boids/program_stats.h)
 *   boids_engine_count / _dim / _steps / _backend / _describe / _context / _renderer / _cells / _bytes
 *   BOIDS_TOL_* / boids_tol_joint  the CPU-vs-GPU tolerances (boids/tolerance.h)
 *
 * Units: positions and lengths in world units, velocities in world units
 * per step of dt 1 (the chapter's pixels per frame), time in steps; stage
 * times in milliseconds.
 *
 * Memory: the engine owns everything it allocates; arrays passed in are the
 * caller's and are copied (never kept). Errors: a boids_result and, where an
 * `err` buffer is taken, one line naming the input, the value and what is
 * allowed (no program name, no trailing newline); err may be NULL. Nothing
 * here exits or prints, but GL debug messages when desc.quiet is false.
 *
 * NULL: every function checks its handle (and the pointers it must write
 * through or read). A NULL engine is BOIDS_ERR_ARGUMENT from a function
 * that returns a boids_result (err, where taken: "FUNCTION: the engine is
 * NULL; expected ..."); the others return a neutral value: 0 (counts, sizes,
 * the hash, the step counter), false, NULL (params, scenario), "" (strings),
 * BOIDS_BACKEND_CPU, and zero their out-struct. destroy and close of NULL do nothing.
 *
 * Faults (GPU): after a lost context or a GL error every call that would
 * touch the GPU does nothing and returns the fault (BOIDS_ERR_GPU_LOST,
 * BOIDS_ERR_GL_ERRORS); reads leave the caller's memory as it was. On the
 * CPU backend boids_engine_check is always BOIDS_OK.
 *
 * Not thread-safe: one engine is used from one thread at a time (its own
 * OpenMP threads are inside the CPU steps). Several engines may live in one
 * process; GPU ones share one context: the caller's, or one headless
 * context of the library's (an engine's own or a boids_engine_headless),
 * of which at most one is open at a time: each is made current when it is
 * opened, so a second would take the first's engines' GL calls.
 */
#ifndef BOIDS_ENGINE_H
#define BOIDS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "debug.h"
#include "platform.h"
#include "program_stats.h"
#include "scenario.h"
#include "tolerance.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct boids_engine boids_engine;

// A headless GL 4.5 context (EGL) that GPU engines use in turn instead of
// each opening one of its own: a program that makes one engine after another
// (boids-bench: one per agent count) opens one context, can name its renderer
// before the first engine exists, and tells "no OpenGL 4.5" apart from a
// failure of the engine itself. The caller owns it and closes it after the
// engines that use it are destroyed; it is current on the thread that opened it.
typedef struct boids_engine_headless boids_engine_headless;
// Opens the context. Errors: BOIDS_ERR_GL (no GL 4.5 context could be made:
// err says why), BOIDS_ERR_NOMEM, BOIDS_ERR_ARGUMENT while another headless
// context of the library is open (this one's or an engine's own). *out is
// NULL on error.
boids_result boids_engine_headless_open(boids_engine_headless **out, char *err, size_t err_size);
// Closes it. NULL is fine.
void boids_engine_headless_close(boids_engine_headless *h);
// The GL renderer string ("NVIDIA H200/PCIe/SSE2", "llvmpipe (...)"). Owned by h.
const char *boids_engine_headless_renderer(const boids_engine_headless *h);
// The context in boids_gl_context_describe's words ("EGL device 1 of 2
// (software), robust (...)"), as boids_engine_context of an engine on it. Owned by h.
const char *boids_engine_headless_context(const boids_engine_headless *h);

typedef enum boids_backend { BOIDS_BACKEND_CPU, BOIDS_BACKEND_GPU } boids_backend;

// How an engine is made; every zero field is the default written beside it.
typedef struct boids_engine_desc {
    // What to simulate: params (finalized or not: create finalizes a copy)
    // with distribution, else the scenario's params and distribution, else
    // the defaults of boids_params_default(count, dim). The scenario (its
    // schedule, names and colours) is kept in either case; without one, the
    // defaults' names and colours.
    const boids_scenario *scenario;
    const boids_params *params;
    uint32_t count;                  // 0: 1000 (with neither scenario nor params)
    uint32_t dim;                    // 0: 2 (with neither scenario nor params)
    boids_distribution distribution; // initial positions (with params or the defaults)
    // Initial agents in id order (pos[i], vel[i], group[i] of agent i; all
    // three or none, else BOIDS_ERR_ARGUMENT; params' count of them; checked
    // as boids_engine_set_agents does): NULL = from the seed.
    const float (*pos)[4];
    const float (*vel)[4];
    const uint32_t *group;
    boids_backend backend; // BOIDS_BACKEND_CPU (default) or _GPU
    int threads;           // CPU: OpenMP threads, <= 0: the runtime's default (results do not depend on it)
    boids_index index;     // CPU: neighbour search (default grid; the GPU has only the grid)
    // GPU: the caller's current GL 4.5 context through its loader, or NULL:
    // headless below, else the engine opens a headless EGL context of its
    // own (and closes it).
    boids_gl_loadfn gl_load;
    // GPU, with gl_load NULL: a context from boids_engine_headless_open that
    // the engine uses (and leaves open; it must outlive the engine). NULL:
    // the engine's own.
    boids_engine_headless *headless;
    const char *shader_dir; // GPU: NULL = the shaders built into the library
    bool quiet;             // GPU: do not print GL debug messages on stderr
    bool timing;            // GPU: benchmarks (asynchronous debug output)
    bool silent_errors;     // GPU: GL errors counted, not printed (boids_engine_check's line names the first)
    // The random seed (initial agents, wander): 0 = the seed of params, the
    // scenario or the defaults (1); else it replaces theirs, as boids-run's
    // --seed does. Ignored by boids_engine_load (the file's seed). The last
    // field, so a desc of an older program (zero here) means what it did.
    uint64_t seed;
    // CPU: the update order (BOIDS_UPDATE_PARALLEL, the default, or
    // _SEQUENTIAL: the chapter's sketch, boids/core.h); the GPU has only
    // parallel (BOIDS_ERR_ARGUMENT). After seed, for the same reason.
    boids_update update;
    // GPU: the kernel variant (boids/core.h boids_kernel; default
    // REFERENCE); every one gives the same bits. The CPU has only REFERENCE
    // (another: BOIDS_ERR_ARGUMENT). Last, for the same reason.
    boids_kernel kernel;
    // GPU, interactive use (the viewer): a steer program for new parameters
    // builds in the background where the driver compiles in its own threads
    // (the general steer steps meanwhile: the same bits); else each builds
    // before the step that needs it. Last, for the same reason.
    bool background_builds;
    // GPU: test hooks (boids/debug.h), zero = none; each field left zero
    // is filled from BOIDS_DEBUG's item of its name. Last, for the same
    // reason.
    boids_debug debug;
} boids_engine_desc;

// Makes an engine. Errors: BOIDS_ERR_ARGUMENT (a bad parameter, a bad
// test hook in desc.debug or BOIDS_DEBUG, an index or update order the
// backend lacks: err names it), BOIDS_ERR_NOMEM,
// BOIDS_ERR_GL (no GL 4.5 context could be made: err says why),
// BOIDS_ERR_GPU_LIMIT / _SHADER (the GPU cannot hold the count or build a
// program: err names the limit and the largest count that fits, or the
// shader and its log). A GPU engine of its own context (gl_load and
// headless NULL) while another headless context of the library is open:
// BOIDS_ERR_ARGUMENT (share a boids_engine_headless). *out is NULL on error.
boids_result boids_engine_create(boids_engine **out, const boids_engine_desc *desc, char *err, size_t err_size);
// An engine of a scenario file: name_or_path as boids-run's --scenario takes
// it (boids_scenario_find: a file, or a name of boids_scenario_dir), loaded
// with boids_scenario_load and made as create makes it with desc.scenario
// set (desc.params and desc.scenario ignored; desc.seed 0: the file's seed),
// so a caller (the Python package) needs no boids_scenario. The same flock
// as `boids-run --scenario NAME` with no other flag. Errors: BOIDS_ERR_IO
// (no such file, or no scenarios directory for a name), BOIDS_ERR_FORMAT (the
// file's line "PATH:LINE: [SECTION] KEY: problem; expected ..."), BOIDS_ERR_NOMEM,
// then create's. *out is NULL on error.
boids_result boids_engine_create_scenario(boids_engine **out, const char *name_or_path, const boids_engine_desc *desc,
                                          char *err, size_t err_size);
// An engine from a .boids snapshot (boids/snapshot.h): its agents, bodies,
// parameters, step and scenario; desc gives only the backend and its
// options (what to simulate is the file's, the update order included: a
// run saved sequential continues sequential, while desc.update sequential
// continues any snapshot so). Errors as boids_snapshot_load's
// (err: "FILE: problem") and then as create's.
boids_result boids_engine_load(boids_engine **out, const char *path, const boids_engine_desc *desc, char *err,
                               size_t err_size);
// Frees everything (the headless context too, if the engine made it). NULL is fine.
void boids_engine_destroy(boids_engine *e);

// Runs n steps (n may be 0). Before each step a dynamic scenario's schedule
// (boids_scenario_at_step: the circling target, varying weights) is applied
// at the step counter; after each GPU step boids_engine_check runs (no
// wait). Stops at the first fault and returns it, with *done (if non-NULL)
// the steps completed healthy (a step whose check fails ran, and counts in
// boids_engine_steps, but not in *done). A recording's frame that fails
// after its step: that step counts in *done. The GPU steps are queued, not waited for.
boids_result boids_engine_step(boids_engine *e, uint64_t n, uint64_t *done);
// A flag (a signal handler's, which stays set once set; NULL: none) that
// stops boids_engine_step early: checked before each step and, on the CPU,
// inside a step that has run BOIDS_CUT_AFTER_S (after the grid, inside the
// steer: boids_sim.cancel), so a step of millions of agents stops within a
// second while a short one finishes whole. The step cut short is undone
// (the state is the last whole step's, its neighbour outputs zero:
// boids_engine_cut_short says so) and not counted; boids_engine_step then
// returns BOIDS_OK with *done below n. A GPU step is not cut (it is short).
void boids_engine_set_cancel(boids_engine *e, const volatile sig_atomic_t *flag);
// Whether the last step was cut short by the flag after the CPU's stages had begun.
bool boids_engine_cut_short(const boids_engine *e);

// The parameters in effect (finalized; the schedule's values of the last
// step). Valid until the next call that changes them.
const boids_params *boids_engine_params(const boids_engine *e);
// New parameters of the same shape (count, dimension, world, grid and group
// count; anything else is BOIDS_ERR_ARGUMENT with err naming what differs):
// groups, scene, target, world, bodies (new body types lay every body
// straight; BOIDS_ERR_BODY / _NOMEM and err as boids_gpu_set_bodies' on a
// rejected body). p is taken as it is (finalized: boids_engine_params' with
// changes; not finalized again), the step counter and the flow field stay.
// GPU: after a fault nothing changes and the fault is returned (err: its line).
boids_result boids_engine_set_params(boids_engine *e, const boids_params *p, char *err, size_t err_size);
// The behaviour mask (bit i = behaviour index BOIDS_BI_i) of one group, or of every group when
// group is UINT32_MAX. Checked as a snapshot's load checks it: a group out
// of range is BOIDS_ERR_ARGUMENT, bits of no behaviour (at or above
// BOIDS_BEHAVIOR_COUNT) BOIDS_ERR_PARAM, a mask the group's rules or named
// agents refuse (boids_params_finalize) its error; nothing changes on error,
// and err gets the line ("behaviors: 0x... has bits of no behaviour ...;
// expected ...").
boids_result boids_engine_set_behaviors(boids_engine *e, uint32_t group, uint32_t behaviors, char *err,
                                        size_t err_size);
// One value of one group (or of every group when group is UINT32_MAX), as a
// scenario file's [group] key names it: "maxspeed", "maxforce", "radius",
// "separation" (each > 0) or "weight.BEHAVIOUR" (-1e6..1e6), applied through
// boids_engine_set_params on a copy of the params in effect (so the Python
// package needs no boids_params). The grid is fixed when the engine is made:
// a radius or separation whose reach is wider than its cells is refused.
// A dynamic scenario's varying weight is overwritten at the next step.
// Errors: BOIDS_ERR_ARGUMENT (an unknown name or group), BOIDS_ERR_PARAM /
// _RADIUS / _CELL (a value out of range: err "NAME: VALUE ...; expected
// ALLOWED"), set_params' errors; nothing changes on error.
boids_result boids_engine_set_group_value(boids_engine *e, uint32_t group, const char *name, float value, char *err,
                                          size_t err_size);
// The behaviour mask of group `group` into *out (the params in effect):
// BOIDS_ERR_ARGUMENT for a group out of range (*out left as it was).
boids_result boids_engine_behaviors(const boids_engine *e, uint32_t group, uint32_t *out);
// The scenario in effect: the one given (or loaded), or one made of the
// params with the defaults' names and colours. Its params are the
// unscheduled ones.
const boids_scenario *boids_engine_scenario(const boids_engine *e);
// Replaces the scenario's host parts (schedule, names, colours, target mode)
// and, through set_params, its parameters; same shape rules as set_params.
boids_result boids_engine_set_scenario(boids_engine *e, const boids_scenario *sc, char *err, size_t err_size);

// The state in id order into caller arrays of count entries (any may be
// NULL): pos xyz + wander theta, vel xyz + wander phi, group. GPU: waits for
// the GPU; a fault leaves the arrays as they were and is returned.
boids_result boids_engine_read(boids_engine *e, float (*pos)[4], float (*vel)[4], uint32_t *group);
// The bodies' joints, joint j of agent id at [j * count + id] (xyz, w =
// facing angle in 2D); bytes must be rows * count * 16 (rows:
// boids_params_joint_rows). BOIDS_ERR_ARGUMENT for another size.
boids_result boids_engine_read_joints(boids_engine *e, float (*joints)[4], size_t bytes);
// Replaces the agents (id order, as desc.pos/vel/group: all three, else
// BOIDS_ERR_ARGUMENT); bodies are laid straight behind them. Speeds above a
// group's maxspeed are limited to it and positions outside the world
// wrapped or clamped in (as a step does); a group out of range or a value
// that is not finite is BOIDS_ERR_PARAM, nothing changed.
boids_result boids_engine_set_agents(boids_engine *e, const float (*pos)[4], const float (*vel)[4],
                                     const uint32_t *group);
// Replaces the agents and the step counter with a state that steps left
// (gathered from another run of the same parameters: boids-run --decompose's
// ranks) exactly as given: pos and vel with their wander lanes, group, in id
// order, nothing limited or wrapped; the counter becomes `step` (and the
// world's step, the last step taken, step - 1 as a step leaves it; step 0
// leaves it). The last step's per-agent outputs (neighbour counts, nearest)
// read 0. The bodies take `joints` (joint j of agent id at [j * count + id],
// boids_params_joint_rows rows, as boids_engine_read_joints gives them), or
// are laid straight when joints is NULL. Checks and errors as set_agents's
// (a joint that is not finite: BOIDS_ERR_PARAM too).
boids_result boids_engine_set_state(boids_engine *e, uint64_t step, const float (*pos)[4], const float (*vel)[4],
                                    const uint32_t *group, const float (*joints)[4]);
// A distributed run's rank (src/mpi, boids-run --decompose --backend gpu):
// one step of the s->n agents of s (its own and a halo's, any slot order,
// ids of the whole world; s's parameters, step counter and grid) on this
// GPU engine, whose agent count is the most it holds: uploaded, keyed,
// sorted, steered and integrated there (every agent; the caller keeps the
// ones it owns), then downloaded into s: the new state in the GPU's slot
// order, the candidates per slot and the step counter + 1, and with
// `outputs` the other per-slot outputs (neighbours, nearest) and the step's
// grid counts and starts (whole-world arrays: ask only when they are read).
// No bodies, no named agents, no survey (the caller's). The
// engine's own agents are gone after it (boids_engine_read and the like
// read what the GPU holds). BOIDS_ERR_ARGUMENT with one line in err: a CPU
// engine, or more agents than it holds; a GPU fault as boids_engine_step's.
boids_result boids_engine_step_agents(boids_engine *e, boids_sim *s, bool outputs, char *err, size_t err_size);
// Copies another engine's whole state (agents, joints, step counter) into
// this one, of the same shape: validation runs both backends from one state.
boids_result boids_engine_copy_state(boids_engine *dst, boids_engine *src);

// The agents (pos, vel, id, group in slot order) and the step counter of
// src into dst, of the same shape, dst's joints left as they are: the
// bodies stage of dst then follows src's heads (validation compares the
// bodies stage alone). Errors as copy_state's: BOIDS_ERR_ARGUMENT for another
// shape, either engine's fault.
boids_result boids_engine_copy_agents(boids_engine *dst, boids_engine *src);
// Lays every body straight behind its head (as create does), the agents as
// they are. Nothing without bodies. GPU: through a read-back and an upload;
// a fault is returned and nothing changes.
boids_result boids_engine_reset_bodies(boids_engine *e);

// Buffers of the last step, in the slot order of that step's grid (the slot
// order differs between backends and, within a cell, from GPU run to run:
// pair them with BOIDS_ENGINE_ID). bytes must equal the buffer's size.
typedef enum boids_engine_buffer {
    BOIDS_ENGINE_POS,        // vec4[count]
    BOIDS_ENGINE_VEL,        // vec4[count]
    BOIDS_ENGINE_ID,         // uint[count]: the agent of each slot
    BOIDS_ENGINE_GROUP,      // uint[count]
    BOIDS_ENGINE_KEY,        // uint[count]: the cell of each slot of the state the grid was built from
    BOIDS_ENGINE_COUNT,      // uint[cells]
    BOIDS_ENGINE_START,      // uint[cells + 1]: exclusive prefix sum, start[cells] == count
    BOIDS_ENGINE_ACCEL,      // vec4[count]: the steer stage's output
    BOIDS_ENGINE_NEIGHBORS,  // uint[count]: agents within the radius
    BOIDS_ENGINE_NEAREST,    // float[count]: distance to the nearest (0: none)
    BOIDS_ENGINE_CANDIDATES, // uint[count]: pairs examined
} boids_engine_buffer;
boids_result boids_engine_read_buffer(boids_engine *e, boids_engine_buffer which, void *dst, size_t bytes);

// One stage of the pipeline (boids_engine_step runs them in this order, with
// the schedule and the fault check around them): validation compares the
// backends stage by stage. The stages leave the step counter as it is (only
// boids_engine_step advances it). Returns the fault check after the stage.
typedef enum boids_engine_stage_id {
    BOIDS_ENGINE_STAGE_GRID,      // key, count, scan, scatter (cur -> next, swap)
    BOIDS_ENGINE_STAGE_STEER,     // cur -> accel, the wander angles
    BOIDS_ENGINE_STAGE_INTEGRATE, // cur + accel -> next, swap
    BOIDS_ENGINE_STAGE_BODIES,    // every body follows its head (nothing without bodies)
} boids_engine_stage_id;
boids_result boids_engine_stage(boids_engine *e, boids_engine_stage_id stage);

// Stage times (ms) of the newest step that has them: the CPU's last step;
// the GPU's timer queries, read a few steps late unless wait is true (then
// the GPU is waited for and the last step's are read: benchmarks, profiles).
// `step` is that step's whole time (GPU: first to last timestamp; CPU: the
// stages' sum), so the stages never sum to more than it.
void boids_engine_stage_ms(boids_engine *e, bool wait, boids_stage_ms *out);
// Statistics of the current state (boids_sim_stats; GPU: read back first).
boids_result boids_engine_stats(boids_engine *e, boids_stats *out);
// The statistics as one table of names and values (src/engine/engine_stats.c),
// for programs that log them all without naming boids_stats' fields (the
// ensemble runner's columns): a statistic added there appears in every such
// log. Names are lower_case ("polarisation", "mean_speed", ...).
#define BOIDS_ENGINE_STATS_MAX 32
uint32_t boids_engine_stat_count(void);
// The name of statistic i, NULL for i >= the count.
const char *boids_engine_stat_name(uint32_t i);
// Whether statistic i has a per-group value (false: of the whole flock only,
// such as the grid's cell figures).
bool boids_engine_stat_grouped(uint32_t i);
// The values of every statistic of the current state, in the order of the
// names: of every agent (group UINT32_MAX: boids_engine_stats'), or of one
// group's agents (summed in id order; NaN for a statistic that is not
// grouped). BOIDS_ERR_ARGUMENT for a group out of range; a GPU fault is returned.
boids_result boids_engine_stat_values(boids_engine *e, uint32_t group, double values[BOIDS_ENGINE_STATS_MAX]);
// FNV-1a 64 of (id, group, pos, vel) in id order: boids-run's state-hash,
// the same on both backends for the same bits (0 after a GPU fault).
uint64_t boids_engine_hash(boids_engine *e);
// BOIDS_OK while healthy, else the fault with one line in err (the GPU's
// "the OpenGL context was lost (unknown reset) at step 37" or "2 OpenGL
// errors were reported at step 37, the first: ..."). No wait for the GPU.
boids_result boids_engine_check(boids_engine *e, char *err, size_t err_size);

// Engines made and changed by name: boids-run's flags (without "--", the
// same names and value texts: "radius" "60", "world" "800x600", "boundary"
// "walls", "behaviors" "separation,alignment", "weights" "alignment=2", ...;
// the parameter registry, boids/registry.h, lists them), applied as boids-run applies
// them, so the same flags give the same state-hash. For a caller without
// boids_params (the Python package).
typedef struct boids_engine_option {
    const char *name, *value;
} boids_engine_option;
// The options' names, i < boids_engine_option_count() (NULL past the last):
// every parameter of the registry with a flag (boids/registry.h), then
// "distribution", "index", "update", "kernel". *kind (may be NULL) gets
// the kind of value: "number", "integer", "name", "range", "agent",
// "agents", "behaviors", "weights", "extents", "point" or "grid_fine".
uint32_t boids_engine_option_count(void);
const char *boids_engine_option_name(uint32_t i, const char **kind);
// Makes an engine as boids_engine_create does with desc (its params
// ignored) from the defaults of desc.count and desc.dim, or from the
// scenario `scenario` (a name or path as boids_engine_create_scenario takes
// it; NULL: none), with the n options applied. "distribution", "index",
// "update" and "kernel" set desc's fields. Errors: BOIDS_ERR_ARGUMENT with
// err "NAME: 'VALUE' is PROBLEM; expected ALLOWED" for an unknown option or
// a bad value, then create_scenario's and create's. *out is NULL on error.
boids_result boids_engine_create_options(boids_engine **out, const char *scenario, const boids_engine_desc *desc,
                                         const boids_engine_option *opt, uint32_t n, char *err, size_t err_size);
// Applies the n options to the params in effect (every group, or group
// `group` for a group's values; UINT32_MAX: every group) through
// boids_engine_set_params. What fixes the grid, the world or the agents'
// set-up (world, origin, grid-fine, bodies, joints, body-length,
// distribution, index, update, kernel) is BOIDS_ERR_ARGUMENT ("NAME: cannot
// change once the simulation is made ..."); a reach wider than the grid's
// cells is BOIDS_ERR_RADIUS. Nothing changes on error.
boids_result boids_engine_set_options(boids_engine *e, uint32_t group, const boids_engine_option *opt, uint32_t n,
                                      char *err, size_t err_size);
// The neighbour graph of the current state, by agent id, in CSR form: the
// neighbours of agent i are indices[indptr[i] .. indptr[i + 1]), sorted by
// id, and distances[k] (when asked for) the distance to indices[k]. A
// neighbour is what the steer stage counts in BOIDS_ENGINE_NEIGHBORS: any
// other agent at 0 < |delta| < the agent's group radius, delta the
// boundary's minimum image on a wrapped world; found through a grid of the
// engine's parameters (the GPU's state read back first), so a row's length
// equals that output after the next step (which steers from this state).
// The arrays are the library's: free them with boids_neighbor_graph_free.
typedef struct boids_neighbor_graph {
    uint32_t count;    // agents (rows)
    uint64_t edges;    // entries of indices (and distances): indptr[count]
    uint64_t *indptr;  // count + 1 offsets
    uint32_t *indices; // agent ids
    float *distances;  // NULL unless asked for
} boids_neighbor_graph;
// Fills *out (zeroed on error). Errors: BOIDS_ERR_NOMEM, a GPU fault of the
// read-back, BOIDS_ERR_ARGUMENT for NULL e or out; err names the problem.
boids_result boids_engine_neighbor_graph(boids_engine *e, bool distances, boids_neighbor_graph *out, char *err,
                                         size_t err_size);
// Frees the arrays of a graph (and zeroes it). NULL is fine.
void boids_neighbor_graph_free(boids_neighbor_graph *g);

// Writes a .boids snapshot of the state of now with the scenario in effect
// (atomically: an existing file is replaced whole or left as it was). GPU:
// read back first, and trusted only if the check passes before and after
// the read-back. After a fault: the last trusted state (boids_engine_last_good
// says whether there is one and its step) is written, else nothing (the
// fault returned, err "FILE: not written: <its line>"). Errors otherwise as
// boids_snapshot_save's.
boids_result boids_engine_save(boids_engine *e, const char *path, char *err, size_t err_size);
// The state as CSV (boids_csv_write's format, atomically), the same read-back
// rule. A write error: BOIDS_ERR_IO, err the system's reason (strerror of
// errno, which is left as the write set it) or "write error".
boids_result boids_engine_write_csv(boids_engine *e, const char *path, char *err, size_t err_size);
// Whether the engine holds a state it trusts to write from (the CPU: always;
// the GPU: the initial state or the last read-back the check after it
// passed; false once a fault hit during a read-back), and its step.
bool boids_engine_last_good(const boids_engine *e, uint64_t *step);
// A recording (boids/record.h) of the state of now and then of every
// `every`-th step that boids_engine_step takes, until _record_close (or
// destroy, which closes it). A frame that cannot be written makes
// boids_engine_step return its error (BOIDS_ERR_IO, ...) with the line in
// boids_engine_error; a fault on a frame's read-back writes no frame. Errors
// of open: boids_record_open's or the first frame's (err "FILE: problem"; the
// recording is then closed), BOIDS_ERR_ARGUMENT for every 0 or a recording
// already open; a fault on the first frame's read-back is returned with the
// recording left open (no frames; err "FILE: no first frame: <its line>").
boids_result boids_engine_record_open(boids_engine *e, const char *path, uint64_t every, char *err, size_t err_size);
// Closes the recording (nothing open: BOIDS_OK). *frames and *last_step (if
// non-NULL) receive the frames written and the step of the last one.
boids_result boids_engine_record_close(boids_engine *e, uint32_t *frames, uint64_t *last_step, char *err,
                                       size_t err_size);
// The line of the last error of boids_engine_step that is not a fault (a
// recording's frame not written: "FILE: problem"); "" if none. Owned by e.
const char *boids_engine_error(const boids_engine *e);

// The GPU backend's buffers of the current state, to draw from without a
// read-back (valid until the next step: the state is double-buffered).
typedef struct boids_engine_gl {
    uint32_t pos, vel, id, group; // vec4, vec4, uint, uint per slot
    uint32_t neighbors;           // uint per slot
    uint32_t joints, joint_rows;  // vec4[rows * count] by id; 0, 0 without bodies
} boids_engine_gl;
// BOIDS_ERR_ARGUMENT on the CPU backend (out zeroed).
boids_result boids_engine_gl_buffers(const boids_engine *e, boids_engine_gl *out);

// GPU: whether the shaders correct sqrt and division to the C's correctly
// rounded results (this driver's differ: boids_gpu_corrects_rounding);
// false on the CPU.
bool boids_engine_corrects_rounding(const boids_engine *e);
// GPU: start building the steer program of these groups (in the engine's
// world) in the background, so switching to them later does not wait
// (background builds only; else, and on the CPU, nothing).
void boids_engine_prepare(boids_engine *e, const boids_group_params group[BOIDS_MAX_GROUPS]);
// GPU: what the steer programs did (boids/program_stats.h); zeros on the CPU.
void boids_engine_steer_info(const boids_engine *e, boids_steer_info *out);
// The GPU backend's compute programs (boids_gpu_program_stats: key, count,
// scan, scan_add, scatter, survey, steer (the run's specialised program),
// steer_general (where built), integrate, bodies), each with
// whether this engine ran it, its binary's size and format and the driver's
// assembly figures where the binary holds them (NVIDIA), into out; *n the rows. BOIDS_ERR_ARGUMENT on the CPU
// backend; a GPU fault is returned (*n 0); BOIDS_ERR_NOMEM.
boids_result boids_engine_program_stats(boids_engine *e, boids_program_stats out[BOIDS_PROGRAMS_MAX], uint32_t *n);
// Checks the GPU's test hooks in $BOIDS_DEBUG (boids/debug.h: fault,
// emulate, correct-rounding, steer-general, no-int64) without a context,
// so an executable can refuse a bad one before opening GL:
// BOIDS_ERR_ARGUMENT with the line naming the item ("BOIDS_DEBUG fault"),
// the value and its forms.
boids_result boids_engine_fault_env(char *err, size_t err_size);

uint32_t boids_engine_count(const boids_engine *e);
uint32_t boids_engine_dim(const boids_engine *e);
uint64_t boids_engine_steps(const boids_engine *e); // the step counter (a loaded snapshot's continues)
boids_backend boids_engine_backend(const boids_engine *e);
// The update order of the CPU steps (a loaded snapshot's, unless desc gave
// sequential); the GPU's is parallel.
boids_update boids_engine_update(const boids_engine *e);
// "cpu (8 threads)" or "gpu: <GL renderer> (<the context>)": for banners. Owned by e.
const char *boids_engine_describe(const boids_engine *e);
// The GL renderer string of the GPU backend's context; "" on the CPU. Owned by e.
const char *boids_engine_renderer(const boids_engine *e);
// The cells of the neighbour grid: the length of BOIDS_ENGINE_COUNT (with
// grid_fine auto it changes when the engine picks another M).
uint32_t boids_engine_cells(const boids_engine *e);
// The finer grid's factor M in use (1..4; world.grid_fine). With auto
// (BOIDS_GRID_FINE_AUTO) the engine picks M from the measured density when it
// is made and every BOIDS_ENGINE_FINE_EVERY steps after
// (boids_grid_fine_choose over boids_grid_occupancy of the last grid); the
// state does not depend on M, so changing it mid-run moves no result.
#define BOIDS_ENGINE_FINE_EVERY 32u
uint32_t boids_engine_grid_fine(const boids_engine *e);
// Bytes the simulation's state takes, by its layout (both state buffers,
// the grid, the per-agent outputs, the joints): per agent 2 * (16 + 16 + 4
// + 4) + 16 + 5 * 4 + 16 * joint rows, plus 12 per cell; the GPU backend's
// buffers are the same layout. The CPU backend adds 24 per agent once its
// steer stage has built the 2D flocking path's scratch. For benchmarks'
// memory column.
uint64_t boids_engine_bytes(const boids_engine *e);
// The GL context: boids_gl_context_describe's words for the engine's own
// or a headless one ("EGL device 1 of 2 (software), robust (...)"), "the caller's context,
// robust" (or "not robust"), "none" on the CPU. Owned by e.
const char *boids_engine_context(const boids_engine *e);

#ifdef __cplusplus
}
#endif

#endif
