// src/viewer/viewer_demo_mode.c: the viewer's --demo chain|snake mode: the
// notebook's demos (viewer_demo.c, no simulation) in a window the size of
// their canvas; each frame the script, p5's draw() and the picture. The
// mouse is the canvas pixel under the cursor (--keys mouse=X,Y: a canvas
// pixel, y down).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer.h"
#include "viewer_demo.h"

// The demo and the window the size of its canvas (unless --width / --height).
static int demo_prepare(viewer *v) {
    const boids_options *o = v->o;
    if (!(v->demo = calloc(1, sizeof *v->demo))) {
        boids_cli_error(PROG, NULL, NULL, NULL, "out of memory");
        return EXIT_ENVIRONMENT;
    }
    viewer_demo_init(v->demo, o->demo);
    int side = strcmp(o->demo, "snake") == 0 ? 600 : 400;
    if (!(o->flags_given & BOIDS_CLI_WIDTH))
        v->width = side;
    if (!(o->flags_given & BOIDS_CLI_HEIGHT))
        v->height = side;
    return 0;
}

// The render, the camera on the canvas (no margin), the first line.
static int demo_init(viewer *v) {
    viewer_demo *d = v->demo;
    int rc = viewer_render_create(v, 0, false);
    if (rc)
        return rc;
    int fb_w, fb_h;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    float aspect = fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f;
    boids_world_params canvas = {.dim = 2, .size = {d->canvas[0], d->canvas[1], 0.0f}};
    boids_camera_fit(&v->cam, &canvas, aspect);
    v->cam.half_height = 0.5f * fmaxf(d->canvas[1], d->canvas[0] / aspect);
    printf("boids %s: demo %s, %u joints, canvas %gx%g, renderer '%s', OpenGL %s\n", BOIDS_VERSION, v->o->demo, d->n,
           (double)d->canvas[0], (double)d->canvas[1], v->renderer, v->gl_version);
    fflush(stdout);
    return 0;
}

// p5's draw(): the demo follows the mouse.
static int demo_frame(viewer *v) {
    viewer_demo_frame(v->demo);
    return 0;
}

// The background, the demo's triangles and lines, a line of text and the help.
static void demo_draw(viewer *v, int fb_w, int fb_h) {
    static boids_line_vertex tris[16384], lines[4096];
    const viewer_demo *d = v->demo;
    float bg[3], m[16];
    viewer_demo_background(d, bg);
    viewer_draw_begin(v, fb_w, fb_h, bg, m);
    boids_render_triangles(v->render, m, tris, viewer_demo_triangles(d, tris, 0, sizeof tris / sizeof tris[0]));
    boids_render_lines(v->render, m, lines, viewer_demo_lines(d, lines, 0, sizeof lines / sizeof lines[0]));
    // The canvas keeps the whole window (the script's mouse= is in its
    // pixels); the layout only puts the help under the HUD.
    const char *hud = d->snake ? "demo snake: the head follows the mouse   (H: help, I: hide panels)"
                               : "demo chain: drag a joint with the mouse   (H: help, I: hide panels)";
    viewer_layout_frame(v, fb_w, fb_h, hud, 0.0f, 0.0f);
    viewer_hud(v, fb_w, fb_h);
    viewer_help(v, fb_w, fb_h);
}

// The cursor at window (x, y): the canvas pixel under it is the mouse.
static void demo_cursor(viewer *v, double x, double y) {
    float nx, ny, aspect, p[3];
    if (!viewer_cursor_ndc(v, x, y, &nx, &ny, &aspect))
        return;
    boids_camera_unproject(&v->cam, aspect, nx, ny, p);
    v->demo->mouse[0] = p[0];
    v->demo->mouse[1] = v->demo->canvas[1] - p[1];
    v->demo->have_mouse = true;
}

// --keys mouse=X,Y: the canvas pixel (x, y).
static void demo_mouse(viewer *v, float x, float y) {
    v->demo->mouse[0] = x;
    v->demo->mouse[1] = y;
    v->demo->have_mouse = true;
}

// Pressing grabs the chain's joint under the mouse; releasing lets it go.
static void demo_button(viewer *v, bool down) {
    if (!down) {
        viewer_demo_release(v->demo);
        return;
    }
    int joint = viewer_demo_press(v->demo);
    if (joint >= 0) {
        printf("demo: dragging joint %d\n", joint);
        fflush(stdout);
    }
}

// See viewer.h: the demo starts again.
void viewer_demo_restart(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_demo_init(v->demo, v->demo->snake ? "snake" : "chain");
    printf("reset: demo %s\n", v->o->demo);
    fflush(stdout);
}

// The head's place, the last line.
static int demo_finish(viewer *v, int rc) {
    printf("demo: head %.1f,%.1f\n", (double)v->demo->joints[0][0], (double)v->demo->joints[0][1]);
    printf("frames: %llu, steps 0, last frame %dx%d, gl-errors %u\n", (unsigned long long)v->frame, v->drawn_w,
           v->drawn_h, v->gl_errors);
    return viewer_gl_errors(v->gl_errors, rc);
}

// Frees the demo.
static void demo_destroy(viewer *v) {
    free(v->demo);
    v->demo = NULL;
}

const viewer_mode viewer_demo_mode = {
    .name = "demo",
    .bit = VIEWER_DEMO,
    .help_more = "procedural-animation-chains\n"
                 "chain: press within 10 px of a joint and drag it;\n"
                 "the others keep their distances (Chain.resolve)\n"
                 "snake: the head eases toward the mouse, every joint\n"
                 "within pi/8 of the one before (Snake2)",
    .prepare = demo_prepare,
    .init = demo_init,
    .frame = demo_frame,
    .draw = demo_draw,
    .cursor = demo_cursor,
    .mouse = demo_mouse,
    .button = demo_button,
    .finish = demo_finish,
    .destroy = demo_destroy,
};
