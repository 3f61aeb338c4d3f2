// src/engine/engine_stats.c: the statistics as one name -> value table
// (boids_engine_stat_*), so the ensemble runner, boids-ensemble's CSV and the
// Python package log whatever boids_stats holds without naming its fields:
// a statistic added to boids_stats needs one row in boids_stats_fields and
// appears everywhere as a column.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/engine.h"

// The columns: boids_stats_fields (src/core/stats.c) without its "step",
// which the runner writes as a column of its own.
enum { FIRST = 1 };

// See boids/engine.h.
uint32_t boids_engine_stat_count(void) {
    uint32_t n = boids_stats_field_count - FIRST;
    return n < BOIDS_ENGINE_STATS_MAX ? n : BOIDS_ENGINE_STATS_MAX; // test_ensemble checks it is all
}

// See boids/engine.h.
const char *boids_engine_stat_name(uint32_t i) {
    return i < boids_engine_stat_count() ? boids_stats_fields[FIRST + i].name : NULL;
}

// See boids/engine.h.
bool boids_engine_stat_grouped(uint32_t i) {
    return i < boids_engine_stat_count() && boids_stats_fields[FIRST + i].grouped;
}

// The statistics of boids_sim_stats restricted to one group's agents, in id
// order (the slot order of a GPU grid differs run to run): the fields that
// `grouped` marks.
static boids_result group_stats(boids_engine *e, uint32_t group, boids_stats *out) {
    memset(out, 0, sizeof *out);
    out->step = boids_engine_steps(e);
    uint32_t n = boids_engine_count(e);
    if (n == 0)
        return BOIDS_OK;
    float(*pos)[4] = malloc((size_t)n * sizeof *pos), (*vel)[4] = malloc((size_t)n * sizeof *vel);
    uint32_t *grp = malloc((size_t)n * sizeof *grp), *ids = malloc((size_t)n * sizeof *ids);
    uint32_t *nb = malloc((size_t)n * sizeof *nb), *cand = malloc((size_t)n * sizeof *cand);
    float *near = malloc((size_t)n * sizeof *near);
    uint32_t *nb_id = malloc((size_t)n * sizeof *nb_id), *cand_id = malloc((size_t)n * sizeof *cand_id);
    float *near_id = malloc((size_t)n * sizeof *near_id);
    boids_result r = BOIDS_ERR_NOMEM;
    if (pos && vel && grp && ids && nb && cand && near && nb_id && cand_id && near_id) {
        r = boids_engine_read(e, pos, vel, grp);
        if (r == BOIDS_OK)
            r = boids_engine_read_buffer(e, BOIDS_ENGINE_ID, ids, (size_t)n * sizeof *ids);
        if (r == BOIDS_OK)
            r = boids_engine_read_buffer(e, BOIDS_ENGINE_NEIGHBORS, nb, (size_t)n * sizeof *nb);
        if (r == BOIDS_OK)
            r = boids_engine_read_buffer(e, BOIDS_ENGINE_NEAREST, near, (size_t)n * sizeof *near);
        if (r == BOIDS_OK)
            r = boids_engine_read_buffer(e, BOIDS_ENGINE_CANDIDATES, cand, (size_t)n * sizeof *cand);
    }
    if (r == BOIDS_OK) {
        for (uint32_t s = 0; s < n; s++) {
            uint32_t id = ids[s] < n ? ids[s] : 0;
            nb_id[id] = nb[s];
            near_id[id] = near[s];
            cand_id[id] = cand[s];
        }
        boids_stats_sums t = {0};
        for (uint32_t i = 0; i < n; i++)
            if (grp[i] == group)
                boids_stats_add(&t, vel[i], nb_id[i], cand_id[i], near_id[i]);
        boids_stats_finish(&t, out);
        out->milling = boids_stats_milling(&boids_engine_params(e)->world, n, (const float(*)[4])pos,
                                           (const float(*)[4])vel, grp, group);
    }
    free(pos);
    free(vel);
    free(grp);
    free(ids);
    free(nb);
    free(cand);
    free(near);
    free(nb_id);
    free(cand_id);
    free(near_id);
    return r;
}

// See boids/engine.h.
boids_result boids_engine_stat_values(boids_engine *e, uint32_t group, double values[BOIDS_ENGINE_STATS_MAX]) {
    if (!e || !values)
        return BOIDS_ERR_ARGUMENT;
    boids_stats st;
    boids_result r;
    if (group == UINT32_MAX) {
        r = boids_engine_stats(e, &st);
    } else if (group >= boids_engine_params(e)->world.group_count) {
        return BOIDS_ERR_ARGUMENT;
    } else {
        r = group_stats(e, group, &st);
    }
    if (r != BOIDS_OK)
        return r;
    for (uint32_t i = 0; i < boids_engine_stat_count(); i++)
        values[i] = group == UINT32_MAX || boids_engine_stat_grouped(i) ? boids_stats_value(&st, FIRST + i) : NAN;
    return BOIDS_OK;
}
