// src/core/steer_behaviors.c: the steer stage after the gather. From one
// agent's neighbourhood sums (struct gather, steer_internal.h): every
// enabled behaviour (each limited to maxforce) through its wrapper, then
// combined: the weighted sum (Nature of Code 5, "Combining Behaviors"),
// priority (Reynolds 1999) or truncated; for the heading rules, the
// collective-motion models and the circles model, their turn, heading or
// displacement instead. It calls no other file of the stage.
// GLSL twin: shaders/steer.comp unfix3(), combine_one() ... steer_finish().
#include <math.h>

#include <cglm/vec3.h>

#include "steer_internal.h"

// A sum back to floats: boids_unfix of each axis (scale), times k.
static void unfix3(const int64_t acc[3], float scale, float k, float dest[3]) {
    for (int a = 0; a < 3; a++)
        dest[a] = boids_unfix(acc[a], scale) * k;
}

// The offset (minimum image) from pos to the named agent `id` and its
// velocity: an agent through the slot of its id (s->slot_of_id, filled by
// boids_sim_steer) or, in a distributed run, the driver's s->named (see
// core.h); or BOIDS_ID_TARGET, the world's target. The agent's group, or
// UINT32_MAX for the target.
static uint32_t named_agent(const boids_sim *s, const float pos[3], uint32_t id, float off[3], float vel[3]) {
    const boids_world_params *w = &s->p.world;
    const float *at = NULL, *v = NULL;
    uint32_t group = UINT32_MAX;
    if (s->named) {
        for (uint32_t k = 0; k < s->named_count && !at; k++)
            if (s->named[k].id == id) {
                at = s->named[k].pos;
                v = s->named[k].vel;
                group = s->named[k].group;
            }
    } else if (id != BOIDS_ID_TARGET && id < s->n) {
        uint32_t j = s->slot_of_id[id];
        at = s->cur.pos[j];
        v = s->cur.vel[j];
        group = s->cur.group[j];
    }
    if (!at) {
        boids_world_delta(w, pos, w->target_pos, off);
        glm_vec3_copy((float *)w->target_vel, vel);
        return UINT32_MAX;
    }
    boids_world_delta(w, pos, at, off);
    glm_vec3_copy((float *)v, vel);
    return group;
}

// What a behaviour's wrapper reads: agent i (slot of cur; id, group g) of
// s, its neighbourhood's sums, its own maxspeed ms and maxforce mf (its
// ranges' draws or the group's), the offset to the world's target.
typedef struct steer_ctx {
    const boids_sim *s;
    const boids_world_params *w;
    const boids_group_params *g;
    const gather *acc;
    uint32_t i, id;
    const float *pos, *vel;
    float ms, mf;
    float to_target[3]; // minimum image
    float *angles;      // the wander angles (pos.w, vel.w): wander updates them
} steer_ctx;

// The behaviours, one wrapper each with the same arguments: the force
// (already limited to maxforce) into out. behaviors_of calls them in the
// order of shared.h's BOIDS_BEHAVIORS. GLSL twins: steer.comp steer_*.
static void steer_obstacles(const steer_ctx *c, float out[3]) {
    boids_obstacles(c->pos, c->vel, &c->s->p.scene, c->w, c->g->avoid_distance, c->g->body_radius, c->ms, c->mf, out);
}

static void steer_walls(const steer_ctx *c, float out[3]) {
    boids_walls(c->pos, c->vel, c->w, c->ms, c->mf, out);
}

static void steer_escape(const steer_ctx *c, float out[3]) {
    float t[3];
    unfix3(c->acc->esc, BOIDS_FIX_SEP, 1.0f, t);
    boids_escape(t, c->acc->esc_n, c->vel, c->ms, c->mf, out);
}

static void steer_separation(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    float t[3];
    if (c->g->rules == BOIDS_RULES_TUTORIAL) {
        // Mean offset to the neighbours = sum * separation / count.
        float k = acc->sep_n ? c->g->separation / (float)acc->sep_n : 0.0f;
        unfix3(acc->sep, BOIDS_FIX_UNIT, k, t);
        boids_tutorial_separation(t, acc->sep_n, out);
    } else {
        unfix3(acc->sep, BOIDS_FIX_SEP, 1.0f, t);
        boids_separation(t, acc->sep_n, c->vel, c->ms, c->mf, out);
    }
}

static void steer_flee(const steer_ctx *c, float out[3]) {
    boids_flee(c->to_target, c->vel, c->ms, c->mf, out);
}

static void steer_evade(const steer_ctx *c, float out[3]) {
    boids_evade(c->to_target, c->w->target_vel, c->vel, c->g->predict, c->ms, c->mf, out);
}

// Pursue the nearest prey (none: no force).
static void steer_hunt(const steer_ctx *c, float out[3]) {
    uint32_t j = c->acc->prey_slot;
    glm_vec3_zero(out);
    if (j != UINT32_MAX) {
        float off[3];
        boids_world_delta(c->w, c->pos, c->s->cur.pos[j], off);
        boids_pursue(off, c->s->cur.vel[j], c->vel, c->g->predict, c->ms, c->mf, out);
    }
}

static void steer_pursue(const steer_ctx *c, float out[3]) {
    boids_pursue(c->to_target, c->w->target_vel, c->vel, c->g->predict, c->ms, c->mf, out);
}

static void steer_seek(const steer_ctx *c, float out[3]) {
    boids_seek(c->to_target, c->vel, c->ms, c->mf, out);
}

static void steer_arrive(const steer_ctx *c, float out[3]) {
    boids_arrive(c->to_target, c->vel, c->g->arrive_radius, c->ms, c->mf, out);
}

static void steer_path(const steer_ctx *c, float out[3]) {
    boids_path_follow(c->pos, c->vel, &c->s->p.scene, c->w, c->g->path_predict, c->g->path_ahead, c->ms, c->mf, out);
}

static void steer_flow(const steer_ctx *c, float out[3]) {
    boids_flow(boids_flowfield_lookup(&c->s->p.flow, c->w, c->pos), c->vel, c->ms, c->mf, out);
}

static void steer_view(const steer_ctx *c, float out[3]) {
    boids_view(c->acc->view, c->acc->view_n, c->vel, c->ms, c->mf, out);
}

static void steer_alignment(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    // Average velocity = sum * max_speed_all / count.
    float k = acc->ali_n ? c->w->max_speed_all / (float)acc->ali_n : 0.0f, t[3];
    unfix3(acc->ali, BOIDS_FIX_UNIT, k, t);
    if (c->g->rules == BOIDS_RULES_TUTORIAL)
        boids_tutorial_alignment(t, acc->ali_n, out);
    else
        boids_alignment(t, acc->ali_n, c->vel, c->ms, c->mf, out);
}

static void steer_cohesion(const steer_ctx *c, float out[3]) {
    const gather *acc = c->acc;
    // Centroid - position = mean offset = sum * cohesion's radius / count.
    float k = acc->coh_n ? boids_cohesion_radius(c->g) / (float)acc->coh_n : 0.0f, t[3];
    unfix3(acc->coh, BOIDS_FIX_UNIT, k, t);
    if (c->g->rules == BOIDS_RULES_TUTORIAL)
        boids_tutorial_cohesion(t, acc->coh_n, out);
    else
        boids_cohesion(t, acc->coh_n, c->vel, c->ms, c->mf, out);
}

// Two draws of (id, step) per step; the angles are updated.
static void steer_wander(const steer_ctx *c, float out[3]) {
    const boids_world_params *w = c->w;
    const boids_group_params *g = c->g;
    float r1 = boids_rng_signed(boids_rng_u32(w->seed_lo, w->seed_hi, c->id, w->step, BOIDS_RNG_WANDER));
    float r2 = boids_rng_signed(boids_rng_u32(w->seed_lo, w->seed_hi, c->id, w->step, BOIDS_RNG_WANDER2));
    boids_wander(c->vel, c->angles, r1, r2, g->wander_distance, g->wander_radius, g->wander_change, w->dim, c->ms,
                 c->mf, out);
}

static void steer_speed(const steer_ctx *c, float out[3]) {
    boids_target_speed(c->vel, c->g->target_speed, c->mf, out);
}

static void steer_queue(const steer_ctx *c, float out[3]) {
    boids_queue(c->acc->queue_n, c->vel, c->mf, out);
}

static void steer_avoid(const steer_ctx *c, float out[3]) {
    boids_avoid(c->acc->avoid_id != UINT32_MAX, c->acc->avoid_off, c->vel, c->mf, out);
}

static void steer_stay(const steer_ctx *c, float out[3]) {
    boids_stay_on_path(c->pos, c->vel, &c->s->p.scene, c->w, c->g->path_predict, c->ms, c->mf, out);
}

// Hide from the nearest hunter (none: has false, zero offset and velocity).
static void steer_hide(const steer_ctx *c, float out[3]) {
    const boids_group_params *g = c->g;
    uint32_t j = c->acc->hunter_slot;
    bool has = j != UINT32_MAX;
    float off[3] = {0, 0, 0}, hv[3] = {0, 0, 0};
    if (has) {
        boids_world_delta(c->w, c->pos, c->s->cur.pos[j], off);
        glm_vec3_copy(c->s->cur.vel[j], hv);
    }
    boids_hide(c->pos, c->vel, has, off, hv, &c->s->p.scene, c->w, g->radius, g->hide_margin, g->predict,
               g->arrive_radius, c->ms, c->mf, out);
}

// Offset pursuit: the agent's place in the formation (or the group's
// leader_offset); the leader itself has no force.
static void steer_offset(const steer_ctx *c, float out[3]) {
    const boids_sim *s = c->s;
    const boids_group_params *g = c->g;
    glm_vec3_zero(out);
    if (c->id == g->leader)
        return;
    float to_leader[3], lv[3], local[3];
    uint32_t leader_group = named_agent(s, c->pos, g->leader, to_leader, lv);
    boids_formation_local(g, c->id, leader_group == s->cur.group[c->i], local);
    boids_offset_pursuit(to_leader, lv, local, c->w->dim, c->vel, g->arrive_radius, c->ms, c->mf, out);
}

// Follow the leader; the leader itself has no force.
static void steer_follow(const steer_ctx *c, float out[3]) {
    const boids_group_params *g = c->g;
    glm_vec3_zero(out);
    if (c->id == g->leader)
        return;
    float off[3], lv[3];
    named_agent(c->s, c->pos, g->leader, off, lv);
    boids_follow_leader(off, lv, c->vel, g->leader_behind, g->leader_sight, g->predict, g->arrive_radius, c->ms, c->mf,
                        out);
}

static void steer_interpose(const steer_ctx *c, float out[3]) {
    float oa[3], va[3], ob[3], vb[3];
    named_agent(c->s, c->pos, c->g->interpose_a, oa, va);
    named_agent(c->s, c->pos, c->g->interpose_b, ob, vb);
    boids_interpose(oa, va, ob, vb, c->vel, c->g->arrive_radius, c->ms, c->mf, out);
}

static void steer_feelers(const steer_ctx *c, float out[3]) {
    boids_feelers(c->pos, c->vel, &c->s->p.scene, c->w->dim, c->g->feeler_length, c->mf, out);
}

// The force of every enabled behaviour (the bits of beh) of agent i, in
// the list's order, with its maxforce mf (the combination's budget too).
// Updates the wander angles.
static void behaviors_of(const boids_sim *s, uint32_t i, uint32_t beh, const gather *acc, float mf,
                         float force[BOIDS_BEHAVIOR_COUNT][3], float angles[2]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    uint32_t id = s->cur.id[i];
    steer_ctx c = {.s = s,
                   .w = w,
                   .g = g,
                   .acc = acc,
                   .i = i,
                   .id = id,
                   .pos = s->cur.pos[i],
                   .vel = s->cur.vel[i],
                   .ms = boids_agent_maxspeed(w, g, id),
                   .mf = mf,
                   .angles = angles};
    boids_world_delta(w, c.pos, w->target_pos, c.to_target);
#define STEER(index, NAME, name, gathers)                                                                              \
    if (beh & BOIDS_BIT(index))                                                                                        \
        steer_##name(&c, force[index]);
    BOIDS_BEHAVIORS(STEER)
#undef STEER
}

// Weighted sum of the enabled forces, or, in priority mode, the first
// weighted force (in index order) longer than the threshold (if none is,
// the weighted sum), or, in truncated mode, Buckland's prioritised truncated
// running sum ("Programming Game AI by Example", AccumulateForce) within
// the budget `maxforce` (the agent's own): in index order, remaining =
// maxforce - |sum|; stop when remaining <= 0; a force shorter than
// remaining is added whole, a longer one scaled to remaining, and it is the
// last (Buckland's next call would find remaining ~ 0; stopping at once
// does not depend on how |sum| rounds).
static void combine(const boids_world_params *w, const boids_group_params *g, uint32_t beh, float maxforce,
                    float force[BOIDS_BEHAVIOR_COUNT][3], float acc[3]) {
    glm_vec3_zero(acc);
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++) {
        if (!(beh & BOIDS_BIT(b)))
            continue;
        float f[3];
        glm_vec3_scale(force[b], boids_weight(g, b), f);
        if (w->combine == BOIDS_COMBINE_PRIORITY && glm_vec3_norm(f) > g->priority_threshold) {
            glm_vec3_copy(f, acc);
            return;
        }
        if (w->combine == BOIDS_COMBINE_TRUNCATED) {
            if (!boids_accumulate_force(acc, f, maxforce))
                return;
            continue;
        }
        glm_vec3_add(acc, f, acc);
    }
}

// The heading rules of agent i (boids-angle-bug.txt): the step's turn in
// radians into out[0] (y, z 0), which integrate adds to the heading. Mean
// directions = the unit-heading sums / count; the most populated area is
// the centre of the densest block of the step's survey (none when it found
// no agent).
static void heading_agent(const boids_sim *s, uint32_t i, const gather *acc, float out[4]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    float align[3], separate[3], to_dense[3] = {0.0f, 0.0f, 0.0f};
    unfix3(acc->ali, BOIDS_FIX_UNIT, acc->ali_n ? 1.0f / (float)acc->ali_n : 0.0f, align);
    unfix3(acc->sep, BOIDS_FIX_UNIT, acc->sep_n ? 1.0f / (float)acc->sep_n : 0.0f, separate);
    if ((g->behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) && s->survey[1] > 0) {
        float target[3];
        boids_survey_target(w, s->survey[0], target);
        boids_world_delta(w, s->cur.pos[i], target, to_dense);
    }
    float heading = boids_heading_angle(s->cur.vel[i]);
    out[0] = boids_heading_rules(heading, g->behaviors, align, separate, to_dense, g->turn * w->dt);
    out[1] = 0.0f;
    out[2] = 0.0f;
}

// The collective-motion models of agent i (src/core/models.c): the new unit
// heading into out, which integrate moves along at the constant speed.
// Vicsek: the unit velocities within r, the agent's own added (the fixed
// point term of its own unit velocity, so the sum stays order-independent).
// Couzin: the zones' sums (separation: repulsion, alignment: orientation,
// cohesion: attraction; unit terms), the turn limit turn * dt per step.
static void model_agent(const boids_sim *s, uint32_t i, const gather *acc, float out[4]) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    const float *vel = s->cur.vel[i];
    float u[3], t[3];
    boids_noise_draws(w->seed_lo, w->seed_hi, s->cur.id[i], w->step, u);
    if (g->rules == BOIDS_RULES_VICSEK) {
        int64_t sum[3] = {acc->ali[0], acc->ali[1], acc->ali[2]};
        boids_set_mag(vel, 1.0f, t);
        fix3_unit(sum, t, w->dim);
        float mean[3];
        unfix3(sum, BOIDS_FIX_UNIT, 1.0f, mean);
        boids_vicsek_heading(mean, vel, g->noise, w->dim, u, out);
    } else {
        float rep[3], ori[3], att[3], desired[3];
        unfix3(acc->sep, BOIDS_FIX_UNIT, 1.0f, rep);
        unfix3(acc->ali, BOIDS_FIX_UNIT, 1.0f, ori);
        unfix3(acc->coh, BOIDS_FIX_UNIT, 1.0f, att);
        boids_couzin_desired(rep, acc->sep_n, ori, acc->ali_n, att, acc->coh_n, vel, desired);
        boids_couzin_heading(desired, vel, g->noise, g->turn * w->dt, w->dim, u, out);
    }
}

// See steer_internal.h.
void steer_finish(boids_sim *s, uint32_t i, const gather *acc) {
    const boids_world_params *w = &s->p.world;
    const boids_group_params *g = &s->p.group[s->cur.group[i]];
    float angles[2] = {s->cur.pos[i][3], s->cur.vel[i][3]};
    if (g->rules == BOIDS_RULES_HEADING) {
        heading_agent(s, i, acc, s->accel[i]);
    } else if (g->rules == BOIDS_RULES_VICSEK || g->rules == BOIDS_RULES_COUZIN) {
        model_agent(s, i, acc, s->accel[i]);
    } else if (g->rules == BOIDS_RULES_CIRCLES) {
        // The circles model's displacement (integrate moves the agent by it).
        float sum[3];
        unfix3(acc->sep, BOIDS_FIX_UNIT, 1.0f, sum);
        boids_circles_displacement(sum, acc->sep_n, g->repulse, s->accel[i]);
    } else {
        // The walls boundary mode is the stay-within-walls behaviour.
        uint32_t beh = g->behaviors | (w->boundary == BOIDS_BOUNDARY_WALLS ? BOIDS_BIT(BOIDS_BI_WALLS) : 0u);
        float force[BOIDS_BEHAVIOR_COUNT][3];
        // The agent's own maxforce (its range's draw) or the group's, once.
        float mf = boids_agent_maxforce(w, g, s->cur.id[i]);
        behaviors_of(s, i, beh, acc, mf, force, angles);
        combine(w, g, beh, mf, force, s->accel[i]);
    }
    s->accel[i][3] = 0.0f;
    s->next.pos[i][3] = angles[0];
    s->next.vel[i][3] = angles[1];
    s->neighbors[i] = acc->neighbors;
    s->nearest[i] = acc->neighbors ? sqrtf(acc->nearest2) : 0.0f;
    s->candidates[i] = acc->candidates;
}
