// tests/test_sim.c: the CPU simulation as a whole (src/core/sim.c, steer.c,
// stats.c, params.c): determinism (DESIGN.md "Determinism and parity"),
// independence of the slot order, long-run invariants of every behaviour,
// statistics and parameter validation.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_run.h"
#include "layouts.h"
#include "boids/behaviors.h"
#include "boids/core.h"
#include "boids/quadtree.h"

// ck_assert_msg records the location of every check that passes (in fork
// mode a write to the runner), which costs more than the simulation inside
// hot loops; EXPECT calls into Check only when the condition fails.
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

// ---- helpers -------------------------------------------------------------------

static void steps(boids_sim *s, int n) {
    for (int k = 0; k < n; k++)
        boids_sim_step(s);
}

// Three groups: 0 and 1 flock together, both flee group 2; group 2 hunts
// groups 0 and 1 and ignores itself; different speeds and forces.
static void three_groups(boids_params *p) {
    p->world.group_count = 3;
    for (uint32_t g = 0; g < 3; g++)
        p->group[g].relations = 0;
    p->group[0].relations = BOIDS_REL_FLEE << (2 * 2);
    p->group[1].relations = BOIDS_REL_FLEE << (2 * 2);
    p->group[2].relations = (BOIDS_REL_PURSUE << 0) | (BOIDS_REL_PURSUE << 2) | (BOIDS_REL_IGNORE << 4);
    p->group[1].maxspeed = 2.5f;
    p->group[1].maxforce = 0.08f;
    p->group[2].maxspeed = 3.5f;
    p->group[2].radius = 60.0f;
}

static const uint32_t ALL_BEHAVIORS = (1u << BOIDS_BEHAVIOR_COUNT) - 1u;

// Every behaviour on, several groups, wander, a turn limit.
static void busy_params(boids_params *p, uint32_t n, uint32_t dim, uint32_t seed) {
    boids_params_default(p, n, dim);
    p->world.seed_lo = seed;
    p->world.seed_hi = seed ^ 0x5a5a5a5au;
    three_groups(p);
    for (uint32_t g = 0; g < 3; g++)
        p->group[g].behaviors = ALL_BEHAVIORS;
    p->group[0].max_turn = 0.2f;
    p->group[1].fov_cos = -0.5f; // 240-degree field of view
}

// ---- determinism -------------------------------------------------------------------

START_TEST(same_seed_same_hash) {
    const uint32_t counts[] = {0, 1, BOIDS_WORKGROUP_SIZE - 1, BOIDS_WORKGROUP_SIZE + 1, 3000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        for (uint32_t dim = 2; dim <= 3; dim++)
            for (uint32_t seed = 1; seed <= 3; seed++) {
                boids_params p;
                busy_params(&p, counts[c], dim, seed);
                boids_sim *a = create(&p, BOIDS_DIST_UNIFORM), *b = create(&p, BOIDS_DIST_UNIFORM);
                uint64_t h0 = boids_sim_hash(a);
                EXPECT(h0 == boids_sim_hash(b), "N %u %uD seed %u: two creations differ", counts[c], dim, seed);
                int n = counts[c] > 1000 ? 10 : 30;
                steps(a, n);
                steps(b, n);
                EXPECT(boids_sim_hash(a) == boids_sim_hash(b),
                       "N %u %uD seed %u: same seed, %d steps: hashes differ (expected bitwise identical)", counts[c],
                       dim, seed, n);
                if (counts[c] > 0)
                    EXPECT(boids_sim_hash(a) != h0, "N %u: the state must change over %d steps", counts[c], n);
                boids_sim_destroy(a);
                boids_sim_destroy(b);
            }
}
END_TEST

START_TEST(different_seeds_differ) {
    const uint32_t counts[] = {1, 2, BOIDS_WORKGROUP_SIZE + 1, 2000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        for (uint32_t dist = 0; dist < 2; dist++) {
            uint64_t h[4];
            for (uint32_t k = 0; k < 4; k++) {
                boids_params p;
                boids_params_default(&p, counts[c], 2);
                p.world.seed_lo = k < 3 ? 10 + k : 10; // k = 3: same seed_lo as k = 0, other seed_hi
                p.world.seed_hi = k == 3 ? 1 : 0;
                boids_sim *s = create(&p, (boids_distribution)dist);
                steps(s, 3);
                h[k] = boids_sim_hash(s);
                boids_sim_destroy(s);
            }
            for (uint32_t i = 0; i < 4; i++)
                for (uint32_t j = i + 1; j < 4; j++)
                    EXPECT(h[i] != h[j], "N %u dist %u: seeds %u and %u gave the same hash", counts[c], dist, i, j);
        }
}
END_TEST

static void thread_case(boids_params *p, boids_distribution dist, int nsteps, int threads_c, const char *name) {
    boids_sim *a = create(p, dist), *b = create(p, dist), *c = create(p, dist);
    a->threads = 1;
    b->threads = 2;
    c->threads = threads_c;
    for (int k = 0; k < nsteps; k++) {
        boids_sim_step(a);
        boids_sim_step(b);
        boids_sim_step(c);
    }
    uint64_t ha = boids_sim_hash(a);
    EXPECT(ha == boids_sim_hash(b) && ha == boids_sim_hash(c),
           "%s: threads 1 / 2 / %d after %d steps: hashes %016llx %016llx %016llx (expected identical)", name,
           threads_c, nsteps, (unsigned long long)ha, (unsigned long long)boids_sim_hash(b),
           (unsigned long long)boids_sim_hash(c));
    boids_stats sa, sb;
    boids_sim_stats(a, &sa);
    boids_sim_stats(b, &sb);
    EXPECT(sa.polarisation == sb.polarisation && sa.mean_neighbors == sb.mean_neighbors &&
               sa.candidate_pairs == sb.candidate_pairs && sa.mean_nearest == sb.mean_nearest,
           "%s: statistics depend on the thread count", name);
    boids_sim_destroy(a);
    boids_sim_destroy(b);
    boids_sim_destroy(c);
}

START_TEST(threads_same_hash) {
    // More agents than one OpenMP chunk of the steer stage (512) so the
    // threads really split the work; the third sim uses the runtime default
    // (0) or an odd team (3).
    boids_params p;
    boids_params_default(&p, 1500, 2);
    thread_case(&p, BOIDS_DIST_UNIFORM, 50, 0, "flocking");
    busy_params(&p, 1500, 2, 9);
    thread_case(&p, BOIDS_DIST_CLUSTERED, 50, 3, "all behaviours, 3 groups, wander");
    p.world.combine = BOIDS_COMBINE_PRIORITY;
    thread_case(&p, BOIDS_DIST_UNIFORM, 50, 0, "priority combination");
    busy_params(&p, 1200, 3, 4);
    p.world.boundary = BOIDS_BOUNDARY_BOUNCE;
    thread_case(&p, BOIDS_DIST_UNIFORM, 30, 3, "3D bounce, all behaviours");
}
END_TEST

// ---- slot-order independence ------------------------------------------------------

static void swap_slots(boids_sim *s, uint32_t i, uint32_t j) {
    float t[4];
    memcpy(t, s->cur.pos[i], sizeof(t));
    memcpy(s->cur.pos[i], s->cur.pos[j], sizeof(t));
    memcpy(s->cur.pos[j], t, sizeof(t));
    memcpy(t, s->cur.vel[i], sizeof(t));
    memcpy(s->cur.vel[i], s->cur.vel[j], sizeof(t));
    memcpy(s->cur.vel[j], t, sizeof(t));
    uint32_t u = s->cur.id[i];
    s->cur.id[i] = s->cur.id[j];
    s->cur.id[j] = u;
    u = s->cur.group[i];
    s->cur.group[i] = s->cur.group[j];
    s->cur.group[j] = u;
}

// Permute the agents inside every cell (reversal, or a shuffle): the grid
// (count, start) stays valid; only the order within cells changes, as it
// does between GPU runs (atomic slot order).
static void permute_within_cells(boids_sim *s, uint32_t seed) {
    uint32_t st = seed;
    for (uint32_t c = 0; c < s->grid.cells; c++) {
        uint32_t a = s->grid.start[c], b = s->grid.start[c + 1];
        if (b - a < 2)
            continue;
        if (seed == 0) {
            for (uint32_t i = a, j = b - 1; i < j; i++, j--)
                swap_slots(s, i, j);
        } else {
            for (uint32_t i = b - 1; i > a; i--) {
                st = st * 1664525u + 1013904223u;
                uint32_t j = a + (st >> 8) % (i - a + 1);
                swap_slots(s, i, j);
            }
        }
    }
}

static void order_case(boids_params *p, boids_distribution dist, uint32_t seed, const char *name) {
    boids_sim *a = create(p, dist), *b = create(p, dist);
    permute_within_cells(b, seed);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < a->n; i++)
        moved += a->cur.id[i] != b->cur.id[i];
    EXPECT(a->n < 100 || moved > a->n / 4, "%s: the permutation should move many agents (moved %u of %u)", name, moved,
           a->n);
    for (int step = 0; step < 12; step++) {
        boids_sim_steer(a);
        boids_sim_steer(b);
        const uint32_t *sa = boids_sim_slots_by_id(a);
        const uint32_t *sb = boids_sim_slots_by_id(b);
        for (uint32_t id = 0; id < a->n; id++) {
            uint32_t i = sa[id], j = sb[id];
            EXPECT(memcmp(a->accel[i], b->accel[j], sizeof(float[3])) == 0,
                   "%s step %d: id %u steers (%.9g, %.9g, %.9g) in one slot order and (%.9g, %.9g, %.9g) in "
                   "another (expected identical bits: order-independent sums)",
                   name, step, id, (double)a->accel[i][0], (double)a->accel[i][1], (double)a->accel[i][2],
                   (double)b->accel[j][0], (double)b->accel[j][1], (double)b->accel[j][2]);
            EXPECT(a->neighbors[i] == b->neighbors[j] && a->nearest[i] == b->nearest[j],
                   "%s: neighbour statistics of id %u depend on the slot order", name, id);
            EXPECT(a->next.pos[i][3] == b->next.pos[j][3] && a->next.vel[i][3] == b->next.vel[j][3],
                   "%s: wander angles of id %u depend on the slot order", name, id);
        }
        boids_sim_integrate(a);
        boids_sim_integrate(b);
        EXPECT(boids_sim_hash(a) == boids_sim_hash(b), "%s step %d: states differ by id", name, step);
        // Rebuild the grids and permute again: the within-cell orders keep differing.
        a->p.world.step = b->p.world.step = (uint32_t)(step + 1);
        boids_sim_build_grid(a);
        boids_sim_build_grid(b);
        permute_within_cells(b, seed + (uint32_t)step + 1);
    }
    boids_sim_destroy(a);
    boids_sim_destroy(b);
}

START_TEST(slot_order_independence) {
    boids_params p;
    boids_params_default(&p, 2500, 2);
    order_case(&p, BOIDS_DIST_CLUSTERED, 0, "flocking, reversed cells");
    busy_params(&p, 2500, 2, 3);
    order_case(&p, BOIDS_DIST_CLUSTERED, 11, "all behaviours, shuffled cells");
    p.world.combine = BOIDS_COMBINE_PRIORITY;
    order_case(&p, BOIDS_DIST_UNIFORM, 12, "priority, shuffled cells");
    busy_params(&p, 1500, 3, 5);
    order_case(&p, BOIDS_DIST_CLUSTERED, 0, "3D all behaviours, reversed cells");
}
END_TEST

// An independent O(N^2) flocking force in double precision (the chapter's
// separate / align / cohere over every other agent, minimum image on a
// torus, optional field of view). Returns false if the agent is too close
// to a decision threshold (|d - radius| or the cone edge within 1e-3, or a
// nearly cancelling sum) for a float implementation to agree bit-closely.
static bool brute_flocking(const boids_sim *s, uint32_t i, double out[3]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[0];
    const float *pi = s->cur.pos[i], *vi = s->cur.vel[i];
    double vmag = sqrt((double)vi[0] * vi[0] + (double)vi[1] * vi[1] + (double)vi[2] * vi[2]);
    double sep[3] = {0, 0, 0}, ali[3] = {0, 0, 0}, coh[3] = {0, 0, 0}, sepw = 0;
    uint32_t ns = 0, nf = 0;
    bool clean = true;
    for (uint32_t j = 0; j < s->n; j++) {
        if (j == i)
            continue;
        double off[3];
        for (int a = 0; a < 3; a++) {
            double d = (double)s->cur.pos[j][a] - pi[a];
            if (w->boundary == BOIDS_BOUNDARY_WRAP && w->size[a] > 0) {
                if (d > 0.5 * w->size[a])
                    d -= w->size[a];
                else if (d < -0.5 * w->size[a])
                    d += w->size[a];
            }
            off[a] = d;
        }
        double d = sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
        if (!(d > 0))
            continue;
        if (fabs(d - g->radius) < 1e-3 || fabs(d - g->separation) < 1e-3)
            clean = false;
        bool visible = true;
        if (g->fov_cos > -1.0f && vmag > 0) {
            double dot = (off[0] * vi[0] + off[1] * vi[1] + off[2] * vi[2]) / vmag;
            if (fabs(dot - g->fov_cos * d) < 1e-3 && d < g->radius)
                clean = false;
            visible = dot >= g->fov_cos * d;
        }
        if (!visible)
            continue;
        if (d < g->separation) {
            for (int a = 0; a < 3; a++)
                sep[a] -= off[a] / d / d;
            sepw += 1 / d;
            ns++;
        }
        if (d < g->radius) {
            for (int a = 0; a < 3; a++) {
                ali[a] += s->cur.vel[j][a];
                coh[a] += off[a];
            }
            nf++;
        }
    }
    double force[3][3] = {{0}};
    double *sums[3] = {sep, ali, coh};
    uint32_t counts[3] = {ns, nf, nf};
    for (int b = 0; b < 3; b++) {
        double *v = sums[b];
        double m = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (counts[b] == 0 || (b == 0 && m == 0))
            continue;
        // Conditioning: a sum much shorter than its terms has an unstable direction.
        double scale = b == 0 ? sepw : (b == 1 ? nf * (double)g->maxspeed : nf * (double)g->radius);
        if (m < 1e-2 * scale)
            clean = false;
        double st[3];
        for (int a = 0; a < 3; a++)
            st[a] = (m > 0 ? v[a] / m * g->maxspeed : 0) - vi[a];
        double sm = sqrt(st[0] * st[0] + st[1] * st[1] + st[2] * st[2]);
        for (int a = 0; a < 3; a++)
            force[b][a] = sm > g->maxforce ? st[a] / sm * g->maxforce : st[a];
    }
    for (int a = 0; a < 3; a++)
        out[a] = 1.5 * force[0][a] + force[1][a] + force[2][a];
    return clean;
}

static void brute_case(boids_params *p, boids_distribution dist, int warm, const char *name) {
    boids_sim *s = create(p, dist);
    steps(s, warm); // some structure: aligned groups, close pairs
    boids_sim_build_grid(s);
    boids_sim_steer(s);
    uint32_t skipped = 0;
    double worst = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        double ref[3];
        if (!brute_flocking(s, i, ref)) {
            skipped++;
            continue;
        }
        for (int a = 0; a < 3; a++) {
            double e = fabs(s->accel[i][a] - ref[a]);
            worst = fmax(worst, e);
            // Forces <= 0.05 each (3.5 x 0.05 summed), float: ~1e-7; 2e-6 leaves room
            // for the fixed-point quantisation and a few ULP of the setMag chain.
            EXPECT(e <= 2e-6, "%s: id %u accel %c = %.9g, O(N^2) double reference %.9g (|diff| %.3g > 2e-6)", name,
                   s->cur.id[i], "xyz"[a], (double)s -> accel[i][a], ref[a], e);
        }
    }
    EXPECT(skipped * 20 <= s->n, "%s: %u of %u agents too close to a threshold to compare (expected < 5%%)", name,
           skipped, s->n);
    (void)worst;
    boids_sim_destroy(s);
}

START_TEST(steer_matches_brute_force) {
    // boids_sim_steer (grid, fixed point, float) against the O(N^2) double
    // computation, by id: the gather misses or double-counts nobody and the
    // sums are the chapter's.
    boids_params p;
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 3; b += 2) {
            boids_params_default(&p, 1200, dim);
            p.world.boundary = b;
            char name[64];
            snprintf(name, sizeof(name), "flocking %uD %s", dim, b ? "bounce" : "wrap");
            brute_case(&p, BOIDS_DIST_UNIFORM, 20, name);
            p.group[0].fov_cos = -0.25f; // a 208-degree field of view
            snprintf(name, sizeof(name), "flocking %uD %s, field of view", dim, b ? "bounce" : "wrap");
            brute_case(&p, BOIDS_DIST_CLUSTERED, 5, name);
        }
}
END_TEST

// ---- long-run invariants ---------------------------------------------------------

typedef struct inv_state {
    uint32_t *group_of_id;
    uint8_t *seen;
} inv_state;

// Finite, inside the world, not faster than maxspeed, ids a permutation of
// 0..N-1 with their groups unchanged, 2D agents on the plane.
static void check_invariants(boids_sim *s, const inv_state *st, const char *name, int step) {
    const boids_world_params *w = &s->p.world;
    memset(st->seen, 0, s->n ? s->n : 1);
    for (uint32_t i = 0; i < s->n; i++) {
        const float *p = s->cur.pos[i], *v = s->cur.vel[i];
        uint32_t id = s->cur.id[i];
        EXPECT(id < s->n && !st->seen[id], "%s step %d: id %u repeated or out of range", name, step, id);
        st->seen[id] = 1;
        EXPECT(s->cur.group[i] == st->group_of_id[id], "%s step %d: id %u changed group", name, step, id);
        for (int a = 0; a < 4; a++)
            EXPECT(isfinite(p[a]) && isfinite(v[a]), "%s step %d: id %u has a non-finite lane %d", name, step, id, a);
        for (uint32_t a = 0; a < w->dim; a++) {
            float lo = w->min[a], hi = w->min[a] + w->size[a];
            if (w->boundary == BOIDS_BOUNDARY_WRAP)
                EXPECT(p[a] >= lo && p[a] < hi, "%s step %d: id %u at %c = %.9g outside [%g, %g)", name, step, id,
                       "xyz"[a], (double)p[a], (double)lo, (double)hi);
            else
                EXPECT(p[a] >= lo && p[a] <= hi, "%s step %d: id %u at %c = %.9g outside [%g, %g]", name, step, id,
                       "xyz"[a], (double)p[a], (double)lo, (double)hi);
        }
        if (w->dim == 2)
            EXPECT(p[2] == w->min[2] && v[2] == 0.0f, "%s step %d: 2D agent id %u left the plane", name, step, id);
        double sp = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        double ms = s->p.group[s->cur.group[i]].maxspeed;
        EXPECT(sp <= ms * (1 + 1e-6), "%s step %d: id %u speed %.9g > maxspeed %g", name, step, id, sp, ms);
        EXPECT(p[3] > -3.1415927f && p[3] <= 3.1415927f, "%s: wander angle %g outside (-pi, pi]", name, (double)p[3]);
    }
}

static void long_run(boids_params *p, boids_distribution dist, int nsteps, const char *name) {
    boids_sim *s = create(p, dist);
    inv_state st = {malloc(sizeof(uint32_t) * (s->n ? s->n : 1)), malloc(s->n ? s->n : 1)};
    EXPECT(st.group_of_id && st.seen, "out of memory");
    for (uint32_t i = 0; i < s->n; i++)
        st.group_of_id[s->cur.id[i]] = s->cur.group[i];
    uint32_t n0 = s->n;
    for (int k = 1; k <= nsteps; k++) {
        boids_sim_step(s);
        EXPECT(s->n == n0 && s->step == (uint64_t)k, "%s: agent count / step counter changed", name);
        check_invariants(s, &st, name, k);
    }
    boids_stats stt;
    boids_sim_stats(s, &stt);
    EXPECT(isfinite(stt.polarisation) && isfinite(stt.mean_speed) && isfinite(stt.mean_nearest),
           "%s: non-finite statistics", name);
    free(st.group_of_id);
    free(st.seen);
    boids_sim_destroy(s);
}

START_TEST(each_behavior_1000_steps) {
    // Every behaviour alone (plus the flocking trio and everything at once),
    // 1000 steps, 300 agents in 3 groups (predators and prey, so escape and
    // hunt have something to do), cycling the boundary modes.
    for (uint32_t b = 0; b <= BOIDS_BEHAVIOR_COUNT + 1; b++) {
        boids_params p;
        boids_params_default(&p, 300, 2);
        p.world.seed_lo = 100 + b;
        p.world.boundary = b % 3;
        three_groups(&p);
        uint32_t bits =
            b < BOIDS_BEHAVIOR_COUNT ? BOIDS_BIT(b) : (b == BOIDS_BEHAVIOR_COUNT ? BOIDS_B_FLOCKING : ALL_BEHAVIORS);
        for (uint32_t g = 0; g < 3; g++)
            p.group[g].behaviors = bits;
        if (b % 2)
            p.group[0].max_turn = 0.15f;
        char name[96];
        snprintf(name, sizeof(name), "2D %s alone, %s",
                 b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : (b == BOIDS_BEHAVIOR_COUNT ? "flocking" : "all"),
                 b % 3 == 0 ? "wrap" : (b % 3 == 1 ? "walls" : "bounce"));
        long_run(&p, b % 4 == 3 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM, 1000, name);
    }
}
END_TEST

START_TEST(named_and_walls_1000_steps) {
    // The behaviours that steer by named agents and by walls, each alone
    // with what it needs (each_behavior_1000_steps runs them with the
    // defaults: the target as the leader, no walls): 300 agents in 3
    // groups, leaders named by id (group 0's own agent, another group's,
    // an id across the shares), each formation, the pairs of interpose (two
    // agents; an agent and the target), and walls (2D segments and lines,
    // 3D planes); every boundary mode; 1000 steps, then 3D.
    const uint32_t beh[4] = {BOIDS_BI_OFFSET, BOIDS_BI_FOLLOW, BOIDS_BI_INTERPOSE, BOIDS_BI_FEELERS};
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t b = 0; b < 4; b++) {
            boids_params p;
            boids_params_default(&p, 300, dim);
            p.world.seed_lo = 900 + 4 * dim + b;
            p.world.boundary = (b + dim) % 3;
            three_groups(&p);
            if (b % 2) { // runs of ids: group 0 is 0..149, 1 is 150..224, 2 is 225..299
                p.group_share[0] = 2.0f;
                p.group_share[1] = p.group_share[2] = 1.0f;
            }
            for (uint32_t g = 0; g < 3; g++) {
                boids_group_params *q = &p.group[g];
                q->behaviors = BOIDS_BIT(beh[b]) | BOIDS_BIT(BOIDS_BI_SEPARATION);
                q->leader = g == 0 ? 3u : (g == 1 ? 0u : 299u); // own (ids mod 3: 3 is group 0), another's, the last
                q->formation = (g + b + dim) % BOIDS_FORMATION_COUNT;
                q->leader_offset[1] = 10.0f;
                q->leader_offset[2] = dim == 3 ? 5.0f : 0.0f;
                q->interpose_a = 7u * (g + 1);
                q->interpose_b = g == 2 ? BOIDS_ID_TARGET : 150u + g;
            }
            p.group[1].maxforce = 1.0f;         // a stronger pull for one group
            boids_params_finalize(&p, NULL, 0); // the world's size, for the walls
            float lo[3], hi[3];
            for (uint32_t a = 0; a < 3; a++) {
                lo[a] = p.world.min[a] + 0.25f * p.world.size[a];
                hi[a] = p.world.min[a] + 0.75f * p.world.size[a];
            }
            boids_scene *sc = &p.scene;
            sc->wall_count = 0;
            memset(sc->wall, 0, sizeof sc->wall);
            for (uint32_t k = 0; k < 4; k++) { // a box: segments (2D) or planes facing in (3D)
                float *wa = sc->wall[2 * sc->wall_count], *wb = sc->wall[2 * sc->wall_count + 1];
                uint32_t axis = k % 2;
                if (dim == 2 && k < 3) {
                    wa[axis] = wb[axis] = k < 2 ? lo[axis] : hi[axis];
                    wa[1 - axis] = lo[1 - axis];
                    wb[1 - axis] = hi[1 - axis];
                    wa[3] = BOIDS_WALL_SEGMENT;
                } else { // planes (a line in 2D)
                    wa[axis] = k < 2 ? lo[axis] : hi[axis];
                    wb[axis] = k < 2 ? 1.0f : -1.0f;
                    wa[3] = BOIDS_WALL_PLANE;
                }
                sc->wall_count++;
            }
            if (dim == 3) { // and a tilted plane
                float *wa = sc->wall[2 * sc->wall_count], *wb = sc->wall[2 * sc->wall_count + 1];
                wa[0] = wa[1] = wa[2] = 0.5f * (lo[0] + hi[0]);
                wb[0] = 1.0f, wb[1] = -2.0f, wb[2] = 3.0f;
                wa[3] = BOIDS_WALL_PLANE;
                sc->wall_count++;
            }
            char name[96];
            snprintf(name, sizeof(name), "%uD %s with named agents and %u walls, boundary %u", dim,
                     boids_behavior_name(beh[b]), sc->wall_count, p.world.boundary);
            long_run(&p, b == 2 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM, 1000, name);
        }
}
END_TEST

START_TEST(all_behaviors_every_boundary) {
    // Everything at once with 3 groups, a turn limit and a field of view,
    // in the other boundary / combination pairs (each_behavior_1000_steps
    // ran "all" with bounce and the sum), clustered start.
    const uint32_t modes[3][2] = {{BOIDS_BOUNDARY_WRAP, BOIDS_COMBINE_PRIORITY},
                                  {BOIDS_BOUNDARY_WALLS, BOIDS_COMBINE_SUM},
                                  {BOIDS_BOUNDARY_BOUNCE, BOIDS_COMBINE_PRIORITY}};
    for (uint32_t m = 0; m < 3; m++) {
        boids_params p;
        busy_params(&p, 300, 2, 50 + m);
        p.world.boundary = modes[m][0];
        p.world.combine = modes[m][1];
        char name[96];
        snprintf(name, sizeof(name), "2D all behaviours, boundary %u, combine %u", modes[m][0], modes[m][1]);
        long_run(&p, BOIDS_DIST_CLUSTERED, 600, name);
    }
}
END_TEST

START_TEST(invariants_3d) {
    // The same 1000-step invariants in 3D for a few sets: flocking (wrap),
    // the single-agent steering with wander, obstacles and the flow field
    // (walls), and everything at once (bounce).
    const uint32_t sets[] = {BOIDS_B_FLOCKING,
                             BOIDS_BIT(BOIDS_BI_WANDER) | BOIDS_BIT(BOIDS_BI_OBSTACLES) | BOIDS_BIT(BOIDS_BI_FLOW) |
                                 BOIDS_BIT(BOIDS_BI_PATH),
                             ALL_BEHAVIORS};
    for (uint32_t k = 0; k < 3; k++) {
        boids_params p;
        busy_params(&p, 300, 3, 70 + k);
        p.world.boundary = k; // wrap, walls, bounce
        for (uint32_t g = 0; g < 3; g++)
            p.group[g].behaviors = sets[k];
        char name[96];
        snprintf(name, sizeof(name), "3D behaviours 0x%x, boundary %u", sets[k], k);
        long_run(&p, k == 2 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM, 1000, name);
    }
}
END_TEST

START_TEST(counts_and_seeds) {
    // The counts of STYLE.md: 0, 1, workgroup - 1, workgroup + 1, and a large
    // one (short run), over seeds, 2D and 3D, everything enabled.
    const uint32_t counts[] = {0, 1, BOIDS_WORKGROUP_SIZE - 1, BOIDS_WORKGROUP_SIZE + 1};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
        for (uint32_t dim = 2; dim <= 3; dim++)
            for (uint32_t seed = 1; seed <= 3; seed++) {
                boids_params p;
                busy_params(&p, counts[c], dim, seed);
                p.world.boundary = seed % 3;
                char name[64];
                snprintf(name, sizeof(name), "N %u %uD seed %u", counts[c], dim, seed);
                long_run(&p, seed == 2 ? BOIDS_DIST_CLUSTERED : BOIDS_DIST_UNIFORM, 100, name);
            }
    boids_params p;
    busy_params(&p, 20000, 2, 8);
    long_run(&p, BOIDS_DIST_UNIFORM, 4, "N 20000 2D");
    boids_params_default(&p, 20000, 3);
    long_run(&p, BOIDS_DIST_UNIFORM, 2, "N 20000 3D flocking");
}
END_TEST

// ---- statistics -------------------------------------------------------------------

START_TEST(stats_by_hand) {
    // Three agents on a line at x = 0, 30, 60, all moving (1,0): polarisation
    // 1, mean speed 1, neighbours (1, 2, 1) within radius 50: mean 4/3,
    // nearest 30 for everyone.
    boids_params p;
    boids_params_default(&p, 3, 2);
    p.group[0].behaviors = 0;
    boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
    float pos[3][4] = {{100, 100, 0, 0}, {130, 100, 0, 0}, {160, 100, 0, 0}};
    float vel[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    uint32_t grp[3] = {0, 0, 0};
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_OK,
           "three agents inside the world, group 0: accepted");
    boids_sim_step(s);
    boids_stats st;
    boids_sim_stats(s, &st);
    EXPECT(st.step == 1, "stats.step = %llu, expected 1", (unsigned long long)st.step);
    EXPECT(fabs(st.polarisation - 1.0) < 1e-12, "aligned agents: polarisation %g, expected 1", st.polarisation);
    EXPECT(fabs(st.mean_speed - 1.0) < 1e-12, "mean speed %g, expected 1", st.mean_speed);
    EXPECT(fabs(st.mean_neighbors - 4.0 / 3.0) < 1e-12, "mean neighbours %g, expected (1+2+1)/3", st.mean_neighbors);
    EXPECT(st.neighbor_pairs == 4, "neighbour pairs %llu, expected 4 (ordered pairs within 50)",
           (unsigned long long)st.neighbor_pairs);
    EXPECT(fabs(st.mean_nearest - 30.0) < 1e-5, "mean nearest %g, expected 30", st.mean_nearest);
    EXPECT(st.cell_max == 1 || st.cell_max == 2, "cell max %u: the three agents span 2-3 cells", st.cell_max);
    EXPECT(fabs(st.cell_mean - 3.0 / s->grid.cells) < 1e-12, "cell mean %g, expected 3 / %u", st.cell_mean,
           s->grid.cells);
    EXPECT(st.candidate_pairs >= 6,
           "candidate pairs %llu: each agent examines at least the other two plus "
           "itself",
           (unsigned long long)st.candidate_pairs);
    boids_sim_destroy(s);
    // Opposite velocities of speeds 1 and 2: polarisation |(1,0) + (-1,0)| / 2 = 0, mean speed 1.5.
    boids_params_default(&p, 2, 2);
    p.group[0].behaviors = 0;
    s = create(&p, BOIDS_DIST_UNIFORM);
    float pos2[2][4] = {{10, 10, 0, 0}, {110, 110, 0, 0}}, vel2[2][4] = {{1, 0, 0, 0}, {-2, 0, 0, 0}};
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos2, (const float(*)[4])vel2, grp) == BOIDS_OK,
           "two agents inside the world: accepted");
    boids_sim_step(s);
    boids_sim_stats(s, &st);
    EXPECT(fabs(st.polarisation) < 1e-12, "opposite headings: polarisation %g, expected 0", st.polarisation);
    EXPECT(fabs(st.mean_speed - 1.5) < 1e-12, "mean speed %g, expected (1+2)/2", st.mean_speed);
    EXPECT(st.mean_neighbors == 0 && st.mean_nearest == 0, "no neighbours: 0 and 0");
    boids_sim_destroy(s);
    // N = 0: all zero, no division by zero.
    boids_params_default(&p, 0, 2);
    s = create(&p, BOIDS_DIST_UNIFORM);
    boids_sim_step(s);
    boids_sim_stats(s, &st);
    EXPECT(st.polarisation == 0 && st.mean_speed == 0 && st.mean_neighbors == 0 && st.cell_max == 0 &&
               st.cell_mean == 0,
           "N = 0: every statistic 0");
    boids_sim_destroy(s);
}
END_TEST

START_TEST(stats_sanity) {
    // Over runs: polarisation in [0,1], mean speed <= maxspeed, cell max >=
    // cell mean, nearest <= radius, pairs = N * mean neighbours = the brute
    // count; flocking aligns the flock (emergence, chapter 5).
    for (uint32_t dim = 2; dim <= 3; dim++)
        for (uint32_t dist = 0; dist < 4 - dim; dist++) {
            boids_params p;
            boids_params_default(&p, 300, dim);
            p.world.seed_lo = 3 + dim + dist;
            boids_sim *s = create(&p, (boids_distribution)dist);
            boids_stats st;
            boids_sim_step(s);
            boids_sim_stats(s, &st);
            double pol0 = st.polarisation;
            for (int k = 0; k < 400; k++) {
                boids_sim_step(s);
                boids_sim_stats(s, &st);
                EXPECT(st.polarisation >= 0 && st.polarisation <= 1 + 1e-12, "polarisation %g outside [0,1]",
                       st.polarisation);
                EXPECT(st.mean_speed >= 0 && st.mean_speed <= 3.0 * (1 + 1e-6), "mean speed %g > maxspeed 3",
                       st.mean_speed);
                EXPECT((double)st.cell_max >= st.cell_mean, "cell max %u < cell mean %g", st.cell_max, st.cell_mean);
                EXPECT(st.mean_nearest >= 0 && st.mean_nearest < 50.0, "mean nearest %g outside [0, radius)",
                       st.mean_nearest);
                EXPECT(st.candidate_pairs >= st.neighbor_pairs, "fewer candidates than neighbours");
                EXPECT(fabs(st.mean_neighbors * s->n - (double)st.neighbor_pairs) < 1e-6 * (1 + st.neighbor_pairs),
                       "neighbour pairs %llu != N * mean %g", (unsigned long long)st.neighbor_pairs,
                       st.mean_neighbors * s->n);
            }
            EXPECT(st.polarisation > pol0 + 0.2,
                   "%uD: flocking should align the agents: polarisation %g after 400 steps vs %g at the start", dim,
                   st.polarisation, pol0);
            boids_sim_destroy(s);
        }
}
END_TEST

// ---- parameters -------------------------------------------------------------------

static void expect_reject(boids_params *p, boids_result want, const char *what_case) {
    char what[256] = "";
    boids_params q = *p;
    boids_result r = boids_params_finalize(&q, what, sizeof(what));
    EXPECT(r == want, "%s: finalize returned %s, expected %s", what_case, boids_result_str(r), boids_result_str(want));
    EXPECT(what[0] != '\0', "%s: rejected without saying what was wrong", what_case);
    boids_sim *s = (boids_sim *)&q; // any non-NULL value: create must set it to NULL
    EXPECT(boids_sim_create(&s, p, BOIDS_DIST_UNIFORM) == want && s == NULL,
           "%s: boids_sim_create must fail the same way and leave *out NULL", what_case);
}

static void expect_accept(boids_params *p, const char *what_case) {
    char what[256] = "";
    boids_params q = *p;
    boids_result r = boids_params_finalize(&q, what, sizeof(what));
    EXPECT(r == BOIDS_OK, "%s: finalize rejected a valid value: %s (%s)", what_case, boids_result_str(r), what);
}

START_TEST(params_validation) {
    boids_params p;
    boids_params_default(&p, 100, 2);
    expect_accept(&p, "defaults 2D");
    boids_params_default(&p, 100, 3);
    expect_accept(&p, "defaults 3D");

    const float bad_radius[] = {0.0f, -1.0f, NAN, INFINITY};
    for (size_t k = 0; k < 4; k++) {
        boids_params_default(&p, 100, 2);
        p.group[0].radius = bad_radius[k];
        expect_reject(&p, BOIDS_ERR_RADIUS, "radius <= 0 / NaN / inf");
        boids_params_default(&p, 100, 2);
        p.group[0].separation = bad_radius[k];
        expect_reject(&p, BOIDS_ERR_RADIUS, "separation <= 0 / NaN / inf");
        boids_params_default(&p, 100, 2);
        p.world.group_count = 2;
        p.group[1].view_radius = bad_radius[k];
        expect_reject(&p, BOIDS_ERR_RADIUS, "view radius of group 1 <= 0 / NaN");
    }
    // A bad radius in an unused group does not matter.
    boids_params_default(&p, 100, 2);
    p.group[5].radius = -1.0f;
    expect_accept(&p, "unused group's radius");

    const float bad_size[] = {0.0f, -100.0f, NAN, INFINITY};
    for (size_t k = 0; k < 4; k++)
        for (int a = 0; a < 2; a++) {
            boids_params_default(&p, 100, 2);
            p.world.size[a] = bad_size[k];
            expect_reject(&p, BOIDS_ERR_WORLD, "world extent zero / negative / NaN / inf");
        }
    boids_params_default(&p, 100, 3);
    p.world.size[2] = 0.0f;
    expect_reject(&p, BOIDS_ERR_WORLD, "3D world with zero depth");
    boids_params_default(&p, 100, 2);
    p.world.min[0] = NAN;
    expect_reject(&p, BOIDS_ERR_WORLD, "NaN origin");

    // Radius > half the world on a torus: the minimum image is ambiguous.
    boids_params_default(&p, 100, 2);
    p.world.size[0] = 99.0f;
    expect_reject(&p, BOIDS_ERR_CELL, "radius 50 > half of 99 on wrap");
    p.world.size[0] = 100.0f;
    expect_accept(&p, "radius 50 = half of 100 on wrap");
    p.world.size[0] = 99.0f;
    p.world.boundary = BOIDS_BOUNDARY_WALLS;
    expect_accept(&p, "radius > half the world with walls (one cell)");
    boids_params_default(&p, 100, 2);
    p.group[0].separation = 80.0f;
    p.world.size[1] = 150.0f;
    expect_reject(&p, BOIDS_ERR_CELL, "separation 80 > half of 150 on wrap (largest interaction radius)");

    const uint32_t bad_dim[] = {0, 1, 4};
    for (size_t k = 0; k < 3; k++) {
        boids_params_default(&p, 100, 2);
        p.world.dim = bad_dim[k];
        expect_reject(&p, BOIDS_ERR_PARAM, "dimension 0 / 1 / 4");
    }
    boids_params_default(&p, 100, 2);
    p.world.count = BOIDS_MAX_AGENTS + 1;
    expect_reject(&p, BOIDS_ERR_COUNT, "more than BOIDS_MAX_AGENTS");
    boids_params_default(&p, 100, 2);
    p.world.group_count = 0;
    expect_reject(&p, BOIDS_ERR_PARAM, "0 groups");
    p.world.group_count = BOIDS_MAX_GROUPS + 1;
    expect_reject(&p, BOIDS_ERR_PARAM, "9 groups");
    boids_params_default(&p, 100, 2);
    p.world.dt = 0.0f;
    expect_reject(&p, BOIDS_ERR_PARAM, "dt 0");
    p.world.dt = NAN;
    expect_reject(&p, BOIDS_ERR_PARAM, "dt NaN");
    boids_params_default(&p, 100, 2);
    p.group[0].maxspeed = 0.0f;
    expect_reject(&p, BOIDS_ERR_PARAM, "maxspeed 0");
    boids_params_default(&p, 100, 2);
    p.group[0].maxforce = NAN;
    expect_reject(&p, BOIDS_ERR_PARAM, "maxforce NaN");
    boids_params_default(&p, 100, 2);
    p.group[0].fov_cos = 1.5f;
    expect_reject(&p, BOIDS_ERR_PARAM, "fov cosine 1.5");
    boids_params_default(&p, 100, 2);
    p.group[0].wander_change = -0.1f;
    expect_reject(&p, BOIDS_ERR_PARAM, "negative wander change");
    boids_params_default(&p, 100, 2);
    p.group[0].weight[0][1] = INFINITY;
    expect_reject(&p, BOIDS_ERR_PARAM, "infinite weight");
    boids_params_default(&p, 100, 2);
    p.group[0].behaviors = 1u << BOIDS_BEHAVIOR_COUNT;
    expect_reject(&p, BOIDS_ERR_PARAM, "unknown behaviour bit");
    boids_params_default(&p, 100, 2);
    p.world.boundary = BOIDS_BOUNDARY_MARGIN + 1;
    expect_reject(&p, BOIDS_ERR_PARAM, "boundary mode 4");
    // The margin of boundary margin: 0 (the default, the sketch's 3) or > 0.
    boids_params_default(&p, 100, 2);
    p.world.boundary = BOIDS_BOUNDARY_MARGIN;
    expect_accept(&p, "margin 0 (the default)");
    p.world.margin = 5.0f;
    expect_accept(&p, "margin 5");
    p.world.margin = -1.0f;
    expect_reject(&p, BOIDS_ERR_PARAM, "margin -1");
    p.world.margin = NAN;
    expect_reject(&p, BOIDS_ERR_PARAM, "margin NaN");
    p.world.margin = INFINITY;
    expect_reject(&p, BOIDS_ERR_PARAM, "margin infinite");
    boids_params_default(&p, 100, 2);
    p.scene.path_count = 1;
    expect_reject(&p, BOIDS_ERR_PATH, "a one-point path");
    boids_params_default(&p, 100, 2);
    p.scene.obstacle_count = BOIDS_MAX_OBSTACLES + 1;
    expect_reject(&p, BOIDS_ERR_PARAM, "33 obstacles");
    boids_params_default(&p, 100, 2);
    p.flow.resolution = 0.0f;
    expect_reject(&p, BOIDS_ERR_PARAM, "flow resolution 0");

    // Valid odd worlds, and the derived grid: floor(size / largest radius)
    // cells per axis, cell * cells = size, max radius / max speed over groups.
    boids_params_default(&p, 100, 3);
    p.world.min[0] = -1000.0f;
    p.world.min[1] = -0.5f;
    p.world.min[2] = 3.0f;
    p.world.size[0] = 537.0f;
    p.world.size[1] = 260.0f;
    p.world.size[2] = 120.0f;
    p.world.group_count = 2;
    p.group[1].radius = 60.0f;
    p.group[1].maxspeed = 4.5f;
    char what[128];
    EXPECT(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK, "a 3D world from (-1000,-0.5,3): %s", what);
    EXPECT(p.world.max_radius == 60.0f && p.world.max_speed_all == 4.5f,
           "max radius 60 and max speed 4.5 over the groups, got %g / %g", (double)p.world.max_radius,
           (double)p.world.max_speed_all);
    EXPECT(p.world.cells[0] == 8 && p.world.cells[1] == 4 && p.world.cells[2] == 2 && p.world.cells[3] == 64,
           "cells floor(537/60) = 8, floor(260/60) = 4, floor(120/60) = 2: 64; got %u %u %u %u", p.world.cells[0],
           p.world.cells[1], p.world.cells[2], p.world.cells[3]);
    for (int a = 0; a < 3; a++)
        EXPECT(fabs((double)p.world.cell[a] * p.world.cells[a] - p.world.size[a]) < 1e-4 * p.world.size[a] &&
                   p.world.cell[a] >= 60.0f,
               "axis %d: cell %g x %u must tile the extent %g with cells >= the radius", a, (double)p.world.cell[a],
               p.world.cells[a], (double)p.world.size[a]);
    boids_params_default(&p, 100, 2);
    p.world.size[2] = 55.0f;
    EXPECT(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK, "2D with a z extent set: valid (%s)", what);
    EXPECT(p.world.size[2] == 0.0f && p.world.cells[2] == 1, "2D: z extent forced to 0, one layer");
    // The defaults are valid for every allowed agent count (the world grows
    // with N; the flow field, sized by the world, is only checked - and
    // only built - when a group follows it).
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_params_default(&p, BOIDS_MAX_AGENTS, dim);
        EXPECT(boids_params_finalize(&p, what, sizeof(what)) == BOIDS_OK,
               "%uD defaults with BOIDS_MAX_AGENTS agents must be valid: %s", dim, what);
        EXPECT(p.world.cells[3] <= 16777216u, "%uD grid of %u cells, expected <= 2^24", dim, p.world.cells[3]);
    }
    boids_params_default(&p, 50, 2);
    boids_sim *fs = NULL;
    EXPECT(boids_sim_create(&fs, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK && fs->p.flow.vec == NULL,
           "no group follows the flow field: none built");
    boids_sim_destroy(fs);
    p.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_FLOW);
    EXPECT(boids_sim_create(&fs, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK && fs->p.flow.vec != NULL &&
               fs->p.flow.dims[3] == fs->p.world.flow_dims[3],
           "a group follows the flow field: built with the finalized dimensions");
    boids_sim_destroy(fs);
    // Behaviour names round-trip.
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
        EXPECT(boids_behavior_index(boids_behavior_name(b)) == (int)b, "name of behaviour %u does not map back", b);
    EXPECT(boids_behavior_index("separation") == (int)BOIDS_BI_SEPARATION && boids_behavior_index("nope") == -1,
           "behaviour names: separation -> %u, unknown -> -1", BOIDS_BI_SEPARATION);
}
END_TEST

START_TEST(set_agents_validation) {
    boids_params p;
    boids_params_default(&p, 2, 2);
    boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
    uint64_t h = boids_sim_hash(s);
    float pos[2][4] = {{1, 2, 0, 0}, {3, 4, 0, 0}}, vel[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    uint32_t grp[2] = {0, 1};
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_ERR_PARAM,
           "group 1 of a 1-group world must be rejected");
    EXPECT(boids_sim_hash(s) == h, "a rejected set_agents must leave the agents unchanged");
    grp[1] = 0;
    pos[1][1] = NAN;
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_ERR_PARAM,
           "a NaN position must be rejected");
    pos[1][1] = 4.0f;
    vel[0][0] = INFINITY;
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_ERR_PARAM,
           "an infinite velocity must be rejected");
    EXPECT(boids_sim_hash(s) == h, "a rejected set_agents must leave the agents unchanged");
    // Speeds above maxspeed are limited on entry (as every step does), the
    // direction kept: (300, 400) -> (1.8, 2.4).
    vel[0][0] = 300.0f;
    vel[0][1] = 400.0f;
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_OK,
           "a fast but finite velocity is accepted");
    const float *v0 = s->cur.vel[boids_sim_slots_by_id(s)[0]];
    EXPECT(fabs(v0[0] - 1.8) < 1e-6 && fabs(v0[1] - 2.4) < 1e-6,
           "(300,400) limited to maxspeed 3 along (0.6,0.8) = (1.8,2.4), got (%g, %g)", (double)v0[0], (double)v0[1]);
    vel[0][1] = 0.0f;
    vel[0][0] = 0.0f;
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])pos, (const float(*)[4])vel, grp) == BOIDS_OK,
           "finite values, valid groups: accepted");
    // Positions outside are wrapped in (torus), ids stay 0..N-1 in id order.
    float far[2][4] = {{-1.0f, 2, 0, 0}, {3, p.world.size[1] + 4.0f, 0, 0}};
    EXPECT(boids_sim_set_agents(s, (const float(*)[4])far, (const float(*)[4])vel, grp) == BOIDS_OK,
           "positions outside the torus are accepted (wrapped in)");
    const uint32_t *slot = boids_sim_slots_by_id(s);
    EXPECT(fabs(s->cur.pos[slot[0]][0] - (s->p.world.size[0] - 1.0f)) < 1e-3 &&
               fabs(s->cur.pos[slot[1]][1] - 4.0f) < 1e-3,
           "set_agents wraps positions into the torus: -1 -> size - 1, size + 4 -> 4");
    boids_sim_destroy(s);
}
END_TEST

// boids_group_value: each name reaches its own float of the group (the
// viewer's - = keys and boids_engine_set_group_value use it), a weight by
// behaviour index; other names are NULL.
START_TEST(group_value_names) {
    boids_group_params g;
    memset(&g, 0, sizeof g);
    ck_assert_ptr_eq(boids_group_value(&g, "maxspeed"), &g.maxspeed);
    ck_assert_ptr_eq(boids_group_value(&g, "maxforce"), &g.maxforce);
    ck_assert_ptr_eq(boids_group_value(&g, "radius"), &g.radius);
    ck_assert_ptr_eq(boids_group_value(&g, "separation"), &g.separation);
    ck_assert_ptr_eq(boids_group_value(&g, "weight.alignment"),
                     &g.weight[BOIDS_BI_ALIGNMENT >> 2][BOIDS_BI_ALIGNMENT & 3]);
    ck_assert_ptr_eq(boids_group_value(&g, "weight.wander"), &g.weight[BOIDS_BI_WANDER >> 2][BOIDS_BI_WANDER & 3]);
    ck_assert_ptr_null(boids_group_value(&g, "weight.nope"));
    ck_assert_ptr_null(boids_group_value(&g, "weight."));
    ck_assert_ptr_null(boids_group_value(&g, "speed"));
    ck_assert_ptr_null(boids_group_value(&g, ""));
}
END_TEST

// NULL for the simulation or what a function must read or write: an
// error (BOIDS_ERR_ARGUMENT), 0, NULL or nothing done; none crashes.
START_TEST(null_handles) {
    boids_params p;
    boids_params_default(&p, 10, 2);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_sim *s = (boids_sim *)&p;
    ck_assert(boids_sim_create(&s, NULL, BOIDS_DIST_UNIFORM) == BOIDS_ERR_ARGUMENT && s == NULL);
    ck_assert(boids_sim_create(NULL, &p, BOIDS_DIST_UNIFORM) == BOIDS_ERR_ARGUMENT);
    static float pos[1][4], vel[1][4];
    static uint32_t group[1];
    ck_assert(boids_sim_set_agents(NULL, (const float(*)[4])pos, (const float(*)[4])vel, group) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_sim_set_state(NULL, 0, (const float(*)[4])pos, (const float(*)[4])vel, group, NULL) ==
              BOIDS_ERR_ARGUMENT);
    ck_assert(boids_sim_reserve(NULL, 10) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_sim_set_grid(NULL, &p) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_sim_set_bodies(NULL, p.body) == BOIDS_ERR_ARGUMENT);
    boids_sim_step(NULL);
    boids_sim_build_grid(NULL);
    boids_sim_steer(NULL);
    boids_sim_steer_agent(NULL, 0);
    boids_sim_survey(NULL);
    boids_sim_integrate(NULL);
    boids_sim_bodies(NULL);
    boids_sim_reset_bodies(NULL);
    boids_sim_destroy(NULL);
    boids_stats st;
    st.step = 7;
    boids_sim_stats(NULL, &st);
    ck_assert(st.step == 0);
    ck_assert(boids_sim_hash(NULL) == 0 && boids_sim_slots_by_id(NULL) == NULL);
    ck_assert(!boids_quadtree_build(NULL, NULL, 0, 2, 0.0f) && !boids_sim_build_quadtree(NULL));
    boids_quadtree_free(NULL);
    uint32_t nb[4];
    ck_assert(boids_quadtree_neighbors(NULL, 0, 1.0f, nb, 4) == 0 && boids_quadtree_reach(NULL) == 0.0f);
    ck_assert(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM) == BOIDS_OK);
    uint64_t h = boids_sim_hash(s);
    ck_assert(boids_sim_set_grid(s, NULL) == BOIDS_ERR_ARGUMENT && boids_sim_set_bodies(s, NULL) == BOIDS_ERR_ARGUMENT);
    boids_sim_stats(s, NULL);
    ck_assert_msg(boids_sim_hash(s) == h, "refused calls: expected the state unchanged");
    boids_sim_destroy(s);
}
END_TEST

static Suite *sim_suite(void) {
    Suite *s = suite_create("sim");
    TCase *det = tcase_create("determinism");
    tcase_set_timeout(det, 300);
    tcase_add_test(det, same_seed_same_hash);
    tcase_add_test(det, different_seeds_differ);
    tcase_add_test(det, threads_same_hash);
    tcase_add_test(det, null_handles);
    suite_add_tcase(s, det);
    TCase *order = tcase_create("slot_order");
    tcase_set_timeout(order, 300);
    tcase_add_test(order, slot_order_independence);
    tcase_add_test(order, steer_matches_brute_force);
    suite_add_tcase(s, order);
    TCase *inv = tcase_create("invariants");
    tcase_set_timeout(inv, 600);
    tcase_add_test(inv, each_behavior_1000_steps);
    tcase_add_test(inv, named_and_walls_1000_steps);
    tcase_add_test(inv, all_behaviors_every_boundary);
    tcase_add_test(inv, invariants_3d);
    tcase_add_test(inv, counts_and_seeds);
    suite_add_tcase(s, inv);
    TCase *stats = tcase_create("stats");
    tcase_set_timeout(stats, 300);
    tcase_add_test(stats, stats_by_hand);
    tcase_add_test(stats, stats_sanity);
    suite_add_tcase(s, stats);
    TCase *params = tcase_create("params");
    tcase_set_timeout(params, 60);
    tcase_add_test(params, group_value_names);
    tcase_add_test(params, params_validation);
    tcase_add_test(params, set_agents_validation);
    suite_add_tcase(s, params);
    return s;
}

int main(void) {
    return boids_test_run_suite(sim_suite());
}
