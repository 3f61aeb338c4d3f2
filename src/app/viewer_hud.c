// src/app/viewer_hud.c: what the viewer draws over the picture in pixels:
// the HUD panel (the modes write its text), the help overlay made from the
// key table, and the frame-time profile with its graph (T, --profile).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flock_draw.h"
#include "viewer.h"

static const float *const panel = flock_draw_panel, *const white = flock_draw_white;
static const float gold[4] = {0.95f, 0.85f, 0.35f, 1.0f};

// See viewer.h: text twice as large on a window of 700 pixels or more (flock_draw.h).
float viewer_hud_scale(int fb_h) {
    return flock_draw_hud_scale(fb_h);
}

// See viewer.h (flock_draw.h: boids-bench --render draws the same panel).
void viewer_hud(viewer *v, int fb_w, int fb_h, const char *text) {
    v->hud_bottom = flock_draw_hud(v->render, fb_w, fb_h, text);
}

// See viewer.h: the mode's entries in as many columns (up to 3) as the
// window holds, filled top to bottom, each a gold label and its text.
void viewer_help(viewer *v, int fb_w, int fb_h) {
    if (!v->help)
        return;
    const viewer_key *keys[64];
    char labels[64][32];
    size_t n = 0;
    float scale = viewer_hud_scale(fb_h), label_w = 0.0f, text_w = 0.0f, w, h, line_h, more_w = 0.0f, more_h = 0.0f;
    for (size_t i = 0; i < viewer_key_count && n < 64; i++)
        if (viewer_keys[i].modes & v->mode->bit) {
            keys[n] = &viewer_keys[i];
            viewer_keys_label(keys[n], labels[n], sizeof labels[n]);
            boids_render_text_size(labels[n], scale, &w, &h);
            label_w = fmaxf(label_w, w);
            boids_render_text_size(keys[n]->text, scale, &w, &h);
            text_w = fmaxf(text_w, w);
            n++;
        }
    boids_render_text_size("keys\nkeys", scale, &w, &line_h);
    boids_render_text_size("keys", scale, &w, &h);
    line_h -= h;
    if (v->mode->help_more)
        boids_render_text_size(v->mode->help_more, scale, &more_w, &more_h);
    float gap = 10.0f * scale, col_w = label_w + gap + text_w + 2.0f * gap;
    size_t cols = (size_t)fmaxf(1.0f, fminf(3.0f, floorf(((float)fb_w - 40.0f * scale) / col_w)));
    size_t rows = (n + cols - 1) / cols;
    float total_w = fmaxf((float)cols * col_w - 2.0f * gap, more_w);
    float total_h = line_h * (float)(rows + 2) + more_h;
    // Centred, but never over the HUD panel (which stays readable above it).
    float x = 0.5f * ((float)fb_w - total_w), y = fmaxf(0.5f * ((float)fb_h - total_h), v->hud_bottom + 20.0f * scale);
    boids_render_rect(v->render, fb_w, fb_h, x - 12.0f * scale, y - 10.0f * scale, total_w + 24.0f * scale,
                      total_h + 20.0f * scale, panel);
    boids_render_text(v->render, fb_w, fb_h, x, y, scale, "keys", white);
    for (size_t i = 0; i < n; i++) {
        float cx = x + (float)(i / rows) * col_w, cy = y + line_h * (float)(1 + i % rows);
        boids_render_text(v->render, fb_w, fb_h, cx, cy, scale, labels[i], gold);
        boids_render_text(v->render, fb_w, fb_h, cx + label_w + gap, cy, scale, keys[i]->text, white);
    }
    if (v->mode->help_more)
        boids_render_text(v->render, fb_w, fb_h, x, y + line_h * (float)(rows + 2), scale, v->mode->help_more, white);
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
    for (int k = 0; k < 6; k++)
        g[k] = (float)row.stage_ms[k];
    v->graph_head = (v->graph_head + 1) % VIEWER_GRAPH_FRAMES;
    if (v->graph_n < VIEWER_GRAPH_FRAMES)
        v->graph_n++;
}

// See viewer.h: the last frames as bars stacked by stage, scaled to the tallest.
void viewer_profile_graph(viewer *v, int fb_w, int fb_h) {
    if (!v->profile || v->graph_n == 0)
        return;
    static const float colors[6][4] = {{0.35f, 0.55f, 0.85f, 0.9f}, {0.95f, 0.6f, 0.2f, 0.9f},
                                       {0.85f, 0.3f, 0.3f, 0.9f},   {0.45f, 0.75f, 0.75f, 0.9f},
                                       {0.35f, 0.7f, 0.35f, 0.9f},  {0.95f, 0.8f, 0.3f, 0.9f}};
    float scale = viewer_hud_scale(fb_h), bar = scale, height = 60.0f * scale;
    float x0 = 8.0f * scale, y0 = (float)fb_h - 8.0f * scale; // bottom of the bars
    float tallest = 0.0f;
    for (uint32_t i = 0; i < v->graph_n; i++) {
        float sum = 0.0f;
        for (int k = 0; k < 6; k++)
            sum += v->graph[i][k];
        tallest = fmaxf(tallest, sum);
    }
    if (!(tallest > 0.0f))
        tallest = 1.0f;
    boids_render_rect(v->render, fb_w, fb_h, x0 - 4.0f * scale, y0 - height - 18.0f * scale,
                      VIEWER_GRAPH_FRAMES * bar + 8.0f * scale, height + 22.0f * scale, panel);
    char label[96];
    snprintf(label, sizeof label, "recording: stage ms, tallest %.2f ms (T stops)", (double)tallest);
    boids_render_text(v->render, fb_w, fb_h, x0, y0 - height - 14.0f * scale, scale, label, white);
    for (uint32_t i = 0; i < v->graph_n; i++) {
        const float *g = v->graph[(v->graph_head + VIEWER_GRAPH_FRAMES - v->graph_n + i) % VIEWER_GRAPH_FRAMES];
        float y = y0;
        for (int k = 0; k < 6; k++) {
            float bh = g[k] / tallest * height;
            if (bh <= 0.0f)
                continue;
            boids_render_rect(v->render, fb_w, fb_h, x0 + (float)i * bar, y - bh, bar, bh, colors[k]);
            y -= bh;
        }
    }
}
