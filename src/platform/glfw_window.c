// src/platform/glfw_window.c: the viewer's window, an OpenGL 4.5 core debug
// context through GLFW, else a 4.1 core forward-compatible one (macOS, older
// drivers: the caller decides what it can draw there). The error callback is
// set before anything can fail; without a display, or without GL 4.1, the
// caller gets one line saying what was found (a second, default context is
// opened only to ask it).
// The context is asked to report GPU resets (GLFW_LOSE_CONTEXT_ON_RESET);
// when that is refused, a plain one is made and the window says so.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/platform.h"

struct boids_window {
    GLFWwindow *window;
    bool robust;
};

static char last_error[512];

// GLFW errors: the last one is kept for the message of a failed call.
static void glfw_error(int code, const char *description) {
    snprintf(last_error, sizeof last_error, "%s (GLFW error 0x%x)", description, code);
}

// What a default context offers (renderer, version), into buf.
static void probe_default_context(char *buf, size_t size) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    GLFWwindow *w = glfwCreateWindow(64, 64, "probe", NULL, NULL);
    if (!w) {
        snprintf(buf, size, "no OpenGL context at all: %s", last_error);
        return;
    }
    glfwMakeContextCurrent(w);
    typedef const unsigned char *(*get_string_fn)(unsigned int);
    get_string_fn get_string = (get_string_fn)glfwGetProcAddress("glGetString");
    const char *renderer = get_string ? (const char *)get_string(0x1F01) : NULL; // GL_RENDERER
    const char *version = get_string ? (const char *)get_string(0x1F02) : NULL;  // GL_VERSION
    snprintf(buf, size, "found OpenGL '%s' on '%s'", version ? version : "?", renderer ? renderer : "?");
    glfwMakeContextCurrent(NULL);
    glfwDestroyWindow(w);
}

// A window with an OpenGL 4.`minor` core forward-compatible debug context,
// reporting GPU resets where the driver grants it (*robust), else a plain
// one; NULL where neither is made.
static GLFWwindow *create_context(const boids_window_desc *d, int minor, bool *robust) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    glfwWindowHint(GLFW_CONTEXT_ROBUSTNESS, GLFW_LOSE_CONTEXT_ON_RESET);
    GLFWwindow *w = glfwCreateWindow(d->width, d->height, d->title, NULL, NULL);
    *robust = w != NULL;
    if (!w) { // refused with robustness: a plain context
        glfwWindowHint(GLFW_CONTEXT_ROBUSTNESS, GLFW_NO_ROBUSTNESS);
        w = glfwCreateWindow(d->width, d->height, d->title, NULL, NULL);
    }
    if (w && *robust) // what the driver granted
        *robust = glfwGetWindowAttrib(w, GLFW_CONTEXT_ROBUSTNESS) == GLFW_LOSE_CONTEXT_ON_RESET;
    return w;
}

// See boids/platform.h.
boids_result boids_window_create(boids_window **out, const boids_window_desc *d, bool *no_display, char *err,
                                 size_t err_size) {
    *out = NULL;
    *no_display = false;
    last_error[0] = '\0';
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit()) {
        *no_display = true;
        snprintf(err, err_size, "no display: %s", last_error[0] ? last_error : "glfwInit failed");
        return BOIDS_ERR_GL;
    }
    bool robust = false;
    GLFWwindow *w = create_context(d, 5, &robust);
    char why[512];
    snprintf(why, sizeof why, "%s", last_error);
    if (!w) // no 4.5 (macOS, older drivers): 4.1 core, forward-compatible as macOS requires
        w = create_context(d, 1, &robust);
    if (!w) {
        char found[400];
        probe_default_context(found, sizeof found);
        snprintf(err, err_size, "no OpenGL 4.5 or 4.1 core context (%s); %s", why, found);
        glfwTerminate();
        return BOIDS_ERR_GL;
    }
    glfwMakeContextCurrent(w);
    glfwSwapInterval(d->vsync ? 1 : 0);
    boids_window *bw = calloc(1, sizeof *bw);
    if (!bw) {
        glfwDestroyWindow(w);
        glfwTerminate();
        return BOIDS_ERR_NOMEM;
    }
    bw->window = w;
    bw->robust = robust;
    *out = bw;
    return BOIDS_OK;
}

// See boids/platform.h.
void boids_window_destroy(boids_window *w) {
    if (!w)
        return;
    glfwDestroyWindow(w->window);
    glfwTerminate();
    free(w);
}

// glfwGetProcAddress, as the GPU backend's loader type.
static void (*load(const char *name))(void) {
    return (void (*)(void))glfwGetProcAddress(name);
}

// See boids/platform.h.
boids_gl_loadfn boids_window_loader(const boids_window *w) {
    (void)w;
    return load;
}

// See boids/platform.h.
struct GLFWwindow *boids_window_glfw(const boids_window *w) {
    return w->window;
}

// See boids/platform.h.
const char *boids_window_describe(const boids_window *w) {
    return w->robust ? "GLFW window, robust (lose context on reset)"
                     : "GLFW window, not robust (no reset notification)";
}
