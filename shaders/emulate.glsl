// shaders/emulate.glsl: test-only. Emulates, on a driver that computes
// these exactly (Mesa's llvmpipe), what GLSL 4.50 (section 4.7.1; and
// GL_ARB_gpu_shader_int64) lets another driver do differently, so that the
// GPU path's portability is tested without that driver. Assembled first in
// every compute shader, before shared.h, only when the engine is created
// with $BOIDS_EMULATE set (src/gpu/gpu.c; program_source.c defines one
// BOIDS_EMULATE_* per item). Each item replaces a built-in by a function
// that calls the built-in (declared here, before the macro that renames the
// built-in's calls in the sources after it):
//   BOIDS_EMULATE_CONV_SAT / _CONV_WRAP: a float outside an integer type's
//     range (undefined in GLSL) converted through 32 bits, saturating or
//     wrapping modulo 2^32: int(), uint(), int64_t(), uint64_t();
//   BOIDS_EMULATE_ULP_UP / _ULP_DOWN: sqrt(), inversesqrt() and division
//     BOIDS_EMULATE_ULP ULPs off, away from zero or toward it (sqrt is
//     "inherited from 1.0 / inversesqrt()", inversesqrt 2 ULP, division 2.5
//     ULP; the driver's rounding, not the correct one). Division: the
//     quotient of rounding.glsl's fdiv(), through BOIDS_DIV_RESULT (an
//     operator cannot be renamed).
// No shader of the pipeline should depend on any of these: validation
// passes under each (tests/test_strict_driver.sh).

#if defined(BOIDS_EMULATE_CONV_SAT) || defined(BOIDS_EMULATE_CONV_WRAP)
// v (an integer when |v| >= 2^24) modulo 2^32, in [0, 2^32): exact (the
// result is a multiple of v's ulp, below 2^32, so it has at most 24 bits).
float emu_mod32(float v) {
    float q = floor(v * (1.0 / 4294967296.0));
    return v - q * 4294967296.0;
}

// float -> int through 32 bits: in range as the built-in, outside it
// saturated or wrapped.
int emu_i32(float v) {
    if (isnan(v))
        return 0;
    if (v >= 2147483648.0 || v < -2147483648.0) {
#ifdef BOIDS_EMULATE_CONV_SAT
        return v > 0.0 ? 2147483647 : int(0x80000000u);
#else
        return int(uint(emu_mod32(v)));
#endif
    }
    return int(v);
}
int emu_i32(int v) { return v; }
int emu_i32(uint v) { return int(v); }
int emu_i32(bool v) { return int(v); }

// float -> uint through 32 bits: negative values (beyond -1) and values of
// 2^32 or more saturated or wrapped.
uint emu_u32(float v) {
    if (isnan(v))
        return 0u;
    if (v >= 4294967296.0 || v <= -1.0) {
#ifdef BOIDS_EMULATE_CONV_SAT
        return v > 0.0 ? 0xffffffffu : 0u;
#else
        return uint(emu_mod32(v));
#endif
    }
    return uint(v);
}
uint emu_u32(int v) { return uint(v); }
uint emu_u32(uint v) { return v; }
uint emu_u32(bool v) { return uint(v); }

#ifdef BOIDS_INT64
// float -> 64-bit integers through 32 bits (what an H200 was seen to do
// with int64_t(float) of 2^31 or more); integers convert as the built-ins.
int64_t emu_i64(float v) { return int64_t(emu_i32(v)); }
int64_t emu_i64(int v) { return int64_t(v); }
int64_t emu_i64(uint v) { return int64_t(v); }
int64_t emu_i64(int64_t v) { return v; }
int64_t emu_i64(uint64_t v) { return int64_t(v); }
uint64_t emu_u64(float v) { return uint64_t(emu_u32(v)); }
uint64_t emu_u64(int v) { return uint64_t(v); }
uint64_t emu_u64(uint v) { return uint64_t(v); }
uint64_t emu_u64(int64_t v) { return uint64_t(v); }
uint64_t emu_u64(uint64_t v) { return v; }
#define int64_t(x) emu_i64(x)
#define uint64_t(x) emu_u64(x)
#endif
#define int(x) emu_i32(x)
#define uint(x) emu_u32(x)
#endif

#if defined(BOIDS_EMULATE_ULP_UP) || defined(BOIDS_EMULATE_ULP_DOWN)
#ifndef BOIDS_EMULATE_ULP
#define BOIDS_EMULATE_ULP 2
#endif
// A non-zero, finite result moved BOIDS_EMULATE_ULP ULPs away from zero
// (up) or toward it (down); 0, infinity and NaN as they are.
float emu_ulp(float r) {
    if (r == 0.0 || isinf(r) || isnan(r))
        return r;
#ifdef BOIDS_EMULATE_ULP_UP
    return uintBitsToFloat(floatBitsToUint(r) + uint(BOIDS_EMULATE_ULP));
#else
    return uintBitsToFloat(floatBitsToUint(r) - uint(BOIDS_EMULATE_ULP));
#endif
}
float emu_sqrt(float x) { return emu_ulp(sqrt(x)); }
vec2 emu_sqrt(vec2 x) { return vec2(emu_sqrt(x.x), emu_sqrt(x.y)); }
vec3 emu_sqrt(vec3 x) { return vec3(emu_sqrt(x.x), emu_sqrt(x.y), emu_sqrt(x.z)); }
vec4 emu_sqrt(vec4 x) { return vec4(emu_sqrt(x.x), emu_sqrt(x.y), emu_sqrt(x.z), emu_sqrt(x.w)); }
float emu_inversesqrt(float x) { return emu_ulp(inversesqrt(x)); }
vec2 emu_inversesqrt(vec2 x) { return vec2(emu_inversesqrt(x.x), emu_inversesqrt(x.y)); }
vec3 emu_inversesqrt(vec3 x) { return vec3(emu_inversesqrt(x.x), emu_inversesqrt(x.y), emu_inversesqrt(x.z)); }
vec4 emu_inversesqrt(vec4 x) {
    return vec4(emu_inversesqrt(x.x), emu_inversesqrt(x.y), emu_inversesqrt(x.z), emu_inversesqrt(x.w));
}
#define sqrt(x) emu_sqrt(x)
#define inversesqrt(x) emu_inversesqrt(x)
#define BOIDS_DIV_RESULT(q) emu_ulp(q)
#endif
