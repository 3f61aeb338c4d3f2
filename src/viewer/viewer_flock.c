// src/viewer/viewer_flock.c: the flock's parameters as the keys change
// them, below its mode (viewer_flock_mode.c), its other keys
// (viewer_flock_keys.c) and its menu (viewer_menu.c): a change re-derived
// and marked for the engine (viewer_flock_refinalize), the enabled set on
// stdout, the behaviour keys and the steer programs one of them away, the
// parameters of [ ] - =.
#include <stdio.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/registry.h"
#include "viewer_flock.h"

// Parameters the [ ] - = keys change (all groups alike): the registry's
// tunable numbers (boids/registry.h, BOIDS_PF_TUNE), named by their help
// line, then the weights of these behaviours.
typedef struct tunable {
    char name[64];  // in the HUD and on stdout
    char value[48]; // boids_group_value's name of it
} tunable;
static const uint32_t tuned_weights[] = {BOIDS_BI_SEPARATION, BOIDS_BI_ALIGNMENT, BOIDS_BI_COHESION, BOIDS_BI_SEEK,
                                         BOIDS_BI_FLEE,       BOIDS_BI_ARRIVE,    BOIDS_BI_WANDER,   BOIDS_BI_FLOW,
                                         BOIDS_BI_PATH,       BOIDS_BI_OBSTACLES};
#define TUNABLE_MAX (BOIDS_PARAM_COUNT + sizeof tuned_weights / sizeof tuned_weights[0])
static tunable tunables[TUNABLE_MAX];
static int tunable_count;

// The list, made on first use.
static void tunables_make(void) {
    if (tunable_count)
        return;
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (!(in->flags & BOIDS_PF_TUNE))
            continue;
        tunable *t = &tunables[tunable_count++];
        const char *cut = strstr(in->help, " (");
        snprintf(t->name, sizeof t->name, "%.*s", cut ? (int)(cut - in->help) : (int)strlen(in->help), in->help);
        snprintf(t->value, sizeof t->value, "%s", in->name);
    }
    for (size_t k = 0; k < sizeof tuned_weights / sizeof tuned_weights[0]; k++) {
        tunable *t = &tunables[tunable_count++];
        snprintf(t->name, sizeof t->name, "%s weight", boids_behavior_name(tuned_weights[k]));
        snprintf(t->value, sizeof t->value, "weight.%s", boids_behavior_name(tuned_weights[k]));
    }
}

// The float of t in gp.
static float *tunable_of(const tunable *t, boids_group_params *gp) {
    return boids_group_value(gp, t->value);
}

// See viewer_flock.h.
float viewer_flock_tunable(const viewer *v, const char **name) {
    tunables_make();
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

// See viewer_flock.h: the steer programs one behaviour key away from the
// current groups start building in the background (GPU, where the driver
// compiles in its own threads), so the key press finds its program ready.
void viewer_flock_prepare(viewer *v) {
    viewer_flock *f = v->flock;
    if (f->prepared_valid && memcmp(f->prepared, f->p.group, sizeof f->prepared) == 0)
        return;
    memcpy(f->prepared, f->p.group, sizeof f->prepared);
    f->prepared_valid = true;
    for (size_t k = 0; k < v->key_count; k++) {
        if (v->keys[k].fn != viewer_flock_behavior)
            continue;
        uint32_t bits = (uint32_t)v->keys[k].arg;
        bool on = !(f->p.group[0].behaviors & bits);
        boids_group_params next[BOIDS_MAX_GROUPS];
        memcpy(next, f->p.group, sizeof next);
        for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
            next[g].behaviors = on ? (next[g].behaviors | bits) : (next[g].behaviors & ~bits);
        boids_engine_prepare(f->e, next);
    }
}

// See viewer.h: [ the previous parameter, ] the next.
void viewer_flock_select(viewer *v, int key, int arg) {
    (void)arg;
    int *s = &v->flock->selected;
    tunables_make();
    *s = (*s + (key == GLFW_KEY_LEFT_BRACKET ? tunable_count - 1 : 1)) % tunable_count;
}

// See viewer.h: - divides the parameter by 1.1, = multiplies it (0 becomes 0.1).
void viewer_flock_change(viewer *v, int key, int arg) {
    (void)arg;
    viewer_flock *f = v->flock;
    tunables_make();
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
