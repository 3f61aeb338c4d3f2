// src/viewer/viewer_menu.c: the flock's behaviour menu (M). A panel listing
// every behaviour the engine knows (boids_behavior_name of 0 ..
// BOIDS_BEHAVIOR_COUNT - 1, so a behaviour added later is listed without a
// change here) with its state and weight for one group; Up Down select,
// Enter switches on or off, Left Right change the weight, Tab the group.
// Changes go into the flock's parameters and through
// viewer_flock_refinalize to the engine (boids_engine_set_params on the
// next frame), as the other keys' do, on either backend; each is printed on
// stdout for scripts and tests.
#include <math.h>
#include <stdio.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer_flock.h"

// The weight step of Left and Right; weights are kept to hundredths so
// that a few presses give the value a flag would (1 + 0.1 is --weights 1.1).
#define WEIGHT_STEP 0.1f

static float *weight_of(boids_group_params *g, uint32_t b) {
    return boids_weight_ref(g, b);
}
static float weight_value(const boids_group_params *g, uint32_t b) {
    return boids_weight(g, b);
}

// The menu's group and the name the scenario gives it ("" if none).
static const char *group_name(const viewer_flock *f) {
    return f->scen ? f->scen->group_name[f->menu_group] : "";
}

// M: the menu on or off.
void viewer_menu_open(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    f->menu = !f->menu;
    if (f->menu_group >= f->p.world.group_count)
        f->menu_group = 0;
    printf("menu: %s\n", f->menu ? "on" : "off");
    fflush(stdout);
}

// Up, Down (while the menu is open): the previous or next behaviour, round.
void viewer_menu_move(viewer *v, int key, int arg) {
    (void)arg;
    viewer_flock *f = v->flock;
    if (!f->menu || v->panels_hidden) // closed or hidden (I): the keys do nothing
        return;
    f->menu_row = (f->menu_row + (key == GLFW_KEY_UP ? BOIDS_BEHAVIOR_COUNT - 1u : 1u)) % BOIDS_BEHAVIOR_COUNT;
}

// Tab (while the menu is open): the next group.
void viewer_menu_group(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    if (!f->menu || v->panels_hidden) // closed or hidden (I): the keys do nothing
        return;
    uint32_t n = f->p.world.group_count ? f->p.world.group_count : 1u;
    f->menu_group = (f->menu_group + 1u) % n;
    const char *name = group_name(f);
    printf("menu: group %u%s%s%s\n", f->menu_group, name[0] ? " (" : "", name, name[0] ? ")" : "");
    fflush(stdout);
}

// Enter (while the menu is open): the selected behaviour of the menu's
// group on or off; refused (and said) if the parameters cannot take it.
void viewer_menu_toggle(viewer *v, int key, int arg) {
    (void)key;
    (void)arg;
    viewer_flock *f = v->flock;
    if (!f->menu || v->panels_hidden) // closed or hidden (I): the keys do nothing
        return;
    boids_params before = f->p;
    boids_group_params *g = &f->p.group[f->menu_group];
    g->behaviors ^= BOIDS_BIT(f->menu_row);
    bool on = g->behaviors & BOIDS_BIT(f->menu_row);
    if (!viewer_flock_refinalize(f, &before))
        return;
    printf("menu: group %u %s %s\n", f->menu_group, boids_behavior_name(f->menu_row), on ? "on" : "off");
    if (f->menu_group == 0)
        viewer_flock_print_behaviors(v); // the HUD's line (group 0's)
    fflush(stdout);
}

// Left, Right (while the menu is open): the selected behaviour's weight in
// the menu's group down or up by WEIGHT_STEP.
void viewer_menu_weight(viewer *v, int key, int arg) {
    (void)arg;
    viewer_flock *f = v->flock;
    if (!f->menu || v->panels_hidden) // closed or hidden (I): the keys do nothing
        return;
    boids_params before = f->p;
    float *w = weight_of(&f->p.group[f->menu_group], f->menu_row);
    *w = roundf((*w + (key == GLFW_KEY_RIGHT ? WEIGHT_STEP : -WEIGHT_STEP)) * 100.0f) / 100.0f;
    if (viewer_flock_refinalize(f, &before)) {
        printf("menu: group %u %s weight %g\n", f->menu_group, boids_behavior_name(f->menu_row),
               (double)*weight_of(&f->p.group[f->menu_group], f->menu_row));
        fflush(stdout);
    }
}

// The menu's text: its title (into title), the widths of its columns and
// of the panel's inside, the line height and the keys' hint.
typedef struct menu_metrics {
    char title[128];
    const char *hint;
    float scale, line_h, state_w, name_w, weight_w, hint_h, inner_w, pad, gap;
} menu_metrics;

static void menu_measure(const viewer_flock *f, int fb_h, menu_metrics *mm) {
    float w, h, title_w, hint_w;
    mm->scale = viewer_hud_scale(fb_h);
    boids_render_text_size("Xg\nXg", mm->scale, &w, &mm->line_h);
    boids_render_text_size("Xg", mm->scale, &w, &h);
    mm->line_h -= h;
    boids_render_text_size("off ", mm->scale, &mm->state_w, &h);
    boids_render_text_size(" -000.00", mm->scale, &mm->weight_w, &h);
    mm->name_w = 0.0f;
    for (uint32_t b = 0; b < BOIDS_BEHAVIOR_COUNT; b++) {
        boids_render_text_size(boids_behavior_name(b), mm->scale, &w, &h);
        mm->name_w = fmaxf(mm->name_w, w);
    }
    const char *name = group_name(f);
    snprintf(mm->title, sizeof mm->title, "behaviours of group %u%s%s%s   M closes", f->menu_group, name[0] ? " (" : "",
             name, name[0] ? ")" : "");
    mm->hint = "Up Down select  Enter on/off\nLeft Right weight  Tab group";
    boids_render_text_size(mm->title, mm->scale, &title_w, &h);
    boids_render_text_size(mm->hint, mm->scale, &hint_w, &mm->hint_h);
    mm->pad = 8.0f * mm->scale;
    mm->gap = 6.0f * mm->scale;
    mm->inner_w = fmaxf(fmaxf(title_w, hint_w), mm->state_w + mm->name_w + mm->gap + mm->weight_w);
}

// See viewer.h: the panel's width; its column reaches the window's foot.
void viewer_menu_size(viewer *v, int fb_h, float *w, float *h) {
    viewer_flock *f = v->flock;
    *w = *h = 0.0f;
    if (!f || !f->menu)
        return;
    menu_metrics mm;
    menu_measure(f, fb_h, &mm);
    *w = mm.inner_w + 2.0f * mm.pad;
    *h = (float)fb_h;
}

// See viewer_flock.h: where the layout put it (viewer_layout_panels: at the
// right edge under the HUD), a title, a line of its keys, then one row per
// behaviour: on/off, the name, the weight; the selected row on a gold band.
// A window too short for every row shows those round the selected one and
// their range.
void viewer_menu_draw(viewer *v, int fb_w, int fb_h) {
    viewer_flock *f = v->flock;
    if (!f->menu || v->panels_hidden)
        return;
    static const float panel[4] = {0.10f, 0.16f, 0.30f, 0.85f}, band[4] = {0.95f, 0.85f, 0.35f, 0.35f};
    static const float white[4] = {0.92f, 0.94f, 0.96f, 1.0f}, gold[4] = {0.95f, 0.85f, 0.35f, 1.0f};
    static const float on_col[4] = {0.45f, 0.90f, 0.45f, 1.0f}, off_col[4] = {0.55f, 0.57f, 0.60f, 1.0f};
    const boids_group_params *g = &f->p.group[f->menu_group];
    menu_metrics mm;
    menu_measure(f, fb_h, &mm);
    float scale = mm.scale, line_h = mm.line_h, pad = mm.pad, gap = mm.gap, inner_w = mm.inner_w;
    float x = v->panels.menu.x, y = v->panels.menu.y;
    if (v->panels.menu.w <= 0.0f) { // not laid out this frame: the right edge under the HUD
        x = fmaxf((float)fb_w - inner_w - 2.0f * pad - 4.0f * scale, 0.0f);
        y = v->hud_bottom + 6.0f * scale;
    }
    // The rows that fit between the HUD and the foot of its column (the
    // window's, or the profile graph's top; at least 3): a window round the
    // selected one when not all of them do, its range in the last line.
    uint32_t rows = BOIDS_BEHAVIOR_COUNT, first = 0;
    float foot = v->panels.menu.w > 0.0f ? v->panels.menu.y + v->panels.menu.h : (float)fb_h;
    float room = (foot - y - 2.0f * pad - line_h - mm.hint_h - gap) / line_h;
    if (room < (float)rows) {
        rows = room > 4.0f ? (uint32_t)room - 1u : 3u; // one line for the range
        first = f->menu_row > rows / 2 ? f->menu_row - rows / 2 : 0u;
        if (first + rows > BOIDS_BEHAVIOR_COUNT)
            first = BOIDS_BEHAVIOR_COUNT - rows;
    }
    bool windowed = rows < BOIDS_BEHAVIOR_COUNT;
    float inner_h = line_h * (float)(rows + 1u + (windowed ? 1u : 0u)) + mm.hint_h + gap;
    boids_render_rect(v->render, fb_w, fb_h, x, y, inner_w + 2.0f * pad, inner_h + 2.0f * pad, panel);
    x += pad;
    y += pad;
    boids_render_text(v->render, fb_w, fb_h, x, y, scale, mm.title, gold);
    boids_render_text(v->render, fb_w, fb_h, x, y + line_h, scale, mm.hint, white);
    float row0 = y + line_h + mm.hint_h + gap;
    for (uint32_t b = first; b < first + rows; b++) {
        float ry = row0 + line_h * (float)(b - first);
        bool on = g->behaviors & BOIDS_BIT(b), sel = b == f->menu_row;
        if (sel)
            boids_render_rect(v->render, fb_w, fb_h, x - pad * 0.5f, ry - 2.0f * scale, inner_w + pad, line_h, band);
        char weight[32];
        snprintf(weight, sizeof weight, "%8.2f", (double)weight_value(g, b));
        boids_render_text(v->render, fb_w, fb_h, x, ry, scale, on ? "on" : "off", on ? on_col : off_col);
        boids_render_text(v->render, fb_w, fb_h, x + mm.state_w, ry, scale, boids_behavior_name(b), sel ? gold : white);
        boids_render_text(v->render, fb_w, fb_h, x + mm.state_w + mm.name_w + gap, ry, scale, weight,
                          on ? white : off_col);
    }
    if (windowed) {
        char range[64];
        snprintf(range, sizeof range, "%u-%u of %u (Up Down scroll)", first + 1u, first + rows, BOIDS_BEHAVIOR_COUNT);
        boids_render_text(v->render, fb_w, fb_h, x, row0 + line_h * (float)rows, scale, range, off_col);
    }
}
