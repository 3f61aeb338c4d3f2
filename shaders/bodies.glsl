// shaders/bodies.glsl: the GLSL twins of the procedural bodies' per-value
// parts (procedural-animation-chains.txt; C twins: src/core/bodies.c): a
// distance constraint, angles modulo 2 pi, an angle or a direction kept
// within a limit of another. The chain-level functions (chain_resolve,
// snake_angles, snake_resolve, body_straight, body_follow) walk the joints
// buffer and live in bodies.comp, their only user. The conventions and the
// parity rules of behaviors.glsl's opening comment hold here too.
// Assembled for bodies.comp alone, after the prelude (behaviors.glsl's
// helpers among it), before the stage (src/gl/program_source.c).

// C twin: src/core/bodies.c boids_distance_constraint() (target in place
// there; returned here; C distance -> dist). distanceConstrain: target =
// anchor + setMag(target - anchor, dist); min_only: only when farther.
vec3 distance_constraint(vec3 anchor, vec3 target, float dist, bool min_only) {
    vec3 vec = world_delta(anchor, target);
    if (min_only && norm2(vec) < dist * dist) {
        // Left where it is; on a torus moved to its image beside the anchor.
        if (WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP) {
            precise vec3 t = anchor + vec;
            return t;
        }
        return target;
    }
    vec = set_mag(vec, dist);
    precise vec3 t = anchor + vec;
    return t;
}

// C twin: src/core/bodies.c boids_mod_angle(). modAngle into [0, 2pi): the
// notebook's loops (exact subtractions), after one reduction for angles far
// out (a - 2pi trunc(a / 2pi), as the C).
float mod_angle(float a) {
    if (!(abs(a) < 64.0 * BOIDS_TWO_PI)) {
        precise float r = a - BOIDS_TWO_PI * trunc(fdiv(a, BOIDS_TWO_PI));
        a = r;
    }
    while (a >= BOIDS_TWO_PI)
        a -= BOIDS_TWO_PI;
    while (a < 0.0)
        a += BOIDS_TWO_PI;
    return a;
}

// C twin: src/core/bodies.c boids_angle_diff_mod(). angleDiff(a1, a2) =
// pi - modAngle(a1 - a2 + pi), in (-pi, pi].
float angle_diff_mod(float a1, float a2) {
    precise float x = a1 - a2 + BOIDS_PI;
    return BOIDS_PI - mod_angle(x);
}

// C twin: src/core/bodies.c boids_constrain_angle(). constrainAngle: the
// angle if within `allowed` of the reference, else reference -/+ allowed.
float constrain_angle(float angle, float reference, float allowed) {
    float diff = angle_diff_mod(angle, reference);
    if (abs(diff) <= allowed)
        return mod_angle(angle);
    if (diff > allowed)
        return mod_angle(reference - allowed);
    return mod_angle(reference + allowed);
}

// C twin: src/core/bodies.c constrain_direction() (static; in place there).
// Unit u kept within the cone of half-angle acos(cos_lim) around unit ref.
vec3 constrain_direction(vec3 u, vec3 ref, float cos_lim, float sin_lim) {
    float c = dot3(u, ref);
    if (c >= cos_lim)
        return u;
    precise vec3 perp = u - ref * c;
    // Once more: for u nearly opposite ref the first difference cancels.
    float c2 = dot3(perp, ref);
    precise vec3 perp2 = perp - ref * c2;
    if (norm2(perp2) == 0.0) {
        // Straight back: bend in the plane with z (or y), as turn_limit.
        vec3 up = abs(ref.z) > 0.9 ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0);
        perp2 = cross3(up, ref);
    }
    vec3 n = normalize3(perp2);
    precise vec3 r = ref * cos_lim + n * sin_lim;
    return r;
}
