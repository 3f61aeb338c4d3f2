// src/app/validate.h: boids-validate's parts, in layers: validate_report.c
// (the report's helpers), validate_horizons.c (the comparisons) and
// boids_validate.c (the options, the set-up); not public API.
//
// Offers: the report (validate_check, validate_failures,
// validate_exit_on_fault, validate_read_new, validate_save_reference), the horizons
// (validate_exact, validate_one_step, validate_many_steps, validate_bodies)
// and validate_set_both, validate_saving.
#ifndef BOIDS_VALIDATE_H
#define BOIDS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "boids/engine.h"

#define PROG "boids-validate"

// One line of the report: "  PASS  " or "  FAIL  " and the printf text; a
// FAIL is counted for the exit status.
void validate_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// The FAILs validate_check has counted.
int validate_failures(void);
// A GPU fault on g (boids_engine_check): one line on stderr, exit(3).
void validate_exit_on_fault(boids_engine *g);
// A new array of `bytes` plus a spare row holding buffer `which` of e (a
// fault: validate_exit_on_fault; out of memory: exit 3). Freed by the caller.
void *validate_read_new(boids_engine *e, boids_engine_buffer which, size_t bytes);
// --save / --save-every: the CPU reference s to path; 0, or 3 with one line.
int validate_save_reference(boids_engine *s, const char *path);

// Where and how often horizon 3 saves the CPU reference (path NULL: never).
typedef struct validate_saving {
    const char *path;
    uint64_t every; // 0: only at the end
} validate_saving;

// The group parameters of p on both engines (the CPU reference s, the GPU g).
void validate_set_both(boids_engine *s, boids_engine *g, const boids_params *p);
// Horizon 1: the grid and the neighbour counts of s and g, exactly.
void validate_exact(boids_engine *s, boids_engine *g);
// Horizon 2: one step of behaviour b (BOIDS_BEHAVIOR_COUNT: all of them)
// from `initial` on both; false when b gives no force anywhere.
// `label` names the check (NULL: the behaviour's name, or "all together").
bool validate_one_step(boids_engine *s, boids_engine *g, const boids_params *all, boids_engine *initial, uint32_t b,
                       const char *label);
// Horizon 3: `steps` steps on both from s's state, statistics and
// invariants compared; 0, or 3 when a --save-every write failed. Progress
// on stderr unless quiet (progress.h on a terminal).
int validate_many_steps(boids_engine *s, boids_engine *g, uint64_t steps, const validate_saving *sv, bool quiet);
// Horizon 4: `steps` steps of the bodies stage alone from the CPU's heads.
void validate_bodies(boids_engine *s, boids_engine *g, boids_engine *initial, uint32_t steps);

#endif
