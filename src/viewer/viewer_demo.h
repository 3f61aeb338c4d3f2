// src/viewer/viewer_demo.h: the notebook's demos for `boids --demo chain|snake`
// (procedural-animation-chains.txt), no flock: their own joint arrays moved
// by the pure functions of boids/behaviors.h, drawn as world-space vertex
// lists. Coordinates are the notebook's canvas pixels (origin top left, y
// down, like p5's mouseX / mouseY); the vertex lists flip y into the world
// (y up), so the picture is the notebook's, not mirrored. No GL.
#ifndef BOIDS_VIEWER_DEMO_H
#define BOIDS_VIEWER_DEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boids/render.h"

#define DEMO_MAX_JOINTS 48

typedef struct viewer_demo {
    bool snake;                       // false: the chain
    uint32_t n;                       // joints
    float canvas[2];                  // width, height (pixels)
    float joints[DEMO_MAX_JOINTS][4]; // canvas xy, w = angle (snake)
    float lengths[DEMO_MAX_JOINTS - 1], widths[DEMO_MAX_JOINTS];
    int from;                  // chain: the joint being dragged, -1 none
    float mouse[2], pmouse[2]; // this frame's and the previous frame's mouse
    bool have_mouse;           // the mouse has been somewhere yet
} viewer_demo;

// The demo `name` ("chain" or "snake") as the notebook sets it up.
void viewer_demo_init(viewer_demo *d, const char *name);
// mousePressed: the chain joint within 10 px of the mouse is grabbed; returns it or -1.
int viewer_demo_press(viewer_demo *d);
// mouseReleased.
void viewer_demo_release(viewer_demo *d);
// p5's draw() for one frame with the mouse at d->mouse: the dragged joint
// follows it (chain), or the head eases toward it (snake, when it moved > 1 px).
void viewer_demo_frame(viewer_demo *d);
// The background colour (chain white, snake 77,112,87).
void viewer_demo_background(const viewer_demo *d, float rgb[3]);
// The picture as world-space GL_TRIANGLES (fills, dots, eyes) and GL_LINES
// (links, outlines) appended to v[m..cap); each returns the new count.
size_t viewer_demo_triangles(const viewer_demo *d, boids_line_vertex *v, size_t m, size_t cap);
size_t viewer_demo_lines(const viewer_demo *d, boids_line_vertex *v, size_t m, size_t cap);

#endif
