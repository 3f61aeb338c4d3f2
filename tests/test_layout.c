// tests/test_layout.c: the viewer's layout without a window
// (src/viewer/viewer_layout.c, label core): the free rectangle the HUD, the
// menu and the profile graph leave, the graph's bars and legend inside its
// panel, the camera framing the world in the free rectangle (2D and 3D: every
// corner of the world inside, the world filling it along one axis), and the help
// overlay of the real key table (read from `boids --help`) fitting whole at
// 1280x800 and 800x600: every entry placed, none overlapping, none outside
// the window or over the HUD; pages in a window too small for it.
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "spawn.h"
#include "viewer_layout.h"
#include "boids/render.h"

// Text sizes as the viewer measures them (stb_easy_font, no GL).
static void measure(const char *text, float scale, float *w, float *h) {
    boids_render_text_size(text, scale, w, h);
}

// The viewer's text scale (flock_draw_hud_scale): 2 from 700 pixels high.
static float hud_scale(int fb_h) {
    return fb_h >= 700 ? 2.0f : 1.0f;
}

// The HUD panel of the flock's six lines at a window height, as
// viewer_layout_frame sizes it (text + 16 x 10 pixels at the scale).
static void hud_size(int fb_h, float *w, float *h) {
    const char *text = "FPS 60.0   frame 16.67 ms   step call 4.78 ms (CPU wall)   step 30\n"
                       "GPU step 5.94 ms = key 0.13 count 0.13 scan 0.23 scatter 3.20 steer 0.36 integrate 1.88 "
                       "bodies 0.00\n"
                       "3000 agents  2D  backend gpu  boundary wrap  colour group  bodies none\n"
                       "llvmpipe (LLVM 15.0.6, 256 bits)\n"
                       "behaviours: separation,alignment,cohesion\n"
                       "[ ] maxspeed = 3   (H: help, I: hide panels)";
    float s = hud_scale(fb_h);
    measure(text, s, w, h);
    *w += 16.0f * s;
    *h += 10.0f * s;
}

// The profile graph's layout in a fb_w x fb_h window, as the viewer's
// viewer_layout_frame sizes it (its title and legend at their widest: the
// seven stages of a step and "0000.00" ms) in `at` (NULL: its size only).
static void graph_of(int fb_w, int fb_h, const viewer_rect *at, viewer_graph_layout *g) {
    static const char *const labels[7] = {"key 0000.00",   "count 0000.00",     "scan 0000.00",  "scatter 0000.00",
                                          "steer 0000.00", "integrate 0000.00", "bodies 0000.00"};
    viewer_graph_desc d = {.scale = hud_scale(fb_h),
                           .frames = 240,
                           .max_w = (float)fb_w,
                           .n = 7,
                           .title = "stage ms: mean, tallest 0000.00 (T stops)",
                           .labels = labels,
                           .measure = measure};
    viewer_layout_graph(&d, at, g);
}

static bool inside(const viewer_rect *in, const viewer_rect *r, float tol) {
    return r->x >= in->x - tol && r->y >= in->y - tol && r->x + r->w <= in->x + in->w + tol &&
           r->y + r->h <= in->y + in->h + tol;
}

static bool overlap(const viewer_rect *a, const viewer_rect *b) {
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

START_TEST(free_rect) {
    const int sizes[2][2] = {{1280, 800}, {800, 600}};
    for (int k = 0; k < 2; k++) {
        int fw = sizes[k][0], fh = sizes[k][1];
        float hw, hh, gap = 4.0f * hud_scale(fh);
        hud_size(fh, &hw, &hh);
        viewer_panels p;
        // No panel: the whole window is the world's.
        viewer_layout_panels(&(viewer_panels_desc){.fb_w = fw, .fb_h = fh, .gap = gap}, &p);
        ck_assert_msg(p.free.x == 0.0f && p.free.y == 0.0f && p.free.w == (float)fw && p.free.h == (float)fh,
                      "%dx%d without panels: expected the free rect 0,0 %dx%d, got %g,%g %gx%g", fw, fh, fw, fh,
                      (double)p.free.x, (double)p.free.y, (double)p.free.w, (double)p.free.h);
        ck_assert(p.hud.w == 0.0f && p.menu.w == 0.0f);
        // The HUD: the free rect starts under its band, the whole width.
        viewer_layout_panels(&(viewer_panels_desc){.fb_w = fw, .fb_h = fh, .hud_w = hw, .hud_h = hh, .gap = gap}, &p);
        ck_assert_msg(p.hud.x == 0.0f && p.hud.y == 0.0f && p.hud.w == hw && p.hud.h == hh, "HUD at %g,%g %gx%g",
                      (double)p.hud.x, (double)p.hud.y, (double)p.hud.w, (double)p.hud.h);
        ck_assert_msg(fabsf(p.free.y - (hh + gap)) < 1e-3f && p.free.x == 0.0f && p.free.w == (float)fw &&
                          fabsf(p.free.y + p.free.h - (float)fh) < 1e-3f,
                      "%dx%d with the HUD (%g high): expected the free rect from y %g to the foot, got %g,%g %gx%g", fw,
                      fh, (double)hh, (double)(hh + gap), (double)p.free.x, (double)p.free.y, (double)p.free.w,
                      (double)p.free.h);
        ck_assert(!overlap(&p.free, &p.hud));
        // The HUD and the menu: the menu at the right under the HUD, the free
        // rect left of it.
        float mw = 0.3f * (float)fw;
        viewer_layout_panels(
            &(viewer_panels_desc){
                .fb_w = fw, .fb_h = fh, .hud_w = hw, .hud_h = hh, .menu_w = mw, .menu_h = (float)fh, .gap = gap},
            &p);
        ck_assert_msg(fabsf(p.menu.x + p.menu.w + gap - (float)fw) < 1e-3f && p.menu.y >= hh,
                      "menu at %g,%g %gx%g: expected its right edge %g from the window's and its top under the HUD",
                      (double)p.menu.x, (double)p.menu.y, (double)p.menu.w, (double)p.menu.h, (double)gap);
        ck_assert_msg(p.free.x + p.free.w <= p.menu.x && !overlap(&p.free, &p.menu) && !overlap(&p.free, &p.hud),
                      "free rect %g,%g %gx%g overlaps the menu at %g or the HUD", (double)p.free.x, (double)p.free.y,
                      (double)p.free.w, (double)p.free.h, (double)p.menu.x);
        ck_assert(fabsf(p.free.w - (p.menu.x - gap)) < 1e-3f && fabsf(p.free.y - (hh + gap)) < 1e-3f);
        // The menu alone: from the top.
        viewer_layout_panels(
            &(viewer_panels_desc){.fb_w = fw, .fb_h = fh, .menu_w = mw, .menu_h = (float)fh, .gap = gap}, &p);
        ck_assert(p.free.y == 0.0f && p.menu.y == 0.0f && p.free.x + p.free.w <= p.menu.x);
    }
    // A HUD taller than the window: still a free rect of a pixel or more, inside.
    viewer_panels p;
    viewer_layout_panels(
        &(viewer_panels_desc){
            .fb_w = 100, .fb_h = 50, .hud_w = 300, .hud_h = 90, .menu_w = 200, .menu_h = 50, .gap = 4},
        &p);
    viewer_rect win = {0, 0, 100, 50};
    ck_assert_msg(p.free.w >= 1.0f && p.free.h >= 1.0f && inside(&win, &p.free, 0.0f), "tiny: free %g,%g %gx%g",
                  (double)p.free.x, (double)p.free.y, (double)p.free.w, (double)p.free.h);
}
END_TEST

// The world's corners through the camera's matrix, in window pixels (y
// down); asserts each is in front of the camera.
static int project_corners(const boids_camera *c, const boids_world_params *w, int fw, int fh, float px[8][2]) {
    float m[16];
    boids_camera_matrix(c, (float)fw / (float)fh, m);
    int n = w->dim == 3 ? 8 : 4;
    for (int k = 0; k < n; k++) {
        float p[3];
        for (int a = 0; a < 3; a++)
            p[a] = w->min[a] + ((k >> a & 1) ? w->size[a] : 0.0f);
        if (w->dim != 3)
            p[2] = 0.0f;
        float cx = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
        float cy = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
        float cw = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
        ck_assert_msg(cw > 0.0f, "corner %d behind the camera (w %g)", k, (double)cw);
        px[k][0] = (cx / cw + 1.0f) * 0.5f * (float)fw;
        px[k][1] = (1.0f - cy / cw) * 0.5f * (float)fh;
    }
    return n;
}

// The world of dim in a window with the HUD (and the menu, and the profile
// graph): every corner inside the free rect, the world's extent filling it
// along one axis (the fit's 4 % margin: at least 0.95 of it); with the
// graph, no corner and no point between them on the graph's panel.
static void expect_framed_with(uint32_t dim, const float size[3], int fw, int fh, bool menu, bool graph) {
    boids_params p;
    boids_params_default(&p, 1000, dim);
    boids_params_auto_world(&p, 20.0);
    for (uint32_t a = 0; a < dim; a++)
        if (size[a] > 0.0f)
            p.world.size[a] = size[a];
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    float hw, hh, gap = 4.0f * hud_scale(fh), region[4];
    hud_size(fh, &hw, &hh);
    viewer_graph_layout g;
    graph_of(fw, fh, NULL, &g);
    viewer_panels pl;
    viewer_layout_panels(&(viewer_panels_desc){.fb_w = fw,
                                               .fb_h = fh,
                                               .hud_w = hw,
                                               .hud_h = hh,
                                               .menu_w = menu ? 0.3f * (float)fw : 0.0f,
                                               .menu_h = menu ? (float)fh : 0.0f,
                                               .graph_w = graph ? g.w : 0.0f,
                                               .graph_h = graph ? g.h : 0.0f,
                                               .gap = gap},
                         &pl);
    ck_assert_msg(!graph || (pl.graph.w > 0.0f && pl.graph.h > 0.0f), "%dx%d: the graph not placed", fw, fh);
    viewer_layout_ndc(&pl.free, fw, fh, region);
    boids_camera c;
    boids_camera_fit_region(&c, &p.world, (float)fw / (float)fh, region);
    float px[8][2], lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    int n = project_corners(&c, &p.world, fw, fh, px);
    const viewer_rect *f = &pl.free;
    for (int k = 0; k < n; k++) {
        ck_assert_msg(px[k][0] >= f->x - 0.5f && px[k][0] <= f->x + f->w + 0.5f && px[k][1] >= f->y - 0.5f &&
                          px[k][1] <= f->y + f->h + 0.5f,
                      "%uD %dx%d%s%s: world corner %d at pixel %g,%g, outside the free rect %g,%g %gx%g", dim, fw, fh,
                      menu ? " menu" : "", graph ? " graph" : "", k, (double)px[k][0], (double)px[k][1], (double)f->x,
                      (double)f->y, (double)f->w, (double)f->h);
        for (int a = 0; a < 2; a++) {
            lo[a] = fminf(lo[a], px[k][a]);
            hi[a] = fmaxf(hi[a], px[k][a]);
        }
    }
    // The world's bounding box on screen (in 3D the box's projection lies
    // within its corners' hull) clear of the graph's panel.
    viewer_rect world = {lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]};
    ck_assert_msg(!graph || !overlap(&world, &pl.graph),
                  "%uD %dx%d%s: the world %g,%g %gx%g reaches the graph's panel %g,%g %gx%g", dim, fw, fh,
                  menu ? " menu" : "", (double)world.x, (double)world.y, (double)world.w, (double)world.h,
                  (double)pl.graph.x, (double)pl.graph.y, (double)pl.graph.w, (double)pl.graph.h);
    // How far the farthest corner reaches from the free rect's centre
    // towards its edge, along either axis (1: on the edge).
    float fill = 0.0f;
    for (int k = 0; k < n; k++)
        fill = fmaxf(fill, fmaxf(fabsf(px[k][0] - (f->x + 0.5f * f->w)) / (0.5f * f->w),
                                 fabsf(px[k][1] - (f->y + 0.5f * f->h)) / (0.5f * f->h)));
    ck_assert_msg(fill >= 0.95f && fill <= 1.0f,
                  "%uD %dx%d%s: the world reaches %.3f of the way from the free rect's centre to its edge (expected "
                  "0.95..1: it fills one axis, with the fit's 4 %% margin)",
                  dim, fw, fh, menu ? " menu" : "", (double)fill);
    if (dim == 2) { // the world's centre at the free rect's centre
        float mid_x = 0.5f * (lo[0] + hi[0]), mid_y = 0.5f * (lo[1] + hi[1]);
        ck_assert_msg(fabsf(mid_x - (f->x + 0.5f * f->w)) < 1.0f && fabsf(mid_y - (f->y + 0.5f * f->h)) < 1.0f,
                      "2D: the world's centre at %g,%g, the free rect's at %g,%g", (double)mid_x, (double)mid_y,
                      (double)(f->x + 0.5f * f->w), (double)(f->y + 0.5f * f->h));
    }
    // The cursor maps the same way: zoom at a point of the free rect keeps
    // the world point under it (2D), and the centre of the free rect
    // unprojects to the world's centre (both).
    float aspect = (float)fw / (float)fh, cx = 0.5f * (region[0] + region[2]), cy = 0.5f * (region[1] + region[3]);
    float at[3];
    boids_camera_unproject(&c, aspect, cx, cy, at);
    for (uint32_t a = 0; a < dim; a++) {
        float centre = p.world.min[a] + 0.5f * p.world.size[a];
        ck_assert_msg(fabsf(at[a] - centre) < 1e-3f * p.world.size[0],
                      "%uD: the free rect's centre shows %g on axis %u, expected the world's centre %g", dim,
                      (double)at[a], a, (double)centre);
    }
    if (dim == 2) {
        float before[3], after[3], nx = region[0] + 0.3f * (region[2] - region[0]), ny = region[1] + 0.2f;
        boids_camera_unproject(&c, aspect, nx, ny, before);
        boids_camera_zoom(&c, aspect, 0.5f, nx, ny);
        boids_camera_unproject(&c, aspect, nx, ny, after);
        ck_assert_msg(fabsf(before[0] - after[0]) < 1e-2f && fabsf(before[1] - after[1]) < 1e-2f,
                      "zoom in the region moved the point under the cursor: %g,%g -> %g,%g", (double)before[0],
                      (double)before[1], (double)after[0], (double)after[1]);
    }
}

static void expect_framed(uint32_t dim, const float size[3], int fw, int fh, bool menu) {
    expect_framed_with(dim, size, fw, fh, menu, false);
}

START_TEST(framing_2d) {
    const float square[3] = {0}, wide[3] = {800.0f, 200.0f, 0.0f}, tall[3] = {200.0f, 900.0f, 0.0f};
    const float *worlds[3] = {square, wide, tall};
    for (int k = 0; k < 3; k++) {
        expect_framed(2, worlds[k], 1280, 800, false);
        expect_framed(2, worlds[k], 1280, 800, true);
        expect_framed(2, worlds[k], 800, 600, false);
        expect_framed(2, worlds[k], 800, 600, true);
    }
}
END_TEST

START_TEST(framing_3d) {
    // A cube, a flat wide box (the horizontal field of view binds in a
    // narrow free rect) and a tall one.
    const float cube[3] = {0}, flat[3] = {900.0f, 900.0f, 100.0f}, tall[3] = {150.0f, 150.0f, 900.0f};
    const float *worlds[3] = {cube, flat, tall};
    for (int k = 0; k < 3; k++) {
        expect_framed(3, worlds[k], 1280, 800, false);
        expect_framed(3, worlds[k], 1280, 800, true);
        expect_framed(3, worlds[k], 800, 600, false);
        expect_framed(3, worlds[k], 800, 600, true);
        expect_framed(3, worlds[k], 600, 900, true);
    }
}
END_TEST

// The profile graph (T): a band at the foot of the window, clear of the HUD,
// the menu and the free rect (both end a gap above it), in windows of
// several sizes and aspects; its title, bars and legend (a swatch and a
// label a stage) inside its panel and apart; every bar where the window is
// wide enough (else 60 or more), and the world framed above it in 2D and 3D.
START_TEST(graph_keeps_off_the_world) {
    const int sizes[6][2] = {{1280, 800}, {800, 600}, {600, 900}, {1920, 1080}, {640, 480}, {1600, 500}};
    for (int k = 0; k < 6; k++)
        for (int menu = 0; menu < 2; menu++) {
            int fw = sizes[k][0], fh = sizes[k][1];
            float hw, hh, s = hud_scale(fh), gap = 4.0f * s;
            hud_size(fh, &hw, &hh);
            viewer_graph_layout g;
            graph_of(fw, fh, NULL, &g);
            viewer_panels p;
            viewer_layout_panels(&(viewer_panels_desc){.fb_w = fw,
                                                       .fb_h = fh,
                                                       .hud_w = hw,
                                                       .hud_h = hh,
                                                       .menu_w = menu ? 0.3f * (float)fw : 0.0f,
                                                       .menu_h = menu ? (float)fh : 0.0f,
                                                       .graph_w = g.w,
                                                       .graph_h = g.h,
                                                       .gap = gap},
                                 &p);
            const viewer_rect *r = &p.graph;
            viewer_rect win = {0.0f, 0.0f, (float)fw, (float)fh};
            ck_assert_msg(r->x == 0.0f && fabsf(r->y + r->h - (float)fh) < 1e-3f && r->h == g.h && r->w > 0.0f &&
                              inside(&win, r, 0.0f),
                          "%dx%d%s: expected the graph (%gx%g wanted) at the bottom left, got %g,%g %gx%g", fw, fh,
                          menu ? " menu" : "", (double)g.w, (double)g.h, (double)r->x, (double)r->y, (double)r->w,
                          (double)r->h);
            ck_assert_msg(!overlap(r, &p.free) && !overlap(r, &p.hud) && !overlap(r, &p.menu),
                          "%dx%d%s: the graph %g,%g %gx%g overlaps the free rect %g,%g %gx%g, the HUD or the menu", fw,
                          fh, menu ? " menu" : "", (double)r->x, (double)r->y, (double)r->w, (double)r->h,
                          (double)p.free.x, (double)p.free.y, (double)p.free.w, (double)p.free.h);
            ck_assert_msg(fabsf(p.free.y + p.free.h - (r->y - gap)) < 1e-3f && fabsf(p.free.y - (hh + gap)) < 1e-3f,
                          "%dx%d%s: expected the free rect from under the HUD (%g) to a gap above the graph (%g), got "
                          "%g..%g",
                          fw, fh, menu ? " menu" : "", (double)(hh + gap), (double)(r->y - gap), (double)p.free.y,
                          (double)(p.free.y + p.free.h));
            ck_assert_msg(!menu || p.menu.y + p.menu.h <= r->y - gap + 1e-3f,
                          "%dx%d: the menu's column reaches %g, past a gap above the graph at %g", fw, fh,
                          (double)(p.menu.y + p.menu.h), (double)r->y);
            ck_assert_msg(p.free.h > 0.3f * (float)fh, "%dx%d%s: the world keeps only %g of %d rows", fw, fh,
                          menu ? " menu" : "", (double)p.free.h, fh);
            // Its parts where the viewer draws them.
            viewer_graph_layout l;
            graph_of(fw, fh, r, &l);
            float gs = l.scale; // the HUD's scale, or smaller where that does not fit the width
            // Every bar where it is as wide as it wants, else at least 60.
            int want = r->w >= g.w ? 240 : 60;
            ck_assert_msg(l.frames >= want && l.frames <= 240 && inside(r, &l.bars, 0.5f) && l.bars.h >= 48.0f * gs &&
                              gs >= 1.0f && gs <= s,
                          "%dx%d%s: %d bars in %g,%g %gx%g, expected %d..240 inside the panel %g,%g %gx%g", fw, fh,
                          menu ? " menu" : "", l.frames, (double)l.bars.x, (double)l.bars.y, (double)l.bars.w,
                          (double)l.bars.h, want, (double)r->x, (double)r->y, (double)r->w, (double)r->h);
            float tw, th;
            measure("stage ms: mean, tallest 0000.00 (T stops)", gs, &tw, &th);
            viewer_rect title = {l.title_x, l.title_y, tw, l.line_h};
            ck_assert_msg(!overlap(&title, &l.bars) && inside(r, &title, 0.5f),
                          "%dx%d%s: the title over the bars or outside the panel", fw, fh, menu ? " menu" : "");
            viewer_rect entry[7];
            for (int e = 0; e < 7; e++) {
                static const char *const names[7] = {"key", "count", "scan", "scatter", "steer", "integrate", "bodies"};
                char label[32];
                snprintf(label, sizeof label, "%s 0000.00", names[e]);
                float lw, lh;
                measure(label, gs, &lw, &lh);
                viewer_rect text = {l.label_x[e], l.label_y[e], lw, lh};
                ck_assert_msg(l.swatch[e].w > 0.0f && l.swatch[e].h > 0.0f && l.swatch[e].x < text.x,
                              "%dx%d: the swatch of '%s' missing or not left of its label", fw, fh, names[e]);
                entry[e] = (viewer_rect){l.swatch[e].x, text.y, text.x + text.w - l.swatch[e].x, text.h};
                ck_assert_msg(inside(r, &entry[e], 0.5f),
                              "%dx%d%s: the legend's '%s' at %g,%g %gx%g outside the panel %g,%g %gx%g", fw, fh,
                              menu ? " menu" : "", names[e], (double)entry[e].x, (double)entry[e].y, (double)entry[e].w,
                              (double)entry[e].h, (double)r->x, (double)r->y, (double)r->w, (double)r->h);
                ck_assert_msg(!overlap(&entry[e], &l.bars) && !overlap(&entry[e], &title),
                              "%dx%d%s: the legend's '%s' over the bars or the title", fw, fh, menu ? " menu" : "",
                              names[e]);
                for (int o = 0; o < e; o++)
                    ck_assert_msg(!overlap(&entry[e], &entry[o]), "%dx%d: the legend's entries %d and %d overlap", fw,
                                  fh, o, e);
            }
            // The world above it: a square, a wide and a tall one, 2D and 3D.
            const float square[3] = {0}, wide[3] = {900.0f, 200.0f, 100.0f}, tall[3] = {200.0f, 900.0f, 900.0f};
            const float *worlds[3] = {square, wide, tall};
            for (int w = 0; w < 3; w++) {
                expect_framed_with(2, worlds[w], fw, fh, menu, true);
                expect_framed_with(3, worlds[w], fw, fh, menu, true);
            }
        }
}
END_TEST

START_TEST(wrap_lines) {
    char out[256];
    const char *text = "rules: chapter, tutorial, heading, circles, vicsek, couzin (those the behaviours allow)";
    float max_w;
    measure("rules: chapter, tutorial", 1.0f, &max_w, &(float){0});
    int lines = viewer_layout_wrap(text, max_w, 1.0f, measure, out, sizeof out);
    ck_assert_msg(lines >= 3, "expected 3 or more lines, got %d: %s", lines, out);
    int counted = 1;
    for (char *line = out, *nl; line; line = nl ? nl + 1 : NULL, counted += nl != NULL) {
        nl = strchr(line, '\n');
        char one[256];
        snprintf(one, sizeof one, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
        float w, h;
        measure(one, 1.0f, &w, &h);
        ck_assert_msg(w <= max_w, "line '%s' is %g wide, more than %g", one, (double)w, (double)max_w);
    }
    ck_assert_int_eq(counted, lines);
    // The words, in order, with nothing lost.
    for (char *c = out; *c; c++)
        if (*c == '\n')
            *c = ' ';
    ck_assert_str_eq(out, text);
    // A line ended by '\n' (the HUD's) whose last word passes max_w: broken
    // before that word too, not only on the text's last line.
    const char *two = "rules: chapter, tutorial, heading\nbehaviours: separation";
    measure("rules: chapter, tutorial,", 1.0f, &max_w, &(float){0});
    lines = viewer_layout_wrap(two, max_w, 1.0f, measure, out, sizeof out);
    for (char *line = out, *nl; line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        char one[256];
        snprintf(one, sizeof one, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
        float w, h;
        measure(one, 1.0f, &w, &h);
        ck_assert_msg(w <= max_w || !strchr(one, ' '), "line '%s' of '%s' is %g wide, more than %g", one, two,
                      (double)w, (double)max_w);
    }
    ck_assert_msg(lines >= 3, "expected the first line broken: %s", out);
}
END_TEST

// The entries `boids --help` lists under its heading number `which` (0: the
// flock's, 1: --replay's): "  LABEL   text" lines, the label ending at the
// first two spaces; a line the help wrapped (indented under the text) goes
// on its entry's text.
static size_t help_entries(int which, char labels[][32], char texts[][160]) {
    run_result r = boids_test_run(BOIDS_BIN_DIR "/boids", ARGV("boids", "--help"), TMP, "help");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "boids --help failed: %s", r.err);
    const char *at = r.out;
    for (int k = 0; k <= which; k++) {
        at = strstr(at, "\nKeys");
        ck_assert_msg(at, "expected %d 'Keys' headings in --help", which + 1);
        at++;
    }
    at = strchr(at, '\n') + 1;
    size_t n = 0;
    while (strncmp(at, "  ", 2) == 0 && n < VIEWER_HELP_MAX) {
        const char *label = at + 2, *end = strstr(label, "  "), *eol = strchr(label, '\n');
        if (label[0] == ' ' && n > 0 && eol) { // a wrapped line of the previous entry
            size_t len = strlen(texts[n - 1]);
            snprintf(texts[n - 1] + len, 160 - len, " %.*s", (int)(eol - label - strspn(label, " ")),
                     label + strspn(label, " "));
            at = eol + 1;
            continue;
        }
        ck_assert(end && eol && end < eol);
        snprintf(labels[n], 32, "%.*s", (int)(end - label), label);
        const char *text = end;
        while (*text == ' ')
            text++;
        snprintf(texts[n], 160, "%.*s", (int)(eol - text), text);
        n++;
        at = eol + 1;
    }
    boids_test_run_free(&r);
    return n;
}

// The lines under the keys of the flock and of --replay (their modes' help_more).
static const char *const more_of[2] = {
    "mouse: target of seek/flee/arrive/pursue/evade\ndrag: pan (2D) / rotate (3D)   wheel: zoom",
    "drag: pan (2D) / rotate (3D)   wheel: zoom"};

// The help of mode `which` in a fw x fh window under the HUD, as the viewer
// lays it out; asserts every entry of each page placed inside the window
// and the panel, under the HUD, none overlapping; returns the pages.
static int expect_help(int which, int fw, int fh) {
    char labels[VIEWER_HELP_MAX][32], texts[VIEWER_HELP_MAX][160];
    const char *lp[VIEWER_HELP_MAX], *tp[VIEWER_HELP_MAX];
    size_t n = help_entries(which, labels, texts);
    ck_assert_msg(n >= (which == 0 ? 30u : 10u), "expected the help's entries, found %zu", n);
    for (size_t i = 0; i < n; i++) {
        lp[i] = labels[i];
        tp[i] = texts[i];
    }
    float hw, hh, s = hud_scale(fh);
    hud_size(fh, &hw, &hh);
    float top = hh + 8.0f * s;
    viewer_help_desc d = {.fb_w = fw,
                          .fb_h = fh,
                          .area = {0.0f, top, (float)fw, (float)fh - top},
                          .scale = s,
                          .n = n,
                          .labels = lp,
                          .texts = tp,
                          .more = more_of[which],
                          .measure = measure};
    static viewer_help_layout l;
    viewer_layout_help(&d, &l);
    int pages = l.pages;
    viewer_rect win = {0.0f, 0.0f, (float)fw, (float)fh}, hud = {0.0f, 0.0f, hw, hh};
    for (int page = 0; page < pages; page++) {
        d.page = page;
        viewer_layout_help(&d, &l);
        ck_assert_int_eq(l.page, page);
        ck_assert_msg(inside(&win, &l.panel, 0.5f) && !overlap(&l.panel, &hud),
                      "%dx%d page %d: the panel %g,%g %gx%g is outside the window or over the HUD (%g high)", fw, fh,
                      page, (double)l.panel.x, (double)l.panel.y, (double)l.panel.w, (double)l.panel.h, (double)hh);
        float mw, mh;
        measure(more_of[which], l.scale, &mw, &mh);
        viewer_rect more = {l.more_x, l.more_y, mw, mh};
        ck_assert_msg(inside(&l.panel, &more, 0.5f), "%dx%d: the lines under the keys leave the panel", fw, fh);
        ck_assert_int_eq((int)l.n, (int)n);
        for (size_t i = 0; i < n; i++) {
            const viewer_help_row *a = &l.row[i];
            ck_assert_msg(a->page >= 0 && a->page < pages, "entry %zu on page %d of %d", i, a->page, pages);
            if (a->page != page)
                continue;
            viewer_rect ra = {a->x, a->y, a->w, a->h};
            ck_assert_msg(a->w > 0.0f && a->h > 0.0f && inside(&win, &ra, 0.5f) && inside(&l.panel, &ra, 0.5f) &&
                              !overlap(&ra, &more),
                          "%dx%d: entry %zu '%s' at %g,%g %gx%g is outside the window or its panel", fw, fh, i,
                          labels[i], (double)a->x, (double)a->y, (double)a->w, (double)a->h);
            for (size_t j = 0; j < i; j++) {
                const viewer_help_row *b = &l.row[j];
                viewer_rect rb = {b->x, b->y, b->w, b->h};
                ck_assert_msg(b->page != page || !overlap(&ra, &rb), "%dx%d: entries '%s' and '%s' overlap", fw, fh,
                              labels[i], labels[j]);
            }
        }
    }
    return pages;
}

START_TEST(help_fits) {
    for (int which = 0; which < 2; which++) {
        int pages = expect_help(which, 1280, 800);
        ck_assert_msg(pages == 1, "1280x800: expected the help whole on one page, got %d pages", pages);
        pages = expect_help(which, 800, 600);
        ck_assert_msg(pages == 1, "800x600: expected the help whole on one page, got %d pages", pages);
    }
    // Too small for it at any scale: pages, each inside the window.
    int pages = expect_help(0, 480, 300);
    ck_assert_msg(pages > 1, "480x300: expected pages, got %d", pages);
}
END_TEST

int main(void) {
    mkdir(TMP, 0755);
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_add_test(tc, free_rect);
    tcase_add_test(tc, framing_2d);
    tcase_add_test(tc, framing_3d);
    tcase_add_test(tc, graph_keeps_off_the_world);
    tcase_add_test(tc, wrap_lines);
    tcase_add_test(tc, help_fits);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
