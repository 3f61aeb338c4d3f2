// src/app/validate_horizons.c: the comparisons of boids-validate
// (validate.h): horizon 1, the grid and neighbour counts exactly; 2, one
// step per behaviour, bit for bit; 3, S steps' statistics, invariants and
// state-hashes; 4, the bodies stage alone from the same heads, bit for bit.
// Each check is one line of the report (validate_check).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "progress.h"
#include "validate.h"

// qsort order of uint32_t.
static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

// Pairs of agent i (slot in pos) whose squared distance lies within `ulps`
// float steps of r^2: rounding may put them on either side.
static uint32_t borderline_pairs(const boids_world_params *w, const float (*pos)[4], uint32_t n, uint32_t i, float r,
                                 int ulps) {
    float r2 = r * r, tol = r2 * (float)ulps * 1.1920929e-7f;
    uint32_t k = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j == i)
            continue;
        float d[3];
        boids_world_delta(w, pos[i], pos[j], d);
        float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        k += fabsf(d2 - r2) <= tol;
    }
    return k;
}

// See validate.h. Horizon 1: the grid and the neighbour counts, exactly.
void validate_exact(boids_engine *s, boids_engine *g) {
    uint32_t n = boids_engine_count(s), cells = boids_engine_cells(s);
    printf("1. exact: grid and neighbours (%u agents, %u cells)\n", n, cells);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_GRID);
    validate_exit_on_fault(g);
    size_t nb = (size_t)n * 4, cb = (size_t)cells * 4;
    uint32_t *key = validate_read_new(g, BOIDS_ENGINE_KEY, nb), *count = validate_read_new(g, BOIDS_ENGINE_COUNT, cb);
    uint32_t *start = validate_read_new(g, BOIDS_ENGINE_START, cb + 4), *id = validate_read_new(g, BOIDS_ENGINE_ID, nb);
    uint32_t *ckey = validate_read_new(s, BOIDS_ENGINE_KEY, nb), *ccount = validate_read_new(s, BOIDS_ENGINE_COUNT, cb);
    uint32_t *cstart = validate_read_new(s, BOIDS_ENGINE_START, cb + 4),
             *cid = validate_read_new(s, BOIDS_ENGINE_ID, nb);
    uint32_t bad_key = 0, bad_count = 0, bad_start = 0, bad_set = 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        bad_key += key[i] != ckey[i];
    for (uint32_t k = 0; k < cells; k++) {
        bad_count += count[k] != ccount[k];
        bad_start += start[k] != cstart[k];
        sum += count[k];
        uint32_t a = cstart[k], m = ccount[k];
        if (count[k] != m || start[k] != a || m == 0)
            continue;
        qsort(id + a, m, 4, cmp_u32);
        uint32_t *cpu = malloc((size_t)m * 4);
        memcpy(cpu, cid + a, (size_t)m * 4);
        qsort(cpu, m, 4, cmp_u32);
        bad_set += memcmp(cpu, id + a, (size_t)m * 4) != 0;
        free(cpu);
    }
    validate_check(bad_key == 0, "cell of every agent: %u of %u differ", bad_key, n);
    validate_check(bad_count == 0, "agents per cell: %u of %u cells differ", bad_count, cells);
    validate_check(bad_start == 0 && start[cells] == n, "cell starts: %u differ, start[cells] = %u (N = %u)", bad_start,
                   start[cells], n);
    validate_check(sum == n, "sum of counts = %llu (N = %u)", (unsigned long long)sum, n);
    validate_check(bad_set == 0, "the set of ids in each cell: %u cells differ", bad_set);
    free(id);

    // Neighbour counts after one steer (by id: the GPU's slot order is the atomics').
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_STEER);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_STEER);
    uint32_t *gn = validate_read_new(g, BOIDS_ENGINE_NEIGHBORS, nb);
    id = validate_read_new(g, BOIDS_ENGINE_ID, nb);
    uint32_t *cn = validate_read_new(s, BOIDS_ENGINE_NEIGHBORS, nb),
             *cgroup = validate_read_new(s, BOIDS_ENGINE_GROUP, nb);
    float(*cpos)[4] = validate_read_new(s, BOIDS_ENGINE_POS, nb * 4);
    const boids_params *p = boids_engine_params(s);
    uint32_t *by_id = malloc((size_t)(n + 1) * 4);
    for (uint32_t i = 0; i < n; i++)
        by_id[id[i] < n ? id[i] : 0] = gn[i];
    uint32_t differ = 0, borderline = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cpu = cn[i], gpu = by_id[cid[i]];
        if (cpu == gpu)
            continue;
        float r = p->group[cgroup[i]].radius;
        uint32_t near = borderline_pairs(&p->world, (const float(*)[4])cpos, n, i, r, 4);
        if ((uint32_t)abs((int)cpu - (int)gpu) <= near) {
            if (borderline < 5)
                printf("        borderline: id %u: %u vs %u neighbours, %u pairs within 4 ULP of r^2\n", cid[i], cpu,
                       gpu, near);
            borderline++;
        } else {
            differ++;
        }
    }
    validate_check(differ == 0, "neighbour count of every agent: %u differ (%u more only by pairs at the radius)",
                   differ, borderline);
    void *all[] = {key, count, start, id, ckey, ccount, cstart, cid, gn, cn, cgroup, cpos, by_id};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        free(all[k]);
}

// Horizons 2 and 4 compare bits. Nothing the GPU computes is left to what
// GLSL lets a driver choose: +, -, * are correctly rounded everywhere and no
// add is fused with a product (`precise`), roots and quotients are corrected
// to the correctly rounded ones (cr_sqrt, fdiv), sine, cosine, arctangent and
// logarithm are the C's own float operations (trig.glsl), conversions never
// leave 32 bits, and the neighbour sums are order-free integers. So every
// force, velocity, position, wander angle and joint must equal the C
// reference's bit for bit; a difference of one ULP is a failure, reported
// with how many agents differ and by how many ULPs at worst.

// Distance in ULPs between two floats: 0 when their bits are equal, the
// number of floats between them otherwise (+0 and -0 one apart; with
// any_zero_sign, 0: GLSL does not promise a zero's sign, so a force's zero
// component may carry either, while the state itself is compared bit for
// bit); a NaN on one side only is infinitely far.
static double ulps_apart(float x, float y, bool any_zero_sign) {
    uint32_t a, b;
    memcpy(&a, &x, 4);
    memcpy(&b, &y, 4);
    if (a == b || (any_zero_sign && x == 0.0f && y == 0.0f))
        return 0.0;
    if (isnan(x) || isnan(y))
        return INFINITY;
    // Floats in the order of their values as integers: negatives mirrored
    // below 2^31, +0 at 2^31.
    int64_t ka = a >> 31 ? (int64_t)0x7fffffff - (int64_t)(a & 0x7fffffffu) : (int64_t)a + 0x80000000ll;
    int64_t kb = b >> 31 ? (int64_t)0x7fffffff - (int64_t)(b & 0x7fffffffu) : (int64_t)b + 0x80000000ll;
    return (double)(ka > kb ? ka - kb : kb - ka);
}

// Lanes [0, lanes) of two id-indexed arrays compared bit for bit (a zero's
// sign aside with any_zero_sign): how many agents (rows) differ, the worst
// distance in ULPs and its row, the largest |cpu| (0: nothing to compare).
typedef struct compare {
    double worst_ulps, largest;
    uint32_t differ, worst_id;
} compare;

static compare compare_bits(const float (*cpu)[4], const float (*gpu)[4], uint32_t n, int lanes, bool any_zero_sign) {
    compare c = {0};
    for (uint32_t i = 0; i < n; i++) {
        bool differs = false;
        for (int a = 0; a < lanes; a++) {
            double u = ulps_apart(cpu[i][a], gpu[i][a], any_zero_sign);
            c.largest = fmax(c.largest, fabs(cpu[i][a]));
            differs = differs || u > 0.0;
            if (u > c.worst_ulps) {
                c.worst_ulps = u;
                c.worst_id = i;
            }
        }
        c.differ += differs;
    }
    return c;
}

// One check line of a bit-for-bit comparison: PASS "all N <what> equal the
// CPU's bits", or FAIL naming how many differ, by how much at worst and
// where (row id; the values on both sides).
static void check_bits(const char *name, const char *what, const compare *c, uint32_t n, const float *cpu,
                       const float *gpu, const char *extra) {
    if (c->differ == 0) {
        validate_check(true, "%-12s %s: all %u bit-equal to the CPU's (largest |value| %.3g)%s", name, what, n,
                       c->largest, extra);
        return;
    }
    validate_check(false,
                   "%-12s %s: %u of %u differ from the CPU's bits, at worst by %.0f ULP (id %u: cpu %.9g %.9g %.9g, "
                   "gpu %.9g %.9g %.9g)%s",
                   name, what, c->differ, n, c->worst_ulps, c->worst_id, (double)cpu[0], (double)cpu[1],
                   (double)cpu[2], (double)gpu[0], (double)gpu[1], (double)gpu[2], extra);
}

// Joints of s and g compared bit for bit (both id-indexed, joint-major):
// the bodies that differ, the worst joint in ULPs, how many bodies straddle
// the world's edge (joints outside it: the torus seam was crossed).
typedef struct joint_compare {
    double worst_ulps, largest;
    uint32_t differ, bodies, straddling, worst_id, worst_joint;
    float cpu[4], gpu[4]; // the worst joint on both sides
} joint_compare;

static joint_compare compare_joints(boids_engine *s, boids_engine *g) {
    joint_compare c = {0};
    const boids_params *p = boids_engine_params(s);
    uint32_t n = boids_engine_count(s);
    size_t total = (size_t)boids_params_joint_rows(p) * n;
    float(*gj)[4] = malloc((total ? total : 1) * 16), (*sj)[4] = malloc((total ? total : 1) * 16);
    uint32_t *group = malloc(((size_t)n + 1) * 4);
    if (!gj || !sj || !group || boids_engine_read_joints(g, gj, total * 16) != BOIDS_OK ||
        boids_engine_read_joints(s, sj, total * 16) != BOIDS_OK || boids_engine_read(s, NULL, NULL, group) != BOIDS_OK) {
        fprintf(stderr, PROG ": cannot read the bodies\n");
        exit(3);
    }
    const boids_world_params *w = &p->world;
    for (uint32_t id = 0; id < n; id++) {
        const boids_body_params *b = &p->body[group[id]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        c.bodies++;
        bool differs = false, outside = false;
        for (uint32_t j = 0; j < b->joints; j++) {
            const float *cj = sj[(size_t)j * n + id], *q = gj[(size_t)j * n + id];
            for (uint32_t a = 0; a < 4; a++) {
                double u = ulps_apart(cj[a], q[a], false);
                differs = differs || u > 0.0;
                if (a < 3)
                    c.largest = fmax(c.largest, fabs(cj[a]));
                if (u > c.worst_ulps) {
                    c.worst_ulps = u;
                    c.worst_id = id;
                    c.worst_joint = j;
                    memcpy(c.cpu, cj, 16);
                    memcpy(c.gpu, q, 16);
                }
                outside = outside || (a < w->dim && (cj[a] < w->min[a] || cj[a] >= w->min[a] + w->size[a]));
            }
        }
        c.differ += differs;
        c.straddling += outside;
    }
    free(gj);
    free(sj);
    free(group);
    return c;
}

// One check line of the bodies' joints (PASS: every body bit-equal; FAIL:
// how many differ, the worst joint).
static void check_joints(const char *name, const char *when, const joint_compare *c) {
    char straddle[96];
    snprintf(straddle, sizeof straddle, "; %u bodies straddle the world's edge", c->straddling);
    if (c->differ == 0) {
        validate_check(true, "%-12s %s: all %u bodies' joints bit-equal to the CPU's%s", name, when, c->bodies,
                       straddle);
        return;
    }
    validate_check(false,
                   "%-12s %s: %u of %u bodies differ from the CPU's bits, at worst by %.0f ULP (id %u joint %u: cpu "
                   "%.9g %.9g %.9g angle %.9g, gpu %.9g %.9g %.9g angle %.9g)%s",
                   name, when, c->differ, c->bodies, c->worst_ulps, c->worst_id, c->worst_joint, (double)c->cpu[0],
                   (double)c->cpu[1], (double)c->cpu[2], (double)c->cpu[3], (double)c->gpu[0], (double)c->gpu[1],
                   (double)c->gpu[2], (double)c->gpu[3], straddle);
}

// See validate.h: the group parameters of p on both engines (the validation switches
// behaviours on one at a time this way).
void validate_set_both(boids_engine *s, boids_engine *g, const boids_params *p) {
    boids_engine_set_params(s, p, NULL, 0);
    boids_engine_set_params(g, p, NULL, 0); // a fault: found by the next validate_exit_on_fault
}

// See validate.h. Horizon 2 for one behaviour (b < COUNT) or all of them (b == COUNT):
// steer on both (forces by id, bit for bit), then integrate (velocities and
// positions by id, with the wander angles of their w lanes), then the
// bodies. Returns false when the behaviour gives no force anywhere in this
// set-up (nothing to compare).
bool validate_one_step(boids_engine *s, boids_engine *g, const boids_params *all, boids_engine *initial, uint32_t b,
                       const char *label) {
    boids_params p = *all;
    for (uint32_t k = 0; k < p.world.group_count; k++)
        if (b < BOIDS_BEHAVIOR_COUNT)
            p.group[k].behaviors = BOIDS_BIT(b);
    validate_set_both(s, g, &p);
    uint32_t n = boids_engine_count(s);
    boids_engine_copy_state(s, initial);
    boids_engine_copy_state(g, s);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_STEER);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_STEER);
    validate_exit_on_fault(g);
    size_t m = (size_t)n + 1;
    float(*cpu)[4] = malloc(m * 16), (*gpu)[4] = malloc(m * 16);
    float(*cpu_v)[4] = malloc(m * 16), (*gpu_v)[4] = malloc(m * 16);
    float(*acc)[4] = validate_read_new(g, BOIDS_ENGINE_ACCEL, (size_t)n * 16),
    (*cacc)[4] = validate_read_new(s, BOIDS_ENGINE_ACCEL, (size_t)n * 16);
    uint32_t *id = validate_read_new(g, BOIDS_ENGINE_ID, (size_t)n * 4),
             *cid = validate_read_new(s, BOIDS_ENGINE_ID, (size_t)n * 4);
    if (!cpu || !gpu || !cpu_v || !gpu_v) {
        fprintf(stderr, PROG ": out of memory\n");
        exit(3);
    }
    memset(gpu, 0, m * 16);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i] < n ? id[i] : n], acc[i], 16);
        memcpy(cpu[cid[i] < n ? cid[i] : n], cacc[i], 16);
    }
    // The force is an intermediate: its zeros' signs may differ (what the
    // state keeps of it is compared bit for bit below).
    compare f = compare_bits((const float(*)[4])cpu, (const float(*)[4])gpu, n, 3, true);
    const char *name = label ? label : b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : "all together";
    bool vacuous = f.largest == 0 && f.differ == 0; // no force on either side (a GPU force where the CPU has none fails)
    if (vacuous && (b < BOIDS_BEHAVIOR_COUNT || label))
        printf("  n/a   %-12s gives no force to any agent in this set-up: nothing to compare\n", name);
    else
        check_bits(name, "force", &f, n, cpu[f.worst_id], gpu[f.worst_id], "");
    // Integrate: velocities and positions, with the wander angles in their
    // w lanes.
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_INTEGRATE);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_INTEGRATE);
    validate_exit_on_fault(g);
    if (boids_engine_read(g, gpu, gpu_v, NULL) != BOIDS_OK)
        validate_exit_on_fault(g);
    boids_engine_read(s, cpu, cpu_v, NULL);
    if (!(vacuous && (b < BOIDS_BEHAVIOR_COUNT || label))) {
        compare v = compare_bits((const float(*)[4])cpu_v, (const float(*)[4])gpu_v, n, 4, false);
        compare q = compare_bits((const float(*)[4])cpu, (const float(*)[4])gpu, n, 4, false);
        check_bits(name, "velocity", &v, n, cpu_v[v.worst_id], gpu_v[v.worst_id], "");
        check_bits(name, "position", &q, n, cpu[q.worst_id], gpu[q.worst_id], "");
    }
    if (b == BOIDS_BEHAVIOR_COUNT && boids_params_joint_rows(&p) > 0) {
        boids_engine_stage(s, BOIDS_ENGINE_STAGE_BODIES);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        validate_exit_on_fault(g);
        joint_compare c = compare_joints(s, g);
        check_joints(name, "bodies", &c);
    }
    void *arrays[] = {cpu, gpu, cpu_v, gpu_v, acc, cacc, id, cid};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    return !vacuous;
}

// See validate.h. Horizon 4: the bodies stage alone, from the same heads: every step the
// CPU steps (its bodies follow its agents), its agents are copied and the
// GPU's bodies follow them; joints compared bit for bit after 1 and `steps`
// steps. The CPU steps with the parameters of now (a scenario's schedule
// stops here).
void validate_bodies(boids_engine *s, boids_engine *g, boids_engine *initial, uint32_t steps) {
    printf("4. bodies: %u steps of the bodies stage from the CPU's heads (%u joints per agent)\n", steps,
           boids_params_joint_rows(boids_engine_params(s)));
    boids_scenario still = *boids_engine_scenario(s);
    still.params = *boids_engine_params(s);
    still.target_mode = boids_scenario_target_scheduled(&still) ? BOIDS_TARGET_FIXED : still.target_mode;
    still.vary_count = 0;
    boids_engine_set_scenario(s, &still, NULL, 0);
    boids_engine_copy_state(s, initial);
    boids_engine_reset_bodies(s);
    boids_engine_copy_state(g, s);
    for (uint32_t k = 1; k <= steps; k++) {
        boids_engine_step(s, 1, NULL);
        boids_engine_copy_agents(g, s);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        validate_exit_on_fault(g);
        if (k != 1 && k != steps)
            continue;
        char when[32];
        snprintf(when, sizeof when, "after %u step%s", k, k == 1 ? "" : "s");
        joint_compare c = compare_joints(s, g);
        check_joints("joints", when, &c);
    }
}

// Invariants of a state: finite, in bounds, speed <= the agent's maxspeed.
static uint32_t broken_invariants(boids_engine *e) {
    const boids_params *prm = boids_engine_params(e);
    const boids_world_params *w = &prm->world;
    uint32_t n = boids_engine_count(e), bad = 0;
    float(*pos)[4] = malloc(((size_t)n + 1) * 16), (*vel)[4] = malloc(((size_t)n + 1) * 16);
    uint32_t *group = malloc(((size_t)n + 1) * 4);
    if (!pos || !vel || !group || boids_engine_read(e, pos, vel, group) != BOIDS_OK)
        bad = n ? n : 1;
    for (uint32_t i = 0; i < n && !bad; i++) {
        const float *p = pos[i], *v = vel[i];
        float speed2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        float max = boids_agent_maxspeed(w, &prm->group[group[i]], i) * 1.0001f; // i: the id
        bool ok = speed2 <= max * max;
        for (uint32_t a = 0; a < 3; a++) {
            ok = ok && isfinite(p[a]) && isfinite(v[a]);
            if (a < w->dim)
                ok = ok && p[a] >= w->min[a] - boids_world_overhang(w) &&
                     p[a] <= w->min[a] + w->size[a] + boids_world_overhang(w);
        }
        bad += !ok;
    }
    free(pos);
    free(vel);
    free(group);
    return bad;
}

// See validate.h. Horizon 3: S steps on each backend from the same state (each applies the
// scenario's schedule; the CPU reference saved every `every` steps of
// them); 0, or 3 when a save failed (stopped).
int validate_many_steps(boids_engine *s, boids_engine *g, uint64_t steps, const validate_saving *sv, bool quiet) {
    printf("3. %llu steps: statistics and invariants%s\n", (unsigned long long)steps,
           boids_scenario_is_dynamic(boids_engine_scenario(s)) ? " (with the scenario's schedule, as boids-run)" : "");
    fflush(stdout); // a log shows which horizon the long part is in
    boids_engine_copy_state(g, s);
    // Progress: on a terminal one updating line (progress.h); nothing else.
    if (!quiet)
        boids_progress_start(PROG, steps);
    for (uint64_t k = 0; k < steps && !boids_cli_interrupted(); k++) {
        boids_engine_step(s, 1, NULL);
        boids_engine_step(g, 1, NULL);
        validate_exit_on_fault(g);
        boids_progress_update(k + 1);
        if (sv->path && sv->every && (k + 1) % sv->every == 0 && k + 1 != steps && validate_save_reference(s, sv->path))
            return 3;
    }
    boids_progress_finish();
    boids_stats c, q;
    boids_engine_stats(g, &q);
    validate_exit_on_fault(g);
    boids_engine_stats(s, &c);
    uint32_t n = boids_engine_count(s);
    // Chaos makes trajectories diverge; averages over N agents then agree to
    // about their spread / sqrt(N) (speeds spread by ~1/4 of their mean, so
    // 2/sqrt(N) relative is ~6 sigma). Bounds: 1% + 2/sqrt(N) relative, and
    // 0.02 + 3/sqrt(N) absolute for the polarisation (itself ~1/sqrt(N)
    // when the headings are unaligned).
    double rel = 0.01 + 2.0 / sqrt((double)(n ? n : 1));
    double pol = 0.02 + 3.0 / sqrt((double)(n ? n : 1));
    validate_check(fabs(c.polarisation - q.polarisation) <= pol, "polarisation cpu %.4f gpu %.4f (bound %.4f)",
                   c.polarisation, q.polarisation, pol);
    // Milling (m_r) is an average of unit terms like the polarisation: the same bound.
    validate_check(fabs(c.milling - q.milling) <= pol, "milling cpu %.4f gpu %.4f (bound %.4f)", c.milling, q.milling,
                   pol);
    validate_check(fabs(c.mean_speed - q.mean_speed) <= rel * c.mean_speed + 1e-6,
                   "mean speed cpu %.4f gpu %.4f (bound %.1f%%)", c.mean_speed, q.mean_speed, 100 * rel);
    validate_check(fabs(c.mean_neighbors - q.mean_neighbors) <= rel * c.mean_neighbors + 1e-6,
                   "mean neighbours cpu %.3f gpu %.3f (bound %.1f%%)", c.mean_neighbors, q.mean_neighbors, 100 * rel);
    validate_check(fabs(c.mean_nearest - q.mean_nearest) <= rel * c.mean_nearest + 1e-6,
                   "mean nearest-neighbour distance cpu %.4f gpu %.4f (bound %.1f%%)", c.mean_nearest, q.mean_nearest,
                   100 * rel);
    // Every step bit-equal on both (horizon 2), the whole run is too.
    unsigned long long hc = boids_engine_hash(s), hg = boids_engine_hash(g);
    validate_check(hc == hg, "state after the steps: state-hash cpu %016llx gpu %016llx (%s)", hc, hg,
                   hc == hg ? "bit-equal" : "the states differ");
    uint32_t bc = broken_invariants(s), bg = broken_invariants(g);
    validate_check(bc == 0 && bg == 0,
                   "invariants (finite, in bounds, speed <= maxspeed): %u cpu / %u gpu agents break them", bc, bg);
    return 0;
}
