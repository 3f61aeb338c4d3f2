// src/app/boids_ensemble.c: boids-ensemble PLAN.ini: every run of a plan
// (boids/ensemble.h, docs/ENSEMBLES.md) into an output folder, on this
// process (--jobs threads on the CPU, one run after another on the GPU) or,
// built with MPI and started by mpirun, over the ranks (src/mpi).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boids/ensemble.h"
#include "boids/parse.h"
#include "cli.h"
#include "progress.h"
#ifdef BOIDS_HAVE_MPI
#include "ensemble_mpi.h"
#endif

static const char usage[] = // the usage lines and what it does, before the flags
    "usage: boids-ensemble PLAN.ini [--out DIR] [--jobs N] [--threads T] [--resume] [--timeout S]\n"
    "Runs every run of an ensemble plan (a base scenario, steps, seeds, swept keys: docs/ENSEMBLES.md) and writes "
    "DIR/results.csv (run, swept keys, seed, step, statistics, state_hash, status), DIR/plan.csv and "
    "DIR/runs/RUN.{csv,json,time.json}. Under mpirun (built with MPI) rank 0 hands the runs out to the ranks.\n";
static const char usage_notes[] = // after the flags: one paragraph a line (the help wraps them)
    "\n"
    "Exit status: 0 done (failed runs are recorded, not fatal), 2 a bad plan or flag (or, with --resume, a plan "
    "changed since DIR was started), 3 an environment problem (a folder that cannot be written, a run interrupted "
    "by a full disk, no GL, a lost rank: --resume runs what is missing or interrupted again).\n";
// The plans of the examples are the source tree's (plans/; installed in PREFIX/share/boids/plans).
static const boids_cli_example examples[] = {
    {"boids-ensemble plans/tiny.ini --out tiny",
     "every run of the small plan into tiny/ (results.csv, plan.csv, runs/), from the source tree's root"},
    {"boids-ensemble plans/tiny.ini --out tiny --resume",
     "again: only the runs missing or interrupted are run (here none)"},
    {"boids-ensemble plans/tiny.ini --out tiny-jobs --jobs 4 --threads 1",
     "four runs at once, one thread each (plans/vicsek-fig2a.ini: Vicsek 1995's figure 2a, minutes)"},
    {NULL, NULL},
};

typedef struct progress_state {
    bool terminal;
    double start, last_line; // the job's start; the last plain line
    bool seen;               // a run has been reported
    uint32_t first_done;     // runs already done when this process started (--resume)
    uint32_t done;           // runs done so far
    double share, share0;    // of the work done: now, and when this process started (< 0: not yet told)
} progress_state;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Rank 0's progress: the updating line on a terminal (progress.c), else a
// plain line at most every 10 s and at the end.
static void on_progress(void *user, uint32_t done, uint32_t failed, uint32_t total) {
    progress_state *s = user;
    double t = now_s();
    if (!s->seen) {
        s->seen = true;
        s->first_done = done ? done - 1 : 0;
    }
    s->done = done;
    if (s->terminal) {
        char note[64];
        snprintf(note, sizeof note, ", %u failed", failed);
        boids_progress_words("runs", note);
        if (s->share0 < 0) // under MPI (on_work never told a share); else on_work, called next with the share, draws
            boids_progress_update(done);
        return;
    }
    if (done < total && t - s->last_line < 10.0)
        return;
    s->last_line = t;
    double rate = (done - s->first_done) / (t - s->start + 1e-9), left = rate > 0 ? (total - done) / rate : 0;
    if (s->share > s->share0 && s->share0 >= 0) // the work's share: large runs weigh more
        left = (1 - s->share) * (t - s->start) / (s->share - s->share0);
    fprintf(stderr, "boids-ensemble: %u/%u runs done, %u failed, %d:%02d left\n", done, total, failed, (int)(left / 60),
            (int)left % 60);
}

// Rank 0's share of the work done (steps of the runs in flight too): the
// terminal's line redrawn with it, so its time left moves within long runs.
static void on_work(void *user, double share) {
    progress_state *s = user;
    if (s->share0 < 0)
        s->share0 = share;
    s->share = share;
    if (!s->terminal)
        return;
    boids_progress_share(share);
    if (share > s->share0) // nothing new before: the first draw waits for a rate
        boids_progress_update(s->done);
}

static int flag_number(const char *flag, const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
    const char *e = v ? boids_parse_uint(v, 0, lo, hi, out) : "missing";
    if (e) {
        fprintf(stderr, "boids-ensemble: %s: '%s' is %s; expected an integer %llu..%llu\n", flag, v ? v : "", e,
                (unsigned long long)lo, (unsigned long long)hi);
        return 2;
    }
    return 0;
}

// Runs the plan of the options; returns the exit status.
static int run(const boids_options *o) {
    const char *plan_path = o->operand[0], *out_dir = o->out_dir;
    uint32_t jobs = o->jobs, threads = (o->flags_given & BOIDS_CLI_RUN_THREADS) ? (uint32_t)o->threads : 1u;
    uint64_t timeout = o->timeout; // under MPI
    (void)timeout;
    bool resume = o->resume;
    char default_out[512];
    if (!out_dir) { // the plan's name without its folder and .ini
        const char *base = strrchr(plan_path, '/') ? strrchr(plan_path, '/') + 1 : plan_path;
        size_t n = strlen(base);
        if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
            n -= 4;
        snprintf(default_out, sizeof default_out, "%.*s.out", (int)n, base);
        out_dir = default_out;
    }
    uint32_t kill_after = 0;
    char k[32];
    if (boids_debug_value("ensemble-kill-after", k, sizeof k) && *k) {
        uint64_t u;
        if (flag_number("BOIDS_DEBUG ensemble-kill-after", k, 1, UINT32_MAX, &u))
            return 2;
        kill_after = (uint32_t)u;
    }
    progress_state ps = {.terminal = isatty(2) != 0, .start = now_s(), .share = -1, .share0 = -1};
    ps.last_line = ps.start;
#ifdef BOIDS_HAVE_MPI
    if (boids_mpi_active()) {
        boids_mpi_options mo = {plan_path,       out_dir,    (int)jobs,   (int)threads, resume,
                                (double)timeout, kill_after, on_progress, &ps};
        return boids_mpi_ensemble(&mo);
    }
#else
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (size && strcmp(size, "1") != 0) {
        fprintf(stderr,
                "boids-ensemble: started by mpirun with %s ranks, but built without MPI; expected one "
                "process (rebuild with libopenmpi-dev: BOIDS_MPI=ON)\n",
                size);
        return 3;
    }
#endif
    char err[1600];
    boids_plan *plan;
    boids_result r = boids_plan_load(plan_path, &plan, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "boids-ensemble: %s\n", err);
        return r == BOIDS_ERR_NOMEM ? 3 : 2;
    }
    if (ps.terminal) {
        ps.terminal = boids_progress_start("boids-ensemble", boids_plan_runs(plan));
        boids_progress_words("runs", ", 0 failed");
    }
    boids_ensemble_desc d = {out_dir, (int)jobs, (int)threads, resume, on_progress, &ps, kill_after, on_work};
    uint32_t failed = 0;
    double t0 = now_s();
    r = boids_ensemble_run(plan, &d, &failed, err, sizeof err);
    if (ps.terminal)
        boids_progress_finish();
    if (r != BOIDS_OK) {
        fprintf(stderr, "boids-ensemble: %s\n", err);
        boids_plan_free(plan);
        return r == BOIDS_ERR_ARGUMENT ? 2 : 3;
    }
    fprintf(stderr, "boids-ensemble: %u runs (%u failed) in %.1f s: %s/results.csv\n", boids_plan_runs(plan), failed,
            now_s() - t0, out_dir);
    boids_plan_free(plan);
    return 0;
}

// boids-ensemble: parse, run the plan, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = "boids-ensemble",
        .summary = "run every run of an ensemble plan into one results table",
        .usage = usage,
        .usage_notes = usage_notes,
        .examples = examples,
        .flags = BOIDS_CLI_OUT | BOIDS_CLI_JOBS | BOIDS_CLI_RUN_THREADS | BOIDS_CLI_RESUME | BOIDS_CLI_TIMEOUT,
        .operands = "PLAN.ini",
        .operands_min = 1,
        .operands_max = 1,
#ifdef BOIDS_HAVE_MPI
        .version_note = " (MPI)",
#else
        .version_note = " (no MPI)",
#endif
    };
    return boids_cli_main(argc, argv, &spec, run);
}
