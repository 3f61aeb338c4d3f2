// shaders/trig.glsl: sine, cosine, arctangent and logarithm as the C
// reference computes them. C twins: src/core/trig.c boids_sinf(),
// boids_cosf(), boids_atan2f(), boids_logf(). Assembled after rounding.glsl
// (fdiv), before behaviors.glsl.
//
// GLSL states no precision for its sin, cos, atan and log; no compute shader
// calls them. These are the same float operations as the C, statement by
// statement, each `precise` (no driver fuses a multiply into an add), so the
// same bits on every driver. Constants: shared.h (BOIDS_SIN_S* ...).

// C twin: trig.c sin_poly(). sin r on |r| <= pi/4.
float sin_poly(float r) {
    precise float z = r * r;
    precise float p = BOIDS_SIN_S3 * z;
    p = p + BOIDS_SIN_S2;
    p = p * z;
    p = p + BOIDS_SIN_S1;
    precise float t = r * z;
    t = t * p;
    precise float s = r + t;
    return s;
}

// C twin: trig.c cos_poly(). cos r on |r| <= pi/4.
float cos_poly(float r) {
    precise float z = r * r;
    precise float p = BOIDS_COS_C3 * z;
    p = p + BOIDS_COS_C2;
    p = p * z;
    p = p + BOIDS_COS_C1;
    precise float h = 0.5 * z;
    precise float w = 1.0 - h;
    precise float t = z * z;
    t = t * p;
    precise float c = w + t;
    return c;
}

// C twin: trig.c quadrant(). a - k pi/2, k the nearest quadrant count; q = k
// mod 4. |a| beyond BOIDS_TRIG_MAX, infinity or NaN: 0.
float quadrant(float a, out float q) {
    if (!(abs(a) <= BOIDS_TRIG_MAX))
        a = 0.0;
    precise float k = a * BOIDS_TWO_OVER_PI;
    k = floor(k + 0.5);
    precise float r = a - k * BOIDS_PIO2_1;
    r = r - k * BOIDS_PIO2_2;
    r = r - k * BOIDS_PIO2_3;
    precise float k4 = floor(k * 0.25);
    precise float m = k - 4.0 * k4;
    q = m;
    return r;
}

// C twin: trig.c boids_sinf(). sin a (radians).
float sinf(float a) {
    float q;
    float r = quadrant(a, q);
    float v = (q == 0.0 || q == 2.0) ? sin_poly(r) : cos_poly(r);
    return q >= 2.0 ? -v : v;
}

// C twin: trig.c boids_cosf(). cos a (radians).
float cosf(float a) {
    float q;
    float r = quadrant(a, q);
    float v = (q == 0.0 || q == 2.0) ? cos_poly(r) : sin_poly(r);
    return (q == 1.0 || q == 2.0) ? -v : v;
}

// C twin: trig.c boids_atan2f(). atan2(y, x) in [-pi, pi]; (0, 0), an
// infinity or a NaN give 0.
float atan2f(float y, float x) {
    float ax = abs(x), ay = abs(y);
    if (!(ax < BOIDS_INFINITY && ay < BOIDS_INFINITY) || (ax == 0.0 && ay == 0.0))
        return 0.0;
    bool swap = ay > ax;
    float n = swap ? ax : ay, d = swap ? ay : ax;
    float t, base = 0.0, base_lo = 0.0;
    precise float dt = d * BOIDS_TAN_PI_8;
    if (n <= dt) {
        t = fdiv(n, d);
    } else {
        precise float num = n - d, den = n + d;
        t = fdiv(num, den);
        base = BOIDS_PIO4_HI;
        base_lo = BOIDS_PIO4_LO;
    }
    precise float z = t * t;
    precise float p = BOIDS_ATAN_A4 * z;
    p = p + BOIDS_ATAN_A3;
    p = p * z;
    p = p + BOIDS_ATAN_A2;
    p = p * z;
    p = p + BOIDS_ATAN_A1;
    precise float u = t * z;
    u = u * p;
    precise float r = u + base_lo;
    r = r + t;
    r = base + r;
    if (swap) { // pi/2 - r
        precise float s = BOIDS_PIO2_LO - r;
        r = BOIDS_PIO2_HI + s;
    }
    if (x < 0.0) { // pi - r
        precise float s = BOIDS_PI_LO - r;
        r = BOIDS_PI_HI + s;
    }
    return y < 0.0 ? -r : r;
}

// C twin: trig.c boids_logf(). Natural logarithm; 0 gives -infinity, a
// negative or NaN x NaN, +infinity itself.
float logf(float x) {
    if (!(x > 0.0))
        return x == 0.0 ? -BOIDS_INFINITY : uintBitsToFloat(0x7fc00000u);
    if (!(x < BOIDS_INFINITY))
        return x;
    precise float e = 0.0;
    if (x < 1.17549435e-38) {
        precise float s = x * 8388608.0;
        x = s;
        e = -23.0;
    }
    uint bits = floatBitsToUint(x);
    e = e + float(int(bits >> 23u) - 127);
    bits = (bits & 0x7fffffu) | 0x3f800000u;
    float m = uintBitsToFloat(bits);
    if (m > BOIDS_SQRT2) {
        precise float h = m * 0.5;
        m = h;
        e = e + 1.0;
    }
    precise float f = m - 1.0;
    precise float p = BOIDS_LOG_L7 * f;
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
    precise float f2 = f * f;
    precise float f3 = f2 * f;
    precise float t = f3 * p;
    precise float h = 0.5 * f2;
    precise float r = e * BOIDS_LN2_LO;
    r = r + t;
    r = r - h;
    r = r + f;
    precise float hi = e * BOIDS_LN2_HI;
    precise float l = hi + r;
    return l;
}
