// src/mpi/decompose_step.c: one step of the decomposed run
// (decompose_private.h): the halo, what only the whole world knows (the
// schedule, the survey, the named agents), the core's stages over own and
// halo agents (or the rank's GPU engine), the halo dropped, the bodies,
// then the statistics, the migration and the ranks' agreement on strays,
// the grid and the balance.
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "decompose_private.h"

// The own cells of the step's grid: the fullest (the statistics' cell-max,
// as one process counts it) and the sum of count^2 (grid_fine auto's
// occupancy).
static void own_cells(const decomp *d, const boids_sim *s, uint32_t *most, uint64_t *sq) {
    *most = 0;
    *sq = 0;
    for (uint32_t z = d->me.lo[2]; z < d->me.hi[2]; z++)
        for (uint32_t y = d->me.lo[1]; y < d->me.hi[1]; y++)
            for (uint32_t x = d->me.lo[0]; x < d->me.hi[0]; x++) {
                size_t c = decomp_cell_index(d->w->cells, x, y, z);
                uint32_t k = s->grid.start[c + 1] - s->grid.start[c];
                *most = k > *most ? k : *most;
                *sq += (uint64_t)k * k;
            }
}

// Whether the steer just run was cut short on any rank (boids_sim.cancel):
// the signal, agreed by all; then every rank undoes the step (no integrate,
// the neighbour outputs zero, as boids_sim_step's cut) and stops.
static int agree_cut(decomp *d, boids_sim *s) {
    int mine = s->cancelled && s->cancel ? (int)*s->cancel : 0, any = 0;
    MPI_Request r;
    MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, d->cart, &r);
    decomp_wait_for(d, &r, "the step's cut");
    if (any)
        boids_sim_forget_neighbors(s);
    return any;
}

static int by_id(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// Before a step: the own agents' ids (slots 0..n) sorted with their slots,
// to be found again by id once the step has sorted the slots (bodies: their
// joints too; the GPU: which slots are own).
static void own_ids(decomp *d, const boids_sim *s) {
    d->by_id = decomp_grow(d, d->by_id, &d->by_id_cap, s->n, sizeof(*d->by_id));
    for (uint32_t i = 0; i < s->n; i++) {
        d->by_id[i][0] = s->cur.id[i];
        d->by_id[i][1] = i;
    }
    qsort(d->by_id, s->n, sizeof(*d->by_id), by_id);
}

static void bodies_before(decomp *d, const boids_sim *s) {
    own_ids(d, s);
    memcpy(d->joints_tmp, d->joints, (size_t)s->n * d->rows * sizeof(float[4]));
}

// Bodies, after the step (own slots 0..n, as many agents as before): each
// agent's joints back by its id, then (follow: a whole step, not one cut
// short) its body follows its head (boids_sim_bodies' stage).
static void bodies_after(decomp *d, boids_sim *s, bool follow) {
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t id = s->cur.id[i];
        const uint32_t(*at)[2] = bsearch(&id, d->by_id, s->n, sizeof(*d->by_id), by_id);
        if (!at)
            decomp_fatal(d, "an agent's joints were lost in the step");
        float(*chain)[4] = d->joints + (size_t)i * d->rows;
        memcpy(chain, d->joints_tmp + (size_t)(*at)[1] * d->rows, d->rows * sizeof(float[4]));
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        if (follow && b->style != BOIDS_BODY_NONE)
            boids_body_follow(&s->p.world, b, s->cur.pos[i], s->cur.vel[i], chain);
    }
}

// The densest block of the whole world's grid: each rank surveys its own
// cells (their blocks lie in its box and halo, so its grid counts them as
// one process's does) and the ranks' answers reduce to the one process's
// first best: the most agents, then the lowest cell, as the largest key
// count << 32 | (UINT32_MAX - cell).
static void survey_world(decomp *d, boids_sim *s, world_view *v) {
    uint32_t count, cell = boids_survey_box(d->w, s->grid.start, d->me.lo, d->me.hi, &count);
    uint64_t key = (uint64_t)count << 32 | (UINT32_MAX - cell), best = 0;
    MPI_Request r;
    MPI_Iallreduce(&key, &best, 1, MPI_UINT64_T, MPI_MAX, d->cart, &r);
    decomp_wait_for(d, &r, "the survey");
    v->survey[0] = UINT32_MAX - (uint32_t)best;
    v->survey[1] = (uint32_t)(best >> 32);
    s->world_survey = v->survey;
}

// The named agents' states at the start of the step (offset and follow's
// leader, interpose's two; the target is no rank's): the rank owning each
// fills its words, the others leave them 0, and a bitwise OR over the ranks
// hands every rank the owner's bits exactly (a float sum would make -0 +0).
// Words per agent: pos, vel, group, found.
static void resolve_named(decomp *d, boids_sim *s, world_view *v) {
    const uint32_t lead = BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW);
    const uint32_t inter = BOIDS_BIT(BOIDS_BI_INTERPOSE);
    uint32_t ids[NAMED_MAX], m = 0;
    for (uint32_t g = 0; g < s->p.world.group_count && g < BOIDS_MAX_GROUPS; g++) {
        const boids_group_params *gp = &s->p.group[g];
        const uint32_t want[3] = {gp->behaviors & lead ? gp->leader : BOIDS_ID_TARGET,
                                  gp->behaviors & inter ? gp->interpose_a : BOIDS_ID_TARGET,
                                  gp->behaviors & inter ? gp->interpose_b : BOIDS_ID_TARGET};
        for (int k = 0; k < 3; k++) {
            bool seen = want[k] == BOIDS_ID_TARGET || want[k] >= s->p.world.count;
            for (uint32_t j = 0; j < m && !seen; j++)
                seen = ids[j] == want[k];
            if (!seen)
                ids[m++] = want[k];
        }
    }
    s->named = v->named; // even with none: cur's ids are the world's, not slots
    s->named_count = m;
    if (m == 0)
        return;
    uint32_t mine[NAMED_MAX][10], all[NAMED_MAX][10];
    memset(mine, 0, sizeof mine);
    for (uint32_t i = 0; i < s->n; i++) {
        if (!s->owned[i])
            continue;
        for (uint32_t k = 0; k < m; k++)
            if (s->cur.id[i] == ids[k]) {
                memcpy(&mine[k][0], s->cur.pos[i], sizeof(float[4]));
                memcpy(&mine[k][4], s->cur.vel[i], sizeof(float[4]));
                mine[k][8] = s->cur.group[i];
                mine[k][9] = 1;
            }
    }
    MPI_Request r;
    MPI_Iallreduce(mine, all, (int)(10 * m), MPI_UINT32_T, MPI_BOR, d->cart, &r);
    decomp_wait_for(d, &r, "the named agents");
    for (uint32_t k = 0; k < m; k++) {
        if (!all[k][9]) {
            char msg[120];
            snprintf(msg, sizeof msg, "named agent %u is on no rank (agents lost)", ids[k]);
            decomp_fatal(d, msg);
        }
        memcpy(v->named[k].pos, &all[k][0], sizeof(float[4]));
        memcpy(v->named[k].vel, &all[k][4], sizeof(float[4]));
        v->named[k].id = ids[k];
        v->named[k].group = all[k][8];
    }
}

// Before a rank's steer, what one process's engine and steer find over the
// whole world: the scenario's schedule at this step (boids_scenario_at_step,
// as the engine applies it before each step), the survey, the named agents.
static void world_inputs(decomp *d, boids_sim *s, const boids_decomp_options *o, world_view *v) {
    if (o->scenario && boids_scenario_is_dynamic(o->scenario))
        boids_scenario_at_step(o->scenario, s->step, &s->p);
    if (boids_params_survey(&s->p))
        survey_world(d, s, v);
    resolve_named(d, s, v);
}

// The GPU backend of this rank: an engine of `capacity` agents (the own
// and halo agents of a step, at most; boids_engine_step_agents steps them)
// on s's parameters; a failure (no GL 4.5) aborts the job, exit 3.
boids_engine *decomp_open_gpu(decomp *d, const boids_sim *s, const boids_decomp_options *o, uint32_t capacity) {
    boids_params q = s->p;
    q.flow.vec = NULL;
    q.flow.dims[3] = 0;
    q.world.count = capacity ? capacity : 1;
    boids_engine_desc desc = {.params = &q,
                              .backend = BOIDS_BACKEND_GPU,
                              .shader_dir = o->shader_dir,
                              .kernel = o->kernel,
                              .quiet = o->quiet_gl};
    boids_engine *e = NULL;
    char err[1024] = "", msg[1200];
    if (boids_engine_create(&e, &desc, err, sizeof err) != BOIDS_OK) {
        snprintf(msg, sizeof msg, "the GPU backend of %u agents: %s", q.world.count, err);
        decomp_fatal(d, msg);
    }
    d->gpu_capacity = q.world.count;
    return e;
}

// What a step does besides stepping, decided at its start.
typedef struct step_plan {
    bool last;     // the run's last step (or an interruption's)
    bool stats;    // its statistics are gathered
    bool fine_due; // grid_fine auto decides the grid after it
    bool check;    // the balance is checked after it
} step_plan;

// The whole step on this rank's GPU: the schedule first (the parameters go
// with the agents), then own and halo stepped there and read back in its
// slot order; the own ones (the first n_own before the halo) found by id.
static void step_gpu(decomp_loop *L, uint32_t n_own, bool outputs) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    uint64_t step = s->step;
    world_inputs(d, s, L->o, &L->view);
    if (s->n > d->gpu_capacity) {
        boids_engine_destroy(L->gpu);
        uint64_t want = (uint64_t)s->n + s->n / 2;
        L->gpu = decomp_open_gpu(d, s, L->o, (uint32_t)(want < L->n ? want : L->n));
        d->gpu_opened++;
    }
    char err[512] = "";
    boids_result r = boids_engine_step_agents(L->gpu, s, outputs, err, sizeof err);
    if (r != BOIDS_OK) {
        char msg[700];
        snprintf(msg, sizeof msg, "the GPU step %llu: %s%s%s", (unsigned long long)step + 1, boids_result_str(r),
                 err[0] ? ": " : "", err);
        decomp_fatal(d, msg);
    }
    s->step = step; // counted by the caller, as the CPU's
    for (uint32_t i = 0; i < s->n; i++)
        d->owned[i] = bsearch(&s->cur.id[i], d->by_id, n_own, sizeof(*d->by_id), by_id) != NULL;
}

// The CPU's grid over own + halo, and which slots are own (their cell in the box).
static void grid_cpu(decomp *d, boids_sim *s) {
    boids_sim_build_grid(s);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t c[3];
        decomp_coords_of(d, s->cur.pos[i], c);
        d->owned[i] = decomp_in_box(&d->me, c);
    }
}

// The CPU's steer and integrate of the own agents (boids_sim.owned), after
// the world's inputs: the signal that cut the steer short on some rank
// (then on every rank, and nothing integrated), or 0.
static int steer_cpu(decomp_loop *L) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    s->owned = d->owned;
    world_inputs(d, s, L->o, &L->view);
    s->cancel = L->o->cancel;
    boids_sim_cut_clock(s); // the halo, grid and survey took part of the step: the steer alone counts
    boids_sim_steer(s);
    int cut = agree_cut(d, s);
    s->cancel = NULL;
    if (!cut)
        boids_sim_integrate(s);
    s->owned = NULL;
    return cut;
}

// Drops the halo: the own agents (and their steer outputs) to the front.
static void drop_halo(decomp *d, boids_sim *s) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (!d->owned[i])
            continue;
        if (kept != i)
            decomp_move_slot(d, s, i, kept);
        kept++;
    }
    s->n = kept;
}

// The step on this rank, from the halo to the halo dropped: the fullest own
// cell and the sum of count^2 of the step's grid when the plan needs them;
// the signal that cut the step short on every rank, or 0.
static int step_local(decomp_loop *L, const step_plan *sp, uint32_t *cell_max, uint64_t *sq) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    uint32_t n_own = s->n;
    if (d->rows)
        bodies_before(d, s);
    else if (L->gpu)
        own_ids(d, s);
    decomp_halo(d, s);
    d->halo_agents += s->n - n_own;
    s->p.world.step = (uint32_t)s->step;
    decomp_grow_slots(d, s->n);
    if (L->gpu)
        step_gpu(L, n_own, sp->stats || sp->fine_due);
    else
        grid_cpu(d, s);
    if (sp->stats || sp->fine_due)
        own_cells(d, s, cell_max, sq);
    int cut = L->gpu ? 0 : steer_cpu(L);
    drop_halo(d, s);
    return cut;
}

// A step cut short on every rank: the state of the last whole step, as a
// plain run's cut step leaves it, gathered for the statistics and outputs.
static void end_cut(decomp_loop *L, const step_plan *sp, int cut, uint32_t cell_max, uint64_t sq) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    if (d->rows)
        bodies_after(d, s, false);
    if (!sp->stats && !sp->fine_due)
        own_cells(d, s, &cell_max, &sq);
    decomp_gather(d, s, L->g, cell_max, &L->out->stats, &L->hash);
    L->out->interrupted = cut;
    L->out->cut = true;
}

// A state that is not finite ends the decomposed run as the one process's
// run ends (exit 3, nothing written): the rank that holds such an agent
// names the one of its smallest id, its group and the group's behaviours.
// (BOIDS_DEBUG nan=ID@STEP plants one first, for the tests.)
static void check_finite(const decomp_loop *L) {
    boids_sim *s = L->s;
    for (uint32_t i = 0; L->nan_step == s->step && !L->gpu && i < s->n; i++)
        if (s->cur.id[i] == L->nan_id)
            s->cur.pos[i][0] = s->cur.vel[i][0] = NAN;
    uint32_t row = boids_first_nonfinite((const float(*)[4])s->cur.pos, (const float(*)[4])s->cur.vel, s->cur.id,
                                         s->n, s->threads);
    if (row == UINT32_MAX)
        return;
    uint32_t g = s->cur.group[row];
    char behaviors[400] = "?", msg[700];
    if (g < BOIDS_MAX_GROUPS)
        boids_behaviors_text(s->p.group[g].behaviors, ", ", behaviors, sizeof behaviors);
    const float *p = s->cur.pos[row], *v = s->cur.vel[row];
    snprintf(msg, sizeof msg,
             "the state is not finite after step %llu: agent %u of group %u (behaviours %s) has position %g,%g,%g "
             "and velocity %g,%g,%g; nothing was written",
             (unsigned long long)s->step, s->cur.id[row], g, behaviors, (double)p[0], (double)p[1], (double)p[2],
             (double)v[0], (double)v[1], (double)v[2]);
    decomp_fatal(L->d, msg);
}

// A whole step done: the rank's work for the balance (its outputs do not
// migrate), the bodies follow, the counter, and the statistics when due.
static void step_done(decomp_loop *L, const step_plan *sp, uint32_t cell_max) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    if (sp->check || sp->last) {
        d->work = 0;
        for (uint32_t i = 0; i < s->n; i++)
            d->work += s->candidates[i];
    }
    if (d->rows)
        bodies_after(d, s, true);
    s->step++;
    check_finite(L);
    L->interval_steps++;
    if (!sp->stats)
        return;
    double t = MPI_Wtime();
    decomp_gather(d, s, L->g, cell_max, &L->out->stats, &L->hash);
    if (d->rank == 0 && L->o->stats)
        L->o->stats(L->o->user, &L->out->stats, (t - L->interval) * 1e3 / (double)L->interval_steps);
    L->interval = MPI_Wtime();
    L->interval_steps = 0;
}

// After a step: the migration, then what only the whole job knows, agreed
// every step: an agent that went beyond the neighbours' boxes (then every
// agent goes to its owner over all ranks), and an interruption (every rank
// then makes the next step its last: its statistics and the outputs are of
// that same step everywhere, as one process's of as many steps); then the
// new grid and the balance when due. Returns the interruption's signal, or 0.
static int step_agree(decomp_loop *L, const step_plan *sp, uint64_t sq) {
    decomp *d = L->d;
    boids_sim *s = L->s;
    uint32_t far = decomp_migrate(d, s);
    int flags[2] = {far > 0, L->o->interrupted ? L->o->interrupted() : 0}, any[2] = {0, 0};
    MPI_Request fr;
    MPI_Iallreduce(flags, any, 2, MPI_INT, MPI_MAX, d->cart, &fr);
    decomp_wait_for(d, &fr, "the step's agreement");
    if (any[0]) {
        decomp_redistribute(d, s);
        d->strays++;
    }
    if (sp->fine_due)
        decomp_auto_grid(d, s, sq, L->n, L->by_counts);
    if (sp->check) {
        d->imbalance = decomp_imbalance(d);
        if (d->imbalance > L->o->imbalance)
            decomp_recut(d, s, true, true);
    }
    return any[1];
}

// See decompose_private.h.
bool decomp_step(decomp_loop *L, uint64_t k) {
    const boids_decomp_options *o = L->o;
    if (L->d->rank == L->kill_rank && k == L->kill_step)
        raise(L->kill_signal);
    step_plan sp = {.last = k == o->steps || L->stopping};
    sp.stats = k % o->stats_every == 0 || sp.last;
    sp.fine_due = L->fine_auto && (L->s->step + 1) % BOIDS_ENGINE_FINE_EVERY == 0;
    sp.check = L->by_counts && o->rebalance_every && k % o->rebalance_every == 0 && !sp.last;
    uint32_t cell_max = 0;
    uint64_t sq = 0;
    int cut = step_local(L, &sp, &cell_max, &sq);
    if (cut) {
        end_cut(L, &sp, cut, cell_max, sq);
        return false;
    }
    step_done(L, &sp, cell_max);
    int signal = step_agree(L, &sp, sq);
    L->done_steps = k;
    if (L->stopping)
        return false;
    if (signal)
        L->stopping = L->out->interrupted = signal;
    return true;
}
