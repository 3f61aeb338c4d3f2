/* boids/tolerance.h: how far the GPU backend may lie from the CPU reference
 * after one step (per unit of maxspeed) and after runs of the bodies stage,
 * from the GLSL 4.50 precision rules (the reasoning: src/app/boids_validate.c).
 * Shared by boids-validate (through boids/engine.h), boids/gpu.h and the gpu
 * tests.
 *
 * Offers: BOIDS_TOL_ARITH / _TRIG / _REL, boids_tol_joint.
 */
#ifndef BOIDS_TOLERANCE_H
#define BOIDS_TOLERANCE_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_TOL_ARITH (64.0f * 1.1920929e-7f) // a few ULP through ~10 correctly rounded operations
#define BOIDS_TOL_TRIG (4.0f * 4.8828125e-4f)   // sin / cos / atan: 2^-11 absolute
#define BOIDS_TOL_REL (1.0f / 65536.0f)         // relative part

// A body's joint number `joint` (0 = the head), `reach` along it (the
// segments from the head), after `steps` runs of the bodies stage from the
// same heads. Per step and joint: 8 ULP of the coordinate (sqrt, / and the
// adds of each segment, inherited down the chain) and 4 trigonometric errors
// (2D: atan, cos, sin) of `trig` radians per unit of reach; errors carried
// from step to step add up. trig: boids_gpu_trig_error() (measured), or
// BOIDS_TOL_TRIG / 4 (the bound sin/cos/atan have on Vulkan-class GPUs).
static inline float boids_tol_joint(float coord, uint32_t joint, float reach, uint32_t steps, float trig) {
    float ulps = 8.0f * (float)(joint + 1) * (fabsf(coord) + reach) * 1.1920929e-7f;
    return (ulps + 4.0f * trig * reach) * (float)steps;
}

#ifdef __cplusplus
}
#endif

#endif
