// src/app/flock_draw.h: the flock's picture as the viewer draws it, without
// a window (no GLFW, no viewer state): the frame's start, the agents with
// their bodies and the scene's lines from the engine's GL buffers, and the
// HUD panel. The viewer (boids_viewer.c, viewer_hud.c) and boids-bench
// --render (an off-screen framebuffer on the headless EGL context) call the
// same functions, so the frame bench times is the viewer's.
#ifndef BOIDS_APP_FLOCK_DRAW_H
#define BOIDS_APP_FLOCK_DRAW_H

#include <stdbool.h>

#include "boids/engine.h"
#include "boids/render.h"

// The HUD's colours: the panel under the text, the text.
extern const float flock_draw_panel[4], flock_draw_white[4];

// A frame's start: the viewport fb_w x fb_h, cleared to rgb (NULL: the
// flock's dark blue, flock_draw_background), and cam's view-projection
// matrix into view_proj.
void flock_draw_begin(const boids_camera *cam, int fb_w, int fb_h, const float *rgb, float view_proj[16]);
// The flock's clear colour (rgb).
extern const float flock_draw_background[3];
// The agents of p from the GL buffers b (the GPU backend's, or the render's
// own) in colour mode `color`: bodies under them, their eyes over them, then
// the scene's lines (boids_lines_scene; `path`: the path even while not
// followed). fb_h: the framebuffer's height (the agents' size in pixels).
void flock_draw_agents(boids_render *r, const boids_camera *cam, boids_color_mode color, int fb_h,
                       const float view_proj[16], const boids_params *p, const boids_engine_gl *b, bool path);
// The scale of text in a framebuffer fb_h pixels high.
float flock_draw_hud_scale(int fb_h);
// Text in a panel at the top left (scaled for the framebuffer); returns the
// panel's lower edge in pixels.
float flock_draw_hud(boids_render *r, int fb_w, int fb_h, const char *text);

#endif
