// src/viewer/viewer_layout.h: where the viewer's panels go and what they leave
// for the world, as pure arithmetic (no GL, no GLFW): the HUD at the top
// left, the profile graph at the bottom left, the behaviour menu at the
// right between them, the free rectangle they leave (the camera frames the
// world there), the graph's bars and legend, and the help
// overlay laid out to fit the window. Text is measured through a callback
// (the viewer passes boids_render_text_size), so tests run it without a
// window.
//
// Offers: viewer_rect, viewer_layout_panels (HUD, menu, graph, free
// rectangle), viewer_layout_ndc (a rectangle as the window's NDC, for
// boids_camera), viewer_layout_graph (the graph's title, bars and legend),
// viewer_layout_wrap (word wrap) and viewer_layout_help (the help overlay:
// columns of their own widths, texts wrapped, smaller text, then pages).
#ifndef BOIDS_VIEWER_LAYOUT_H
#define BOIDS_VIEWER_LAYOUT_H

#include <stddef.h>

// A rectangle in framebuffer pixels, origin at the top left, y down.
typedef struct viewer_rect {
    float x, y, w, h;
} viewer_rect;

// The panels shown and their sizes (0 x 0: not shown), in pixels.
typedef struct viewer_panels_desc {
    int fb_w, fb_h;
    float hud_w, hud_h;     // the HUD panel, at the top left
    float menu_w, menu_h;   // the behaviour menu, at the right edge under the HUD (above the graph)
    float graph_w, graph_h; // the profile graph, at the bottom left
    float gap;              // pixels between a panel and its neighbour or the free rectangle
} viewer_panels_desc;

typedef struct viewer_panels {
    viewer_rect hud, menu, graph; // where they go (0 x 0 where not shown)
    viewer_rect free;             // the rest: below the HUD's band, above the graph's, left of the menu's column
} viewer_panels;

// The panels of d and the free rectangle they leave (at least one pixel
// each way, inside the window).
void viewer_layout_panels(const viewer_panels_desc *d, viewer_panels *out);
// r as the window's NDC (x0, y0, x1, y1; y up), as boids_camera.region takes it.
void viewer_layout_ndc(const viewer_rect *r, int fb_w, int fb_h, float ndc[4]);

// Width and height of text at a scale (boids_render_text_size).
typedef void (*viewer_measure_fn)(const char *text, float scale, float *w, float *h);

#define VIEWER_GRAPH_MAX 8

// The profile graph: a title, one bar a frame stacked by stage, a legend.
typedef struct viewer_graph_desc {
    float scale;               // the text scale wanted; a bar is as many pixels wide
    int frames;                // the bars wanted (one a frame)
    float max_w;               // the width it may take (0: any): a narrow one gets a taller legend, smaller text
    size_t n;                  // the stages stacked (at most VIEWER_GRAPH_MAX)
    const char *title;         // the title at its widest
    const char *const *labels; // the legend's entries at their widest, one a stage
    viewer_measure_fn measure;
} viewer_graph_desc;

typedef struct viewer_graph_layout {
    float w, h;                            // the panel's size with every bar
    viewer_rect panel, bars;               // where it goes; the bars' area (bottom: the zero line)
    float scale, title_x, title_y, line_h; // the text scale chosen
    int frames;                            // the newest frames that fit in bars.w
    float bar_w;                           // pixels a bar
    viewer_rect swatch[VIEWER_GRAPH_MAX];  // each stage's colour, left of its label
    float label_x[VIEWER_GRAPH_MAX], label_y[VIEWER_GRAPH_MAX];
} viewer_graph_layout;

// The graph of d in `at` (NULL: only its size, out->w x out->h): the title
// on top, the bars under it (as many of the newest frames as the width
// leaves), and at their right the legend, a line a stage: a swatch of its
// colour and its label; at d->scale, else at smaller ones down to 1 where
// the title or 60 bars beside the legend do not fit d->max_w. Its size and
// its parts agree for the same d (they follow d->max_w, not at's width).
void viewer_layout_graph(const viewer_graph_desc *d, const viewer_rect *at, viewer_graph_layout *out);

// text into out with its spaces turned into line breaks where a line would
// pass max_w (a word longer than that keeps its own line); returns the
// number of lines.
int viewer_layout_wrap(const char *text, float max_w, float scale, viewer_measure_fn measure, char *out, size_t size);

#define VIEWER_HELP_MAX 64
#define VIEWER_HELP_TEXT 256

// The help overlay's entries (label, text) and the lines under them.
typedef struct viewer_help_desc {
    int fb_w, fb_h;
    viewer_rect area; // where the overlay may go (the window below the HUD)
    float scale;      // the text scale wanted; smaller ones are tried down to 1
    size_t n;
    const char *const *labels, *const *texts;
    const char *more; // lines under the keys (NULL: none)
    int page;         // the page shown (taken modulo the pages)
    viewer_measure_fn measure;
} viewer_help_desc;

// One entry placed: its label at (x, y), its text (wrapped) at (text_x, y),
// the whole entry inside w x h.
typedef struct viewer_help_row {
    float x, y, text_x, w, h;
    int page;
    char text[VIEWER_HELP_TEXT];
} viewer_help_row;

typedef struct viewer_help_layout {
    float scale, line_h;
    viewer_rect panel; // behind the page shown
    float title_x, title_y, more_x, more_y;
    char title[64];
    int columns, pages, page;
    size_t n;
    viewer_help_row row[VIEWER_HELP_MAX];
} viewer_help_layout;

// Lays the help out in d->area: the fewest columns (each as wide as its own
// entries) that fit with texts wrapped to the column, at d->scale, else at
// smaller scales down to 1; where even that does not fit, pages of as many
// columns as the width takes (the title says which page, and that F2 turns
// it). Entries fill each column top to bottom, in order.
void viewer_layout_help(const viewer_help_desc *d, viewer_help_layout *out);

#endif
