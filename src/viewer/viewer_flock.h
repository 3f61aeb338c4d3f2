// src/viewer/viewer_flock.h: the flock mode's state, shared by its files, in
// layers: viewer_flock.c (the parameters as keys change them) and
// viewer_menu.c (the behaviour menu); viewer_flock_mode.c (set-up, the
// frame, drawing, saves and faults); viewer_flock_keys.c (the handlers of
// its other keys).
#ifndef BOIDS_VIEWER_FLOCK_H
#define BOIDS_VIEWER_FLOCK_H

#include "viewer.h"
#include "boids/engine.h"
#include "boids/scenario.h"

// The overlays G N V F P L (the arg of their keys).
enum { OVERLAY_GRID, OVERLAY_NEIGHBORS, OVERLAY_VECTORS, OVERLAY_FLOW, OVERLAY_PATH, OVERLAY_FOLLOWS, OVERLAYS };

typedef struct viewer_flock {
    boids_params p;        // the parameters now (keys change them)
    boids_params p_create; // what simulations are created from: flow enabled, so the field exists
    boids_distribution dist;
    boids_scenario *scen; // in effect (the options' or the loaded snapshot's): schedule, colours, names
    boids_engine *e;      // the simulation, on either backend
    boids_engine *loaded; // --load's file, read before the window (until init copies it)
    bool use_gpu;         // --backend gpu (the default)
    uint64_t saves;       // W presses without --save (boids-NNNN.boids)
    uint64_t saved_step;  // the step of the last --save-every snapshot
    int64_t saved_ok;     // the step --save's file holds from this run (-1: none yet)
    bool faulted;         // a GL fault stopped the viewer (its line is printed)
    bool save_failed;     // a --save-every write failed (said once; no save at exit)
    bool paused, step_once, params_dirty;
    // The groups viewer_flock_prepare last prepared from (a target that
    // moves makes the parameters dirty every frame, the groups stay).
    boids_group_params prepared[BOIDS_MAX_GROUPS];
    bool prepared_valid;
    bool show[OVERLAYS];
    boids_line_vertex *overlay; // scratch of the overlays, overlay_cap vertices
    size_t overlay_cap;
    uint32_t overlay_cells; // the grid's cells the scratch was made for (--grid-fine auto may change them)
    // The state read through the engine: the CPU backend's picture each
    // frame; N / V and G on either backend (debug views, off by default).
    float (*read_pos)[4], (*read_vel)[4], (*read_joints)[4];
    uint32_t *read_group, *read_neighbors, *read_id, *read_count;
    size_t joints_cap;   // bytes of read_joints
    int selected;        // the parameter of [ ] - =
    bool menu;           // the behaviour menu is open (M)
    uint32_t menu_row;   // its selected behaviour (an index BOIDS_BI_*)
    uint32_t menu_group; // the group it shows and changes
    float last_target[3], cursor_world[3];
    // The cursor's window position the target was last taken from: the
    // target follows the cursor's moves, not a camera fitted again under a
    // still cursor (a resize, a panel shown or hidden).
    double target_cursor[2];
    bool target_taken;
    uint32_t body_style;  // BOIDS_BODY_* of every group (the K key)
    char body_error[512]; // the last rejected K, shown on the HUD
    double step_ms;
} viewer_flock;

// viewer_flock_mode.c: the state of a new simulation from the same seed (or of
// --load's file, which must have the flock's shape: else said, and kept).
boids_result viewer_flock_new_sim(viewer *v);
// Writes the state of now to path: 0, or 3 with one line printed.
int viewer_flock_save_state(viewer *v, const char *path);
// viewer_flock.c: the enabled set on stdout (tests and scripts read it).
void viewer_flock_print_behaviors(const viewer *v);
// Re-derives f->p after a change (marked dirty for the engine); keeps
// `before` and says why on stdout if the change is refused (a bad value, or
// one that needs another grid). Returns whether the change stands.
bool viewer_flock_refinalize(viewer_flock *f, const boids_params *before);
// The steer programs one behaviour key (of v->keys) away from the flock's
// groups, started in the background (boids_engine_prepare; GPU with
// background builds only).
void viewer_flock_prepare(viewer *v);
// The name and the value (group 0's) of the parameter [ ] selected.
float viewer_flock_tunable(const viewer *v, const char **name);
// viewer_menu.c: the behaviour menu (M) over the picture, while open.
void viewer_menu_draw(viewer *v, int fb_w, int fb_h);

#endif
