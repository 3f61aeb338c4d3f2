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
// So where the driver's are not correctly rounded (src/gpu/gpu.c probes it
// with rounding_probe.comp and then defines BOIDS_CORRECT_ROUNDING), the
// driver's result is nudged, one ULP at a time, to the float the C
// computes, decided exactly in double: the midpoint between two floats has
// 25 significant bits, its square or its product with a float at most 50,
// exact in double (no fused or faithful rounding changes an exact result),
// and no root or quotient of floats lies on a midpoint. The driver's is kept
// where it is exact anyway (0, infinity, NaN) and below the normal range.
// BOIDS_DIV_RESULT: the driver's quotient (shaders/emulate.glsl may move it).
#ifndef BOIDS_DIV_RESULT
#define BOIDS_DIV_RESULT(q) (q)
#endif

// The float next to x (x > 0 finite) away from zero (up) or toward it.
float next_up(float x) { return uintBitsToFloat(floatBitsToUint(x) + 1u); }
float next_down(float x) { return uintBitsToFloat(floatBitsToUint(x) - 1u); }

// C twin: sqrtf (correctly rounded). Nearest float to the root of x.
float cr_sqrt(float x) {
    float r = sqrt(x);
#ifdef BOIDS_CORRECT_ROUNDING
    if (!(x >= 1.17549435e-38) || isinf(x) || !(r > 0.0) || isinf(r))
        return r;
    double dx = double(x);
    for (int k = 0; k < 4; k++) { // the driver's is at most a few ULP off
        double hi = 0.5 * (double(r) + double(next_up(r))), lo = 0.5 * (double(r) + double(next_down(r)));
        if (hi * hi <= dx)
            r = next_up(r);
        else if (lo * lo > dx)
            r = next_down(r);
        else
            break;
    }
#endif
    return r;
}
#undef sqrt
#define sqrt(x) cr_sqrt(x)

// C twin: a / b (correctly rounded). Nearest float to the quotient.
float fdiv(float a, float b) {
    float q = BOIDS_DIV_RESULT(a / b);
#ifndef BOIDS_CORRECT_ROUNDING
    return q;
#else
    float m = abs(q);
    if (!(m >= 1.17549435e-38) || isinf(m) || isnan(b))
        return q;
    double da = abs(double(a)), db = abs(double(b));
    for (int k = 0; k < 4; k++) {
        double hi = 0.5 * (double(m) + double(next_up(m))), lo = 0.5 * (double(m) + double(next_down(m)));
        if (hi * db <= da)
            m = next_up(m);
        else if (lo * db > da)
            m = next_down(m);
        else
            break;
    }
    return q < 0.0 ? -m : m;
#endif
}
