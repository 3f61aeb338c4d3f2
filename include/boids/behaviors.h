/* boids/behaviors.h: every steering behaviour as a pure function returning a
 * force (Reynolds 1999; The Nature of Code ch. 5). Each has a GLSL twin of the
 * same name and argument order in shaders/behaviors.glsl (the rule sets, the
 * models and the locomotion in shaders/models.glsl, the bodies in
 * shaders/bodies.glsl and shaders/bodies.comp).
 *
 * Conventions: vectors are float[3] (the xyz lanes of a state vec4); offsets
 * to other points are passed in already wrapped by boids_world_delta, so every
 * behaviour is torus-correct; `dest` comes last; each returned force is
 * limited to maxforce, as in the chapter, before the caller weights it.
 *
 * Offers:
 *   vector helpers     boids_limit, boids_set_mag, boids_steer_from_desired
 *   geometry           boids_world_delta, boids_world_wrap, boids_angle_wrap, boids_angle_diff
 *   trigonometry       boids_sinf, boids_cosf, boids_atan2f, boids_logf (the same bits in GLSL)
 *   RNG                boids_hash, boids_rng_u32, boids_rng_signed, boids_rng_unit
 *   per-agent ranges   boids_agent_range, boids_agent_maxspeed, boids_agent_maxforce
 *   fixed point        boids_fix, boids_unfix
 *   single agent       seek, flee, arrive, pursue, evade, wander, walls, flow, path, obstacles,
 *                      target speed, stay on path, hide (boids_hiding_spot)
 *   neighbourhood      separation, alignment, cohesion, view, escape, queue, avoid (+ per-pair terms)
 *   named agents       boids_leader_frame, boids_formation_place, boids_formation_member,
 *                      boids_offset_pursuit, boids_follow_leader, boids_interpose
 *   walls              boids_feeler_hit, boids_feelers
 *   combination        boids_accumulate_force (Buckland's truncated running sum)
 *   locomotion         boids_turn_limit, boids_boundary, boids_integrate
 *   bodies             boids_distance_constraint, boids_chain_resolve, boids_mod_angle,
 *                      boids_constrain_angle, boids_snake_angles, boids_snake_resolve,
 *                      boids_snake_outline, boids_body_straight, boids_body_follow
 */
#ifndef BOIDS_BEHAVIORS_H
#define BOIDS_BEHAVIORS_H

#include <stdbool.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- vector helpers (p5.Vector semantics) ----
// v.limit(max): scale down to length max if longer.
void boids_limit(float v[3], float max);
// v raised to length min when shorter but not zero (a least speed; min 0:
// unchanged).
void boids_raise(float v[3], float min);
// v.setMag(m): length m in the same direction; the zero vector stays zero.
void boids_set_mag(const float v[3], float m, float dest[3]);
// Reynolds' steering formula: steer = desired - velocity, limited to maxforce.
void boids_steer_from_desired(const float desired[3], const float vel[3], float maxforce, float dest[3]);

// ---- geometry ----
// to - from, with the minimum-image convention on a wrapped world (plain in
// every other mode: margin's distances are the sketch's, not wrapped). Inline:
// it runs for every candidate pair.
static inline void boids_world_delta(const boids_world_params *w, const float from[3], const float to[3],
                                     float dest[3]) {
    for (int a = 0; a < 3; a++) {
        float d = to[a] - from[a];
        if (w->boundary == BOIDS_BOUNDARY_WRAP) {
            float half = 0.5f * w->size[a];
            if (d > half)
                d -= w->size[a];
            else if (d < -half)
                d += w->size[a];
        }
        dest[a] = d;
    }
}
// How far beyond the world's edges positions may lie: margin's r (the
// sketch's borders() keeps a boid until it is more than r out), 0 in every
// other mode. Positions stay within [min - r, min + size + r].
static inline float boids_world_overhang(const boids_world_params *w) {
    if (w->boundary != BOIDS_BOUNDARY_MARGIN)
        return 0.0f;
    return w->margin > 0.0f ? w->margin : BOIDS_MARGIN_DEFAULT;
}
// Position wrapped into [min, min + size) on every axis (torus).
void boids_world_wrap(const boids_world_params *w, float pos[3]);
// The row of the agent of the smallest id (ids[row]; NULL: the row is the
// id) whose position or velocity (x, y, z) is a NaN or an infinity among n
// rows, or UINT32_MAX when every one is finite. One pass over the exponent
// bits a compiler vectorises, shared by `threads` (<= 0: the default;
// boids_sim.threads' rule) above 64 Ki rows; the search only when one fails.
uint32_t boids_first_nonfinite(const float (*pos)[4], const float (*vel)[4], const uint32_t *ids, uint32_t n,
                               int threads);

// Could agent `id` of group `group` be in a state a step leaves (the rules a
// snapshot's agents and --init's rows are held to)? Finite; inside the
// world (with margin's overhang; a wrapped coordinate may round onto the
// upper edge), z at the floor and still in 2D; no faster than 1.001 times
// its own maxspeed. NULL, or the problem in `why` after "agent ID " ("is
// outside the world on axis x (1e+30; the world is 0..200)") and returned.
const char *boids_agent_check(const boids_params *p, uint32_t id, const float pos[4], const float vel[4],
                              uint32_t group, char *why, size_t why_size);
// Within a cone of half-angle acos(cos_half) around a unit heading: the
// chapter's along >= cos_half * d (along = offset . heading, d = |offset|),
// decided on squares (d2 = d^2) so every GPU rounds it alike. GLSL twin:
// in_cone().
static inline bool boids_in_cone(float along, float cos_half, float d2) {
    float a2 = along * along, c2d2 = cos_half * cos_half * d2;
    if (cos_half >= 0.0f)
        return along >= 0.0f && a2 >= c2d2;
    return along >= 0.0f || a2 <= c2d2;
}
// Angle into (-pi, pi].
float boids_angle_wrap(float a);
// sin, cos, atan2 and the natural logarithm by the same float operations in
// C and GLSL (shaders/trig.glsl), within 3 ULP of libm's (src/core/trig.c);
// every angle the state depends on goes through these, never libm's.
float boids_sinf(float a);
float boids_cosf(float a);
float boids_atan2f(float y, float x);
float boids_logf(float x);
// Shortest signed turn from `current` to `target`, in (-pi, pi]
// (boids-angle-bug.txt: +3.0 -> -3.0 is +0.283, through pi, not -6.0).
float boids_angle_diff(float target, float current);

// ---- counter-based RNG: identical bits in C and GLSL ----
uint32_t boids_hash(uint32_t x);
uint32_t boids_rng_u32(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t step, uint32_t stream);
// [0, 1) with 24 bits; [-1, 1).
float boids_rng_unit(uint32_t bits);
float boids_rng_signed(uint32_t bits);
// A per-agent range's value for agent `id`: lo + (hi - lo) * boids_rng_unit of
// boids_rng_u32(seed, id, 0, stream); `value` (the group's) when lo <= 0.
float boids_agent_range(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, float lo, float hi, float value,
                        uint32_t stream);
// Agent id's maxspeed / maxforce in group g: the group's maxspeed_lo..hi /
// maxforce_lo..hi range when set (shared.h), else the group's value.
float boids_agent_maxspeed(const boids_world_params *w, const boids_group_params *g, uint32_t id);
float boids_agent_maxforce(const boids_world_params *w, const boids_group_params *g, uint32_t id);

// ---- combination ----
// One step of Buckland's prioritised truncated running sum (AccumulateForce,
// BOIDS_COMBINE_TRUNCATED): remaining = maxforce - |total|; none left
// (<= 0): false, total unchanged. |force| < remaining: total += force, true
// (room for the next). Else total += force / |force| * remaining, false:
// the budget is spent. GLSL twin: accumulate_force().
bool boids_accumulate_force(float total[3], const float force[3], float maxforce);

// ---- fixed point for order-independent sums (shared.h BOIDS_FIX_*) ----
// value * scale truncated toward zero into a 64-bit integer, saturated at
// BOIDS_FIX_SATURATE (so a sum of BOIDS_MAX_AGENTS terms cannot overflow);
// NaN maps to 0. Single precision only, as on a GPU. GLSL twin: fix().
// Inline: it runs for every neighbour.
static inline int64_t boids_fix(float value, float scale) {
    float v = value * scale; // exact: scale is a power of two
    if (v != v)
        return 0;
    v = v > (float)BOIDS_FIX_SATURATE ? (float)BOIDS_FIX_SATURATE : v;
    v = v < -(float)BOIDS_FIX_SATURATE ? -(float)BOIDS_FIX_SATURATE : v;
    return (int64_t)v;
}
// The sum back as a float (int64 -> float rounds to nearest, then an exact
// power-of-two scale). GLSL twin: unfix().
static inline float boids_unfix(int64_t sum, float scale) {
    return (float)sum * (1.0f / scale);
}

// ---- single-agent behaviours ----
// Seek: desired = setMag(target - position, maxspeed).
void boids_seek(const float to_target[3], const float vel[3], float maxspeed, float maxforce, float dest[3]);
// Flee: the opposite desired velocity.
void boids_flee(const float to_target[3], const float vel[3], float maxspeed, float maxforce, float dest[3]);
// Arrive: desired speed map(d, 0, r, 0, maxspeed) inside the slowing radius r.
void boids_arrive(const float to_target[3], const float vel[3], float slow_radius, float maxspeed, float maxforce,
                  float dest[3]);
// Pursue / evade: seek / flee the target's predicted position (target + v * predict).
void boids_pursue(const float to_target[3], const float target_vel[3], const float vel[3], float predict,
                  float maxspeed, float maxforce, float dest[3]);
void boids_evade(const float to_target[3], const float target_vel[3], const float vel[3], float predict, float maxspeed,
                 float maxforce, float dest[3]);
// Wander: the angle(s) take a random step (rnd in [-1,1) each), then seek a
// point on a circle (2D, relative to the heading) or sphere (3D) projected
// `distance` ahead. angles = {theta, phi} in, updated in place.
void boids_wander(const float vel[3], float angles[2], float rnd_theta, float rnd_phi, float distance, float radius,
                  float change, uint32_t dim, float maxspeed, float maxforce, float dest[3]);
// Target speed (OpenSteer): along the heading, clamp(target - |vel|,
// -maxforce, maxforce); zero without a heading. src/core/speed.c.
void boids_target_speed(const float vel[3], float target, float maxforce, float dest[3]);
// Queueing (Reynolds 1999): does a neighbour at off (d2 = |off|^2) moving
// at vj block the agent (unit heading, vel)? Within distance, ahead within
// the cone BOIDS_QUEUE_COS and slower. src/core/queue.c.
bool boids_queue_blocks(const float off[3], float d2, const float heading[3], bool has_heading, const float vel[3],
                        const float vj[3], float distance);
// The queueing brake: -vel limited to maxforce when blocked > 0, else zero.
void boids_queue(uint32_t blocked, const float vel[3], float maxforce, float dest[3]);
// Unaligned collision avoidance (OpenSteer steerToAvoidNeighbors): is the
// neighbour at off moving at vj a threat (closest approach at 0 < t <
// horizon, nearer than danger)? Then *t and the predicted offset at t,
// times |vj - vel|^2 (its direction without a division). src/core/avoid.c.
bool boids_avoid_threat(const float off[3], const float vel[3], const float vj[3], float horizon, float danger,
                        float *t, float predicted[3]);
// The order of threats: sooner t, ties to the smaller id.
bool boids_avoid_sooner(float t, uint32_t id, float best_t, uint32_t best_id);
// The side-step from the soonest threat: -predicted perpendicular to the
// velocity, set to maxforce; zero without a threat.
void boids_avoid(bool threat, const float predicted[3], const float vel[3], float maxforce, float dest[3]);
// Stay within walls: within `offset` of a wall, desire maxspeed away from it
// on that axis, keeping the other components. Far from the walls: no force
// (returns false, dest = 0), never a brake.
bool boids_walls(const float pos[3], const float vel[3], const boids_world_params *w, float maxspeed, float maxforce,
                 float dest[3]);
// Flow field: desired = lookup(position) * maxspeed.
const float *boids_flowfield_lookup(const boids_flowfield *f, const boids_world_params *w, const float pos[3]);
void boids_flow(const float field[3], const float vel[3], float maxspeed, float maxforce, float dest[3]);
// Path following (Reynolds): predict, normal point on every segment (by
// scene->path_flags: clamped, the book's end point, or the infinite line),
// keep the closest (ties: the earlier segment); outside the radius seek a
// point `ahead` along the path. On a torus every image of a segment (shifted
// by whole worlds) that can be the nearest is tried (boids_path_shifts).
void boids_path_follow(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                       float predict, float ahead, float maxspeed, float maxforce, float dest[3]);
// Stay on the path (OpenSteer's steerToStayOnPath): predict `predict`
// ahead; within the path's radius of its nearest normal point (the same
// search and tie rule as path following) no force, outside seek that point.
void boids_stay_on_path(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                        float predict, float maxspeed, float maxforce, float dest[3]);
// Hide (Buckland): the hiding spot behind an obstacle (centre and hunter
// relative to the agent): centre + normalise(centre - hunter) * (radius +
// margin). src/core/hide.c.
void boids_hiding_spot(const float to_centre[3], float radius, const float to_hunter[3], float margin, float dest[3]);
// Hide from the nearest hunter (has_hunter; its offset and velocity): arrive
// at the hiding spot of the nearest obstacle whose centre is within
// `radius`; none: evade the hunter; no hunter: no force.
void boids_hide(const float pos[3], const float vel[3], bool has_hunter, const float to_hunter[3],
                const float hunter_vel[3], const boids_scene *scene, const boids_world_params *w, float radius,
                float margin, float predict, float arrive_radius, float maxspeed, float maxforce, float dest[3]);
// ---- behaviours that steer by another agent (src/core/leader.c) ----
// The frame of a heading (leader_vel; x when 0): ahead, side (2D: ahead a
// quarter turn left; 3D: z x ahead normalised, y when ahead is along z), up.
void boids_leader_frame(const float leader_vel[3], uint32_t dim, float ahead[3], float side[3], float up[3]);
// Place `slot` of `members` in a formation (BOIDS_FORMATION_*, shared.h),
// spacing apart, in the leader's frame; NONE: offset.
void boids_formation_place(uint32_t formation, uint32_t slot, uint32_t members, float spacing, const float offset[3],
                           float dest[3]);
// Agent id's place in its group's formation (its rank, the leader's rank
// leader_rank skipped; UINT32_MAX: the leader is not of the group) and the
// number of members.
uint32_t boids_formation_member(const boids_group_params *g, uint32_t id, uint32_t leader_rank, uint32_t *members);
// Agent id's place in the leader's frame: boids_formation_member (the
// leader's rank skipped when leader_in_group) and boids_formation_place.
void boids_formation_local(const boids_group_params *g, uint32_t id, bool leader_in_group, float local[3]);
// Offset pursuit (Buckland): arrive at the place `local` of the leader's
// frame (2D: local z ignored), predicted |to place| / (maxspeed + |leader_vel|) ahead.
void boids_offset_pursuit(const float to_leader[3], const float leader_vel[3], const float local[3], uint32_t dim,
                          const float vel[3], float arrive_radius, float maxspeed, float maxforce, float dest[3]);
// Leader following (Reynolds): arrive `behind` the leader; within `sight` of
// it or of the point as far ahead, evade it too (sum limited to maxforce).
void boids_follow_leader(const float to_leader[3], const float leader_vel[3], const float vel[3], float behind,
                         float sight, float predict, float arrive_radius, float maxspeed, float maxforce,
                         float dest[3]);
// Interpose (Buckland): arrive at the midpoint of a and b predicted at the
// time to reach their midpoint now at maxspeed.
void boids_interpose(const float to_a[3], const float va[3], const float to_b[3], const float vb[3], const float vel[3],
                     float arrive_radius, float maxspeed, float maxforce, float dest[3]);
// Wall avoidance with feelers (Buckland; src/core/feelers.c): does the
// feeler p -> p + tip cross the wall (rows wa, wb of boids_scene.wall)?
// Then *t in [0, 1] and the wall's unit normal on the agent's side.
bool boids_feeler_hit(const float p[3], const float tip[3], const float wa[4], const float wb[4], float *t,
                      float normal[3]);
// Three feelers (ahead `length`, +-45 degrees at half): each one's nearest
// crossing pushes along the normal by the tip's depth past it; the sum
// limited to maxforce.
void boids_feelers(const float pos[3], const float vel[3], const boids_scene *scene, uint32_t dim, float length,
                   float maxforce, float dest[3]);

// The point of segment a-b that path following takes for p (scalar
// projection; BOIDS_PATH_* flags: clamped to a or b themselves, b when
// outside, or unclamped).
void boids_normal_point(const float p[3], const float a[3], const float b[3], uint32_t flags, float dest[3]);
// The range k[0]..k[1] of world shifts along `axis` of the images of a
// segment (a, b: its coordinates on that axis) that can hold the normal
// point nearest to f (0..0 where the axis does not wrap).
void boids_path_shifts(const boids_world_params *w, uint32_t axis, float f, float a, float b, int32_t k[2]);
// Obstacle avoidance: of the circles/spheres that the forward corridor
// (length `lookahead`, half-width obstacle radius + body radius) hits, take
// the nearest and steer laterally away from its centre.
void boids_obstacles(const float pos[3], const float vel[3], const boids_scene *scene, const boids_world_params *w,
                     float lookahead, float body_radius, float maxspeed, float maxforce, float dest[3]);

// ---- neighbourhood behaviours: per-pair terms, then the force from the sums ----
// Separation term: (position - other) scaled to 1/d (chapter), dimensionless
// (times the separation radius).
void boids_separation_term(const float offset[3], float d, float sep_radius, float dest[3]);
// Separation: if the summed term is non-zero, setMag(maxspeed) - velocity.
void boids_separation(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                      float dest[3]);
// Alignment: average neighbour velocity, setMag(maxspeed), steer.
void boids_alignment(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                     float dest[3]);
// Cohesion: seek the neighbours' centroid (mean offset from the agent).
void boids_cohesion(const float mean_offset[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                    float dest[3]);
// Flake's view rule: the frame perpendicular to the velocity (unnormalised:
// u = up x vel, the agent's left; w = vel x u, its up), from products alone.
void boids_view_frame(const float vel[3], float u[3], float w[3]);
// The view term of a blocker at `offset`: the sides away from it, as
// integers {-sign(offset . u), -sign(offset . w)}; dead ahead: {1, 0}
// (turn left).
void boids_view_term(const float offset[3], const float vel[3], int32_t dest[2]);
// View: setMag(sum[0] u/|u| + sum[1] w/|w|, maxspeed) - velocity (sums of
// terms; balanced sides: no force).
void boids_view(const int32_t sum[2], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                float dest[3]);
// Escape term: away from a predator's predicted position, scaled to 1/d.
void boids_escape_term(const float offset[3], const float other_vel[3], float predict, float radius, float dest[3]);
void boids_escape(const float sum[3], uint32_t count, const float vel[3], float maxspeed, float maxforce,
                  float dest[3]);

// ---- the seeds' own rule sets (src/core/rules.c; boids_group_params.rules) ----
// Tutorial (flocking-tutorial.txt): the resultants, unit vectors (0 without
// neighbours): alignment = normalise(mean neighbour velocity), cohesion =
// normalise(centroid - position), separation = normalise(-(mean offset to
// the neighbours)), no 1/d weighting.
void boids_tutorial_alignment(const float mean_vel[3], uint32_t count, float dest[3]);
void boids_tutorial_cohesion(const float mean_offset[3], uint32_t count, float dest[3]);
void boids_tutorial_separation(const float mean_offset[3], uint32_t count, float dest[3]);
// velocity + acc dt (the weighted resultants), normalised and scaled to
// speed; a zero sum keeps the old direction.
void boids_tutorial_velocity(const float vel[3], const float acc[3], float dt, float speed, float dest[3]);
// Heading boids (boids-angle-bug.txt). The heading of a velocity, atan2(y,
// x) (0 when still).
float boids_heading_angle(const float vel[3]);
// One rule's fixed turn toward `target` (a direction): +turn, -turn by the
// sign of the wrapped difference in (-pi, pi], 0 for a zero target or none.
float boids_heading_turn(float heading, const float target[3], float turn);
// The enabled rules' turns added: toward the mean unit heading `align`,
// away from the mean unit heading `separate`, toward `to_dense`.
float boids_heading_rules(float heading, uint32_t behaviors, const float align[3], const float separate[3],
                          const float to_dense[3], float turn);
// The heading turned by `turn`, at a constant `speed`.
void boids_heading_velocity(const float vel[3], float turn, float speed, float dest[3]);
// The most populated area (heading cohesion): the cell of the grid (cell
// starts `start`) whose 3x3(x3) block holds the most agents, ties: lowest
// index; *count its agents. GLSL twin: shaders/survey.comp.
uint32_t boids_survey(const boids_world_params *w, const uint32_t *start, uint32_t *count);
// The same among the cells of the box [lo, hi) per axis only (cell
// coordinates; the blocks still reach one cell beyond it): a distributed
// run's rank surveys its own cells over its own + halo agents, and the
// ranks' answers reduce to boids_survey's (most agents, then lowest index).
uint32_t boids_survey_box(const boids_world_params *w, const uint32_t *start, const uint32_t lo[3],
                          const uint32_t hi[3], uint32_t *count);
// sin(2 pi t) for t in [0, 1], by the same float operations in C and GLSL
// (a few ULP of sinf; the Circles force's sine). src/core/rules.c.
float boids_sin_turn(float t);
// Circles (FLAME GPU's benchmark; BOIDS_RULES_CIRCLES): a neighbour's term
// sin(-2 pi d / r) x off / d (0 < d < r), and the displacement repulse x
// sum / count (0 without neighbours; repulse 0: BOIDS_REPULSE_DEFAULT).
void boids_circles_term(const float off[3], float d, float r, float dest[3]);
void boids_circles_displacement(const float sum[3], uint32_t count, float repulse, float dest[3]);
// The centre of a grid cell (the survey's target).
void boids_survey_target(const boids_world_params *w, uint32_t cell, float dest[3]);

// ---- the collective-motion models (src/core/models.c; docs/MODELS.md) ----
// The noise draws of agent id at a step: three uniforms in [0, 1) from the
// streams BOIDS_RNG_NOISE, _NOISE2, _NOISE3.
void boids_noise_draws(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t step, float u[3]);
// A point uniform on the unit sphere from two uniforms.
void boids_noise_point(float u1, float u2, float dest[3]);
// The unit direction d turned by the angle (cos c, sin s) toward the tangent
// part of the point r (no turn when r is along d).
void boids_noise_turn(const float d[3], float c, float s, const float r[3], float dest[3]);
// Vicsek 1995: the new unit heading from the sum of the unit velocities
// within r (the agent's own included), with the noise eta and draws u.
void boids_vicsek_heading(const float sum[3], const float vel[3], float eta, uint32_t dim, const float u[3],
                          float dest[3]);
// Couzin 2002: the desired unit direction from the sums of the zones of
// repulsion (unit offsets), orientation (unit velocities) and attraction
// (unit offsets), repulsion first; the heading kept without neighbours.
void boids_couzin_desired(const float rep[3], uint32_t rep_n, const float ori[3], uint32_t ori_n, const float att[3],
                          uint32_t att_n, const float vel[3], float dest[3]);
// Couzin 2002: the desired direction turned by the wrapped Gaussian (sigma,
// draws u), then the heading turned toward it by at most max_angle.
void boids_couzin_heading(const float desired[3], const float vel[3], float sigma, float max_angle, uint32_t dim,
                          const float u[3], float dest[3]);

// ---- locomotion ----
// Turn-rate limit: new velocity rotated back toward the old heading so the
// heading turns by at most max_angle, along the shortest signed angle.
void boids_turn_limit(const float old_vel[3], float max_angle, uint32_t dim, float vel[3]);
// Boundary mode after the move: wrap, bounce (walls too, as a hard stop), or
// margin (the sketch's borders(): beyond world.margin, to the opposite margin).
void boids_boundary(const boids_world_params *w, float pos[3], float vel[3]);
// Semi-implicit Euler: v += a dt; limit maxspeed; turn limit; p += v dt; boundary.
void boids_integrate(const boids_world_params *w, const boids_group_params *g, const float pos[3], const float vel[3],
                     const float acc[3], float pos_out[3], float vel_out[3]);

// ---- procedural bodies (procedural-animation-chains.txt; src/core/bodies.c) ----
// A chain is `n` joints (xyz, w = facing angle in 2D) joined by n - 1
// segments; offsets between joints are taken with boids_world_delta when w is
// given (NULL: the plain plane), so a body crossing a torus seam stays whole
// (its joints may lie outside the world beside the head).
// distanceConstrain: target = anchor + setMag(target - anchor, distance);
// min_only: only when farther than `distance`.
void boids_distance_constraint(const boids_world_params *w, const float anchor[3], float target[3], float distance,
                               bool min_only);
// Chain.resolve(from): from `from` toward joint 0, then from `from` toward
// the last joint, each joint constrained to the one before it on that walk.
void boids_chain_resolve(const boids_world_params *w, float (*joints)[4], const float *lengths, uint32_t n,
                         uint32_t from, bool min_only);
// modAngle: into [0, 2pi).
float boids_mod_angle(float a);
// The notebook's angleDiff(a1, a2) = pi - modAngle(a1 - a2 + pi), in (-pi, pi].
float boids_angle_diff_mod(float a1, float a2);
// constrainAngle: `angle` if within `allowed` of `reference` (wrapped
// difference), else reference -/+ allowed; the result in [0, 2pi).
float boids_constrain_angle(float angle, float reference, float allowed);
// Snake.resolve's angles: w of joint 0 = facing, of joint i = heading of
// joint i-1 minus joint i.
void boids_snake_angles(const boids_world_params *w, float (*joints)[4], uint32_t n, float facing);
// Snake2.resolve (2D): joint 0's angle = facing; each next joint's angle is
// its heading toward the previous joint, constrained to within angle_limit
// of the previous joint's angle, and the joint is put `length` behind the
// previous joint along it (min_only: at most `length`).
// 3D: the same on directions: each segment's direction is kept within
// angle_limit of the previous one's (the head's: `facing_dir`, unit or 0).
void boids_snake_resolve(const boids_world_params *w, float (*joints)[4], const float *lengths, uint32_t n,
                         float facing, const float facing_dir[3], float angle_limit, bool min_only, uint32_t dim);
// getShape: 2n + 6 points of the closed outline, in the notebook's order:
// tail (pi, 5pi/6), the left sides (+pi/2) from the tail to the head, the
// head (pi/6, 0, -pi/6), the right sides (-pi/2) from the head to the tail,
// tail (-5pi/6). Point of joint i at angle a: joint + (cos, sin)(w_i + a) * width_i / 2.
uint32_t boids_snake_outline(const float (*joints)[4], const float *widths, uint32_t n, float (*out)[2]);
// A body laid straight behind an agent at `head` moving along `vel` (+x if still).
void boids_body_straight(const boids_world_params *w, const boids_body_params *b, const float head[3],
                         const float vel[3], float (*joints)[4]);
// The bodies stage for one agent: joint 0 = head (w = heading of vel in 2D),
// then CHAIN: resolve(0) and the angles; SNAKE / FISH: boids_snake_resolve.
void boids_body_follow(const boids_world_params *w, const boids_body_params *b, const float head[3], const float vel[3],
                       float (*joints)[4]);

#ifdef __cplusplus
}
#endif

#endif
