// shaders/behaviors.glsl: the GLSL twins of include/boids/behaviors.h:
// every steering behaviour as a pure function returning a force (Reynolds
// 1999; The Nature of Code ch. 5). Same name as the C function without the
// boids_ prefix, same argument order, the same operations in the same
// order, so the C and the GLSL of a behaviour can be read side by side.
// Each function's first comment names its C twin. Also the helpers under
// them: cglm's vector arithmetic, the geometry of the world, the RNG, the
// per-agent ranges and the fixed point. Assembled after shared.h,
// common.glsl, rounding.glsl and trig.glsl, before models.glsl (the rule
// sets, the models, integrate), grid.glsl and the stage; bodies.glsl (the
// procedural bodies) follows them for bodies.comp (src/gl/program_source.c).
//
// Conventions (of models.glsl and bodies.glsl too):
//   - vectors are vec3 (the xyz lanes of a state vec4);
//   - the C `dest` is the return value; where the C function returns a value
//     of its own (walls: bool), `dest` stays an `out vec3` parameter, last;
//   - a C array updated in place is returned when it is the only output
//     (limit, world_wrap, turn_limit) and is `inout` otherwise (wander's
//     angles, boundary's pos and vel);
//   - C arguments `const boids_world_params *w`, `const boids_scene *scene`
//     and `const boids_flowfield *f` are dropped: GLSL reads the uniform
//     blocks `world` and `scene` and the buffer flow_field[] (common.glsl);
//     `const boids_group_params *g` is passed by value;
//   - parameter names that are GLSL built-ins or reserved words are renamed
//     (C max -> max_len, step -> counter, distance -> wander_distance or
//     queue_distance, dot -> along, half -> half_size), with the C name
//     noted (tests/shader_lint.py finds any left).
//
// Parity with the C reference (built with -ffp-contract=off):
//   - every add or subtract is `precise` wherever an operand may be a
//     product (also one computed in a caller, after inlining), so no driver
//     fuses it into a multiply-add;
//   - dot products, norms, distances, cross products and normalisation are
//     spelled out in cglm's operand order (dot3, norm2, norm3, distance3,
//     cross3, normalize3) instead of dot(), length(), distance(), cross(),
//     normalize(): those builtins may be evaluated in another order, fused,
//     or through inversesqrt, and the neighbour tests compare their results;
//   - builtins used as is, exact in GLSL: floor, trunc, abs, isnan, isinf,
//     max (finite operands, as fmaxf), int/uint/float conversions; builtins
//     whose precision the driver chooses (C: correctly rounded or libm): sqrt
//     and `/` (GLSL 4.50: 2.5 ULP), sin, cos, atan, acos (undefined in
//     desktop GLSL; Vulkan-class hardware: 2^-11 absolute / 4096 ULP). See
//     docs/ARCHITECTURE.md (GPU parity) for where that shows.

#define BOIDS_NONE 0xffffffffu                      // C UINT32_MAX

// ---- cglm's vector arithmetic, in its operand order ----------------------

// glm_vec3_dot: a0 b0 + a1 b1 + a2 b2, left to right.
float dot3(vec3 a, vec3 b) {
    precise float r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}

// glm_vec3_norm2.
float norm2(vec3 v) { return dot3(v, v); }

// glm_vec3_norm: sqrtf(norm2).
float norm3(vec3 v) { return sqrt(norm2(v)); }

// glm_vec3_distance: sqrtf((a0 - b0)^2 + (a1 - b1)^2 + (a2 - b2)^2).
float distance3(vec3 a, vec3 b) {
    precise vec3 d = a - b;
    precise float r = d.x * d.x + d.y * d.y + d.z * d.z;
    return sqrt(r);
}

// glm_vec3_cross: (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0).
vec3 cross3(vec3 a, vec3 b) {
    precise vec3 c = vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
    return c;
}

// glm_vec3_normalize: v * (1 / norm); the zero vector stays zero.
vec3 normalize3(vec3 v) {
    float n = norm3(v);
    if (n == 0.0)
        return vec3(0.0);
    return v * fdiv(1.0, n);
}

// ---- vector helpers (p5.Vector semantics) ---------------------------------

// C twin: src/core/vecmath.c boids_limit() (in place there; returned here).
// p5 v.limit(max): scale down to length max if longer. (A vector too long to
// square in float is first scaled by 2^-64.)
vec3 limit(vec3 v, float max_len) {
    float m2 = norm2(v);
    if (isinf(m2)) {
        v = v * 5.421010862e-20;
        m2 = norm2(v);
    }
    if (m2 > max_len * max_len)
        v = v * fdiv(max_len, sqrt(m2));
    return v;
}

// C twin: src/core/vecmath.c boids_raise() (in place there; returned here).
// v raised to length min_len when shorter but not zero (a least speed;
// min_len 0: unchanged).
vec3 raise(vec3 v, float min_len) {
    if (!(min_len > 0.0))
        return v;
    float m2 = norm2(v);
    if (m2 > 0.0 && m2 < min_len * min_len)
        v = v * fdiv(min_len, sqrt(m2));
    return v;
}

// C twin: src/core/vecmath.c boids_set_mag().
// p5 v.setMag(m); the zero vector stays zero (as p5's normalize()). Exactly
// cglm's glm_vec3_scale_as: v * (m / norm), not normalize(v) * m.
vec3 set_mag(vec3 v, float m) {
    float n = norm3(v);
    if (n == 0.0)
        return vec3(0.0);
    return v * fdiv(m, n);
}

// C twin: src/core/vecmath.c boids_steer_from_desired().
// Reynolds' steering formula: steer = desired - velocity, limit(maxforce).
vec3 steer_from_desired(vec3 desired, vec3 vel, float maxforce) {
    precise vec3 d = desired - vel;
    return limit(d, maxforce);
}

// ---- geometry ---------------------------------------------------------------

// C twin: include/boids/behaviors.h boids_world_delta() (inline).
// to - from, with the minimum-image convention on a wrapped world (plain in
// every other mode: margin's distances are the sketch's, not wrapped).
vec3 world_delta(vec3 from, vec3 to) {
    // In 2D every z is 0 and so is every z offset: a 2D program reads none.
    vec3 dest = vec3(0.0);
    for (int a = 0; a < (WORLD_DIM == 2u ? 2 : 3); a++) {
        precise float d = to[a] - from[a];
        if (WORLD_BOUNDARY == BOIDS_BOUNDARY_WRAP) {
            float half_size = 0.5 * world.size[a]; // C: half
            if (d > half_size)
                d -= world.size[a];
            else if (d < -half_size)
                d += world.size[a];
        }
        dest[a] = d;
    }
    return dest;
}

// C twin: src/core/world.c boids_world_wrap() (in place there; returned here).
// Position into [min, min + size) on each axis with extent (torus). Handles
// any distance outside, not just one world width.
vec3 world_wrap(vec3 pos) {
    for (int a = 0; a < 3; a++) {
        float size = world.size[a];
        if (!(size > 0.0))
            continue;
        precise float lo = world.min[a], hi = world.min[a] + size;
        float p = pos[a];
        if (p < lo || p >= hi) {
            precise float x = p - lo;
            x -= size * floor(fdiv(x, size));
            precise float q = lo + x;
            p = q;
            // Rounding can land exactly on hi (or a hair below lo).
            if (p >= hi || p < lo)
                p = lo;
        }
        pos[a] = p;
    }
    return pos;
}

// C twin: include/boids/behaviors.h boids_in_cone(). Within the cone of
// cos_half around the heading: along >= cos_half * d, decided on squares.
bool in_cone(float along, float cos_half, float d2) {
    precise float a2 = along * along;
    precise float c2d2 = cos_half * cos_half * d2;
    if (cos_half >= 0.0)
        return along >= 0.0 && a2 >= c2d2;
    return along >= 0.0 || a2 <= c2d2;
}


// C twin: src/core/angle.c boids_angle_wrap().
// Angle into (-pi, pi]: the truncated remainder a - 2pi trunc(a / 2pi), then
// one correction (the same operations as the C; the quotient correctly
// rounded through fdiv).
float angle_wrap(float a) {
    precise float r = a - BOIDS_TWO_PI * trunc(fdiv(a, BOIDS_TWO_PI));
    if (r > BOIDS_PI)
        r -= BOIDS_TWO_PI;
    else if (r <= -BOIDS_PI)
        r += BOIDS_TWO_PI;
    return r;
}

// C twin: src/core/angle.c boids_angle_diff().
// Shortest signed turn from current to target, in (-pi, pi]
// (boids-angle-bug.txt: diff > pi: diff -= 2pi; diff < -pi: diff += 2pi).
float angle_diff(float target, float current) {
    precise float d = target - current;
    return angle_wrap(d);
}

// ---- counter-based RNG: identical bits in C and GLSL ---------------------------
// (uint arithmetic wraps modulo 2^32 in both languages.)

// C twin: src/core/rng.c boids_hash().
// lowbias32 integer hash (constants in shaders/shared.h).
uint hash(uint x) {
    x ^= x >> 16;
    x *= BOIDS_HASH_M1;
    x ^= x >> 15;
    x *= BOIDS_HASH_M2;
    x ^= x >> 16;
    return x;
}

// C twin: src/core/rng.c boids_rng_u32() (C: step; here counter).
// One 32-bit draw for (seed, id, step, stream); each input is folded in
// through the hash so neighbouring counters give unrelated values.
uint rng_u32(uint seed_lo, uint seed_hi, uint id, uint counter, uint stream) {
    uint h = hash(seed_lo ^ BOIDS_HASH_GOLDEN);
    h = hash(h ^ seed_hi);
    h = hash(h ^ id);
    h = hash(h ^ counter);
    h = hash(h ^ (stream * BOIDS_HASH_GOLDEN));
    return h;
}

// C twin: src/core/rng.c boids_rng_unit().
// [0, 1) from the top 24 bits: exact in float.
float rng_unit(uint bits) { return float(bits >> 8) * (1.0 / 16777216.0); }

// C twin: src/core/rng.c boids_rng_signed().
// [-1, 1) (exact: 2u - 1 has at most 24 significant bits).
float rng_signed(uint bits) {
    precise float r = rng_unit(bits) * 2.0 - 1.0;
    return r;
}

// C twin: src/core/rng.c boids_agent_range().
// An agent's own value of a per-agent range: lo + (hi - lo) u, u from
// (seed, id, 0, stream); lo <= 0 (no range): value, the group's.
float agent_range(uint seed_lo, uint seed_hi, uint id, float lo, float hi, float value, uint stream) {
    if (!(lo > 0.0))
        return value;
    float u = rng_unit(rng_u32(seed_lo, seed_hi, id, 0u, stream));
    precise float r = lo + (hi - lo) * u;
    return r;
}

// C twin: src/core/rng.c boids_agent_maxspeed().
float agent_maxspeed(boids_group_params g, uint id) {
    return agent_range(world.seed_lo, world.seed_hi, id, g.maxspeed_lo, g.maxspeed_hi, g.maxspeed, BOIDS_RNG_MAXSPEED);
}

// C twin: src/core/rng.c boids_agent_maxforce().
float agent_maxforce(boids_group_params g, uint id) {
    return agent_range(world.seed_lo, world.seed_hi, id, g.maxforce_lo, g.maxforce_hi, g.maxforce, BOIDS_RNG_MAXFORCE);
}

// ---- fixed point for order-independent sums (shared.h BOIDS_FIX_*) ------------

// The 64-bit integers of the sums: int64_t where the context has
// GL_ARB_gpu_shader_int64 (src/gpu/gpu.c checks it and defines BOIDS_INT64);
// otherwise GLSL 4.50 core, each a uvec2 (x the low, y the high 32 bits, two's
// complement). Both give the same bits: the C's int64_t, truncation toward
// zero into the integer, float conversion rounding to nearest.
//
// Portable by construction: no float of 2^31 or more is ever converted to an
// integer type (GLSL leaves out-of-range conversions undefined, and a driver
// that converts int64_t(float) through 32 bits flips the sign of every term
// past 2^31), and no integer of more than 24 bits is converted to a float
// (the rounding of such a conversion is the driver's). Both paths build the
// 64-bit value from two 32-bit halves that are exact in float, and round it
// back to a float by hand; only the adds differ.

// |v| (v < 2^40, not NaN) truncated toward zero as (low, high) 32-bit halves:
// |v| = hi 2^32 + lo, both exact in float (the power-of-two scale is exact;
// |v| >= 2^32 is an integer and |v| - hi 2^32 is a multiple of its ulp below
// 2^32), each below 2^32: in range for uint().
uvec2 fix_trunc_mag(float a) {
    float hi = floor(a * (1.0 / 4294967296.0));
    precise float lo = a - hi * 4294967296.0;
    return uvec2(uint(lo), uint(hi));
}

// The 64-bit magnitude m as a float, rounded to nearest, ties to even, by
// hand: its top 24 bits (an exact uint -> float), the rounding decided from
// the bit below them and any bit further down, times an exact power of two.
float fix_float_mag(uvec2 m) {
    if (m.y == 0u && m.x < 16777216u)
        return float(m.x);
    int msb = m.y != 0u ? 32 + findMSB(m.y) : findMSB(m.x); // 24..63
    int shift = msb - 23;                                     // 1..40: bits below the 24 kept
    uint top, below_half, half_bit;
    if (shift < 32) {
        top = (m.x >> shift) | (m.y << (32 - shift)); // (m.y << 32 - shift: shift >= 1)
        half_bit = (m.x >> (shift - 1)) & 1u;
        below_half = shift >= 2 ? m.x & ((1u << (shift - 1)) - 1u) : 0u;
    } else {
        top = m.y >> (shift - 32);
        half_bit = shift == 32 ? m.x >> 31 : (m.y >> (shift - 33)) & 1u;
        below_half = shift == 32 ? m.x & 0x7fffffffu : m.x | (m.y & ((1u << (shift - 33)) - 1u));
    }
    top &= 0xffffffu;
    if (half_bit != 0u && (below_half != 0u || (top & 1u) != 0u))
        top += 1u; // may carry to 2^24: still exact
    return float(top) * uintBitsToFloat(uint(127 + shift) << 23); // * 2^shift, exact
}

#ifdef BOIDS_INT64
#define fix64 int64_t
#define fix64x3 i64vec3

fix64 fix_add(fix64 a, fix64 b) { return a + b; }

// v (|v| <= 2^39, not NaN) truncated toward zero, from 32-bit halves.
fix64 fix_trunc(float v) {
    fix64 m = int64_t(packUint2x32(fix_trunc_mag(abs(v))));
    return v < 0.0 ? -m : m;
}

// The integer as a float, rounded to nearest (|s| < 2^63).
float fix_float(fix64 s) {
    bool neg = s < 0l;
    float f = fix_float_mag(unpackUint2x32(uint64_t(neg ? -s : s)));
    return neg ? -f : f;
}

fix64x3 fix3_zero() { return i64vec3(0); }
#else
#define fix64 uvec2
struct fix64x3 {
    uvec2 x, y, z;
};

// -a (two's complement: ~a + 1, the carry out of the low half into the high).
uvec2 fix_negate(uvec2 a) {
    uint lo = ~a.x + 1u;
    return uvec2(lo, ~a.y + (lo == 0u ? 1u : 0u));
}

fix64 fix_add(fix64 a, fix64 b) {
    uint carry;
    uint lo = uaddCarry(a.x, b.x, carry);
    return uvec2(lo, a.y + b.y + carry);
}

// v (|v| <= 2^39, not NaN) truncated toward zero, then the sign.
fix64 fix_trunc(float v) {
    uvec2 m = fix_trunc_mag(abs(v));
    return v < 0.0 ? fix_negate(m) : m;
}

// The integer as a float, rounded to nearest.
float fix_float(fix64 s) {
    bool neg = int(s.y) < 0;
    float f = fix_float_mag(neg ? fix_negate(s) : s);
    return neg ? -f : f;
}

fix64x3 fix3_zero() { return fix64x3(uvec2(0u), uvec2(0u), uvec2(0u)); }
#endif

// C twin: include/boids/behaviors.h boids_fix() (inline).
// value * scale truncated toward zero into a 64-bit integer, saturated at
// BOIDS_FIX_SATURATE (so a sum of BOIDS_MAX_AGENTS terms cannot overflow);
// NaN maps to 0 (isnan, not v != v, which a compiler may fold to false).
fix64 fix(float value, float scale) {
    float v = value * scale; // exact: scale is a power of two
    if (isnan(v))
        return fix_trunc(0.0);
    v = v > BOIDS_FIX_SATURATE ? BOIDS_FIX_SATURATE : v;
    v = v < -BOIDS_FIX_SATURATE ? -BOIDS_FIX_SATURATE : v;
    return fix_trunc(v);
}

// C twin: include/boids/behaviors.h boids_unfix() (inline).
// The sum back as a float (int64 -> float rounds to nearest, then an exact
// power-of-two scale).
float unfix(fix64 sum, float scale) { return fix_float(sum) * fdiv(1.0, scale); }

// ---- single-agent behaviours -----------------------------------------------------

// C twin: src/core/seek.c boids_seek().
// Nature of Code 5, "Steering Forces": desired = setMag(target - position,
// maxspeed); steer = desired - velocity.
vec3 seek(vec3 to_target, vec3 vel, float maxspeed, float maxforce) {
    vec3 desired = set_mag(to_target, maxspeed);
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/speed.c boids_target_speed().
// OpenSteer's steerForTargetSpeed: along the heading, clamp(target - |v|,
// -maxforce, maxforce); no force without a heading.
vec3 target_speed(vec3 vel, float target, float maxforce) {
    float speed = norm3(vel);
    if (!(speed > 0.0))
        return vec3(0.0);
    precise float error = target - speed; // C: error (precise: target may be a caller's product)
    float push = min(max(error, -maxforce), maxforce);
    return vel * fdiv(push, speed);
}

// C twin: src/core/queue.c boids_queue_blocks().
// Queueing (Reynolds 1999): does the neighbour at off (d2 = |off|^2)
// moving at vj block the agent? Within distance, ahead (off . heading > 0)
// within the cone BOIDS_QUEUE_COS, and slower; decided on squares.
// (C: distance.)
bool queue_blocks(vec3 off, float d2, vec3 heading, bool has_heading, vec3 vel, vec3 vj, float queue_distance) {
    if (!has_heading || !(d2 < queue_distance * queue_distance))
        return false;
    float along = dot3(off, heading);
    if (!(along > 0.0) || !in_cone(along, BOIDS_QUEUE_COS, d2))
        return false;
    return norm2(vj) < norm2(vel);
}

// C twin: src/core/queue.c boids_queue().
// The brake: -vel limited to maxforce when any neighbour blocks, else zero.
vec3 queue(uint blocked, vec3 vel, float maxforce) {
    if (blocked == 0u)
        return vec3(0.0);
    return limit(-vel, maxforce);
}

// C twin: src/core/avoid.c boids_avoid_threat().
// OpenSteer's predictNearestApproachTime: dv = vj - vel, t = -off . dv /
// |dv|^2; a threat when 0 < t < horizon (on products) and |off + dv t| <
// danger (on squares). On a threat: t and the predicted offset at t.
bool avoid_threat(vec3 off, vec3 vel, vec3 vj, float horizon, float danger, out float t, out vec3 predicted) {
    t = 0.0;
    predicted = vec3(0.0);
    precise vec3 dv = vj - vel;
    float den = norm2(dv);
    if (!(den > 0.0))
        return false;
    float num = -dot3(off, dv);
    precise float limit_t = horizon * den;
    if (!(num > 0.0) || !(num < limit_t))
        return false;
    // The predicted offset times den: no division in its direction.
    precise vec3 q = vec3(off.x * den + dv.x * num, off.y * den + dv.y * num, off.z * den + dv.z * num);
    precise float reach = danger * den;
    precise float reach2 = reach * reach;
    if (!(norm2(q) < reach2))
        return false;
    t = fdiv(num, den);
    predicted = q;
    return true;
}

// C twin: src/core/avoid.c boids_avoid_sooner().
// The soonest threat wins, ties to the smaller id (a strict order).
bool avoid_sooner(float t, uint id, float best_t, uint best_id) {
    return t < best_t || (t == best_t && id < best_id);
}

// C twin: src/core/avoid.c boids_avoid().
// The side-step: -predicted perpendicular to the velocity (all of it when
// standing still), taken times |vel|^2 with products and sums alone, set to
// maxforce; zero without a threat.
vec3 avoid(bool threat, vec3 predicted, vec3 vel, float maxforce) {
    if (!threat)
        return vec3(0.0);
    vec3 away = -predicted;
    float v2 = norm2(vel);
    if (v2 > 0.0) {
        float along = dot3(away, vel);
        precise vec3 side = vec3(away.x * v2 - vel.x * along, away.y * v2 - vel.y * along, away.z * v2 - vel.z * along);
        away = side;
    }
    return set_mag(away, maxforce);
}

// C twin: include/boids/core.h boids_weight().
// The weight of behaviour b: weight[] of the first 16, weight_more[] after.
float weight_of(boids_group_params g, uint b) {
    uint m = b - BOIDS_WEIGHT_FIRST;
    return b < BOIDS_WEIGHT_FIRST ? g.weight[b >> 2u][b & 3u] : g.weight_more[m >> 2u][m & 3u];
}

// C twin: src/core/seek.c boids_flee().
// The opposite desired velocity: away from the target at maxspeed.
vec3 flee(vec3 to_target, vec3 vel, float maxspeed, float maxforce) {
    vec3 desired = set_mag(to_target, -maxspeed);
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/arrive.c boids_arrive().
// Nature of Code 5, "Arrive": seek with a linear ramp of the desired speed,
// map(d, 0, r, 0, maxspeed), inside the slowing radius r.
vec3 arrive(vec3 to_target, vec3 vel, float slow_radius, float maxspeed, float maxforce) {
    float d = norm3(to_target);
    float speed = maxspeed;
    if (d < slow_radius)
        speed = fdiv(d, slow_radius) * maxspeed;
    vec3 desired = set_mag(to_target, speed);
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/pursue.c predicted().
// Offset to where the target will be `predict` time units from now.
vec3 predicted(vec3 to_target, vec3 target_vel, float predict) {
    precise vec3 p = to_target + target_vel * predict;
    return p;
}

// C twin: src/core/pursue.c boids_pursue().
// Nature of Code 5, exercise 5.2: seek the predicted position.
vec3 pursue(vec3 to_target, vec3 target_vel, vec3 vel, float predict, float maxspeed, float maxforce) {
    vec3 p = predicted(to_target, target_vel, predict);
    return seek(p, vel, maxspeed, maxforce);
}

// C twin: src/core/pursue.c boids_evade().
// Flee the predicted position.
vec3 evade(vec3 to_target, vec3 target_vel, vec3 vel, float predict, float maxspeed, float maxforce) {
    vec3 p = predicted(to_target, target_vel, predict);
    return flee(p, vel, maxspeed, maxforce);
}

// C twin: src/core/wander.c boids_wander() (C: distance, radius; here
// wander_distance, wander_radius).
// Reynolds' wander (Nature of Code 5, "Wander"): the angles = {theta, phi}
// are advanced by change * rnd and wrapped; seek a point on a circle (2D,
// relative to the heading) or sphere (3D) projected wander_distance ahead.
vec3 wander(vec3 vel, inout vec2 angles, float rnd_theta, float rnd_phi, float wander_distance, float wander_radius,
            float change, uint dim, float maxspeed, float maxforce) {
    precise float theta_step = angles.x + change * rnd_theta;
    float theta = angle_wrap(theta_step);
    float phi = angles.y;
    vec3 heading = set_mag(vel, 1.0);
    if (norm2(heading) == 0.0)
        heading = vec3(1.0, 0.0, 0.0);
    precise vec3 to_target;
    if (dim == 2u) {
        // Circle centre at distance along the heading; the point at theta
        // relative to the heading (the chapter adds the heading angle).
        float c = cosf(theta), s = sinf(theta);
        to_target.x = heading.x * wander_distance + wander_radius * (heading.x * c - heading.y * s);
        to_target.y = heading.y * wander_distance + wander_radius * (heading.x * s + heading.y * c);
        to_target.z = 0.0;
    } else {
        precise float phi_step = phi + change * rnd_phi;
        phi = angle_wrap(phi_step);
        float cp = cosf(phi);
        to_target.x = heading.x * wander_distance + wander_radius * cp * cosf(theta);
        to_target.y = heading.y * wander_distance + wander_radius * cp * sinf(theta);
        to_target.z = heading.z * wander_distance + wander_radius * sinf(phi);
    }
    angles.x = theta;
    angles.y = phi;
    return seek(to_target, vel, maxspeed, maxforce);
}

// C twin: src/core/walls.c boids_walls().
// Nature of Code 5, exercise 5.3 / Reynolds' "containment": desired starts
// as the velocity; only an axis within wall_offset of a wall sets its
// component to +-maxspeed (away from the wall); then setMag(maxspeed) and
// steer. BOIDS_WALL_CORNER_BOOK: each near axis starts again from the
// velocity (the last one decides). Far from the walls: no force (returns
// false, dest = 0).
bool walls(vec3 pos, vec3 vel, float maxspeed, float maxforce, out vec3 dest) {
    vec3 desired = vel;
    bool near_wall = false; // C: near
    for (int a = 0; a < 3; a++) {
        if (!(world.size[a] > 0.0))
            continue;
        precise float lo = world.min[a] + world.wall_offset;
        precise float hi = world.min[a] + world.size[a] - world.wall_offset;
        bool below = pos[a] < lo; // C: lo, hi
        bool above = !below && pos[a] > hi;
        if ((below || above) && world.wall_corner == BOIDS_WALL_CORNER_BOOK)
            desired = vel;
        if (below) {
            desired[a] = maxspeed;
            near_wall = true;
        } else if (above) {
            desired[a] = -maxspeed;
            near_wall = true;
        }
    }
    if (!near_wall) {
        dest = vec3(0.0);
        return false;
    }
    desired = set_mag(desired, maxspeed);
    dest = steer_from_desired(desired, vel, maxforce);
    return true;
}

// C twin: src/core/flowfield.c flow_index().
// Column/row/layer of a coordinate, clamped to the grid (chapter: constrain).
uint flow_index(float p, float lo, float inv, uint n) {
    precise float d = p - lo; // (precise: p may be a caller's product)
    float x = floor(d * inv);
    if (isnan(x) || !(x >= 0.0))
        return 0u;
    if (x >= float(n))
        return n - 1u;
    return uint(x);
}

// C twin: src/core/flowfield.c boids_flowfield_lookup().
// lookup(position): the vector of the cell under the position, clamped.
// world.flow_inv_cell = 1 / resolution and world.flow_dims = f->dims
// (params.c computes both the same way); a field that was never built
// (flow_dims.w == 0, C: f->vec == NULL) reads as zero everywhere.
vec3 flow_lookup(vec3 pos) {
    if (world.flow_dims.w == 0u)
        return vec3(0.0);
    uint i = flow_index(pos.x, world.min.x, world.flow_inv_cell.x, world.flow_dims.x);
    uint j = flow_index(pos.y, world.min.y, world.flow_inv_cell.y, world.flow_dims.y);
    uint k = flow_index(pos.z, world.min.z, world.flow_inv_cell.z, world.flow_dims.z);
    return flow_field[(k * world.flow_dims.y + j) * world.flow_dims.x + i].xyz;
}

// C twin: src/core/flowfield.c boids_flow().
// Nature of Code 5, "Flow Fields": desired = lookup * maxspeed; steer.
vec3 flow(vec3 field, vec3 vel, float maxspeed, float maxforce) {
    vec3 desired = field * maxspeed;
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/path.c boids_normal_point().
// The point of segment a-b that path following takes for p: the scalar
// projection t of p onto the line, then by flags (BOIDS_PATH_*): default the
// closest point of the segment, t <= 0 giving a and t >= 1 giving b
// themselves (a vertex shared by two segments: the same bits from both);
// OUTSIDE_END: outside (t < 0 or t >= 1) the end point b (Example 5.8);
// LINE_INFINITE: unclamped (Examples 5.5, 5.6), overriding OUTSIDE_END.
// `outside`: whether OUTSIDE_END took b for a projection outside the segment
// (the default's clamp to b is not "outside").
vec3 normal_point(vec3 p, vec3 a, vec3 b, uint flags, out bool outside) {
    precise vec3 ap = p - a;
    precise vec3 ab = b - a;
    float len2 = norm2(ab);
    float t = len2 > 0.0 ? fdiv(dot3(ap, ab), len2) : 0.0;
    outside = false;
    if ((flags & BOIDS_PATH_LINE_INFINITE) != 0u) {
        // no clamp
    } else if ((flags & BOIDS_PATH_OUTSIDE_END) != 0u) {
        outside = t < 0.0 || t >= 1.0;
        if (outside)
            return b;
    } else if (t <= 0.0) {
        return a;
    } else if (t >= 1.0) {
        return b;
    }
    precise vec3 dest = a + ab * t;
    return dest;
}

// C twin: src/core/path.c boids_path_shifts() (k[2] returned as an ivec2).
// The shifts k (in worlds) along `axis` of the images of a segment
// (coordinates a, b relative to the agent) that can hold the normal point
// nearest to f: min(a, b) + k size - size / 2 <= f <= max(a, b) + k size +
// size / 2 (an image farther out is strictly farther than the one a world
// closer). An axis that does not wrap: 0 only. At most BOIDS_PATH_MAX_SHIFT.
ivec2 path_shifts(uint axis, float f, float a, float b) {
    ivec2 k = ivec2(0);
    float size = world.size[axis];
    if (WORLD_BOUNDARY != BOIDS_BOUNDARY_WRAP || !(size > 0.0))
        return k;
    float lo = min(a, b), hi = max(a, b);
    precise float from = ceil(fdiv(f - hi, size) - 0.5), to = floor(fdiv(f - lo, size) + 0.5);
    const float most = float(BOIDS_PATH_MAX_SHIFT);
    k.x = int(min(max(from, -most), most));
    k.y = int(min(max(to, -most), most));
    return k;
}

// C twin: src/core/path.c path_nearest().
// Of the normal points of `future` (relative to the agent at pos) on every
// image of every segment, the closest (ties: the earlier segment, strict <,
// as the book's 5.8 loop): its squared distance, the point relative to the
// agent, its segment and whether OUTSIDE_END took the end point. Relative
// to the agent: a path point is (point - pos) + k size, the same expression
// in both segments that share it.
float path_nearest(vec3 pos, vec3 future, out vec3 normal_best, out uint segment, out bool outside_best) {
    uint n = scene.path_count;
    uint flags = scene.path_flags;
    uint segments = (flags & BOIDS_PATH_CLOSED) != 0u ? n : n - 1u;
    float best = BOIDS_INFINITY;
    normal_best = vec3(0.0);
    segment = 0u;
    outside_best = false;
    for (uint i = 0u; i < segments; i++) {
        vec3 pa = scene.path[i].xyz;
        vec3 pb = scene.path[(i + 1u) % n].xyz;
        precise vec3 a0 = pa - pos;
        precise vec3 b0 = pb - pos;
        ivec2 kx = path_shifts(0u, future.x, a0.x, b0.x);
        ivec2 ky = path_shifts(1u, future.y, a0.y, b0.y);
        ivec2 kz = path_shifts(2u, future.z, a0.z, b0.z);
        for (int x = kx.x; x <= kx.y; x++)
            for (int y = ky.x; y <= ky.y; y++)
                for (int z = kz.x; z <= kz.y; z++) {
                    precise vec3 shift = vec3(float(x) * world.size.x, float(y) * world.size.y, float(z) * world.size.z);
                    precise vec3 a = a0 + shift;
                    precise vec3 b = b0 + shift;
                    bool outside;
                    vec3 normal = normal_point(future, a, b, flags, outside);
                    // Squared distances, as the C: the same decisions on every GPU.
                    precise vec3 off = future - normal;
                    float d = norm2(off);
                    if (d < best) {
                        best = d;
                        normal_best = normal;
                        segment = i;
                        outside_best = outside;
                    }
                }
    }
    return best;
}

// C twin: src/core/path.c boids_path_follow().
// Nature of Code 5, "Path Following" (Reynolds): predict `predict` ahead;
// take the nearest normal point (path_nearest); if that is farther than the
// path radius, seek a target `ahead` along its segment (OUTSIDE_END on a
// closed path: an end point taken for a projection outside its segment
// looks ahead along the next segment, as the book's Exercise 5.13; on an
// open path along its own, 5.8). Otherwise no force.
vec3 path_follow(vec3 pos, vec3 vel, float predict, float ahead, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    uint n = scene.path_count;
    if (n < 2u)
        return dest;
    vec3 future = set_mag(vel, predict);
    vec3 normal;
    uint i;
    bool outside;
    float best = path_nearest(pos, future, normal, i, outside);
    if (!(best > scene.path_radius * scene.path_radius))
        return dest;
    uint flags = scene.path_flags;
    // The look-ahead of the nearest point's segment (or the next one's).
    uint from = i, to = (i + 1u) % n;
    if (outside && (flags & BOIDS_PATH_CLOSED) != 0u && (flags & BOIDS_PATH_OUTSIDE_END) != 0u) {
        from = (i + 1u) % n;
        to = (i + 2u) % n;
    }
    precise vec3 ab = scene.path[to].xyz - scene.path[from].xyz;
    vec3 dir = set_mag(ab, ahead);
    precise vec3 t = normal + dir;
    return seek(t, vel, maxspeed, maxforce);
}

// C twin: src/core/path.c boids_stay_on_path().
// OpenSteer's steerToStayOnPath: predict `predict` ahead (as path_follow);
// within the path's radius of the nearest normal point (path_nearest) no
// force; outside seek that point itself (not one further along).
vec3 stay_on_path(vec3 pos, vec3 vel, float predict, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    if (scene.path_count < 2u)
        return dest;
    vec3 future = set_mag(vel, predict);
    vec3 normal;
    uint i;
    bool outside;
    float best = path_nearest(pos, future, normal, i, outside);
    if (best > scene.path_radius * scene.path_radius)
        dest = seek(normal, vel, maxspeed, maxforce);
    return dest;
}

// C twin: src/core/view.c boids_view_frame().
// The view rule's frame (view_term() below; obstacles' dead-ahead turn): the frame perpendicular to the velocity,
// unnormalised: u = up x vel (the agent's left; up = z, or y when the
// velocity is within ~26 deg of z), w = vel x u (its up). Products and sums
// only (precise): the same bits as the C on every driver, so the sides
// below are the same integers.
void view_frame(vec3 vel, out vec3 u, out vec3 w) {
    vec3 up = vec3(0.0, 0.0, 1.0);
    precise float z2 = vel.z * vel.z;
    precise float lim = 0.81 * norm2(vel);
    if (z2 > lim) {
        up.y = 1.0;
        up.z = 0.0;
    }
    u = cross3(up, vel);
    w = cross3(vel, u);
}

// C twin: src/core/obstacles.c boids_obstacles().
// Reynolds 1999, "Obstacle Avoidance": of the circles/spheres the forward
// corridor (length lookahead, half-width obstacle radius + body radius)
// hits, the nearest (smallest distance along the heading) sets desired =
// maxspeed away from its centre across the heading. An agent inside an
// obstacle flees its centre. Along the heading times |vel|, across it times
// |vel|^2, tests on squares: products and sums alone, as the C.
vec3 obstacles(vec3 pos, vec3 vel, float lookahead, float body_radius, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    float v2 = norm2(vel);
    if (v2 == 0.0)
        return dest;
    float nearest_along = BOIDS_INFINITY; // C: nearest (a buffer's name here)
    vec3 lateral_best = vec3(0.0);
    bool inside = false;
    for (uint i = 0u; i < scene.obstacle_count; i++) {
        vec4 ob = scene.obstacle[i];
        vec3 off = world_delta(pos, ob.xyz);
        precise float reach = ob.w + body_radius;
        float d2 = norm2(off);
        if (d2 < ob.w * ob.w) {
            // Inside: flee the centre, most urgent of all.
            dest = flee(off, vel, maxspeed, maxforce);
            inside = true;
            break;
        }
        float along = dot3(off, vel);
        precise float corridor = lookahead + reach;
        precise float along2 = along * along;
        precise float corridor2 = corridor * corridor * v2;
        if (along <= 0.0 || along2 > corridor2)
            continue;
        precise vec3 lateral = off * v2 - vel * along;
        precise float reach4 = reach * reach * v2 * v2;
        if (norm2(lateral) >= reach4)
            continue;
        if (along < nearest_along) {
            nearest_along = along;
            lateral_best = lateral;
        }
    }
    if (inside || nearest_along == BOIDS_INFINITY)
        return dest;
    vec3 desired, up;
    if (norm2(lateral_best) == 0.0)
        view_frame(vel, desired, up); // dead ahead: turn left (u = up x vel)
    else
        desired = -lateral_best;
    desired = set_mag(desired, maxspeed);
    dest = steer_from_desired(desired, vel, maxforce);
    return dest;
}

// C twin: src/core/hide.c boids_hiding_spot().
// Buckland's GetHidingPosition, relative to the agent: centre +
// normalise(centre - hunter) * (radius + margin); a hunter at the centre
// gives the centre itself.
vec3 hiding_spot(vec3 to_centre, float radius, vec3 to_hunter, float margin) {
    precise vec3 away = to_centre - to_hunter;
    precise float reach = radius + margin;
    vec3 o = set_mag(away, reach);
    precise vec3 spot = to_centre + o;
    return spot;
}

// C twin: src/core/hide.c boids_hide() (C: scene, world by pointer).
// Buckland's Hide: of the obstacles whose centre is within `radius` the
// nearest (squared distance, minimum image; ties: the earlier, strict <):
// arrive at its hiding spot from the hunter; none: evade the hunter; no
// hunter: no force.
vec3 hide(vec3 pos, vec3 vel, bool has_hunter, vec3 to_hunter, vec3 hunter_vel, float radius, float margin,
          float predict, float arrive_radius, float maxspeed, float maxforce) {
    if (!has_hunter)
        return vec3(0.0);
    float best = radius * radius, ob_radius = 0.0;
    vec3 centre = vec3(0.0);
    bool found = false;
    for (uint i = 0u; i < scene.obstacle_count; i++) {
        vec4 ob = scene.obstacle[i];
        vec3 off = world_delta(pos, ob.xyz);
        float d2 = norm2(off);
        if (d2 < best) {
            best = d2;
            centre = off;
            ob_radius = ob.w;
            found = true;
        }
    }
    if (!found)
        return evade(to_hunter, hunter_vel, vel, predict, maxspeed, maxforce);
    vec3 spot = hiding_spot(centre, ob_radius, to_hunter, margin);
    return arrive(spot, vel, arrive_radius, maxspeed, maxforce);
}

// ---- behaviours that steer by another agent (C: src/core/leader.c) -------

// C twin: src/core/leader.c boids_leader_frame() (out parameters).
// ahead = the heading (x when 0); 2D: side = ahead a quarter turn left, up
// = z; 3D: side = z x ahead normalised (y when ahead is along z), up =
// ahead x side.
void leader_frame(vec3 leader_vel, uint dim, out vec3 ahead, out vec3 side, out vec3 up) {
    ahead = set_mag(leader_vel, 1.0);
    if (norm2(ahead) == 0.0)
        ahead = vec3(1.0, 0.0, 0.0);
    if (dim == 2u) {
        side = vec3(-ahead.y, ahead.x, 0.0);
        up = vec3(0.0, 0.0, 1.0);
        return;
    }
    vec3 s = cross3(vec3(0.0, 0.0, 1.0), ahead);
    if (norm2(s) == 0.0)
        s = vec3(0.0, 1.0, 0.0);
    side = set_mag(s, 1.0);
    up = cross3(ahead, side);
}

// C twin: src/core/leader.c boids_formation_place().
// Place `slot` of `members` in formation BOIDS_FORMATION_* (shared.h),
// spacing apart, in the leader's frame; NONE: offset.
vec3 formation_place(uint formation, uint slot, uint members, float spacing, vec3 offset) {
    float j = float(slot / 2u + 1u), side = (slot & 1u) != 0u ? -1.0 : 1.0;
    if (formation == BOIDS_FORMATION_LINE)
        return vec3(0.0, side * j * spacing, 0.0);
    if (formation == BOIDS_FORMATION_COLUMN)
        return vec3(-float(slot + 1u) * spacing, 0.0, 0.0);
    if (formation == BOIDS_FORMATION_V)
        return vec3(-j * spacing, side * j * spacing, 0.0);
    if (formation == BOIDS_FORMATION_RING) {
        float m = float(members > 0u ? members : 1u);
        float r = max(spacing, fdiv(m * spacing, BOIDS_TWO_PI));
        float a = fdiv(BOIDS_TWO_PI * float(slot), m);
        return vec3(r * cosf(a), r * sinf(a), 0.0);
    }
    return offset;
}

// C twin: src/core/leader.c boids_formation_member() (members out).
// The agent's rank in its group, one less after the leader's when it is
// of the group (leader_rank, else BOIDS_NONE); members: the group but the leader.
uint formation_member(boids_group_params g, uint id, uint leader_rank, out uint members) {
    uint stride = g.rank_stride != 0u ? g.rank_stride : 1u;
    uint rank = id >= g.rank_base ? (id - g.rank_base) / stride : 0u;
    uint m = g.rank_count;
    if (leader_rank != BOIDS_NONE) {
        m = m > 0u ? m - 1u : 0u;
        if (rank > leader_rank)
            rank--;
    }
    members = m;
    return rank;
}

// C twin: src/core/leader.c boids_formation_local().
// Agent id's place in the leader's frame: its rank (the leader's skipped
// when it is of the group), the formation's place of it, or leader_offset.
vec3 formation_local(boids_group_params g, uint id, bool leader_in_group) {
    uint leader_rank = BOIDS_NONE, members;
    if (leader_in_group)
        leader_rank = formation_member(g, g.leader, BOIDS_NONE, members);
    uint slot = formation_member(g, id, leader_rank, members);
    return formation_place(g.formation, slot, members, g.formation_spacing, g.leader_offset.xyz);
}

// C twin: src/core/leader.c boids_offset_pursuit().
// Arrive at the place `local` of the leader's frame (2D: without up),
// predicted t = |to place| / (maxspeed + |leader_vel|) ahead.
vec3 offset_pursuit(vec3 to_leader, vec3 leader_vel, vec3 local, uint dim, vec3 vel, float arrive_radius,
                    float maxspeed, float maxforce) {
    vec3 ahead, side, up;
    leader_frame(leader_vel, dim, ahead, side, up);
    float z = dim == 2u ? 0.0 : local.z;
    precise vec3 place = to_leader + ahead * local.x + side * local.y + up * z;
    precise float speeds = maxspeed + norm3(leader_vel);
    float t = fdiv(norm3(place), speeds);
    precise vec3 target = place + leader_vel * t;
    return arrive(target, vel, arrive_radius, maxspeed, maxforce);
}

// C twin: src/core/leader.c boids_follow_leader().
// Arrive `behind` the leader; within `sight` of it or of the point as far
// ahead, evade it too (the sum limited to maxforce).
vec3 follow_leader(vec3 to_leader, vec3 leader_vel, vec3 vel, float behind, float sight, float predict,
                   float arrive_radius, float maxspeed, float maxforce) {
    vec3 h = set_mag(leader_vel, behind);
    precise vec3 back = to_leader - h;
    precise vec3 front = to_leader + h;
    vec3 f = arrive(back, vel, arrive_radius, maxspeed, maxforce);
    float s2 = sight * sight;
    if (norm2(front) <= s2 || norm2(to_leader) <= s2) {
        vec3 away = evade(to_leader, leader_vel, vel, predict, maxspeed, maxforce);
        precise vec3 sum = f + away;
        f = limit(sum, maxforce);
    }
    return f;
}

// C twin: src/core/leader.c boids_interpose().
// Arrive at the midpoint of a and b predicted at the time to reach their
// midpoint now at maxspeed.
vec3 interpose(vec3 to_a, vec3 va, vec3 to_b, vec3 vb, vec3 vel, float arrive_radius, float maxspeed,
               float maxforce) {
    precise vec3 mid = (to_a + to_b) * 0.5;
    float t = fdiv(norm3(mid), maxspeed);
    precise vec3 pa = to_a + va * t;
    precise vec3 pb = to_b + vb * t;
    precise vec3 m2 = (pa + pb) * 0.5;
    return arrive(m2, vel, arrive_radius, maxspeed, maxforce);
}

// C twin: src/core/feelers.c boids_feeler_hit() (t, normal out).
// Does the feeler p -> p + tip cross the wall (rows wa, wb)? Segments: the
// crossing in x, y; planes: the tip on the far side or on it, the agent not on it.
bool feeler_hit(vec3 p, vec3 tip, vec4 wa, vec4 wb, out float t, out vec3 normal) {
    t = 0.0;
    normal = vec3(0.0);
    if (wa.w == BOIDS_WALL_PLANE) {
        precise vec3 rel = p - wa.xyz;
        vec3 n = set_mag(wb.xyz, 1.0);
        float sp = dot3(rel, n);
        precise float st = sp + dot3(tip, n);
        if (sp == 0.0 || (sp > 0.0 ? st > 0.0 : st < 0.0))
            return false;
        precise float gap = sp - st;
        t = fdiv(sp, gap);
        normal = n * (sp > 0.0 ? 1.0 : -1.0);
        return true;
    }
    precise float ex = wb.x - wa.x, ey = wb.y - wa.y;
    precise float wx = wa.x - p.x, wy = wa.y - p.y;
    precise float den = tip.x * ey - tip.y * ex;
    if (den == 0.0)
        return false;
    precise float tn = wx * ey - wy * ex, un = wx * tip.y - wy * tip.x;
    float tt = fdiv(tn, den), uu = fdiv(un, den);
    if (!(tt >= 0.0 && tt <= 1.0 && uu >= 0.0 && uu <= 1.0))
        return false;
    t = tt;
    vec3 nn = vec3(-ey, ex, 0.0);
    precise float facing = wx * nn.x + wy * nn.y;
    if (facing > 0.0)
        nn = vec3(-nn.x, -nn.y, 0.0);
    normal = set_mag(nn, 1.0);
    return true;
}

// C twin: src/core/feelers.c boids_feelers() (C: scene by pointer).
// Three feelers (ahead `length`, +-45 degrees at half); each one's nearest
// crossing (smallest t; ties: the earlier wall) pushes along the normal by
// (1 - t) |feeler|; the sum limited to maxforce; no heading: no force.
vec3 feelers(vec3 pos, vec3 vel, uint dim, float feeler_length, float maxforce) {
    if (norm2(vel) == 0.0 || scene.wall_count == 0u)
        return vec3(0.0);
    vec3 h, s, u;
    leader_frame(vel, dim, h, s, u);
    float diag = BOIDS_FEELER_DIAG * feeler_length;
    vec3 feeler[3];
    feeler[0] = h * feeler_length;
    precise vec3 f1 = h * diag + s * diag;
    precise vec3 f2 = h * diag - s * diag;
    feeler[1] = f1;
    feeler[2] = f2;
    precise vec3 sum = vec3(0.0);
    for (int f = 0; f < 3; f++) {
        float best = BOIDS_INFINITY;
        vec3 normal = vec3(0.0);
        for (uint k = 0u; k < scene.wall_count && k < BOIDS_MAX_WALLS; k++) {
            float t;
            vec3 n;
            if (feeler_hit(pos, feeler[f], scene.wall[2u * k], scene.wall[2u * k + 1u], t, n) && t < best) {
                best = t;
                normal = n;
            }
        }
        if (best == BOIDS_INFINITY)
            continue;
        precise float rest = 1.0 - best;
        float depth = rest * norm3(feeler[f]);
        sum = sum + normal * depth;
    }
    return limit(sum, maxforce);
}

// ---- neighbourhood behaviours: per-pair terms, then the force from the sums ----

// C twin: src/core/combine.c boids_accumulate_force().
// One step of Buckland's prioritised truncated running sum (AccumulateForce):
// remaining = maxforce - |total|; none left: false. A force shorter than
// remaining is added whole (true: go on); a longer one is added normalised *
// remaining, and false: the budget is spent.
bool accumulate_force(inout vec3 total, vec3 force, float maxforce) {
    precise float remaining = maxforce - norm3(total);
    if (!(remaining > 0.0))
        return false;
    float mag = norm3(force);
    if (mag < remaining) {
        precise vec3 s = total + force;
        total = s;
        return true;
    }
    float k = fdiv(remaining, mag);
    precise vec3 s = total + force * k;
    total = s;
    return false;
}

// C twin: src/core/separation.c boids_separation_term().
// Nature of Code 5, Example 5.9: (position - other), normalised and divided
// by d (closer = stronger); made dimensionless by the separation radius for
// the fixed-point sum. d below radius * BOIDS_SEP_MIN_FRACTION counts as
// that distance.
vec3 separation_term(vec3 offset, float d, float sep_radius) {
    float dmin = sep_radius * BOIDS_SEP_MIN_FRACTION;
    float de = d > dmin ? d : dmin;
    float k = fdiv(-sep_radius, d * de); // -offset/d (unit away) * sep_radius/de
    return offset * k;
}

// C twin: src/core/separation.c boids_separation().
// Chapter: steer.div(count); if (steer.mag() > 0) { setMag(maxspeed);
// sub(velocity); limit(maxforce) } - no neighbours (or a zero sum): no force.
vec3 separation(vec3 sum, uint count, vec3 vel, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    if (count == 0u || norm2(sum) == 0.0)
        return dest;
    vec3 desired = set_mag(sum, maxspeed); // the division by count does not change the direction
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/alignment.c boids_alignment().
// Nature of Code 5, flocking align(): average neighbour velocity, normalize
// * maxspeed, steer; none: no force. (A zero average normalises to zero, so
// the steer is -velocity, as in p5.)
vec3 alignment(vec3 sum, uint count, vec3 vel, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    if (count == 0u)
        return dest;
    vec3 desired = set_mag(sum, maxspeed);
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/cohesion.c boids_cohesion().
// Nature of Code 5, flocking cohere(): mean_offset = centroid - position
// (minimum image); seek it; none: no force.
vec3 cohesion(vec3 mean_offset, uint count, vec3 vel, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    if (count == 0u)
        return dest;
    return seek(mean_offset, vel, maxspeed, maxforce);
}

// C twin: src/core/view.c boids_view_term().
// Flake's fourth rule, "view" (The Computational Beauty of Nature; Nature of
// Code 5, exercise 5.17): move laterally away from a blocker. A blocker's sides, away from it: (-sign(offset . u), -sign(offset . w));
// dead ahead (both 0): (1, 0), turn left.
ivec2 view_term(vec3 offset, vec3 vel) {
    vec3 u, w;
    view_frame(vel, u, w);
    float along_u = dot3(offset, u), along_w = dot3(offset, w);
    ivec2 dest = ivec2(along_u < 0.0 ? 1 : along_u > 0.0 ? -1 : 0, along_w < 0.0 ? 1 : along_w > 0.0 ? -1 : 0);
    if (dest == ivec2(0))
        dest.x = 1;
    return dest;
}

// C twin: src/core/view.c boids_view().
// setMag(sum.x u/|u| + sum.y w/|w|, maxspeed) - velocity; no blocker, or as
// many on each side: no force.
vec3 view(ivec2 sum, uint count, vec3 vel, float maxspeed, float maxforce) {
    vec3 dest = vec3(0.0);
    if (count == 0u || sum == ivec2(0))
        return dest;
    vec3 u, w;
    view_frame(vel, u, w);
    u = set_mag(u, 1.0);
    w = set_mag(w, 1.0);
    precise vec3 lateral = float(sum.x) * u + float(sum.y) * w;
    vec3 desired = set_mag(lateral, maxspeed);
    return steer_from_desired(desired, vel, maxforce);
}

// C twin: src/core/escape.c boids_escape_term().
// Evade (Nature of Code 5, exercise 5.2): away from the predator's predicted
// position (offset + v * predict), scaled to 1/d and made dimensionless by
// the radius, as separation.
vec3 escape_term(vec3 offset, vec3 other_vel, float predict, float radius) {
    precise vec3 q = offset + other_vel * predict;
    float d = norm3(q);
    if (d == 0.0)
        return vec3(0.0);
    return separation_term(q, d, radius);
}

// C twin: src/core/escape.c boids_escape().
// setMag(sum, maxspeed) - velocity; no predator: no force.
vec3 escape(vec3 sum, uint count, vec3 vel, float maxspeed, float maxforce) {
    return separation(sum, count, vel, maxspeed, maxforce);
}
