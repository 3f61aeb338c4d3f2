// src/core/steer.c: the steer stage. Per agent: gather the neighbourhood
// into order-independent sums (steer_gather.c), then evaluate and combine
// its behaviours (steer_behaviors.c); over every agent in parallel, or
// quadtree leaf by leaf; before them the heading rules' survey and the slot
// of every named id. Also the sequential update's steer of one agent.
// GLSL twin: shaders/steer.comp main().
#include <omp.h>

#include "boids/quadtree.h"
#include "steer_internal.h"
#include "threads.h"

// Steer one agent (slot i of cur): acceleration into accel[i], the updated
// wander angles into next (pos.w, vel.w), neighbour statistics. The
// neighbourhood comes through `index` (quadtree: lr, the ranges of the
// agent's leaf, or NULL); every index gives the same pairs. Grid only: f,
// the 2D flocking path's scratch, or NULL; rc, the thread's cell_ranges.
static void steer_agent(boids_sim *s, uint32_t i, boids_index index, const leaf_ranges *lr, const flock2d *f,
                        cell_ranges *rc) {
    gather acc;
    steer_gather(s, i, index, lr, f, rc, &acc);
    steer_finish(s, i, &acc);
}

// Steer the agents of one quadtree leaf: one query around the leaf's box
// with the largest reach of any group gives candidate ranges for all of them
// (a superset of each one's; the filter decides). Too many ranges to hold:
// each agent queries alone.
static void steer_leaf(boids_sim *s, uint32_t leaf, float reach) {
    const boids_quadtree *t = s->quadtree;
    const boids_qt_node *nd = &t->node[leaf];
    if (nd->count == 0)
        return;
    leaf_ranges lr;
    lr.n = 0;
    bool full = false;
    boids_qt_query q;
    boids_quadtree_query_box(&q, t, &s->p.world, nd->lo, nd->hi, reach);
    uint32_t first, count;
    while (boids_quadtree_query_next(&q, &first, &count)) {
        if (lr.n == LEAF_RANGES) {
            full = true;
            break;
        }
        lr.range[lr.n][0] = first;
        lr.range[lr.n][1] = count;
        lr.n++;
    }
    for (uint32_t k = nd->first; k < nd->first + nd->count; k++)
        steer_agent(s, t->item[k].slot, BOIDS_INDEX_QUADTREE, full ? NULL : &lr, NULL, NULL);
}

// The heading rules' global survey, over the grid of cur (see core.h).
void boids_sim_survey(boids_sim *s) {
    if (!s)
        return;
    s->survey[0] = s->survey[1] = 0;
    if (!boids_params_survey(&s->p))
        return;
    if (s->world_survey) { // a distributed run: the whole world's, from the driver (core.h)
        s->survey[0] = s->world_survey[0];
        s->survey[1] = s->world_survey[1];
    } else {
        s->survey[0] = boids_survey(&s->p.world, s->grid.start, &s->survey[1]);
    }
}

// One agent over every pair (the sequential update's steer; see core.h).
void boids_sim_steer_agent(boids_sim *s, uint32_t slot) {
    if (!s || slot >= s->n)
        return;
    steer_agent(s, slot, BOIDS_INDEX_BRUTE, NULL, NULL, NULL);
}

// The steer stage over all agents, in parallel: each agent's result depends
// only on cur, so any schedule gives the same bits. With the quadtree index
// the tree is first rebuilt over cur (serially; its time is part of the
// stage's) and the agents are steered leaf by leaf; if the tree cannot be
// allocated the grid answers instead (same bits).
void boids_sim_steer(boids_sim *s) {
    if (!s)
        return;
    int n = (int)s->n;
    int threads = boids_step_threads(s->threads);
    boids_index index = s->index;
    // Every index builds the survey before any agent reads it, and the slot
    // of every id before an agent looks for a named one.
    boids_sim_survey(s);
    if (boids_params_named(&s->p) && !s->named)
        boids_sim_slots_by_id(s);
    if (index == BOIDS_INDEX_QUADTREE && !boids_sim_build_quadtree(s))
        index = BOIDS_INDEX_GRID;
    if (index == BOIDS_INDEX_QUADTREE) {
        float reach = boids_quadtree_reach(&s->p);
        int leaves = (int)s->quadtree->leaves;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
        for (int l = 0; l < leaves; l++)
            if (!boids_sim_cancel_asked(s))
                steer_leaf(s, s->quadtree->leaf[l], reach);
        s->cancelled = boids_sim_cancel_asked(s);
        return;
    }
    flock2d f;
    bool fast = index == BOIDS_INDEX_GRID && steer_gather_scratch(s, threads, &f);
#pragma omp parallel num_threads(threads)
    {
        cell_ranges rc = {.valid = false};
#pragma omp for schedule(dynamic, 512)
        for (int i = 0; i < n; i++)
            if ((!s->owned || s->owned[i]) && // a distributed run's halo: neighbours only (core.h)
                !boids_sim_cancel_asked(s))   // a step cut short: the agents left are skipped
                steer_agent(s, (uint32_t)i, index, NULL, fast ? &f : NULL, &rc);
    }
    // The flag stays set once set: read after the loop, it is set if any agent was skipped.
    s->cancelled = boids_sim_cancel_asked(s);
}
