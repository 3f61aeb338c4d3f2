/* boids/platform.h: GL contexts (src/platform). Each returns a current
 * OpenGL 4.5 core context and a loader for its entry points, which the GPU
 * backend (src/gpu) uses through glad without knowing EGL or GLFW.
 *
 * Offers: boids_gl_context, boids_egl_create (headless: tests, bench,
 * validation), boids_gl_context_destroy, boids_gl_loader, _describe,
 * _robust; boids_window (the viewer's GLFW window): boids_window_create /
 * _destroy / _loader / _glfw / _describe.
 *
 * Robust contexts: both ask for a context that reports GPU resets
 * (lose-context-on-reset notification, GL_KHR_robustness semantics; EGL also
 * robust buffer access) and fall back to a plain one when that is refused;
 * boids_gl_context_robust says which was granted, _describe says it in words. Only a robust
 * context makes glGetGraphicsResetStatus (boids_gpu_check) report a reset.
 */
#ifndef BOIDS_PLATFORM_H
#define BOIDS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

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
// How the context was made, e.g. "EGL device 1 of 2 (software), robust
// (robust access, lose context on reset)".
const char *boids_gl_context_describe(const boids_gl_context *ctx);
// Whether the context was created with lose-context-on-reset notification.
bool boids_gl_context_robust(const boids_gl_context *ctx);

// The viewer's window (src/platform/glfw_window.c): GLFW, an OpenGL 4.5
// core debug context, else a 4.1 core forward-compatible one (the version
// glad's loader returns says which), current on this thread.
typedef struct boids_window boids_window;
struct GLFWwindow;
typedef struct boids_window_desc {
    const char *title;
    int width, height; // window size in screen coordinates
    bool vsync;
} boids_window_desc;
// On failure returns BOIDS_ERR_GL (or _NOMEM) and one line in err:
// *no_display is set when there is no display to open a window on;
// otherwise the line names the OpenGL version and renderer found.
boids_result boids_window_create(boids_window **out, const boids_window_desc *d, bool *no_display, char *err,
                                 size_t err_size);
void boids_window_destroy(boids_window *w);
boids_gl_loadfn boids_window_loader(const boids_window *w);
// The GLFW window, for input and swapping.
struct GLFWwindow *boids_window_glfw(const boids_window *w);
// How the window's context was made, e.g. "GLFW window, robust (lose context on reset)".
const char *boids_window_describe(const boids_window *w);

#ifdef __cplusplus
}
#endif

#endif
