// src/gpu/gpu_internal.h: what the files of the compute backend share (not
// installed): the backend's fields and the helpers one file offers the
// files above it. The layers, lowest first (a file calls only those below):
//   gpu_errors.c    GL debug output, the loss and error check, faults seen
//   gpu_buffers.c   buffer allocation, the grid's cell buffers, Morton ranks
//   gpu_steer.c     the steer programs specialised to the run (a cache)
//   gpu_pipeline.c  bindings, dispatches, the stages of a step, timer queries
//   gpu_probe.c     the driver's limits and rounding, the test hooks' values
//   gpu_read.c      read-backs, downloads into a CPU sim, program statistics
//   gpu.c           create (in phases), destroy, uploads, new params, grid, bodies
#ifndef BOIDS_GPU_INTERNAL_H
#define BOIDS_GPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boids/gpu.h"
#include "gl_util.h"
#include "steer_spec.h"

enum { STAGE_KEY, STAGE_COUNT, STAGE_SCAN, STAGE_SCATTER, STAGE_STEER, STAGE_INTEGRATE, STAGE_BODIES, STAGE_N };
// The shader file of each STAGE_* (gpu_pipeline.c); the steer's, which
// gpu_steer.c builds in many variants.
extern const char *const gpu_stage_file[STAGE_N];
#define STEER_SHADER "steer.comp"
// The compute programs, in pipeline order: boids_gpu_program_stats' rows
// and the bits of boids_gpu.dispatched (gpu_program_of maps them).
enum {
    PROG_KEY,
    PROG_COUNT,
    PROG_SCAN,
    PROG_SCAN_ADD,
    PROG_SCATTER,
    PROG_SURVEY,
    PROG_STEER,
    PROG_STEER_GENERAL,
    PROG_INTEGRATE,
    PROG_BODIES,
    PROG_N
};
// Steer programs kept at once (the least recently used makes way).
#define STEER_CACHE 32
#define TIMER_RING 4
#define MAX_SCAN_LEVELS 4
#define MAX_FAULT_STEP 1000000000ull

// The fault injected (the hook debug.fault).
typedef enum fault_kind { FAULT_NONE, FAULT_LOST, FAULT_ERROR, FAULT_OOM } fault_kind;

// A steer program specialised to a spec (steer_spec.h): built, or being
// built in the background (build.program != 0).
typedef struct steer_variant {
    boids_steer_spec spec;
    GLuint prog;               // 0 while building
    boids_program_build build; // the build in flight
    uint64_t used;             // the backend's steer_uses when last dispatched (least recent goes first)
} steer_variant;

typedef struct state_buffers {
    GLuint pos, vel, id, group;
} state_buffers;

struct boids_gpu {
    boids_params p;
    boids_world_params world_gpu; // as uploaded (flow_dims[3] = 0 without a field)
    uint32_t n, cells;
    uint32_t capacity; // the agents the buffers hold (n at create; boids_gpu_set_count moves n below it)
    state_buffers state[2];
    int cur; // index of the state bound as cur
    GLuint key, count, start, accel, neighbors, nearest, candidates, flow, slot_of;
    GLuint record; // 2D: vec4[n], cur's slots packed (pos.xy, vel.xy) by scatter for steer; 3D: 16 bytes, unused
    GLuint survey; // uint[4]: the heading rules' survey (survey.comp)
    // The kernel variant (boids/core.h): its shader flags (BOIDS_SHADER_MORTON);
    // kernel morton: the rank of each row-major cell in Morton order
    // (cell_rank, also on the host: rank_of).
    boids_kernel kernel;
    unsigned kernel_flags;
    GLuint cell_rank;
    uint32_t *rank_of, *cell_of_rank;
    bool grid_built; // scatter ran since the last upload (start and the slots agree)
    GLuint scan_sums[MAX_SCAN_LEVELS];
    uint32_t scan_levels, scan_n[MAX_SCAN_LEVELS + 1];
    GLuint ubo_world, ubo_groups, ubo_scene, ubo_bodies;
    GLuint joints; // vec4[joint_rows * n] (0: no bodies)
    uint32_t joint_rows;
    GLuint prog[STAGE_N], prog_scan_add, prog_survey;
    // Steer programs specialised to the run (steer_spec.h), one per spec met;
    // prog[STAGE_STEER] is the general steer (every behaviour, the
    // parameters decide), built only for background builds (the viewer:
    // it steps while a new spec builds) or after a specialised build failed.
    steer_variant steer[STEER_CACHE];
    uint32_t steer_n;
    uint64_t steer_uses;
    GLuint steer_last; // the steer program of the last dispatch
    bool background;   // boids_gpu_desc.background_builds, and the driver compiles in its own threads
    boids_program_build steer_general_build; // the general steer's build in flight
    uint32_t steer_built;                    // specialised programs built (cache misses)
    uint64_t steer_general_steps;            // steps stepped by the general steer while a specialised one was building
    char steer_error[256];                   // a specialised build's failure (boids_gpu_check reports it)
    bool steer_general_only;                 // the hook debug.steer_general: every step with the general steer
    uint32_t dispatched;                     // bit PROG_*: the program ran at least once (boids_gpu_program_stats)
    GLuint timers[TIMER_RING][STAGE_N + 1];
    uint64_t step, timed_steps;
    boids_stage_ms last_ms;
    uint32_t errors_at_create;       // gl_errors_seen when this backend was made
    bool alive;                      // counted in backends_alive (the callback is installed)
    uint64_t timer_step[TIMER_RING]; // step whose queries a ring slot holds, +1 (0: never issued)
    bool quiet;
    const char *shader_dir; // as given at create (the rounding probe loads from it too)
    unsigned
        shader_flags; // BOIDS_SHADER_INT64 where the context has GL_ARB_gpu_shader_int64 (not under debug.no_int64)
    // Faults.
    fault_kind fault;          // debug.fault
    uint64_t fault_step;       // its STEP
    bool in_step;              // inside boids_gpu_step (for the step an error is blamed on)
    bool robust;               // GL_RESET_NOTIFICATION_STRATEGY is GL_LOSE_CONTEXT_ON_RESET
    GLenum reset;              // GL_NO_ERROR, or the reset status once a loss was seen: no GL calls from then on
    uint64_t reset_step;       // steps done when the loss was seen
    char first_error[256];     // the first GL debug error message since create (one line)
    uint64_t first_error_step; // the step it was blamed on
    bool first_error_in_step;  // seen inside that step (else after it)
    struct boids_gpu *next_alive;
};

// ---- gpu_errors.c ----------------------------------------------------------------
// Installs the debug callback (from here on every GL error of the context
// is counted and the first one's text kept in g) and takes g's count from
// now; quiet: no messages below errors, silent: errors counted, not printed.
void gpu_errors_attach(boids_gpu *g, bool asynchronous, bool quiet, bool silent);
// Takes g out of the callback's list (its errors are no longer kept).
void gpu_errors_detach(boids_gpu *g);
// Counts g out of the living backends (after detach, once its GL objects
// are gone); the callback is removed with the last.
void gpu_errors_release(boids_gpu *g);
// Whether the context is lost: the reset status (kept once seen: a driver
// reports a reset once, then GL_NO_ERROR again), or the injected fault
// lost@STEP once STEP steps are done. No GL call after a loss.
bool gpu_lost(boids_gpu *g);

// ---- gpu_buffers.c ---------------------------------------------------------------
// A labelled buffer of `bytes` (0: 16) bytes, contents undefined.
GLuint gpu_buffer(size_t bytes, const char *label);
// The shader flags of a kernel (BOIDS_SHADER_MORTON).
unsigned gpu_kernel_flags(boids_kernel k);
// The buffers of the grid's cells (count, start, the scan's sums, kernel
// morton's ranks) for g->cells cells: false when out of host memory.
bool gpu_grid_buffers(boids_gpu *g);
// Whether rows * n joints (16 bytes each) fit one storage buffer; if not, a
// line in err naming the largest joint count (and agent count) that would.
bool gpu_joints_fit(uint32_t rows, uint32_t n, char *err, size_t err_size);

// ---- gpu_steer.c -----------------------------------------------------------------
// Builds the steer program of spec into the cache: in the background
// (`background`: the build is left in flight) or now. A failure: err, and
// the spec holds no place.
boids_result gpu_steer_build(boids_gpu *g, const boids_steer_spec *spec, bool background, char *err, size_t err_size);
// The steer program for the current parameters (the general steer while
// the spec's builds, or where its build failed: the error kept for
// boids_gpu_check).
GLuint gpu_steer_program(boids_gpu *g);

// ---- gpu_pipeline.c --------------------------------------------------------------
// Program PROG_* k of g (0: not built).
GLuint gpu_program_of(const boids_gpu *g, int k);
// Work groups for n items of prog (per_group each), split over x and y
// beyond 65535 groups; prog marked as dispatched.
void gpu_dispatch(boids_gpu *g, GLuint prog, uint32_t n, uint32_t per_group);
// The world's parameters (with the step) into their uniform buffer.
void gpu_upload_world(boids_gpu *g);
// Every buffer of g at its binding.
void gpu_bind_all(boids_gpu *g);
// The bodies dispatch (init: lay them straight) over the current state.
void gpu_bodies_pass(boids_gpu *g, bool init);

// ---- gpu_probe.c -----------------------------------------------------------------
// The hook fault's value v (NULL or empty: no fault) into kind and step
// (either may be NULL); BOIDS_ERR_ARGUMENT with one line in err, naming the
// input `name`, for a bad value.
boids_result gpu_parse_fault(const char *name, const char *v, fault_kind *kind, uint64_t *step, char *err,
                             size_t err_size);
// The hook emulate's value v (NULL or empty: none) into BOIDS_SHADER_EMU_*
// flags; BOIDS_ERR_ARGUMENT with one line in err, naming `name`, for a bad one.
boids_result gpu_parse_emulate(const char *name, const char *v, unsigned *flags, char *err, size_t err_size);
// g->shader_flags: BOIDS_SHADER_INT64 where the context has it (not under
// debug->no_int64), the emulations, and BOIDS_SHADER_CORRECT where the
// rounding probe (or debug->correct_rounding) says the driver's sqrt and
// division are not the C's.
void gpu_shader_flags(boids_gpu *g, unsigned emulate, const boids_debug *debug);

#endif
