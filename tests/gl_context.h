// tests/gl_context.h: the GL 4.5 context of the GPU suites (EGL: llvmpipe
// in CI).
#ifndef BOIDS_TEST_GL_CONTEXT_H
#define BOIDS_TEST_GL_CONTEXT_H

#include <check.h>

#include "boids/platform.h"

// A headless GL 4.5 core context; failing to get one fails the test (GPU
// tests never skip).
static inline boids_gl_context *boids_test_gl_open(void) {
    boids_gl_context *c = NULL;
    char err[512];
    boids_result r = boids_egl_create(&c, err, sizeof(err));
    ck_assert_msg(r == BOIDS_OK, "no OpenGL 4.5 core context through EGL (GPU tests never skip): %s", err);
    return c;
}

#endif
