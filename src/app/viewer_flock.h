// src/app/viewer_flock.h: the flock mode's state, shared by its two files:
// viewer_flock.c (set-up, the frame, drawing, saves and faults) and
// viewer_flock_keys.c (the handlers of its keys).
#ifndef BOIDS_VIEWER_FLOCK_H
#define BOIDS_VIEWER_FLOCK_H

#include "viewer.h"
#include "boids/gpu.h"
#include "boids/scenario.h"

// The overlays G N V F P (the arg of their keys).
enum { OVERLAY_GRID, OVERLAY_NEIGHBORS, OVERLAY_VECTORS, OVERLAY_FLOW, OVERLAY_PATH, OVERLAYS };

typedef struct viewer_flock {
    boids_params p;        // the parameters now (keys change them)
    boids_params p_create; // what simulations are created from: flow enabled, so the field exists
    boids_distribution dist;
    boids_scenario *scen; // in effect (the options' or the loaded snapshot's): schedule, colours, names
    boids_sim *sim;
    boids_gpu *gpu;
    bool use_gpu;         // --backend gpu (the default)
    uint64_t saves;       // W presses without --save (boids-NNNN.boids)
    uint64_t saved_step;  // the step of the last --save-every snapshot
    int64_t saved_ok;     // the step --save's file holds from this run (-1: none yet)
    bool faulted;         // a GL fault stopped the viewer (its line is printed)
    bool state_untrusted; // sim holds a read-back the fault check did not trust: never saved
    bool save_failed;     // a --save-every write failed (said once; no save at exit)
    bool paused, step_once, params_dirty;
    bool show[OVERLAYS];
    boids_line_vertex *overlay; // scratch of the overlays, overlay_cap vertices
    size_t overlay_cap;
    float (*read_pos)[4], (*read_vel)[4]; // GPU state read back for N / V (debug only)
    uint32_t *read_count;                 // GPU grid counts read back for G
    int selected;                         // the parameter of [ ] - =
    float last_target[3], cursor_world[3];
    uint32_t body_style;  // BOIDS_BODY_* of every group (the K key)
    bool bodies_dirty;    // CPU backend: joints to upload though no step ran
    char body_error[512]; // the last rejected K, shown on the HUD
    double step_ms;
} viewer_flock;

// viewer_flock.c: a new simulation from the same seed (or --load's file)
// with the parameters of now.
boids_result viewer_flock_new_sim(viewer *v);
// Writes the state of now to path: 0, or 3 with one line printed.
int viewer_flock_save_state(viewer *v, const char *path);
// viewer_flock_keys.c: the enabled set on stdout (tests and scripts read it).
void viewer_flock_print_behaviors(const viewer *v);
// The name and the value (group 0's) of the parameter [ ] selected.
float viewer_flock_tunable(const viewer *v, const char **name);

#endif
