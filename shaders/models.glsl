// shaders/models.glsl: the GLSL twins of what moves an agent once its
// steering is known, and of the rule sets that take the behaviours' place:
// the seeds' own rule sets (tutorial, heading, circles, survey; C twins:
// src/core/rules.c), the locomotion (turn_limit, boundary; C twins:
// src/core/integrate.c), the collective-motion models (vicsek, couzin; C
// twins: src/core/models.c) and integrate (src/core/integrate.c). The
// conventions and the parity rules of behaviors.glsl's opening comment hold
// here too. Assembled after behaviors.glsl, whose helpers it calls, before
// grid.glsl and the stage (src/gl/program_source.c).

// ---- the seeds' own rule sets (boids_group_params.rules) ------------------------
// C twins: src/core/rules.c (the sources of each rule are cited there).

// C twin: src/core/rules.c boids_tutorial_alignment().
// computeAlignment: the neighbours' velocities / count, normalised.
vec3 tutorial_alignment(vec3 mean_vel, uint count) {
    if (count == 0u)
        return vec3(0.0);
    return set_mag(mean_vel, 1.0);
}

// C twin: src/core/rules.c boids_tutorial_cohesion().
// computeCohesion: their positions / count - the agent's position, normalised.
vec3 tutorial_cohesion(vec3 mean_offset, uint count) {
    if (count == 0u)
        return vec3(0.0);
    return set_mag(mean_offset, 1.0);
}

// C twin: src/core/rules.c boids_tutorial_separation().
// computeSeparation: the distance vectors to them / count, negated, normalised.
vec3 tutorial_separation(vec3 mean_offset, uint count) {
    if (count == 0u)
        return vec3(0.0);
    vec3 neg = vec3(-mean_offset.x, -mean_offset.y, -mean_offset.z);
    return set_mag(neg, 1.0);
}

// C twin: src/core/rules.c boids_tutorial_velocity().
// velocity += resultants (acc dt); normalised, times the speed. A sum of
// zero keeps the old direction.
vec3 tutorial_velocity(vec3 vel, vec3 acc, float dt, float speed) {
    precise vec3 v = vel + acc * dt;
    if (norm2(v) == 0.0)
        v = vel;
    return set_mag(v, speed);
}

// C twin: src/core/rules.c boids_heading_angle().
// The heading of a velocity: atan2(y, x), 0 (east) when still.
float heading_angle(vec3 vel) {
    if (vel.x == 0.0 && vel.y == 0.0)
        return 0.0;
    return atan2f(vel.y, vel.x);
}

// C twin: src/core/rules.c boids_heading_turn().
// One rule's turn: +turn / -turn by the sign of the wrapped difference in
// (-pi, pi] (boids-angle-bug.txt), 0 for a zero target or the heading itself.
float heading_turn(float heading, vec3 target, float turn) {
    if (target.x == 0.0 && target.y == 0.0)
        return 0.0;
    float diff = angle_diff(atan2f(target.y, target.x), heading);
    return diff > 0.0 ? turn : (diff < 0.0 ? -turn : 0.0);
}

// C twin: src/core/rules.c boids_heading_rules().
// The enabled rules' turns added, all against the step's first heading:
// toward `align`, away from `separate` (toward its opposite), toward `to_dense`.
float heading_rules(float heading, uint behaviors, vec3 align, vec3 separate, vec3 to_dense, float turn) {
    precise float t = 0.0;
    if ((behaviors & BOIDS_BIT(BOIDS_BI_ALIGNMENT)) != 0u)
        t += heading_turn(heading, align, turn);
    if ((behaviors & BOIDS_BIT(BOIDS_BI_SEPARATION)) != 0u) {
        vec3 away = vec3(-separate.x, -separate.y, -separate.z);
        t += heading_turn(heading, away, turn);
    }
    if ((behaviors & BOIDS_BIT(BOIDS_BI_COHESION)) != 0u)
        t += heading_turn(heading, to_dense, turn);
    return t;
}

// C twin: src/core/rules.c boids_heading_velocity().
// The heading turned by `turn`, at a constant `speed`.
vec3 heading_velocity(vec3 vel, float turn, float speed) {
    precise float a = heading_angle(vel) + turn;
    float h = angle_wrap(a);
    return vec3(speed * cosf(h), speed * sinf(h), 0.0);
}

// C twin: src/core/rules.c boids_sin_turn().
// sin(2 pi t) for t in [0, 1], folded onto [0, 1/4] exactly, then t P(t^2)
// by Horner (shared.h BOIDS_SIN_T*): the C's bits, not the driver's sin().
float sin_turn(float t) {
    float flip = 1.0;
    if (t >= 0.5) {
        precise float h = t - 0.5;
        t = h;
        flip = -1.0;
    }
    if (t > 0.25) {
        precise float h = 0.5 - t;
        t = h;
    }
    precise float s = t * t;
    precise float p = BOIDS_SIN_T13;
    p = p * s + BOIDS_SIN_T11;
    p = p * s + BOIDS_SIN_T9;
    p = p * s + BOIDS_SIN_T7;
    p = p * s + BOIDS_SIN_T5;
    p = p * s + BOIDS_SIN_T3;
    p = p * s + BOIDS_SIN_T1;
    precise float r = t * p;
    return flip * r;
}

// C twin: src/core/rules.c boids_circles_term().
// Circles (FLAME GPU's benchmark): one neighbour at off (d = |off|, 0 < d <
// r): sin(-2 pi d / r) = -sin_turn(d / r) times the unit offset, each
// component in [-1, 1].
vec3 circles_term(vec3 off, float d, float r) {
    float k = fdiv(-sin_turn(fdiv(d, r)), d);
    return vec3(off.x * k, off.y * k, off.z * k);
}

// C twin: src/core/rules.c boids_circles_displacement().
// repulse x sum / count; zero without neighbours (repulse 0: the default).
vec3 circles_displacement(vec3 sum, uint count, float repulse) {
    if (count == 0u)
        return vec3(0.0);
    float k = fdiv(repulse > 0.0 ? repulse : BOIDS_REPULSE_DEFAULT, float(count));
    return vec3(sum.x * k, sum.y * k, sum.z * k);
}

// C twin: src/core/rules.c boids_survey_target().
// The centre of a grid cell (the heading rules' most populated area).
vec3 survey_target(uint cell) {
    uvec3 c = uvec3(cell % world.cells.x, (cell / world.cells.x) % world.cells.y, cell / (world.cells.x * world.cells.y));
    vec3 dest;
    for (int a = 0; a < 3; a++) {
        precise float d = world.min[a] + (float(c[a]) + 0.5) * world.cell[a];
        dest[a] = d;
    }
    if (WORLD_DIM == 2u)
        dest.z = world.min.z;
    return dest;
}

// ---- locomotion --------------------------------------------------------------------

// C twin: src/core/integrate.c boids_turn_limit() (vel in place there;
// returned here).
// Rotate the new velocity back toward the old heading so that the heading
// turns by at most max_angle. 2D: angles, differenced by angle_diff (never
// raw angles, boids-angle-bug.txt). 3D: rotation in the plane of the two
// headings.
vec3 turn_limit(vec3 old_vel, float max_angle, uint dim, vec3 vel) {
    float speed = norm3(vel);
    float old_speed = norm3(old_vel);
    // No limit, or one of pi or more (no turn is longer than pi).
    if (!(max_angle > 0.0) || max_angle >= BOIDS_PI || speed == 0.0 || old_speed == 0.0)
        return vel;
    if (dim == 2u) {
        float from = atan2f(old_vel.y, old_vel.x);
        float to = atan2f(vel.y, vel.x);
        float diff = angle_diff(to, from);
        if (abs(diff) <= max_angle)
            return vel;
        precise float a = from + (diff > 0.0 ? max_angle : -max_angle);
        vel.x = speed * cosf(a);
        vel.y = speed * sinf(a);
        return vel;
    }
    vec3 u = old_vel * fdiv(1.0, old_speed);
    vec3 v = vel * fdiv(1.0, speed);
    float c = dot3(u, v);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    if (c >= cosf(max_angle)) // the same test as acos(c) <= max_angle for max_angle in (0, pi]
        return vel;
    // Unit vector in the turning plane, perpendicular to u.
    precise vec3 w = v - u * c;
    if (norm2(w) == 0.0) {
        // Reversal: any perpendicular plane is shortest; use the one with z (or y).
        vec3 up = vec3(0.0, 0.0, 1.0);
        if (abs(u.z) > 0.9) {
            up.y = 1.0;
            up.z = 0.0;
        }
        w = cross3(up, u);
    }
    w = normalize3(w);
    float cm = cosf(max_angle), sm = sinf(max_angle);
    precise vec3 r = speed * (u * cm + w * sm);
    return r;
}

// C twin: src/core/integrate.c bounce_axis().
// Reflect a coordinate that left [lo, hi] back inside and flip the velocity
// component; a coordinate far outside is clamped.
void bounce_axis(float lo, float hi, inout float p, inout float v) {
    if (p < lo) {
        precise float r = lo + (lo - p);
        p = r;
        v = abs(v);
    } else if (p > hi) {
        precise float r = hi - (p - hi);
        p = r;
        v = -abs(v);
    }
    if (p < lo)
        p = lo;
    if (p > hi)
        p = hi;
}

// C twin: src/core/integrate.c margin_axis().
// The sketch's borders() on one axis (Nature of Code 5, Example 5.11): more
// than r beyond an edge, the boid reappears r beyond the opposite edge; the
// overshoot is lost and the velocity kept.
void margin_axis(float lo, float hi, float r, inout float p) {
    precise float below = lo - r, above = hi + r;
    if (p < below)
        p = above;
    else if (p > above)
        p = below;
}

// C twin: src/core/integrate.c boids_boundary().
// Boundary mode after the move. walls: the stay-within-walls force does the
// steering (steer stage); leaving the box anyway bounces, as a hard stop.
// margin: the sketch's borders() with r = world.margin (0: the sketch's 3).
void boundary(inout vec3 pos, inout vec3 vel) {
    if (WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP) {
        pos = world_wrap(pos);
    } else if (WORLD_BOUNDARY == BOIDS_BOUNDARY_MARGIN) {
        float r = world.margin > 0.0 ? world.margin : BOIDS_MARGIN_DEFAULT;
        for (int a = 0; a < 3; a++)
            if (world.size[a] > 0.0) {
                precise float hi = world.min[a] + world.size[a];
                margin_axis(world.min[a], hi, r, pos[a]);
            }
    } else {
        for (int a = 0; a < 3; a++)
            if (world.size[a] > 0.0) {
                precise float hi = world.min[a] + world.size[a];
                bounce_axis(world.min[a], hi, pos[a], vel[a]);
            }
    }
    if (WORLD_DIM == 2u) {
        pos.z = world.min.z;
        vel.z = 0.0;
    }
}

// ---- the collective-motion models (boids_group_params.rules vicsek, couzin) ----
// C twins: src/core/models.c (the equations and their sources are cited
// there and in docs/MODELS.md).

// C twin: src/core/models.c boids_noise_draws() (C: step; here counter).
// The three uniform draws in [0, 1) of agent id at a step.
vec3 noise_draws(uint id, uint counter) {
    return vec3(rng_unit(rng_u32(world.seed_lo, world.seed_hi, id, counter, BOIDS_RNG_NOISE)),
                rng_unit(rng_u32(world.seed_lo, world.seed_hi, id, counter, BOIDS_RNG_NOISE2)),
                rng_unit(rng_u32(world.seed_lo, world.seed_hi, id, counter, BOIDS_RNG_NOISE3)));
}

// C twin: src/core/models.c boids_noise_point().
// A point uniform on the unit sphere from two draws.
vec3 noise_point(float u1, float u2) {
    precise float z = 2.0 * u1 - 1.0;
    precise float q = 1.0 - z * z;
    float rho = sqrt(max(0.0, q));
    float phi = BOIDS_TWO_PI * u2;
    return vec3(rho * cosf(phi), rho * sinf(phi), z);
}

// C twin: src/core/models.c boids_noise_turn().
// The unit direction d turned by the angle (cos c, sin s) toward the tangent
// part of the point r; r along d: no turn.
vec3 noise_turn(vec3 d, float c, float s, vec3 r) {
    float along = dot3(d, r);
    precise vec3 t = r - d * along;
    if (norm2(t) == 0.0)
        return d;
    t = normalize3(t);
    precise vec3 o = d * c + t * s;
    return o;
}

// C twin: src/core/models.c direction_or_heading() (static).
// The unit direction of sum, else of vel, else east.
vec3 direction_or_heading(vec3 sum, vec3 vel) {
    vec3 d = set_mag(sum, 1.0);
    if (norm2(d) == 0.0)
        d = set_mag(vel, 1.0);
    if (norm2(d) == 0.0)
        d = vec3(1.0, 0.0, 0.0);
    return d;
}

// C twin: src/core/models.c boids_vicsek_heading().
// Vicsek 1995: the new unit heading from the sum of the unit velocities
// within r (the agent's own included), the noise eta and the draws u.
vec3 vicsek_heading(vec3 sum, vec3 vel, float eta, uint dim, vec3 u) {
    vec3 d = direction_or_heading(sum, vel);
    if (dim == 2u) {
        precise float h0 = atan2f(d.y, d.x) + eta * (u.x - 0.5);
        float h = angle_wrap(h0);
        return vec3(cosf(h), sinf(h), 0.0);
    }
    precise float c = 1.0 - u.x * (1.0 - cosf(0.5 * eta));
    precise float q = 1.0 - c * c;
    float s = sqrt(max(0.0, q));
    return noise_turn(d, c, s, noise_point(u.y, u.z));
}

// C twin: src/core/models.c boids_couzin_desired().
// Couzin 2002: the desired unit direction from the zones' sums, repulsion
// first; the heading kept without neighbours.
vec3 couzin_desired(vec3 rep, uint rep_n, vec3 ori, uint ori_n, vec3 att, uint att_n, vec3 vel) {
    vec3 d;
    if (rep_n > 0u) {
        d = -rep;
    } else {
        vec3 dor = ori_n > 0u ? set_mag(ori, 1.0) : vec3(0.0);
        vec3 da = att_n > 0u ? set_mag(att, 1.0) : vec3(0.0);
        float k = ori_n > 0u && att_n > 0u ? 0.5 : 1.0;
        precise vec3 sum = dor + da;
        d = sum * k;
    }
    return direction_or_heading(d, vel);
}

// C twin: src/core/models.c boids_couzin_heading().
// Couzin 2002: the desired direction turned by the spherically wrapped
// Gaussian (sigma, draws u), then the heading turned toward it by at most
// max_angle.
vec3 couzin_heading(vec3 desired, vec3 vel, float sigma, float max_angle, uint dim, vec3 u) {
    precise float lg = -2.0 * logf(1.0 - u.x);
    float rho = sqrt(lg);
    vec3 d;
    if (dim == 2u) {
        precise float h0 = atan2f(desired.y, desired.x) + sigma * (rho * cosf(BOIDS_TWO_PI * u.y));
        float h = angle_wrap(h0);
        d = vec3(cosf(h), sinf(h), 0.0);
    } else {
        float a = sigma * rho;
        d = noise_turn(desired, cosf(a), sinf(a), noise_point(u.y, u.z));
    }
    d = turn_limit(vel, max_angle, dim, d);
    return set_mag(d, 1.0);
}

// C twin: src/core/integrate.c boids_integrate().
// Nature of Code 5, "Vehicles and Steering", semi-implicit Euler with fixed
// dt: v += a dt; v.limit(maxspeed); raised to min_speed (0: not); turn
// limit; p += v dt; boundary. With
// dt = 1 this is the chapter's update() exactly.
// The seeds' rule sets: tutorial: v = (v + a dt) normalised x maxspeed, then
// the turn limit; heading: acc.x is the step's turn, at the speed maxspeed;
// vicsek and couzin: acc is the new unit heading, v = maxspeed acc.
void integrate(boids_group_params g, vec3 pos, vec3 vel, vec3 acc, out vec3 pos_out, out vec3 vel_out) {
    vec3 v;
    if (g.rules == BOIDS_RULES_HEADING) {
        v = heading_velocity(vel, acc.x, g.maxspeed);
    } else if (g.rules == BOIDS_RULES_VICSEK || g.rules == BOIDS_RULES_COUZIN) {
        v = acc * g.maxspeed; // the new unit heading (models above), at v0
    } else if (g.rules == BOIDS_RULES_CIRCLES) { // the displacement is the velocity (at most maxspeed)
        v = limit(acc, g.maxspeed);
    } else if (g.rules == BOIDS_RULES_TUTORIAL) {
        v = tutorial_velocity(vel, acc, world.dt, g.maxspeed);
        v = turn_limit(vel, g.max_turn * world.dt, WORLD_DIM, v);
    } else {
        precise vec3 vs = vel + acc * world.dt;
        v = limit(vs, g.maxspeed);
        v = raise(v, g.min_speed);
        v = turn_limit(vel, g.max_turn * world.dt, WORLD_DIM, v);
    }
    precise vec3 p = pos + v * world.dt;
    boundary(p, v);
    pos_out = p;
    vel_out = v;
}
