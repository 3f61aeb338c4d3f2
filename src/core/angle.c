// src/core/angle.c: every angle difference goes through here
// (boids-angle-bug.txt). GLSL twins: angle_wrap(), angle_diff().
#include <math.h>

#include "boids/behaviors.h"

// Angle into (-pi, pi].
float boids_angle_wrap(float a) {
    a = fmodf(a, BOIDS_TWO_PI); // exact; result in (-2pi, 2pi)
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
