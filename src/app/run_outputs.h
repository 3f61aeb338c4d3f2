// src/app/run_outputs.h: boids-run's outputs (run_outputs.c): --export-csv,
// --save, --record and --profile written at the end of a run, or flushed
// after a GPU fault from the last trusted state. Shared by boids_run.c
// (the run loop) and run_outputs.c only; not public API.
//
// Offers: run_outputs (what is open or written so far), run_save,
// run_write_outputs, run_flush_after_fault, run_close_record,
// run_print_stats, run_check_outputs (also for the decomposed run,
// run_decompose.c).
#ifndef BOIDS_RUN_OUTPUTS_H
#define BOIDS_RUN_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "profile.h"
#include "boids/engine.h"

#define PROG "boids-run"
#define EXIT_INPUT 2
#define EXIT_ENVIRONMENT 3

// What boids-run has written so far, for the end of the run and the line
// after a fault.
typedef struct run_outputs {
    bool recording;     // --record is open
    int64_t saved_step; // step of the last --save-every snapshot (-1: none)
    boids_profile *profile;
    uint64_t profile_rows; // steps profiled
} run_outputs;

// --save: the state of now and the scenario's schedule to the snapshot;
// returns 0, 3 (one line printed; an existing file is left as it was) or -1
// for a GPU fault (nothing written, the caller stops).
int run_save(const boids_options *o, boids_engine *e);

// The end of a run: --export-csv, --save, the recording closed ("recorded:"
// unless --quiet), --profile written and its summary; returns 0 or the exit
// status (one line printed).
int run_write_outputs(const boids_options *o, boids_engine *e, run_outputs *out);

// After a GPU fault: every output flushed from the last trusted state, one
// line saying what each holds; returns 3. After a state that is not finite
// (BOIDS_ERR_NONFINITE): --export-csv and --save are not written, the
// recording keeps its frames (all before the problem), one line naming the
// step, the agent and its group's behaviours; returns 3.
int run_flush_after_fault(const boids_options *o, boids_engine *e, run_outputs *out);

// On every exit: a recording still open is closed (an error printed).
void run_close_record(boids_engine *e, run_outputs *out);

// One statistics line (also the "final:" line of the summary).
void run_print_stats(const char *label, const boids_stats *st, double ms_per_step);

// The outputs' paths (before any step): 0, or 2 / 3 with one line.
int run_check_outputs(const boids_options *o);

#endif
