// src/core/trig.c: sine, cosine, arctangent and logarithm as the C reference
// and the shaders both compute them. GLSL twins: shaders/trig.glsl sinf(),
// cosf(), atan2f(), logf().
//
// GLSL states no precision for sin, cos, atan and log, and no two drivers'
// agree with each other or with libm; every result the state depends on
// (headings, wander, noise, bodies) goes through these functions instead, so
// the GPU's bits are the C's on every driver. Each is a few float adds,
// subtracts and multiplies (correctly rounded in C and GLSL alike; this file
// is built with -ffp-contract=off and the GLSL twins are `precise`), one
// correctly rounded quotient at most (GLSL: fdiv), and comparisons. One
// statement per rounding, in the order the GLSL repeats. Constants:
// shaders/shared.h (BOIDS_SIN_S*, BOIDS_ATAN_A*, ...). Accuracy against libm:
// docs/VALIDATION.md (tests/test_behaviors.c trig_accuracy).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "boids/behaviors.h"

// sin r on |r| <= pi/4 (a little beyond: the reduction's rounding).
static float sin_poly(float r) {
    float z = r * r;
    float p = BOIDS_SIN_S3 * z;
    p = p + BOIDS_SIN_S2;
    p = p * z;
    p = p + BOIDS_SIN_S1;
    float t = r * z;
    t = t * p;
    return r + t;
}

// cos r on |r| <= pi/4.
static float cos_poly(float r) {
    float z = r * r;
    float p = BOIDS_COS_C3 * z;
    p = p + BOIDS_COS_C2;
    p = p * z;
    p = p + BOIDS_COS_C1;
    float h = 0.5f * z;
    float w = 1.0f - h;
    float t = z * z;
    t = t * p;
    return w + t;
}

// a - k pi/2 with k the nearest quadrant count (Cody and Waite: pi/2 in three
// parts, the first two products exact); *q = k mod 4 in 0..3. Angles beyond
// BOIDS_TRIG_MAX, infinite or NaN are taken as 0 (no angle of the simulation
// comes near).
static float quadrant(float a, float *q) {
    if (!(fabsf(a) <= BOIDS_TRIG_MAX))
        a = 0.0f;
    float k = a * BOIDS_TWO_OVER_PI;
    k = floorf(k + 0.5f);
    float r = a - k * BOIDS_PIO2_1;
    r = r - k * BOIDS_PIO2_2;
    r = r - k * BOIDS_PIO2_3;
    float k4 = floorf(k * 0.25f);
    *q = k - 4.0f * k4;
    return r;
}

// sin a (radians); within 2 ULP of libm's for |a| <= BOIDS_TRIG_MAX.
float boids_sinf(float a) {
    float q;
    float r = quadrant(a, &q);
    float v = (q == 0.0f || q == 2.0f) ? sin_poly(r) : cos_poly(r);
    return q >= 2.0f ? -v : v;
}

// cos a (radians); within 2 ULP of libm's for |a| <= BOIDS_TRIG_MAX.
float boids_cosf(float a) {
    float q;
    float r = quadrant(a, &q);
    float v = (q == 0.0f || q == 2.0f) ? cos_poly(r) : sin_poly(r);
    return (q == 1.0f || q == 2.0f) ? -v : v;
}

// atan2(y, x) in [-pi, pi] (libm's within 3 ULP). The ratio of the smaller
// magnitude to the larger, n / d in [0, 1], is brought to |t| <= tan(pi/8)
// (t = n / d, or t = (n - d) / (n + d) and pi/4 added), the quadrant by
// symmetry. (0, 0), an infinity or a NaN give 0; the sign of a zero y is not
// read (atan2(-0, -1) is pi).
float boids_atan2f(float y, float x) {
    float ax = fabsf(x), ay = fabsf(y);
    if (!(ax < INFINITY && ay < INFINITY) || (ax == 0.0f && ay == 0.0f))
        return 0.0f;
    bool swap = ay > ax;
    float n = swap ? ax : ay, d = swap ? ay : ax;
    float t, base = 0.0f, base_lo = 0.0f;
    if (n <= d * BOIDS_TAN_PI_8) {
        t = n / d;
    } else {
        float num = n - d, den = n + d;
        t = num / den;
        base = BOIDS_PIO4_HI;
        base_lo = BOIDS_PIO4_LO;
    }
    float z = t * t;
    float p = BOIDS_ATAN_A4 * z;
    p = p + BOIDS_ATAN_A3;
    p = p * z;
    p = p + BOIDS_ATAN_A2;
    p = p * z;
    p = p + BOIDS_ATAN_A1;
    float u = t * z;
    u = u * p;
    float r = u + base_lo;
    r = r + t;
    r = base + r;
    if (swap) { // pi/2 - r
        float s = BOIDS_PIO2_LO - r;
        r = BOIDS_PIO2_HI + s;
    }
    if (x < 0.0f) { // pi - r
        float s = BOIDS_PI_LO - r;
        r = BOIDS_PI_HI + s;
    }
    return y < 0.0f ? -r : r;
}

// Natural logarithm (libm's within 2 ULP): x = m 2^e with m in [sqrt(1/2),
// sqrt(2)) read from the bits (subnormals scaled by 2^23 first), f = m - 1,
// log x = e ln 2 + f - f^2/2 + f^3 P(f). 0 gives -infinity, a negative or NaN
// x NaN, +infinity itself.
float boids_logf(float x) {
    if (!(x > 0.0f))
        return x == 0.0f ? -INFINITY : NAN;
    if (!(x < INFINITY))
        return x;
    float e = 0.0f;
    if (x < 1.17549435e-38f) {
        x = x * 8388608.0f;
        e = -23.0f;
    }
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    e = e + (float)((int32_t)(bits >> 23) - 127);
    bits = (bits & 0x7fffffu) | 0x3f800000u;
    float m;
    memcpy(&m, &bits, sizeof m);
    if (m > BOIDS_SQRT2) {
        m = m * 0.5f;
        e = e + 1.0f;
    }
    float f = m - 1.0f;
    float p = BOIDS_LOG_L7 * f;
    p = p + BOIDS_LOG_L6;
    p = p * f;
    p = p + BOIDS_LOG_L5;
    p = p * f;
    p = p + BOIDS_LOG_L4;
    p = p * f;
    p = p + BOIDS_LOG_L3;
    p = p * f;
    p = p + BOIDS_LOG_L2;
    p = p * f;
    p = p + BOIDS_LOG_L1;
    float f2 = f * f;
    float f3 = f2 * f;
    float t = f3 * p;
    float h = 0.5f * f2;
    float r = e * BOIDS_LN2_LO;
    r = r + t;
    r = r - h;
    r = r + f;
    float hi = e * BOIDS_LN2_HI;
    return hi + r;
}
