/* boids/platform.h: GL contexts (src/platform). Each returns a current
 * OpenGL 4.5 core context and a loader for its entry points, which the GPU
 * backend (src/gpu) uses through glad without knowing EGL or GLFW.
 *
 * Offers: boids_gl_context, boids_egl_create (headless: tests, bench,
 * validation), boids_gl_context_destroy, boids_gl_loader.
 */
#ifndef BOIDS_PLATFORM_H
#define BOIDS_PLATFORM_H

#include <stddef.h>

#include "error.h"

typedef struct boids_gl_context boids_gl_context;

// A GL entry-point loader (eglGetProcAddress / glfwGetProcAddress).
typedef void (*(*boids_gl_loadfn)(const char *name))(void);

// A headless GL 4.5 core debug context, current on this thread:
// EGL_EXT_platform_device first (a hardware device when there is one;
// EGL_MESA_device_software is llvmpipe), EGL_MESA_platform_surfaceless as a
// fallback. BOIDS_EGL_DEVICE=software|hardware|N chooses the device. On
// failure returns BOIDS_ERR_GL and one line in err naming what was found
// (e.g. the renderer and GL version when 4.5 core is not available).
boids_result boids_egl_create(boids_gl_context **out, char *err, size_t err_size);
void boids_gl_context_destroy(boids_gl_context *ctx);
// The loader of the context's GL functions.
boids_gl_loadfn boids_gl_loader(const boids_gl_context *ctx);
// How the context was made, e.g. "EGL device 1 (EGL_MESA_device_software)".
const char *boids_gl_context_describe(const boids_gl_context *ctx);

#endif
