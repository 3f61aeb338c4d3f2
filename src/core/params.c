// src/core/params.c: default parameters (the chapter's flocking values),
// the auto-sized world, and validation + derived values (the behaviours'
// names are behavior_names.c's).
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "boids/core.h"
#include "boids/registry.h"

// One group with the chapter's flocking values (Nature of Code 5, Example
// "Flocking": maxspeed 3, maxforce 0.05, neighbordist 50, desiredseparation
// 25, weights 1.5 / 1.0 / 1.0) and sensible values for everything else.
// The numbers of a group or the world at base (`where`) to their registry
// defaults (boids/registry.h).
static void registry_defaults(boids_param_where where, char *base) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (in->where == where && in->kind == BOIDS_PK_FLOAT) {
            float x = (float)in->def;
            memcpy(base + in->field, &x, sizeof x);
        }
    }
}

static void group_default(boids_group_params *g) {
    memset(g, 0, sizeof(*g));
    registry_defaults(BOIDS_PW_GROUP, (char *)g);
    g->fov_cos = -1.0f;       // 360 degrees
    g->view_cos = 0.8660254f; // +-30 degrees
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        *boids_weight_ref(g, i) = 1.0f;
    *boids_weight_ref(g, BOIDS_BI_SEPARATION) = 1.5f;
    g->behaviors = BOIDS_B_FLOCKING;
    g->relations = 0; // BOIDS_REL_FLOCK with every group
    g->rules = BOIDS_RULES_CHAPTER;
    g->leader_offset[0] = BOIDS_LEADER_OFFSET_DEFAULT;
    g->leader = BOIDS_ID_TARGET;
    g->formation = BOIDS_FORMATION_NONE;
    g->interpose_a = 0;
    g->interpose_b = BOIDS_ID_TARGET;
}

// Defaults for `count` agents in `dim` dimensions; world auto-sized.
void boids_params_default(boids_params *p, uint32_t count, uint32_t dim) {
    memset(p, 0, sizeof(*p));
    boids_world_params *w = &p->world;
    w->dim = dim;
    w->count = count;
    w->boundary = BOIDS_BOUNDARY_WRAP;
    w->combine = BOIDS_COMBINE_SUM;
    w->group_count = 1;
    w->seed_lo = 1;
    registry_defaults(BOIDS_PW_WORLD, (char *)w); // dt 1, wall_offset 25
    for (uint32_t a = 0; a < 3; a++)
        w->target_pos[a] = NAN; // unplaced: finalize puts it at the world's centre
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        group_default(&p->group[g]);
    p->scene.path_radius = 20.0f;
    p->flow.kind = BOIDS_FLOW_NOISE;
    p->flow.resolution = 20.0f;
    p->flow.noise_scale = 0.01f;
    p->flow.direction[0] = 1.0f;
    boids_params_auto_world(p, 20.0);
}

// A square (cube) world sized so that, at uniform density, about `neighbors`
// agents lie within the perception radius of group 0: N pi r^2 / A (2D),
// N 4/3 pi r^3 / V (3D). Never smaller than 4 radii a side.
// A square (cube) world at the origin, `side` (never below 4 radii of group
// 0's reach) rounded up.
static void square_world(boids_params *p, double side) {
    boids_world_params *w = &p->world;
    double r = boids_group_reach(&p->group[0]);
    if (side < 4.0 * r)
        side = 4.0 * r;
    side = ceil(side);
    for (int a = 0; a < 3; a++) {
        w->min[a] = 0.0f;
        w->size[a] = (a == 2 && w->dim == 2) ? 0.0f : (float)side;
    }
}

void boids_params_auto_world(boids_params *p, double neighbors) {
    const boids_world_params *w = &p->world;
    double r = boids_group_reach(&p->group[0]);
    double n = w->count > 0 ? w->count : 1;
    square_world(p, w->dim == 3 ? cbrt(n * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r / neighbors)
                                : sqrt(n * 3.14159265358979323846 * r * r / neighbors));
}

// See boids/core.h (FLAME GPU's Circles benchmark: one agent per unit volume).
void boids_params_density_world(boids_params *p, double density) {
    const boids_world_params *w = &p->world;
    double n = w->count > 0 ? w->count : 1;
    square_world(p, w->dim == 3 ? cbrt(n / density) : sqrt(n / density));
}

// The largest radius the group's rules look at: the perception radius
// (escape, hunt, avoid and the neighbour statistics), queue's distance and the separation, view,
// alignment and cohesion radii when those behaviours are on (the last two
// are the perception radius unless the group gives its own).
float boids_group_reach(const boids_group_params *g) {
    float r = g->radius;
    if (g->behaviors & BOIDS_BIT(BOIDS_BI_SEPARATION))
        r = fmaxf(r, g->separation);
    if (g->behaviors & BOIDS_BIT(BOIDS_BI_VIEW))
        r = fmaxf(r, g->view_radius);
    if (g->behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT))
        r = fmaxf(r, boids_alignment_radius(g));
    if (g->behaviors & BOIDS_BIT(BOIDS_BI_COHESION))
        r = fmaxf(r, boids_cohesion_radius(g));
    if (g->behaviors & BOIDS_BIT(BOIDS_BI_QUEUE))
        r = fmaxf(r, g->queue_distance);
    return r;
}

// See core.h (GLSL twins: shaders/steer.comp alignment_radius() ...).
float boids_alignment_radius(const boids_group_params *g) {
    return g->alignment_radius > 0.0f ? g->alignment_radius : g->radius;
}

float boids_cohesion_radius(const boids_group_params *g) {
    return g->cohesion_radius > 0.0f ? g->cohesion_radius : g->radius;
}

float boids_rule_cone(const boids_group_params *g, uint32_t cone) {
    if (!(g->own_cones & cone))
        return g->fov_cos;
    return cone == BOIDS_CONE_SEPARATION  ? g->separation_fov_cos
           : cone == BOIDS_CONE_ALIGNMENT ? g->alignment_fov_cos
                                          : g->cohesion_fov_cos;
}

static bool finite_pos(float x) { return isfinite(x) && x > 0.0f; }

// The largest noise of a rule set (boids_group_params.noise): Vicsek's eta
// is the width of the noise's interval (2 pi: a uniform heading), Couzin's
// sigma a standard deviation (pi: nearly uniform); the others have none.
static float noise_max(uint32_t rules) {
    return rules == BOIDS_RULES_VICSEK ? BOIDS_TWO_PI : rules == BOIDS_RULES_COUZIN ? BOIDS_PI : 0.0f;
}

static const char *noise_allowed(uint32_t rules) {
    return rules == BOIDS_RULES_VICSEK   ? "0..2 pi radians"
           : rules == BOIDS_RULES_COUZIN ? "0..pi radians"
                                         : "0: only the rule sets vicsek (eta) and couzin (sigma) have noise";
}

// The cell rule on axis a: on a torus an interaction radius of at most half
// the extent, so the minimum image is unique; no limit otherwise (the grid
// then has one cell, or cells of the world's width).
static float axis_max_radius(const boids_world_params *w, uint32_t a) {
    return w->boundary == BOIDS_BOUNDARY_WRAP ? 0.5f * w->size[a] : INFINITY;
}

// The largest interaction radius that fits the world (see core.h).
float boids_params_max_radius(const boids_params *p) {
    float r = INFINITY;
    for (uint32_t a = 0; a < p->world.dim && a < 3; a++)
        r = fminf(r, axis_max_radius(&p->world, a));
    return r;
}

// See core.h.
bool boids_params_survey(const boids_params *p) {
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++)
        if (p->group[g].rules == BOIDS_RULES_HEADING && (p->group[g].behaviors & BOIDS_BIT(BOIDS_BI_COHESION)))
            return true;
    return false;
}

// The largest reach of the groups in use (see core.h).
float boids_params_reach(const boids_params *p) {
    float r = 0.0f;
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++)
        r = fmaxf(r, boids_group_reach(&p->group[g]));
    return r;
}

// Cells of the grid of world w at factor m (finalize's rule).
static double grid_cells_at(const boids_world_params *w, float reach, uint32_t m) {
    double total = 1.0;
    for (uint32_t a = 0; a < w->dim; a++) {
        double n = floor((double)w->size[a] * m / (double)reach), cap = w->dim == 3 ? 256.0 : 4096.0;
        total *= n < 1.0 ? 1.0 : n > cap ? cap : n;
    }
    return total;
}

// See core.h. A cost model in units of one candidate pair, fitted to
// boids-bench at 100 k on the 2-core machine (docs/BENCHMARKS.md):
// a candidate costs 1; a row of cells read costs ROW (loop set-up, the
// short rows of a fine grid filter less well than the reference's long
// ones), a cell read alone by the K-nearest gather CELL; a cell of the
// grid costs GRID per step (clear, scan, fill). Every neighbour: the whole
// block, (2M+1)^d cells of occupancy / M^d agents, (2M+1)^(d-1) rows. With
// K: the early stop after ring j, the first ring whose j cells of reach/M
// exceed the radius r_K that holds K agents at that occupancy
// (occupancy * (r_K / reach)^d * (pi or 4 pi / 3) = K).
#define FINE_ROW 12.0
#define FINE_CELL 3.0
#define FINE_GRID 2.0
uint32_t boids_grid_fine_choose(const boids_params *p, double occupancy) {
    const boids_world_params *w = &p->world;
    if (boids_params_survey(p) || !(occupancy > 0.0) || w->count == 0)
        return 1;
    // The largest K of the groups; any group with every neighbour (0): 0.
    uint32_t k = 0;
    bool every = false;
    for (uint32_t g = 0; g < w->group_count; g++) {
        every = every || p->group[g].neighbors_max == 0;
        k = p->group[g].neighbors_max > k ? p->group[g].neighbors_max : k;
    }
    if (every)
        k = 0;
    float reach = boids_params_reach(p);
    double d = w->dim, best = INFINITY;
    uint32_t pick = 1;
    for (uint32_t m = 1; m <= BOIDS_GRID_FINE_MAX; m++) {
        double j = m, cost;
        if (k) {
            double rk = pow((double)k / (occupancy * (w->dim == 3 ? 4.18879020478639 : 3.14159265358979)), 1.0 / d);
            j = fmin((double)m, floor(rk * m) + 1.0);
            cost = pow(2.0 * j + 1.0, d) * (occupancy / pow(m, d) + FINE_CELL);
        } else {
            cost = pow(2.0 * m + 1.0, d) * occupancy / pow(m, d) + pow(2.0 * m + 1.0, d - 1.0) * FINE_ROW;
        }
        cost += FINE_GRID * grid_cells_at(w, reach, m) / w->count;
        if (cost < best * 0.95) { // a larger M must pay by 5 %
            best = cost;
            pick = m;
        }
    }
    return pick;
}

#define FAIL(code, ...)                                                                                                \
    do {                                                                                                               \
        if (what)                                                                                                      \
            snprintf(what, what_size, __VA_ARGS__);                                                                    \
        return code;                                                                                                   \
    } while (0)

// A default path (zig-zag across the middle) and obstacles (four circles at
// the quarter points), laid out in the world, when none are given.
static void default_scene(boids_params *p) {
    boids_world_params *w = &p->world;
    boids_scene *sc = &p->scene;
    if (sc->path_count == 0) {
        sc->path_count = 5;
        for (uint32_t i = 0; i < 5; i++) {
            sc->path[i][0] = w->min[0] + w->size[0] * (0.1f + 0.2f * (float)i);
            sc->path[i][1] = w->min[1] + w->size[1] * ((i & 1) ? 0.65f : 0.35f);
            sc->path[i][2] = w->min[2] + 0.5f * w->size[2];
            sc->path[i][3] = 0.0f;
        }
    }
    if (sc->obstacle_count == 0) {
        float r = fminf(w->size[0], w->size[1]) / 12.0f;
        sc->obstacle_count = 4;
        for (uint32_t i = 0; i < 4; i++) {
            sc->obstacle[i][0] = w->min[0] + w->size[0] * ((i & 1) ? 0.75f : 0.25f);
            sc->obstacle[i][1] = w->min[1] + w->size[1] * ((i & 2) ? 0.75f : 0.25f);
            sc->obstacle[i][2] = w->min[2] + 0.5f * w->size[2];
            sc->obstacle[i][3] = r;
        }
    }
}

bool boids_params_named(const boids_params *p) {
    const uint32_t named = BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW) | BOIDS_BIT(BOIDS_BI_INTERPOSE);
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++)
        if (p->group[g].behaviors & named)
            return true;
    return false;
}

// See boids/core.h. The groups' parts of 0..n are in id order, so group_of
// never decreases with the id.
uint32_t boids_params_group_of(const boids_params *p, uint32_t id) {
    uint32_t groups = p->world.group_count, n = p->world.count;
    double total = 0.0;
    for (uint32_t g = 0; g < groups; g++)
        total += p->group_share[g] > 0.0f ? p->group_share[g] : 0.0;
    if (!(total > 0.0))
        return id % groups;
    double at = ((double)id + 0.5) / (double)n * total, sum = 0.0;
    for (uint32_t g = 0; g < groups; g++) {
        sum += p->group_share[g] > 0.0f ? p->group_share[g] : 0.0;
        if (at < sum)
            return g;
    }
    return groups - 1;
}

// The first id whose group is >= g (n if none): a binary search, group_of
// never decreasing with the id.
static uint32_t first_of_group(const boids_params *p, uint32_t g) {
    uint32_t lo = 0, hi = p->world.count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (boids_params_group_of(p, mid) < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// See boids/core.h.
void boids_params_ranks(boids_params *p) {
    const boids_world_params *w = &p->world;
    uint32_t groups = w->group_count, n = w->count;
    double total = 0.0;
    for (uint32_t g = 0; g < groups && g < BOIDS_MAX_GROUPS; g++)
        total += p->group_share[g] > 0.0f ? p->group_share[g] : 0.0;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        boids_group_params *q = &p->group[g];
        q->rank_base = q->rank_stride = q->rank_count = q->rank_spare = 0;
        if (g >= groups || groups > BOIDS_MAX_GROUPS)
            continue;
        if (!(total > 0.0)) { // id mod groups: ids g, g + G, ...
            q->rank_base = g;
            q->rank_stride = groups;
            q->rank_count = n > g ? (n - g + groups - 1) / groups : 0;
        } else { // one run of ids each
            uint32_t first = first_of_group(p, g), end = first_of_group(p, g + 1);
            q->rank_base = first;
            q->rank_stride = 1;
            q->rank_count = end - first;
        }
    }
}

// A named agent: an id below the count or the target.
static bool named_ok(uint32_t id, uint32_t count) {
    return id == BOIDS_ID_TARGET || id < count;
}

// The walls of the feelers: a segment from != to (2D), or a plane with a
// normal that is not 0; finite; the spare words 0. NULL or the problem.
static const char *wall_problem(const boids_scene *sc, uint32_t dim, uint32_t *which) {
    if (sc->wall_count > BOIDS_MAX_WALLS)
        return "too many walls";
    if (sc->wall_spare0 || sc->wall_spare1 || sc->wall_spare2)
        return "spare words that are not 0";
    for (uint32_t k = 0; k < BOIDS_MAX_WALLS; k++) {
        const float *a = sc->wall[2 * k], *b = sc->wall[2 * k + 1];
        *which = k;
        if (k >= sc->wall_count) {
            for (int i = 0; i < 4; i++)
                if (a[i] != 0.0f || b[i] != 0.0f)
                    return "an unused wall row that is not 0";
            continue;
        }
        for (int i = 0; i < 4; i++)
            if (!isfinite(a[i]) || !isfinite(b[i]) || fabsf(a[i]) > BOIDS_MAX_EXTENT || fabsf(b[i]) > BOIDS_MAX_EXTENT)
                return "a coordinate that is not finite or beyond 1e9";
        if (b[3] != 0.0f || (a[3] != BOIDS_WALL_SEGMENT && a[3] != BOIDS_WALL_PLANE))
            return "a kind that is not a segment (0) or a plane (1)";
        if (a[3] == BOIDS_WALL_SEGMENT && dim != 2)
            return "a segment in 3D (allowed: planes, point and normal)";
        if (a[3] == BOIDS_WALL_SEGMENT && a[0] == b[0] && a[1] == b[1])
            return "a segment whose two ends are the same point";
        if (a[3] == BOIDS_WALL_PLANE && b[0] == 0.0f && b[1] == 0.0f && b[2] == 0.0f)
            return "a plane whose normal is 0";
        if (dim == 2 && (a[2] != 0.0f || b[2] != 0.0f))
            return "a z that is not 0 in 2D";
    }
    return NULL;
}

// What a registry number allows, as a message says it ("> 0",
// "0..3.14159", ">= 0, or 0 for the default").
static void range_text(const boids_param_info *in, char *buf, size_t size) {
    bool strict = in->flags & BOIDS_PF_STRICT, bounded = in->hi < 3e38;
    if (bounded && !strict)
        snprintf(buf, size, "%g..%g", in->lo, in->hi);
    else if (bounded)
        snprintf(buf, size, "> %g and <= %g", in->lo, in->hi);
    else
        snprintf(buf, size, "%s %g, finite", strict ? ">" : ">=", in->lo);
    if (in->flags & BOIDS_PF_UNSET0) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, ", or 0 for the default");
    }
}

// Whether x is in the registry row's range (0 too where 0 means unset).
static bool in_range(const boids_param_info *in, float x) {
    return ((in->flags & BOIDS_PF_UNSET0) && x == 0.0f) || !boids_param_out_of_range(in, x);
}

// The world's numbers that the registry describes (dt, wall_offset,
// margin) in their ranges: the rule of the flags and scenario keys.
static boids_result check_world_registry(const boids_world_params *w, char *what, size_t what_size) {
    char allowed[128];
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (in->where != BOIDS_PW_WORLD || in->kind != BOIDS_PK_FLOAT)
            continue;
        float x;
        memcpy(&x, (const char *)w + in->field, sizeof x);
        if (!in_range(in, x)) {
            range_text(in, allowed, sizeof allowed);
            FAIL(BOIDS_ERR_PARAM, "%s %g (allowed: %s)", in->name, (double)x, allowed);
        }
    }
    return BOIDS_OK;
}

// The world: dimension, count, groups, shares, kinds, extent, dt (a 2D
// world's z extent is made 0).
static boids_result check_world(boids_params *p, char *what, size_t what_size) {
    boids_world_params *w = &p->world;
    if (w->dim != 2 && w->dim != 3)
        FAIL(BOIDS_ERR_PARAM, "dimension %u (allowed: 2 or 3)", w->dim);
    if (w->count > BOIDS_MAX_AGENTS)
        FAIL(BOIDS_ERR_COUNT, "%u agents (allowed: 0..%u)", w->count, BOIDS_MAX_AGENTS);
    if (w->group_count < 1 || w->group_count > BOIDS_MAX_GROUPS)
        FAIL(BOIDS_ERR_PARAM, "%u groups (allowed: 1..%u)", w->group_count, BOIDS_MAX_GROUPS);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        if (!(p->group_share[g] >= 0.0f && p->group_share[g] <= 1e9f))
            FAIL(BOIDS_ERR_PARAM, "share %g of group %u (allowed: 0..1e9)", (double)p->group_share[g], g);
    if (p->flow.kind > BOIDS_FLOW_IMAGE)
        FAIL(BOIDS_ERR_PARAM, "flow-field kind %u (allowed: noise, swirl, uniform, image)", p->flow.kind);
    if (w->boundary > BOIDS_BOUNDARY_MARGIN || w->combine > BOIDS_COMBINE_TRUNCATED)
        FAIL(BOIDS_ERR_PARAM, "boundary %u / combine %u out of range", w->boundary, w->combine);
    // 0 is the default (BOIDS_MARGIN_DEFAULT), so every older run keeps its bits.
    if (!(w->margin == 0.0f || (w->margin > 0.0f && w->margin <= BOIDS_MAX_EXTENT)))
        FAIL(BOIDS_ERR_PARAM, "margin %g (allowed: > 0 and <= 1e9, or 0 for the default %g)", (double)w->margin,
             (double)BOIDS_MARGIN_DEFAULT);
    if (w->dim == 2) {
        w->size[2] = 0.0f;
        w->min[2] = isfinite(w->min[2]) ? w->min[2] : 0.0f;
    }
    for (uint32_t a = 0; a < w->dim; a++) {
        if (!finite_pos(w->size[a]) || !isfinite(w->min[a]) || !isfinite(w->min[a] + w->size[a]))
            FAIL(BOIDS_ERR_WORLD, "world extent %g on axis %c (allowed: positive, finite)", (double)w->size[a],
                 "xyz"[a]);
        if (w->size[a] > BOIDS_MAX_EXTENT || fabsf(w->min[a]) > BOIDS_MAX_EXTENT)
            FAIL(BOIDS_ERR_WORLD, "world %g from %g on axis %c (allowed: |coordinates| <= 1e9)", (double)w->size[a],
                 (double)w->min[a], "xyz"[a]);
    }
    return check_world_registry(w, what, what_size);
}

// Every number and choice of a group that the registry describes
// (boids/registry.h) in its range: finite, above lo (or at it), at most hi,
// 0 where 0 means unset; a choice one of its names. The noise word is its
// rule set's (check_group_rules). A radius of the grid's reach that is out
// of range is BOIDS_ERR_RADIUS, anything else BOIDS_ERR_PARAM.
static boids_result check_group_registry(const boids_group_params *g, uint32_t gi, char *what, size_t what_size) {
    char allowed[128];
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (in->where != BOIDS_PW_GROUP || i == BOIDS_PARAM_ETA || i == BOIDS_PARAM_SIGMA)
            continue;
        const char *at = (const char *)g + in->field;
        if (in->kind == BOIDS_PK_FLOAT) {
            float x;
            memcpy(&x, at, sizeof x);
            if (!in_range(in, x)) {
                range_text(in, allowed, sizeof allowed);
                FAIL(in->flags & BOIDS_PF_REACH ? BOIDS_ERR_RADIUS : BOIDS_ERR_PARAM, "%s %g of group %u (allowed: %s)",
                     in->name, (double)x, gi, allowed);
            }
        } else if (in->kind == BOIDS_PK_UINT || in->kind == BOIDS_PK_CHOICE) {
            uint32_t u, n = 0;
            memcpy(&u, at, sizeof u);
            while (in->choices && in->choices[n])
                n++;
            if (in->kind == BOIDS_PK_CHOICE ? u >= n : (u < in->lo || u > in->hi)) {
                if (in->kind == BOIDS_PK_CHOICE)
                    snprintf(allowed, sizeof allowed, "0..%u, a name of --%s", n - 1, in->flag);
                else
                    snprintf(allowed, sizeof allowed, "%.0f..%.0f", in->lo, in->hi);
                FAIL(BOIDS_ERR_PARAM, "%s %u of group %u (allowed: %s)", in->name, u, gi, allowed);
            }
        }
    }
    return BOIDS_OK;
}

// A group's radii, speed and force, field of view and per-rule
// neighbourhoods.
static boids_result check_group_radii(const boids_group_params *g, uint32_t gi, char *what, size_t what_size) {
    if (!(g->fov_cos >= -1.0f && g->fov_cos <= 1.0f) || !(g->view_cos >= -1.0f && g->view_cos <= 1.0f))
        FAIL(BOIDS_ERR_PARAM, "field of view cosine %g / %g of group %u (allowed: -1..1)", (double)g->fov_cos,
             (double)g->view_cos, gi);
    // A least speed above the most an agent may go would fight the limit.
    float slowest = g->maxspeed_lo > 0.0f ? g->maxspeed_lo : g->maxspeed;
    if (g->min_speed > slowest)
        FAIL(BOIDS_ERR_PARAM, "min_speed %g of group %u (allowed: 0..%g, its maxspeed)", (double)g->min_speed, gi,
             (double)slowest);
    if (g->own_cones & ~BOIDS_CONES)
        FAIL(BOIDS_ERR_PARAM, "own-cone bits 0x%x of group %u (allowed: the bits of 0x%x)", g->own_cones, gi,
             BOIDS_CONES);
    const float rule_cos[3] = {g->separation_fov_cos, g->alignment_fov_cos, g->cohesion_fov_cos};
    static const char *const rule_name[3] = {"separation", "alignment", "cohesion"};
    for (uint32_t k = 0; k < 3; k++) {
        bool own = g->own_cones & (1u << k);
        if (own ? !(rule_cos[k] >= -1.0f && rule_cos[k] <= 1.0f) : rule_cos[k] != 0.0f)
            FAIL(BOIDS_ERR_PARAM, "%s field of view cosine %g of group %u (allowed: %s)", rule_name[k],
                 (double)rule_cos[k], gi, own ? "-1..1" : "0 without its own cone");
    }
    return BOIDS_OK;
}

// A group's steering parameters, weights, behaviours and rule set (a
// missing arrive radius becomes 1e-6).
static boids_result check_group_steering(boids_group_params *g, uint32_t gi, char *what, size_t what_size) {
    if (!(g->arrive_radius > 0.0f))
        g->arrive_radius = 1e-6f;
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        if (!isfinite(boids_weight(g, i)))
            FAIL(BOIDS_ERR_PARAM, "weight of %s in group %u is not finite", boids_behavior_name(i), gi);
    if (g->behaviors >> BOIDS_BEHAVIOR_COUNT)
        FAIL(BOIDS_ERR_PARAM, "behaviour bits 0x%x of group %u", g->behaviors, gi);
    return BOIDS_OK;
}

// A group's named agents (leader, interpose A and B), formation and leader
// rows (the offset's w, and its z in 2D, made 0).
static boids_result check_group_leader(const boids_world_params *w, boids_group_params *g, uint32_t gi, char *what,
                                       size_t what_size) {
    // Named agents must exist where a behaviour on looks for them (one
    // switched on later, from the viewer, that finds none steers by the
    // target: src/core/steer_behaviors.c named_agent).
    const uint32_t named[3] = {g->leader, g->interpose_a, g->interpose_b};
    const bool used[3] = {(g->behaviors & (BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW))) != 0,
                          (g->behaviors & BOIDS_BIT(BOIDS_BI_INTERPOSE)) != 0,
                          (g->behaviors & BOIDS_BIT(BOIDS_BI_INTERPOSE)) != 0};
    for (int k = 0; k < 3; k++)
        if (used[k] && w->count > 0 && !named_ok(named[k], w->count))
            FAIL(BOIDS_ERR_PARAM, "%s %u of group %u (allowed: an agent id below the count %u, or target)",
                 k == 0   ? "leader"
                 : k == 1 ? "interpose A"
                          : "interpose B",
                 named[k], gi, w->count);
    for (int a = 0; a < 3; a++)
        if (!isfinite(g->leader_offset[a]) || fabsf(g->leader_offset[a]) > BOIDS_MAX_EXTENT)
            FAIL(BOIDS_ERR_PARAM, "leader offset %g of group %u (allowed: -1e9..1e9)", (double)g->leader_offset[a], gi);
    g->leader_offset[3] = 0.0f;
    if (w->dim == 2)
        g->leader_offset[2] = 0.0f; // a plane has no up
    return BOIDS_OK;
}

// What a group's rule set allows: its dimension, behaviours and zones, its
// repulse and noise.
static boids_result check_group_rules(const boids_world_params *w, const boids_group_params *g, uint32_t gi, char *what,
                                      size_t what_size) {
    // The heading boids of the angle-bug post live on a plane and know
    // only its three rules (a heading is an angle; other forces have no
    // turn to become).
    if (g->rules == BOIDS_RULES_HEADING && w->dim != 2)
        FAIL(BOIDS_ERR_PARAM, "rules heading of group %u in a %uD world (allowed: 2D only)", gi, w->dim);
    if (g->rules == BOIDS_RULES_HEADING && (g->behaviors & ~BOIDS_B_FLOCKING)) {
        char names[256];
        boids_behaviors_text(g->behaviors & ~BOIDS_B_FLOCKING, ", ", names, sizeof names);
        FAIL(BOIDS_ERR_PARAM, "rules heading of group %u with %s (allowed: separation, alignment, cohesion)", gi,
             names);
    }
    // Circles (FLAME GPU's benchmark model) is the separation rule alone,
    // a displacement per step.
    if (g->rules == BOIDS_RULES_CIRCLES && g->behaviors != BOIDS_BIT(BOIDS_BI_SEPARATION)) {
        char names[256];
        boids_behaviors_text(g->behaviors, ", ", names, sizeof names);
        FAIL(BOIDS_ERR_PARAM, "rules circles of group %u with behaviours %s (allowed: separation alone)", gi, names);
    }
    // Vicsek's model is the alignment of headings alone; Couzin's zones
    // are separation (repulsion), alignment (orientation) and cohesion
    // (attraction), nested: r_r <= r_o <= r_a.
    if (g->rules == BOIDS_RULES_VICSEK && g->behaviors != BOIDS_BIT(BOIDS_BI_ALIGNMENT)) {
        char names[256];
        boids_behaviors_text(g->behaviors, ", ", names, sizeof names);
        FAIL(BOIDS_ERR_PARAM, "rules vicsek of group %u with behaviours %s (allowed: alignment alone)", gi, names);
    }
    if (g->rules == BOIDS_RULES_COUZIN && (g->behaviors & ~BOIDS_B_FLOCKING)) {
        char names[256];
        boids_behaviors_text(g->behaviors & ~BOIDS_B_FLOCKING, ", ", names, sizeof names);
        FAIL(BOIDS_ERR_PARAM, "rules couzin of group %u with %s (allowed: separation, alignment, cohesion)", gi, names);
    }
    if (g->rules == BOIDS_RULES_COUZIN &&
        !(g->separation <= boids_alignment_radius(g) && boids_alignment_radius(g) <= boids_cohesion_radius(g)))
        FAIL(BOIDS_ERR_PARAM,
             "rules couzin of group %u with zones r_r %g, r_o %g, r_a %g (allowed: separation <= alignment radius "
             "<= cohesion radius)",
             gi, (double)g->separation, (double)boids_alignment_radius(g), (double)boids_cohesion_radius(g));
    if (!isfinite(g->noise) || g->noise < 0.0f || g->noise > noise_max(g->rules))
        FAIL(BOIDS_ERR_PARAM, "%s %g of group %u (allowed: %s)", g->rules == BOIDS_RULES_COUZIN ? "sigma" : "eta",
             (double)g->noise, gi, noise_allowed(g->rules));
    return BOIDS_OK;
}

// A group's weights and per-agent ranges.
static boids_result check_group_ranges(const boids_group_params *g, uint32_t gi, char *what, size_t what_size) {
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        if (!(fabsf(boids_weight(g, i)) <= BOIDS_MAX_WEIGHT))
            FAIL(BOIDS_ERR_PARAM, "weight %g of %s in group %u (allowed: -1e6..1e6)", (double)boids_weight(g, i),
                 boids_behavior_name(i), gi);
    // Per-agent ranges: none (0, 0) or lo <= hi, each in its row's range.
    const float *range[2] = {&g->maxspeed_lo, &g->maxforce_lo};
    const boids_param_info *row[2] = {&boids_param_table[BOIDS_PARAM_MAXSPEED_RANGE],
                                      &boids_param_table[BOIDS_PARAM_MAXFORCE_RANGE]};
    for (int k = 0; k < 2; k++) {
        float lo = range[k][0], hi = range[k][1];
        if (!(lo == 0.0f && hi == 0.0f) &&
            (boids_param_out_of_range(row[k], lo) || boids_param_out_of_range(row[k], hi) || !(lo <= hi))) {
            char allowed[128];
            range_text(row[k], allowed, sizeof allowed);
            FAIL(BOIDS_ERR_PARAM, "%s range %g, %g of group %u (allowed: 0 < lo <= hi, each %s)",
                 k ? "maxforce" : "maxspeed", (double)lo, (double)hi, gi, allowed);
        }
    }
    return BOIDS_OK;
}

// Every group in use, in order; then the fastest speed any agent may go and
// the largest interaction radius.
static boids_result check_groups(boids_params *p, char *what, size_t what_size) {
    boids_world_params *w = &p->world;
    float vmax = 0.0f;
    for (uint32_t gi = 0; gi < w->group_count; gi++) {
        boids_group_params *g = &p->group[gi];
        boids_result r = check_group_registry(g, gi, what, what_size);
        if (r == BOIDS_OK)
            r = check_group_radii(g, gi, what, what_size);
        if (r == BOIDS_OK)
            r = check_group_steering(g, gi, what, what_size);
        if (r == BOIDS_OK)
            r = check_group_leader(w, g, gi, what, what_size);
        if (r == BOIDS_OK)
            r = check_group_rules(w, g, gi, what, what_size);
        if (r == BOIDS_OK)
            r = check_group_ranges(g, gi, what, what_size);
        if (r != BOIDS_OK)
            return r;
        // The fastest any agent may go: the range's top when it has one.
        vmax = fmaxf(vmax, g->maxspeed_lo > 0.0f ? g->maxspeed_hi : g->maxspeed);
    }
    w->max_radius = boids_params_reach(p);
    w->max_speed_all = vmax;
    return BOIDS_OK;
}

// A step of the fastest agent, maxspeed x dt, must be at least the float
// spacing where the world lies farthest from 0: a position there changes
// by whole spacings, and a shorter step rounds back to where it was (every
// agent frozen while its velocity says it moves). Positions are kept
// absolute, so the world must lie within 2^(floor(log2 step) + 24) of 0.
static boids_result check_spacing(const boids_world_params *w, char *what, size_t what_size) {
    double step = (double)w->max_speed_all * (double)w->dt;
    float far = 0.0f;
    for (uint32_t a = 0; a < w->dim; a++)
        far = fmaxf(far, fmaxf(fabsf(w->min[a]), fabsf(w->min[a] + w->size[a])));
    double spacing = (double)nextafterf(far, INFINITY) - (double)far;
    if (!(step < spacing))
        return BOIDS_OK;
    int e;
    frexp(step, &e); // step in [2^(e-1), 2^e)
    double limit = ldexp(1.0, e + 23), largest = limit;
    for (uint32_t a = 0; a < w->dim; a++)
        largest = fmin(largest, limit - (double)w->size[a]);
    char origin[96];
    snprintf(origin, sizeof origin, w->dim == 3 ? "%g,%g,%g" : "%g,%g", (double)w->min[0], (double)w->min[1],
             (double)w->min[2]);
    char allowed[96];
    if (largest > 0.0)
        snprintf(allowed, sizeof allowed, "an origin from %g to %g", -limit, largest);
    else
        snprintf(allowed, sizeof allowed, "a smaller world, a larger maxspeed or dt");
    FAIL(BOIDS_ERR_WORLD,
         "origin %s: positions at the far corner (%g from 0) are %g apart, above a step of maxspeed %g x dt %g = %g: "
         "agents would not move (allowed: the world within %g of 0, %s)",
         origin, (double)far, spacing, (double)w->max_speed_all, (double)w->dt, step, limit, allowed);
}

// The bodies, and the distance one step may cover.
static boids_result check_bodies(const boids_params *p, char *what, size_t what_size) {
    const boids_world_params *w = &p->world;
    // Bodies: valid types, and (on a torus) shorter than half the world, so
    // the minimum image between neighbouring joints is the body's own.
    for (uint32_t gi = 0; gi < w->group_count; gi++) {
        const boids_body_params *b = &p->body[gi];
        char body_what[160];
        if (boids_body_check(b, body_what, sizeof body_what) != BOIDS_OK)
            FAIL(BOIDS_ERR_BODY, "body of group %u: %s", gi, body_what);
        double total = 0.0;
        for (uint32_t i = 0; b->style != BOIDS_BODY_NONE && i + 1 < b->joints; i++)
            total += boids_body_length(b, i);
        for (uint32_t a = 0; a < w->dim && w->boundary == BOIDS_BOUNDARY_WRAP; a++)
            if (total >= 0.5 * (double)w->size[a])
                FAIL(BOIDS_ERR_BODY, "body of group %u is %g long, the wrapped world %g on axis %c (allowed: < %g)", gi,
                     total, (double)w->size[a], "xyz"[a], 0.5 * (double)w->size[a]);
    }
    // One step may not cross more than half the world (the wrap and the
    // minimum image assume it, and float positions would lose their meaning).
    float smallest = w->size[0];
    for (uint32_t a = 1; a < w->dim; a++)
        smallest = fminf(smallest, w->size[a]);
    if (!(w->max_speed_all * w->dt <= 0.5f * smallest))
        FAIL(BOIDS_ERR_PARAM, "maxspeed %g x dt %g moves more than half the world (%g) per step (allowed: <= %g)",
             (double)w->max_speed_all, (double)w->dt, (double)smallest, 0.5 * (double)smallest);
    return check_spacing(w, what, what_size);
}

// The finer grid's factor, then the grid's cells (each at least the reach
// over the factor wide).
static boids_result check_grid(boids_params *p, char *what, size_t what_size) {
    boids_world_params *w = &p->world;
    float rmax = w->max_radius;
    // The finer grid: M in 1..4 (0 is 1), or auto (the engine's pick in the
    // low bits). The heading rules' survey looks for the densest 3x3 block of
    // reach-wide cells: with it the grid stays coarse (auto picks 1; an
    // explicit M > 1 is refused rather than changing what the survey means).
    if ((w->grid_fine & ~(BOIDS_GRID_FINE_MASK | BOIDS_GRID_FINE_AUTO)) ||
        (w->grid_fine & BOIDS_GRID_FINE_MASK) > BOIDS_GRID_FINE_MAX)
        FAIL(BOIDS_ERR_PARAM, "grid fine factor 0x%x (allowed: 1..%u, or auto)", w->grid_fine, BOIDS_GRID_FINE_MAX);
    bool fine_auto = (w->grid_fine & BOIDS_GRID_FINE_AUTO) != 0;
    uint32_t fine = boids_world_grid_fine(w);
    if (fine > 1 && boids_params_survey(p)) {
        if (!fine_auto)
            FAIL(BOIDS_ERR_PARAM,
                 "grid fine factor %u with the heading rules' survey (rules heading with cohesion; allowed: 1 or "
                 "auto, the survey's blocks are of reach-wide cells)",
                 fine);
        fine = 1;
    }
    w->grid_fine = boids_grid_fine_word(fine, fine_auto);

    // Grid: n = floor(extent * M / rmax) cells (>= 1), each size/n >= rmax/M
    // wide; capped so the whole grid stays <= 2^24 cells (cells only get
    // wider). M = 1: floor(extent / rmax), today's grid.
    double total = 1.0;
    for (uint32_t a = 0; a < 3; a++) {
        if (a >= w->dim) {
            w->cells[a] = 1;
            w->cell[a] = 1.0f;
            w->inv_cell[a] = 0.0f;
            continue;
        }
        if (rmax > axis_max_radius(w, a))
            FAIL(BOIDS_ERR_CELL,
                 "interaction radius %g does not fit the wrapped world extent %g on axis %c (allowed: radius <= "
                 "%g, half the extent)",
                 (double)rmax, (double)w->size[a], "xyz"[a], 0.5 * (double)w->size[a]);
        double n = fine == 1 ? floor((double)w->size[a] / (double)rmax)
                             : floor((double)w->size[a] * (double)fine / (double)rmax);
        double cap = w->dim == 3 ? 256.0 : 4096.0;
        if (n > cap)
            n = cap;
        if (n < 1.0)
            n = 1.0;
        w->cells[a] = (uint32_t)n;
        w->cell[a] = (float)((double)w->size[a] / n);
        w->inv_cell[a] = (float)(n / (double)w->size[a]);
        total *= n;
    }
    w->cells[3] = (uint32_t)total;
    return BOIDS_OK;
}

// The path, obstacles and walls; then the default path and obstacles where
// none are given, and the groups' ranks.
static boids_result check_scene(boids_params *p, char *what, size_t what_size) {
    const boids_world_params *w = &p->world;
    if (p->scene.path_count > BOIDS_MAX_PATH_POINTS || p->scene.path_count == 1 || !(p->scene.path_radius > 0.0f) ||
        !isfinite(p->scene.path_radius))
        FAIL(BOIDS_ERR_PATH, "%u path points, radius %g", p->scene.path_count, (double)p->scene.path_radius);
    if (p->scene.path_flags & ~BOIDS_PATH_FLAGS)
        FAIL(BOIDS_ERR_PATH, "path flags 0x%x (allowed: the bits of 0x%x)", p->scene.path_flags, BOIDS_PATH_FLAGS);
    if (p->scene.obstacle_count > BOIDS_MAX_OBSTACLES)
        FAIL(BOIDS_ERR_PARAM, "%u obstacles (allowed: 0..%u)", p->scene.obstacle_count, BOIDS_MAX_OBSTACLES);
    uint32_t wall = 0;
    const char *wall_bad = wall_problem(&p->scene, w->dim, &wall);
    if (wall_bad)
        FAIL(BOIDS_ERR_PARAM, "wall %u of %u: %s", wall + 1, p->scene.wall_count, wall_bad);
    default_scene(p);
    boids_params_ranks(p);
    return BOIDS_OK;
}

// A noise field's scale: in its range, and times every cell centre's
// coordinate (the noise's input) at most BOIDS_FLOW_NOISE_MAX (beyond 2^31
// the noise has no integer part and its vectors are NaN).
static boids_result check_flow_noise(const boids_params *p, char *what, size_t what_size) {
    const boids_world_params *w = &p->world;
    double s = p->flow.noise_scale, res = p->flow.resolution, far = 0.0;
    if (!(s > 0.0 && s <= (double)BOIDS_FLOW_NOISE_SCALE_MAX))
        FAIL(BOIDS_ERR_PARAM, "flow-field noise_scale %g (allowed: > 0 and <= %g)", s,
             (double)BOIDS_FLOW_NOISE_SCALE_MAX);
    for (uint32_t a = 0; a < w->dim; a++) {
        double last = (double)w->min[a] + ((double)w->flow_dims[a] - 0.5) * res;
        far = fmax(far, fmax(fabs((double)w->min[a] + 0.5 * res), fabs(last)));
    }
    if (far * s > BOIDS_FLOW_NOISE_MAX)
        FAIL(BOIDS_ERR_PARAM,
             "flow-field noise_scale %g x the farthest cell centre %g = %g (allowed: <= %g, a noise_scale <= %g "
             "for this world and resolution)",
             s, far, far * s, BOIDS_FLOW_NOISE_MAX, BOIDS_FLOW_NOISE_MAX / far);
    return BOIDS_OK;
}

// The flow field's resolution and grid.
static boids_result check_flow(boids_params *p, char *what, size_t what_size) {
    boids_world_params *w = &p->world;
    bool flow = false;
    for (uint32_t gi = 0; gi < w->group_count; gi++)
        flow = flow || (p->group[gi].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    if (!finite_pos(p->flow.resolution) || p->flow.resolution > BOIDS_MAX_EXTENT)
        FAIL(BOIDS_ERR_PARAM, "flow-field resolution %g (allowed: > 0 and <= 1e9)", (double)p->flow.resolution);
    for (uint32_t a = 0; a < 3; a++) {
        double n = (a >= w->dim) ? 1.0 : ceil((double)w->size[a] / p->flow.resolution);
        if (n > 65536.0 && !flow)
            n = 65536.0; // never built: nothing to check
        if (n > 65536.0)
            FAIL(BOIDS_ERR_PARAM, "flow-field resolution %g gives %g cells on axis %c (allowed: <= 65536)",
                 (double)p->flow.resolution, n, "xyz"[a]);
        w->flow_dims[a] = (uint32_t)(n < 1.0 ? 1.0 : n);
        w->flow_inv_cell[a] = 1.0f / p->flow.resolution;
    }
    w->flow_dims[3] = w->flow_dims[0] * w->flow_dims[1] * w->flow_dims[2];
    if (flow && (double)w->flow_dims[0] * w->flow_dims[1] * w->flow_dims[2] > 16777216.0)
        FAIL(BOIDS_ERR_PARAM, "flow field of %u x %u x %u cells (allowed: <= 2^24)", w->flow_dims[0], w->flow_dims[1],
             w->flow_dims[2]);
    return flow && p->flow.kind == BOIDS_FLOW_NOISE ? check_flow_noise(p, what, what_size) : BOIDS_OK;
}

// Check every value, then derive: the grid (cells of at least the largest
// interaction radius, and, on a torus, a radius of at most half the world so
// the minimum image is unique), the alignment scale, the flow-field grid.
boids_result boids_params_finalize(boids_params *p, char *what, size_t what_size) {
    boids_result r = check_world(p, what, what_size);
    if (r == BOIDS_OK)
        r = check_groups(p, what, what_size);
    if (r == BOIDS_OK)
        r = check_bodies(p, what, what_size);
    if (r == BOIDS_OK)
        r = check_grid(p, what, what_size);
    if (r == BOIDS_OK)
        r = check_scene(p, what, what_size);
    if (r == BOIDS_OK)
        r = check_flow(p, what, what_size);
    if (r != BOIDS_OK)
        return r;
    boids_world_params *w = &p->world;
    // Target coordinates never placed (NaN, as boids_params_default leaves
    // them): the world's centre on that axis.
    for (uint32_t a = 0; a < 3; a++)
        if (isnan(w->target_pos[a]))
            w->target_pos[a] = w->min[a] + 0.5f * w->size[a];
    return BOIDS_OK;
}
