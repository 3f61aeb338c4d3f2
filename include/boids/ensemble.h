/* boids/ensemble.h: ensembles of runs (docs/ENSEMBLES.md): a plan file (INI)
 * names a base scenario, the steps, the backend, the seeds and the swept
 * scenario keys; the library expands it into runs, runs one run through the
 * engine (boids/engine.h) into its result files, and runs a whole plan in
 * one process (threads on the cores, or one run after another on the GPU).
 * boids-ensemble drives this, on one process or under MPI (src/mpi: rank 0
 * hands out run indexes and writes the same files); so does the Python
 * package. No MPI here.
 *
 * Offers:
 *   boids_plan_load / _free      a plan file, checked whole before any run (errors "PLAN:LINE: [SECTION] KEY: ...")
 *   boids_plan_runs / _run_seed / _run_value / _param_count / _param_key   the expansion
 *   boids_plan_run_hash          a run's settings as one hash (in plan.csv and the run's log)
 *   boids_plan_csv_header        the header of results.csv
 *   boids_run_output / boids_ensemble_run_one / _output_free   one run, its files as text
 *   boids_ensemble_prepare / _write_run / _run_done / _assemble     the output folder
 *   boids_ensemble_desc / boids_ensemble_run                 a whole plan in this process
 *
 * The output folder (every file but runs/RUN.time.json is the same bytes
 * whoever ran the runs, on how many ranks or threads):
 *   plan.csv          the expansion: run, the swept keys, seed, plan_hash (written first; --resume
 *                     stops when the plan no longer expands to it: the plan changed)
 *   runs/RUN.csv      a run's rows (RUN: six digits), written atomically when it ends
 *   runs/RUN.json     its log: plan_hash, parameters, seed, steps, status ok/failed/interrupted, message,
 *                     state_hash, csv_hash (written last: a run is done when its files agree with each
 *                     other and with the plan, boids_ensemble_run_done)
 *   runs/RUN.time.json  its timings, rank and thread (not compared)
 *   runs/RUN.boids    its final snapshot ([log] snapshot = true)
 *   results.csv       every run's rows in run order (boids_ensemble_assemble, when every run is done)
 */
#ifndef BOIDS_ENSEMBLE_H
#define BOIDS_ENSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_PLAN_MAX_PARAMS 16
#define BOIDS_PLAN_MAX_VALUES 100000 // of one parameter
#define BOIDS_PLAN_MAX_SEEDS 100000
#define BOIDS_PLAN_MAX_RUNS 1000000
#define BOIDS_PLAN_VALUE 64 // characters of one value (with the NUL)

// How a parameter's values are given ([sweep] KEY = SPEC).
typedef enum boids_sweep_kind {
    BOIDS_SWEEP_LIST,        // A | B | C (any text the key takes)
    BOIDS_SWEEP_LINEAR,      // linear(FROM, TO, N): N evenly spaced, both ends included
    BOIDS_SWEEP_LOG,         // log(FROM, TO, N): N evenly spaced in log, both ends (> 0)
    BOIDS_SWEEP_UNIFORM,     // uniform(LO, HI, N): N draws
    BOIDS_SWEEP_LOG_UNIFORM, // loguniform(LO, HI, N): N draws, uniform in log (> 0)
    BOIDS_SWEEP_NORMAL,      // normal(MEAN, SD, N): N draws
} boids_sweep_kind;

typedef struct boids_plan_param {
    char key[64]; // a scenario key as boids_scenario_override takes it ("group.boids.weight.alignment")
    int line;     // of the plan file
    boids_sweep_kind kind;
    uint32_t n;                       // values
    char (*values)[BOIDS_PLAN_VALUE]; // as text, the same on every rank ("%.9g" of computed ones)
} boids_plan_param;

typedef struct boids_plan {
    char path[512];         // the plan file
    char name[256];         // its file name without the folder: in the run logs and failed runs' messages (the same
                            // whatever the working directory of the job, or of its --resume)
    char scenario[512];     // the base scenario's file (found relative to the plan, or a shipped name)
    char scenario_arg[512]; // as the plan gives it (the run logs name this: the same on every host)
    uint64_t steps;
    boids_backend backend;
    uint64_t *seeds;
    uint32_t n_seeds;
    boids_plan_param param[BOIDS_PLAN_MAX_PARAMS];
    uint32_t n_params;
    bool zip;           // combine = zip (every list the same length), else cross (cartesian, the last key fastest)
    uint64_t draw_seed; // [plan] seed: of the random draws
    uint64_t every;     // [log] every: statistics every K steps (0: at step 0 and the end only)
    bool groups;        // [log] groups: a row per group too
    bool snapshot;      // [log] snapshot: runs/RUN.boids at the end
    uint32_t runs;      // combinations x seeds
    // FNV-1a 64 of what every run shares: the plan's name, scenario,
    // steps, backend, [log] keys, swept keys and the base scenario's
    // effective values (boids_scenario_write); boids_plan_run_hash adds a run's own.
    uint64_t settings_hash;
} boids_plan;

// Reads and checks a plan: its keys and values, the base scenario (loaded),
// every swept key (applied once to the scenario: an unknown key is an error
// here, a value that is bad for some runs is a failed run later). One line
// in err: "PLAN:LINE: [SECTION] KEY: 'VALUE' PROBLEM; expected ALLOWED".
// BOIDS_ERR_IO (cannot be read), BOIDS_ERR_FORMAT, BOIDS_ERR_NOMEM. *out NULL on error.
boids_result boids_plan_load(const char *path, boids_plan **out, char *err, size_t err_size);
// The same from text; `name` stands for the path (relative scenarios are found from the working directory).
boids_result boids_plan_load_string(const char *text, const char *name, boids_plan **out, char *err, size_t err_size);
void boids_plan_free(boids_plan *p);
uint32_t boids_plan_runs(const boids_plan *p);
// Run r's seed (seeds vary fastest: run = combination * seeds + seed index).
uint64_t boids_plan_run_seed(const boids_plan *p, uint32_t r);
// Run r's value of parameter k, as text (NULL when out of range).
const char *boids_plan_run_value(const boids_plan *p, uint32_t r, uint32_t k);
// Run r's settings as one hash: settings_hash, then r, its seed and its
// swept values. Any change of the plan or of the base scenario's values
// that would change run r's files changes it (0 when r is out of range).
uint64_t boids_plan_run_hash(const boids_plan *p, uint32_t r);
// The header of results.csv: run,KEY...,seed[,group],step,STAT...,state_hash,status (no newline).
void boids_plan_csv_header(const boids_plan *p, char *out, size_t size);

// One run's results as the text of its files.
typedef struct boids_run_output {
    uint32_t run;
    bool ok;
    // Not ok because of the environment, not of the run (its snapshot could
    // not be written: a full disk, EIO; out of memory): status "interrupted",
    // not done, so --resume runs it again; the ensemble stops (exit 3).
    bool interrupted;
    char message[600]; // "" when ok
    uint64_t state_hash;
    char *csv;       // rows, no header (malloc'd)
    char *json;      // runs/RUN.json
    char *time_json; // runs/RUN.time.json
    double seconds;
} boids_run_output;

// Where and how one run runs.
typedef struct boids_run_env {
    int threads;                     // CPU threads of the engine (<= 0: 1)
    boids_engine_headless *headless; // GPU: a context to share (NULL: the engine's own)
    const char *snapshot_path;       // [log] snapshot: where the final .boids goes (NULL: none)
    int rank, worker;                // for the timing file only
    // Called from the run's thread with the steps just done; when set, the
    // run steps in calls of about a quarter second (the same states), so a
    // plan's progress moves within long runs. NULL: one call per [log] row.
    void (*stepped)(void *user, uint64_t steps);
    void *stepped_user;
} boids_run_env;

// Runs run r of the plan (a failed or interrupted run is a result, not an
// error: ok false and its message); returns BOIDS_ERR_NOMEM (its texts could
// not be made) or BOIDS_ERR_ARGUMENT only.
boids_result boids_ensemble_run_one(const boids_plan *p, uint32_t r, const boids_run_env *env, boids_run_output *out);
void boids_ensemble_output_free(boids_run_output *o);

// Makes OUT and OUT/runs and writes OUT/plan.csv; with resume, an existing
// plan.csv must be the same (else BOIDS_ERR_ARGUMENT, nothing written: "the
// plan changed"; one written before plan_hash was a column is rewritten if
// its runs are the same); without, an OUT that holds run results is
// refused (BOIDS_ERR_ARGUMENT: use --resume or another folder). BOIDS_ERR_IO.
boids_result boids_ensemble_prepare(const boids_plan *p, const char *out_dir, bool resume, char *err, size_t err_size);
// Whether run r of plan p is done in OUT: its runs/RUN.json, RUN.csv and
// RUN.time.json all there, regular and whole, and agreeing: the log's
// plan_hash is boids_plan_run_hash's, its status ok or failed (not
// interrupted) as the CSV's rows say, its csv_hash the CSV's, its
// state_hash the last row's; with [log] snapshot, RUN.boids loads, at the
// plan's steps, with that state_hash. Anything else (a file cut short,
// edited or removed, a log of another plan) is not done: --resume runs it
// again. *failed (if non-NULL): done, and the run itself failed.
bool boids_ensemble_run_done(const boids_plan *p, const char *out_dir, uint32_t r, bool *failed);
// Writes run r's files (each atomically, the .json last) and flushes them.
boids_result boids_ensemble_write_run(const char *out_dir, const boids_run_output *o, char *err, size_t err_size);
// results.csv of every run's runs/RUN.csv in run order (atomically); *failed
// (if non-NULL) the failed runs. BOIDS_ERR_IO when one is missing.
boids_result boids_ensemble_assemble(const boids_plan *p, const char *out_dir, uint32_t *failed, char *err,
                                     size_t err_size);

// A plan in this process.
typedef struct boids_ensemble_desc {
    const char *out_dir;
    int jobs;    // CPU: runs at once, each an engine on its own thread (<= 0: 1); the GPU: always 1
    int threads; // CPU threads per run (<= 0: 1)
    bool resume; // run only what OUT lacks
    // Called (from the calling thread, in the order runs end) after each
    // run's files are written: done and failed so far of total. NULL: none.
    void (*progress)(void *user, uint32_t done, uint32_t failed, uint32_t total);
    void *user;
    // Tests: stop the process with SIGKILL once this many runs have been
    // written (0: never), as a killed job would be.
    uint32_t kill_after;
    // Called (from the calling thread, with the same user) about twice a
    // second while runs are in flight and after each progress call: the
    // share of the plan's work done, 0..1, counting the steps of runs in
    // flight (a run's steps weigh its world.count where the plan sweeps it,
    // so large runs count for more; runs already done in OUT count whole).
    // NULL: none (and each run steps as without progress).
    void (*work)(void *user, double done);
} boids_ensemble_desc;

// Runs every run the folder lacks, writing each as it ends, then
// assembles results.csv. Failed runs are counted in *failed (if non-NULL),
// not errors. Errors: prepare's, a write error or an interrupted run (its
// log written; no more runs are started; BOIDS_ERR_IO), BOIDS_ERR_GL
// (backend gpu without a GL 4.5 context), BOIDS_ERR_NOMEM.
boids_result boids_ensemble_run(const boids_plan *p, const boids_ensemble_desc *d, uint32_t *failed, char *err,
                                size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
