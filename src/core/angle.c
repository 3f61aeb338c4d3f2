// src/core/angle.c: every angle difference goes through here
// (boids-angle-bug.txt). GLSL twins: angle_wrap(), angle_diff().
#include <math.h>

#include "boids/behaviors.h"

#define TWO_PI 6.28318530717958647692f
#define PI_F 3.14159265358979323846f

// Angle into (-pi, pi].
float boids_angle_wrap(float a) {
    a = fmodf(a, TWO_PI); // exact; result in (-2pi, 2pi)
    if (a > PI_F)
        a -= TWO_PI;
    else if (a <= -PI_F)
        a += TWO_PI;
    return a;
}

// Shortest signed turn from current to target: the post's fix
// (diff > pi: diff -= 2pi; diff < -pi: diff += 2pi), for any inputs.
float boids_angle_diff(float target, float current) {
    return boids_angle_wrap(target - current);
}
