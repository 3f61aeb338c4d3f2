// src/app/flock_draw.c: the flock's picture as the viewer draws it, without
// a window (see flock_draw.h).
#include "flock_draw.h"

#include <math.h>
#include <string.h>

#include <glad/gl.h>

#define MAX_LINES 4096

const float flock_draw_panel[4] = {0.0f, 0.0f, 0.0f, 0.55f}, flock_draw_white[4] = {0.92f, 0.94f, 0.96f, 1.0f};
const float flock_draw_background[3] = {0.05f, 0.06f, 0.08f};

// The clear colour of the frame flock_draw_begin started (the 3D fog fades
// towards it): kept here instead of asked of GL every frame; set by
// flock_draw_begin, which every frame calls first.
static float frame_clear[3];

// See flock_draw.h.
void flock_draw_begin(const boids_camera *cam, int fb_w, int fb_h, const float *rgb, float view_proj[16]) {
    const float *c = rgb ? rgb : flock_draw_background;
    memcpy(frame_clear, c, sizeof frame_clear);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(c[0], c[1], c[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    boids_camera_matrix(cam, (float)fb_w / (float)fb_h, view_proj);
}

// See flock_draw.h.
void flock_draw_agents(boids_render *r, const boids_camera *cam, boids_color_mode color, int fb_h,
                       const float view_proj[16], const boids_params *p, const boids_engine_gl *b, bool path) {
    static boids_line_vertex lines[MAX_LINES];
    boids_agents_draw d = {.pos = b->pos,
                           .vel = b->vel,
                           .group = b->group,
                           .neighbors = b->neighbors,
                           .count = p->world.count,
                           .dim = p->world.dim,
                           .mode = color,
                           .maxspeed = p->group[0].maxspeed};
    memcpy(d.view_proj, view_proj, sizeof d.view_proj);
    // About 5 pixels long whatever the zoom (3D: 9 at the world's centre, so
    // that their lit faces read), never below 3 world units (the chapter's
    // boid size r) or the agents' own size where that is smaller (group 0's
    // body_radius: circles' agents are 0.5 across); shorter, down to a
    // pixel, where they are dense on screen (boids_agents_scale).
    // The view's pixels are the camera's region of the window (boids_camera.region).
    const float *rg = cam->region;
    float view_h = (float)fb_h * (rg[3] > rg[1] && rg[2] > rg[0] ? 0.5f * (rg[3] - rg[1]) : 1.0f);
    float world_per_px =
        cam->dim == 3 ? 2.0f * cam->distance * tanf(0.5f * cam->fov_y) / view_h : 2.0f * cam->half_height / view_h;
    float smallest = p->group[0].body_radius > 0.0f ? fminf(3.0f, p->group[0].body_radius) : 3.0f;
    boids_agents_look look;
    boids_agents_scale(d.count, p->world.size, world_per_px, smallest, d.dim == 3 ? 9.0f : 5.0f, &look);
    d.size = look.size;
    d.px = look.px;
    d.points = look.points;
    d.dense = look.dense;
    d.density_ref = look.density_ref;
    for (uint32_t g = 0; g < p->world.group_count && g < BOIDS_MAX_GROUPS; g++)
        if (p->group[g].behaviors & BOIDS_BIT(BOIDS_BI_HUNT))
            d.hunters |= 1u << g;
    boids_camera_eye(cam, d.eye);
    memcpy(d.background, frame_clear, sizeof d.background);
    if (d.dim == 3) {
        // Fog from the world's near side to its far side as seen from the eye.
        float half = 0.5f * sqrtf(p->world.size[0] * p->world.size[0] + p->world.size[1] * p->world.size[1] +
                                  p->world.size[2] * p->world.size[2]);
        d.fog_near = fmaxf(0.0f, cam->distance - half);
        d.fog_reach = 2.0f * half;
        glEnable(GL_DEPTH_TEST);
    }
    boids_bodies_draw bd = {.joints = b->joints,
                            .rows = b->joint_rows,
                            .id = b->id,
                            .group = b->group,
                            .count = d.count,
                            .dim = d.dim,
                            .body = p->body};
    memcpy(bd.view_proj, view_proj, sizeof bd.view_proj);
    boids_camera_eye(cam, bd.eye);
    boids_render_bodies(r, &bd); // under the agents
    boids_render_agents(r, &d);
    bd.eyes = true; // the eyes on the heads, over the agents
    boids_render_bodies(r, &bd);
    glDisable(GL_DEPTH_TEST);
    boids_render_lines(r, view_proj, lines, boids_lines_scene(p, path, lines, 0, MAX_LINES));
}

// See flock_draw.h: text twice as large on a framebuffer of 700 pixels or more.
float flock_draw_hud_scale(int fb_h) {
    return fb_h >= 700 ? 2.0f : 1.0f;
}

// See flock_draw.h.
float flock_draw_hud(boids_render *r, int fb_w, int fb_h, const char *text) {
    float scale = flock_draw_hud_scale(fb_h), w, h;
    boids_render_text_size(text, scale, &w, &h);
    boids_render_rect(r, fb_w, fb_h, 0.0f, 0.0f, w + 16.0f * scale, h + 10.0f * scale, flock_draw_panel);
    boids_render_text(r, fb_w, fb_h, 8.0f * scale, 6.0f * scale, scale, text, flock_draw_white);
    return h + 10.0f * scale;
}
