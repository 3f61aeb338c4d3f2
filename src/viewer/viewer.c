// src/viewer/viewer.c: what every part of the viewer shares (viewer.h),
// below the keys, the HUD, the modes and the frame loop: the clock, free
// file names, the GL error check, the render with its debug output, the
// drawing the flock and the replay share (flock_draw.h), the screenshot
// key, and the mouse events dispatched to the mode or the camera.
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "flock_draw.h"
#include "gl_util.h"
#include "viewer.h"

// See viewer.h.
double viewer_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// See viewer.h.
// A name is free only when nothing is there, not even a link (a dangling
// one would send the write to its target).
void viewer_free_name(char *out, size_t size, const char *pattern, uint64_t *counter) {
    struct stat st;
    do
        snprintf(out, size, pattern, (unsigned long long)(*counter)++);
    while (lstat(out, &st) == 0 && *counter < 100000);
}

// See viewer.h.
void viewer_screenshot_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    int w, h;
    glfwGetFramebufferSize(v->w, &w, &h);
    char path[64], err[512];
    viewer_free_name(path, sizeof path, "boids-%04llu.png", &v->shots);
    if (boids_render_screenshot(path, w, h, err, sizeof err) == BOIDS_OK)
        printf("screenshot: %s (%dx%d)\n", path, w, h);
    else
        fprintf(stderr, "%s: %s\n", PROG, err);
    fflush(stdout);
}

// See viewer.h.
int viewer_gl_errors(uint32_t errors, int rc) {
    if (!errors)
        return rc;
    boids_cli_error(PROG, NULL, NULL, NULL, "OpenGL reported %u errors", errors);
    return EXIT_ENVIRONMENT;
}

// See viewer.h.
bool viewer_cursor_ndc(const viewer *v, double x, double y, float *nx, float *ny, float *aspect) {
    int ww, wh;
    glfwGetWindowSize(v->w, &ww, &wh);
    if (ww <= 0 || wh <= 0)
        return false;
    *nx = (float)(x / ww * 2.0 - 1.0);
    *ny = (float)(1.0 - y / wh * 2.0);
    *aspect = (float)ww / (float)wh;
    return true;
}

// See viewer.h: the mode's, else drag pans (2D) or rotates (3D).
void viewer_cursor(viewer *v, double x, double y) {
    if (v->mode->cursor) {
        v->mode->cursor(v, x, y);
        return;
    }
    float nx, ny, aspect, px, py;
    if (v->dragging && viewer_cursor_ndc(v, v->cursor_x, v->cursor_y, &px, &py, &aspect) &&
        viewer_cursor_ndc(v, x, y, &nx, &ny, &aspect)) {
        if (v->cam.dim == 3)
            boids_camera_orbit(&v->cam, (float)(x - v->cursor_x), (float)(y - v->cursor_y));
        else
            boids_camera_pan(&v->cam, aspect, nx - px, ny - py);
        v->cam_moved = v->cam_moved || x != v->cursor_x || y != v->cursor_y; // a resize keeps the user's view
    }
    v->cursor_x = x;
    v->cursor_y = y;
    v->have_cursor = true;
}

// See viewer.h: the mode's, else the world point (x, y) (3D: at the
// centre's z), as if the cursor had moved over it.
void viewer_mouse(viewer *v, float x, float y) {
    if (v->mode->mouse) {
        v->mode->mouse(v, x, y);
        return;
    }
    int ww, wh;
    glfwGetWindowSize(v->w, &ww, &wh);
    if (ww <= 0 || wh <= 0)
        return;
    float m[16], z = v->cam.center[2];
    boids_camera_matrix(&v->cam, (float)ww / (float)wh, m);
    float cx = m[0] * x + m[4] * y + m[8] * z + m[12], cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    float cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    if (!(cw > 0.0f))
        return;
    viewer_cursor(v, (cx / cw + 1.0) * 0.5 * ww, (1.0 - cy / cw) * 0.5 * wh);
}

// See viewer.h: the mode's, else a drag starts or ends.
void viewer_button(viewer *v, bool down) {
    if (v->mode->button)
        v->mode->button(v, down);
    else
        v->dragging = down;
}

// GL debug output where the GPU backend does not install its own.
static void GLAPIENTRY debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                     const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)length;
    (void)severity;
    viewer *v = (viewer *)user;
    if (type == GL_DEBUG_TYPE_ERROR) {
        v->gl_errors++;
        fprintf(stderr, "GL error: %s\n", message);
    }
}

// See viewer.h.
int viewer_render_create(viewer *v, uint32_t own_count, bool gpu_debug) {
    if (!gpu_debug && boids_gl_debug_available()) { // 4.3 or GL_KHR_debug (not macOS's 4.1)
        boids_gl_debug_enable(debug_message, v, true);
        v->debug_installed = true;
    }
    char err[4096];
    boids_render_desc rd = {.shader_dir = v->o->shader_dir, .own_count = own_count};
    boids_result r = boids_render_create(&v->render, &rd, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return r == BOIDS_ERR_SHADER ? EXIT_INPUT : EXIT_ENVIRONMENT;
    }
    return 0;
}

// See viewer.h (flock_draw.h: the same picture as boids-bench --render's).
void viewer_draw_begin(viewer *v, int fb_w, int fb_h, const float *rgb, float view_proj[16]) {
    flock_draw_begin(&v->cam, fb_w, fb_h, rgb, view_proj);
}

// See viewer.h.
void viewer_draw_agents(viewer *v, int fb_h, const float view_proj[16], const boids_params *p, const boids_engine_gl *b,
                        bool path) {
    flock_draw_agents(v->render, &v->cam, v->color, fb_h, view_proj, p, b, path);
}
