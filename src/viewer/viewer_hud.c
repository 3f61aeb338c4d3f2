// src/viewer/viewer_hud.c: what the viewer draws over the picture in pixels:
// the HUD panel (the modes write its text), the help overlay made from the
// key table, and the frame-time profile with its graph and legend (T,
// --profile); the frame's layout (viewer_layout.c) that keeps the HUD, the
// menu and the graph off the world, and the camera fitted to what they leave.
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "flock_draw.h"
#include "viewer.h"

static const float *const panel = flock_draw_panel, *const white = flock_draw_white;
static const float gold[4] = {0.95f, 0.85f, 0.35f, 1.0f};
// The help's panel: opaque, since it lies over the world while shown.
static const float help_panel[4] = {0.10f, 0.11f, 0.15f, 1.0f};
// The graph's stages (key .. bodies), one colour each, opaque.
static const float graph_colors[][4] = {
    {0.35f, 0.55f, 0.85f, 1.0f}, {0.95f, 0.60f, 0.20f, 1.0f}, {0.85f, 0.30f, 0.30f, 1.0f}, {0.45f, 0.75f, 0.75f, 1.0f},
    {0.35f, 0.70f, 0.35f, 1.0f}, {0.95f, 0.80f, 0.30f, 1.0f}, {0.75f, 0.45f, 0.85f, 1.0f}};
_Static_assert(sizeof graph_colors / sizeof graph_colors[0] == VIEWER_GRAPH_STAGES, "one colour a stage");
_Static_assert(VIEWER_GRAPH_STAGES <= VIEWER_GRAPH_MAX, "the layout places every stage's legend entry");
static const float graph_backdrop[4] = {1.0f, 1.0f, 1.0f, 0.06f};

// See viewer.h: text twice as large on a window of 700 pixels or more (flock_draw.h).
float viewer_hud_scale(int fb_h) {
    return flock_draw_hud_scale(fb_h);
}

// Text sizes for the layout (viewer_layout.h's callback).
static void measure(const char *text, float scale, float *w, float *h) {
    boids_render_text_size(text, scale, w, h);
}

// See viewer.h.
void viewer_camera_world(viewer *v, const boids_world_params *w) {
    int fb_w, fb_h;
    glfwGetFramebufferSize(v->w, &fb_w, &fb_h);
    v->fit_world = *w;
    v->fit_set = true;
    v->cam_moved = false;
    v->fit_w = v->fit_h = 0; // the first frame's layout fits it to the free rectangle
    boids_camera_fit(&v->cam, w, fb_h > 0 ? (float)fb_w / (float)fb_h : 1.0f);
}

// The graph's title and a legend entry (a stage's name and its mean ms):
// drawn with these, and laid out at their widest (ms 9999.99).
#define GRAPH_TITLE "stage ms: mean, tallest %.2f (T stops)"
#define GRAPH_LABEL "%s %.2f"
#define GRAPH_WIDEST_MS 9999.99

// The graph's layout at `scale` (or smaller) in a window fb_w wide, in `at`
// (NULL: its size only), its title and legend at their widest.
static void graph_layout(float scale, int fb_w, const viewer_rect *at, viewer_graph_layout *out) {
    char title[96], labels[VIEWER_GRAPH_STAGES][48];
    const char *labels_p[VIEWER_GRAPH_STAGES];
    snprintf(title, sizeof title, GRAPH_TITLE, GRAPH_WIDEST_MS);
    for (int k = 0; k < VIEWER_GRAPH_STAGES; k++) {
        snprintf(labels[k], sizeof labels[k], GRAPH_LABEL, boids_profile_stage_names[k], GRAPH_WIDEST_MS);
        labels_p[k] = labels[k];
    }
    viewer_graph_desc d = {.scale = scale,
                           .frames = VIEWER_GRAPH_FRAMES,
                           .max_w = (float)fb_w,
                           .n = VIEWER_GRAPH_STAGES,
                           .title = title,
                           .labels = labels_p,
                           .measure = measure};
    viewer_layout_graph(&d, at, out);
}

// See viewer.h: the HUD's panel is its text plus flock_draw_hud's margins.
void viewer_layout_frame(viewer *v, int fb_w, int fb_h, const char *hud_text, float menu_w, float menu_h) {
    float scale = viewer_hud_scale(fb_h), w = 0.0f, h = 0.0f;
    viewer_panels_desc d = {.fb_w = fb_w, .fb_h = fb_h, .gap = 4.0f * scale};
    v->hud_text[0] = '\0';
    if (hud_text && !v->panels_hidden) {
        // Its lines broken at spaces where they would be wider than the
        // window (nothing cut off at a narrow window's right edge), once a
        // frame: viewer_hud draws this text.
        viewer_layout_wrap(hud_text, (float)fb_w - 16.0f * scale, scale, measure, v->hud_text, sizeof v->hud_text);
        boids_render_text_size(v->hud_text, scale, &w, &h);
        d.hud_w = w + 16.0f * scale;
        d.hud_h = h + 10.0f * scale;
    }
    if (!v->panels_hidden) {
        d.menu_w = menu_w;
        d.menu_h = menu_h;
    }
    if (v->profile && !v->panels_hidden) { // the graph, a band under the world and the menu
        viewer_graph_layout g;
        graph_layout(scale, fb_w, NULL, &g);
        d.graph_w = g.w;
        d.graph_h = g.h;
    }
    viewer_layout_panels(&d, &v->panels);
    if (d.graph_w > 0.0f) // its parts placed in its band, for viewer_profile_graph
        graph_layout(scale, fb_w, &v->panels.graph, &v->graph_parts);
    v->hud_bottom = v->panels.hud.h;
    if (!v->fit_set || fb_w <= 0 || fb_h <= 0)
        return;
    float region[4];
    viewer_layout_ndc(&v->panels.free, fb_w, fb_h, region);
    if (fb_w == v->fit_w && fb_h == v->fit_h && memcmp(region, v->cam.region, sizeof region) == 0)
        return;
    v->fit_w = fb_w;
    v->fit_h = fb_h;
    if (v->cam_moved) // the user's view stays, in the new free rectangle
        memcpy(v->cam.region, region, sizeof region);
    else
        boids_camera_fit_region(&v->cam, &v->fit_world, (float)fb_w / (float)fb_h, region);
}

// See viewer.h (flock_draw.h: boids-bench --render draws the same panel).
void viewer_hud(viewer *v, int fb_w, int fb_h) {
    if (v->panels_hidden || !v->hud_text[0]) {
        v->hud_bottom = 0.0f;
        return;
    }
    v->hud_bottom = flock_draw_hud(v->render, fb_w, fb_h, v->hud_text);
}

// The mode's entries of the key table: their labels (into labels) and texts.
static size_t help_entries(const viewer *v, char labels[][32], const char **labels_p, const char **texts_p) {
    size_t n = 0;
    for (size_t i = 0; i < v->key_count && n < VIEWER_HELP_MAX; i++)
        if (v->keys[i].modes & v->mode->bit) {
            viewer_keys_label(&v->keys[i], labels[n], sizeof labels[n]);
            labels_p[n] = labels[n];
            texts_p[n] = v->keys[i].text;
            n++;
        }
    return n;
}

// The help's layout for entries of labels and texts.
static void help_layout(viewer *v, int fb_w, int fb_h, size_t n, const char **labels, const char **texts,
                        viewer_help_layout *out) {
    float scale = viewer_hud_scale(fb_h), top = v->panels.hud.h > 0.0f ? v->panels.hud.h + 8.0f * scale : 0.0f;
    viewer_help_desc d = {.fb_w = fb_w,
                          .fb_h = fb_h,
                          .area = {0.0f, top, (float)fb_w, (float)fb_h - top},
                          .scale = scale,
                          .n = n,
                          .labels = labels,
                          .texts = texts,
                          .more = v->mode->help_more,
                          .page = v->help_page,
                          .measure = measure};
    viewer_layout_help(&d, out);
}

// See viewer.h: each entry a gold label and its (wrapped) text.
void viewer_help(viewer *v, int fb_w, int fb_h) {
    if (!v->help || v->panels_hidden)
        return;
    static viewer_help_layout l;
    char labels[VIEWER_HELP_MAX][32];
    const char *labels_p[VIEWER_HELP_MAX], *texts_p[VIEWER_HELP_MAX];
    size_t n = help_entries(v, labels, labels_p, texts_p);
    help_layout(v, fb_w, fb_h, n, labels_p, texts_p, &l);
    boids_render_rect(v->render, fb_w, fb_h, l.panel.x, l.panel.y, l.panel.w, l.panel.h, help_panel);
    boids_render_text(v->render, fb_w, fb_h, l.title_x, l.title_y, l.scale, l.title, white);
    for (size_t i = 0; i < l.n; i++) {
        const viewer_help_row *r = &l.row[i];
        if (r->page != l.page)
            continue;
        boids_render_text(v->render, fb_w, fb_h, r->x, r->y, l.scale, labels[i], gold);
        boids_render_text(v->render, fb_w, fb_h, r->text_x, r->y, l.scale, r->text, white);
    }
    if (v->mode->help_more)
        boids_render_text(v->render, fb_w, fb_h, l.more_x, l.more_y, l.scale, v->mode->help_more, white);
}

// See viewer.h.
int viewer_profile_start(viewer *v, const char *backend) {
    const char *path = v->o->profile ? v->o->profile : "boids-profile.csv";
    int rc = boids_profile_open(&v->profile, PROG, path, backend,
                                BOIDS_PROFILE_SIM_STAGES | (1u << BOIDS_PROFILE_BODIES) | (1u << BOIDS_PROFILE_DRAW));
    if (rc)
        return rc;
    v->profile_t0 = viewer_now();
    v->graph_n = v->graph_head = 0;
    printf("profile: recording to %s\n", path);
    fflush(stdout);
    return 0;
}

// See viewer.h.
int viewer_profile_stop(viewer *v) {
    int rc = boids_profile_write(v->profile);
    if (rc == 0)
        boids_profile_summary(v->profile, stdout);
    boids_profile_destroy(v->profile);
    v->profile = NULL;
    fflush(stdout);
    return rc;
}

// See viewer.h: the newest stage times the mode has (the GPU's timer
// queries deliver them a few frames late, never waited for).
void viewer_profile_frame(viewer *v) {
    if (!v->profile || !v->mode->profile_row)
        return;
    boids_profile_row row = {
        .step = v->frame, .time_ms = (viewer_now() - v->profile_t0) * 1e3, .frame_ms = v->frame_ms};
    v->mode->profile_row(v, &row);
    row.stage_ms[BOIDS_PROFILE_DRAW] = v->draw_ms;
    boids_profile_add(v->profile, &row);
    float *g = v->graph[v->graph_head];
    for (int k = 0; k < VIEWER_GRAPH_STAGES; k++)
        g[k] = (float)row.stage_ms[k];
    v->graph_head = (v->graph_head + 1) % VIEWER_GRAPH_FRAMES;
    if (v->graph_n < VIEWER_GRAPH_FRAMES)
        v->graph_n++;
}

// See viewer.h: the newest frames that fit as bars stacked by stage, scaled
// to the tallest, the newest at the right; the legend gives each stage's
// colour and its mean over them.
void viewer_profile_graph(viewer *v, int fb_w, int fb_h) {
    if (!v->profile || v->panels_hidden || v->panels.graph.w <= 0.0f)
        return;
    const viewer_graph_layout l = v->graph_parts; // placed by this frame's viewer_layout_frame
    float scale = l.scale;
    uint32_t shown = v->graph_n < (uint32_t)l.frames ? v->graph_n : (uint32_t)l.frames;
    const float *frame[VIEWER_GRAPH_FRAMES]; // the frames shown, oldest first
    float tallest = 0.0f, mean[VIEWER_GRAPH_STAGES] = {0};
    for (uint32_t i = 0; i < shown; i++) {
        frame[i] = v->graph[(v->graph_head + VIEWER_GRAPH_FRAMES - shown + i) % VIEWER_GRAPH_FRAMES];
        float sum = 0.0f;
        for (int k = 0; k < VIEWER_GRAPH_STAGES; k++) {
            sum += frame[i][k];
            mean[k] += frame[i][k] / (float)shown;
        }
        tallest = fmaxf(tallest, sum);
    }
    boids_render_rect(v->render, fb_w, fb_h, l.panel.x, l.panel.y, l.panel.w, l.panel.h, panel);
    char text[96];
    snprintf(text, sizeof text, GRAPH_TITLE, (double)tallest);
    boids_render_text(v->render, fb_w, fb_h, l.title_x, l.title_y, scale, text, white);
    if (!(tallest > 0.0f))
        tallest = 1.0f;
    // The bars' area a shade lighter; the newest frame at its right, by the legend.
    boids_render_rect(v->render, fb_w, fb_h, l.bars.x, l.bars.y, l.bars.w, l.bars.h, graph_backdrop);
    float foot = l.bars.y + l.bars.h, x0 = l.bars.x + l.bars.w - (float)shown * l.bar_w;
    for (uint32_t i = 0; i < shown; i++) {
        float y = foot;
        for (int k = 0; k < VIEWER_GRAPH_STAGES; k++) {
            float bh = frame[i][k] / tallest * l.bars.h;
            if (!(bh > 0.0f))
                continue;
            boids_render_rect(v->render, fb_w, fb_h, x0 + (float)i * l.bar_w, y - bh, l.bar_w, bh, graph_colors[k]);
            y -= bh;
        }
    }
    for (int k = 0; k < VIEWER_GRAPH_STAGES; k++) {
        const viewer_rect *sw = &l.swatch[k];
        boids_render_rect(v->render, fb_w, fb_h, sw->x, sw->y, sw->w, sw->h, graph_colors[k]);
        snprintf(text, sizeof text, GRAPH_LABEL, boids_profile_stage_names[k], (double)mean[k]);
        boids_render_text(v->render, fb_w, fb_h, l.label_x[k], l.label_y[k], scale, text, white);
    }
}
