// src/core/sim.c: a CPU simulation: allocation, initial agents from the
// counter-based RNG, and the step pipeline (DESIGN.md "Data flow of one
// step"): key -> count -> scan -> scatter -> steer -> integrate -> bodies, double
// buffered (read cur, write next, swap).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "boids/behaviors.h"
#include "boids/quadtree.h"
#include "threads.h"

static void state_free(boids_state *st) {
    free(st->pos);
    free(st->vel);
    free(st->id);
    free(st->group);
    memset(st, 0, sizeof(*st));
}

static bool state_alloc(boids_state *st, uint32_t n) {
    size_t m = n ? n : 1;
    st->pos = malloc(m * sizeof(*st->pos));
    st->vel = malloc(m * sizeof(*st->vel));
    st->id = malloc(m * sizeof(*st->id));
    st->group = malloc(m * sizeof(*st->group));
    return st->pos && st->vel && st->id && st->group;
}

static int thread_count(const boids_sim *s) {
    return boids_step_threads(s->threads);
}

// Uniform draw in [0, 1) for (id, counter, stream) of this run's seed.
static float draw(const boids_world_params *w, uint32_t id, uint32_t counter, uint32_t stream) {
    return boids_rng_unit(boids_rng_u32(w->seed_lo, w->seed_hi, id, counter, stream));
}

// Initial agents: positions uniform in the world, or around clusters (one per
// 5000 agents, spread 3 radii); random directions at 50-100% of the agent's
// maxspeed (boids_agent_maxspeed);
// groups by boids_params_group_of.
static void init_agents(boids_sim *s, boids_distribution dist) {
    const boids_world_params *w = &s->p.world;
    uint32_t clusters = s->n / 5000 + 1;
    for (uint32_t id = 0; id < s->n; id++) {
        float *p = s->cur.pos[id], *v = s->cur.vel[id];
        uint32_t g = boids_params_group_of(&s->p, id);
        if (dist == BOIDS_DIST_CLUSTERED) {
            uint32_t k = boids_rng_u32(w->seed_lo, w->seed_hi, id, 0, BOIDS_RNG_CLUSTER) % clusters;
            float spread = 3.0f * s->p.group[0].radius;
            for (uint32_t a = 0; a < 3; a++) {
                float centre = w->min[a] + draw(w, k, a, BOIDS_RNG_CLUSTER) * w->size[a];
                // Sum of three uniforms: a bell of standard deviation ~spread/2.
                float u = draw(w, id, 8 + a, BOIDS_RNG_POSITION) + draw(w, id, 16 + a, BOIDS_RNG_POSITION) +
                          draw(w, id, 24 + a, BOIDS_RNG_POSITION) - 1.5f;
                p[a] = a < w->dim ? centre + u * spread : w->min[a];
            }
        } else {
            for (uint32_t a = 0; a < 3; a++)
                p[a] = a < w->dim ? w->min[a] + draw(w, id, a, BOIDS_RNG_POSITION) * w->size[a] : w->min[a];
        }
        float speed = boids_agent_maxspeed(w, &s->p.group[g], id) * (0.5f + 0.5f * draw(w, id, 3, BOIDS_RNG_VELOCITY));
        float theta = BOIDS_TWO_PI * draw(w, id, 0, BOIDS_RNG_VELOCITY);
        if (w->dim == 2) {
            v[0] = speed * cosf(theta);
            v[1] = speed * sinf(theta);
            v[2] = 0.0f;
        } else {
            float z = 2.0f * draw(w, id, 1, BOIDS_RNG_VELOCITY) - 1.0f, r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
            v[0] = speed * r * cosf(theta);
            v[1] = speed * r * sinf(theta);
            v[2] = speed * z;
        }
        p[3] = 0.0f; // wander angle theta
        v[3] = 0.0f; // wander angle phi
        boids_boundary(w, p, v);
        s->cur.id[id] = id;
        s->cur.group[id] = g;
    }
}

// A simulation of p (finalized here) with agents from the seed.
boids_result boids_sim_create(boids_sim **out, const boids_params *p, boids_distribution dist) {
    if (!out || !p) {
        if (out)
            *out = NULL;
        return BOIDS_ERR_ARGUMENT;
    }
    *out = NULL;
    boids_sim *s = calloc(1, sizeof(*s));
    if (!s)
        return BOIDS_ERR_NOMEM;
    s->p = *p;
    s->p.flow.vec = NULL;
    s->p.flow.dims[3] = 0;
    s->p.flow.image_hash = 0; // the image this sim reads (build sets it)
    boids_result r = boids_params_finalize(&s->p, NULL, 0);
    if (r != BOIDS_OK) {
        free(s);
        return r;
    }
    s->n = s->p.world.count;
    uint32_t cells = s->p.world.cells[3];
    size_t m = s->n ? s->n : 1;
    bool ok = state_alloc(&s->cur, s->n) && state_alloc(&s->next, s->n);
    s->accel = malloc(m * sizeof(*s->accel));
    s->neighbors = calloc(m, sizeof(*s->neighbors));
    s->nearest = calloc(m, sizeof(*s->nearest));
    s->candidates = calloc(m, sizeof(*s->candidates));
    s->slot_of_id = malloc(m * sizeof(*s->slot_of_id));
    s->capacity = (uint32_t)m;
    s->grid.cells = cells;
    s->grid.key = malloc(m * sizeof(*s->grid.key));
    s->grid.count = malloc(cells * sizeof(*s->grid.count));
    s->grid.start = malloc(((size_t)cells + 1) * sizeof(*s->grid.start));
    s->grid.fill = malloc(cells * sizeof(*s->grid.fill));
    ok = ok && s->accel && s->neighbors && s->nearest && s->candidates && s->slot_of_id && s->grid.key &&
         s->grid.count && s->grid.start && s->grid.fill;
    // The flow field is built only when a group follows it (it can be large).
    bool flow = false;
    for (uint32_t g = 0; g < s->p.world.group_count; g++)
        flow = flow || (s->p.group[g].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    // An image that cannot be read is BOIDS_ERR_IO (a bad input), not memory.
    r = ok && flow ? boids_flowfield_build(&s->p.flow, &s->p.world) : BOIDS_OK;
    if (!ok || r != BOIDS_OK) {
        boids_sim_destroy(s);
        return ok && r == BOIDS_ERR_IO ? BOIDS_ERR_IO : BOIDS_ERR_NOMEM;
    }
    s->joint_rows = boids_params_joint_rows(&s->p);
    if (s->joint_rows && !(s->joints = malloc((size_t)s->joint_rows * m * sizeof(*s->joints)))) {
        boids_sim_destroy(s);
        return BOIDS_ERR_NOMEM;
    }
    init_agents(s, dist);
    boids_sim_build_grid(s);
    boids_sim_reset_bodies(s);
    *out = s;
    return BOIDS_OK;
}

// One per-slot array grown to `cap` elements of `size` bytes (contents kept).
static bool grow(void **a, size_t cap, size_t size) {
    void *b = realloc(*a, cap * size);
    if (!b)
        return false;
    *a = b;
    return true;
}

// See boids/core.h.
boids_result boids_sim_reserve(boids_sim *s, uint32_t capacity) {
    if (!s)
        return BOIDS_ERR_ARGUMENT;
    if (capacity <= s->capacity)
        return BOIDS_OK;
    size_t c = capacity;
    bool ok = grow((void **)&s->cur.pos, c, sizeof(float[4])) && grow((void **)&s->cur.vel, c, sizeof(float[4])) &&
              grow((void **)&s->cur.id, c, sizeof(uint32_t)) && grow((void **)&s->cur.group, c, sizeof(uint32_t)) &&
              grow((void **)&s->next.pos, c, sizeof(float[4])) && grow((void **)&s->next.vel, c, sizeof(float[4])) &&
              grow((void **)&s->next.id, c, sizeof(uint32_t)) && grow((void **)&s->next.group, c, sizeof(uint32_t)) &&
              grow((void **)&s->accel, c, sizeof(float[4])) && grow((void **)&s->neighbors, c, sizeof(uint32_t)) &&
              grow((void **)&s->nearest, c, sizeof(float)) && grow((void **)&s->candidates, c, sizeof(uint32_t)) &&
              grow((void **)&s->slot_of_id, c, sizeof(uint32_t)) && grow((void **)&s->grid.key, c, sizeof(uint32_t));
    if (!ok)
        return BOIDS_ERR_NOMEM; // the arrays grown so far are larger, which is harmless
    free(s->steer_xy);          // the 2D path's scratch is allocated at the capacity on its next use
    free(s->steer_ali);
    s->steer_xy = NULL;
    s->steer_ali = NULL;
    s->capacity = capacity;
    return BOIDS_OK;
}

// See boids/core.h.
boids_result boids_sim_set_grid(boids_sim *s, const boids_params *p) {
    if (!s || !p)
        return BOIDS_ERR_ARGUMENT;
    uint32_t cells = p->world.cells[3];
    if (cells != s->grid.cells) {
        uint32_t *count = malloc((size_t)cells * sizeof(*count));
        uint32_t *start = malloc(((size_t)cells + 1) * sizeof(*start));
        uint32_t *fill = malloc((size_t)cells * sizeof(*fill));
        if (!count || !start || !fill) {
            free(count);
            free(start);
            free(fill);
            return BOIDS_ERR_NOMEM;
        }
        free(s->grid.count);
        free(s->grid.start);
        free(s->grid.fill);
        s->grid.count = count;
        s->grid.start = start;
        s->grid.fill = fill;
        s->grid.cells = cells;
    }
    boids_world_params *w = &s->p.world;
    memcpy(w->cells, p->world.cells, sizeof w->cells);
    memcpy(w->cell, p->world.cell, sizeof w->cell);
    memcpy(w->inv_cell, p->world.inv_cell, sizeof w->inv_cell);
    w->grid_fine = p->world.grid_fine;
    boids_sim_build_grid(s);
    return BOIDS_OK;
}

// Free everything.
void boids_sim_destroy(boids_sim *s) {
    if (!s)
        return;
    state_free(&s->cur);
    state_free(&s->next);
    free(s->accel);
    free(s->neighbors);
    free(s->nearest);
    free(s->candidates);
    free(s->slot_of_id);
    free(s->joints);
    free(s->steer_xy);
    free(s->steer_ali);
    free(s->grid.key);
    free(s->grid.count);
    free(s->grid.start);
    free(s->grid.fill);
    boids_quadtree_free(s->quadtree);
    free(s->quadtree);
    boids_flowfield_free(&s->p.flow);
    free(s);
}

// Replace the agents; positions outside the world are wrapped or clamped in,
// speeds above the agent's maxspeed (boids_agent_maxspeed: its range's draw
// or the group's) are limited to it (as every step does).
// The checks of set_agents and set_state: every group in range, the first
// `lanes` components of every position and velocity finite.
static bool agents_ok(const boids_sim *s, const float (*pos)[4], const float (*vel)[4], const uint32_t *group,
                      int lanes) {
    for (uint32_t id = 0; id < s->n; id++) {
        if (group[id] >= s->p.world.group_count)
            return false;
        for (int a = 0; a < lanes; a++)
            if (!isfinite(pos[id][a]) || !isfinite(vel[id][a]))
                return false;
    }
    return true;
}

boids_result boids_sim_set_agents(boids_sim *s, const float (*pos)[4], const float (*vel)[4], const uint32_t *group) {
    if (!s)
        return BOIDS_ERR_ARGUMENT;
    const boids_world_params *w = &s->p.world;
    if (!agents_ok(s, pos, vel, group, 3))
        return BOIDS_ERR_PARAM;
    for (uint32_t id = 0; id < s->n; id++) {
        memcpy(s->cur.pos[id], pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[id], vel[id], sizeof(float[4]));
        if (!isfinite(s->cur.pos[id][3]))
            s->cur.pos[id][3] = 0.0f;
        if (!isfinite(s->cur.vel[id][3]))
            s->cur.vel[id][3] = 0.0f;
        boids_limit(s->cur.vel[id], boids_agent_maxspeed(w, &s->p.group[group[id]], id));
        boids_boundary(w, s->cur.pos[id], s->cur.vel[id]);
        s->cur.id[id] = id;
        s->cur.group[id] = group[id];
    }
    boids_sim_build_grid(s);
    boids_sim_reset_bodies(s);
    return BOIDS_OK;
}

// See boids/core.h.
boids_result boids_sim_set_state(boids_sim *s, uint64_t step, const float (*pos)[4], const float (*vel)[4],
                                 const uint32_t *group, const float (*joints)[4]) {
    if (!s)
        return BOIDS_ERR_ARGUMENT;
    size_t rows = joints && s->joints ? (size_t)s->joint_rows * s->n : 0;
    if (!agents_ok(s, pos, vel, group, 4))
        return BOIDS_ERR_PARAM;
    for (size_t k = 0; k < rows; k++)
        for (int a = 0; a < 4; a++)
            if (!isfinite(joints[k][a]))
                return BOIDS_ERR_PARAM;
    for (uint32_t id = 0; id < s->n; id++) {
        memcpy(s->cur.pos[id], pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[id], vel[id], sizeof(float[4]));
        s->cur.id[id] = id;
        s->cur.group[id] = group[id];
        s->neighbors[id] = 0;
        s->candidates[id] = 0;
        s->nearest[id] = 0.0f;
    }
    s->step = step;
    if (step > 0)
        s->p.world.step = (uint32_t)(step - 1);
    boids_sim_build_grid(s);
    if (rows)
        memcpy(s->joints, joints, rows * sizeof(float[4]));
    else
        boids_sim_reset_bodies(s);
    return BOIDS_OK;
}

static void swap_state(boids_sim *s) {
    boids_state t = s->cur;
    s->cur = s->next;
    s->next = t;
}

// key -> count -> scan -> scatter (cur -> next in cell order), then swap.
// Counting and scattering are serial in slot order, so the order within a
// cell is reproducible (and the steer stage does not depend on it anyway).
void boids_sim_build_grid(boids_sim *s) {
    if (!s)
        return;
    const boids_world_params *w = &s->p.world;
    boids_grid *g = &s->grid;
    int n = (int)s->n;
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(thread_count(s))
    for (int i = 0; i < n; i++)
        g->key[i] = boids_grid_cell_of(w, s->cur.pos[i]);
    double t1 = omp_get_wtime();
    memset(g->count, 0, g->cells * sizeof(*g->count));
    for (int i = 0; i < n; i++)
        g->count[g->key[i]]++;
    double t2 = omp_get_wtime();
    uint32_t sum = 0;
    for (uint32_t c = 0; c < g->cells; c++) {
        g->start[c] = sum;
        sum += g->count[c];
    }
    g->start[g->cells] = sum;
    double t3 = omp_get_wtime();
    memcpy(g->fill, g->start, g->cells * sizeof(*g->fill));
    for (int i = 0; i < n; i++) {
        uint32_t dst = g->fill[g->key[i]]++;
        memcpy(s->next.pos[dst], s->cur.pos[i], sizeof(float[4]));
        memcpy(s->next.vel[dst], s->cur.vel[i], sizeof(float[4]));
        s->next.id[dst] = s->cur.id[i];
        s->next.group[dst] = s->cur.group[i];
    }
    swap_state(s);
    double t4 = omp_get_wtime();
    s->ms.key = (t1 - t0) * 1e3;
    s->ms.count = (t2 - t1) * 1e3;
    s->ms.scan = (t3 - t2) * 1e3;
    s->ms.scatter = (t4 - t3) * 1e3;
}

// Slot i of cur + accel -> pos_out, vel_out (xyz; they may be cur's own).
static void integrate_agent(const boids_sim *s, uint32_t i, float pos_out[4], float vel_out[4]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    boids_group_params own; // the agent's own maxspeed (its range's draw)
    if (g->maxspeed_lo > 0.0f) {
        own = *g;
        own.maxspeed = boids_agent_maxspeed(w, g, s->cur.id[i]);
        g = &own;
    }
    boids_integrate(w, g, s->cur.pos[i], s->cur.vel[i], s->accel[i], pos_out, vel_out);
}

// cur + accel -> next (kinematic lanes; steer wrote the wander lanes), swap.
void boids_sim_integrate(boids_sim *s) {
    if (!s)
        return;
    int n = (int)s->n;
#pragma omp parallel for schedule(static) num_threads(thread_count(s))
    for (int i = 0; i < n; i++) {
        if (s->owned && !s->owned[i]) // a distributed run's halo (core.h): dropped after the step
            continue;
        integrate_agent(s, (uint32_t)i, s->next.pos[i], s->next.vel[i]);
        s->next.id[i] = s->cur.id[i];
        s->next.group[i] = s->cur.group[i];
    }
    swap_state(s);
}

// One agent's joints (rows j * n + id) into / out of a contiguous chain.
static void gather_joints(const boids_sim *s, uint32_t id, uint32_t count, float (*chain)[4]) {
    for (uint32_t j = 0; j < count; j++)
        memcpy(chain[j], s->joints[(size_t)j * s->n + id], sizeof(float[4]));
}

static void scatter_joints(boids_sim *s, uint32_t id, uint32_t count, const float (*chain)[4]) {
    for (uint32_t j = 0; j < count; j++)
        memcpy(s->joints[(size_t)j * s->n + id], chain[j], sizeof(float[4]));
}

// The bodies stage: per agent, its body (indexed by id) follows its head
// (slot of cur, after integrate). Walked in id order, so each joint row is
// read and written as a stream. Agents are independent: any thread count
// gives the same bits.
void boids_sim_bodies(boids_sim *s) {
    if (!s || !s->joints)
        return;
    const uint32_t *slot = boids_sim_slots_by_id(s);
    int n = (int)s->n;
#pragma omp parallel for schedule(static) num_threads(thread_count(s))
    for (int id = 0; id < n; id++) {
        uint32_t i = slot[id];
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        float chain[BOIDS_MAX_JOINTS][4];
        gather_joints(s, (uint32_t)id, b->joints, chain);
        boids_body_follow(&s->p.world, b, s->cur.pos[i], s->cur.vel[i], chain);
        scatter_joints(s, (uint32_t)id, b->joints, (const float(*)[4])chain);
    }
}

// Every body straight behind its agent.
void boids_sim_reset_bodies(boids_sim *s) {
    if (!s || !s->joints)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        const boids_body_params *b = &s->p.body[s->cur.group[i]];
        if (b->style == BOIDS_BODY_NONE)
            continue;
        float chain[BOIDS_MAX_JOINTS][4];
        boids_body_straight(&s->p.world, b, s->cur.pos[i], s->cur.vel[i], chain);
        scatter_joints(s, s->cur.id[i], b->joints, (const float(*)[4])chain);
    }
}

// New body types: checked like finalize does, joints reallocated when more
// rows are needed (freed when none), bodies laid out anew.
boids_result boids_sim_set_bodies(boids_sim *s, const boids_body_params body[BOIDS_MAX_GROUPS]) {
    if (!s || !body)
        return BOIDS_ERR_ARGUMENT;
    boids_params p = s->p;
    memcpy(p.body, body, sizeof(p.body));
    for (uint32_t g = 0; g < p.world.group_count; g++)
        if (boids_body_check(&p.body[g], NULL, 0) != BOIDS_OK)
            return BOIDS_ERR_BODY;
    uint32_t rows = boids_params_joint_rows(&p);
    if (rows > s->joint_rows) {
        float(*joints)[4] = malloc((size_t)rows * (s->n ? s->n : 1) * sizeof(*joints));
        if (!joints)
            return BOIDS_ERR_NOMEM;
        free(s->joints);
        s->joints = joints;
        s->joint_rows = rows;
    } else if (rows == 0) {
        free(s->joints);
        s->joints = NULL;
        s->joint_rows = 0;
    }
    memcpy(s->p.body, body, sizeof(s->p.body));
    boids_sim_reset_bodies(s);
    return BOIDS_OK;
}

// The chapter's sketch, Example 5.11: Flock.run() calls boid.run(boids) for
// each boid in turn, and run() is flock(), update(), borders(): the boid
// steers from the others as they are now (those before it have moved this
// step) and moves at once. Here: in id order, steer one agent over every
// pair of cur, integrate it in place (its wander angles too), next agent.
// Serial by nature; the grid built before is only the survey's.
static void step_sequential(boids_sim *s) {
    const uint32_t *slot = boids_sim_slots_by_id(s);
    boids_sim_survey(s);
    for (uint32_t id = 0; id < s->n; id++) {
        uint32_t i = slot[id];
        boids_sim_steer_agent(s, i);
        integrate_agent(s, i, s->cur.pos[i], s->cur.vel[i]);
        s->cur.pos[i][3] = s->next.pos[i][3];
        s->cur.vel[i][3] = s->next.vel[i][3];
    }
}

// See core.h.
void boids_sim_forget_neighbors(boids_sim *s) {
    memset(s->neighbors, 0, (size_t)s->n * sizeof *s->neighbors);
    memset(s->nearest, 0, (size_t)s->n * sizeof *s->nearest);
    memset(s->candidates, 0, (size_t)s->n * sizeof *s->candidates);
}

// A step cut short after the grid's scatter: the neighbour outputs are per
// slot of cur, whose order the scatter changed, and the steer had begun to
// rewrite them (core.h); the world's step word goes back to `step_before`.
static void cut_short(boids_sim *s, uint32_t step_before) {
    s->cancelled = true;
    boids_sim_forget_neighbors(s);
    s->p.world.step = step_before;
}

// One step of the pipeline. The step counter feeds the RNG (wander).
void boids_sim_step(boids_sim *s) {
    if (!s)
        return;
    uint32_t step_before = s->p.world.step; // (a step cut short puts it back)
    s->p.world.step = (uint32_t)s->step;
    // Behaviours may be switched on between steps (the viewer's keys): a
    // group that starts following the flow field gets it built now.
    // (Tried once: a field too large to build reads as zero, dims[3] = 1.)
    if (!s->p.flow.vec && s->p.flow.dims[3] == 0)
        for (uint32_t g = 0; g < s->p.world.group_count; g++)
            if (s->p.group[g].behaviors & BOIDS_BIT(BOIDS_BI_FLOW)) {
                if (boids_flowfield_build(&s->p.flow, &s->p.world) != BOIDS_OK)
                    s->p.flow.dims[3] = 1;
                break;
            }
    s->cancelled = false;
    boids_sim_cut_clock(s);
    boids_sim_build_grid(s);
    double t0 = omp_get_wtime(), t1, t2;
    if (s->update == BOIDS_UPDATE_SEQUENTIAL) {
        step_sequential(s);
        t1 = t2 = omp_get_wtime(); // steer and integrate are one stage here
    } else {
        if (!boids_sim_cancel_asked(s))
            boids_sim_steer(s);
        if (boids_sim_cancel_asked(s)) { // cur is the last whole step's (permuted by the grid): see core.h
            cut_short(s, step_before);
            return;
        }
        t1 = omp_get_wtime();
        boids_sim_integrate(s);
        t2 = omp_get_wtime();
    }
    boids_sim_bodies(s);
    double t3 = omp_get_wtime();
    s->ms.steer = (t1 - t0) * 1e3;
    s->ms.integrate = (t2 - t1) * 1e3;
    s->ms.bodies = (t3 - t2) * 1e3;
    s->step++;
}

static uint64_t hash_agent(uint64_t h, uint32_t id, uint32_t group, const float pos[4], const float vel[4]) {
    h = boids_fnv1a(h, &id, sizeof(uint32_t));
    h = boids_fnv1a(h, &group, sizeof(uint32_t));
    h = boids_fnv1a(h, pos, sizeof(float[4]));
    return boids_fnv1a(h, vel, sizeof(float[4]));
}

// Agents gathered at a time into id order by the threads, then hashed in
// order by one (640 KiB of records: the buffer stays in cache).
#define HASH_BLOCK 16384u
#define HASH_RECORD (2 * sizeof(uint32_t) + 2 * sizeof(float[4]))

// FNV-1a 64 of (id, group, pos, vel) of every agent in id order. The slots
// in id order are scattered over cur: the threads fetch a block of agents
// into a buffer in id order (their misses overlap), and the buffer is
// hashed byte by byte as the definition says (16 M agents: about a second,
// where fetching each agent as it was hashed took ten).
uint64_t boids_sim_hash(boids_sim *s) {
    if (!s)
        return 0;
    uint64_t h = BOIDS_FNV1A_BASIS;
    const uint32_t *slot = boids_sim_slots_by_id(s);
    unsigned char *buf = malloc(HASH_BLOCK * HASH_RECORD);
    if (!buf) { // the same hash, one agent at a time
        for (uint32_t id = 0; id < s->n; id++) {
            uint32_t i = slot[id];
            h = hash_agent(h, s->cur.id[i], s->cur.group[i], s->cur.pos[i], s->cur.vel[i]);
        }
        return h;
    }
    for (uint32_t first = 0; first < s->n; first += HASH_BLOCK) {
        int count = (int)(s->n - first < HASH_BLOCK ? s->n - first : HASH_BLOCK);
#pragma omp parallel for schedule(static) num_threads(thread_count(s))
        for (int k = 0; k < count; k++) {
            uint32_t i = slot[first + (uint32_t)k];
            unsigned char *r = buf + (size_t)k * HASH_RECORD;
            memcpy(r, &s->cur.id[i], sizeof(uint32_t));
            memcpy(r + sizeof(uint32_t), &s->cur.group[i], sizeof(uint32_t));
            memcpy(r + 2 * sizeof(uint32_t), s->cur.pos[i], sizeof(float[4]));
            memcpy(r + 2 * sizeof(uint32_t) + sizeof(float[4]), s->cur.vel[i], sizeof(float[4]));
        }
        h = boids_fnv1a(h, buf, (size_t)count * HASH_RECORD);
    }
    free(buf);
    return h;
}

// The same hash of id-indexed arrays.
uint64_t boids_state_hash(uint32_t n, const float (*pos)[4], const float (*vel)[4], const uint32_t *group) {
    uint64_t h = BOIDS_FNV1A_BASIS;
    for (uint32_t id = 0; id < n; id++)
        h = hash_agent(h, id, group[id], pos[id], vel[id]);
    return h;
}
