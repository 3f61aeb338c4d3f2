/* src/app/run_decompose.c: boids-run --decompose (run_decompose.h): MPI
 * started and the ranks' output arranged, the flags checked, then the run
 * of boids_decomp_run (src/mpi/decompose_mpi.h) with boids-run's statistics
 * lines, summary, outputs (rank 0) and state-hash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boids/parse.h"
#include "decompose_mpi.h"
#include "run_decompose.h"
#include "run_outputs.h"

static FILE *decompose_err; // every rank's own stderr (rank > 0's stderr is /dev/null)
static uint32_t decompose_parts[3];
static int decompose_ranks, decompose_rank;
static uint32_t rebalance_every = BOIDS_DECOMP_REBALANCE_DEFAULT;
static double rebalance_imbalance = BOIDS_DECOMP_IMBALANCE_DEFAULT;

// See run_decompose.h.
int decompose_check(const boids_options *o) {
    if (!boids_decomp_parse(o->decompose, decompose_parts)) {
        boids_cli_error(PROG, "--decompose", o->decompose, "AxB or AxBxC, each 1..4096 (A*B*C = the ranks)",
                        "does not parse");
        return EXIT_INPUT;
    }
    if (o->rebalance && !boids_decomp_parse_rebalance(o->rebalance, &rebalance_every, &rebalance_imbalance)) {
        boids_cli_error(PROG, "--rebalance", o->rebalance,
                        "K or K:T (K steps between checks, 0..1e9; T >= 1, the most work of a rank over the "
                        "mean), or off",
                        "does not parse");
        return EXIT_INPUT;
    }
    const char *what = o->index != BOIDS_INDEX_GRID         ? "--index quadtree|brute (the grid only)"
                       : o->update != BOIDS_UPDATE_PARALLEL ? "--update sequential (every pair, in id order)"
                       : o->save_every                      ? "--save-every (the state is gathered at the end only)"
                       : o->record                          ? "--record"
                       : o->profile                         ? "--profile"
                                                            : NULL;
    if (!what)
        return 0;
    boids_cli_error(PROG, "--decompose", o->decompose, "a run without it, or without that flag",
                    "cannot be used with %s", what);
    return EXIT_INPUT;
}

// What the decomposed run's callbacks share: the options, rank 0's engine
// and the outcome of the final writes (0, or 3 with its line printed).
typedef struct decompose_state {
    const boids_options *o;
    boids_engine *e;
    int rc;
} decompose_state;

static void decompose_stats(void *user, const boids_stats *st, double ms) {
    const boids_options *o = ((decompose_state *)user)->o;
    if (!o->quiet) {
        run_print_stats("", st, ms);
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
    decompose_state *run = user;
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

// The checks of the run on every rank (the GPU's refusals, the boxes, and
// rank 0's output paths), then the ranks' agreement on them: the worst
// status, 0 when every rank may go on.
static int agree_checks(const boids_options *o, const boids_params *p, bool gpu) {
    char err[512] = "";
    int rc = 0;
    const char *refused = gpu ? boids_decomp_gpu_refusal(p) : NULL;
    if (refused) {
        boids_cli_error(PROG, "--decompose", o->decompose, "the CPU backend, or a run without that behaviour",
                        "cannot split a run with %s on the GPU backend", refused);
        rc = EXIT_INPUT;
    } else if ((rc = boids_decomp_check(p, decompose_parts, decompose_ranks, err, sizeof err))) {
        fprintf(stderr, "%s: %s\n", PROG, err);
    } else if (decompose_rank == 0)
        rc = run_check_outputs(o);
    return boids_decomp_agree(rc, o->timeout_set ? (double)o->timeout : 120.0, decompose_err);
}

// The initial state in id order, and the bodies' joints as the engine has
// them (laid straight, or a snapshot's; NULL without bodies). Out of memory
// aborts the job: the other ranks are on their way to the first exchange.
typedef struct initial_state {
    float (*pos)[4], (*vel)[4], (*joints)[4];
    uint32_t *group;
} initial_state;

static void free_initial(initial_state *in) {
    free(in->pos);
    free(in->vel);
    free(in->group);
    free(in->joints);
}

static int read_initial(boids_engine *e, initial_state *in) {
    uint32_t n = boids_engine_count(e), rows = boids_params_joint_rows(boids_engine_params(e));
    in->pos = malloc((size_t)(n ? n : 1) * sizeof *in->pos);
    in->vel = malloc((size_t)(n ? n : 1) * sizeof *in->vel);
    in->group = malloc((size_t)(n ? n : 1) * sizeof *in->group);
    in->joints = rows ? malloc((size_t)rows * (n ? n : 1) * sizeof *in->joints) : NULL;
    if (!in->pos || !in->vel || !in->group || (rows && !in->joints) ||
        boids_engine_read(e, in->pos, in->vel, in->group) != BOIDS_OK ||
        (rows && boids_engine_read_joints(e, in->joints, (size_t)rows * n * sizeof *in->joints) != BOIDS_OK)) {
        free_initial(in);
        fprintf(decompose_err, "%s: --decompose: out of memory for the initial state\n", PROG);
        boids_decomp_abort(EXIT_ENVIRONMENT);
        return EXIT_ENVIRONMENT;
    }
    return 0;
}

// The first line of the run, as a plain run's with the boxes and ranks.
static void print_header(const boids_options *o, const boids_world_params *w, uint32_t n, bool gpu, const char *parts) {
    printf("boids-run %s: %u agents, %uD, boundary %s, seed %llu, steps %llu, backend %s, decomposed %s "
           "over %d ranks (grid %ux%ux%u cells)\n",
           BOIDS_VERSION, n, w->dim,
           w->boundary <= BOIDS_BOUNDARY_MARGIN ? boids_parse_boundary_names[w->boundary] : "?",
           (unsigned long long)((uint64_t)w->seed_hi << 32 | w->seed_lo), (unsigned long long)o->steps,
           gpu ? "gpu (on every rank)" : "cpu", parts, decompose_ranks, w->cells[0], w->cells[1],
           w->dim == 3 ? w->cells[2] : 1u);
    fflush(stdout);
}

// The summary's balance line: how the boxes were cut, and anew.
static void print_balance(const boids_decomp_result *res) {
    if (rebalance_imbalance > 0 && rebalance_every)
        printf("balance: boxes cut by the work per cell, checked every %u steps (threshold %.2f); cut anew %u "
               "times (%.0f bytes sent by the re-cuts and strays); imbalance at the end %.3f (the most "
               "candidate pairs of a rank over the mean); grid M %u\n",
               rebalance_every, rebalance_imbalance, res->recuts, (double)res->recut_bytes, res->imbalance,
               res->grid_fine);
    else if (rebalance_imbalance > 0)
        printf("balance: boxes cut by the work per cell at the start (--rebalance 0), cut anew %u times (a new "
               "grid); imbalance at the end %.3f (the most candidate pairs of a rank over the mean); grid M %u\n",
               res->recuts, res->imbalance, res->grid_fine);
    else
        printf("balance: even boxes (--rebalance off), cut anew %u times (a new grid); imbalance at the end %.3f "
               "(the most candidate pairs of a rank over the mean); grid M %u\n",
               res->recuts, res->imbalance, res->grid_fine);
}

// The boxes where the run ended, for up to 64 ranks (tools/plot_decompose.py draws them).
static void print_boxes(const boids_world_params *w, const boids_decomp_result *res) {
    if (!res->boxes || decompose_ranks > 64)
        return;
    for (int q = 0; q < decompose_ranks; q++) {
        const uint32_t *b = res->boxes[q];
        printf("box %d: cells x %u..%u y %u..%u z %u..%u of %ux%ux%u; world x %.6g..%.6g y %.6g..%.6g z "
               "%.6g..%.6g\n",
               q, b[0], b[1], b[2], b[3], b[4], b[5], res->cells[0], res->cells[1], res->cells[2],
               w->min[0] + b[0] * (double)w->size[0] / res->cells[0],
               w->min[0] + b[1] * (double)w->size[0] / res->cells[0],
               w->min[1] + b[2] * (double)w->size[1] / res->cells[1],
               w->min[1] + b[3] * (double)w->size[1] / res->cells[1],
               w->min[2] + b[4] * (double)w->size[2] / res->cells[2],
               w->min[2] + b[5] * (double)w->size[2] / res->cells[2]);
    }
}

// Rank 0's summary after the run (without --quiet): the steps, the
// exchange, the balance, the GPU, the boxes, strays, pairs, the final
// statistics and the outputs written.
static void print_summary(const boids_options *o, boids_engine *e, const boids_decomp_result *res, uint32_t n, bool gpu,
                          const char *parts) {
    printf("summary: %llu steps, ms/step mean %.4f (decomposed %s over %d ranks)\n", (unsigned long long)res->steps,
           res->ms_per_step, parts, decompose_ranks);
    printf("exchange (per step per rank; bytes the most of any rank): halo agents %.1f, halo bytes %.0f, "
           "migration bytes %.0f; agents migrated %llu in all; waiting %.1f%% of the run (the most of any rank)\n",
           res->halo_agents, res->halo_bytes, res->migrate_bytes, (unsigned long long)res->migrated,
           100.0 * res->wait_share);
    print_balance(res);
    if (gpu)
        printf("gpu: every rank steps its own and halo agents on its GPU (uploaded and read back each step); "
               "rank 0 opened %u GPU engine%s\n",
               res->gpu_opened, res->gpu_opened == 1 ? "" : "s (its agents outgrew the first)");
    print_boxes(&boids_engine_params(e)->world, res);
    if (res->strays)
        printf("strays: in %u steps an agent went beyond the neighbouring boxes (faster than the halo's reach "
               "per step); every agent then went to its owner over all ranks\n",
               res->strays);
    printf("pairs (last step): candidates %llu, within radius %llu\n", (unsigned long long)res->stats.candidate_pairs,
           (unsigned long long)res->stats.neighbor_pairs);
    run_print_stats("final: ", &res->stats, res->ms_per_step);
    if (o->export_csv)
        printf("exported: %s (%u agents)\n", o->export_csv, n);
    if (o->save)
        printf("saved: %s (step %llu)\n", o->save, (unsigned long long)(boids_engine_steps(e)));
}

// See run_decompose.h.
int decompose_run(const boids_options *o, boids_engine *e) {
    const boids_params *p = boids_engine_params(e);
    bool gpu = strcmp(o->backend, "gpu") == 0;
    int rc = agree_checks(o, p, gpu);
    initial_state in = {0};
    if (rc || (rc = read_initial(e, &in)))
        return rc;
    uint32_t n = boids_engine_count(e);
    char parts[48];
    if (p->world.dim == 3)
        snprintf(parts, sizeof parts, "%ux%ux%u", decompose_parts[0], decompose_parts[1], decompose_parts[2]);
    else
        snprintf(parts, sizeof parts, "%ux%u", decompose_parts[0], decompose_parts[1]);
    if (!o->quiet)
        print_header(o, &p->world, n, gpu, parts);
    decompose_state dr = {.o = o, .e = e};
    boids_decomp_options d = {.steps = o->steps,
                              .stats_every = o->stats_every ? o->stats_every : 1,
                              .rebalance_every = rebalance_every,
                              .imbalance = rebalance_imbalance,
                              .interrupted = boids_cli_interrupted,
                              .cancel = boids_cli_interrupt_flag(),
                              .joints = (const float(*)[4])in.joints,
                              .gpu = gpu,
                              .shader_dir = o->shader_dir,
                              .kernel = (boids_kernel)o->kernel,
                              .quiet_gl = true,
                              .threads = o->threads,
                              .timeout_s = o->timeout_set ? (double)o->timeout : 0.0, // 0: 120 s
                              .err = decompose_err,
                              .scenario = boids_engine_scenario(e),
                              .stats = decompose_stats,
                              .final = o->export_csv || o->save ? decompose_final : NULL,
                              .user = &dr};
    memcpy(d.parts, decompose_parts, sizeof d.parts);
    boids_decomp_result res;
    rc = boids_decomp_run(p, boids_engine_steps(e), n, (const float(*)[4])in.pos, (const float(*)[4])in.vel, in.group,
                          &d, &res);
    free_initial(&in);
    if (rc || dr.rc)
        free(res.boxes);
    if (rc) {
        boids_cli_error(PROG, NULL, NULL, NULL, "--decompose: out of memory");
        return rc;
    }
    if (dr.rc) // a final write failed (its line printed): no summary, no state-hash, as a plain run
        return dr.rc;
    if (res.interrupted)
        fprintf(stderr, "%s: interrupted after %llu steps (every rank after the same step%s); outputs written\n", PROG,
                (unsigned long long)res.steps,
                res.cut ? "; the next one was cut short: the neighbour figures are zero" : "");
    if (!o->quiet)
        print_summary(o, e, &res, n, gpu, parts);
    printf("state-hash: %016llx\n", (unsigned long long)res.hash);
    fflush(stdout);
    free(res.boxes);
    return res.interrupted ? 128 + res.interrupted : 0;
}

// See run_decompose.h. Rank 0 alone prints: the other ranks' stdout and
// stderr are /dev/null (their time-outs and aborts go to their own stderr,
// decompose_err).
int decompose_main(int argc, char **argv, const boids_cli_spec *spec, int (*run)(const boids_options *o)) {
    boids_decomp_init(&argc, &argv, &decompose_rank, &decompose_ranks);
    decompose_err = stderr;
    if (decompose_rank != 0) {
        int fd = dup(STDERR_FILENO);
        FILE *own = fd >= 0 ? fdopen(fd, "w") : NULL;
        decompose_err = own ? own : stderr;
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            decompose_err = stderr;
    }
    int rc = boids_cli_main(argc, argv, spec, run);
    fflush(stdout);
    boids_decomp_finalize();
    return rc;
}
