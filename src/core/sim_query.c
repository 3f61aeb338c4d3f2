// src/core/sim_query.c: what the stages of a step ask of a boids_sim: the
// slot of each id in cur, and whether the step must be cut short. Below
// sim.c (the pipeline) and the stages it runs (steer.c), so that no stage
// calls back into the pipeline.
#include <omp.h>

#include "boids/core.h"
#include "threads.h"

// See core.h.
void boids_sim_cut_clock(boids_sim *s) {
    s->cut_at = omp_get_wtime() + BOIDS_CUT_AFTER_S;
}

// See core.h.
bool boids_sim_cut_due(const boids_sim *s) {
    return omp_get_wtime() >= s->cut_at;
}

// Slot in cur of every id (the ids are distinct: the threads write apart).
const uint32_t *boids_sim_slots_by_id(boids_sim *s) {
    if (!s)
        return NULL;
    int n = (int)s->n;
#pragma omp parallel for schedule(static) num_threads(boids_step_threads(s->threads))
    for (int i = 0; i < n; i++)
        s->slot_of_id[s->cur.id[i]] = (uint32_t)i;
    return s->slot_of_id;
}
