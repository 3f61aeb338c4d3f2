/* src/engine/engine_version.c: the library's version at run time, for
 * callers that load libboids.so without its headers (the Python package's
 * __version__). */
#include "boids/engine.h"

// See boids/engine.h.
const char *boids_engine_version(void) {
    return BOIDS_VERSION;
}
