/* boids/debug.h: the test hooks of the engine and the GPU backend, never
 * needed by a user: fields of boids_engine_desc.debug (passed down to
 * boids_gpu_desc.debug), zero = none, the real behaviour. A field a program
 * leaves zero is filled by boids_engine_create from the item of BOIDS_DEBUG
 * (boids_debug_value, boids/core.h) whose name is written beside it, so
 * every program and the Python package reach them through that one
 * variable: BOIDS_DEBUG='emulate=div-up,trig;fault=lost@37;correct-rounding=off'.
 * docs/ARCHITECTURE.md "Debug hooks" lists every item.
 *
 * Offers: boids_debug, boids_debug_rounding.
 */
#ifndef BOIDS_DEBUG_H
#define BOIDS_DEBUG_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

// Whether the shaders correct sqrt and division to the C's correctly
// rounded results (shaders/rounding.glsl).
typedef enum boids_debug_rounding {
    BOIDS_DEBUG_ROUNDING_AUTO, // where rounding_probe.comp finds the driver's differ ("auto")
    BOIDS_DEBUG_ROUNDING_ON,   // always ("on"): the same bits, only slower
    BOIDS_DEBUG_ROUNDING_OFF,  // never ("off"): the driver's own results
} boids_debug_rounding;

typedef struct boids_debug {
    // "emulate": what GLSL 4.50 lets a driver do differently, emulated in
    // every compute shader (shaders/emulate.glsl), separated by commas:
    // conv-sat or conv-wrap (out-of-range float -> integer through 32
    // bits), ulp-up or ulp-down (sqrt, inversesqrt and fdiv's division 2 ULP
    // off), div-up or div-down (every float division 2 ULP off: needs a
    // shader_dir rewritten by tests/div_rewrite.py), trig (sin, cos, tan,
    // asin, acos, atan, log, log2, exp, exp2, pow a few ULP off). NULL or
    // "": none.
    const char *emulate;
    // "fault": a GPU fault injected (boids/gpu.h Faults): lost@STEP,
    // error@STEP (STEP 1..1000000000) or oom. NULL or "": none.
    const char *fault;
    boids_debug_rounding correct_rounding; // "correct-rounding": auto, on or off
    bool steer_general;                    // "steer-general": every step with the general steer program
    bool no_int64;                         // "no-int64": the sums in uint pairs where the context has int64
} boids_debug;

#ifdef __cplusplus
}
#endif

#endif
