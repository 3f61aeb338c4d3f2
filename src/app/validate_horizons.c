// src/app/validate_horizons.c: the comparisons of boids-validate
// (validate.h): horizon 1, the grid and neighbour counts exactly; 2, one
// step per behaviour within the GLSL 4.50 precision rules; 3, S steps'
// statistics and invariants; 4, the bodies stage alone from the same heads.
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

// The largest maxspeed of a group's agents: its range's top when it has one.
static float group_top_speed(const boids_group_params *g) {
    return g->maxspeed_lo > 0.0f ? g->maxspeed_hi : g->maxspeed;
}

static float force_atol(const boids_group_params *g, uint32_t behaviors) {
    // The Vicsek and Couzin rule sets' steer output is the new unit heading,
    // through atan2, cos and sin (2D) or cos, sin, sqrt, log (3D).
    if (g->rules == BOIDS_RULES_VICSEK || g->rules == BOIDS_RULES_COUZIN)
        return TRIG;
    float atol = 0.0f, ms = group_top_speed(g);
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++)
        if (behaviors & BOIDS_BIT(b))
            atol += fabsf(boids_weight(g, b)) * (b == BOIDS_BI_WANDER ? TRIG : ARITH) * ms;
    return atol > 0.0f ? atol : ARITH * ms;
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

// Fold-back ties of the bodies stage (the CPU's and the GLSL's rule alike,
// src/core/bodies.c). A snake's or fish's joint i takes the direction from
// its old place to joint i-1's new one, kept within angle_limit of joint
// i-1's angle (constrainAngle); a direction straight back (angleDiff = +-pi)
// is clamped to the side of diff's sign: a jump of 2 angle_limit in the
// joint's angle (pi/4 for a snake; its joints after it follow), which a
// rounding difference can put on either side. 3D: constrain_direction's
// plane for u near -ref, the same jump. A segment shorter than its ends'
// error has no direction either (chains too). A body is tied from the first
// step its CPU state comes within the GPU's allowed error of such a point:
// the direction's error is 2 sqrt(dim) e / |d| plus one atan (e: the ends'
// tolerance, head_tol + boids_tol_joint at that step); the reference's is
// the largest of those up the body (the clamp is 1-Lipschitz), from one atan
// at the head (the facing). Both sides are the rule's; such a body is
// excused when its joints are apart, and reported.
typedef struct fold_ties {
    uint8_t *tied;          // by id: the body passed a tie (stays set)
    uint32_t *step, *joint; // by id: where, for the report
    float *margin, *band;   // by id: how far from straight back, and the error allowed (rad)
    uint32_t count;
} fold_ties;

static void fold_ties_init(fold_ties *t, uint32_t n) {
    size_t m = (size_t)n + 1;
    t->tied = calloc(m, 1);
    t->step = calloc(m, 4);
    t->joint = calloc(m, 4);
    t->margin = calloc(m, 4);
    t->band = calloc(m, 4);
    t->count = 0;
    if (!t->tied || !t->step || !t->joint || !t->margin || !t->band) {
        fprintf(stderr, PROG ": out of memory\n");
        exit(3);
    }
}

static void fold_ties_free(fold_ties *t) {
    free(t->tied);
    free(t->step);
    free(t->joint);
    free(t->margin);
    free(t->band);
}

// Marks in t the bodies of s whose last bodies stage (joints `before` it,
// id-indexed, joint-major) passed a tie; `step`: that stage's number for
// boids_tol_joint.
static void find_fold_ties(boids_engine *s, const float (*before)[4], uint32_t step, float trig, float head_tol,
                           fold_ties *t) {
    const boids_params *p = boids_engine_params(s);
    const boids_world_params *w = &p->world;
    uint32_t n = boids_engine_count(s), dim = w->dim;
    size_t total = (size_t)boids_params_joint_rows(p) * n;
    float(*after)[4] = malloc((total ? total : 1) * 16), (*vel)[4] = malloc(((size_t)n + 1) * 16);
    uint32_t *group = malloc(((size_t)n + 1) * 4);
    if (!after || !vel || !group || boids_engine_read_joints(s, after, total * 16) != BOIDS_OK ||
        boids_engine_read(s, NULL, vel, group) != BOIDS_OK) {
        fprintf(stderr, PROG ": cannot read the CPU reference's bodies\n");
        exit(3);
    }
    for (uint32_t id = 0; id < n; id++) {
        const boids_body_params *b = &p->body[group[id]];
        if (b->style == BOIDS_BODY_NONE || t->tied[id])
            continue;
        bool clamped = b->style != BOIDS_BODY_CHAIN && b->angle_limit < BOIDS_PI;
        float ref[3] = {vel[id][0], vel[id][1], dim == 2 ? 0.0f : vel[id][2]}; // 3D: the facing direction
        float ref_norm = sqrtf(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
        float ref_err = trig, reach = 0.0f;
        for (uint32_t j = 1; j < b->joints; j++) {
            const float *prev = after[(size_t)(j - 1) * n + id], *old = before[(size_t)j * n + id];
            reach += boids_body_length(b, j - 1);
            float d[3], coord = 0.0f;
            boids_world_delta(w, old, prev, d); // toward the previous joint, as the stage
            if (dim == 2)
                d[2] = 0.0f;
            float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (uint32_t a = 0; a < dim; a++)
                coord = fmaxf(coord, fabsf(prev[a]));
            float e = head_tol + boids_tol_joint(coord, j, reach, step, trig);
            float err = dist > 0.0f ? 2.0f * sqrtf((float)dim) * e / dist + trig : INFINITY;
            float margin = BOIDS_PI; // the angle between d and straight back
            if (clamped && dist > 0.0f) {
                if (dim == 2) {
                    margin = BOIDS_PI - fabsf(boids_angle_diff_mod(atan2f(d[1], d[0]), prev[3]));
                } else if (ref_norm > 0.0f) {
                    float c[3] = {d[1] * ref[2] - d[2] * ref[1], d[2] * ref[0] - d[0] * ref[2],
                                  d[0] * ref[1] - d[1] * ref[0]};
                    margin = atan2f(sqrtf(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]),
                                    -(d[0] * ref[0] + d[1] * ref[1] + d[2] * ref[2]));
                }
            }
            if (margin <= err + ref_err) {
                t->tied[id] = 1;
                t->step[id] = step;
                t->joint[id] = j;
                t->margin[id] = margin;
                t->band[id] = err + ref_err;
                t->count++;
                break;
            }
            ref_err = fmaxf(ref_err, err);
            // 3D: the next joint's reference is this segment's direction.
            boids_world_delta(w, after[(size_t)j * n + id], prev, ref);
            ref_norm = sqrtf(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
        }
    }
    free(after);
    free(vel);
    free(group);
}

// Joints of s and g compared (both id-indexed, joint-major): worst
// |gpu - cpu| per coordinate over its tolerance boids_tol_joint (plus
// head_tol, the error the head itself may carry), the largest difference,
// and how many bodies straddle the world's edge (joints outside it: the
// torus seam was crossed). A body apart that ties->tied marks is excused
// (counted, the first few printed) instead of failing.
typedef struct joint_compare {
    double worst, largest;
    uint32_t bad, straddling, worst_id, worst_joint, excused;
} joint_compare;

static joint_compare compare_joints(boids_engine *s, boids_engine *g, uint32_t steps, float head_tol,
                                    const fold_ties *ties) {
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
    uint32_t *slot_id = validate_read_new(s, BOIDS_ENGINE_ID, (size_t)n * 4),
             *slot_group = validate_read_new(s, BOIDS_ENGINE_GROUP, (size_t)n * 4);
    float trig = boids_engine_trig_error(g);
    const boids_world_params *w = &p->world;
    for (uint32_t i = 0; i < n; i++) {
        const boids_body_params *b = &p->body[slot_group[i]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        uint32_t id = slot_id[i], bad = 0, worst_joint = 0;
        float reach = 0.0f;
        double worst = 0, largest = 0;
        bool outside = false;
        for (uint32_t j = 0; j < b->joints; j++) {
            const float *cj = sj[(size_t)j * n + id], *q = gj[(size_t)j * n + id];
            if (j > 0)
                reach += boids_body_length(b, j - 1);
            for (uint32_t a = 0; a < w->dim; a++) {
                double e = fabs((double)q[a] - cj[a]), lim = head_tol + boids_tol_joint(cj[a], j, reach, steps, trig);
                largest = fmax(largest, e);
                bad += !(e <= lim);
                if (!(e / lim <= worst)) {
                    worst = e / lim;
                    worst_joint = j;
                }
                outside = outside || cj[a] < w->min[a] || cj[a] >= w->min[a] + w->size[a];
            }
        }
        c.straddling += outside;
        if (bad && ties && ties->tied[id]) {
            if (c.excused++ < 5)
                printf("        fold-back tie: id %u joint %u at step %u, %.2g rad from straight back (the GPU may "
                       "differ by %.2g): joints up to %.3g apart, either side is the rule's\n",
                       id, ties->joint[id], ties->step[id], (double)ties->margin[id], (double)ties->band[id], largest);
            continue;
        }
        c.largest = fmax(c.largest, largest);
        c.bad += bad;
        if (!(worst <= c.worst)) {
            c.worst = worst;
            c.worst_id = id;
            c.worst_joint = worst_joint;
        }
    }
    free(gj);
    free(sj);
    free(slot_id);
    free(slot_group);
    return c;
}

// See validate.h: the group parameters of p on both engines (the validation switches
// behaviours on one at a time this way).
void validate_set_both(boids_engine *s, boids_engine *g, const boids_params *p) {
    boids_engine_set_params(s, p, NULL, 0);
    boids_engine_set_params(g, p, NULL, 0); // a fault: found by the next validate_exit_on_fault
}

// See validate.h. Horizon 2 for one behaviour (b < COUNT) or all of them (b == COUNT):
// steer on both (forces by id), then integrate (velocities, positions and
// the wander angles of the w lanes by id). Returns false when the behaviour
// gives no force anywhere in this set-up (nothing to compare).
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
    float(*cpu_v)[4] = malloc(m * 16), (*gpu_v)[4] = malloc(m * 16), *atol = malloc(m * 4);
    uint32_t *grp = malloc(m * 4);
    float(*acc)[4] = validate_read_new(g, BOIDS_ENGINE_ACCEL, (size_t)n * 16),
    (*cacc)[4] = validate_read_new(s, BOIDS_ENGINE_ACCEL, (size_t)n * 16);
    uint32_t *id = validate_read_new(g, BOIDS_ENGINE_ID, (size_t)n * 4),
             *cid = validate_read_new(s, BOIDS_ENGINE_ID, (size_t)n * 4);
    uint32_t *cgroup = validate_read_new(s, BOIDS_ENGINE_GROUP, (size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(gpu[id[i] < n ? id[i] : 0], acc[i], 16);
        uint32_t k = cid[i];
        memcpy(cpu[k], cacc[i], 16);
        const boids_group_params *gp = &p.group[cgroup[i]];
        uint32_t walls = p.world.boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0;
        atol[k] = force_atol(gp, gp->behaviors | walls);
    }
    compare f = compare_by_id((const float(*)[4])cpu, (const float(*)[4])gpu, atol, n);
    const char *name = label ? label : b < BOIDS_BEHAVIOR_COUNT ? boids_behavior_name(b) : "all together";
    bool vacuous = f.largest == 0 && f.bad == 0; // no force on either side (a GPU force where the CPU has none fails)
    if (vacuous && (b < BOIDS_BEHAVIOR_COUNT || label)) {
        printf("  n/a   %-12s gives no force to any agent in this set-up: nothing to compare\n", name);
    } else {
        validate_check(
            f.bad == 0 && f.norm <= 1e-3 && !vacuous,
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
    validate_exit_on_fault(g);
    if (boids_engine_read(g, gpu, gpu_v, grp) != BOIDS_OK)
        validate_exit_on_fault(g);
    float extent = 0;
    for (uint32_t a = 0; a < p.world.dim; a++)
        extent = fmaxf(extent, p.world.size[a]);
    float(*cpu_p)[4] = cpu;
    boids_engine_read(s, cpu_p, cpu_v, NULL);
    for (uint32_t i = 0; i < n; i++) {
        const boids_group_params *gp = &p.group[grp[i] < p.world.group_count ? grp[i] : 0];
        // (The heading, Vicsek and Couzin rules turn through atan2, cos and sin every step.)
        bool trig = gp->max_turn > 0 || gp->rules == BOIDS_RULES_HEADING || gp->rules == BOIDS_RULES_VICSEK ||
                    gp->rules == BOIDS_RULES_COUZIN;
        atol[i] = atol[i] * p.world.dt + (trig ? TRIG * group_top_speed(gp) : 0.0f);
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
    if (!(vacuous && (b < BOIDS_BEHAVIOR_COUNT || label)))
        validate_check(v.bad == 0 && worst_p <= 1.0 && worst_w <= 1.0,
                       "%-12s step: velocity worst id %u at %.2f, position at %.2f, wander angles at %.2f of their "
                       "tolerances",
                       name, v.worst_id, v.worst, worst_p, worst_w);
    if (b == BOIDS_BEHAVIOR_COUNT && boids_params_joint_rows(&p) > 0) {
        // The whole step's bodies: the heads carry the position tolerance.
        float head_tol = 0;
        for (uint32_t i = 0; i < n; i++)
            head_tol = fmaxf(head_tol, atol[i] * p.world.dt + extent * 2.4e-7f);
        size_t total = (size_t)boids_params_joint_rows(&p) * n;
        float(*before)[4] = malloc(total * 16);
        if (!before || boids_engine_read_joints(s, before, total * 16) != BOIDS_OK) {
            fprintf(stderr, PROG ": cannot read the CPU reference's bodies\n");
            exit(3);
        }
        boids_engine_stage(s, BOIDS_ENGINE_STAGE_BODIES);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        fold_ties ties;
        fold_ties_init(&ties, n);
        find_fold_ties(s, (const float(*)[4])before, 1, boids_engine_trig_error(g), head_tol, &ties);
        joint_compare c = compare_joints(s, g, 1, head_tol, &ties);
        validate_check(c.bad == 0,
                       "%-12s bodies: largest joint difference %.3g, worst id %u joint %u at %.2f of its "
                       "tolerance; %u bodies at a fold-back tie (%u of them apart)",
                       name, c.largest, c.worst_id, c.worst_joint, c.worst, ties.count, c.excused);
        fold_ties_free(&ties);
        free(before);
    }
    void *arrays[] = {cpu, gpu, cpu_v, gpu_v, atol, grp, acc, cacc, id, cid, cgroup};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    return !vacuous;
}

// See validate.h. Horizon 4: the bodies stage alone, from the same heads: every step the
// CPU steps (its bodies follow its agents), its agents are copied and the
// GPU's bodies follow them; joints compared after 1 and `steps` steps. The
// CPU steps with the parameters of now (a scenario's schedule stops here).
void validate_bodies(boids_engine *s, boids_engine *g, boids_engine *initial, uint32_t steps) {
    printf("4. bodies: %u steps of the bodies stage from the CPU's heads (%u joints per agent; this GPU's sin, "
           "cos, atan err by at most %.2g)\n",
           steps, boids_params_joint_rows(boids_engine_params(s)), (double)boids_engine_trig_error(g));
    boids_scenario still = *boids_engine_scenario(s);
    still.params = *boids_engine_params(s);
    still.target_mode = boids_scenario_target_scheduled(&still) ? BOIDS_TARGET_FIXED : still.target_mode;
    still.vary_count = 0;
    boids_engine_set_scenario(s, &still, NULL, 0);
    boids_engine_copy_state(s, initial);
    boids_engine_reset_bodies(s);
    boids_engine_copy_state(g, s);
    uint32_t n = boids_engine_count(s);
    size_t total = (size_t)boids_params_joint_rows(boids_engine_params(s)) * n;
    float(*before)[4] = malloc((total ? total : 1) * 16);
    fold_ties ties;
    fold_ties_init(&ties, n);
    for (uint32_t k = 1; k <= steps; k++) {
        if (!before || boids_engine_read_joints(s, before, total * 16) != BOIDS_OK) {
            fprintf(stderr, PROG ": cannot read the CPU reference's bodies\n");
            exit(3);
        }
        boids_engine_step(s, 1, NULL);
        boids_engine_copy_agents(g, s);
        boids_engine_stage(g, BOIDS_ENGINE_STAGE_BODIES);
        validate_exit_on_fault(g);
        find_fold_ties(s, (const float(*)[4])before, k, boids_engine_trig_error(g), 0.0f, &ties);
        if (k != 1 && k != steps)
            continue;
        joint_compare c = compare_joints(s, g, k, 0.0f, &ties);
        validate_check(c.bad == 0,
                       "joints after %u step%s: largest difference %.3g, worst id %u joint %u at %.2f of its "
                       "tolerance; %u bodies straddle the world's edge, %u passed a fold-back tie (%u of them apart)",
                       k, k == 1 ? "" : "s", c.largest, c.worst_id, c.worst_joint, c.worst, c.straddling, ties.count,
                       c.excused);
    }
    fold_ties_free(&ties);
    free(before);
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
    uint32_t bc = broken_invariants(s), bg = broken_invariants(g);
    validate_check(bc == 0 && bg == 0,
                   "invariants (finite, in bounds, speed <= maxspeed): %u cpu / %u gpu agents break them", bc, bg);
    return 0;
}
