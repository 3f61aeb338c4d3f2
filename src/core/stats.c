// src/core/stats.c: per-step statistics of a simulation: polarisation,
// mean speed, neighbours, nearest-neighbour distance, cell occupancy.
// Serial sums in slot order: reproducible for any thread count.
#include <math.h>
#include <string.h>

#include "boids/core.h"

// Statistics of the state after the last step (neighbour figures are those
// seen by that step's steer stage).
void boids_sim_stats(const boids_sim *s, boids_stats *out) {
    memset(out, 0, sizeof(*out));
    out->step = s->step;
    double ux = 0, uy = 0, uz = 0, speed = 0, nb = 0, near = 0;
    uint64_t with_nb = 0, cand = 0, pairs = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        const float *v = s->cur.vel[i];
        double m = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        speed += m;
        if (m > 0) {
            ux += v[0] / m;
            uy += v[1] / m;
            uz += v[2] / m;
        }
        nb += s->neighbors[i];
        pairs += s->neighbors[i];
        cand += s->candidates[i];
        if (s->neighbors[i]) {
            near += s->nearest[i];
            with_nb++;
        }
    }
    if (s->n) {
        out->polarisation = sqrt(ux * ux + uy * uy + uz * uz) / s->n;
        out->mean_speed = speed / s->n;
        out->mean_neighbors = nb / s->n;
    }
    out->mean_nearest = with_nb ? near / (double)with_nb : 0.0;
    out->candidate_pairs = cand;
    out->neighbor_pairs = pairs;
    uint32_t mx = 0;
    for (uint32_t c = 0; c < s->grid.cells; c++)
        if (s->grid.count[c] > mx)
            mx = s->grid.count[c];
    out->cell_max = mx;
    out->cell_mean = s->grid.cells ? (double)s->n / s->grid.cells : 0.0;
}
