/* boids/tolerance.h: how far a result may lie from the CPU reference after
 * one step (per unit of maxspeed) and after runs of the bodies stage, were
 * every operation rounded as GLSL 4.50 allows a driver (a few ULP each).
 * The shaders leave nothing to the driver, so the GPU backend gives the
 * reference's bits (boids-validate checks bits); these bounds serve the
 * tests that compare paths computed differently on purpose.
 *
 * Offers: BOIDS_TOL_ARITH / _REL, boids_tol_joint.
 */
#ifndef BOIDS_TOLERANCE_H
#define BOIDS_TOLERANCE_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BOIDS_TOL_ARITH (64.0f * 1.1920929e-7f) // a few ULP through ~10 correctly rounded operations
#define BOIDS_TOL_REL (1.0f / 65536.0f)         // relative part

// A body's joint number `joint` (0 = the head), `reach` along it (the
// segments from the head), after `steps` runs of the bodies stage from the
// same heads. Per step and joint: 8 ULP of the coordinate (sqrt, / and the
// adds of each segment, inherited down the chain); errors carried from step
// to step add up.
static inline float boids_tol_joint(float coord, uint32_t joint, float reach, uint32_t steps) {
    float ulps = 8.0f * (float)(joint + 1) * (fabsf(coord) + reach) * 1.1920929e-7f;
    return ulps * (float)steps;
}

#ifdef __cplusplus
}
#endif

#endif
