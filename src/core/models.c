// src/core/models.c: the collective-motion models researchers sweep, as
// rule sets of a group (boids_group_params.rules; docs/MODELS.md gives the
// equations and their sources). GLSL twins: shaders/models.glsl
// noise_draws(), noise_point(), noise_turn(), vicsek_heading(),
// couzin_desired(), couzin_heading(); the gathers' terms are in
// shaders/steer.comp gather_pair() (C: src/core/steer_gather.c gather_pair()).
//
// Vicsek et al. 1995 (Phys. Rev. Lett. 75, 1226), eq. (1)-(2): constant
// speed v0; theta_i(t + 1) = <theta(t)>_r + dtheta, where <theta>_r is the
// direction of the sum of the unit velocities of the agents within r, the
// agent itself included, and dtheta is uniform in [-eta/2, eta/2]. In 3D
// the new heading is uniform on the cap of half-angle eta/2 around that
// direction (eta = 2 pi: uniform on the sphere, as in 2D).
//
// Couzin et al. 2002 (J. Theor. Biol. 218, 1), "Collective memory and
// spatial sorting in animal groups": repulsion d_r = -sum r_ij / |r_ij| over
// the zone of repulsion takes precedence; otherwise d_o = sum v_j / |v_j|
// over the zone of orientation and d_a = sum r_ij / |r_ij| over the zone of
// attraction, d = d_o, d_a, or (d_o + d_a) / 2 when both have neighbours
// (each normalised first); no neighbour (or d = 0): the current heading.
// The desired direction is rotated by a spherically wrapped Gaussian of
// standard deviation sigma, then the heading turns toward it by at most
// theta tau (the turn-rate limit, src/core/integrate.c boids_turn_limit).
//
// The noise draws come from the counter-based RNG keyed by (seed, agent id,
// step, BOIDS_RNG_NOISE*), so a run is reproducible and the GPU draws the
// same numbers.
#include <math.h>

#include <cglm/vec3.h>

#include "boids/behaviors.h"

// The three uniform draws in [0, 1) of agent `id` at step `step`.
void boids_noise_draws(uint32_t seed_lo, uint32_t seed_hi, uint32_t id, uint32_t step, float u[3]) {
    u[0] = boids_rng_unit(boids_rng_u32(seed_lo, seed_hi, id, step, BOIDS_RNG_NOISE));
    u[1] = boids_rng_unit(boids_rng_u32(seed_lo, seed_hi, id, step, BOIDS_RNG_NOISE2));
    u[2] = boids_rng_unit(boids_rng_u32(seed_lo, seed_hi, id, step, BOIDS_RNG_NOISE3));
}

// A point uniform on the unit sphere from two draws (Archimedes: z uniform
// in [-1, 1), the azimuth uniform).
void boids_noise_point(float u1, float u2, float dest[3]) {
    float z = 2.0f * u1 - 1.0f;
    float rho = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    float phi = BOIDS_TWO_PI * u2;
    dest[0] = rho * boids_cosf(phi);
    dest[1] = rho * boids_sinf(phi);
    dest[2] = z;
}

// The unit direction d turned by the angle whose cosine and sine are c, s
// toward the tangent part of the point r (r - d (d . r), normalised): the
// point is uniform on the sphere, so the direction of the turn is uniform
// around d, and it depends continuously on d (no fixed basis, whose choice
// would jump somewhere: a hairy ball). r along d (measure zero): no turn.
void boids_noise_turn(const float d[3], float c, float s, const float r[3], float dest[3]) {
    float along = glm_vec3_dot((float *)d, (float *)r), t[3];
    for (int a = 0; a < 3; a++)
        t[a] = r[a] - d[a] * along;
    if (glm_vec3_norm2(t) == 0.0f) {
        glm_vec3_copy((float *)d, dest);
        return;
    }
    glm_vec3_normalize(t);
    for (int a = 0; a < 3; a++)
        dest[a] = d[a] * c + t[a] * s;
}

// The unit direction of sum, or else of the current velocity, or else
// (a still agent with nothing to follow) east.
static void direction_or_heading(const float sum[3], const float vel[3], float dest[3]) {
    boids_set_mag(sum, 1.0f, dest);
    if (glm_vec3_norm2(dest) == 0.0f)
        boids_set_mag(vel, 1.0f, dest);
    if (glm_vec3_norm2(dest) == 0.0f) {
        dest[0] = 1.0f;
        dest[1] = dest[2] = 0.0f;
    }
}

// Vicsek: the new unit heading from `sum`, the unit velocities of the
// neighbours within r and of the agent itself, its velocity vel (for a zero
// sum: keep the heading), eta and the draws u. 2D: the angle of the sum plus
// eta (u0 - 1/2). 3D: cos of the angle to the sum uniform in [cos(eta/2),
// 1] (a uniform cap), the direction of the turn from the point (u1, u2).
void boids_vicsek_heading(const float sum[3], const float vel[3], float eta, uint32_t dim, const float u[3],
                          float dest[3]) {
    float d[3];
    direction_or_heading(sum, vel, d);
    if (dim == 2) {
        float h = boids_angle_wrap(boids_atan2f(d[1], d[0]) + eta * (u[0] - 0.5f));
        dest[0] = boids_cosf(h);
        dest[1] = boids_sinf(h);
        dest[2] = 0.0f;
        return;
    }
    float c = 1.0f - u[0] * (1.0f - boids_cosf(0.5f * eta));
    float s = sqrtf(fmaxf(0.0f, 1.0f - c * c)), r[3];
    boids_noise_point(u[1], u[2], r);
    boids_noise_turn(d, c, s, r, dest);
}

// Couzin: the desired unit direction from the zones' sums (rep: the unit
// offsets to the rep_n neighbours in the zone of repulsion; ori: the unit
// velocities of the ori_n in the zone of orientation; att: the unit offsets
// to the att_n in the zone of attraction) and the velocity (the heading
// kept when no neighbour asks otherwise).
void boids_couzin_desired(const float rep[3], uint32_t rep_n, const float ori[3], uint32_t ori_n, const float att[3],
                          uint32_t att_n, const float vel[3], float dest[3]) {
    float d[3] = {0.0f, 0.0f, 0.0f};
    if (rep_n > 0) {
        for (int a = 0; a < 3; a++)
            d[a] = -rep[a];
    } else {
        float dor[3] = {0.0f, 0.0f, 0.0f}, da[3] = {0.0f, 0.0f, 0.0f};
        if (ori_n > 0)
            boids_set_mag(ori, 1.0f, dor);
        if (att_n > 0)
            boids_set_mag(att, 1.0f, da);
        float k = ori_n > 0 && att_n > 0 ? 0.5f : 1.0f;
        for (int a = 0; a < 3; a++)
            d[a] = (dor[a] + da[a]) * k;
    }
    direction_or_heading(d, vel, dest);
}

// Couzin: the new unit heading: the desired direction `desired` rotated by
// the noise (sigma; 2D: an angle sigma g, g = sqrt(-2 ln(1 - u0)) cos(2 pi
// u1), a standard Gaussian by Box-Muller; 3D: the angle sigma sqrt(-2 ln(1 -
// u0)), the length of a 2D Gaussian of deviation sigma, toward the point
// (u1, u2): the spherically wrapped Gaussian), then the heading turns from
// vel toward it by at most max_angle (radians per step; 0 or >= pi: no limit).
void boids_couzin_heading(const float desired[3], const float vel[3], float sigma, float max_angle, uint32_t dim,
                          const float u[3], float dest[3]) {
    float rho = sqrtf(-2.0f * boids_logf(1.0f - u[0])), d[3];
    if (dim == 2) {
        float h = boids_angle_wrap(boids_atan2f(desired[1], desired[0]) + sigma * (rho * boids_cosf(BOIDS_TWO_PI * u[1])));
        d[0] = boids_cosf(h);
        d[1] = boids_sinf(h);
        d[2] = 0.0f;
    } else {
        float a = sigma * rho, r[3];
        boids_noise_point(u[1], u[2], r);
        boids_noise_turn(desired, boids_cosf(a), boids_sinf(a), r, d);
    }
    boids_turn_limit(vel, max_angle, dim, d);
    boids_set_mag(d, 1.0f, dest);
}
