/* boids/gpu.h: the OpenGL 4.5 compute backend (src/gpu). The same pipeline
 * as the CPU reference (key, count, scan, scatter, steer, integrate) as
 * compute shaders over SoA vec4 buffers, double-buffered. Needs a current
 * GL 4.5 context and its loader (boids/platform.h); never includes EGL or
 * GLFW. No readback or glFinish inside a step: reading state back is the
 * separate, explicit boids_gpu_read.
 *
 * Offers: boids_gpu_create / _destroy / _upload / _step (and its stages),
 * boids_gpu_read (by buffer), boids_gpu_read_state, boids_gpu_hash,
 * boids_gpu_stage_ms (timer queries, read a few steps late),
 * boids_gpu_max_agents, boids_gpu_debug_errors, boids_gpu_check (faults),
 * boids_gpu_robust, boids_gpu_fault_parse / _emulate_parse (the test hooks'
 * values), boids_gpu_program_stats (the
 * driver's binaries of the compute programs; boids/program_stats.h).
 *
 * Faults. boids_gpu_check says whether the backend is still healthy: the
 * context was not lost (glGetGraphicsResetStatus; only a robust context,
 * boids/platform.h, reports resets) and no GL error came through the debug
 * callback since create. It makes no wait (no glFinish), so it can follow
 * every step. Once a loss is seen the backend makes no more GL calls: steps,
 * uploads and parameter changes do nothing, reads and downloads return
 * BOIDS_ERR_GPU_LOST and leave their destination as it was, destroy only
 * frees memory (the context's own destruction frees its objects).
 *
 * boids_gpu_desc.debug.fault (a test hook, boids/debug.h) injects a fault:
 *   lost@STEP   the context reads as lost (as if glGetGraphicsResetStatus
 *               said GL_UNKNOWN_CONTEXT_RESET) once STEP steps are done;
 *               from then on everything behaves as after a real loss.
 *   error@STEP  a real invalid GL call (glBindBufferBase with an index out
 *               of range, GL_INVALID_VALUE) inside step STEP, seen by the
 *               debug callback like any other error.
 *   oom         buffer creation fails as if glGetError said
 *               GL_OUT_OF_MEMORY (create, set_bodies: BOIDS_ERR_NOMEM and
 *               their out-of-memory line).
 * STEP is 1..1000000000. NULL or empty: no fault. Any other value: create
 * returns BOIDS_ERR_ARGUMENT and a line naming debug.fault and these forms.
 * The backend reads no environment: the engine fills the hooks from
 * BOIDS_DEBUG.
 */
#ifndef BOIDS_GPU_H
#define BOIDS_GPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "debug.h"
#include "platform.h"
#include "program_stats.h"
#include "tolerance.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct boids_gpu boids_gpu;

// BOIDS_TOL_* and boids_tol_joint: boids/tolerance.h.

// Buffers that can be read back (see shared.h for their contents).
typedef enum boids_gpu_buffer {
    BOIDS_GPU_POS,   // vec4[N] of cur
    BOIDS_GPU_VEL,   // vec4[N] of cur
    BOIDS_GPU_ID,    // uint[N] of cur
    BOIDS_GPU_GROUP, // uint[N] of cur
    BOIDS_GPU_KEY,   // uint[N]: cell of each slot of the state the grid was built from
    BOIDS_GPU_COUNT, // uint[cells]: the per-cell counts of the last grid
    BOIDS_GPU_START, // uint[cells + 1]
    // (kernel morton: boids_gpu_read gives every buffer in the
    // reference's layout: keys as row-major cells, and once a grid is built
    // the slots in row-major cell order, start its scan)
    BOIDS_GPU_ACCEL,      // vec4[N]
    BOIDS_GPU_NEIGHBORS,  // uint[N]
    BOIDS_GPU_NEAREST,    // float[N]
    BOIDS_GPU_CANDIDATES, // uint[N]
} boids_gpu_buffer;

typedef struct boids_gpu_desc {
    const boids_params *params; // finalized (boids_params_finalize)
    boids_gl_loadfn load;       // the context's loader
    const char *shader_dir;     // NULL: the shaders built into the executable
    bool quiet;                 // do not print GL debug messages on stderr
    bool timing;                // benchmarks: debug output asynchronous (synchronous output slows drivers)
    bool silent_errors;         // GL errors are counted, not printed: boids_gpu_check's line names the first
    boids_kernel kernel;        // the kernel variant (boids/core.h; default REFERENCE): the same bits for each
    // Interactive use (the viewer): where the driver compiles in its own
    // threads (GL_KHR_parallel_shader_compile), a steer program for new
    // parameters builds in the background while the general steer (every
    // behaviour; the same bits) steps. Else every build finishes before the
    // step that needs it.
    bool background_builds;
    boids_debug debug; // test hooks (boids/debug.h): zero, none
} boids_gpu_desc;

// Creates buffers and programs for the params' agent count. Errors: one
// line in err (a shader's name and info log, or the limit and the largest
// agent count that fits). Every boids_gpu_* function checks its handle: a
// NULL one is BOIDS_ERR_ARGUMENT, or 0 / false / nothing done (out-structs
// zeroed), as for the engine.
boids_result boids_gpu_create(boids_gpu **out, const boids_gpu_desc *desc, char *err, size_t err_size);
void boids_gpu_destroy(boids_gpu *g);
// The largest agent count this GL implementation's limits allow.
uint32_t boids_gpu_max_agents(void);
// The steer stage runs a program specialised to the parameters (the
// behaviours and rule sets the groups use, dimension, boundary, combine
// mode, relations, the largest K, the grid's factor), built on first use
// and kept (up to 32) for when they come back.
// boids_gpu_prepare starts building the program of these groups in the
// backend's world in the background (background builds only; else
// nothing): the viewer's likely next sets.
void boids_gpu_prepare(boids_gpu *g, const boids_group_params group[BOIDS_MAX_GROUPS]);
// What the steer programs did (boids/program_stats.h boids_steer_info).
void boids_gpu_steer_info(const boids_gpu *g, boids_steer_info *out);
// The kernel the backend runs (boids_gpu_desc.kernel).
boids_kernel boids_gpu_kernel(const boids_gpu *g);
// New group, scene and target parameters (same count, world and grid).
void boids_gpu_set_params(boids_gpu *g, const boids_params *p);
// The grid of p's world (finalized: the same world, another grid_fine) in
// place of g's: the cell buffers made anew and built over the current
// state (the engine's auto grid). BOIDS_ERR_GPU_LIMIT / _NOMEM with err saying why.
boids_result boids_gpu_set_grid(boids_gpu *g, const boids_params *p, char *err, size_t err_size);
// boids_grid_occupancy of the last grid built (BOIDS_ERR_ARGUMENT: none since
// the last upload or set_grid).
boids_result boids_gpu_grid_occupancy(boids_gpu *g, double *out);
// Copy the CPU simulation's current state (any slot order), its bodies
// (when both have the same joint rows) and step counter.
void boids_gpu_upload(boids_gpu *g, const boids_sim *s);
// The same without the bodies: the GPU's joints stay as they are.
void boids_gpu_upload_agents(boids_gpu *g, const boids_sim *s);
// One step: key, count, scan, scatter, steer, integrate, bodies (no readback).
void boids_gpu_step(boids_gpu *g);
void boids_gpu_build_grid(boids_gpu *g); // key, count, scan, scatter, swap
void boids_gpu_steer(boids_gpu *g);
void boids_gpu_integrate(boids_gpu *g); // and swap
// Read a buffer back (waits for the GPU). bytes must match its size.
boids_result boids_gpu_read(boids_gpu *g, boids_gpu_buffer which, void *dst, size_t bytes);
// The current state in id order into id-indexed arrays (any may be NULL:
// that buffer is not read). The arrays are written only when every read
// succeeded and boids_gpu_check passes after them: else its result
// (BOIDS_ERR_GPU_LOST, _GL_ERRORS) or _NOMEM without scratch memory, the
// arrays untouched.
boids_result boids_gpu_read_state(boids_gpu *g, float (*pos)[4], float (*vel)[4], uint32_t *group);
// The GPU state and outputs (neighbours, nearest, candidates, counts,
// starts, stage times, step) into a CPU sim of the same params.
// BOIDS_ERR_GPU_LOST after a loss (s untouched), or for a loss during the
// download (s partly overwritten: do not use it).
boids_result boids_gpu_download(boids_gpu *g, boids_sim *s);
// The same of the state only (pos, vel, id, group), the candidates per slot
// and the step: not the grid's cells (a decomposed rank's step).
boids_result boids_gpu_download_state(boids_gpu *g, boids_sim *s);
// The same hash as boids_sim_hash, of the GPU state (0 after a loss).
uint64_t boids_gpu_hash(boids_gpu *g);
// Wait for the GPU, then take the last step's stage times (benchmarks only).
void boids_gpu_finish(boids_gpu *g);
// Stage times of the newest step whose timer queries have completed (0 if
// none yet), and that step's whole span (`step`, its first to its last
// timestamp): the same step and clock, so the stages sum to `step`.
void boids_gpu_stage_ms(boids_gpu *g, boids_stage_ms *out);
// GL buffer names of the current state (pos, vel vec4[N]; group uint[N])
// and of the per-slot neighbour counts, valid until the next step (the
// state is double-buffered): the viewer draws straight from them.
void boids_gpu_state_buffers(const boids_gpu *g, uint32_t *pos, uint32_t *vel, uint32_t *group, uint32_t *neighbors);
// GL name of the id buffer of the current state (uint[N], the agent id of
// each slot; pairs with boids_gpu_state_buffers' buffers).
uint32_t boids_gpu_id_buffer(const boids_gpu *g);
// Bodies (procedural-animation-chains.txt). The joints buffer: vec4[rows * N],
// joint j of agent id at [j * N + id] (xyz, w = facing angle in 2D), and its
// rows (0 and buffer 0 when no group has a body). Written by the bodies stage
// after integrate; the viewer draws from it.
uint32_t boids_gpu_joint_buffer(const boids_gpu *g, uint32_t *rows);
// New body types (checked as boids_body_check; the buffer grows when more
// rows are needed, within the GPU's limits): every body is laid out straight
// behind its agent, as boids_sim_set_bodies does. Errors: one line in err.
boids_result boids_gpu_set_bodies(boids_gpu *g, const boids_body_params body[BOIDS_MAX_GROUPS], char *err,
                                  size_t err_size);
// The bodies stage alone (part of boids_gpu_step).
void boids_gpu_bodies(boids_gpu *g);
// The joints in the layout of boids_sim.joints (rows * N vec4); BOIDS_ERR_ARGUMENT
// when bytes does not match.
boids_result boids_gpu_read_joints(boids_gpu *g, float (*joints)[4], size_t bytes);
// GL debug messages of type error seen so far.
uint32_t boids_gpu_debug_errors(const boids_gpu *g);
// BOIDS_OK while healthy; BOIDS_ERR_GPU_LOST with "the OpenGL context was
// lost (unknown reset) at step 37" (guilty / innocent / unknown reset), or
// BOIDS_ERR_GL_ERRORS with "2 OpenGL errors were reported at step 37, the
// first: <the debug message>" (one line, no trailing newline, no program
// name) in err. No wait for the GPU. err may be NULL.
boids_result boids_gpu_check(boids_gpu *g, char *err, size_t err_size);
// Whether the context reports resets (GL_RESET_NOTIFICATION_STRATEGY is
// GL_LOSE_CONTEXT_ON_RESET).
bool boids_gpu_robust(const boids_gpu *g);
// Check a value of the hooks debug.fault and debug.emulate (boids/debug.h;
// NULL or "": none) without a context, so a program can refuse a bad one
// (exit 2) before opening GL: BOIDS_ERR_ARGUMENT and one line in err that
// begins with `name`, the input as the caller knows it ("BOIDS_DEBUG
// fault"; boids_gpu_create says "debug.fault"), then the value and the
// forms allowed.
boids_result boids_gpu_fault_parse(const char *name, const char *value, char *err, size_t err_size);
boids_result boids_gpu_emulate_parse(const char *name, const char *value, char *err, size_t err_size);
// Whether the compute shaders use 64-bit integers (int64_t:
// GL_ARB_gpu_shader_int64, where the context has it and not under
// debug.no_int64); else their fixed-point sums are pairs of 32-bit uints
// (GLSL 4.50 core), with the same results.
bool boids_gpu_int64(const boids_gpu *g);
// Whether the compute shaders correct sqrt and division to the C's correctly
// rounded results (BOIDS_CORRECT_ROUNDING): where this driver's differ on
// rounding_probe.comp, or always under debug.correct_rounding ON; never
// under OFF.
bool boids_gpu_corrects_rounding(const boids_gpu *g);
// The compute programs this backend built (boids/program_stats.h), in
// pipeline order: key, count, scan, scan_add, scatter, survey, steer,
// integrate, bodies; each with whether it
// was dispatched since create, its binary's size and format
// (glGetProgramBinary) and the driver's assembly text in it
// (boids_gpu_asm_parse). *n: the rows written. BOIDS_ERR_GPU_LOST after a
// loss (*n 0), BOIDS_ERR_NOMEM.
boids_result boids_gpu_program_stats(boids_gpu *g, boids_program_stats out[BOIDS_PROGRAMS_MAX], uint32_t *n);
// Steps taken and agents.
uint64_t boids_gpu_steps(const boids_gpu *g);
uint32_t boids_gpu_count(const boids_gpu *g);
// The agents the buffers hold: the params' count at create.
uint32_t boids_gpu_capacity(const boids_gpu *g);
// The agents the stages and reads cover from now on (a distributed run's
// rank: its own and the halo's, fewer than the buffers hold): n <= the
// capacity, else BOIDS_ERR_ARGUMENT; BOIDS_ERR_GPU_LOST after a loss. The
// state is then the caller's to upload (boids_gpu_upload_agents); bodies
// keep their rows of the capacity.
boids_result boids_gpu_set_count(boids_gpu *g, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif
