// shaders/rounding.glsl: square root and division as the C reference
// computes them (correctly rounded, IEEE 754), whatever the driver's own
// precision. Assembled after shared.h and common.glsl, before trig.glsl and
// behaviors.glsl (src/gl/program_source.c); every float root and quotient of
// the compute shaders goes through cr_sqrt() and fdiv().

// ---- square root and division as C computes them ---------------------------
// GLSL 4.50 lets a driver's sqrt be 1/inversesqrt() with their error bounds
// and its division be 2.5 ULP off; the C reference's are correctly rounded
// (IEEE 754). A result the next float away turns every decision made on it
// (a threshold, a side, a nearest) at its edge, and the state's bits with it.
// So where the driver's are not correctly rounded (src/gpu/gpu_probe.c probes it
// with rounding_probe.comp and then defines BOIDS_CORRECT_ROUNDING), the
// driver's result is only a candidate, and the float the C computes is
// decided from it in one step with 32-bit integers, no double (consumer
// GPUs run FP64 at 1/32 to 1/64 of the FP32 rate):
//   - the exponent of the correct result follows from the operands'
//     exponents, and its 24-bit significand R (in [2^23, 2^24), never
//     carried into the next binade) is the integer nearest to the exact
//     root or quotient of the operands' significands, suitably scaled;
//   - the candidate's significand c, its bits less the correct binade's
//     (across a power of two too), is within 4 of R where the driver's
//     bits are within 4 of the correct ones (GLSL: division 2.5 ULP, sqrt
//     about 3 as 1 / inversesqrt); it is clamped into the binade, which
//     keeps R in reach where a driver flushed a quotient just above
//     2^-126 to 0;
//   - the residual, the exact 4 (X 2^t - c^2) for a root, 2 (A 2^s - c B)
//     for a quotient, is below 2^30 in magnitude, so its low 32 bits (uint
//     arithmetic wraps modulo 2^32, GLSL 4.50 section 4.1.3) are exact;
//   - comparing it with the residuals at the midpoints c +- 1/2, 3/2, 5/2,
//     7/2 (4 compares, on the residual's side) counts how far R is from c.
// No root or quotient of floats lies on a midpoint (it would have 25
// significant bits and an odd last one), so every compare is strict.
// Corrected: cr_sqrt for x positive normal (2^-126 <= x <= FLT_MAX); fdiv
// for a and b normal and |a / b| >= 2^-126 (a quotient of 2^128 or more:
// infinity of the quotient's sign, as C rounds it). Elsewhere the driver's
// result is kept: exact anyway for 0, infinity and NaN operands, and below
// the normal range (subnormal operands or quotients; GLSL lets a driver
// flush them).
// The correction is compiled where BOIDS_CORRECT_ROUNDING is defined, one
// block per function (tests/test_strict_driver.sh removes both to show the
// emulation bites).
// BOIDS_DIV_RESULT: the driver's quotient (shaders/emulate.glsl may move it).
#ifndef BOIDS_DIV_RESULT
#define BOIDS_DIV_RESULT(q) (q)
#endif

// R - c, where R is the integer nearest an exact value v and c a candidate
// with |R - c| <= 4, from res, v's residual at c (an exact integer with the
// sign of v - c): v lies past the midpoint c + j/2 (j = 1, 3, 5, 7, on res's
// side) where |res| exceeds that midpoint's residual, j unit + j^2 sq with
// res's sign on the second term (sq = 0 for a quotient, whose residual is
// linear in v; 1 for a root, whose residual is 4 (v^2 - c^2)).
int cr_nudge(int res, int unit, int sq) {
    int mag = abs(res), sg = res < 0 ? -sq : sq;
    int n = int(mag > unit + sg) + int(mag > 3 * unit + 9 * sg) + int(mag > 5 * unit + 25 * sg) +
            int(mag > 7 * unit + 49 * sg);
    return res < 0 ? -n : n;
}

// C twin: sqrtf (correctly rounded). Nearest float to the root of x.
// x = X 2^(E - 150), X its 24-bit significand, E its biased exponent; with
// t = 24 - (E & 1), E - 150 - t is even and sqrt(x) = sqrt(X 2^t)
// 2^((E - 150 - t) / 2), sqrt(X 2^t) in [2^23, 2^24 - 1/2) (X 2^t <=
// 2^48 - 2^24): R its nearest integer, the result's biased exponent
// (E + 127) >> 1. The residual at c: 4 (X 2^t - c^2), |.| < 2^30 for
// |R - c| <= 4; at the midpoint c + j/2 (j odd): j (4c + j).
float cr_sqrt(float x) {
    float r = sqrt(x);
#ifdef BOIDS_CORRECT_ROUNDING
    uint ux = floatBitsToUint(x);
    uint e = ux >> 23u, base = (((e + 127u) >> 1u) - 1u) << 23u; // the result's bits less R
    int c = clamp(int(floatBitsToUint(r) - base), 0x800000, 0xffffff);
    uint x4 = ((ux & 0x7fffffu) | 0x800000u) << (26u - (e & 1u)); // 4 X 2^t modulo 2^32
    c += cr_nudge(int(x4 - uint(c) * uint(c) * 4u), 4 * c, 1);
    // Selected, not branched on (no divergence): x positive normal takes
    // it (NaN, infinity, 0, subnormal and below: the driver's).
    r = ux - 0x00800000u < 0x7f000000u ? uintBitsToFloat(base + uint(c)) : r;
#endif
    return r;
}
#undef sqrt
#define sqrt(x) cr_sqrt(x)

// C twin: a / b (correctly rounded). Nearest float to the quotient.
// a = A 2^(Ea - 150), b = B 2^(Eb - 150), A, B 24-bit significands; with
// s = 23 + (A < B), A 2^s / B lies in [2^23, 2^24 - 1/2): R its nearest
// integer, the quotient's biased exponent Ea - Eb - (A < B) + 127. The
// residual at c: 2 (A 2^s - c B), |.| < 2^28 for |R - c| <= 4; at the
// midpoint c + j/2: j B.
float fdiv(float a, float b) {
    float q = BOIDS_DIV_RESULT(a / b);
#ifdef BOIDS_CORRECT_ROUNDING
    uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
    uint ea = (ua >> 23u) & 0xffu, eb = (ub >> 23u) & 0xffu;
    uint ma = (ua & 0x7fffffu) | 0x800000u, mb = (ub & 0x7fffffu) | 0x800000u;
    uint below = uint(ma < mb), sgn = (ua ^ ub) & 0x80000000u;
    int er = int(ea) - int(eb) - int(below) + 127;
    uint base = uint(er - 1) << 23u;
    int c = clamp(int((floatBitsToUint(q) & 0x7fffffffu) - base), 0x800000, 0xffffff);
    c += cr_nudge(int((ma << (24u + below)) - uint(c) * mb * 2u), int(mb), 0);
    uint bits = er >= 255 ? 0x7f800000u : base + uint(c); // 2^128 or more: rounds to infinity
    // Selected, not branched on (no divergence): a and b normal and a
    // normal quotient or infinity (NaN, infinity, 0, subnormal, below
    // 2^-126: the driver's).
    q = ea - 1u < 254u && eb - 1u < 254u && er >= 1 ? uintBitsToFloat(sgn | bits) : q;
#endif
    return q;
}
