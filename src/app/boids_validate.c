// src/app/boids_validate.c: boids-validate, the CPU-vs-GPU validation. One
// initial state goes into both backends; the report compares them on the
// three horizons of DESIGN.md ("Determinism and parity") and the exit status
// is 0 only if every check holds.
//   1. exact: cells, counts, starts, sum == N, ids per cell, neighbour counts
//      (pairs within a few ULP of the radius are listed, not failed);
//   2. one step: each behaviour alone and all together, per agent
//      |gpu - cpu| <= atol + rtol |cpu| and a normwise check;
//   3. S steps: statistics within stated bounds, invariants.
// A GPU fault (boids_engine_check: the context lost, OpenGL errors) is checked
// before each comparison reads the GPU: one line, exit 3.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/engine.h"
#include "cli.h"

#define PROG "boids-validate"

static const char usage[] =
    "usage: boids-validate [--count N] [--steps S] [--dim 2|3] [--behaviors LIST|all] [--seed X]\n"
    "                      [--boundary wrap|walls|bounce] [--shader-dir DIR] [simulation flags of boids-run]\n"
    "\n"
    "Runs the same initial state on the CPU reference and on the GPU compute shaders\n"
    "(headless EGL) and compares them: exactly (grid cells, counts, starts, ids per\n"
    "cell, neighbour counts), after one step per behaviour (tolerances from the GLSL\n"
    "4.50 precision rules), and after S steps (statistics and invariants); then the\n"
    "bodies stage alone from the same heads, after 1 and min(S, 100) steps (without\n"
    "--bodies: a snake, a chain and a fish, one per group; --joints, --body-length).\n"
    "--scenario FILE|NAME validates a scenario's world instead of the three-group set-up;\n"
    "--load FILE.boids starts from a snapshot (its parameters, agents and bodies) instead.\n"
    "--save FILE.boids writes the CPU reference's state after the S steps (boids-run --load\n"
    "continues it), and every K of them with --save-every K.\n"
    "SIGINT / SIGTERM stop the S steps (the statistics compare the steps done, --save is\n"
    "written) and exit 130 / 143.\n"
    "Defaults: 100000 agents, 100 steps, behaviours all. Exit status 0 when every\n"
    "check holds, 1 when one fails, 2 for bad arguments, 3 without OpenGL 4.5 or on a\n"
    "GPU fault (the OpenGL context lost, OpenGL errors).\n";

static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// One line of the report: PASS or FAIL and what was compared.
static void check(bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("  %s  ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!ok)
        failures++;
}

// A GPU fault (the context lost, OpenGL errors) is the environment's, not a
// failed comparison: one line, exit 3, before anything is compared.
static void exit_on_fault(boids_engine *g) {
    char line[1024];
    if (boids_engine_check(g, line, sizeof line) == BOIDS_OK)
        return;
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROG, line);
    exit(3);
}

// A new array of `bytes` (and a spare row) holding one of e's buffers; a
// GPU fault on the read: exit_on_fault. Freed by the caller.
static void *read_new(boids_engine *e, boids_engine_buffer which, size_t bytes) {
    void *v = malloc(bytes + 16);
    if (!v) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        exit(3);
    }
    if (boids_engine_read_buffer(e, which, v, bytes) != BOIDS_OK)
        exit_on_fault(e);
    return v;
}

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

// Horizon 1: the grid and the neighbour counts, exactly.
static void exact(boids_engine *s, boids_engine *g) {
    uint32_t n = boids_engine_count(s), cells = boids_engine_cells(s);
    printf("1. exact: grid and neighbours (%u agents, %u cells)\n", n, cells);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_GRID);
    exit_on_fault(g);
    size_t nb = (size_t)n * 4, cb = (size_t)cells * 4;
    uint32_t *key = read_new(g, BOIDS_ENGINE_KEY, nb), *count = read_new(g, BOIDS_ENGINE_COUNT, cb);
    uint32_t *start = read_new(g, BOIDS_ENGINE_START, cb + 4), *id = read_new(g, BOIDS_ENGINE_ID, nb);
    uint32_t *ckey = read_new(s, BOIDS_ENGINE_KEY, nb), *ccount = read_new(s, BOIDS_ENGINE_COUNT, cb);
    uint32_t *cstart = read_new(s, BOIDS_ENGINE_START, cb + 4), *cid = read_new(s, BOIDS_ENGINE_ID, nb);
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
    check(bad_key == 0, "cell of every agent: %u of %u differ", bad_key, n);
    check(bad_count == 0, "agents per cell: %u of %u cells differ", bad_count, cells);
    check(bad_start == 0 && start[cells] == n, "cell starts: %u differ, start[cells] = %u (N = %u)", bad_start,
          start[cells], n);
    check(sum == n, "sum of counts = %llu (N = %u)", (unsigned long long)sum, n);
    check(bad_set == 0, "the set of ids in each cell: %u cells differ", bad_set);
    free(id);

    // Neighbour counts after one steer (by id: the GPU's slot order is the atomics').
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_STEER);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_STEER);
    uint32_t *gn = read_new(g, BOIDS_ENGINE_NEIGHBORS, nb);
    id = read_new(g, BOIDS_ENGINE_ID, nb);
    uint32_t *cn = read_new(s, BOIDS_ENGINE_NEIGHBORS, nb), *cgroup = read_new(s, BOIDS_ENGINE_GROUP, nb);
    float(*cpos)[4] = read_new(s, BOIDS_ENGINE_POS, nb * 4);
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
    check(differ == 0, "neighbour count of every agent: %u differ (%u more only by pairs at the radius)", differ,
          borderline);
    void *all[] = {key, count, start, id, ckey, ccount, cstart, cid, gn, cn, cgroup, cpos, by_id};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        free(all[k]);
}

// Tolerances of one step, from the GLSL 4.50 precision rules (section
// 4.7.1): +, -, * correctly rounded, / and inversesqrt 2.5 and 2 ULP, sqrt
// as 1/inversesqrt, and the driver may fuse a*b+c unless `precise`. A
// steering force is desired - velocity (|desired|, |velocity| <= maxspeed)
// limited to maxforce, so a rounding difference of k ULP in a chain of
// ~10 operations on values of magnitude maxspeed shows as an absolute
// error of about 10 * 4 * 2^-23 * maxspeed: ARITH = 64 * 2^-23 per unit of
// maxspeed. The neighbour sums are the same integers unless one term rounds
// differently (1 unit in 2^32 of the radius); every in-range decision is
// made on squared values, which round alike everywhere. sin, cos, atan have
// only an absolute bound (2^-11 on [-pi, pi]): wander's force gets TRIG = 4 *
// 2^-11 per unit of maxspeed. A combination is a weighted sum, so its
// tolerance is the weighted sum of its behaviours'. rtol = 2^-16.
#define ARITH BOIDS_TOL_ARITH
#define TRIG BOIDS_TOL_TRIG
#define RTOL BOIDS_TOL_REL

static float force_atol(const boids_group_params *g, uint32_t behaviors) {
    float atol = 0.0f;
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
        if (behaviors & BOIDS_BIT(b))
            atol += fabsf(g->weight[b >> 2][b & 3]) * (b == BOIDS_BI_WANDER ? TRIG : ARITH) * g->maxspeed;
    return atol > 0.0f ? atol : ARITH * g->maxspeed;
}

// Worst |gpu - cpu| / (atol + rtol |cpu|) over xyz of id-indexed arrays,
// with a per-agent atol; the normwise relative error; the largest |cpu|.
typedef struct compare {
    double worst, norm, largest;
    uint32_t worst_id, bad;
} compare;

static compare compare_by_id(const float (*cpu)[4], const float (*gpu)[4], const float *atol, uint32_t n) {
    compare c = {.worst = -1};
    double err2 = 0, ref2 = 0;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            double e = fabs((double)gpu[i][a] - cpu[i][a]), lim = atol[i] + RTOL * fabs(cpu[i][a]);
            err2 += e * e;
            ref2 += (double)cpu[i][a] * cpu[i][a];
            c.largest = fmax(c.largest, fabs(cpu[i][a]));
            c.bad += e > lim;
            if (e / lim > c.worst) {
                c.worst = e / lim;
                c.worst_id = i;
            }
        }
    c.norm = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    return c;
}

// Joints of s and g compared (both id-indexed, joint-major): worst
// |gpu - cpu| per coordinate over its tolerance boids_tol_joint (plus
// head_tol, the error the head itself may carry), the largest difference,
// and how many bodies straddle the world's edge (joints outside it: the
// torus seam was crossed).
typedef struct joint_compare {
    double worst, largest;
    uint32_t bad, straddling, worst_id, worst_joint;
} joint_compare;

static joint_compare compare_joints(boids_engine *s, boids_engine *g, uint32_t steps, float head_tol) {
    joint_compare c = {0};
    const boids_params *p = boids_engine_params(s);
    uint32_t n = boids_engine_count(s);
    size_t total = (size_t)boids_params_joint_rows(p) * n;
    float(*gj)[4] = malloc((total ? total : 1) * 16), (*sj)[4] = malloc((total ? total : 1) * 16);
    if (!gj || !sj || boids_engine_read_joints(g, gj, total * 16) != BOIDS_OK ||
        boids_engine_read_joints(s, sj, total * 16) != BOIDS_OK) {
        free(gj);
        free(sj);
        c.bad = 1;
        c.worst = INFINITY;
        return c;
    }
    // In the CPU's slot order, as the worst is the first of equals.
    uint32_t *slot_id = read_new(s, BOIDS_ENGINE_ID, (size_t)n * 4),
             *slot_group = read_new(s, BOIDS_ENGINE_GROUP, (size_t)n * 4);
    float trig = boids_engine_trig_error(g);
    const boids_world_params *w = &p->world;
    for (uint32_t i = 0; i < n; i++) {
        const boids_body_params *b = &p->body[slot_group[i]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        uint32_t id = slot_id[i];
        float reach = 0.0f;
        bool outside = false;
        for (uint32_t j = 0; j < b->joints; j++) {
            const float *cj = sj[(size_t)j * n + id], *q = gj[(size_t)j * n + id];
            if (j > 0)
                reach += boids_body_length(b, j - 1);
            for (uint32_t a = 0; a < w->dim; a++) {
                double e = fabs((double)q[a] - cj[a]), lim = head_tol + boids_tol_joint(cj[a], j, reach, steps, trig);
                c.largest = fmax(c.largest, e);
                c.bad += !(e <= lim);
                if (!(e / lim <= c.worst)) {
                    c.worst = e / lim;
                    c.worst_id = id;
                    c.worst_joint = j;
                }
                outside = outside || cj[a] < w->min[a] || cj[a] >= w->min[a] + w->size[a];
            }
        }
        c.straddling += outside;
    }
    free(gj);
    free(sj);
    free(slot_id);
    free(slot_group);
    return c;
}

// The group parameters of p on both engines (the validation switches
// behaviours on one at a time this way).
static void set_both(boids_engine *s, boids_engine *g, const boids_params *p) {
    boids_engine_set_params(s, p, NULL, 0);
    boids_engine_set_params(g, p, NULL, 0); // a fault: found by the next exit_on_fault
}

// Horizon 2 for one behaviour (b < COUNT) or all of them (b == COUNT):
// steer on both (forces by id), then integrate (velocities, positions and
// the wander angles of the w lanes by id). Returns false when the behaviour
// gives no force anywhere in this set-up (nothing to compare).
static bool one_step(boids_engine *s, boids_engine *g, const boids_params *all, boids_engine *initial, uint32_t b) {
    boids_params p = *all;
    for (uint32_t k = 0; k < p.world.group_count; k++)
        if (b < BOIDS_BEHAVIOR_COUNT)
            p.group[k].behaviors = BOIDS_BIT(b);
    set_both(s, g, &p);
    uint32_t n = boids_engine_count(s);
    boids_engine_copy_state(s, initial);
    boids_engine_copy_state(g, s);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_STEER);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_GRID);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_STEER);
    exit_on_fault(g);
    size_t m = (size_t)n + 1;
    float(*cpu)[4] = malloc(m * 16), (*gpu)[4] = malloc(m * 16);
    float(*cpu_v)[4] = malloc(m * 16), (*gpu_v)[4] = malloc(m * 16), *atol = malloc(m * 4);
    uint32_t *grp = malloc(m * 4);
    float(*acc)[4] = read_new(g, BOIDS_ENGINE_ACCEL, (size_t)n * 16),
    (*cacc)[4] = read_new(s, BOIDS_ENGINE_ACCEL, (size_t)n * 16);
    uint32_t *id = read_new(g, BOIDS_ENGINE_ID, (size_t)n * 4), *cid = read_new(s, BOIDS_ENGINE_ID, (size_t)n * 4);
    uint32_t *cgroup = read_new(s, BOIDS_ENGINE_GROUP, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i] < n ? id[i] : 0], acc[i], 16);
        uint32_t k = cid[i];
        memcpy(cpu[k], cacc[i], 16);
        const boids_group_params *gp = &p.group[cgroup[i]];
        uint32_t walls = p.world.boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0;
        atol[k] = force_atol(gp, gp->behaviors | walls);
    }
    compare f = compare_by_id((const float(*)[4])cpu, (const float(*)[4])gpu, atol, n);
    const char *name = b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : "all together";
    bool vacuous = f.largest == 0;
    if (vacuous && b < BOIDS_BEHAVIOR_COUNT) {
        printf("  n/a   %-12s gives no force to any agent in this set-up: nothing to compare\n", name);
    } else {
        check(f.bad == 0 && f.norm <= 1e-3 && !vacuous,
              "%-12s force: largest %.3g, worst id %u at %.2f of its tolerance (cpu %.6g %.6g, gpu %.6g %.6g), "
              "normwise %.2e",
              name, f.largest, f.worst_id, f.worst, (double)cpu[f.worst_id][0], (double)cpu[f.worst_id][1],
              (double)gpu[f.worst_id][0], (double)gpu[f.worst_id][1], f.norm);
    }
    // Integrate: v += a dt (the force's error times dt, plus a turn limit's
    // atan/sin/cos: TRIG), p += v dt (plus one rounding of p: 2^-23 of the
    // world), and the wander angles (sums of exact RNG steps: 2^-20 rad).
    boids_engine_stage(s, BOIDS_ENGINE_STAGE_INTEGRATE);
    boids_engine_stage(g, BOIDS_ENGINE_STAGE_INTEGRATE);
    exit_on_fault(g);
    if (boids_engine_read(g, gpu, gpu_v, grp) != BOIDS_OK)
        exit_on_fault(g);
    float extent = 0;
    for (uint32_t a = 0; a < p.world.dim; a++)
        extent = fmaxf(extent, p.world.size[a]);
    float(*cpu_p)[4] = cpu;
    boids_engine_read(s, cpu_p, cpu_v, NULL);
    for (uint32_t i = 0; i < n; i++) {
        const boids_group_params *gp = &p.group[grp[i] < p.world.group_count ? grp[i] : 0];
        atol[i] = atol[i] * p.world.dt + (gp->max_turn > 0 ? TRIG * gp->maxspeed : 0.0f);
    }
    compare v = compare_by_id((const float(*)[4])cpu_v, (const float(*)[4])gpu_v, atol, n);
    double worst_p = 0, worst_w = 0;
    for (uint32_t i = 0; i < n; i++) {
        float d[3];
        boids_world_delta(&p.world, cpu_p[i], gpu[i], d);
        double lim = atol[i] * p.world.dt + extent * 2.4e-7;
        for (int a = 0; a < 3; a++)
            worst_p = fmax(worst_p, fabs(d[a]) / lim);
        worst_w = fmax(worst_w, fabs(boids_angle_diff(gpu[i][3], cpu_p[i][3])) / 9.5367432e-7);
        worst_w = fmax(worst_w, fabs(boids_angle_diff(gpu_v[i][3], cpu_v[i][3])) / 9.5367432e-7);
    }
    if (!(vacuous && b < BOIDS_BEHAVIOR_COUNT))
        check(v.bad == 0 && worst_p <= 1.0 && worst_w <= 1.0,
              "%-12s step: velocity worst id %u at %.2f, position at %.2f, wander angles at %.2f of their "
              "tolerances",
              name, v.worst_id, v.worst, worst_p, worst_w);
    if (b == BOIDS_BEHAVIOR_COUNT && boids_params_joint_rows(&p) > 0) {
        // The whole step's bodies: the heads carry the position tolerance.
        float head_tol = 0;
        for (uint32_t i = 0; i < n; i++)
            head_tol = fmaxf(head_tol, atol[i] * p.world.dt + extent * 2.4e-7f);
        boids_engine_stage(s, BOIDS_ENGINE_STAGE_BODIES);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        joint_compare c = compare_joints(s, g, 1, head_tol);
        check(c.bad == 0,
              "%-12s bodies: largest joint difference %.3g, worst id %u joint %u at %.2f of its "
              "tolerance",
              name, c.largest, c.worst_id, c.worst_joint, c.worst);
    }
    void *arrays[] = {cpu, gpu, cpu_v, gpu_v, atol, grp, acc, cacc, id, cid, cgroup};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    return !vacuous;
}

// Horizon 4: the bodies stage alone, from the same heads: every step the
// CPU steps (its bodies follow its agents), its agents are copied and the
// GPU's bodies follow them; joints compared after 1 and `steps` steps. The
// CPU steps with the parameters of now (a scenario's schedule stops here).
static void bodies(boids_engine *s, boids_engine *g, boids_engine *initial, uint32_t steps) {
    printf("4. bodies: %u steps of the bodies stage from the CPU's heads (%u joints per agent; this GPU's sin, "
           "cos, atan err by at most %.2g)\n",
           steps, boids_params_joint_rows(boids_engine_params(s)), (double)boids_engine_trig_error(g));
    boids_scenario still = *boids_engine_scenario(s);
    still.params = *boids_engine_params(s);
    still.target_mode = still.target_mode == BOIDS_TARGET_CIRCLE ? BOIDS_TARGET_FIXED : still.target_mode;
    still.vary_count = 0;
    boids_engine_set_scenario(s, &still, NULL, 0);
    boids_engine_copy_state(s, initial);
    boids_engine_reset_bodies(s);
    boids_engine_copy_state(g, s);
    for (uint32_t k = 1; k <= steps; k++) {
        boids_engine_step(s, 1, NULL);
        boids_engine_copy_agents(g, s);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        exit_on_fault(g);
        if (k != 1 && k != steps)
            continue;
        joint_compare c = compare_joints(s, g, k, 0.0f);
        check(c.bad == 0,
              "joints after %u step%s: largest difference %.3g, worst id %u joint %u at %.2f of its "
              "tolerance; %u bodies straddle the world's edge",
              k, k == 1 ? "" : "s", c.largest, c.worst_id, c.worst_joint, c.worst, c.straddling);
    }
}

// Invariants of a state: finite, in bounds, speed <= maxspeed.
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
        float max = prm->group[group[i]].maxspeed * 1.0001f;
        bool ok = speed2 <= max * max;
        for (uint32_t a = 0; a < 3; a++) {
            ok = ok && isfinite(p[a]) && isfinite(v[a]);
            if (a < w->dim)
                ok = ok && p[a] >= w->min[a] && p[a] <= w->min[a] + w->size[a];
        }
        bad += !ok;
    }
    free(pos);
    free(vel);
    free(group);
    return bad;
}

// --save / --save-every: the CPU reference's state now, with the scenario;
// 0, or 3 with one line printed.
static int save_reference(boids_engine *s, const char *path) {
    char err[1200];
    if (boids_engine_save(s, path, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "\n%s: --save: %s\n", PROG, err);
        return 3;
    }
    printf("  saved: %s (the CPU reference at step %llu)\n", path, (unsigned long long)boids_engine_steps(s));
    return 0;
}

// Where and how often horizon 3 saves the CPU reference (path NULL: never).
typedef struct saving {
    const char *path;
    uint64_t every; // 0: only at the end
} saving;

// Horizon 3: S steps on each backend from the same state (each applies the
// scenario's schedule; the CPU reference saved every `every` steps of
// them); 0, or 3 when a save failed (stopped).
static int many_steps(boids_engine *s, boids_engine *g, uint64_t steps, const saving *sv) {
    printf("3. %llu steps: statistics and invariants%s\n", (unsigned long long)steps,
           boids_scenario_is_dynamic(boids_engine_scenario(s)) ? " (with the scenario's schedule, as boids-run)" : "");
    boids_engine_copy_state(g, s);
    for (uint64_t k = 0; k < steps && !boids_cli_interrupted(); k++) {
        boids_engine_step(s, 1, NULL);
        boids_engine_step(g, 1, NULL);
        exit_on_fault(g);
        if ((k + 1) % 50 == 0 || k + 1 == steps) {
            fprintf(stderr, "\r%s: step %llu/%llu", PROG, (unsigned long long)(k + 1), (unsigned long long)steps);
            fflush(stderr);
        }
        if (sv->path && sv->every && (k + 1) % sv->every == 0 && k + 1 != steps && save_reference(s, sv->path))
            return 3;
    }
    fprintf(stderr, "\n");
    boids_stats c, q;
    boids_engine_stats(g, &q);
    exit_on_fault(g);
    boids_engine_stats(s, &c);
    uint32_t n = boids_engine_count(s);
    // Chaos makes trajectories diverge; averages over N agents then agree to
    // about their spread / sqrt(N) (speeds spread by ~1/4 of their mean, so
    // 2/sqrt(N) relative is ~6 sigma). Bounds: 1% + 2/sqrt(N) relative, and
    // 0.02 + 3/sqrt(N) absolute for the polarisation (itself ~1/sqrt(N)
    // when the headings are unaligned).
    double rel = 0.01 + 2.0 / sqrt((double)(n ? n : 1));
    double pol = 0.02 + 3.0 / sqrt((double)(n ? n : 1));
    check(fabs(c.polarisation - q.polarisation) <= pol, "polarisation cpu %.4f gpu %.4f (bound %.4f)", c.polarisation,
          q.polarisation, pol);
    check(fabs(c.mean_speed - q.mean_speed) <= rel * c.mean_speed + 1e-6, "mean speed cpu %.4f gpu %.4f (bound %.1f%%)",
          c.mean_speed, q.mean_speed, 100 * rel);
    check(fabs(c.mean_neighbors - q.mean_neighbors) <= rel * c.mean_neighbors + 1e-6,
          "mean neighbours cpu %.3f gpu %.3f (bound %.1f%%)", c.mean_neighbors, q.mean_neighbors, 100 * rel);
    check(fabs(c.mean_nearest - q.mean_nearest) <= rel * c.mean_nearest + 1e-6,
          "mean nearest-neighbour distance cpu %.4f gpu %.4f (bound %.1f%%)", c.mean_nearest, q.mean_nearest,
          100 * rel);
    uint32_t bc = broken_invariants(s), bg = broken_invariants(g);
    check(bc == 0 && bg == 0, "invariants (finite, in bounds, speed <= maxspeed): %u cpu / %u gpu agents break them",
          bc, bg);
    return 0;
}

// The parameters from the options (without a scenario: every behaviour,
// three groups of which the third hunts the others, three bodies) and the
// scenario in effect; 0 or the exit status (one line printed).
static int setup_params(boids_options *o, uint32_t n, boids_params *p, boids_scenario *scen) {
    bool own_setup = o->scenario == NULL;
    if (!o->behaviors_set && own_setup) {
        o->behaviors = (1u << BOIDS_BEHAVIOR_COUNT) - 1u;
        o->behaviors_set = true;
    }
    char err[4096];
    if (boids_options_params(o, n, p, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    // Bodies: without --bodies, a snake, a chain and a fish (one per group).
    if (!o->body_style_set && own_setup) {
        static const uint32_t styles[3] = {BOIDS_BODY_SNAKE, BOIDS_BODY_CHAIN, BOIDS_BODY_FISH};
        for (uint32_t k = 0; k < 3; k++) {
            float length = o->body_length_set ? o->body_length : 1.2f * p->group[k].separation;
            if (boids_body_make(&p->body[k], styles[k], o->joints, length, err, sizeof err) != BOIDS_OK) {
                fprintf(stderr, "%s: --body-length: %s\n", PROG, err);
                return 2;
            }
        }
    }
    // Three groups so the relations are exercised too: 0 and 1 are prey
    // (flock together, flee group 2), 2 are predators (pursue 0 and 1).
    if (own_setup) {
        p->world.group_count = 3;
        for (uint32_t k = 0; k < 2; k++)
            p->group[k].relations = BOIDS_REL_FLEE << (BOIDS_REL_BITS * 2);
        p->group[2].relations = (BOIDS_REL_PURSUE << 0) | (BOIDS_REL_PURSUE << BOIDS_REL_BITS);
        p->group[2].maxspeed *= 1.2f;
        p->group[2].radius *= 1.2f;
    }
    if (boids_params_finalize(p, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s: the three-group set-up does not fit: %s\n", PROG, err);
        return 2;
    }
    boids_options_scenario(o, p, scen);
    return 0;
}

int main(int argc, char **argv) {
    const boids_cli_spec spec = {
        .prog = PROG,
        .usage = usage,
        .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_SHADER_DIR | BOIDS_CLI_THREADS |
                 BOIDS_CLI_LOAD | BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY,
    };
    boids_options o;
    int rc = boids_cli_parse(argc, argv, &spec, &o);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return 2;
    uint32_t n = o.count_set ? o.count : 100000;
    uint64_t steps = o.steps_set ? o.steps : 100;
    boids_cli_catch_interrupts(); // SIGINT / SIGTERM: the S steps stop, --save is written, exit 130 / 143
    boids_params p;
    char err[4096];
    boids_engine *s = NULL, *initial = NULL, *g = NULL; // the CPU reference, the initial state, the GPU
    boids_engine_headless *gl = NULL;
    static boids_scenario scen_in_effect; // the options' or the snapshot's (saved with --save)
    boids_scenario *scen = &scen_in_effect;
    int code = 0; // the exit status of an early stop (one line printed)
    if (boids_engine_fault_env(err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = 2;
        goto out;
    }
    if (o.save && (code = boids_cli_check_output(PROG, "--save", o.save,
                                                 "a file path in an existing, writable "
                                                 "directory")))
        goto out;
    boids_engine_desc d = {.distribution = (boids_distribution)o.distribution, .threads = o.threads};
    if (o.load) { // the snapshot's state is the initial one
        boids_result lr = boids_engine_load(&initial, o.load, &d, err, sizeof err);
        if (lr != BOIDS_OK) {
            fprintf(stderr, "%s: --load: %s\n", PROG, err);
            code = lr == BOIDS_ERR_NOMEM ? 3 : 2;
            goto out;
        }
        p = *boids_engine_params(initial);
        p.flow.vec = NULL; // the engines build their own
        n = boids_engine_count(initial);
        *scen = *boids_engine_scenario(initial);
    } else if ((code = setup_params(&o, n, &p, scen)) != 0) {
        goto out;
    }
    d.params = &p; // the initial state has no schedule: its warm-up steps are plain steps
    if ((!initial && boids_engine_create(&initial, &d, NULL, 0) != BOIDS_OK) ||
        (d.scenario = scen, boids_engine_create(&s, &d, NULL, 0)) != BOIDS_OK) {
        fprintf(stderr, "%s: out of memory for %u agents\n", PROG, n);
        code = 3;
        goto out;
    }
    if (boids_engine_headless_open(&gl, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s: needs OpenGL 4.5: %s\n", PROG, err);
        code = 3;
        goto out;
    }
    d.backend = BOIDS_BACKEND_GPU;
    d.headless = gl;
    d.shader_dir = o.shader_dir;
    d.silent_errors = true;
    boids_result r = boids_engine_create(&g, &d, err, sizeof(err));
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? 2 : 3;
        goto out;
    }
    printf("boids-validate %s: %u agents, %uD, %s, seed %llu, on %s\n", BOIDS_VERSION, n, p.world.dim,
           boids_engine_renderer(g), (unsigned long long)((uint64_t)p.world.seed_hi << 32 | p.world.seed_lo),
           boids_engine_context(g));
    // A few CPU steps first, so agents have neighbours, headings and wander
    // state (a loaded snapshot has them).
    if (!o.load)
        boids_engine_step(initial, 3, NULL);
    boids_engine_copy_state(s, initial);
    boids_engine_copy_state(g, s);
    exact(s, g);

    printf("2. one step, each behaviour alone and all together (tolerances: GLSL 4.50 precision rules)\n");
    uint32_t compared = 0, vacuous = 0;
    for (uint32_t b = 0; b <= BOIDS_BEHAVIOR_COUNT; b++)
        if (b == BOIDS_BEHAVIOR_COUNT || (p.group[0].behaviors & BOIDS_BIT(b))) {
            bool any = one_step(s, g, &p, initial, b);
            compared += any;
            vacuous += !any;
        }
    printf("  (%u compared, %u with no force anywhere)\n", compared, vacuous);
    // Back to every enabled behaviour, from the same state, for the long run.
    set_both(s, g, &p);
    boids_engine_copy_state(s, initial);
    saving sv = {.path = o.save, .every = o.save_every};
    if ((code = many_steps(s, g, steps, &sv)))
        goto out; // a --save-every write failed (said in one line)
    int sig = boids_cli_interrupted();
    int save_rc = o.save ? save_reference(s, o.save) : 0; // the CPU reference after the S steps
    if (sig) {
        fprintf(stderr, "%s: interrupted at step %llu of %llu: the report above is incomplete\n", PROG,
                (unsigned long long)(boids_engine_steps(s) - boids_engine_steps(initial)), (unsigned long long)steps);
        save_rc = save_rc ? save_rc : 128 + sig;
    } else if (boids_params_joint_rows(&p) > 0) {
        bodies(s, g, initial, steps < 100 ? (uint32_t)steps : 100u);
    }

    exit_on_fault(g);
    printf("%s: %s (%d check%s failed)\n", PROG,
           sig        ? "INTERRUPTED"
           : failures ? "FAILED"
                      : "all checks passed",
           failures, failures == 1 ? "" : "s");
    code = save_rc ? save_rc : failures ? 1 : 0;
out:
    boids_engine_destroy(g);
    boids_engine_headless_close(gl);
    boids_engine_destroy(s);
    boids_engine_destroy(initial);
    boids_options_free(&o);
    return code;
}
