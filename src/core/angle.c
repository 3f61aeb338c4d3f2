// src/core/angle.c: every angle difference goes through here
// (boids-angle-bug.txt). GLSL twins: angle_wrap(), angle_diff().
#include <math.h>

#include "boids/behaviors.h"

// Angle into (-pi, pi]: the truncated remainder a - 2pi trunc(a / 2pi)
// (fmodf's value for |a| < 4pi, every use: a wrapped angle plus one step's
// change, or the difference of two atan2 results; then the quotient is
// -2..2 and the product and difference exact), then one correction. Not
// fmodf itself: the GLSL twin computes the same operations.
float boids_angle_wrap(float a) {
    a = a - BOIDS_TWO_PI * truncf(a / BOIDS_TWO_PI);
    if (a > BOIDS_PI)
        a -= BOIDS_TWO_PI;
    else if (a <= -BOIDS_PI)
        a += BOIDS_TWO_PI;
    return a;
}

// Shortest signed turn from current to target: the post's fix
// (diff > pi: diff -= 2pi; diff < -pi: diff += 2pi), for any inputs.
float boids_angle_diff(float target, float current) {
    return boids_angle_wrap(target - current);
}
