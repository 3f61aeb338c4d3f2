// src/viewer/viewer_key_table.c: the viewer's one key table: each key, its
// text, the handler it calls and the modes it applies to. It binds every
// mode's handlers, so it sits with the frame loop above the modes, which
// hands it to the layers below through v->keys (viewer_keys.c makes the
// --help list, the help overlay's entries and the dispatch of it).
#include <stdio.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer.h"

// C: the colour mode (group, heading, speed, neighbours).
static void color_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->color = (boids_color_mode)((v->color + 1) % BOIDS_COLOR_MODES);
    printf("color: %s\n", boids_color_mode_name(v->color));
    fflush(stdout);
}

// H, F1: the help overlay on or off.
static void help_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->help = !v->help;
}

// I: every panel (HUD, menu, help, profile graph) hidden or shown at once.
static void panels_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->panels_hidden = !v->panels_hidden;
    printf("panels: %s\n", v->panels_hidden ? "hidden" : "shown");
    fflush(stdout);
}

// F2: the help's next page (where the window needs several).
static void help_page_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->help_page++;
}

// Esc: quit after this frame.
static void quit_key(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    v->quit = true;
}

#define F VIEWER_FLOCK
#define R VIEWER_REPLAY
#define D VIEWER_DEMO
#define BIT BOIDS_BIT

// The keys, in the order --help and the overlay list them.
const viewer_key viewer_keys[] = {
    {{GLFW_KEY_1}, "toggle separation", viewer_flock_behavior, BIT(BOIDS_BI_SEPARATION), F, false},
    {{GLFW_KEY_2}, "toggle alignment", viewer_flock_behavior, BIT(BOIDS_BI_ALIGNMENT), F, false},
    {{GLFW_KEY_3}, "toggle cohesion", viewer_flock_behavior, BIT(BOIDS_BI_COHESION), F, false},
    {{GLFW_KEY_4}, "toggle seek", viewer_flock_behavior, BIT(BOIDS_BI_SEEK), F, false},
    {{GLFW_KEY_5}, "toggle flee", viewer_flock_behavior, BIT(BOIDS_BI_FLEE), F, false},
    {{GLFW_KEY_6}, "toggle arrive", viewer_flock_behavior, BIT(BOIDS_BI_ARRIVE), F, false},
    {{GLFW_KEY_7},
     "toggle pursue + evade",
     viewer_flock_behavior,
     BIT(BOIDS_BI_PURSUE) | BIT(BOIDS_BI_EVADE),
     F,
     false},
    {{GLFW_KEY_8}, "toggle wander", viewer_flock_behavior, BIT(BOIDS_BI_WANDER), F, false},
    {{GLFW_KEY_9}, "toggle flow field", viewer_flock_behavior, BIT(BOIDS_BI_FLOW), F, false},
    {{GLFW_KEY_0}, "toggle path following", viewer_flock_behavior, BIT(BOIDS_BI_PATH), F, false},
    {{GLFW_KEY_O}, "toggle obstacles", viewer_flock_behavior, BIT(BOIDS_BI_OBSTACLES), F, false},
    {{GLFW_KEY_M}, "behaviour menu: every behaviour, on/off, weight", viewer_menu_open, 0, F, false},
    {{GLFW_KEY_UP, GLFW_KEY_DOWN}, "menu: the previous / next behaviour", viewer_menu_move, 0, F, true},
    {{GLFW_KEY_ENTER}, "menu: the behaviour on / off", viewer_menu_toggle, 0, F, false},
    {{GLFW_KEY_LEFT, GLFW_KEY_RIGHT}, "menu: its weight -0.1 / +0.1", viewer_menu_weight, 0, F, true},
    {{GLFW_KEY_TAB}, "menu: the next group", viewer_menu_group, 0, F, false},
    {{GLFW_KEY_B}, "boundary: wrap, walls, bounce, margin", viewer_flock_boundary, 0, F, false},
    {{GLFW_KEY_U},
     "rules: chapter, tutorial, heading, circles, vicsek, couzin (those the behaviours allow)",
     viewer_flock_rules,
     0,
     F,
     false},
    {{GLFW_KEY_SPACE}, "pause", viewer_flock_pause, 0, F, false},
    {{GLFW_KEY_PERIOD}, "single step", viewer_flock_step, 0, F, true},
    {{GLFW_KEY_R}, "reset (same seed, or --load's file)", viewer_flock_reset, 0, F, false},
    {{GLFW_KEY_SPACE}, "play / pause", viewer_replay_play, 0, R, false},
    {{GLFW_KEY_RIGHT, GLFW_KEY_PERIOD}, "one frame on", viewer_replay_step, 1, R, true},
    {{GLFW_KEY_LEFT, GLFW_KEY_COMMA}, "one frame back", viewer_replay_step, -1, R, true},
    {{GLFW_KEY_UP}, "10 frames on", viewer_replay_go, 10, R, true},
    {{GLFW_KEY_DOWN}, "10 frames back", viewer_replay_go, -10, R, true},
    {{GLFW_KEY_HOME}, "the first frame", viewer_replay_go, -2000000000, R, false},
    {{GLFW_KEY_END}, "the last frame", viewer_replay_go, 2000000000, R, false},
    {{GLFW_KEY_E}, "the frame as CSV (boids-frame-NNNN.csv)", viewer_replay_csv, 0, R, false},
    {{GLFW_KEY_R}, "restart the demo", viewer_demo_restart, 0, D, false},
    {{GLFW_KEY_LEFT_BRACKET, GLFW_KEY_RIGHT_BRACKET}, "select a parameter", viewer_flock_select, 0, F, false},
    {{GLFW_KEY_MINUS, GLFW_KEY_EQUAL}, "change it", viewer_flock_change, 0, F, true},
    {{GLFW_KEY_C}, "colour: group, heading, speed, neighbours", color_key, 0, F | R, false},
    {{GLFW_KEY_G}, "grid occupancy heat map", viewer_flock_overlay, 0, F, false},
    {{GLFW_KEY_N}, "neighbours of the agent under the cursor", viewer_flock_overlay, 1, F, false},
    {{GLFW_KEY_V}, "its steering vector per behaviour", viewer_flock_overlay, 2, F, false},
    {{GLFW_KEY_F}, "flow-field arrows", viewer_flock_overlay, 3, F, false},
    {{GLFW_KEY_P}, "path", viewer_flock_overlay, 4, F, false},
    {{GLFW_KEY_L},
     "who follows whom (hunter -> prey, member -> leader, guard -> pair)",
     viewer_flock_overlay,
     5,
     F,
     false},
    {{GLFW_KEY_K}, "body style (none, chain, snake, fish)", viewer_flock_bodies, 0, F, false},
    {{GLFW_KEY_S}, "screenshot (boids-NNNN.png)", viewer_screenshot_key, 0, F | R | D, false},
    {{GLFW_KEY_T}, "start / stop a profile recording", viewer_flock_profile, 0, F, false},
    {{GLFW_KEY_W}, "write a snapshot (--save or boids-NNNN)", viewer_flock_save, 0, F, false},
    {{GLFW_KEY_H, GLFW_KEY_F1}, "this help", help_key, 0, F | R | D, false},
    {{GLFW_KEY_F2}, "the help's next page (a small window)", help_page_key, 0, F | R | D, false},
    {{GLFW_KEY_I}, "hide / show every panel (HUD, menu, help, graph)", panels_key, 0, F | R | D, false},
    {{GLFW_KEY_ESCAPE}, "quit", quit_key, 0, F | R | D, false},
};
const size_t viewer_key_count = sizeof viewer_keys / sizeof viewer_keys[0];

#undef F
#undef R
#undef D
#undef BIT
