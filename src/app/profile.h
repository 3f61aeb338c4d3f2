/* src/app/profile.h: frame-time profiles (--profile FILE) of boids-run and
 * boids-bench. A recorder keeps one row per step (or frame) in memory: the
 * CPU time of the step, the time of each stage (GPU timer queries, or the
 * CPU reference's own stage clocks), the agent count and the enabled
 * behaviours. At exit it is written in the format of the file's extension:
 *
 *   .csv   a header row, then one row per step:
 *            step        the simulation step (1-based) or frame number
 *            time_ms     start of the step, ms since the first recorded one
 *            frame_ms    CPU wall time of the step (with --backend gpu and a
 *                        profile: including the wait for the GPU)
 *            key_ms count_ms scan_ms scatter_ms steer_ms integrate_ms
 *            bodies_ms draw_ms
 *                        time of each stage, ms (GPU time with --backend gpu;
 *                        0 for a stage the program does not have)
 *            agents      agent count
 *            backend     cpu or gpu (the clock of the stage columns)
 *            behaviors   the enabled behaviours joined by '+' ("none" if none)
 *   .json  Chrome Trace Event format ({"traceEvents": [...]}, opens in
 *          Perfetto and chrome://tracing): per step a complete event ("ph":
 *          "X", ts/dur in microseconds) "step" on the CPU track (tid 1) and
 *          one per stage on the stage track (tid 2, "GPU" or "CPU stages"),
 *          laid end to end from the step's start; metadata events name the
 *          process and tracks. Timestamps never decrease in file order (a step
 *          starts no earlier than the end of the previous step's events).
 *
 * The path is checked at start-up (extension; a probe file created and
 * removed in its directory) and written at the end to a temporary file in
 * the same directory, fsync'ed, then renamed over FILE: a failed or
 * interrupted write never leaves a partial FILE.
 */
#ifndef BOIDS_APP_PROFILE_H
#define BOIDS_APP_PROFILE_H

#include <stdint.h>
#include <stdio.h>

typedef enum boids_profile_stage {
    BOIDS_PROFILE_KEY,
    BOIDS_PROFILE_COUNT,
    BOIDS_PROFILE_SCAN,
    BOIDS_PROFILE_SCATTER,
    BOIDS_PROFILE_STEER,
    BOIDS_PROFILE_INTEGRATE,
    BOIDS_PROFILE_BODIES,
    BOIDS_PROFILE_DRAW,
    BOIDS_PROFILE_STAGES
} boids_profile_stage;

// The six stages of the step pipeline (key .. integrate).
#define BOIDS_PROFILE_SIM_STAGES 0x3fu

// Rows kept at most (about 100 bytes each); later steps are counted, not kept.
#define BOIDS_PROFILE_MAX_ROWS (1u << 22)

// "key", "count", ... "draw".
extern const char *const boids_profile_stage_names[BOIDS_PROFILE_STAGES];

typedef struct boids_profile_row {
    uint64_t step;
    double time_ms;  // start of the step on any monotonic clock, ms
    double frame_ms; // CPU wall time of the step
    double stage_ms[BOIDS_PROFILE_STAGES];
    uint32_t agents;
    uint32_t behaviors; // BOIDS_BIT(index) of each enabled behaviour
} boids_profile_row;

typedef struct boids_profile boids_profile;

// Checks `path` (extension .csv or .json; writable: a probe file is created
// and removed in its directory; not a directory) and makes an empty recorder.
// `stages` is the mask (1 << boids_profile_stage) of the stages the program
// has: the JSON has one event per such stage per step. On error prints one
// line "PROG: --profile: 'PATH' ...; expected ..." and returns 2 (bad path)
// or 3 (out of memory); *out is then NULL.
int boids_profile_open(boids_profile **out, const char *prog, const char *path, const char *backend, uint32_t stages);
// Appends a row (copied). Past BOIDS_PROFILE_MAX_ROWS rows are dropped (counted).
void boids_profile_add(boids_profile *p, const boids_profile_row *row);
// Writes the file (temporary file, fsync, rename). Returns 0, or 3 with one
// line printed.
int boids_profile_write(boids_profile *p);
// The same without printing: on failure (3) why receives the reason.
int boids_profile_write_quiet(boids_profile *p, char *why, size_t why_size);
// "profile: FILE: R steps" and per stage (and frame) min / median / p95 / max ms.
void boids_profile_summary(const boids_profile *p, FILE *f);
void boids_profile_destroy(boids_profile *p);

#endif
