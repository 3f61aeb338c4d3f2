// src/viewer/viewer.h: the viewer `boids` inside. One frame loop
// (boids_viewer.c) runs one of three modes - the flock (viewer_flock_mode.c),
// a recording (--replay, viewer_replay.c) or the notebook's demos (--demo,
// viewer_demo_mode.c) - each a table of callbacks (sokol_app's init / frame
// / event / cleanup); one key table (viewer_key_table.c) yields, through
// viewer_keys.c, the usage text's key list, the help overlay and the
// dispatch; the HUD panel, the help overlay and the profile graph are drawn
// by viewer_hud.c.
//
// The files form layers, each using only those below it (tests/test_layers.py
// finds any circle): this state and its helpers (viewer.c, viewer_layout.c);
// the keys, the HUD, the flock's parameters (viewer_flock.c) and its menu;
// the modes; the key table and the frame loop.
//
// Offers: viewer, viewer_mode, viewer_key; the keys (viewer_keys_usage /
// _press / _on_glfw / _script_parse / _script_run), the HUD and the layout
// (viewer_hud / _hud_scale / viewer_layout_frame / viewer_camera_world /
// viewer_help / viewer_profile_start / _stop / _frame / _graph), and the
// shared helpers of viewer.c (viewer_render_create, viewer_free_name,
// viewer_screenshot_key, viewer_gl_errors, viewer_now, the mouse).
#ifndef BOIDS_VIEWER_H
#define BOIDS_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "profile.h"
#include "viewer_layout.h"
#include "boids/engine.h"
#include "boids/platform.h"
#include "boids/render.h"

#define PROG "boids"
#define EXIT_INPUT 2
#define EXIT_ENVIRONMENT 3
#define VIEWER_MAX_SCRIPT 256
#define VIEWER_GRAPH_FRAMES 240
#define VIEWER_GRAPH_STAGES (BOIDS_PROFILE_BODIES + 1) // key .. bodies: a step's stages, stacked

// The modes, as bits of viewer_key.modes.
#define VIEWER_FLOCK 1u
#define VIEWER_REPLAY 2u
#define VIEWER_DEMO 4u
#define VIEWER_ALL (VIEWER_FLOCK | VIEWER_REPLAY | VIEWER_DEMO)

typedef struct viewer viewer;

// A mode: what the frame loop calls. NULL callbacks do nothing (return 0).
// Callbacks returning int give 0 or an exit status; the loop keeps the
// last nonzero one. A mode ends the run with v->quit (after this frame) or
// v->stop (at once: nothing more is drawn).
typedef struct viewer_mode {
    const char *name;
    uint32_t bit;              // VIEWER_*: which keys of the table apply
    const char *help_more;     // lines under the keys in the help overlay
    int (*prepare)(viewer *v); // before the window: files and flags (a bad one: exit 2); may set v->width, v->height
    int (*init)(viewer *v);    // the window and GL are up: the render, the camera, the first lines on stdout
    int (*frame)(viewer *v);   // each frame before drawing (after the events and the script); may set v->last_frame
    void (*draw)(viewer *v, int fb_w, int fb_h); // a frame with pixels
    int (*drawn)(viewer *v, int fb_w, int fb_h); // after drawing, before the swap (replay: --export-frames)
    int (*after)(viewer *v);                     // after the swap
    // The mouse; NULL: drag pans (2D) or orbits (3D) the camera, mouse=X,Y is a world point.
    void (*cursor)(viewer *v, double x, double y);          // the cursor moved to window pixels (x, y)
    void (*mouse)(viewer *v, float x, float y);             // --keys mouse=X,Y
    void (*button)(viewer *v, bool down);                   // the left or right button; --keys press / release
    void (*profile_row)(viewer *v, boids_profile_row *row); // a profile row's stage times, agents, behaviours
    int (*finish)(viewer *v, int rc); // after the loop (and a profile's end): the last lines; returns the exit status
    void (*destroy)(viewer *v);       // frees the mode's state (also after a failed prepare or init)
} viewer_mode;

extern const viewer_mode viewer_flock_mode, viewer_replay_mode, viewer_demo_mode;

// A scripted key press (or resize, or mouse event) at a frame (--keys).
#define SCRIPT_RESIZE -1
#define SCRIPT_MOUSE -2   // move to (x, y)
#define SCRIPT_PRESS -3   // left button down
#define SCRIPT_RELEASE -4 // left button up
typedef struct viewer_script_event {
    uint64_t frame;
    int key;           // GLFW key, or SCRIPT_*
    int width, height; // resize
    float x, y;        // mouse
} viewer_script_event;

struct viewer_flock;
struct viewer_replay;
struct viewer_demo;
struct viewer_video;

// What every mode shares; each mode's own state hangs off its pointer.
struct viewer {
    const boids_options *o;
    const viewer_mode *mode;
    boids_window *win;
    struct GLFWwindow *w;
    int width, height; // the window's size at creation
    boids_render *render;
    boids_camera cam;
    boids_color_mode color; // the C key
    char renderer[256], gl_version[128];
    bool gl41; // the window's context is below 4.5: only the CPU backend (viewer_flock.c), drawn with GL 4.1
    // Set by the flock's prepare: the GPU backend, and whether by default
    // (no --backend); a context below 4.5 then falls back to the CPU.
    bool wants_gpu, gpu_by_default;
    bool help, quit, stop, last_frame, forced_zero, dragging, debug_installed;
    bool panels_hidden; // I: no HUD, menu, help or graph (H and M still say which show when shown)
    int help_page;      // F2: the help's page where it needs several
    float hud_bottom;   // pixels: the HUD panel's lower edge this frame (the help overlay starts below it)
    char hud_text[2048]; // this frame's HUD text as laid out (wrapped to the window; "" none or hidden)
    // The layout of this frame (viewer_layout_frame): the panels and the
    // free rectangle the camera frames the world in; the world it fits
    // (fit_set: the mode has one), and whether the user has moved the
    // camera since (then a resize or a panel keeps its view).
    viewer_panels panels;
    viewer_graph_layout graph_parts; // the profile graph's title, bars and legend in panels.graph
    boids_world_params fit_world;
    bool fit_set, cam_moved;
    int fit_w, fit_h;
    bool have_cursor; // the cursor has moved over the window (or the script's mouse=)
    double cursor_x, cursor_y;
    uint64_t frame, shots;
    uint32_t gl_errors; // counted by viewer_render_create's debug callback
    int drawn_w, drawn_h;
    double fps, frame_ms, draw_ms;
    const struct viewer_key *keys; // the key table (viewer_key_table.c), key_count entries
    size_t key_count;
    viewer_script_event script[VIEWER_MAX_SCRIPT];
    size_t script_n, script_next;
    // Frame-time profile: --profile FILE records from the start, T starts and
    // stops a recording; while it records, a graph of the last frames is drawn.
    boids_profile *profile;
    double profile_t0;
    float graph[VIEWER_GRAPH_FRAMES][VIEWER_GRAPH_STAGES]; // stage ms of the newest frames, a ring
    uint32_t graph_n, graph_head;
    struct viewer_flock *flock;   // the flock mode's
    struct viewer_replay *replay; // --replay's
    struct viewer_demo *demo;     // --demo's
    struct viewer_video *video;   // --video's (viewer_video.c)
};

// One entry of the key table: up to two keys, the text shown for them, the
// handler (called with the key pressed and arg) and the modes it applies to.
typedef void (*viewer_key_fn)(viewer *v, int key, int arg);
typedef struct viewer_key {
    int keys[2]; // GLFW keys; keys[1] 0: one key
    const char *text;
    viewer_key_fn fn;
    int arg;
    uint32_t modes; // VIEWER_* bits
    bool repeat;    // held down, the key repeats
} viewer_key;
// viewer_key_table.c: the table, which binds every mode's handlers; the
// frame loop hands it to the layers below as v->keys.
extern const viewer_key viewer_keys[];
extern const size_t viewer_key_count;

// The handlers of the key table, by mode (arg: the table's).
// viewer_flock.c: a behaviour's bits (arg) toggled; [ ]; - =.
void viewer_flock_behavior(viewer *v, int key, int arg);
void viewer_flock_select(viewer *v, int key, int arg);
void viewer_flock_change(viewer *v, int key, int arg);
// viewer_flock_keys.c: B; Space; '.'; R; the overlay arg (G N V F P L); K; T; W.
void viewer_flock_boundary(viewer *v, int key, int arg);
// U: every group's rule set, chapter -> tutorial -> heading (a set the
// groups cannot take, e.g. heading in 3D, is rejected and skipped).
void viewer_flock_rules(viewer *v, int key, int arg);
void viewer_flock_pause(viewer *v, int key, int arg);
void viewer_flock_step(viewer *v, int key, int arg);
void viewer_flock_reset(viewer *v, int key, int arg);
void viewer_flock_overlay(viewer *v, int key, int arg);
void viewer_flock_bodies(viewer *v, int key, int arg);
void viewer_flock_profile(viewer *v, int key, int arg);
void viewer_flock_save(viewer *v, int key, int arg);
// viewer_menu.c: the menu panel's size (0 x 0 while closed).
void viewer_menu_size(viewer *v, int fb_h, float *w, float *h);
// viewer_menu.c: the behaviour menu: M opens or closes it; while it is
// open Up Down select a behaviour, Enter switches it, Left Right change its
// weight, Tab the group (closed, they do nothing).
void viewer_menu_open(viewer *v, int key, int arg);
void viewer_menu_move(viewer *v, int key, int arg);
void viewer_menu_toggle(viewer *v, int key, int arg);
void viewer_menu_weight(viewer *v, int key, int arg);
void viewer_menu_group(viewer *v, int key, int arg);
// viewer_replay.c: Space; arg frames and pause (Right Left); arg frames (Up
// Down Home End); E.
void viewer_replay_play(viewer *v, int key, int arg);
void viewer_replay_step(viewer *v, int key, int arg);
void viewer_replay_go(viewer *v, int key, int arg);
void viewer_replay_csv(viewer *v, int key, int arg);
// viewer_demo_mode.c: R.
void viewer_demo_restart(viewer *v, int key, int arg);

// viewer_keys.c. The --help text after the options: each mode's keys of
// the table keys (key_count entries), then `tail`.
void viewer_keys_usage(const viewer_key *keys, size_t key_count, char *out, size_t size, const char *tail);
// The label of an entry's keys ("H F1", "[ ]") into out.
void viewer_keys_label(const viewer_key *k, char *out, size_t size);
// One key press (keyboard or script): the entry of v->keys for the mode that has the key, if any.
void viewer_keys_press(viewer *v, int key);
// The GLFW key callback (v is the window's user pointer).
void viewer_keys_on_glfw(struct GLFWwindow *w, int key, int scancode, int action, int mods);
// Parses --keys into v->script; returns 0 or 2 (error printed).
int viewer_keys_script_parse(viewer *v, const char *script);
// Applies the script's events of this frame.
void viewer_keys_script_run(viewer *v);

// viewer_hud.c. The scale of text in a framebuffer fb_h pixels high.
float viewer_hud_scale(int fb_h);
// The world the camera frames (the mode's init): fitted to the window now,
// to the free rectangle by viewer_layout_frame.
void viewer_camera_world(viewer *v, const boids_world_params *w);
// This frame's layout (before drawing): the HUD of `hud_text` (NULL: none),
// a menu of menu_w x menu_h pixels (0: closed) and the profile graph while
// a profile records, unless the panels are hidden (I); the camera's region
// follows the free rectangle, and the camera is fitted again when it
// changed, unless the user moved it.
void viewer_layout_frame(viewer *v, int fb_w, int fb_h, const char *hud_text, float menu_w, float menu_h);
// The HUD text of this frame's layout (viewer_layout_frame, wrapped to the
// window) in a panel at the top left (scaled for the window), unless hidden (I).
void viewer_hud(viewer *v, int fb_w, int fb_h);
// The help overlay (while v->help and not hidden): the mode's keys from the
// table and its help_more, laid out by viewer_layout_help under the HUD, on
// an opaque panel (it covers the world while shown; its text stays readable).
void viewer_help(viewer *v, int fb_w, int fb_h);
// Starts recording a profile (T, or --profile at start-up) of the backend
// named; returns 0 or the exit status of a bad path (reported in one line).
int viewer_profile_start(viewer *v, const char *backend);
// Stops recording: writes the file, prints the summary; 0 or the exit status.
int viewer_profile_stop(viewer *v);
// One frame into the profile and the graph (while recording).
void viewer_profile_frame(viewer *v);
// The frame-time graph (while recording, unless hidden) where the layout
// put it (bottom left, under the world): the newest frames' bars stacked by
// stage and a legend naming each stage's colour with its mean ms.
void viewer_profile_graph(viewer *v, int fb_w, int fb_h);

// viewer.c. A frame's start: the viewport, cleared to rgb (NULL: the
// flock's dark blue), and the camera's view-projection matrix into view_proj.
void viewer_draw_begin(viewer *v, int fb_w, int fb_h, const float *rgb, float view_proj[16]);
// The agents of p from the GL buffers b (the GPU backend's, or the
// render's own): bodies under them, their eyes over them, then the
// scene's lines (boids_lines_scene; `path`: the path even while not followed).
void viewer_draw_agents(viewer *v, int fb_h, const float view_proj[16], const boids_params *p, const boids_engine_gl *b,
                        bool path);
// The render (own_count agents of its own buffers) with GL
// debug output counted into v->gl_errors unless `gpu_debug` (the GPU backend
// installs its own). Returns 0 or the exit status (error printed).
int viewer_render_create(viewer *v, uint32_t own_count, bool gpu_debug);
// The first name of `pattern` (with one %llu) from *counter on that names no
// existing file; *counter moves past it. A key never writes over a file.
void viewer_free_name(char *out, size_t size, const char *pattern, uint64_t *counter);
// The S key: the framebuffer as boids-NNNN.png.
void viewer_screenshot_key(viewer *v, int key, int arg);
// The last line's check: `errors` GL errors reported is exit 3 (said in one line).
int viewer_gl_errors(uint32_t errors, int rc);
// Seconds of the monotonic clock.
double viewer_now(void);
// The cursor at window (x, y) in NDC of the window, and the window's aspect.
bool viewer_cursor_ndc(const viewer *v, double x, double y, float *nx, float *ny, float *aspect);
// The mouse events, to the mode's callbacks or the camera (the GLFW callbacks and the script).
void viewer_cursor(viewer *v, double x, double y);
void viewer_mouse(viewer *v, float x, float y);
void viewer_button(viewer *v, bool down);

#endif
