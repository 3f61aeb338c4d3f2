// src/core/version.c: the library's version at run time (boids/core.h).
#include "boids/core.h"

// See boids/core.h.
const char *boids_version(int *major, int *minor, int *patch) {
    if (major)
        *major = BOIDS_VERSION_MAJOR;
    if (minor)
        *minor = BOIDS_VERSION_MINOR;
    if (patch)
        *patch = BOIDS_VERSION_PATCH;
    return BOIDS_VERSION;
}
