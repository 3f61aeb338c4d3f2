// shaders/emulate.glsl: test-only. Emulates, on a driver that computes
// these exactly (Mesa's llvmpipe), what GLSL 4.50 (section 4.7.1; and
// GL_ARB_gpu_shader_int64) lets another driver do differently, so that the
// GPU path's portability is tested without that driver. Assembled first in
// every compute shader, before shared.h, only when the engine is created
// with the emulate hook set (BOIDS_DEBUG=emulate=..., or the engine desc's
// debug.emulate; src/gpu/gpu_probe.c reads it, program_source.c defines one
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
//     operator cannot be renamed);
//   BOIDS_EMULATE_DIV_UP / _DIV_DOWN: every division, the `/` operator
//     included, BOIDS_EMULATE_ULP ULPs off (float quotients; integer ones
//     stay exact, as GLSL requires). A macro cannot reach an operator, so
//     this item needs the shaders rewritten by tests/div_rewrite.py (each
//     `a / b` made emu_div(a, b), fdiv()'s own among them), loaded with
//     --shader-dir; without that rewrite it refuses to compile. fdiv()'s
//     quotient is then moved once, by emu_div: BOIDS_DIV_RESULT is left
//     alone even under ulp-up / ulp-down;
//   BOIDS_EMULATE_TRIG: sin(), cos(), tan(), asin(), acos(), atan() (one and
//     two arguments), log(), log2(), exp(), exp2() and pow(), every scalar
//     and vector form, moved toward zero (below).
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

#if defined(BOIDS_EMULATE_ULP_UP) || defined(BOIDS_EMULATE_ULP_DOWN) || defined(BOIDS_EMULATE_DIV_UP) || defined(BOIDS_EMULATE_DIV_DOWN) || defined(BOIDS_EMULATE_TRIG)
#ifndef BOIDS_EMULATE_ULP
#define BOIDS_EMULATE_ULP 2
#endif
// r moved n ULPs away from zero (n > 0) or toward it (n < 0), never past
// zero nor past infinity; 0, infinity and NaN as they are.
float emu_ulp_by(float r, int n) {
    if (r == 0.0 || isinf(r) || isnan(r))
        return r;
    uint b = floatBitsToUint(r), m = b & 0x7fffffffu, s = b & 0x80000000u;
    if (n < 0)
        return uintBitsToFloat(s | (m > uint(-n) ? m - uint(-n) : 0u));
    return uintBitsToFloat(s | min(m + uint(n), 0x7f800000u));
}
#endif

#if defined(BOIDS_EMULATE_ULP_UP) || defined(BOIDS_EMULATE_ULP_DOWN)
// A non-zero, finite result moved BOIDS_EMULATE_ULP ULPs away from zero
// (up) or toward it (down); 0, infinity and NaN as they are.
float emu_ulp(float r) {
#ifdef BOIDS_EMULATE_ULP_UP
    return emu_ulp_by(r, BOIDS_EMULATE_ULP);
#else
    return emu_ulp_by(r, -BOIDS_EMULATE_ULP);
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
#if !defined(BOIDS_EMULATE_DIV_UP) && !defined(BOIDS_EMULATE_DIV_DOWN)
#define BOIDS_DIV_RESULT(q) emu_ulp(q) // under div-*, emu_div moves it (once)
#endif
#endif

#if defined(BOIDS_EMULATE_DIV_UP) || defined(BOIDS_EMULATE_DIV_DOWN)
#ifndef BOIDS_DIV_REWRITTEN
#error the emulate hook div-up or div-down needs the shaders rewritten by tests/div_rewrite.py, loaded with --shader-dir
#endif
// A float quotient BOIDS_EMULATE_ULP ULPs away from zero (up) or toward it
// (down): GLSL allows 2.5 ULP, or a * (1 / b), for any a / b.
float emu_div_move(float q) {
#ifdef BOIDS_EMULATE_DIV_UP
    return emu_ulp_by(q, BOIDS_EMULATE_ULP);
#else
    return emu_ulp_by(q, -BOIDS_EMULATE_ULP);
#endif
}
// Every operand pair GLSL's `/` takes: both of one type, or a scalar with
// a vector of its component type (either side).
float emu_div(float a, float b) { return emu_div_move(a / b); }
vec2 emu_div(vec2 a, vec2 b) { return vec2(emu_div(a.x, b.x), emu_div(a.y, b.y)); }
vec3 emu_div(vec3 a, vec3 b) { return vec3(emu_div(a.x, b.x), emu_div(a.y, b.y), emu_div(a.z, b.z)); }
vec4 emu_div(vec4 a, vec4 b) {
    return vec4(emu_div(a.x, b.x), emu_div(a.y, b.y), emu_div(a.z, b.z), emu_div(a.w, b.w));
}
#define BOIDS_EMU_DIV_MIXED(V, S) \
    V emu_div(V a, S b) { return emu_div(a, V(b)); } \
    V emu_div(S a, V b) { return emu_div(V(a), b); }
BOIDS_EMU_DIV_MIXED(vec2, float)
BOIDS_EMU_DIV_MIXED(vec3, float)
BOIDS_EMU_DIV_MIXED(vec4, float)
// Integer quotients are exact on every driver (truncated toward zero).
#define BOIDS_EMU_DIV_EXACT(V, S) \
    V emu_div(V a, V b) { return a / b; } \
    V emu_div(V a, S b) { return a / b; } \
    V emu_div(S a, V b) { return a / b; }
int emu_div(int a, int b) { return a / b; }
uint emu_div(uint a, uint b) { return a / b; }
BOIDS_EMU_DIV_EXACT(ivec2, int)
BOIDS_EMU_DIV_EXACT(ivec3, int)
BOIDS_EMU_DIV_EXACT(ivec4, int)
BOIDS_EMU_DIV_EXACT(uvec2, uint)
BOIDS_EMU_DIV_EXACT(uvec3, uint)
BOIDS_EMU_DIV_EXACT(uvec4, uint)
#ifdef BOIDS_INT64
int64_t emu_div(int64_t a, int64_t b) { return a / b; }
uint64_t emu_div(uint64_t a, uint64_t b) { return a / b; }
BOIDS_EMU_DIV_EXACT(i64vec2, int64_t)
BOIDS_EMU_DIV_EXACT(i64vec3, int64_t)
BOIDS_EMU_DIV_EXACT(i64vec4, int64_t)
BOIDS_EMU_DIV_EXACT(u64vec2, uint64_t)
BOIDS_EMU_DIV_EXACT(u64vec3, uint64_t)
BOIDS_EMU_DIV_EXACT(u64vec4, uint64_t)
#endif
#endif

#ifdef BOIDS_EMULATE_TRIG
// GLSL 4.50 states no precision for these. The emulated driver's result is
// the built-in's moved toward zero (so it stays in the function's range:
// |sin| <= 1, acos <= pi, exp >= 0) by BOIDS_EMULATE_TRIG_ULP ULPs, and for
// sin and cos by at least 2^-21, for log and log2 by at least 2^-22: what
// NVIDIA documents for its hardware paths (CUDA's __sinf / __cosf: absolute
// error 2^-21.41 on [-pi, pi]; __log2f: 2^-22 on [0.5, 2], else 2 ULP;
// ex2: 2 ULP), well inside Vulkan's bounds (sin, cos 2^-11 absolute; exp
// 3 + 2|x| ULP; log 3 ULP or 2^-21; atan 4096 ULP).
#ifndef BOIDS_EMULATE_TRIG_ULP
#define BOIDS_EMULATE_TRIG_ULP 4
#endif
float emu_trig(float r, float at_least) {
    float m = emu_ulp_by(r, -BOIDS_EMULATE_TRIG_ULP);
    if (isinf(r) || isnan(r) || abs(r - m) >= at_least)
        return m;
    return abs(r) > at_least ? r - sign(r) * at_least : 0.0 * r;
}
float emu_sin(float x) { return emu_trig(sin(x), 4.76837158e-07); } // 2^-21
float emu_cos(float x) { return emu_trig(cos(x), 4.76837158e-07); }
float emu_tan(float x) { return emu_trig(tan(x), 0.0); }
float emu_asin(float x) { return emu_trig(asin(x), 0.0); }
float emu_acos(float x) { return emu_trig(acos(x), 0.0); }
float emu_atan(float y_over_x) { return emu_trig(atan(y_over_x), 0.0); }
float emu_atan(float y, float x) { return emu_trig(atan(y, x), 0.0); }
float emu_log(float x) { return emu_trig(log(x), 2.38418579e-07); } // 2^-22
float emu_log2(float x) { return emu_trig(log2(x), 2.38418579e-07); }
float emu_exp(float x) { return emu_trig(exp(x), 0.0); }
float emu_exp2(float x) { return emu_trig(exp2(x), 0.0); }
float emu_pow(float x, float y) { return emu_trig(pow(x, y), 0.0); }
// The vector forms, component by component.
#define BOIDS_EMU_VEC1(F) \
    vec2 F(vec2 x) { return vec2(F(x.x), F(x.y)); } \
    vec3 F(vec3 x) { return vec3(F(x.x), F(x.y), F(x.z)); } \
    vec4 F(vec4 x) { return vec4(F(x.x), F(x.y), F(x.z), F(x.w)); }
#define BOIDS_EMU_VEC2(F) \
    vec2 F(vec2 x, vec2 y) { return vec2(F(x.x, y.x), F(x.y, y.y)); } \
    vec3 F(vec3 x, vec3 y) { return vec3(F(x.x, y.x), F(x.y, y.y), F(x.z, y.z)); } \
    vec4 F(vec4 x, vec4 y) { return vec4(F(x.x, y.x), F(x.y, y.y), F(x.z, y.z), F(x.w, y.w)); }
BOIDS_EMU_VEC1(emu_sin)
BOIDS_EMU_VEC1(emu_cos)
BOIDS_EMU_VEC1(emu_tan)
BOIDS_EMU_VEC1(emu_asin)
BOIDS_EMU_VEC1(emu_acos)
BOIDS_EMU_VEC1(emu_atan)
BOIDS_EMU_VEC2(emu_atan)
BOIDS_EMU_VEC1(emu_log)
BOIDS_EMU_VEC1(emu_log2)
BOIDS_EMU_VEC1(emu_exp)
BOIDS_EMU_VEC1(emu_exp2)
BOIDS_EMU_VEC2(emu_pow)
#define sin(x) emu_sin(x)
#define cos(x) emu_cos(x)
#define tan(x) emu_tan(x)
#define asin(x) emu_asin(x)
#define acos(x) emu_acos(x)
#define atan emu_atan // one argument or two: GLSL's preprocessor has no variadic macro
#define log(x) emu_log(x)
#define log2(x) emu_log2(x)
#define exp(x) emu_exp(x)
#define exp2(x) emu_exp2(x)
#define pow(x, y) emu_pow(x, y)
#endif
