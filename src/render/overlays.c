// src/render/overlays.c: vertex lists of the viewer's debug overlays (no GL):
// flow-field arrows (F), the grid occupancy heat map (G), and the agent
// under the cursor (N: neighbour lines and perception radius; V: its
// steering force per behaviour, from the core's pure behaviour functions,
// summed in float rather than the simulation's fixed point: for the eye),
// and who follows whom (L: each hunter's line to the prey it hunts, each
// member's to its leader, each guard's to the two it keeps apart).
// Segments and rings come from lines.c.
#include <math.h>
#include <string.h>

#include "boids/behaviors.h"
#include "boids/render.h"

// See boids/render.h: at most ~48 arrows per axis (12 in 3D), each as long
// as the spacing between them, with a short barb.
size_t boids_overlay_flow(const boids_flowfield *f, const boids_world_params *w, boids_line_vertex *v, size_t n,
                          size_t cap) {
    static const float col[4] = {0.55f, 0.7f, 1.0f, 0.55f};
    if (!f->vec || !f->dims[3])
        return n;
    uint32_t per_axis = w->dim == 3 ? 12u : 48u;
    uint32_t step[3];
    for (int a = 0; a < 3; a++)
        step[a] = f->dims[a] > per_axis ? (f->dims[a] + per_axis - 1) / per_axis : 1u;
    for (uint32_t k = step[2] / 2; k < f->dims[2]; k += step[2])
        for (uint32_t j = step[1] / 2; j < f->dims[1]; j += step[1])
            for (uint32_t i = step[0] / 2; i < f->dims[0]; i += step[0]) {
                const float *d = f->vec[((size_t)k * f->dims[1] + j) * f->dims[0] + i];
                float len = 0.8f * f->resolution * (float)step[0];
                float c[3] = {w->min[0] + ((float)i + 0.5f) * f->resolution,
                              w->min[1] + ((float)j + 0.5f) * f->resolution,
                              w->dim == 2 ? 0.0f : w->min[2] + ((float)k + 0.5f) * f->resolution};
                float a[3], b[3], s[3];
                for (int q = 0; q < 3; q++) {
                    a[q] = c[q] - 0.5f * len * d[q];
                    b[q] = c[q] + 0.5f * len * d[q];
                }
                n = boids_lines_segment(v, n, cap, a, b, col);
                // The barb: back from the tip and to the side (in the xy plane).
                s[0] = b[0] - 0.3f * len * (d[0] + 0.5f * d[1]);
                s[1] = b[1] - 0.3f * len * (d[1] - 0.5f * d[0]);
                s[2] = b[2] - 0.3f * len * d[2];
                n = boids_lines_segment(v, n, cap, b, s, col);
            }
    return n;
}

// See boids/render.h: one quad per cell (2D) or per xy column (3D, summed
// over z, on the floor), transparent at 0 and red at 3x the mean.
size_t boids_overlay_grid(const uint32_t *counts, const boids_world_params *w, boids_line_vertex *v, size_t n,
                          size_t cap) {
    uint32_t nx = w->cells[0], ny = w->cells[1], nz = w->dim == 3 ? w->cells[2] : 1u;
    double mean = (double)w->count / ((double)nx * ny);
    if (mean <= 0.0)
        return n;
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            uint64_t c = 0;
            for (uint32_t k = 0; k < nz; k++)
                c += counts[((size_t)k * ny + j) * nx + i];
            if (!c || n + 6 > cap)
                continue;
            float t = (float)((double)c / (3.0 * mean));
            t = t > 1.0f ? 1.0f : t;
            float col[4] = {0.2f + 0.8f * t, 0.35f * (1.0f - t) + 0.1f, 0.6f * (1.0f - t), 0.12f + 0.4f * t};
            float x0 = w->min[0] + (float)i * w->cell[0], y0 = w->min[1] + (float)j * w->cell[1];
            float x1 = x0 + w->cell[0], y1 = y0 + w->cell[1], z = w->dim == 3 ? w->min[2] : 0.0f;
            const float p[6][3] = {{x0, y0, z}, {x1, y0, z}, {x1, y1, z}, {x0, y0, z}, {x1, y1, z}, {x0, y1, z}};
            for (int q = 0; q < 6; q++) {
                memcpy(v[n + (size_t)q].pos, p[q], 12);
                memcpy(v[n + (size_t)q].color, col, 16);
            }
            n += 6;
        }
    return n;
}

// See boids/render.h.
// The offset from pi to the agent `id` (of count, slot order; the target
// when it is BOIDS_ID_TARGET or not found) and its velocity; the slot found
// or UINT32_MAX.
static uint32_t named_of(const boids_world_params *w, uint32_t count, const float (*pos)[4], const float (*vel)[4],
                         const uint32_t *ids, const float pi[3], uint32_t id, float off[3], float v[3]) {
    for (uint32_t j = 0; id != BOIDS_ID_TARGET && j < count; j++)
        if (ids[j] == id) {
            boids_world_delta(w, pi, pos[j], off);
            memcpy(v, vel[j], 12);
            return j;
        }
    boids_world_delta(w, pi, w->target_pos, off);
    memcpy(v, w->target_vel, 12);
    return UINT32_MAX;
}

// See boids/render.h.
size_t boids_overlay_agent(const boids_params *p, uint32_t count, const float (*pos)[4], const float (*vel)[4],
                           const uint32_t *ids, const uint32_t *group, const float point[3], bool neighbors,
                           bool vectors, boids_line_vertex *v, size_t n, size_t cap, uint32_t *picked) {
    static const float ring_col[4] = {1.0f, 1.0f, 1.0f, 0.7f}, nb_col[4] = {0.4f, 1.0f, 0.6f, 0.6f};
    const boids_world_params *w = &p->world;
    if (!count)
        return n;
    // The agent nearest the point (minimum image on a torus).
    uint32_t best = 0;
    float best_d2 = INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        float d[3];
        boids_world_delta(w, point, pos[i], d);
        float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
        }
    }
    *picked = best;
    const boids_group_params *g = &p->group[group[best] < BOIDS_MAX_GROUPS ? group[best] : 0];
    const float *pi = pos[best], *vi = vel[best];
    float ms = g->maxspeed, mf = g->maxforce;
    float sep[3] = {0}, ali[3] = {0}, coh[3] = {0};
    uint32_t sep_n = 0, flock_n = 0;
    for (uint32_t j = 0; j < count; j++) {
        if (j == best)
            continue;
        float off[3];
        boids_world_delta(w, pi, pos[j], off);
        float d = sqrtf(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
        if (!(d > 0.0f) || d >= g->radius)
            continue;
        if (neighbors) {
            float b[3] = {pi[0] + off[0], pi[1] + off[1], pi[2] + off[2]};
            n = boids_lines_segment(v, n, cap, pi, b, nb_col);
        }
        if (d < g->separation) {
            float t[3];
            boids_separation_term(off, d, g->separation, t);
            for (int a = 0; a < 3; a++)
                sep[a] += t[a];
            sep_n++;
        }
        for (int a = 0; a < 3; a++) {
            ali[a] += vel[j][a];
            coh[a] += off[a];
        }
        flock_n++;
    }
    if (neighbors) {
        n = boids_lines_ring(v, n, cap, pi, g->radius, w->dim, ring_col);
        n = boids_lines_ring(v, n, cap, pi, g->separation, w->dim, nb_col);
    }
    if (!vectors)
        return n;
    float force[BOIDS_BEHAVIOR_COUNT][3];
    memset(force, 0, sizeof force);
    uint32_t beh = g->behaviors | (w->boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0u);
    float to_target[3];
    boids_world_delta(w, pi, w->target_pos, to_target);
    if (flock_n)
        for (int a = 0; a < 3; a++) {
            ali[a] /= (float)flock_n;
            coh[a] /= (float)flock_n;
        }
    if (beh & BOIDS_BIT(BOIDS_BI_SEPARATION))
        boids_separation(sep, sep_n, vi, ms, mf, force[BOIDS_BI_SEPARATION]);
    if (beh & BOIDS_BIT(BOIDS_BI_ALIGNMENT))
        boids_alignment(ali, flock_n, vi, ms, mf, force[BOIDS_BI_ALIGNMENT]);
    if (beh & BOIDS_BIT(BOIDS_BI_COHESION))
        boids_cohesion(coh, flock_n, vi, ms, mf, force[BOIDS_BI_COHESION]);
    if (beh & BOIDS_BIT(BOIDS_BI_SEEK))
        boids_seek(to_target, vi, ms, mf, force[BOIDS_BI_SEEK]);
    if (beh & BOIDS_BIT(BOIDS_BI_FLEE))
        boids_flee(to_target, vi, ms, mf, force[BOIDS_BI_FLEE]);
    if (beh & BOIDS_BIT(BOIDS_BI_ARRIVE))
        boids_arrive(to_target, vi, g->arrive_radius, ms, mf, force[BOIDS_BI_ARRIVE]);
    if (beh & BOIDS_BIT(BOIDS_BI_PURSUE))
        boids_pursue(to_target, w->target_vel, vi, g->predict, ms, mf, force[BOIDS_BI_PURSUE]);
    if (beh & BOIDS_BIT(BOIDS_BI_EVADE))
        boids_evade(to_target, w->target_vel, vi, g->predict, ms, mf, force[BOIDS_BI_EVADE]);
    if (beh & BOIDS_BIT(BOIDS_BI_WALLS))
        boids_walls(pi, vi, w, ms, mf, force[BOIDS_BI_WALLS]);
    if ((beh & BOIDS_BIT(BOIDS_BI_FLOW)) && p->flow.vec)
        boids_flow(boids_flowfield_lookup(&p->flow, w, pi), vi, ms, mf, force[BOIDS_BI_FLOW]);
    if ((beh & BOIDS_BIT(BOIDS_BI_PATH)) && p->scene.path_count >= 2)
        boids_path_follow(pi, vi, &p->scene, w, g->path_predict, g->path_ahead, ms, mf, force[BOIDS_BI_PATH]);
    if ((beh & BOIDS_BIT(BOIDS_BI_STAY)) && p->scene.path_count >= 2)
        boids_stay_on_path(pi, vi, &p->scene, w, g->path_predict, ms, mf, force[BOIDS_BI_STAY]);
    if (beh & BOIDS_BIT(BOIDS_BI_OBSTACLES))
        boids_obstacles(pi, vi, &p->scene, w, g->avoid_distance, g->body_radius, ms, mf, force[BOIDS_BI_OBSTACLES]);
    if (beh & BOIDS_BIT(BOIDS_BI_FEELERS))
        boids_feelers(pi, vi, &p->scene, w->dim, g->feeler_length, mf, force[BOIDS_BI_FEELERS]);
    // The named agents' behaviours, as steer_behaviors.c's (the group's leader and pair).
    uint32_t me = ids[best];
    float off[3], lv[3];
    if ((beh & BOIDS_BIT(BOIDS_BI_OFFSET)) && me != g->leader) {
        uint32_t j = named_of(w, count, pos, vel, ids, pi, g->leader, off, lv);
        float local[3];
        boids_formation_local(g, me, j != UINT32_MAX && group[j] == group[best], local);
        boids_offset_pursuit(off, lv, local, w->dim, vi, g->arrive_radius, ms, mf, force[BOIDS_BI_OFFSET]);
    }
    if ((beh & BOIDS_BIT(BOIDS_BI_FOLLOW)) && me != g->leader) {
        named_of(w, count, pos, vel, ids, pi, g->leader, off, lv);
        boids_follow_leader(off, lv, vi, g->leader_behind, g->leader_sight, g->predict, g->arrive_radius, ms, mf,
                            force[BOIDS_BI_FOLLOW]);
    }
    if (beh & BOIDS_BIT(BOIDS_BI_INTERPOSE)) {
        float ob[3], vb[3];
        named_of(w, count, pos, vel, ids, pi, g->interpose_a, off, lv);
        named_of(w, count, pos, vel, ids, pi, g->interpose_b, ob, vb);
        boids_interpose(off, lv, ob, vb, vi, g->arrive_radius, ms, mf, force[BOIDS_BI_INTERPOSE]);
    }
    // maxforce is drawn as the perception radius; colours by behaviour index.
    float k = g->radius / (mf > 0.0f ? mf : 1.0f);
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++) {
        if (!(beh & BOIDS_BIT(b)))
            continue;
        float h = (float)b / (float)BOIDS_BEHAVIOR_COUNT * 6.0f;
        float col[4] = {fminf(1.0f, fabsf(h - 3.0f) - 1.0f + 0.3f), fminf(1.0f, 2.0f - fabsf(h - 2.0f) + 0.3f),
                        fminf(1.0f, 2.0f - fabsf(h - 4.0f) + 0.3f), 1.0f};
        for (int a = 0; a < 3; a++)
            col[a] = fmaxf(col[a], 0.25f);
        float tip[3] = {pi[0] + force[b][0] * k, pi[1] + force[b][1] * k, pi[2] + force[b][2] * k};
        n = boids_lines_segment(v, n, cap, pi, tip, col);
    }
    return n;
}

// The hunters' lines: the hunt's choice as src/core/steer_gather.c makes it (the
// nearest agent of a prey group within the hunter's radius, minimum image)
// over every agent, so hunters x count pair tests; ties go to the lower
// slot, not the lower id (for the eye: a tie is rare and both are as near).
static size_t hunters_prey(const boids_params *p, uint32_t count, const float (*pos)[4], const uint32_t *group,
                           uint64_t budget, boids_line_vertex *v, size_t n, size_t cap) {
    static const float col[4] = {1.0f, 0.4f, 0.95f, 1.0f}; // magenta: unlike any palette colour
    const boids_world_params *w = &p->world;
    uint64_t pairs = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t gi = group[i];
        if (gi >= BOIDS_MAX_GROUPS)
            continue;
        const boids_group_params *g = &p->group[gi];
        if (!(g->behaviors & BOIDS_BIT(BOIDS_BI_HUNT)) || !g->relations)
            continue;
        if ((pairs += count) > budget)
            break;
        float best_d2 = g->radius * g->radius;
        uint32_t best = UINT32_MAX;
        for (uint32_t j = 0; j < count; j++) {
            uint32_t gj = group[j];
            if (j == i || gj >= BOIDS_MAX_GROUPS ||
                ((g->relations >> (BOIDS_REL_BITS * gj)) & BOIDS_REL_MASK) != BOIDS_REL_PURSUE)
                continue;
            float d[3];
            boids_world_delta(w, pos[i], pos[j], d);
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 < best_d2) {
                best_d2 = d2;
                best = j;
            }
        }
        if (best == UINT32_MAX)
            continue;
        float d[3];
        boids_world_delta(w, pos[i], pos[best], d);
        float b[3] = {pos[i][0] + d[0], pos[i][1] + d[1], pos[i][2] + d[2]};
        n = boids_lines_segment(v, n, cap, pos[i], b, col);
    }
    return n;
}

// The line from agent slot i to the named agent `id` (its slot in slot_of,
// UINT32_MAX: not found; BOIDS_ID_TARGET: the world's target), minimum image.
static size_t named_line(const boids_world_params *w, const float (*pos)[4], uint32_t i, uint32_t id,
                         const uint32_t slot_of[3], const uint32_t named[3], const float col[4], boids_line_vertex *v,
                         size_t n, size_t cap) {
    const float *to = NULL;
    if (id == BOIDS_ID_TARGET)
        to = w->target_pos;
    for (int k = 0; !to && k < 3; k++)
        if (named[k] == id && slot_of[k] != UINT32_MAX)
            to = pos[slot_of[k]];
    if (!to)
        return n;
    float d[3];
    boids_world_delta(w, pos[i], to, d);
    float b[3] = {pos[i][0] + d[0], pos[i][1] + d[1], pos[i][2] + d[2]};
    return boids_lines_segment(v, n, cap, pos[i], b, col);
}

// See boids/render.h.
size_t boids_overlay_follows(const boids_params *p, uint32_t count, const float (*pos)[4], const uint32_t *group,
                             const uint32_t *id, uint64_t budget, boids_line_vertex *v, size_t n, size_t cap) {
    static const float lead_col[4] = {1.0f, 0.9f, 0.3f, 1.0f};  // yellow: member -> leader
    static const float inter_col[4] = {0.5f, 1.0f, 0.6f, 1.0f}; // light green: guard -> the two it keeps apart
    const uint32_t leads = BOIDS_BIT(BOIDS_BI_OFFSET) | BOIDS_BIT(BOIDS_BI_FOLLOW);
    n = hunters_prey(p, count, pos, group, budget, v, n, cap);
    // Each group's three named agents, found by one pass over the slots.
    for (uint32_t gi = 0; gi < p->world.group_count && gi < BOIDS_MAX_GROUPS; gi++) {
        const boids_group_params *g = &p->group[gi];
        if (!(g->behaviors & (leads | BOIDS_BIT(BOIDS_BI_INTERPOSE))))
            continue;
        const uint32_t named[3] = {g->leader, g->interpose_a, g->interpose_b};
        uint32_t slot_of[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
        for (uint32_t i = 0; i < count; i++)
            for (int k = 0; k < 3; k++)
                if (id[i] == named[k])
                    slot_of[k] = i;
        for (uint32_t i = 0; i < count; i++) {
            if (group[i] != gi)
                continue;
            if ((g->behaviors & leads) && id[i] != g->leader) // the leader follows no one
                n = named_line(&p->world, pos, i, g->leader, slot_of, named, lead_col, v, n, cap);
            if (g->behaviors & BOIDS_BIT(BOIDS_BI_INTERPOSE)) {
                n = named_line(&p->world, pos, i, g->interpose_a, slot_of, named, inter_col, v, n, cap);
                n = named_line(&p->world, pos, i, g->interpose_b, slot_of, named, inter_col, v, n, cap);
            }
        }
    }
    return n;
}
