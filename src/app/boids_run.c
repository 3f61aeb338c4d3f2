// src/app/boids_run.c: boids-run, the headless runner of the CPU reference.
// Parses the shared options, builds the parameters, optionally loads agents
// from a CSV snapshot or the whole state from a .boids snapshot (--load),
// steps, prints a statistics line every K steps and a summary whose last line
// is "state-hash: H" (FNV-1a of the final state); --save writes a .boids
// snapshot at the end (and every K steps with --save-every); --record writes a
// recording (the initial state and every K-th step, boids/record.h). SIGINT / SIGTERM:
// the current step is finished, the requested outputs written, exit 130 / 143.
// GPU faults (the engine's check after every step and around every read-back:
// a lost context, OpenGL errors): stepping stops, the outputs in progress
// are flushed from the last state read back before the fault (never from a
// read-back made after it), one line names the fault, its step and what each
// output holds, exit 3.
// Exit status: 0 ok, 2 bad input (flags, CSV or snapshot content, a bad
// BOIDS_FAULT), 3 environment (memory, writing output, GPU faults).
// This file: the set-up and the run loop; the outputs' writes and their
// flush after a fault are run_outputs.c's.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boids/parse.h"
#include "progress.h"
#include "run_outputs.h"
#ifdef BOIDS_HAVE_MPI
#include <mpi.h>

#include "decompose_mpi.h"
#endif

#define MAX_TIME_SAMPLES (1u << 20) // per-step times kept for the median

static const char usage[] =
    "usage: boids-run --count N [options]\n"
    "       boids-run --init FILE.csv [options]\n"
    "       boids-run --load FILE.boids [--steps S] [run and output options]\n"
    "Runs the CPU reference simulation without a window and prints statistics.\n"
    "The last line of the output is 'state-hash: H', a hash of the final state\n"
    "(same flags and seed => same hash, for any --threads).\n"
    "\n"
    "  --count N             agents, 1..16777216 (with --init: taken from the file)\n"
    "  --steps S             steps to run, 1..1000000000 (default 100)\n"
    "  --seed X              random seed, decimal or 0x hex, 0..2^64-1 (default 1)\n"
    "  --dim 2|3             dimensions (default 2)\n"
    "  --world WxH[xD]       world extents (default: sized for ~20 neighbours)\n"
    "  --origin X,Y[,Z]      lower corner of the world (default 0,0[,0])\n"
    "  --boundary MODE       wrap, walls, bounce or margin (default wrap; margin: the chapter's\n"
    "                        sketch, borders() with plain distances)\n"
    "  --margin R            boundary margin's margin, the sketch's boid size r (default 3)\n"
    "  --wall-corner RULE    stay within walls at a corner: both (default: away from\n"
    "                        every near wall) or book (the chapter's: the last near axis)\n"
    "  --behaviors LIST      comma list of behaviours, 'flocking', 'all' or 'none'\n"
    "                        (default flocking = separation,alignment,cohesion)\n"
    "  --weights NAME=W,...  weight of each named behaviour (default 1; separation 1.5)\n"
    "  --radius R            perception radius (default 50)\n"
    "  --separation R        desired separation (default 25)\n"
    "  --fov DEGREES         field of view, 0 < fov <= 360 (default 360)\n"
    "  --maxspeed V          maximum speed (default 3)\n"
    "  --maxforce F          maximum steering force (default 0.05)\n"
    "  --maxspeed-range LO,HI  each agent's own maxspeed, uniform in LO..HI (seeded by\n"
    "                        the agent's id; replaces --maxspeed; 0 < LO <= HI)\n"
    "  --maxforce-range LO,HI  the same for maxforce\n"
    "  --dt T                time step (default 1)\n"
    "  --bodies STYLE        a procedural body trailing every agent: none (default), chain,\n"
    "                        snake or fish (distance and angle constraints, after integrate)\n"
    "  --joints J            joints per body, 2..32 (default 12)\n"
    "  --body-length L       a body's length head to tail (default 1.2 x the separation)\n";
static const char usage_more[] = // (C99 promises string literals of 4095 bytes only)
    "  --backend cpu|gpu     the C reference, or the OpenGL 4.5 compute shaders (headless EGL)\n"
    "  --shader-dir DIR      load the GPU shaders from DIR instead of the built-in copies\n"
    "  --kernel NAME         with --backend gpu, the compute kernel (the same state-hash for each):\n"
    "                        reference (default: one steer invocation per agent, row-major cells)\n"
    "                        morton (the agents stored in the Morton / Z order of their cells)\n"
    "  --init FILE.csv       start from a snapshot: id,group,px,py,pz,vx,vy,vz\n"
    "                        (2D: id,group,px,py,vx,vy; a neighbors column is ignored)\n"
    "  --export-csv FILE.csv write the final state (written to a temporary file, then renamed)\n"
    "  --load FILE.boids     continue a run saved by --save (agents, bodies, parameters,\n"
    "                        seed, step): --steps S more steps, bit for bit as if never\n"
    "                        stopped; flags that set parameters are an error with it\n"
    "  --save FILE.boids     write the whole state at the end (also when interrupted);\n"
    "                        atomically: a temporary file, fsynced, renamed over FILE\n"
    "  --save-every K        with --save: also write it every K steps of this run\n"
    "  --record FILE         a recording for boids --replay (--record-every K: every K steps)\n"
    "  --profile FILE        per-step profile: FILE.csv (one row per step) or FILE.json\n"
    "                        (Chrome trace: Perfetto, chrome://tracing); stage times are the\n"
    "                        GPU's timer queries with --backend gpu (waits after each step)\n"
    "  --stats-every K       a statistics line every K steps (default steps/10)\n"
    "  --threads N           OpenMP threads, 0 = default (results do not depend on it)\n"
    "  --scenario FILE|NAME  a scenario file (docs/SCENARIOS.md) or a shipped one by name; the\n"
    "                        flags given override it (--count, --seed, ... for every group)\n"
    "  --list-scenarios      list the shipped scenarios with their titles\n"
    "  --dump-scenario       print the effective scenario (file + flags) as a file and exit\n"
    "  --index KIND          neighbour search of the CPU backend: grid (default, the bin\n"
    "                        lattice), quadtree (octree in 3D) or brute (every pair)\n"
    "  --update ORDER        parallel (default: every agent from the same state) or sequential\n"
    "                        (the chapter's sketch: in id order each agent moves before the next\n"
    "                        looks; CPU backend only, every pair)\n"
    "  --quiet               print only the state-hash line (and no progress line)\n"
    "  --decompose AxB[xC]   under mpirun -n A*B*C (built with MPI): one run split into boxes of\n"
    "                        cells, one per rank, the same state-hash as one process (either\n"
    "                        backend; rank 0 writes --save and --export-csv; no --save-every,\n"
    "                        --record, --profile)\n"
    "  --rebalance K[:T]|off with --decompose: boxes cut by the work of the agents (the candidate\n"
    "                        pairs of their cells), cut anew every K steps when a rank's step\n"
    "                        examined over T times the mean (default 50:1.1); off: even boxes\n"
    "  --help, --version\n";
static const char usage_notes[] =
    "\n"
    "Behaviours: obstacles, walls, escape, separation, flee, evade, hunt, pursue,\n"
    "seek, arrive, path, flow, view, alignment, cohesion, wander, speed, queue, avoid,\n"
    "stay, hide, offset, follow, interpose, feelers.\n"
    "Named agents (every group; a scenario's keys per group): --leader ID|target (offset,\n"
    "follow; default target), --formation none|line|column|v|ring (offset: each member's place\n"
    "from its rank; none: leader_offset), --interpose A,B (ids or target; default 0,target).\n"
    "SIGINT / SIGTERM (exit 130 / 143), GPU faults (exit 3): --export-csv, --save, --record and\n"
    "--profile are written (after a fault from the last good state).\n"
    "Path following (behaviour path, the scenario's [path]):\n"
    "  --path-outside RULE   a normal point outside a segment: clamp (default: the nearer end)\n"
    "                        or end (the segment's end point, as the book's Example 5.8)\n"
    "  --path-line KIND      segment (default) or infinite: the line through a segment's two\n"
    "                        points, unclamped (the book's 5.5 / 5.6; meant for one segment)\n"
    "Per-rule neighbourhoods (OpenSteer's boids): --alignment-radius R, --cohesion-radius R\n"
    "(default: --radius); --separation-fov, --alignment-fov, --cohesion-fov DEGREES (default --fov).\n"
    "Topological neighbourhoods (Ballerini et al. 2008): --neighbors-max K (0..32, every group; a\n"
    "scenario's `neighbors_max` per group): each agent heeds only its K nearest accepted neighbours\n"
    "(ties: the smaller id); 0 (default) = every neighbour.\n"
    "--grid-fine 1..4|auto: the finer grid (cells of reach / M, each search over the c-M..c+M block;\n"
    "default 1); auto picks M from the measured density. The same neighbours, the same bits.\n"
    "--combine MODE: sum (default), priority (the first force above the threshold) or truncated\n"
    "(Buckland's running sum in priority order until maxforce is spent, the last one truncated).\n"
    "Rule sets: --rules NAME (every group; a scenario's `rules` key per group): chapter (The\n"
    "Nature of Code's forces, default), tutorial (the flocking tutorial's normalised resultants,\n"
    "constant speed) or heading (the angle-bug post's boids turning a fixed angle per rule, 2D).\n"
    "On a terminal, stderr shows one updating progress line (step, steps/s, time left) from 2 s on.\n"
    "Exit status: 0 done, 2 bad arguments or input file, 3 out of memory, a write or GPU failure.\n";

// SIGINT / SIGTERM: stop stepping after the current step, write the outputs.

// Seconds on a monotonic clock.
static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// qsort order of doubles.
static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Checks that --init names a readable file (not a directory): a missing
// input is a bad argument (exit 2), unlike a read error later (exit 3).
static int check_readable(const char *path) {
    const char *expected = "a readable CSV file";
    struct stat st;
    if (stat(path, &st) != 0) {
        boids_cli_error(PROG, "--init", path, expected, "cannot be opened: %s", strerror(errno));
        return EXIT_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        boids_cli_error(PROG, "--init", path, expected, "is a directory");
        return EXIT_INPUT;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        boids_cli_error(PROG, "--init", path, expected, "cannot be opened: %s", strerror(errno));
        return EXIT_INPUT;
    }
    fclose(f);
    return 0;
}

// One statistics line (also the "final:" line of the summary).
static void print_stats(const char *label, const boids_stats *st, double ms_per_step) {
    printf("%sstep %llu  polarisation %.4f  milling %.4f  speed %.4f  neighbors %.3f  nearest %.4f  cell-max %u  "
           "cell-mean %.3f  ms/step %.3f\n",
           label, (unsigned long long)st->step, st->polarisation, st->milling, st->mean_speed, st->mean_neighbors,
           st->mean_nearest, st->cell_max, st->cell_mean, ms_per_step);
}

// Is every figure of the statistics finite?
static bool stats_finite(const boids_stats *st) {
    return isfinite(st->polarisation) && isfinite(st->milling) && isfinite(st->mean_speed) &&
           isfinite(st->mean_neighbors) && isfinite(st->mean_nearest) && isfinite(st->cell_mean);
}

// Loads --init into id-order arrays; returns 0 or the exit status (error printed).
static int load_init(const boids_options *o, uint32_t *count, float (**pos)[4], float (**vel)[4], uint32_t **group) {
    int rc = check_readable(o->init_csv);
    if (rc)
        return rc;
    char msg[512];
    boids_result r = boids_csv_read(o->init_csv, o->dim, count, pos, vel, group, msg, sizeof msg);
    if (r == BOIDS_ERR_FORMAT || r == BOIDS_ERR_ARGUMENT) {
        char line[1024], described[600];
        snprintf(described, sizeof described, "%s%s", strncmp(msg, "line ", 5) == 0 ? "at " : "", msg);
        boids_cli_format_described(line, sizeof line, PROG, "--init", o->init_csv,
                                   "a CSV with the header id,group,px,py,pz,vx,vy,vz and ids 0..N-1 once each",
                                   described);
        fprintf(stderr, "%s\n", line);
        return EXIT_INPUT;
    }
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "cannot be read: %s (%s)", boids_result_str(r), msg);
        return EXIT_ENVIRONMENT;
    }
    // The count of an init file is the file's; a conflict names where the
    // other count came from: --count, or the scenario file's count key (a
    // scenario without one has no count of its own).
    if ((o->flags_given & BOIDS_CLI_COUNT) && o->count != *count) {
        char expected[64], given[16];
        snprintf(expected, sizeof expected, "--count %u or no --count", *count);
        snprintf(given, sizeof given, "%u", o->count);
        boids_cli_error(PROG, "--count", given, expected, "does not match the %u agents in '%s'", *count, o->init_csv);
        return EXIT_INPUT;
    }
    if (!(o->flags_given & BOIDS_CLI_COUNT) && o->scenario && o->scenario->count_set && o->count != *count) {
        char expected[96];
        snprintf(expected, sizeof expected, "a CSV of %u agents, or --count %u to override the scenario", o->count,
                 *count);
        boids_cli_error(PROG, "--init", o->init_csv, expected, "holds %u agents but --scenario '%s' says count = %u",
                        *count, o->scenario_arg, o->count);
        return EXIT_INPUT;
    }
    return 0;
}

// The engine of the flags (and --init's agents) on the CPU; returns 0, -1
// when --dump-scenario printed the scenario (exit 0), or the exit status
// (one line printed).
static int create_engine(const boids_options *o, uint32_t count, float (*pos)[4], float (*vel)[4], uint32_t *group,
                         boids_engine **out) {
    boids_params params;
    char err[1024];
    if (boids_options_params(o, count, &params, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return EXIT_INPUT;
    }
    if (o->dump_scenario) {
        boids_scenario *eff = malloc(sizeof *eff);
        if (!eff)
            return EXIT_ENVIRONMENT;
        boids_options_scenario(o, &params, eff);
        int rc = boids_scenario_write(eff, stdout) ? -1 : EXIT_ENVIRONMENT;
        free(eff);
        return rc;
    }
    if (group) { // the snapshot may use more groups than the default one
        uint32_t max_group = 0;
        for (uint32_t i = 0; i < count; i++)
            max_group = group[i] > max_group ? group[i] : max_group;
        if (max_group + 1 > params.world.group_count) {
            params.world.group_count = max_group + 1;
            char what[256] = "";
            boids_result r = boids_params_finalize(&params, what, sizeof what);
            if (r != BOIDS_OK) {
                boids_cli_error(PROG, "--init", o->init_csv, NULL, "needs %u groups, rejected: %s (%s)", max_group + 1,
                                boids_result_str(r), what);
                return EXIT_INPUT;
            }
        }
    }
    boids_engine_desc d = {.params = &params,
                           .distribution = (boids_distribution)o->distribution,
                           .threads = o->threads,
                           .index = (boids_index)o->index,
                           .update = (boids_update)o->update};
    boids_result r = boids_engine_create(out, &d, err, sizeof err);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot create a simulation of %u agents: %s", count,
                        boids_result_str(r));
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    if (pos && (r = boids_engine_set_agents(*out, (const float(*)[4])pos, (const float(*)[4])vel, group)) != BOIDS_OK) {
        boids_cli_error(PROG, "--init", o->init_csv, NULL, "is rejected by the simulation: %s", boids_result_str(r));
        boids_engine_destroy(*out);
        *out = NULL;
        return EXIT_INPUT;
    }
    // The scenario in effect (the file and flags): its schedule is applied
    // every step and saved with --save.
    boids_scenario *scen = malloc(sizeof *scen);
    if (!scen)
        return EXIT_ENVIRONMENT;
    boids_options_scenario(o, boids_engine_params(*out), scen);
    r = boids_engine_set_scenario(*out, scen, err, sizeof err);
    free(scen);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, NULL, NULL, NULL, "%s", err);
        return EXIT_INPUT;
    }
    return 0;
}

// --load: the engine of the snapshot on the CPU; returns 0 or the exit status
// (one line printed naming the file: 2 for a missing or bad file, 3 out of memory).
static int load_snapshot(const boids_options *o, boids_engine **e) {
    char err[1200];
    boids_engine_desc d = {.threads = o->threads, .index = (boids_index)o->index, .update = (boids_update)o->update};
    boids_result r = boids_engine_load(e, o->load, &d, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: --load: %s\n", PROG, err);
        return r == BOIDS_ERR_NOMEM ? EXIT_ENVIRONMENT : EXIT_INPUT;
    }
    return 0;
}

// The CPU engine moved onto the GPU backend (its parameters, scenario and
// state): exit 3 without a GL 4.5 context, 2 for a count the GPU cannot
// hold or a bad --shader-dir.
static int open_gpu(const boids_options *o, boids_engine **e) {
    char err[4096];
    // GL errors are not printed as they come: a fault is one line (boids_engine_check's).
    boids_engine_desc d = {.params = boids_engine_params(*e),
                           .scenario = boids_engine_scenario(*e),
                           .backend = BOIDS_BACKEND_GPU,
                           .threads = o->threads,
                           .shader_dir = o->shader_dir,
                           .silent_errors = true,
                           .kernel = (boids_kernel)o->kernel};
    boids_engine *gpu = NULL;
    boids_result r = boids_engine_create(&gpu, &d, err, sizeof err);
    if (r == BOIDS_ERR_GL) {
        boids_cli_error(PROG, "--backend", "gpu", NULL, "needs OpenGL 4.5: %s", err);
        return EXIT_ENVIRONMENT;
    }
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? EXIT_INPUT
                                                                                            : EXIT_ENVIRONMENT;
    }
    if ((r = boids_engine_copy_state(gpu, *e)) != BOIDS_OK) {
        boids_cli_error(PROG, "--backend", "gpu", NULL, "cannot take the initial state: %s", boids_result_str(r));
        boids_engine_destroy(gpu);
        return EXIT_ENVIRONMENT;
    }
    boids_engine_destroy(*e);
    *e = gpu;
    return 0;
}

// The outputs' paths (before any step): 0, or 2 / 3 with one line.
static int check_outputs(const boids_options *o) {
    static const char expected[] = "a file path in an existing, writable directory";
    int rc = 0;
    if (o->export_csv && (rc = boids_cli_check_output(PROG, "--export-csv", o->export_csv, expected)))
        return rc;
    if (o->save && (rc = boids_cli_check_output(PROG, "--save", o->save, expected)))
        return rc;
    if (o->record && (rc = boids_cli_check_output(PROG, "--record", o->record, expected)))
        return rc;
    return 0;
}

static const char *decompose_arg; // --decompose AxB[xC] (main takes it out of argv)
static const char *rebalance_arg; // --rebalance K[:T] | off (likewise)
#ifdef BOIDS_HAVE_MPI
static FILE *decompose_err; // every rank's own stderr (rank > 0's stderr is /dev/null)
static uint32_t decompose_parts[3];
static int decompose_ranks, decompose_rank;
static uint32_t rebalance_every = BOIDS_DECOMP_REBALANCE_DEFAULT;
static double rebalance_imbalance = BOIDS_DECOMP_IMBALANCE_DEFAULT;

// The flags this slice of --decompose cannot honour: 0, or 2 (one line).
static int decompose_flags(const boids_options *o) {
    const char *what = o->index != BOIDS_INDEX_GRID         ? "--index quadtree|brute (the grid only)"
                       : o->update != BOIDS_UPDATE_PARALLEL ? "--update sequential (every pair, in id order)"
                       : o->save_every                      ? "--save-every (the state is gathered at the end only)"
                       : o->record                          ? "--record"
                       : o->profile                         ? "--profile"
                                                            : NULL;
    if (!what)
        return 0;
    boids_cli_error(PROG, "--decompose", decompose_arg, "a run without it, or without that flag",
                    "cannot be used with %s", what);
    return EXIT_INPUT;
}

// What the decomposed run's callbacks share: the options, rank 0's engine
// and the outcome of the final writes (0, or 3 with its line printed).
typedef struct decompose_run {
    const boids_options *o;
    boids_engine *e;
    int rc;
} decompose_run;

static void decompose_stats(void *user, const boids_stats *st, double ms) {
    const boids_options *o = ((decompose_run *)user)->o;
    if (!o->quiet) {
        print_stats("", st, ms);
        fflush(stdout);
    }
}

// Rank 0 after the last step: the outputs a plain run writes at its end, in
// run_write_outputs's order and words, from the world's final state in id
// order. --export-csv through the core's writer (the last step's neighbour
// counts are the ranks', not the engine's); --save through the engine,
// given that state and its step counter, so the snapshot carries the
// parameters and the scenario as a plain run's does. Both write a temporary
// file and rename it: a failure leaves an existing file as it was.
static void decompose_final(void *user, uint64_t step, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                            const uint32_t *group, const uint32_t *neighbors, const float (*joints)[4]) {
    decompose_run *run = user;
    const boids_options *o = run->o;
    if (o->export_csv) {
        errno = 0;
        if (boids_csv_write_agents(o->export_csv, n, pos, vel, group, neighbors) != BOIDS_OK) {
            boids_cli_error(PROG, "--export-csv", o->export_csv, NULL, "could not be written: %s",
                            strerror(errno ? errno : EIO));
            run->rc = EXIT_ENVIRONMENT;
            return;
        }
    }
    if (!o->save)
        return;
    boids_result r = boids_engine_set_state(run->e, step, pos, vel, group, joints);
    if (r != BOIDS_OK) {
        boids_cli_error(PROG, "--save", o->save, NULL, "not written: the final state was not taken: %s",
                        boids_result_str(r));
        run->rc = EXIT_ENVIRONMENT;
        return;
    }
    if (run_save(o, run->e) != 0)
        run->rc = EXIT_ENVIRONMENT;
}

// The run of the engine e (its parameters and initial state) split over the
// ranks: 0, 2 (bad input, one line on rank 0) or 3. Every rank agrees on
// the outcome of the checks before any exchange (a time-out bounds it).
static int run_decomposed(const boids_options *o, boids_engine *e) {
    const boids_params *p = boids_engine_params(e);
    char err[512] = "";
    int rc = 0;
    bool gpu = strcmp(o->backend, "gpu") == 0;
    const char *refused = gpu ? boids_decomp_gpu_refusal(p) : NULL;
    if (refused) {
        boids_cli_error(PROG, "--decompose", decompose_arg, "the CPU backend, or a run without that behaviour",
                        "cannot split a run with %s on the GPU backend", refused);
        rc = EXIT_INPUT;
    } else if ((rc = boids_decomp_check(p, decompose_parts, decompose_ranks, err, sizeof err))) {
        fprintf(stderr, "%s: %s\n", PROG, err);
    } else if (decompose_rank == 0)
        rc = check_outputs(o);
    int worst = rc;
    MPI_Request r;
    MPI_Iallreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
    for (double t0 = MPI_Wtime();;) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (MPI_Wtime() - t0 > 120.0) {
            fprintf(decompose_err, "%s: --decompose: the ranks did not agree on the run within 120 s\n", PROG);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    if (worst)
        return worst;
    // The initial state, and the bodies' joints as the engine has them (laid
    // straight, or a snapshot's).
    uint32_t n = boids_engine_count(e), rows = boids_params_joint_rows(p);
    float(*pos)[4] = malloc((size_t)(n ? n : 1) * sizeof *pos), (*vel)[4] = malloc((size_t)(n ? n : 1) * sizeof *vel);
    uint32_t *group = malloc((size_t)(n ? n : 1) * sizeof *group);
    float(*joints)[4] = rows ? malloc((size_t)rows * (n ? n : 1) * sizeof *joints) : NULL;
    if (!pos || !vel || !group || (rows && !joints) || boids_engine_read(e, pos, vel, group) != BOIDS_OK ||
        (rows && boids_engine_read_joints(e, joints, (size_t)rows * n * sizeof *joints) != BOIDS_OK)) {
        free(pos);
        free(vel);
        free(group);
        free(joints);
        fprintf(decompose_err, "%s: --decompose: out of memory for the initial state\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, EXIT_ENVIRONMENT); // the other ranks are on their way to the first exchange
        return EXIT_ENVIRONMENT;
    }
    const boids_world_params *w = &p->world;
    char parts[48];
    if (w->dim == 3)
        snprintf(parts, sizeof parts, "%ux%ux%u", decompose_parts[0], decompose_parts[1], decompose_parts[2]);
    else
        snprintf(parts, sizeof parts, "%ux%u", decompose_parts[0], decompose_parts[1]);
    if (!o->quiet) {
        printf("boids-run %s: %u agents, %uD, boundary %s, seed %llu, steps %llu, backend %s, decomposed %s "
               "over %d ranks (grid %ux%ux%u cells)\n",
               BOIDS_VERSION, n, w->dim,
               w->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[w->boundary] : "?",
               (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), (unsigned long long)o->steps,
               gpu ? "gpu (on every rank)" : "cpu", parts, decompose_ranks, w->cells[0], w->cells[1],
               w->dim == 3 ? w->cells[2] : 1u);
        fflush(stdout);
    }
    decompose_run dr = {.o = o, .e = e};
    boids_decomp_options d = {.steps = o->steps,
                              .stats_every = o->stats_every ? o->stats_every : 1,
                              .rebalance_every = rebalance_every,
                              .imbalance = rebalance_imbalance,
                              .interrupted = boids_cli_interrupted,
                              .joints = (const float(*)[4])joints,
                              .gpu = gpu,
                              .shader_dir = o->shader_dir,
                              .kernel = (boids_kernel)o->kernel,
                              .quiet_gl = true,
                              .threads = o->threads,
                              .err = decompose_err,
                              .scenario = boids_engine_scenario(e),
                              .stats = decompose_stats,
                              .final = o->export_csv || o->save ? decompose_final : NULL,
                              .user = &dr};
    memcpy(d.parts, decompose_parts, sizeof d.parts);
    boids_decomp_result res;
    rc = boids_decomp_run(p, boids_engine_steps(e), n, (const float(*)[4])pos, (const float(*)[4])vel, group, &d, &res);
    free(pos);
    free(vel);
    free(group);
    free(joints);
    if (rc || dr.rc)
        free(res.boxes);
    if (rc) {
        boids_cli_error(PROG, NULL, NULL, NULL, "--decompose: out of memory");
        return rc;
    }
    if (dr.rc) // a final write failed (its line printed): no summary, no state-hash, as a plain run
        return dr.rc;
    if (res.interrupted)
        fprintf(stderr, "%s: interrupted after %llu steps (every rank after the same step); outputs written\n", PROG,
                (unsigned long long)res.steps);
    if (!o->quiet) {
        printf("summary: %llu steps, ms/step mean %.4f (decomposed %s over %d ranks)\n", (unsigned long long)res.steps,
               res.ms_per_step, parts, decompose_ranks);
        printf("exchange (per step per rank; bytes the most of any rank): halo agents %.1f, halo bytes %.0f, "
               "migration bytes %.0f; agents migrated %llu in all; waiting %.1f%% of the run (the most of any rank)\n",
               res.halo_agents, res.halo_bytes, res.migrate_bytes, (unsigned long long)res.migrated,
               100.0 * res.wait_share);
        if (rebalance_imbalance > 0 && rebalance_every)
            printf("balance: boxes cut by the work per cell, checked every %u steps (threshold %.2f); cut anew %u "
                   "times (%.0f bytes sent by the re-cuts and strays); imbalance at the end %.3f (the most "
                   "candidate pairs of a rank over the mean); grid M %u\n",
                   rebalance_every, rebalance_imbalance, res.recuts, (double)res.recut_bytes, res.imbalance,
                   res.grid_fine);
        else if (rebalance_imbalance > 0)
            printf("balance: boxes cut by the work per cell at the start (--rebalance 0), cut anew %u times (a new "
                   "grid); imbalance at the end %.3f (the most candidate pairs of a rank over the mean); grid M %u\n",
                   res.recuts, res.imbalance, res.grid_fine);
        else
            printf("balance: even boxes (--rebalance off), cut anew %u times (a new grid); imbalance at the end %.3f "
                   "(the most candidate pairs of a rank over the mean); grid M %u\n",
                   res.recuts, res.imbalance, res.grid_fine);
        if (gpu)
            printf("gpu: every rank steps its own and halo agents on its GPU (uploaded and read back each step); "
                   "rank 0 opened %u GPU engine%s\n",
                   res.gpu_opened, res.gpu_opened == 1 ? "" : "s (its agents outgrew the first)");
        if (res.boxes && decompose_ranks <= 64) // the boxes where the run ended (tools/plot_decompose.py draws them)
            for (int q = 0; q < decompose_ranks; q++) {
                const uint32_t *b = res.boxes[q];
                printf("box %d: cells x %u..%u y %u..%u z %u..%u of %ux%ux%u; world x %.6g..%.6g y %.6g..%.6g z "
                       "%.6g..%.6g\n",
                       q, b[0], b[1], b[2], b[3], b[4], b[5], res.cells[0], res.cells[1], res.cells[2],
                       w->min[0] + b[0] * (double)w->size[0] / res.cells[0],
                       w->min[0] + b[1] * (double)w->size[0] / res.cells[0],
                       w->min[1] + b[2] * (double)w->size[1] / res.cells[1],
                       w->min[1] + b[3] * (double)w->size[1] / res.cells[1],
                       w->min[2] + b[4] * (double)w->size[2] / res.cells[2],
                       w->min[2] + b[5] * (double)w->size[2] / res.cells[2]);
            }
        if (res.strays)
            printf("strays: in %u steps an agent went beyond the neighbouring boxes (faster than the halo's reach "
                   "per step); every agent then went to its owner over all ranks\n",
                   res.strays);
        printf("pairs (last step): candidates %llu, within radius %llu\n",
               (unsigned long long)res.stats.candidate_pairs, (unsigned long long)res.stats.neighbor_pairs);
        print_stats("final: ", &res.stats, res.ms_per_step);
        if (o->export_csv)
            printf("exported: %s (%u agents)\n", o->export_csv, n);
        if (o->save)
            printf("saved: %s (step %llu)\n", o->save, (unsigned long long)(boids_engine_steps(e)));
    }
    printf("state-hash: %016llx\n", (unsigned long long)res.hash);
    fflush(stdout);
    free(res.boxes);
    return res.interrupted ? 128 + res.interrupted : 0;
}
#endif

// Runs the simulation described by the options (from --load, --init or the
// flags); returns the exit status (128 + the signal when interrupted).
static int run(const boids_options *o) {
    uint32_t count = o->count;
    float(*pos)[4] = NULL, (*vel)[4] = NULL;
    uint32_t *group = NULL;
    boids_engine *e = NULL;
    double *samples = NULL;
    run_outputs out = {.saved_step = -1};
    char rec_err[512];
    int rc = 0;
    bool gpu = strcmp(o->backend, "gpu") == 0;
    if (boids_cli_check_kernel(PROG, o, gpu))
        return 2;
#ifdef BOIDS_HAVE_MPI
    if (decompose_arg && (rc = decompose_flags(o)))
        return rc;
#endif
    boids_cli_catch_interrupts(); // an interrupted run finishes its step and still writes its outputs
    if (gpu) {                    // a bad BOIDS_FAULT is a bad argument, with or without GL
        char err[256];
        if (boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "%s: %s\n", PROG, err);
            rc = EXIT_INPUT;
            goto done;
        }
    }
    if (o->load) {
        if ((rc = load_snapshot(o, &e)))
            goto done;
        count = boids_engine_count(e);
    } else if (o->init_csv) {
        if ((rc = load_init(o, &count, &pos, &vel, &group)))
            goto done;
    } else if (!o->count_set) {
        boids_cli_error(PROG, "--count", NULL, "--count N (1..16777216) or --init FILE.csv", "is required");
        rc = EXIT_INPUT;
        goto done;
    }
    // Decomposed: rank 0 alone writes, and checks them before the ranks agree (run_decomposed).
    if (!decompose_arg && (rc = check_outputs(o)))
        goto done;
    bool bodies =
        e ? boids_params_joint_rows(boids_engine_params(e)) > 0 : o->body_style_set && o->body_style != BOIDS_BODY_NONE;
    if (o->profile && (rc = boids_profile_open(&out.profile, PROG, o->profile, o->backend,
                                               BOIDS_PROFILE_SIM_STAGES | (bodies ? 1u << BOIDS_PROFILE_BODIES : 0u))))
        goto done;

    if (!e && (rc = create_engine(o, count, pos, vel, group, &e))) {
        rc = rc < 0 ? 0 : rc;
        goto done;
    }
#ifdef BOIDS_HAVE_MPI
    if (decompose_arg) {
        rc = run_decomposed(o, e);
        goto done;
    }
#endif
    if (gpu && o->index != BOIDS_INDEX_GRID) {
        boids_cli_error(PROG, "--index", o->index == BOIDS_INDEX_QUADTREE ? "quadtree" : "brute",
                        "grid with --backend gpu (the other indexes are the CPU reference's)",
                        "is not available on the GPU");
        rc = EXIT_INPUT;
        goto done;
    }
    if (gpu && o->update != BOIDS_UPDATE_PARALLEL) {
        boids_cli_error(PROG, "--update", "sequential",
                        "parallel with --backend gpu (sequential is the CPU reference's, as the chapter's sketch)",
                        "is not available on the GPU");
        rc = EXIT_INPUT;
        goto done;
    }
    if (gpu && (rc = open_gpu(o, &e)))
        goto done;

    const boids_params *p = boids_engine_params(e);
    const boids_world_params *w = &p->world;
    if (!o->quiet) {
        char behaviors[400], world[96], origin[96], threads[32];
        boids_behaviors_text(p->group[0].behaviors, ",", behaviors, sizeof behaviors);
        if (w->dim == 3) {
            snprintf(world, sizeof world, "%gx%gx%g", (double)w->size[0], (double)w->size[1], (double)w->size[2]);
            snprintf(origin, sizeof origin, "%g,%g,%g", (double)w->min[0], (double)w->min[1], (double)w->min[2]);
        } else {
            snprintf(world, sizeof world, "%gx%g", (double)w->size[0], (double)w->size[1]);
            snprintf(origin, sizeof origin, "%g,%g", (double)w->min[0], (double)w->min[1]);
        }
        if (o->threads > 0)
            snprintf(threads, sizeof threads, "%d", o->threads);
        else
            snprintf(threads, sizeof threads, "default");
        const char *from = o->load ? o->load : o->init_csv;
        printf("boids-run %s: %u agents, %uD, world %s at %s, boundary %s, behaviors %s, seed %llu, steps %llu, "
               "threads %s, backend %s%s%s\n",
               BOIDS_VERSION, count, w->dim, world, origin,
               w->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[w->boundary] : "?", behaviors,
               (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), (unsigned long long)o->steps, threads,
               o->backend, from ? ", from " : "", from ? from : "");
        fflush(stdout);
    }

    bool faulted = false;
    if (o->record) { // the initial state as the first frame (a fault on its read-back: no frame)
        boids_result r = boids_engine_record_open(e, o->record, o->record_every, rec_err, sizeof rec_err);
        faulted = r != BOIDS_OK && boids_engine_check(e, NULL, 0) != BOIDS_OK;
        if (r != BOIDS_OK && !faulted) {
            fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
            rc = EXIT_ENVIRONMENT;
            goto done;
        }
        out.recording = true;
    }
    uint64_t stride = (o->steps + MAX_TIME_SAMPLES - 1) / MAX_TIME_SAMPLES;
    size_t n_samples = 0;
    samples = malloc((size_t)((o->steps + stride - 1) / stride) * sizeof *samples);
    if (!samples) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory for step timings");
        rc = EXIT_ENVIRONMENT;
        goto done;
    }
    boids_stats st;
    bool finite = true;
    double start = now_seconds(), interval_start = start;
    uint64_t interval_steps = 0;
    uint32_t behaviors = 0; // of every group, for the profile
    for (uint32_t gi = 0; gi < p->world.group_count; gi++)
        behaviors |= p->group[gi].behaviors;
    uint64_t steps_done = 0;
    if (!o->quiet) // a terminal's progress line (progress.h); erased before every other line
        boids_progress_start(PROG, o->steps);
    for (uint64_t step = 1; step <= o->steps && !faulted; step++) {
        if (boids_cli_interrupted()) {
            boids_progress_finish();
            fprintf(stderr, "%s: interrupted after %llu steps; writing the outputs\n", PROG,
                    (unsigned long long)steps_done);
            break;
        }
        double t0 = now_seconds();
        uint64_t did = 0;
        boids_result sr = boids_engine_step(e, 1, &did); // the schedule, the step, the fault check, a due frame
        if (did == 0)                                    // a fault in the step
            break;
        faulted = sr != BOIDS_OK && boids_engine_check(e, NULL, 0) != BOIDS_OK; // at the frame's read-back
        bool rec_failed = sr != BOIDS_OK && !faulted;
        boids_stage_ms m;
        if (out.profile) // this step's own timer queries on the GPU (a wait only when profiling)
            boids_engine_stage_ms(e, true, &m);
        double t1 = now_seconds();
        if (out.profile) {
            boids_profile_row row = {.step = step,
                                     .time_ms = t0 * 1e3,
                                     .frame_ms = (t1 - t0) * 1e3,
                                     .stage_ms = {m.key, m.count, m.scan, m.scatter, m.steer, m.integrate, m.bodies},
                                     .agents = count,
                                     .behaviors = behaviors};
            boids_profile_add(out.profile, &row);
            out.profile_rows++;
        }
        if ((step - 1) % stride == 0)
            samples[n_samples++] = (t1 - t0) * 1e3;
        steps_done = step;
        interval_steps++;
        boids_progress_update(step);
        if (step % o->stats_every == 0 || step == o->steps) {
            boids_progress_clear();
            if (boids_engine_stats(e, &st) != BOIDS_OK) // of the GPU state: read back (outside the step)
                break;
            finite = finite && stats_finite(&st);
            if (!o->quiet) {
                print_stats("", &st, (t1 - interval_start) * 1e3 / (double)interval_steps);
                fflush(stdout);
            }
            interval_start = now_seconds();
            interval_steps = 0;
        }
        if (rec_failed) {
            boids_progress_finish();
            fprintf(stderr, "%s: --record: %s\n", PROG, boids_engine_error(e));
            rc = EXIT_ENVIRONMENT;
            goto done;
        }
        if (o->save && o->save_every && step % o->save_every == 0 && step != o->steps && !faulted) {
            if (boids_engine_check(e, NULL, 0) != BOIDS_OK || (rc = run_save(o, e)) < 0) {
                rc = 0;
                break;
            }
            if (rc)
                goto done;
            out.saved_step = (int64_t)boids_engine_steps(e);
        }
    }
    boids_progress_finish();
    // The final state (and any error of the last steps).
    if (boids_engine_stats(e, &st) != BOIDS_OK) {
        rc = run_flush_after_fault(o, e, &out);
        goto done;
    }
    double total = now_seconds() - start;
    if (n_samples == 0) // interrupted before the first step
        samples[n_samples++] = 0.0;
    qsort(samples, n_samples, sizeof *samples, compare_double);
    double median =
        n_samples % 2 ? samples[n_samples / 2] : 0.5 * (samples[n_samples / 2 - 1] + samples[n_samples / 2]);
    if (!finite)
        fprintf(stderr, "%s: warning: some statistics were not finite (nan or inf)\n", PROG);

    if ((rc = run_write_outputs(o, e, &out)))
        goto done;
    if (!o->quiet) {
        boids_stage_ms ms;
        boids_engine_stage_ms(e, false, &ms);
        printf("summary: %llu steps in %.3f s, ms/step median %.4f (min %.4f, max %.4f)\n",
               (unsigned long long)steps_done, total, median, samples[0], samples[n_samples - 1]);
        printf("stages (last step, ms): key %.3f count %.3f scan %.3f scatter %.3f steer %.3f integrate %.3f\n", ms.key,
               ms.count, ms.scan, ms.scatter, ms.steer, ms.integrate);
        printf("pairs (last step): candidates %llu, within radius %llu\n", (unsigned long long)st.candidate_pairs,
               (unsigned long long)st.neighbor_pairs);
        print_stats("final: ", &st, median);
        if (o->export_csv)
            printf("exported: %s (%u agents)\n", o->export_csv, count);
        if (o->save)
            printf("saved: %s (step %llu)\n", o->save, (unsigned long long)boids_engine_steps(e));
    }
    printf("state-hash: %016llx\n", (unsigned long long)boids_engine_hash(e));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        boids_cli_error(PROG, NULL, NULL, NULL, "cannot write the output: %s", strerror(errno));
        rc = EXIT_ENVIRONMENT;
    }
    if (!rc && boids_cli_interrupted())
        rc = 128 + boids_cli_interrupted();
done:
    run_close_record(e, &out); // flushed on every exit
    boids_engine_destroy(e);
    boids_profile_destroy(out.profile);
    free(pos);
    free(vel);
    free(group);
    free(samples);
    return rc;
}

// boids-run: parse, run, exit 0 / 2 / 3.
int main(int argc, char **argv) {
    static const boids_cli_spec spec = {
        .prog = PROG,
        .usage = usage,
        .usage_more = usage_more,
        .usage_notes = usage_notes,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR |
                 BOIDS_CLI_INIT | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_STATS_EVERY | BOIDS_CLI_THREADS | BOIDS_CLI_QUIET |
                 BOIDS_CLI_PROFILE | BOIDS_CLI_INDEX | BOIDS_CLI_UPDATE | BOIDS_CLI_KERNEL | BOIDS_CLI_DUMP_SCENARIO |
                 BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_LOAD | BOIDS_CLI_RECORD | BOIDS_CLI_RECORD_EVERY,
    };
    // --decompose AxB[xC] and --rebalance K[:T] are boids-run's alone: taken out of argv here.
    int m = 1;
    for (int i = 1; i < argc; i++) {
        const char **to = strncmp(argv[i], "--decompose", 11) == 0   ? &decompose_arg
                          : strncmp(argv[i], "--rebalance", 11) == 0 ? &rebalance_arg
                                                                     : NULL;
        const char *flag = to == &decompose_arg ? "--decompose" : "--rebalance", *rest = argv[i] + 11;
        if (!to || (*rest != '\0' && *rest != '=')) {
            argv[m++] = argv[i];
        } else if (*rest == '=') {
            *to = rest + 1;
        } else if (i + 1 >= argc) {
            boids_cli_error(PROG, flag, NULL,
                            to == &decompose_arg ? "AxB or AxBxC (boxes per axis, A*B*C = the ranks)"
                                                 : "K or K:T (steps between checks, imbalance), or off",
                            "needs a value");
            return EXIT_INPUT;
        } else {
            *to = argv[++i];
        }
    }
    argv[m] = NULL;
    argc = m;
    if (rebalance_arg && !decompose_arg) {
        boids_cli_error(PROG, "--rebalance", rebalance_arg, "--decompose AxB[xC] with it",
                        "re-cuts the boxes of a decomposed run; this run has no --decompose");
        return EXIT_INPUT;
    }
    if (!decompose_arg)
        return boids_cli_main(argc, argv, &spec, run);
#ifndef BOIDS_HAVE_MPI
    boids_cli_error(PROG, "--decompose", decompose_arg, "a boids-run built with MPI (libopenmpi-dev, BOIDS_MPI=ON)",
                    "needs MPI, and this boids-run is built without it");
    return EXIT_INPUT;
#else
    // Started by mpirun or alone (one rank, an MPI singleton). Rank 0 alone
    // prints: the other ranks' stdout and stderr are /dev/null (their
    // time-outs and aborts go to their own stderr, decompose_err).
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    decompose_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &decompose_ranks);
    decompose_err = stderr;
    if (rank != 0) {
        int fd = dup(STDERR_FILENO);
        FILE *own = fd >= 0 ? fdopen(fd, "w") : NULL;
        decompose_err = own ? own : stderr;
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            decompose_err = stderr;
    }
    int rc;
    if (!boids_decomp_parse(decompose_arg, decompose_parts)) {
        boids_cli_error(PROG, "--decompose", decompose_arg, "AxB or AxBxC, each 1..4096 (A*B*C = the ranks)",
                        "does not parse");
        rc = EXIT_INPUT;
    } else if (rebalance_arg && !boids_decomp_parse_rebalance(rebalance_arg, &rebalance_every, &rebalance_imbalance)) {
        boids_cli_error(PROG, "--rebalance", rebalance_arg,
                        "K or K:T (K steps between checks, 0..1e9; T >= 1, the most work of a rank over the "
                        "mean), or off",
                        "does not parse");
        rc = EXIT_INPUT;
    } else
        rc = boids_cli_main(argc, argv, &spec, run);
    fflush(stdout);
    MPI_Finalize();
    return rc;
#endif
}
