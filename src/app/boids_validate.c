// src/app/boids_validate.c: boids-validate, the CPU-vs-GPU validation. One
// initial state goes into both backends; the report compares them on the
// three horizons of DESIGN.md ("Determinism and parity") and the exit status
// is 0 only if every check holds.
//   1. exact: cells, counts, starts, sum == N, ids per cell, neighbour counts
//      (pairs within a few ULP of the radius are listed, not failed);
//   2. one step: each behaviour alone and all together, per agent
//      |gpu - cpu| <= atol + rtol |cpu| and a normwise check;
//   3. S steps: statistics within stated bounds, invariants.
// A GPU fault (boids_gpu_check: the context lost, OpenGL errors) is checked
// before each comparison reads the GPU: one line, exit 3.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/gpu.h"
#include "boids/platform.h"
#include "boids/snapshot.h"
#include "cli.h"

#include <glad/gl.h>

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
static void exit_on_fault(boids_gpu *g) {
    char line[1024];
    if (boids_gpu_check(g, line, sizeof line) == BOIDS_OK)
        return;
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROG, line);
    exit(3);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

// Pairs of agent i (slot in s->cur) whose squared distance lies within
// `ulps` float steps of r^2: rounding may put them on either side.
static uint32_t borderline_pairs(const boids_sim *s, uint32_t i, float r, int ulps) {
    float r2 = r * r, tol = r2 * (float)ulps * 1.1920929e-7f;
    uint32_t k = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        if (j == i)
            continue;
        float d[3];
        boids_world_delta(&s->p.world, s->cur.pos[i], s->cur.pos[j], d);
        float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        k += fabsf(d2 - r2) <= tol;
    }
    return k;
}

// Horizon 1: the grid and the neighbour counts, exactly.
static void exact(boids_sim *s, boids_gpu *g) {
    printf("1. exact: grid and neighbours (%u agents, %u cells)\n", s->n, s->grid.cells);
    uint32_t n = s->n, cells = s->grid.cells;
    boids_sim_build_grid(s);
    boids_gpu_build_grid(g);
    exit_on_fault(g);
    uint32_t *key = malloc((size_t)(n + 1) * 4), *count = malloc((size_t)(cells + 1) * 4);
    uint32_t *start = malloc((size_t)(cells + 1) * 4), *id = malloc((size_t)(n + 1) * 4);
    boids_gpu_read(g, BOIDS_GPU_KEY, key, (size_t)n * 4);
    boids_gpu_read(g, BOIDS_GPU_COUNT, count, (size_t)cells * 4);
    boids_gpu_read(g, BOIDS_GPU_START, start, ((size_t)cells + 1) * 4);
    boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
    uint32_t bad_key = 0, bad_count = 0, bad_start = 0, bad_set = 0;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        bad_key += key[i] != s->grid.key[i];
    for (uint32_t k = 0; k < cells; k++) {
        bad_count += count[k] != s->grid.count[k];
        bad_start += start[k] != s->grid.start[k];
        sum += count[k];
        uint32_t a = s->grid.start[k], m = s->grid.count[k];
        if (count[k] != m || start[k] != a || m == 0)
            continue;
        qsort(id + a, m, 4, cmp_u32);
        uint32_t *cpu = malloc((size_t)m * 4);
        memcpy(cpu, s->cur.id + a, (size_t)m * 4);
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

    // Neighbour counts after one steer (by id: the GPU's slot order is the atomics').
    boids_sim_steer(s);
    boids_gpu_steer(g);
    uint32_t *gn = malloc((size_t)(n + 1) * 4);
    boids_gpu_read(g, BOIDS_GPU_NEIGHBORS, gn, (size_t)n * 4);
    boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
    uint32_t *by_id = malloc((size_t)(n + 1) * 4);
    for (uint32_t i = 0; i < n; i++)
        by_id[id[i] < n ? id[i] : 0] = gn[i];
    uint32_t differ = 0, borderline = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cpu = s->neighbors[i], gpu = by_id[s->cur.id[i]];
        if (cpu == gpu)
            continue;
        float r = s->p.group[s->cur.group[i]].radius;
        uint32_t near = borderline_pairs(s, i, r, 4);
        if ((uint32_t)abs((int)cpu - (int)gpu) <= near) {
            if (borderline < 5)
                printf("        borderline: id %u: %u vs %u neighbours, %u pairs within 4 ULP of r^2\n", s->cur.id[i],
                       cpu, gpu, near);
            borderline++;
        } else {
            differ++;
        }
    }
    check(differ == 0, "neighbour count of every agent: %u differ (%u more only by pairs at the radius)", differ,
          borderline);
    free(key);
    free(count);
    free(start);
    free(id);
    free(gn);
    free(by_id);
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

// The agents and step counter of src into dst (same params and count).
static void copy_state(boids_sim *dst, const boids_sim *src) {
    size_t n = src->n;
    memcpy(dst->cur.pos, src->cur.pos, n * 16);
    memcpy(dst->cur.vel, src->cur.vel, n * 16);
    memcpy(dst->cur.id, src->cur.id, n * 4);
    memcpy(dst->cur.group, src->cur.group, n * 4);
    if (dst->joints && src->joints && dst->joint_rows == src->joint_rows)
        memcpy(dst->joints, src->joints, (size_t)src->joint_rows * n * sizeof *src->joints);
    dst->step = src->step;
    dst->p.world.step = (uint32_t)src->step;
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

static joint_compare compare_joints(const boids_sim *s, boids_gpu *g, uint32_t steps, float head_tol) {
    joint_compare c = {0};
    size_t total = (size_t)s->joint_rows * s->n;
    float(*gj)[4] = malloc((total ? total : 1) * 16);
    if (!gj || boids_gpu_read_joints(g, gj, total * 16) != BOIDS_OK) {
        free(gj);
        c.bad = 1;
        c.worst = INFINITY;
        return c;
    }
    const boids_world_params *w = &s->p.world;
    for (uint32_t i = 0; i < s->n; i++) {
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        uint32_t id = s->cur.id[i];
        float reach = 0.0f;
        bool outside = false;
        for (uint32_t j = 0; j < b->joints; j++) {
            const float *cj = s->joints[(size_t)j * s->n + id], *q = gj[(size_t)j * s->n + id];
            if (j > 0)
                reach += boids_body_length(b, j - 1);
            for (uint32_t a = 0; a < w->dim; a++) {
                double e = fabs((double)q[a] - cj[a]),
                       lim = head_tol + boids_tol_joint(cj[a], j, reach, steps, boids_gpu_trig_error(g));
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
    return c;
}

// Horizon 2 for one behaviour (b < COUNT) or all of them (b == COUNT):
// steer on both (forces by id), then integrate (velocities, positions and
// the wander angles of the w lanes by id). Returns false when the behaviour
// gives no force anywhere in this set-up (nothing to compare).
static bool one_step(boids_sim *s, boids_gpu *g, const boids_params *all, const boids_sim *initial, uint32_t b) {
    boids_params p = *all;
    for (uint32_t k = 0; k < p.world.group_count; k++)
        if (b < BOIDS_BEHAVIOR_COUNT)
            p.group[k].behaviors = BOIDS_BIT(b);
    memcpy(s->p.group, p.group, sizeof(p.group));
    boids_gpu_set_params(g, &p);
    uint32_t n = s->n;
    copy_state(s, initial);
    boids_gpu_upload(g, s);
    boids_sim_build_grid(s);
    boids_sim_steer(s);
    boids_gpu_build_grid(g);
    boids_gpu_steer(g);
    exit_on_fault(g);
    size_t m = (size_t)n + 1;
    float(*acc)[4] = malloc(m * 16), (*cpu)[4] = malloc(m * 16), (*gpu)[4] = malloc(m * 16);
    float(*cpu_v)[4] = malloc(m * 16), (*gpu_v)[4] = malloc(m * 16), *atol = malloc(m * 4);
    uint32_t *id = malloc(m * 4), *grp = malloc(m * 4);
    boids_gpu_read(g, BOIDS_GPU_ACCEL, acc, (size_t)n * 16);
    boids_gpu_read(g, BOIDS_GPU_ID, id, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i] < n ? id[i] : 0], acc[i], 16);
        uint32_t k = s->cur.id[i];
        memcpy(cpu[k], s->accel[i], 16);
        const boids_group_params *gp = &s->p.group[s->cur.group[i]];
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
    boids_sim_integrate(s);
    boids_gpu_integrate(g);
    exit_on_fault(g);
    boids_gpu_read_state(g, gpu, gpu_v, grp);
    float extent = 0;
    for (uint32_t a = 0; a < p.world.dim; a++)
        extent = fmaxf(extent, p.world.size[a]);
    float(*cpu_p)[4] = cpu;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = s->cur.id[i];
        memcpy(cpu_p[k], s->cur.pos[i], 16);
        memcpy(cpu_v[k], s->cur.vel[i], 16);
    }
    for (uint32_t i = 0; i < n; i++) {
        const boids_group_params *gp = &s->p.group[grp[i] < p.world.group_count ? grp[i] : 0];
        atol[i] = atol[i] * p.world.dt + (gp->max_turn > 0 ? TRIG * gp->maxspeed : 0.0f);
    }
    compare v = compare_by_id((const float(*)[4])cpu_v, (const float(*)[4])gpu_v, atol, n);
    double worst_p = 0, worst_w = 0;
    for (uint32_t i = 0; i < n; i++) {
        float d[3];
        boids_world_delta(&s->p.world, cpu_p[i], gpu[i], d);
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
    if (b == BOIDS_BEHAVIOR_COUNT && s->joints) {
        // The whole step's bodies: the heads carry the position tolerance.
        float head_tol = 0;
        for (uint32_t i = 0; i < n; i++)
            head_tol = fmaxf(head_tol, atol[i] * p.world.dt + extent * 2.4e-7f);
        boids_sim_bodies(s);
        boids_gpu_bodies(g);
        joint_compare c = compare_joints(s, g, 1, head_tol);
        check(c.bad == 0,
              "%-12s bodies: largest joint difference %.3g, worst id %u joint %u at %.2f of its "
              "tolerance",
              name, c.largest, c.worst_id, c.worst_joint, c.worst);
    }
    free(acc);
    free(cpu);
    free(gpu);
    free(cpu_v);
    free(gpu_v);
    free(atol);
    free(id);
    free(grp);
    return !vacuous;
}

// Horizon 4: the bodies stage alone, from the same heads: every step the
// CPU steps (its bodies follow its agents), its agents are uploaded and the
// GPU's bodies follow them; joints compared after 1 and `steps` steps.
static void bodies(boids_sim *s, boids_gpu *g, const boids_sim *initial, uint32_t steps) {
    printf("4. bodies: %u steps of the bodies stage from the CPU's heads (%u joints per agent; this GPU's sin, "
           "cos, atan err by at most %.2g)\n",
           steps, s->joint_rows, (double)boids_gpu_trig_error(g));
    copy_state(s, initial);
    boids_sim_reset_bodies(s);
    boids_gpu_upload(g, s);
    for (uint32_t k = 1; k <= steps; k++) {
        boids_sim_step(s);
        boids_gpu_upload_agents(g, s);
        boids_gpu_bodies(g);
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
static uint32_t broken_invariants(const boids_sim *s) {
    const boids_world_params *w = &s->p.world;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        const float *p = s->cur.pos[i], *v = s->cur.vel[i];
        float speed2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        float max = s->p.group[s->cur.group[i]].maxspeed * 1.0001f;
        bool ok = speed2 <= max * max;
        for (uint32_t a = 0; a < 3; a++) {
            ok = ok && isfinite(p[a]) && isfinite(v[a]);
            if (a < w->dim)
                ok = ok && p[a] >= w->min[a] && p[a] <= w->min[a] + w->size[a];
        }
        bad += !ok;
    }
    return bad;
}

// --save / --save-every: the CPU reference's state now, with the scenario;
// 0, or 3 with one line printed.
static int save_reference(const boids_sim *s, const boids_scenario *scen, const char *path) {
    char err[1200];
    if (boids_snapshot_save(s, scen, path, err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "\n%s: --save: %s\n", PROG, err);
        return 3;
    }
    printf("  saved: %s (the CPU reference at step %llu)\n", path, (unsigned long long)s->step);
    return 0;
}

// Where and how often horizon 3 saves the CPU reference (path NULL: never).
typedef struct saving {
    const char *path;
    uint64_t every; // 0: only at the end
    const boids_scenario *scen;
} saving;

// Horizon 3: S steps on each backend from the same state (the CPU reference
// saved every `every` steps of them); 0, or 3 when a save failed (stopped).
static int many_steps(boids_sim *s, boids_gpu *g, boids_sim *gpu_view, uint64_t steps, const saving *sv) {
    const boids_scenario *scen = sv->scen;
    printf("3. %llu steps: statistics and invariants%s\n", (unsigned long long)steps,
           boids_scenario_is_dynamic(scen) ? " (with the scenario's schedule, as boids-run)" : "");
    boids_gpu_upload(g, s);
    for (uint64_t k = 0; k < steps && !boids_cli_interrupted(); k++) {
        if (boids_scenario_is_dynamic(scen)) { // the moving target and varying weights of this step
            boids_scenario_at_step(scen, s->step, &s->p);
            boids_gpu_set_params(g, &s->p);
        }
        boids_sim_step(s);
        boids_gpu_step(g);
        exit_on_fault(g);
        if ((k + 1) % 50 == 0 || k + 1 == steps) {
            fprintf(stderr, "\r%s: step %llu/%llu", PROG, (unsigned long long)(k + 1), (unsigned long long)steps);
            fflush(stderr);
        }
        if (sv->path && sv->every && (k + 1) % sv->every == 0 && k + 1 != steps &&
            save_reference(s, scen, sv->path))
            return 3;
    }
    fprintf(stderr, "\n");
    boids_gpu_download(g, gpu_view);
    exit_on_fault(g);
    boids_stats c, q;
    boids_sim_stats(s, &c);
    boids_sim_stats(gpu_view, &q);
    // Chaos makes trajectories diverge; averages over N agents then agree to
    // about their spread / sqrt(N) (speeds spread by ~1/4 of their mean, so
    // 2/sqrt(N) relative is ~6 sigma). Bounds: 1% + 2/sqrt(N) relative, and
    // 0.02 + 3/sqrt(N) absolute for the polarisation (itself ~1/sqrt(N)
    // when the headings are unaligned).
    double rel = 0.01 + 2.0 / sqrt((double)(s->n ? s->n : 1));
    double pol = 0.02 + 3.0 / sqrt((double)(s->n ? s->n : 1));
    check(fabs(c.polarisation - q.polarisation) <= pol, "polarisation cpu %.4f gpu %.4f (bound %.4f)", c.polarisation,
          q.polarisation, pol);
    check(fabs(c.mean_speed - q.mean_speed) <= rel * c.mean_speed + 1e-6, "mean speed cpu %.4f gpu %.4f (bound %.1f%%)",
          c.mean_speed, q.mean_speed, 100 * rel);
    check(fabs(c.mean_neighbors - q.mean_neighbors) <= rel * c.mean_neighbors + 1e-6,
          "mean neighbours cpu %.3f gpu %.3f (bound %.1f%%)", c.mean_neighbors, q.mean_neighbors, 100 * rel);
    check(fabs(c.mean_nearest - q.mean_nearest) <= rel * c.mean_nearest + 1e-6,
          "mean nearest-neighbour distance cpu %.4f gpu %.4f (bound %.1f%%)", c.mean_nearest, q.mean_nearest,
          100 * rel);
    uint32_t bc = broken_invariants(s), bg = broken_invariants(gpu_view);
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
    boids_sim *s = NULL, *initial = NULL, *gpu_view = NULL;
    static boids_scenario scen_in_effect; // the options' or the snapshot's (saved with --save)
    boids_scenario *scen = &scen_in_effect;
    boids_gl_context *gl = NULL;
    boids_gpu *g = NULL;
    int code = 0; // the exit status of an early stop (one line printed)
    if (boids_gpu_fault_parse(getenv("BOIDS_FAULT"), err, sizeof err) != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = 2;
        goto out;
    }
    if (o.save && (code = boids_cli_check_output(PROG, "--save", o.save, "a file path in an existing, writable "
                                                                          "directory")))
        goto out;
    if (o.load) { // the snapshot's state is the initial one
        boids_result lr = boids_snapshot_load(o.load, &initial, scen, err, sizeof err);
        if (lr != BOIDS_OK) {
            fprintf(stderr, "%s: --load: %s\n", PROG, err);
            code = lr == BOIDS_ERR_NOMEM ? 3 : 2;
            goto out;
        }
        p = initial->p;
        p.flow.vec = NULL; // the sims build their own
        n = initial->n;
    } else if ((code = setup_params(&o, n, &p, scen)) != 0) {
        goto out;
    }
    if (boids_sim_create(&s, &p, (boids_distribution)o.distribution) != BOIDS_OK ||
        (!initial && boids_sim_create(&initial, &p, (boids_distribution)o.distribution) != BOIDS_OK) ||
        boids_sim_create(&gpu_view, &p, (boids_distribution)o.distribution) != BOIDS_OK) {
        fprintf(stderr, "%s: out of memory for %u agents\n", PROG, n);
        code = 3;
        goto out;
    }
    s->threads = initial->threads = o.threads;
    if (boids_egl_create(&gl, err, sizeof(err)) != BOIDS_OK) {
        fprintf(stderr, "%s: needs OpenGL 4.5: %s\n", PROG, err);
        code = 3;
        goto out;
    }
    boids_gpu_desc d = {
        .params = &s->p, .load = boids_gl_loader(gl), .shader_dir = o.shader_dir, .silent_errors = true};
    boids_result r = boids_gpu_create(&g, &d, err, sizeof(err));
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        code = r == BOIDS_ERR_GPU_LIMIT || r == BOIDS_ERR_SHADER || r == BOIDS_ERR_ARGUMENT ? 2 : 3;
        goto out;
    }
    printf("boids-validate %s: %u agents, %uD, %s, seed %llu, on %s\n", BOIDS_VERSION, n, p.world.dim,
           (const char *)glGetString(GL_RENDERER),
           (unsigned long long)((uint64_t)p.world.seed_hi << 32 | p.world.seed_lo), boids_gl_context_describe(gl));
    // A few CPU steps first, so agents have neighbours, headings and wander
    // state (a loaded snapshot has them).
    for (int k = 0; !o.load && k < 3; k++)
        boids_sim_step(initial);
    copy_state(s, initial);
    s->p.world.step = (uint32_t)s->step;
    boids_gpu_upload(g, s);
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
    memcpy(s->p.group, p.group, sizeof(p.group));
    boids_gpu_set_params(g, &p);
    copy_state(s, initial);
    saving sv = {.path = o.save, .every = o.save_every, .scen = scen};
    if ((code = many_steps(s, g, gpu_view, steps, &sv)))
        goto out; // a --save-every write failed (said in one line)
    int sig = boids_cli_interrupted();
    int save_rc = o.save ? save_reference(s, scen, o.save) : 0; // the CPU reference after the S steps
    if (sig) {
        fprintf(stderr, "%s: interrupted at step %llu of %llu: the report above is incomplete\n", PROG,
                (unsigned long long)(s->step - initial->step), (unsigned long long)steps);
        save_rc = save_rc ? save_rc : 128 + sig;
    } else if (s->joints) {
        bodies(s, g, initial, steps < 100 ? (uint32_t)steps : 100u);
    }

    exit_on_fault(g);
    printf("%s: %s (%d check%s failed)\n", PROG,
           sig ? "INTERRUPTED" : failures ? "FAILED" : "all checks passed", failures, failures == 1 ? "" : "s");
    code = save_rc ? save_rc : failures ? 1 : 0;
out:
    boids_gpu_destroy(g);
    boids_gl_context_destroy(gl);
    boids_sim_destroy(s);
    boids_sim_destroy(initial);
    boids_sim_destroy(gpu_view);
    boids_options_free(&o);
    return code;
}
