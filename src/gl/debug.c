// src/gl/debug.c: the debug-output callback of a GL context (gl_util.h).
// What a message means is the caller's: the GPU backend counts errors for
// its fault check, the viewer counts them per frame.
#include "gl_util.h"

// See gl_util.h.
void boids_gl_debug_enable(GLDEBUGPROC callback, const void *user, bool synchronous) {
    glEnable(GL_DEBUG_OUTPUT);
    if (synchronous)
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    else
        glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(callback, user);
}

// See gl_util.h.
void boids_gl_debug_disable(void) {
    glDebugMessageCallback(NULL, NULL);
}
