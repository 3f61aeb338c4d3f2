// src/core/rules.c: the two small seeds' own rule sets (boids_group_params
// .rules), beside the chapter's forces, and FLAME GPU's Circles model (a
// benchmark peer's workload). GLSL twins: shaders/models.glsl
// tutorial_alignment(), tutorial_cohesion(), tutorial_separation(),
// tutorial_velocity(), heading_angle(), heading_turn(), heading_rules(),
// heading_velocity(), survey_target(), circles_term(),
// circles_displacement(); shaders/survey.comp (boids_survey).
//
// Tutorial (seeds/flocking-tutorial.txt): each rule takes the neighbours
// within the neighbour radius (not the agent itself), accumulates, divides by
// the neighbour count and normalises; the zero vector without neighbours.
// The resultants are added to the velocity, which is then normalised and
// scaled to the agent's speed.
//
// Heading (seeds/boids-angle-bug.txt): a boid has a heading and a constant
// speed; each enabled rule turns the heading by a fixed small angle toward
// (alignment), away from (separation) the mean direction of the neighbours,
// or toward the most populated area of the world (cohesion), always by the
// sign of the wrapped difference in (-pi, pi] (the post's fix), directions
// averaged as unit vectors, never as raw angles.
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"
#include "grid_internal.h"

// ---- tutorial ----

// computeAlignment: the neighbours' velocities / count, normalised.
void boids_tutorial_alignment(const float mean_vel[3], uint32_t count, float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    boids_set_mag(mean_vel, 1.0f, dest);
}

// computeCohesion: their positions / count - the agent's position, normalised.
void boids_tutorial_cohesion(const float mean_offset[3], uint32_t count, float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    boids_set_mag(mean_offset, 1.0f, dest);
}

// computeSeparation: the distance vectors to them / count, negated, normalised.
void boids_tutorial_separation(const float mean_offset[3], uint32_t count, float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    float neg[3] = {-mean_offset[0], -mean_offset[1], -mean_offset[2]};
    boids_set_mag(neg, 1.0f, dest);
}

// velocity += resultants (acc, per time unit: times dt); normalised, times
// the speed. A sum of zero keeps the old direction.
void boids_tutorial_velocity(const float vel[3], const float acc[3], float dt, float speed, float dest[3]) {
    float v[3];
    for (int a = 0; a < 3; a++)
        v[a] = vel[a] + acc[a] * dt;
    if (glm_vec3_norm2(v) == 0.0f)
        glm_vec3_copy((float *)vel, v);
    boids_set_mag(v, speed, dest);
}

// ---- heading ----

// The heading of a velocity in (-pi, pi]: atan2(y, x), 0 (east) when still.
float boids_heading_angle(const float vel[3]) {
    if (vel[0] == 0.0f && vel[1] == 0.0f)
        return 0.0f;
    return boids_atan2f(vel[1], vel[0]);
}

// One rule's turn: +turn if `target` lies counter-clockwise of the heading
// (the wrapped difference > 0), -turn if clockwise, 0 when the target has no
// direction (zero) or is the heading itself. A target straight behind (a
// difference of exactly pi) turns +turn: pi is in (-pi, pi].
float boids_heading_turn(float heading, const float target[3], float turn) {
    if (target[0] == 0.0f && target[1] == 0.0f)
        return 0.0f;
    float diff = boids_angle_diff(boids_atan2f(target[1], target[0]), heading);
    return diff > 0.0f ? turn : (diff < 0.0f ? -turn : 0.0f);
}

// The step's turn: the sum of each enabled rule's, all against the heading
// at the start of the step: rule 1 (alignment) toward the mean direction of
// the neighbours within the radius; rule 2 (separation) away from that of
// those within the separation radius, i.e. toward its opposite; rule 3
// (cohesion) toward the most populated area (to_dense, an offset).
float boids_heading_rules(float heading, uint32_t behaviors, const float align[3], const float separate[3],
                          const float to_dense[3], float turn) {
    float t = 0.0f;
    if (behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT))
        t += boids_heading_turn(heading, align, turn);
    if (behaviors & BOIDS_BIT(BOIDS_BI_SEPARATION)) {
        float away[3] = {-separate[0], -separate[1], -separate[2]};
        t += boids_heading_turn(heading, away, turn);
    }
    if (behaviors & BOIDS_BIT(BOIDS_BI_COHESION))
        t += boids_heading_turn(heading, to_dense, turn);
    return t;
}

// The new velocity: the heading turned by `turn`, at `speed`.
void boids_heading_velocity(const float vel[3], float turn, float speed, float dest[3]) {
    float h = boids_angle_wrap(boids_heading_angle(vel) + turn);
    dest[0] = speed * boids_cosf(h);
    dest[1] = speed * boids_sinf(h);
    dest[2] = 0.0f;
}

// ---- the global survey of the heading rules' cohesion ----

// The densest block of the grid: the cell whose block (the cell and its
// neighbours, the steer stage's 3x3(x3), wrapped on a torus and cut at
// walls, each cell once) holds the most agents; ties go to the lowest cell
// index. *count: the agents in that block. Any order of the cells gives the
// same answer (a total order), so a reduction on the GPU agrees.
uint32_t boids_survey(const boids_world_params *w, const uint32_t *start, uint32_t *count) {
    const uint32_t lo[3] = {0, 0, 0}, hi[3] = {w->cells[0], w->cells[1], w->cells[2]};
    return boids_survey_box(w, start, lo, hi, count);
}

// The same over the cells of a box only, in cell index order (z, then y,
// then x outermost to innermost), so the first best is the lowest index.
uint32_t boids_survey_box(const boids_world_params *w, const uint32_t *start, const uint32_t lo[3],
                          const uint32_t hi[3], uint32_t *count) {
    uint32_t best = 0, best_n = 0;
    bool found = false;
    for (uint32_t z = lo[2]; z < hi[2]; z++)
        for (uint32_t y = lo[1]; y < hi[1]; y++)
            for (uint32_t x = lo[0]; x < hi[0]; x++) {
                uint32_t c[3] = {x, y, z}, cell = (z * w->cells[1] + y) * w->cells[0] + x;
                uint32_t ranges[BOIDS_GRID_MAX_RANGES][2];
                uint32_t nr = boids_grid_ranges(w, start, c, ranges), n = 0;
                for (uint32_t r = 0; r < nr; r++)
                    n += ranges[r][1] - ranges[r][0];
                if (!found || n > best_n) {
                    best_n = n;
                    best = cell;
                    found = true;
                }
            }
    *count = best_n;
    return best;
}

// The centre of a cell of the grid.
void boids_survey_target(const boids_world_params *w, uint32_t cell, float dest[3]) {
    uint32_t c[3] = {cell % w->cells[0], (cell / w->cells[0]) % w->cells[1], cell / (w->cells[0] * w->cells[1])};
    for (int a = 0; a < 3; a++)
        dest[a] = w->min[a] + ((float)c[a] + 0.5f) * w->cell[a];
    if (w->dim == 2)
        dest[2] = w->min[2];
}

// ---- circles (FLAME GPU's benchmark model) ----

// sin(2 pi t) for t in [0, 1]: folded onto [0, 1/4] by exact steps (t - 1/2
// and 1/2 - t lose nothing there), then t P(t^2) (shared.h BOIDS_SIN_T*) by
// Horner. Within a few ULP of sinf, and the same float operations as the
// GLSL twin sin_turn(), so the same bits on every driver.
float boids_sin_turn(float t) {
    float flip = 1.0f;
    if (t >= 0.5f) {
        t = t - 0.5f;
        flip = -1.0f;
    }
    if (t > 0.25f)
        t = 0.5f - t;
    float s = t * t;
    float p = BOIDS_SIN_T13;
    p = p * s + BOIDS_SIN_T11;
    p = p * s + BOIDS_SIN_T9;
    p = p * s + BOIDS_SIN_T7;
    p = p * s + BOIDS_SIN_T5;
    p = p * s + BOIDS_SIN_T3;
    p = p * s + BOIDS_SIN_T1;
    return flip * (t * p);
}

// One neighbour at `off` (d = |off|, 0 < d < r): sin(-2 pi d / r) =
// -sin_turn(d / r) times the unit offset to it; each component in [-1, 1]
// (the fixed-point sum's unit range). Nearer than r / 2 the sine is
// negative: away from the neighbour; beyond, toward it.
void boids_circles_term(const float off[3], float d, float r, float dest[3]) {
    float k = -boids_sin_turn(d / r) / d;
    for (int a = 0; a < 3; a++)
        dest[a] = off[a] * k;
}

// The step's displacement: repulse x the mean of the terms (sum / count);
// the zero vector without neighbours. repulse 0: BOIDS_REPULSE_DEFAULT.
void boids_circles_displacement(const float sum[3], uint32_t count, float repulse, float dest[3]) {
    glm_vec3_zero(dest);
    if (count == 0)
        return;
    float k = (repulse > 0.0f ? repulse : BOIDS_REPULSE_DEFAULT) / (float)count;
    for (int a = 0; a < 3; a++)
        dest[a] = sum[a] * k;
}
