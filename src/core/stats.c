// src/core/stats.c: per-step statistics of a simulation: polarisation,
// mean speed, neighbours, nearest-neighbour distance, cell occupancy, and
// Couzin et al.'s (2002) group angular momentum (milling) about the centre.
// Serial sums in slot order: reproducible for any thread count; the centre's
// and the milling statistic's sums are 64-bit fixed point, the same in any
// order, and so summed by the threads.
// The table boids_stats_fields names every figure.
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/core.h"
#include "threads.h"

static const double TWO_PI = 6.283185307179586476925;

// A value of magnitude <= 1 in fixed point (BOIDS_FIX_UNIT): truncated, so
// the sum over agents is an integer sum, the same in any order. Saturated
// at +-64 (an agent 64 worlds away; a NaN counts 0): 2^24 agents of 2^38
// each stay inside int64, where a huge or non-finite position would
// overflow the conversion and the sum.
static int64_t fix_unit(double v) {
    if (!(fabs(v) <= 64.0))
        v = isnan(v) ? 0.0 : copysign(64.0, v);
    return (int64_t)(v * BOIDS_FIX_UNIT);
}

// The fixed-point terms of one agent's position toward the centre: on a
// wrapped axis (cos, sin)(2 pi (x - min) / L), on any other axis the
// fraction of the world (c only).
static void centre_terms(const boids_world_params *w, const float pos[4], int64_t c[3], int64_t sn[3]) {
    for (int a = 0; a < 3; a++) {
        c[a] = sn[a] = 0;
        if (!(w->size[a] > 0.0f))
            continue;
        double x = ((double)pos[a] - w->min[a]) / w->size[a]; // [0, 1) on a torus
        if (w->boundary == BOIDS_BOUNDARY_WRAP) {
            c[a] = fix_unit(cos(TWO_PI * x));
            sn[a] = fix_unit(sin(TWO_PI * x));
        } else {
            c[a] = fix_unit(x);
        }
    }
}

// The centre on `threads` threads (integer sums: the same for any count).
static void stats_centre(const boids_world_params *w, uint32_t n, const float (*pos)[4], const uint32_t *group,
                         uint32_t only, int threads, float centre[3]) {
    int64_t c0 = 0, c1 = 0, c2 = 0, s0 = 0, s1 = 0, s2 = 0, m = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : c0, c1, c2, s0, s1, s2, m)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (only != BOIDS_STATS_ALL && group[i] != only)
            continue;
        int64_t c[3], sn[3];
        centre_terms(w, pos[i], c, sn);
        c0 += c[0];
        c1 += c[1];
        c2 += c[2];
        s0 += sn[0];
        s1 += sn[1];
        s2 += sn[2];
        m++;
    }
    const int64_t c[3] = {c0, c1, c2}, sn[3] = {s0, s1, s2};
    for (int a = 0; a < 3; a++) {
        centre[a] = w->min[a];
        if (!(w->size[a] > 0.0f) || m == 0)
            continue;
        double x;
        if (w->boundary == BOIDS_BOUNDARY_WRAP) {
            double t = (c[a] == 0 && sn[a] == 0) ? TWO_PI / 2.0 : atan2((double)sn[a], (double)c[a]);
            x = t / TWO_PI;
            x = x < 0.0 ? x + 1.0 : x;
        } else {
            x = (double)c[a] / BOIDS_FIX_UNIT / (double)m;
        }
        centre[a] = (float)(w->min[a] + x * w->size[a]);
    }
}

// See boids/core.h. On a wrapped axis of size L the centre is the circular
// mean: the angle of the sum of (cos, sin)(2 pi (x - min) / L), mapped back
// onto the axis (when that sum is zero, the positions have no mean
// direction: the axis's middle); on any other axis the plain mean.
void boids_stats_centre(const boids_world_params *w, uint32_t n, const float (*pos)[4], const uint32_t *group,
                        uint32_t only, float centre[3]) {
    stats_centre(w, n, pos, group, only, boids_step_threads(0), centre);
}

// One agent's term of the milling sum: r_ic x v_i of the unit vectors in
// fixed point (0 for an agent at the centre or still).
static void milling_term(const boids_world_params *w, const float centre[3], const float pos[4], const float vel[4],
                         int64_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    float r[3];
    boids_world_delta(w, centre, pos, r);
    double rd[3] = {r[0], r[1], r[2]}, vd[3] = {vel[0], vel[1], vel[2]};
    double rn = sqrt(rd[0] * rd[0] + rd[1] * rd[1] + rd[2] * rd[2]);
    double vn = sqrt(vd[0] * vd[0] + vd[1] * vd[1] + vd[2] * vd[2]);
    if (rn == 0.0 || vn == 0.0)
        return;
    for (int a = 0; a < 3; a++) {
        rd[a] /= rn;
        vd[a] /= vn;
    }
    double x[3] = {rd[1] * vd[2] - rd[2] * vd[1], rd[2] * vd[0] - rd[0] * vd[2], rd[0] * vd[1] - rd[1] * vd[0]};
    for (int a = 0; a < 3; a++)
        out[a] = fix_unit(x[a]);
}

// Milling on `threads` threads (integer sums: the same for any count).
static double stats_milling(const boids_world_params *w, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                            const uint32_t *group, uint32_t only, int threads) {
    float centre[3];
    stats_centre(w, n, pos, group, only, threads, centre);
    int64_t x0 = 0, x1 = 0, x2 = 0, m = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : x0, x1, x2, m)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (only != BOIDS_STATS_ALL && group[i] != only)
            continue;
        int64_t t[3];
        milling_term(w, centre, pos[i], vel[i], t);
        x0 += t[0];
        x1 += t[1];
        x2 += t[2];
        m++;
    }
    if (m == 0)
        return 0.0;
    double s[3] = {(double)x0 / BOIDS_FIX_UNIT, (double)x1 / BOIDS_FIX_UNIT, (double)x2 / BOIDS_FIX_UNIT};
    return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / (double)m;
}

// See boids/core.h: m_r = |sum_i r_ic x v_i| / N, r_ic the unit vector from
// the centre to agent i (minimum image on a torus), v_i its unit velocity
// (Couzin et al. 2002); an agent at the centre or still adds 0 (but counts).
double boids_stats_milling(const boids_world_params *w, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                           const uint32_t *group, uint32_t only) {
    return stats_milling(w, n, pos, vel, group, only, boids_step_threads(0));
}

// See boids/core.h.
void boids_stats_add(boids_stats_sums *t, const float vel[4], uint32_t neighbors, uint32_t candidates, float nearest) {
    double m = sqrt((double)vel[0] * vel[0] + (double)vel[1] * vel[1] + (double)vel[2] * vel[2]);
    t->agents++;
    t->speed += m;
    if (m > 0) {
        t->ux += vel[0] / m;
        t->uy += vel[1] / m;
        t->uz += vel[2] / m;
    }
    t->neighbors += neighbors;
    t->pairs += neighbors;
    t->candidates += candidates;
    if (neighbors) {
        t->nearest += nearest;
        t->with_neighbors++;
    }
}

// See boids/core.h.
void boids_stats_finish(const boids_stats_sums *t, boids_stats *out) {
    if (t->agents) {
        double n = (double)t->agents;
        out->polarisation = sqrt(t->ux * t->ux + t->uy * t->uy + t->uz * t->uz) / n;
        out->mean_speed = t->speed / n;
        out->mean_neighbors = t->neighbors / n;
    }
    out->mean_nearest = t->with_neighbors ? t->nearest / (double)t->with_neighbors : 0.0;
    out->candidate_pairs = t->candidates;
    out->neighbor_pairs = t->pairs;
}

// Statistics of the state after the last step (neighbour figures are those
// seen by that step's steer stage).
void boids_sim_stats(const boids_sim *s, boids_stats *out) {
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    if (!s)
        return;
    out->step = s->step;
    boids_stats_sums t = {0};
    for (uint32_t i = 0; i < s->n; i++)
        boids_stats_add(&t, s->cur.vel[i], s->neighbors[i], s->candidates[i], s->nearest[i]);
    boids_stats_finish(&t, out);
    uint32_t mx = 0;
    for (uint32_t c = 0; c < s->grid.cells; c++)
        if (s->grid.count[c] > mx)
            mx = s->grid.count[c];
    out->cell_max = mx;
    out->cell_mean = s->grid.cells ? (double)s->n / s->grid.cells : 0.0;
    out->milling = stats_milling(&s->p.world, s->n, (const float(*)[4])s->cur.pos, (const float(*)[4])s->cur.vel,
                                 s->cur.group, BOIDS_STATS_ALL, boids_step_threads(s->threads));
}

// See boids/core.h.
const boids_stats_field boids_stats_fields[] = {
    {"step", "the step the statistics are of", offsetof(boids_stats, step), BOIDS_STATS_U64, false},
    {"polarisation", "|mean unit velocity|, 0..1 (Vicsek's va at a constant speed)",
     offsetof(boids_stats, polarisation), BOIDS_STATS_DOUBLE, true},
    {"milling", "group angular momentum m_r = |sum r_ic x v_i| / N, 0..1 (Couzin 2002)", offsetof(boids_stats, milling),
     BOIDS_STATS_DOUBLE, true},
    {"mean_speed", "mean speed", offsetof(boids_stats, mean_speed), BOIDS_STATS_DOUBLE, true},
    {"mean_neighbors", "mean agents within the perception radius", offsetof(boids_stats, mean_neighbors),
     BOIDS_STATS_DOUBLE, true},
    {"mean_nearest", "mean nearest-neighbour distance (agents with one)", offsetof(boids_stats, mean_nearest),
     BOIDS_STATS_DOUBLE, true},
    {"cell_max", "most agents in one cell", offsetof(boids_stats, cell_max), BOIDS_STATS_U32, false},
    {"cell_mean", "agents per cell", offsetof(boids_stats, cell_mean), BOIDS_STATS_DOUBLE, false},
    {"candidate_pairs", "pairs examined in the last step", offsetof(boids_stats, candidate_pairs), BOIDS_STATS_U64,
     true},
    {"neighbor_pairs", "pairs within the perception radius", offsetof(boids_stats, neighbor_pairs), BOIDS_STATS_U64,
     true},
};
const uint32_t boids_stats_field_count = sizeof boids_stats_fields / sizeof boids_stats_fields[0];

// See boids/core.h.
double boids_stats_value(const boids_stats *st, uint32_t field) {
    if (field >= boids_stats_field_count)
        return NAN;
    const boids_stats_field *f = &boids_stats_fields[field];
    const char *p = (const char *)st + f->offset;
    if (f->kind == BOIDS_STATS_U64) {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    if (f->kind == BOIDS_STATS_U32) {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

// See boids/core.h.
int boids_stats_field_index(const char *name) {
    for (uint32_t k = 0; k < boids_stats_field_count; k++)
        if (strcmp(boids_stats_fields[k].name, name) == 0)
            return (int)k;
    return -1;
}
