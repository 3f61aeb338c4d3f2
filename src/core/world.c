// src/core/world.c: world geometry: wrapping (the minimum-image delta is inline in
// boids/behaviors.h).
// GLSL twins: world_delta(), world_wrap().
#include <math.h>

#include "boids/behaviors.h"

// Position into [min, min + size) on each axis with extent (torus). Handles
// any distance outside, not just one world width.
void boids_world_wrap(const boids_world_params *w, float pos[3]) {
    for (int a = 0; a < 3; a++) {
        float size = w->size[a];
        if (!(size > 0.0f))
            continue;
        float lo = w->min[a], hi = w->min[a] + size;
        float p = pos[a];
        if (p < lo || p >= hi) {
            float x = p - lo;
            x -= size * floorf(x / size);
            p = lo + x;
            // Rounding can land exactly on hi (or a hair below lo).
            if (p >= hi || p < lo)
                p = lo;
        }
        pos[a] = p;
    }
}
