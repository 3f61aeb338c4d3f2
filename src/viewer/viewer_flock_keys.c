// src/viewer/viewer_flock_keys.c: the handlers of the flock's keys (the table
// in viewer_keys.c binds them): behaviours, boundary, pause and step, reset,
// the parameters of [ ] - =, overlays, bodies, profile and snapshots. Each
// change is printed on stdout, so scripts (--keys) and tests can follow it.
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/parse.h"
#include "viewer_flock.h"

// Parameters the [ ] - = keys change (all groups alike).
typedef struct tunable {
    const char *name;  // in the HUD and on stdout
    const char *value; // boids_group_value's name of it
} tunable;
static const tunable tunables[] = {
    {"maxspeed", "maxspeed"},
    {"maxforce", "maxforce"},
    {"separation distance", "separation"},
    {"separation weight", "weight.separation"},
    {"alignment weight", "weight.alignment"},
    {"cohesion weight", "weight.cohesion"},
    {"seek weight", "weight.seek"},
    {"flee weight", "weight.flee"},
    {"arrive weight", "weight.arrive"},
    {"wander weight", "weight.wander"},
    {"flow weight", "weight.flow"},
    {"path weight", "weight.path"},
    {"obstacles weight", "weight.obstacles"},
};
#define TUNABLE_COUNT (sizeof tunables / sizeof tunables[0])

// The float of t in gp.
static float *tunable_of(const tunable *t, boids_group_params *gp) {
    return boids_group_value(gp, t->value);
}

// See viewer_flock.h.
float viewer_flock_tunable(const viewer *v, const char **name) {
    const tunable *t = &tunables[v->flock->selected];
    *name = t->name;
    return *tunable_of(t, &v->flock->p.group[0]);
}

// See viewer_flock.h.
void viewer_flock_print_behaviors(const viewer *v) {
    char text[400];
    boids_behaviors_text(v->flock->p.group[0].behaviors, ",", text, sizeof text);
    printf("behaviors: %s\n", text);
    fflush(stdout);
}

// See viewer_flock.h.
bool viewer_flock_refinalize(viewer_flock *f, const boids_params *before) {
    char what[256] = "";
    boids_params q = f->p;
    boids_result r = boids_params_finalize(&q, what, sizeof what);
    if (r != BOIDS_OK || memcmp(q.world.cells, before->world.cells, sizeof q.world.cells) != 0) {
        printf("rejected: %s\n", r != BOIDS_OK ? what : "the change needs another grid (restart with the flag)");
        fflush(stdout);
        f->p = *before;
        return false;
    }
    f->p.world = q.world;
    f->params_dirty = true;
    return true;
}

// See viewer.h: the behaviours of arg on in every group, or off if any is
// on (a pair, pursue + evade, goes off if either is on).
void viewer_flock_behavior(viewer *v, int key, int arg) {
    (void)key;
    viewer_flock *f = v->flock;
    uint32_t bits = (uint32_t)arg;
    bool on = !(f->p.group[0].behaviors & bits);
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        f->p.group[g].behaviors = on ? (f->p.group[g].behaviors | bits) : (f->p.group[g].behaviors & ~bits);
    f->params_dirty = true;
    viewer_flock_print_behaviors(v);
}

// See viewer.h: the steer programs one behaviour key away from the
// current groups start building in the background (GPU, where the driver
// compiles in its own threads), so the key press finds its program ready.
void viewer_flock_prepare(viewer_flock *f) {
    if (f->prepared_valid && memcmp(f->prepared, f->p.group, sizeof f->prepared) == 0)
        return;
    memcpy(f->prepared, f->p.group, sizeof f->prepared);
    f->prepared_valid = true;
    for (size_t k = 0; k < viewer_key_count; k++) {
        if (viewer_keys[k].fn != viewer_flock_behavior)
            continue;
        uint32_t bits = (uint32_t)viewer_keys[k].arg;
        bool on = !(f->p.group[0].behaviors & bits);
        boids_group_params next[BOIDS_MAX_GROUPS];
        memcpy(next, f->p.group, sizeof next);
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            next[g].behaviors = on ? (next[g].behaviors | bits) : (next[g].behaviors & ~bits);
        boids_engine_prepare(f->e, next);
    }
}
    uint32_t joints = o->values.set[BOIDS_PARAM_JOINTS] ? o->values.v[BOIDS_PARAM_JOINTS].u[0]
                                                        : (uint32_t)boids_param_table[BOIDS_PARAM_JOINTS].def;

// See viewer.h: the next of wrap, walls, bounce, margin (BOIDS_BOUNDARY_* order).
void viewer_flock_boundary(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    boids_params before = f->p;
    f->p.world.boundary = (f->p.world.boundary + 1) % (BOIDS_BOUNDARY_MARGIN + 1);
    if (viewer_flock_refinalize(f, &before)) {
        printf("boundary: %s\n", boids_parse_boundary_names[f->p.world.boundary]);
        fflush(stdout);
    }
}

// See viewer.h.
void viewer_flock_rules(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    boids_params before = f->p;
    // The next rule set the groups' behaviours allow (heading: flocking
    // only, 2D; circles: separation alone); the refused ones are said.
    for (uint32_t k = 1; k < BOIDS_RULES_COUNT; k++) {
        uint32_t r = (before.group[0].rules + k) % BOIDS_RULES_COUNT;
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            f->p.group[g].rules = r;
        if (viewer_flock_refinalize(f, &before)) {
            printf("rules: %s\n", boids_parse_rules_names[r]);
            fflush(stdout);
            return;
        }
    }
}

// See viewer.h.
void viewer_flock_pause(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->flock->paused = !v->flock->paused;
    printf("%s\n", v->flock->paused ? "paused" : "running");
    fflush(stdout);
}

// See viewer.h: paused, with one step to come.
void viewer_flock_step(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->flock->paused = true;
    v->flock->step_once = true;
}

// See viewer.h: a new simulation (same seed), or --load's snapshot again.
void viewer_flock_reset(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    if (viewer_flock_new_sim(v) != BOIDS_OK) {
        if (!v->o->load) { // a snapshot that went missing keeps the flock running
            fprintf(stderr, "%s: reset failed: out of memory\n", PROG);
            v->quit = true;
        }
    } else if (v->o->load) {
        printf("reset: %s (step %llu)\n", v->o->load, (unsigned long long)boids_engine_steps(v->flock->e));
    } else {
        printf("reset: seed %llu\n", (unsigned long long)v->o->seed);
    }
    fflush(stdout);
}

// See viewer.h: [ the previous parameter, ] the next.
void viewer_flock_select(viewer *v, int key, int arg) {
    (void)arg;
    int *s = &v->flock->selected;
    *s = (*s + (key == GLFW_KEY_LEFT_BRACKET ? (int)TUNABLE_COUNT - 1 : 1)) % (int)TUNABLE_COUNT;
}

// See viewer.h: - divides the parameter by 1.1, = multiplies it (0 becomes 0.1).
void viewer_flock_change(viewer *v, int key, int arg) {
    (void)arg;
    viewer_flock *f = v->flock;
    const tunable *t = &tunables[f->selected];
    boids_params before = f->p;
    float k = key == GLFW_KEY_EQUAL ? 1.1f : 1.0f / 1.1f;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        float *x = tunable_of(t, &f->p.group[g]);
        *x = *x == 0.0f && k > 1.0f ? 0.1f : *x * k;
    }
    if (viewer_flock_refinalize(f, &before)) {
        printf("param: %s = %g\n", t->name, (double)*tunable_of(t, &f->p.group[0]));
        fflush(stdout);
    }
}

// See viewer.h: the overlay arg (OVERLAY_*) on or off.
void viewer_flock_overlay(viewer *v, int key, int arg) {
    (void)key;
    static const char *const names[OVERLAYS] = {"grid", "neighbors", "vectors", "flow", "path", "follows"};
    bool *flag = &v->flock->show[arg];
    *flag = !*flag;
    printf("overlay: %s %s\n", names[arg], *flag ? "on" : "off");
    fflush(stdout);
}

// See viewer.h: every group's body style to the next of none, chain, snake,
// fish (length --body-length or 1.2 x the separation). A rejected change
// (on the HUD and stdout) keeps the style.
void viewer_flock_bodies(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    const boids_options *o = v->o;
    viewer_flock *f = v->flock;
    uint32_t style = (f->body_style + 1) % BOIDS_BODY_STYLES;
    boids_body_params body[BOIDS_MAX_GROUPS];
    char what[256] = "";
    boids_result r = BOIDS_OK;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS && r == BOIDS_OK; g++) {
        float length = o->values.set[BOIDS_PARAM_BODY_LENGTH] ? o->values.v[BOIDS_PARAM_BODY_LENGTH].f[0]
                                                              : 1.2f * f->p.group[g].separation;
        r = boids_body_make(&body[g], style, joints, length, what, sizeof what);
    }
    if (r == BOIDS_OK) { // the parameters of now with the new bodies, laid straight
        boids_params q = f->p;
        memcpy(q.body, body, sizeof body);
        r = boids_engine_set_params(f->e, &q, what, sizeof what);
    }
    if (r != BOIDS_OK) {
        snprintf(f->body_error, sizeof f->body_error, "bodies %s rejected: %s", boids_body_style_name(style), what);
        printf("rejected: %s\n", f->body_error);
        fflush(stdout);
        return;
    }
    f->body_error[0] = '\0';
    f->body_style = style;
    memcpy(f->p.body, body, sizeof body);
    memcpy(f->p_create.body, body, sizeof body);
    f->params_dirty = true;
    printf("bodies: %s\n", boids_body_style_name(style));
    fflush(stdout);
}

// See viewer.h: a profile recording starts, or stops and is written.
void viewer_flock_profile(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    if (v->profile)
        viewer_profile_stop(v);
    else
        viewer_profile_start(v, v->flock->use_gpu ? "gpu" : "cpu");
}

// See viewer.h: a snapshot to --save's FILE, else boids-NNNN.boids.
void viewer_flock_save(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    char path[64];
    viewer_free_name(path, sizeof path, "boids-%04llu.boids", &v->flock->saves);
    viewer_flock_save_state(v, v->o->save ? v->o->save : path);
}
