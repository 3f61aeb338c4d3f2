/* src/engine/engine_neighbors.c: the neighbour graph of an engine's current
 * state (boids_engine_neighbor_graph), for analyses of who is near whom.
 * Both backends alike: the state is read by agent id (the GPU's read back),
 * put into a scratch CPU simulation of the same parameters and grid, and
 * every agent's neighbours found by the core's grid query
 * (boids_grid_neighbors: 0 < |delta| < its group's radius, delta the
 * boundary's minimum image), the rule the steer stage counts as the
 * per-agent "neighbors" output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/engine.h"
#include "engine_private.h"

// qsort's order of agent ids.
static int by_id(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

// See boids/engine.h.
void boids_neighbor_graph_free(boids_neighbor_graph *g) {
    if (!g)
        return;
    free(g->indptr);
    free(g->indices);
    free(g->distances);
    memset(g, 0, sizeof *g);
}

// A scratch CPU simulation of e's parameters and grid holding e's state by
// id (slot = id before its grid is built), or NULL (BOIDS_ERR_* in *r).
static boids_sim *scratch(boids_engine *e, boids_result *r) {
    boids_params q = *boids_engine_params(e);
    uint32_t n = q.world.count;
    // Neither the flow field nor the bodies take part in the query.
    q.flow.vec = NULL;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        q.group[g].behaviors &= ~BOIDS_BIT(BOIDS_BI_FLOW);
        memset(&q.body[g], 0, sizeof q.body[g]);
    }
    float(*pos)[4] = malloc((n ? n : 1) * sizeof *pos);
    float(*vel)[4] = malloc((n ? n : 1) * sizeof *vel);
    uint32_t *group = malloc((n ? n : 1) * sizeof *group);
    boids_sim *s = NULL;
    *r = pos && vel && group ? BOIDS_OK : BOIDS_ERR_NOMEM;
    if (*r == BOIDS_OK)
        *r = boids_engine_read(e, pos, vel, group);
    if (*r == BOIDS_OK)
        *r = boids_sim_create(&s, &q, BOIDS_DIST_UNIFORM);
    if (*r == BOIDS_OK)
        *r = boids_sim_set_state(s, boids_engine_steps(e), (const float(*)[4])pos, (const float(*)[4])vel, group, NULL);
    if (*r == BOIDS_OK)
        boids_sim_build_grid(s);
    else if (s) {
        boids_sim_destroy(s);
        s = NULL;
    }
    free(pos);
    free(vel);
    free(group);
    return s;
}

// See boids/engine.h.
boids_result boids_engine_neighbor_graph(boids_engine *e, bool distances, boids_neighbor_graph *out, char *err,
                                         size_t err_size) {
    if (!out) {
        engine_say(err, err_size, "out: NULL; expected a boids_neighbor_graph to fill");
        return BOIDS_ERR_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (!e) {
        engine_say(err, err_size, "engine: NULL; expected an engine");
        return BOIDS_ERR_ARGUMENT;
    }
    boids_result r;
    boids_sim *s = scratch(e, &r);
    if (!s) {
        engine_say(err, err_size, "neighbors: the state could not be read: %s", boids_result_str(r));
        return r;
    }
    uint32_t n = s->n;
    const boids_world_params *w = &s->p.world;
    out->count = n;
    out->indptr = calloc((size_t)n + 1, sizeof *out->indptr);
    uint32_t *row = malloc((n ? n : 1) * sizeof *row); // the row length of each slot
    r = out->indptr && row ? BOIDS_OK : BOIDS_ERR_NOMEM;
    // Row lengths by id, then the rows: slots of the grid turned into ids.
    for (uint32_t i = 0; r == BOIDS_OK && i < n; i++) {
        float radius = s->p.group[s->cur.group[i]].radius;
        row[i] = boids_grid_neighbors(s, i, radius, NULL, 0);
        out->indptr[s->cur.id[i] + 1] = row[i];
    }
    for (uint32_t id = 0; r == BOIDS_OK && id < n; id++)
        out->indptr[id + 1] += out->indptr[id];
    uint64_t edges = r == BOIDS_OK ? out->indptr[n] : 0;
    out->edges = edges;
    if (r == BOIDS_OK) {
        out->indices = malloc((edges ? edges : 1) * sizeof *out->indices);
        if (distances)
            out->distances = malloc((edges ? edges : 1) * sizeof *out->distances);
        if (!out->indices || (distances && !out->distances))
            r = BOIDS_ERR_NOMEM;
    }
    // The slot of every id, to measure the distances by id.
    uint32_t *slot = r == BOIDS_OK ? malloc((n ? n : 1) * sizeof *slot) : NULL;
    if (r == BOIDS_OK && !slot)
        r = BOIDS_ERR_NOMEM;
    for (uint32_t i = 0; r == BOIDS_OK && i < n; i++)
        slot[s->cur.id[i]] = i;
    for (uint32_t i = 0; r == BOIDS_OK && i < n; i++) {
        uint32_t id = s->cur.id[i];
        uint32_t *dst = out->indices + out->indptr[id];
        float radius = s->p.group[s->cur.group[i]].radius;
        uint32_t k = boids_grid_neighbors(s, i, radius, dst, row[i]);
        for (uint32_t q = 0; q < k; q++)
            dst[q] = s->cur.id[dst[q]];
        qsort(dst, k, sizeof *dst, by_id);
        for (uint32_t q = 0; distances && q < k; q++) {
            float d[3];
            boids_world_delta(w, s->cur.pos[i], s->cur.pos[slot[dst[q]]], d);
            out->distances[out->indptr[id] + q] = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
    }
    free(slot);
    free(row);
    boids_sim_destroy(s);
    if (r != BOIDS_OK) {
        boids_neighbor_graph_free(out);
        engine_say(err, err_size, "neighbors: %s", boids_result_str(r));
    }
    return r;
}
