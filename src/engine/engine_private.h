// src/engine/engine_private.h: what the engine's files share (not
// installed): the engine's fields, the helpers of the fault rule and the
// error lines (engine_fault.c, which calls no other file of the engine),
// the test hooks (engine_debug.c), and engine.c's for the files above it
// (engine_io.c and the rest; engine.c calls none of engine_io.c).
#ifndef BOIDS_ENGINE_PRIVATE_H
#define BOIDS_ENGINE_PRIVATE_H

#include "boids/engine.h"
#include "boids/gpu.h"
#include "boids/record.h"

struct boids_engine {
    boids_backend backend;
    boids_sim *sim;        // CPU: the simulation; GPU: the mirror (last read-back)
    boids_gpu *gpu;        // GPU only
    boids_gl_context *gl;  // the engine's own headless context (NULL: the caller's)
    boids_scenario *scen;  // the scenario in effect (host parts; params unscheduled)
    bool dynamic;          // the scenario changes with the step
    bool trusted;          // GPU: sim holds a trusted state (the initial one or a checked read-back)
    bool bodies_stale;     // GPU: set_params changed the bodies on the GPU only
    boids_result fault;    // the first GPU fault, or BOIDS_ERR_NONFINITE (BOIDS_OK: none)
    char fault_line[1024]; // boids_gpu_check's line of it, or engine_check_finite's
    uint64_t nan_step;     // BOIDS_DEBUG nan=ID@STEP: a NaN planted in agent nan_id after step nan_step (0: none)
    uint32_t nan_id;
    uint32_t fine_changes; // grid_fine auto: how often M changed (tests)
    boids_recorder *rec;
    uint64_t rec_every, rec_last_step;
    const volatile sig_atomic_t *cancel; // boids_engine_set_cancel's flag (NULL: none)
    char error[1024];                    // the line of step's last failure that is not a fault (the recording)
    char describe[1024];
    char context[512];
    char renderer[256];
};

struct boids_engine_headless {
    boids_gl_context *gl;
    char renderer[256];
};

// ---- engine_fault.c -------------------------------------------------------------
// Whether ptr, an argument of the public function fn that may not be
// NULL, is NULL; if so err gets "FN: WHAT is NULL; expected EXPECTED".
bool engine_null(const void *ptr, const char *fn, const char *what, const char *expected, char *err, size_t err_size);
// engine_null for the engine handle itself.
#define ENGINE_NULL(e, fn, err, err_size)                                                                              \
    engine_null(e, fn, "the engine", "one from boids_engine_create, _create_scenario or _load", err, err_size)
// Copies printf-style text into err (NULL or size 0: nothing).
void engine_say(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// The GPU step counter, or the CPU's.
uint64_t engine_steps_of(const boids_engine *e);
// BOIDS_OK while healthy (always on the CPU); the first fault is kept.
boids_result engine_healthy(boids_engine *e);
// The GPU state into the mirror (nothing on the CPU): only while healthy,
// and trusted only if the check after the download passes; a mirror that
// is not finite is the fault BOIDS_ERR_NONFINITE (engine_check_finite).
boids_result engine_readback(boids_engine *e);
// Whether every agent's position and velocity (x, y, z) in the n rows of
// pos and vel is finite: one pass the compiler vectorises (and the threads
// share above 64 Ki agents). If not: the fault BOIDS_ERR_NONFINITE (kept,
// as a GPU fault is: the engine steps no more; set_agents and set_state
// clear it), its line naming the step, the agent of the smallest id (ids[i];
// NULL: i is the id), its group and that group's behaviours; `where`:
// "after" (the CPU checks every step) or "at" (the GPU's read-backs).
boids_result engine_check_finite(boids_engine *e, const float (*pos)[4], const float (*vel)[4], const uint32_t *ids,
                                 const uint32_t *group, uint32_t n, const char *where);
// Clears a BOIDS_ERR_NONFINITE fault (a new state replaces the one it was of).
void engine_clear_nonfinite(boids_engine *e);

// ---- engine_debug.c -------------------------------------------------------------
// The test hooks for a GPU backend: desc's (NULL: none), each field left
// zero filled from BOIDS_DEBUG's item of its name (boids/debug.h), checked
// without a context; the strings taken from BOIDS_DEBUG are kept in `text`,
// which must outlive out. BOIDS_ERR_ARGUMENT with one line in err naming
// the input ("BOIDS_DEBUG fault"), the value and what is allowed.
typedef struct engine_debug_text {
    char emulate[256], fault[64];
} engine_debug_text;
boids_result engine_debug(const boids_debug *desc, boids_debug *out, engine_debug_text *text, char *err,
                          size_t err_size);
// BOIDS_DEBUG's nan=ID@STEP (either backend) into e->nan_id and
// e->nan_step; BOIDS_ERR_ARGUMENT with one line in err for another value.
boids_result engine_nan_hook(boids_engine *e, char *err, size_t err_size);
// When the step just run is e->nan_step: agent e->nan_id's position and
// velocity x made NaN (GPU: in the state read back and uploaded again; the
// read-backs that follow find it). BOIDS_OK otherwise, or a GPU fault.
boids_result engine_nan_plant(boids_engine *e);

// ---- engine.c -------------------------------------------------------------------
// Applies q, a changed copy of e's params, after the checks a snapshot's
// load makes (boids_params_finalize, on a copy); the grid stays e's, so a
// reach wider than its cells is BOIDS_ERR_RADIUS. what names the change in
// the error line ("maxspeed: 4", "options"). Nothing changes on error.
boids_result engine_set_params_kept_grid(boids_engine *e, const boids_params *q, const char *what, char *err,
                                         size_t err_size);
// Names what differs in shape between a and b into err; false if nothing.
bool engine_shape_differs(const boids_params *a, const boids_params *b, char *err, size_t err_size);
// grid_fine auto: M from the density of the last grid (boids_grid_fine_choose;
// the GPU's, or the mirror's when the GPU has built none since its upload),
// and the grid made anew when it differs (built over cur on the CPU and the
// GPU; the mirror's arrays follow). BOIDS_OK when nothing is to do.
boids_result engine_auto_grid(boids_engine *e, char *err, size_t err_size);
// A recording's frame of the state of now when its step is due (each
// step's, and the first frame of boids_engine_record_open).
boids_result engine_record_due(boids_engine *e);

#endif
