// tests/test_viewer.c: the viewer `boids`, through the real executable under
// Xvfb (xvfb-run) with Mesa's llvmpipe in CI. Each case spawns it (no shell)
// with --frames and --screenshot, captures stdout and stderr into files under
// BOIDS_TEST_TMP, checks the exit status and what it printed, and loads the
// PNG (stb_image). Without xvfb-run and without a display the suite FAILS:
// the viewer is never skipped.
#include <check.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pixels.h"
#include "spawn.h"
#include "viewer_run.h"
#include "boids/render.h"
#include "boids/snapshot.h"

#include <stb_image.h> // stbi_load: the implementation is boids_core's (src/core/flowfield.c)

extern char **environ;

#define slurp boids_test_slurp
#define run_free boids_test_run_free
#define run_viewer boids_test_viewer // tests/viewer_run.c
#define load boids_test_image

static void expect_ok(const run_result *r) {
    ck_assert_msg(WEXITSTATUS(r->status) == 0, "expected exit 0, got %d; stderr: %s", WEXITSTATUS(r->status), r->err);
    ck_assert_msg(strstr(r->out, "gl-errors 0"), "expected zero GL errors; stdout: %s", r->out);
}

// An agent pixel: the group-0 colour of agents.vert (palette[0] = 0.95,
// 0.85, 0.35, times 0.8 .. 1.25): warm and bright, unlike the background
// (0.05, 0.06, 0.08), the HUD's white text and the grey world box.
static bool agent_pixel(const unsigned char *p) {
    return p[0] > 140 && p[1] > 110 && p[2] < 130 && p[0] > p[2] + 60;
}

// Agent pixels below the HUD (y >= y0).
static long count_agents(const image *im, int y0) {
    long n = 0;
    for (int y = y0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            n += agent_pixel(im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3);
    return n;
}

START_TEST(screenshot_shows_agents) {
    run_result r = run_viewer("shot",
                              ARGV("--count", "5000", "--frames", "30", "--width", "640", "--height", "480", "--vsync",
                                   "off", "--screenshot", TMP "/shot.png"),
                              true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "5000 agents"), "expected the count in the first line; stdout: %s", r.out);
    image im = load(TMP "/shot.png");
    ck_assert_msg(im.w == 640 && im.h == 480, "expected a 640x480 PNG (the window), got %dx%d", im.w, im.h);
    long agents = count_agents(&im, 0);
    // 5000 triangles of ~5 px length cover thousands of pixels; 500 is far below.
    ck_assert_msg(agents > 500, "expected > 500 agent-coloured pixels, got %ld", agents);
    stbi_image_free(im.px);
    run_free(&r);
}
END_TEST

START_TEST(frames_apart_differ) {
    run_result a = run_viewer("apart10",
                              ARGV("--count", "5000", "--frames", "10", "--width", "640", "--height", "480", "--vsync",
                                   "off", "--screenshot", TMP "/apart10.png"),
                              true);
    expect_ok(&a);
    run_result b = run_viewer("apart40",
                              ARGV("--count", "5000", "--frames", "40", "--width", "640", "--height", "480", "--vsync",
                                   "off", "--screenshot", TMP "/apart40.png"),
                              true);
    expect_ok(&b);
    image x = load(TMP "/apart10.png"), y = load(TMP "/apart40.png");
    ck_assert(x.w == y.w && x.h == y.h);
    long changed = 0;
    for (size_t i = 0; i < (size_t)x.w * (size_t)x.h; i++)
        changed += agent_pixel(x.px + i * 3) != agent_pixel(y.px + i * 3);
    // 30 steps at speed ~2-3 move every agent by several of its own lengths.
    ck_assert_msg(changed > 1000, "expected > 1000 pixels to change between frame 10 and 40, got %ld", changed);
    stbi_image_free(x.px);
    stbi_image_free(y.px);
    run_free(&a);
    run_free(&b);
}
END_TEST

START_TEST(keys_toggle_behaviors) {
    run_result r = run_viewer(
        "keys", ARGV("--count", "2000", "--frames", "12", "--vsync", "off", "--keys", "3:1,5:2,6:4,8:7,9:space,10:."),
        true);
    expect_ok(&r);
    const char *lines[] = {"behaviors: separation,alignment,cohesion\n",
                           "behaviors: alignment,cohesion\n",
                           "behaviors: cohesion\n",
                           "behaviors: seek,cohesion\n",
                           "behaviors: evade,pursue,seek,cohesion\n",
                           "paused\n"};
    const char *at = r.out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *f = strstr(at, lines[i]);
        ck_assert_msg(f, "expected '%.*s' (in this order) on stdout: %s", (int)strlen(lines[i]) - 1, lines[i], r.out);
        at = f + strlen(lines[i]);
    }
    // Paused at frame 9 and one '.' step at frame 10: 8 + 1 steps.
    ck_assert_msg(strstr(r.out, "frames: 12, steps 9,"), "expected 12 frames and 9 steps; stdout: %s", r.out);
    run_free(&r);
}
END_TEST

static boids_sim *load_snapshot(const char *path);

// The behaviour menu (M) on both backends: seek (row 8 of the index order)
// switched on with Enter and its weight raised 0.1 three times, separation
// (row 3, five up) weighted 0.2 less, all at frame 1 (before the first
// step), gives the run that --behaviors and --weights give: each change is
// printed, the HUD's behaviours line follows, and the two --save snapshots
// hold the same group 0 and the same agents bit for bit.
START_TEST(menu_toggles_and_weights) {
    const char *keys = "1:m,1:down,1:down,1:down,1:down,1:down,1:down,1:down,1:down,1:enter,1:right,1:right,1:right,"
                       "1:up,1:up,1:up,1:up,1:up,1:left,1:left,1:tab,1:m";
    const char *backends[2] = {"cpu", "gpu"};
    for (int b = 0; b < 2; b++) {
        char by_keys[256], by_flags[256];
        snprintf(by_keys, sizeof by_keys, TMP "/menu-keys-%s.boids", backends[b]);
        snprintf(by_flags, sizeof by_flags, TMP "/menu-flags-%s.boids", backends[b]);
        run_result r = run_viewer("menu_keys",
                                  ARGV("--backend", backends[b], "--count", "400", "--frames", "10", "--vsync", "off",
                                       "--keys", keys, "--save", by_keys),
                                  true);
        expect_ok(&r);
        const char *lines[] = {"menu: on\n",
                               "menu: group 0 seek on\n",
                               "behaviors: separation,seek,alignment,cohesion\n",
                               "menu: group 0 seek weight 1.1\n",
                               "menu: group 0 seek weight 1.3\n",
                               "menu: group 0 separation weight 1.4\n",
                               "menu: group 0 separation weight 1.3\n",
                               "menu: group 0 (default)\n", // Tab: one group, so group 0 again
                               "menu: off\n"};
        const char *at = r.out;
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
            const char *f = strstr(at, lines[i]);
            ck_assert_msg(f, "%s: expected '%.*s' (in this order) on stdout: %s", backends[b],
                          (int)strlen(lines[i]) - 1, lines[i], r.out);
            at = f + strlen(lines[i]);
        }
        ck_assert_msg(strstr(r.out, "frames: 10, steps 10,"), "expected 10 steps; stdout: %s", r.out);
        run_free(&r);
        run_result q = run_viewer("menu_flags",
                                  ARGV("--backend", backends[b], "--count", "400", "--frames", "10", "--vsync", "off",
                                       "--behaviors", "separation,alignment,cohesion,seek", "--weights",
                                       "seek=1.3,separation=1.3", "--save", by_flags),
                                  true);
        expect_ok(&q);
        run_free(&q);
        boids_sim *a = load_snapshot(by_keys), *c = load_snapshot(by_flags);
        uint32_t n = a->p.world.count;
        ck_assert_msg(a->step == 10 && c->step == 10 && n == 400 && c->p.world.count == n &&
                          a->p.world.group_count == 1,
                      "%s: expected two snapshots of step 10, 400 agents, one group", backends[b]);
        // The flags set every group's slot; the menu the one group there is.
        ck_assert_msg(memcmp(&a->p.group[0], &c->p.group[0], sizeof a->p.group[0]) == 0,
                      "%s: expected the menu's group 0 to equal the flags' (behaviours %#x and %#x)", backends[b],
                      a->p.group[0].behaviors, c->p.group[0].behaviors);
        // By id: the GPU's slot order within a cell is not deterministic.
        float(*pa)[4] = calloc(n, 16), (*pc)[4] = calloc(n, 16);
        ck_assert(pa && pc);
        for (uint32_t i = 0; i < n; i++) {
            ck_assert(a->cur.id[i] < n && c->cur.id[i] < n);
            memcpy(pa[a->cur.id[i]], a->cur.pos[i], 16);
            memcpy(pc[c->cur.id[i]], c->cur.pos[i], 16);
        }
        ck_assert_msg(memcmp(pa, pc, (size_t)n * 16) == 0,
                      "%s: expected the menu's run to equal the flags' bit for bit after 10 steps", backends[b]);
        free(pa);
        free(pc);
        boids_sim_destroy(a);
        boids_sim_destroy(c);
    }
}
END_TEST

// The menu's panel (dark blue, at the right under the HUD) and its
// selected row's gold band, blended over the dark background: thousands of
// pixels in the right half with M, none without.
static bool menu_panel_pixel(const unsigned char *p) {
    // 0.85 x (0.10, 0.16, 0.30) + 0.15 x the background (0.05, 0.06, 0.08): about (24, 37, 68).
    return p[0] < 45 && p[2] >= 50 && p[2] <= 95 && p[2] > p[0] + 25 && p[2] > p[1] + 15;
}
static bool menu_band_pixel(const unsigned char *p) {
    // 0.35 x gold (0.95, 0.85, 0.35) over the panel: about (100, 100, 75).
    return p[0] >= 85 && p[0] <= 120 && p[1] >= 85 && p[1] <= 120 && p[2] >= 58 && p[2] <= 92;
}

START_TEST(menu_drawn) {
    long panel[2] = {0}, band[2] = {0};
    for (int k = 0; k < 2; k++) {
        char shot[256];
        snprintf(shot, sizeof shot, TMP "/menu-%d.png", k);
        run_result r =
            run_viewer("menu_shot",
                       ARGV("--backend", "cpu", "--count", "300", "--frames", "6", "--width", "640", "--height", "480",
                            "--vsync", "off", "--keys", k ? "2:m,3:down,4:down" : "2:b", "--screenshot", shot),
                       true);
        expect_ok(&r);
        image im = load(shot);
        for (int y = 0; y < im.h; y++)
            for (int x = im.w / 2; x < im.w; x++) {
                const unsigned char *p = im.px + ((size_t)y * (size_t)im.w + (size_t)x) * 3;
                panel[k] += menu_panel_pixel(p);
                band[k] += menu_band_pixel(p);
            }
        stbi_image_free(im.px);
        run_free(&r);
    }
    // The panel is about 250 x 250 pixels at this size; its band 245 x 12.
    ck_assert_msg(panel[1] > 20000 && panel[0] < 200,
                  "expected > 20000 panel pixels with the menu and < 200 without, got %ld and %ld", panel[1], panel[0]);
    ck_assert_msg(band[1] > 1000 && band[0] < 100,
                  "expected > 1000 pixels of the selected row's band with the menu and < 100 without, got %ld and %ld",
                  band[1], band[0]);
}
END_TEST

// L in predators-prey (predators hunt the two prey species) on both
// backends: magenta lines from hunters to their prey, none without L.
static bool follows_pixel(const unsigned char *p) {
    return p[0] > 180 && p[2] > 160 && p[1] < 150 && p[0] > p[1] + 60; // (1, 0.4, 0.95): no group's colour
}

START_TEST(follows_drawn) {
    const char *backends[2] = {"gpu", "cpu"};
    for (int k = 0; k < 4; k++) {
        char shot[256];
        snprintf(shot, sizeof shot, TMP "/follows-%d.png", k);
        run_result r = run_viewer("follows",
                                  ARGV("--backend", backends[k >> 1], "--scenario", "predators-prey", "--frames", "30",
                                       "--width", "640", "--height", "480", "--vsync", "off", "--keys",
                                       k & 1 ? "2:l" : "2:b", "--screenshot", shot),
                                  true);
        expect_ok(&r);
        image im = load(shot);
        long lines = 0;
        for (size_t i = 0; i < (size_t)im.w * (size_t)im.h; i++)
            lines += follows_pixel(im.px + i * 3);
        stbi_image_free(im.px);
        // Dozens of predators, most with a prey within their radius, each line some pixels long.
        if (k & 1)
            ck_assert_msg(lines > 150, "%s: expected > 150 pixels of hunter -> prey lines with L, got %ld",
                          backends[k >> 1], lines);
        else
            ck_assert_msg(lines < 20, "%s: expected no line pixels without L, got %ld", backends[k >> 1], lines);
        run_free(&r);
    }
}
END_TEST

// Is the key `name` (a --keys name) pressed by the script `keys`?
static bool script_presses(const char *keys, const char *name) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", keys);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (strcmp(colon ? colon + 1 : item, name) == 0)
            return true;
    }
    return false;
}

// The --keys names of the keys that `boids --help` lists for the flock (the
// generated table: "  LABEL   text" lines under the first "Keys" heading),
// into names[]; returns how many.
static int help_keys(char names[][16], int max) {
    run_result r = run_viewer("help", ARGV("--help"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 0, "expected --help to exit 0, got %d", WEXITSTATUS(r.status));
    const char *at = strstr(r.out, "\nKeys");
    ck_assert_msg(at, "expected a 'Keys' heading in --help: %s", r.out);
    at = strchr(at + 1, '\n') + 1;
    int n = 0;
    while (strncmp(at, "  ", 2) == 0) {
        const char *label = at + 2, *end = strstr(label, "  ");
        ck_assert(end);
        // Each key of the label ("H F1", "[ ]") as a script name.
        for (const char *k = label; k < end;) {
            size_t len = strcspn(k, " ");
            if (len > (size_t)(end - k))
                len = (size_t)(end - k);
            ck_assert(n < max && len < 16);
            for (size_t i = 0; i < len; i++)
                names[n][i] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] - 'A' + 'a' : k[i]);
            names[n][len] = '\0';
            if (strcmp(names[n], ",") == 0)
                snprintf(names[n], 16, "comma");
            n++;
            k += len;
            while (*k == ' ' && k < end)
                k++;
        }
        at = strchr(at, '\n') + 1;
    }
    run_free(&r);
    ck_assert_msg(n >= 30, "expected the help to list the flock's 30-odd keys, found %d", n);
    return n;
}

START_TEST(every_key_runs) {
    // Every key of the help (as --help lists it: the table the viewer's
    // dispatch is made of), overlays on, in 2D and 3D and on both backends:
    // exit 0, zero GL errors, each change reported. Esc comes last.
    const char *keys =
        "2:1,2,3,4,5,6,7,8,9,0,o,m,up,down,down,enter,right,left,tab,m,b,b,b,u,u,c,c,c,c,g,n,v,f,p,l,h,f1,f2,i,i,"
        "],],=,-,[,space,.,space,r,s,k,w,t,t,esc";
    char names[64][16];
    int n = help_keys(names, 64);
    for (int i = 0; i < n; i++)
        ck_assert_msg(script_presses(keys, names[i]), "expected the script to press '%s' of the help", names[i]);
    const char *dims[2] = {"2", "3"}, *backends[2] = {"gpu", "cpu"};
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "allkeys%d", k);
        unlink("boids-0000.png"); // S and W take the first free names: these
        unlink("boids-0000.boids");
        unlink("boids-profile.csv"); // T without --profile
        run_result r = run_viewer(name,
                                  ARGV("--count", "1500", "--dim", dims[k & 1], "--backend", backends[k >> 1],
                                       "--frames", "60", "--vsync", "off", "--keys", keys),
                                  true);
        expect_ok(&r);
        const char *expected[] = {"behaviors: obstacles,",
                                  "boundary: walls",
                                  "boundary: bounce",
                                  "boundary: margin",
                                  "rules: tutorial",
                                  "color: neighbours",
                                  "overlay: grid on",
                                  "overlay: vectors on",
                                  "overlay: path on",
                                  "overlay: follows on",
                                  "param: desired separation = ",
                                  "paused",
                                  "reset: seed 1",
                                  "screenshot: boids-0000.png",
                                  "bodies: chain",
                                  "saved: boids-0000.boids",
                                  "profile: recording to boids-profile.csv",
                                  "steps recorded",
                                  "menu: on",
                                  "menu: group 0 walls ",
                                  "menu: group 0 walls weight 1.1",
                                  "menu: group 0 walls weight 1",
                                  "menu: off",
                                  "panels: hidden",
                                  "panels: shown",
                                  "frames: 56,"}; // one frame per key after frame 2, Esc last
        for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
            ck_assert_msg(strstr(r.out, expected[i]), "expected '%s' on stdout (%s): %s", expected[i], name, r.out);
        run_free(&r);
    }
    unlink("boids-0000.png");
    unlink("boids-0000.boids");
    unlink("boids-profile.csv");
}
END_TEST

// S and W name their files themselves: a dangling link at the first name
// is not a free name (writing it would create the link's target); they
// take the next names, and the links' targets are never made.
START_TEST(numbered_outputs_skip_links) {
    unlink("boids-0000.png");
    unlink("boids-0000.boids");
    unlink("boids-0001.png");
    unlink("boids-0001.boids");
    unlink(TMP "/planted.png");
    unlink(TMP "/planted.boids");
    ck_assert(symlink(TMP "/planted.png", "boids-0000.png") == 0);
    ck_assert(symlink(TMP "/planted.boids", "boids-0000.boids") == 0);
    run_result r = run_viewer("links", ARGV("--count", "200", "--frames", "8", "--vsync", "off", "--keys", "2:s,w,esc"),
                              true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "screenshot: boids-0001.png") && strstr(r.out, "saved: boids-0001.boids"),
                  "expected the names after the links: %s", r.out);
    struct stat st;
    ck_assert_msg(lstat(TMP "/planted.png", &st) != 0 && lstat(TMP "/planted.boids", &st) != 0,
                  "a dangling link's target was written");
    run_free(&r);
    for (int k = 0; k < 2; k++) {
        unlink(k ? "boids-0000.boids" : "boids-0000.png");
        unlink(k ? "boids-0001.boids" : "boids-0001.png");
    }
}
END_TEST

// The HUD's panel over the background: black at 0.55 alpha over (0.05,
// 0.06, 0.08) is about (6, 7, 9), darker than the background (13, 15, 20).
static bool hud_panel_pixel(const unsigned char *p) {
    return p[0] <= 9 && p[1] <= 10 && p[2] <= 12;
}

// An agent, bright or dimmed under a panel: warm (red well over blue), as
// neither the white text, the grey box nor the background is.
static bool warm_pixel(const unsigned char *p) {
    return p[0] > 50 && p[0] > p[2] + 35 && p[1] > p[2] + 15;
}

// The HUD band's lower edge: where the panel ends down the window's left
// edge (x = 4, left of the text); 0 when there is no panel there.
static int hud_band(const image *im) {
    int y = 0;
    while (y < im->h && hud_panel_pixel(im->px + ((size_t)y * (size_t)im->w + 4) * 3))
        y++;
    return y;
}

// Warm (agent) pixels in rows [y0, y1).
static long count_warm(const image *im, int y0, int y1) {
    long n = 0;
    for (int y = y0; y < y1 && y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            n += warm_pixel(im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3);
    return n;
}

// The highest row with a bright agent pixel (im->h if none).
static int top_agent_row(const image *im) {
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            if (agent_pixel(im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3))
                return y;
    return im->h;
}

START_TEST(panels_keep_off_the_world) {
    // The HUD shown (2D and 3D, 1280x800 and 800x600): the camera frames the
    // world below its band, so no agent, not even dimmed by the panel, is
    // under it. With I (every panel hidden) there is no band and the world
    // is fitted again to the whole window: agents reach higher.
    const char *sizes[2][2] = {{"1280", "800"}, {"800", "600"}};
    for (int k = 0; k < 4; k++) {
        const char *dim = k & 1 ? "3" : "2", *w = sizes[k >> 1][0], *h = sizes[k >> 1][1];
        char name[32], path[256];
        snprintf(name, sizeof name, "panels%d", k);
        snprintf(path, sizeof path, TMP "/panels%d.png", k);
        run_result r = run_viewer(name,
                                  ARGV("--count", "6000", "--dim", dim, "--width", w, "--height", h, "--frames", "20",
                                       "--vsync", "off", "--screenshot", path),
                                  true);
        expect_ok(&r);
        image im = load(path);
        int band = hud_band(&im);
        // Six lines of text at scale 2 (1 below 700 pixels) and the margins.
        ck_assert_msg(band > im.h / 10 && band < im.h / 3, "%sD %sx%s: expected the HUD band, found its foot at %d",
                      dim, w, h, band);
        long under = count_warm(&im, 0, band);
        ck_assert_msg(under == 0, "%sD %sx%s: %ld agent pixels under the HUD band (rows 0..%d): it covers the world",
                      dim, w, h, under, band);
        long below = count_warm(&im, band, im.h);
        ck_assert_msg(below > 500, "%sD %sx%s: expected the agents below the HUD, found %ld pixels", dim, w, h, below);
        int top_shown = top_agent_row(&im);
        stbi_image_free(im.px);
        run_free(&r);
        // I hides every panel: no band, the world fitted to the whole window.
        snprintf(name, sizeof name, "panels%dI", k);
        snprintf(path, sizeof path, TMP "/panels%dI.png", k);
        r = run_viewer(name,
                       ARGV("--count", "6000", "--dim", dim, "--width", w, "--height", h, "--frames", "20", "--vsync",
                            "off", "--keys", "2:h,3:i", "--screenshot", path),
                       true);
        expect_ok(&r);
        ck_assert_msg(strstr(r.out, "panels: hidden"), "expected 'panels: hidden' after I; stdout: %s", r.out);
        im = load(path);
        long dark = 0;
        for (int y = 0; y < im.h; y++)
            dark += hud_panel_pixel(im.px + ((size_t)y * (size_t)im.w + 4) * 3);
        ck_assert_msg(dark == 0, "%sD %sx%s with I: expected no panel (HUD or help), found %ld panel pixels at x 4",
                      dim, w, h, dark);
        int top_hidden = top_agent_row(&im);
        ck_assert_msg(top_hidden < top_shown - 20,
                      "%sD %sx%s: with I the world should be fitted to the whole window (agents from row %d, with "
                      "the HUD from row %d)",
                      dim, w, h, top_hidden, top_shown);
        stbi_image_free(im.px);
        run_free(&r);
    }
}
END_TEST

// A window narrower than the HUD's lines (480 pixels): they are broken at
// spaces, so no text reaches the window's right edge (unbroken, the first
// line alone is some 500 pixels long) and the band grows by a line or more.
START_TEST(hud_wraps_in_a_narrow_window) {
    run_result r = run_viewer("narrow",
                              ARGV("--count", "2000", "--width", "480", "--height", "400", "--frames", "10", "--vsync",
                                   "off", "--screenshot", TMP "/narrow.png"),
                              true);
    expect_ok(&r);
    image im = load(TMP "/narrow.png");
    ck_assert_int_eq(im.w, 480);
    int band = hud_band(&im);
    ck_assert_msg(band > 6 * 12, "expected a HUD band of more than six lines of text, found its foot at %d", band);
    long text = 0;
    for (int y = 0; y < band; y++)
        for (int x = im.w - 8; x < im.w; x++) {
            const unsigned char *p = im.px + ((size_t)y * (size_t)im.w + (size_t)x) * 3;
            text += p[0] > 120 && p[1] > 120 && p[2] > 120;
        }
    ck_assert_msg(text == 0, "%ld text pixels in the HUD's last 8 columns: its lines run off the window", text);
    stbi_image_free(im.px);
    run_free(&r);
}
END_TEST

START_TEST(resize_to_zero_and_back) {
    run_result r = run_viewer("resize",
                              ARGV("--count", "2000", "--frames", "20", "--vsync", "off", "--keys",
                                   "3:320x200,6:0x0,12:640x480", "--screenshot", TMP "/resize.png"),
                              true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "resize: 0x0") && strstr(r.out, "resize: 640x480"), "stdout: %s", r.out);
    image im = load(TMP "/resize.png");
    ck_assert_msg(im.w == 640 && im.h == 480, "expected the 640x480 of the last resize, got %dx%d", im.w, im.h);
    ck_assert_msg(count_agents(&im, 0) > 100, "expected agents after the resize");
    stbi_image_free(im.px);
    run_free(&r);
}
END_TEST

START_TEST(cpu_backend_and_3d) {
    run_result r = run_viewer("cpu3d",
                              ARGV("--backend", "cpu", "--dim", "3", "--count", "3000", "--frames", "5", "--width",
                                   "640", "--height", "480", "--vsync", "off", "--screenshot", TMP "/cpu3d.png"),
                              true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "3D") && strstr(r.out, "backend cpu"), "stdout: %s", r.out);
    image im = load(TMP "/cpu3d.png");
    long yellow = 0; // lit, fogged or dense: any brightness
    for (size_t i = 0; i < (size_t)im.w * (size_t)im.h; i++)
        yellow += boids_test_yellow_pixel(im.px + i * 3);
    ck_assert_msg(yellow > 300, "expected agents in the 3D view, got %ld", yellow);
    stbi_image_free(im.px);
    run_free(&r);
}
END_TEST

// The seeds' own rule sets in the window on both backends: heading boids
// (whose rules allow no flow field, which the viewer used to add to every
// engine it made) and the tutorial's rules; their agents are drawn.
START_TEST(rule_set_scenarios) {
    static const char *const scenarios[] = {"angle-bug", "flocking-tutorial"};
    static const char *const backends[] = {"gpu", "cpu"};
    for (int k = 0; k < 4; k++) {
        char shot[256];
        snprintf(shot, sizeof shot, TMP "/rules-%d.png", k);
        run_result r = run_viewer("rules",
                                  ARGV("--backend", backends[k & 1], "--scenario", scenarios[k >> 1], "--frames", "20",
                                       "--width", "640", "--height", "480", "--vsync", "off", "--screenshot", shot),
                                  true);
        expect_ok(&r);
        // Coloured pixels below the HUD (the scenarios' own group colours;
        // the world's grey frame and the dark background do not count).
        image im = load(shot);
        long coloured = 0;
        for (int y = 100; y < im.h; y++)
            for (int x = 0; x < im.w; x++) {
                const unsigned char *p = im.px + ((size_t)y * (size_t)im.w + (size_t)x) * 3;
                int hi = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
                int lo = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
                coloured += hi > 120 && hi - lo > 60;
            }
        ck_assert_msg(coloured > 30, "%s on %s: expected agents drawn, got %ld coloured pixels", scenarios[k >> 1],
                      backends[k & 1], coloured);
        stbi_image_free(im.px);
        run_free(&r);
    }
}
END_TEST

START_TEST(no_display_exit_3) {
    run_result r = run_viewer("nodisplay", ARGV("--frames", "1"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 3, "expected exit 3 without a display, got %d", WEXITSTATUS(r.status));
    ck_assert_msg(strstr(r.err, "xvfb-run") && strstr(r.err, "boids-run"),
                  "expected the message to name xvfb-run and boids-run: %s", r.err);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "expected one line: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(old_gl_exit_3) {
    // Mesa offers only OpenGL 3.3 when told so (this test runs in its own
    // process): below the 4.1 of --backend cpu (tests/test_viewer_gl41.c).
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
    run_result r = run_viewer("oldgl", ARGV("--frames", "1", "--backend", "cpu"), true);
    ck_assert_msg(WEXITSTATUS(r.status) == 3, "expected exit 3 with OpenGL 3.3, got %d; stderr: %s",
                  WEXITSTATUS(r.status), r.err);
    ck_assert_msg(strstr(r.err, "found OpenGL '3.3") && strstr(r.err, "--backend cpu") && strstr(r.err, "boids-run"),
                  "expected the version found and what to do instead: %s", r.err);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "expected one line: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(bad_input_exit_2) {
    run_result r = run_viewer("badkeys", ARGV("--keys", "3:nosuchkey"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 2, "expected exit 2 for a bad --keys, got %d", WEXITSTATUS(r.status));
    ck_assert_msg(strstr(r.err, "boids: --keys: '3:nosuchkey'") && strstr(r.err, "unknown key 'nosuchkey'"),
                  "stderr: %s", r.err);
    run_free(&r);
    r = run_viewer("badvsync", ARGV("--vsync", "maybe"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 2 &&
                      strstr(r.err, "boids: --vsync: 'maybe' is not a vsync setting; expected on or off"),
                  "expected exit 2 and the one-line error for --vsync maybe: %d %s", WEXITSTATUS(r.status), r.err);
    run_free(&r);
    r = run_viewer("badwidth", ARGV("--width", "0"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 2 &&
                      strstr(r.err, "boids: --width: '0' is too small; expected an integer 1..16384"),
                  "expected exit 2 and the one-line error for --width 0: %d %s", WEXITSTATUS(r.status), r.err);
    run_free(&r);
    r = run_viewer("badframes", ARGV("--frames", "x"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 2 && strstr(r.err, "boids: --frames: 'x'"), "stderr: %s", r.err);
    run_free(&r);
    r = run_viewer("badshot", ARGV("--screenshot", TMP "/no/such/dir/x.png"), false);
    ck_assert_msg(WEXITSTATUS(r.status) == 2, "expected exit 2 for a screenshot in a missing directory, got %d",
                  WEXITSTATUS(r.status));
    ck_assert_msg(strstr(r.err, "boids: --screenshot: '") && strstr(r.err, "cannot be written"), "stderr: %s", r.err);
    run_free(&r);
}
END_TEST

// A body pixel of group 0: the palette colour darkened (fill 0.55, dots 0.8)
// or an agent's: warm, clearly above the background; white eyes excluded.
static bool body_pixel(const unsigned char *p) {
    return p[0] > 90 && p[1] > 75 && p[2] < 100 && p[0] > p[2] + 40;
}

// Pixels of im below row y0 for which `pick` holds; their centroid into cx, cy (may be NULL).
static long count_where(const image *im, int y0, bool (*pick)(const unsigned char *), double *cx, double *cy) {
    long n = 0;
    double sx = 0.0, sy = 0.0;
    for (int y = y0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            if (pick(im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3)) {
                n++;
                sx += x;
                sy += y;
            }
    if (cx)
        *cx = n ? sx / (double)n : 0.0;
    if (cy)
        *cy = n ? sy / (double)n : 0.0;
    return n;
}

// --bodies snake on both backends: the same seed and frames as --bodies none,
// many more group-coloured pixels (the bodies), the eyes' white, zero GL errors.
START_TEST(bodies_drawn) {
    const char *backends[2] = {"gpu", "cpu"};
    for (int k = 0; k < 2; k++) {
        long count[2];
        for (int b = 0; b < 2; b++) {
            char name[32], path[512];
            snprintf(name, sizeof name, "bodies-%s-%s", backends[k], b ? "snake" : "none");
            snprintf(path, sizeof path, TMP "/%s.png", name);
            run_result r = run_viewer(name,
                                      ARGV("--count", "300", "--backend", backends[k], "--bodies", b ? "snake" : "none",
                                           "--joints", "12", "--body-length", "60", "--frames", "8", "--width", "400",
                                           "--height", "300", "--vsync", "off", "--keys", "1:i", "--screenshot", path),
                                      true);
            expect_ok(&r);
            image im = load(path);
            count[b] = count_where(&im, 80, body_pixel, NULL, NULL);
            stbi_image_free(im.px);
            run_free(&r);
        }
        // 300 snakes 60 long and up to ~10 wide in a 344-unit world at ~0.8 px
        // per unit (I: no HUD, the world fills the window's height) cover far
        // more than the agents' ~10 px triangles.
        ck_assert_msg(count[1] > 4 * count[0] && count[1] > 10000,
                      "expected the snakes (%s) to add many body pixels: none %ld, snake %ld", backends[k], count[0],
                      count[1]);
    }
}
END_TEST

// K cycles none -> chain -> snake -> fish -> none (and R keeps the bodies) in
// 2D and 3D on both backends without GL errors.
START_TEST(bodies_key_cycles) {
    const char *dims[2] = {"2", "3"}, *backends[2] = {"gpu", "cpu"};
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "bodykeys%d", k);
        run_result r = run_viewer(name,
                                  ARGV("--count", "300", "--dim", dims[k & 1], "--backend", backends[k >> 1],
                                       "--frames", "12", "--width", "320", "--height", "240", "--vsync", "off",
                                       "--keys", "2:k,4:k,6:k,8:k,9:k,10:r"),
                                  true);
        expect_ok(&r);
        const char *lines[] = {"bodies: chain\n", "bodies: snake\n", "bodies: fish\n",
                               "bodies: none\n",  "bodies: chain\n", "reset: seed 1\n"};
        const char *at = r.out;
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
            const char *f = strstr(at, lines[i]);
            ck_assert_msg(f, "expected '%.*s' (in this order) on stdout (%s): %s", (int)strlen(lines[i]) - 1, lines[i],
                          name, r.out);
            at = f + strlen(lines[i]);
        }
        run_free(&r);
    }
}
END_TEST

// The notebook's red (244, 10, 10) and green background (77, 112, 87).
static bool red_pixel(const unsigned char *p) {
    return p[0] > 200 && p[1] < 60 && p[2] < 60;
}
static bool green_pixel(const unsigned char *p) {
    return abs(p[0] - 77) < 6 && abs(p[1] - 112) < 6 && abs(p[2] - 87) < 6;
}
static bool black_pixel(const unsigned char *p) {
    return p[0] < 40 && p[1] < 40 && p[2] < 40;
}

// --demo snake: a red snake on the green canvas (600x600) along y = 300
// (the picture is not mirrored: canvas y is the image row); scripted mouse
// moves drag its head toward them, and the red region moves with it.
START_TEST(demo_snake) {
    run_result a =
        run_viewer("demo-snake0", ARGV("--demo", "snake", "--frames", "2", "--screenshot", TMP "/demo0.png"), true);
    expect_ok(&a);
    ck_assert_msg(strstr(a.out, "demo snake, 48 joints, canvas 600x600"), "stdout: %s", a.out);
    run_result b = run_viewer("demo-snake1",
                              ARGV("--demo", "snake", "--frames", "12", "--keys",
                                   "2:mouse=150,400,mouse=200,480,mouse=260,520,mouse=330,540,mouse=400,540",
                                   "--screenshot", TMP "/demo1.png"),
                              true);
    expect_ok(&b);
    image x = load(TMP "/demo0.png"), y = load(TMP "/demo1.png");
    ck_assert_msg(x.w == 600 && x.h == 600, "expected the 600x600 canvas, got %dx%d", x.w, x.h);
    double x0, y0, x1, y1;
    long red0 = count_where(&x, 30, red_pixel, &x0, &y0), red1 = count_where(&y, 30, red_pixel, &x1, &y1);
    long green = count_where(&x, 30, green_pixel, NULL, NULL);
    ck_assert_msg(red0 > 2000 && red1 > 2000, "expected a red snake: %ld and %ld red pixels", red0, red1);
    ck_assert_msg(green > 300000, "expected the green background, got %ld pixels", green);
    ck_assert_msg(fabs(y0 - 300.0) < 4.0, "expected the snake along row 300 at the start, centroid row %g", y0);
    ck_assert_msg(y1 > y0 + 40.0, "expected the snake pulled down toward the mouse: centroid %g,%g -> %g,%g", x0, y0,
                  x1, y1);
    ck_assert_msg(strstr(b.out, "demo: head ") && !strstr(b.out, "demo: head 100.0,300.0"),
                  "expected the head to have moved; stdout: %s", b.out);
    stbi_image_free(x.px);
    stbi_image_free(y.px);
    run_free(&a);
    run_free(&b);
}
END_TEST

// --demo chain: pressing on joint 3 at (200, 200) and dragging it to
// (260, 330) moves the black chain there (image row = canvas y).
START_TEST(demo_chain_drag) {
    run_result r = run_viewer("demo-chain",
                              ARGV("--demo", "chain", "--frames", "10", "--keys",
                                   "2:mouse=200,200,press,mouse=230,260,mouse=260,330,release", "--screenshot",
                                   TMP "/demo-chain.png"),
                              true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "demo: dragging joint 3"), "expected joint 3 grabbed; stdout: %s", r.out);
    image im = load(TMP "/demo-chain.png");
    ck_assert_msg(im.w == 400 && im.h == 400, "expected the 400x400 canvas, got %dx%d", im.w, im.h);
    // The dragged joint's dot (20 across) at (260, 330), nothing left of the straight chain at (200, 200).
    long at_mouse = 0, at_start = 0;
    for (int dy = -5; dy <= 5; dy++)
        for (int dx = -5; dx <= 5; dx++) {
            at_mouse += black_pixel(im.px + ((size_t)(330 + dy) * 400 + (size_t)(260 + dx)) * 3);
            at_start += black_pixel(im.px + ((size_t)(200 + dy) * 400 + (size_t)(200 + dx)) * 3);
        }
    ck_assert_msg(at_mouse > 100 && at_start == 0,
                  "expected the dot at the mouse (%ld of 121 black) and none at "
                  "its old place (%ld)",
                  at_mouse, at_start);
    long black = count_where(&im, 30, black_pixel, NULL, NULL);
    ck_assert_msg(black > 7 * 250, "expected 7 black dots, got %ld black pixels", black);
    stbi_image_free(im.px);
    run_free(&r);
}
END_TEST

// Bad --demo, --bodies, --joints: exit 2 with one line naming the flag.
START_TEST(bodies_bad_input_exit_2) {
    const char *const *cases[] = {ARGV("--demo", "x"), ARGV("--bodies", "x"), ARGV("--joints", "1"),
                                  ARGV("--keys", "mouse=1")};
    const char *flags[] = {"boids: --demo: 'x'", "boids: --bodies: 'x'", "boids: --joints: '1'", "boids: --keys: "};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run_viewer("badbodies", cases[i], false);
        ck_assert_msg(WEXITSTATUS(r.status) == 2 && strstr(r.err, flags[i]) &&
                          strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "expected exit 2 and one line starting '%s': %d %s", flags[i], WEXITSTATUS(r.status), r.err);
        run_free(&r);
    }
}
END_TEST

// The cameras, pure math: no display needed.
// --profile records from the start; T at frame 30 stops and writes it: the
// CSV then holds a header and one row per recorded frame. An unwritable
// path fails at start-up (exit 2) before any window opens.
START_TEST(profile_recording) {
    const char *path = TMP "/viewer-profile.csv";
    unlink(path);
    run_result r = run_viewer(
        "profile", ARGV("--count", "2000", "--frames", "40", "--vsync", "off", "--profile", path, "--keys", "30:t"),
        true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "profile: recording to"), "expected the recording to start; stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "steps recorded"), "expected the summary when T stops it; stdout: %s", r.out);
    char *csv = slurp(path);
    int lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(strncmp(csv, "step,time_ms,frame_ms,key_ms", 28) == 0, "expected the CSV header: %.80s", csv);
    ck_assert_msg(lines >= 21 && lines <= 31, "expected a header and 20..30 frame rows (T at frame 30), got %d lines",
                  lines - 1);
    free(csv);
    run_free(&r);
    r = run_viewer("profile-bad", ARGV("--count", "2000", "--frames", "5", "--profile", TMP "/no/such/dir/p.csv"),
                   true);
    ck_assert_msg(WEXITSTATUS(r.status) == 2 && strstr(r.err, "--profile"),
                  "an unwritable --profile: expected exit 2 naming the flag; got %d: %s", WEXITSTATUS(r.status), r.err);
    run_free(&r);
}
END_TEST

START_TEST(camera_math) {
    boids_params p;
    boids_params_default(&p, 1000, 2);
    boids_params_auto_world(&p, 20.0);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_camera c;
    float aspect = 1.6f, m[16], before[3], after[3];
    boids_camera_fit(&c, &p.world, aspect);
    boids_camera_matrix(&c, aspect, m);
    // Every world corner lies inside the view (NDC within [-1, 1]).
    for (int k = 0; k < 4; k++) {
        float x = p.world.min[0] + ((k & 1) ? p.world.size[0] : 0.0f);
        float y = p.world.min[1] + ((k & 2) ? p.world.size[1] : 0.0f);
        float nx = m[0] * x + m[4] * y + m[12], ny = m[1] * x + m[5] * y + m[13];
        ck_assert_msg(fabsf(nx) <= 1.0f && fabsf(ny) <= 1.0f, "expected corner %d in view, NDC %g,%g", k, nx, ny);
    }
    // Zooming at the cursor keeps the world point under it.
    boids_camera_unproject(&c, aspect, 0.5f, -0.25f, before);
    boids_camera_zoom(&c, aspect, 0.5f, 0.5f, -0.25f);
    boids_camera_unproject(&c, aspect, 0.5f, -0.25f, after);
    ck_assert_msg(fabsf(before[0] - after[0]) < 1e-2f && fabsf(before[1] - after[1]) < 1e-2f,
                  "expected the point under the cursor to stay: %g,%g -> %g,%g", before[0], before[1], after[0],
                  after[1]);
    // 3D: the centre of the screen is the world's centre, after orbiting too.
    boids_params_default(&p, 1000, 3);
    boids_params_auto_world(&p, 20.0);
    ck_assert(boids_params_finalize(&p, NULL, 0) == BOIDS_OK);
    boids_camera_fit(&c, &p.world, aspect);
    boids_camera_orbit(&c, 40.0f, -25.0f);
    boids_camera_unproject(&c, aspect, 0.0f, 0.0f, after);
    for (int a = 0; a < 3; a++) {
        float centre = p.world.min[a] + 0.5f * p.world.size[a];
        ck_assert_msg(fabsf(after[a] - centre) < 1e-3f * p.world.size[0], "expected axis %d at %g, got %g", a, centre,
                      after[a]);
    }
}
END_TEST

// Records `frames` frames (every 2 steps) of 300 agents in 2D to path with
// boids-run --record.
static void make_recording(const char *path, uint32_t frames) {
    char steps[32];
    snprintf(steps, sizeof steps, "%u", 2 * (frames - 1));
    const char *const *argv = ARGV(BOIDS_BIN_DIR "/boids-run", "--count", "300", "--steps", steps, "--quiet",
                                   "--record", path, "--record-every", "2");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_msg(rc == 0, "expected %s to start", argv[0]);
    int status = 0;
    ck_assert(waitpid(pid, &status, 0) == pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "boids-run --record failed: %d", status);
}

// --replay with --export-frames: one PNG per frame, each showing the agents
// and differing from the one before, in a folder the viewer makes (it is
// removed first, as README.md's `--export-frames out/` finds none); the new
// keys and --export-csv --frame.
START_TEST(replay_export_frames) {
    const char *rec = TMP "/replay.rec", *dir = TMP "/replay_frames";
    make_recording(rec, 4);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) // frames of an earlier run
        if (e->d_name[0] != '.') {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
    ck_assert_msg(access(dir, F_OK) != 0, "expected no %s before the run", dir);
    run_result r = run_viewer(
        "replay", ARGV("--replay", rec, "--export-frames", dir, "--width", "320", "--height", "240", "--vsync", "off"),
        true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "exported: " TMP "/replay_frames (4 frames)"), "stdout: %s", r.out);
    run_free(&r);
    image prev = {0};
    for (int k = 0; k <= 4; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/frame-%05d.png", dir, k);
        if (k == 4) {
            ck_assert_msg(access(path, F_OK) != 0, "expected no %s", path);
            break;
        }
        image im = load(path);
        ck_assert_int_eq(im.w, 320);
        ck_assert_int_eq(im.h, 240);
        ck_assert_msg(count_agents(&im, 60) > 50, "expected agents in %s", path);
        if (prev.px) {
            ck_assert_msg(memcmp(prev.px, im.px, (size_t)im.w * (size_t)im.h * 3) != 0,
                          "expected frame %d to differ from frame %d", k, k - 1);
            stbi_image_free(prev.px);
        }
        prev = im;
    }
    stbi_image_free(prev.px);
    // Keys step, scrub and jump; --export-csv writes --frame's step.
    unlink(TMP "/replay.csv");
    r = run_viewer("replay_keys",
                   ARGV("--replay", rec, "--frame", "1", "--export-csv", TMP "/replay.csv", "--frames", "8", "--keys",
                        "space,end,home,right,right,left,up,down", "--width", "320", "--height", "240", "--vsync",
                        "off"),
                   true);
    expect_ok(&r);
    ck_assert_msg(strstr(r.out, "exported: " TMP "/replay.csv (frame 1, step 2, 300 agents)"), "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "frame: 3 step 6\nframe: 0 step 0\nframe: 1 step 2\nframe: 2 step 4\nframe: 1 step "
                                "2\nframe: 3 step 6\nframe: 0 step 0\n"),
                  "stdout: %s", r.out);
    char *csv = slurp(TMP "/replay.csv");
    ck_assert_msg(strncmp(csv, "id,group,px,py", 14) == 0, "csv: %.80s", csv);
    free(csv);
    run_free(&r);
}
END_TEST

// --replay of a bad or missing file, or a bad --frame: exit 2, one line.
START_TEST(replay_bad_file_exit_2) {
    const char *bad = TMP "/replay_bad.rec";
    FILE *f = fopen(bad, "wb");
    ck_assert(f != NULL);
    fputs("this is not a recording, just some text\n", f);
    fclose(f);
    struct {
        const char *const *args;
        const char *want;
    } cases[] = {
        {ARGV("--replay", bad), "boids: --replay: " TMP "/replay_bad.rec: not a boids recording"},
        {ARGV("--replay", TMP "/replay_missing.rec"), "replay_missing.rec: cannot be opened"},
        {ARGV("--replay", TMP "/replay.rec", "--frame", "99"), "boids: --frame: '99' is past"},
        {ARGV("--export-frames", TMP), "needs --replay"},
    };
    make_recording(TMP "/replay.rec", 2);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run_result r = run_viewer("replay_bad", cases[k].args, true);
        ck_assert_msg(WEXITSTATUS(r.status) == 2, "expected exit 2, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
        ck_assert_msg(strstr(r.err, cases[k].want), "expected '%s' in stderr: %s", cases[k].want, r.err);
        char *nl = strchr(r.err, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "expected one line on stderr: %s", r.err);
        run_free(&r);
    }
}
END_TEST

// Loads a snapshot; fails the test on error.
static boids_sim *load_snapshot(const char *path) {
    boids_sim *s = NULL;
    char err[1200] = "";
    ck_assert_msg(boids_snapshot_load(path, &s, NULL, err, sizeof err) == BOIDS_OK, "load: %s", err);
    return s;
}

// --save / --save-every / --load / W / R on both backends: 6 frames, saved,
// loaded and 10 more frames is the state of 16 uninterrupted frames (agents,
// slot order and joints; a dynamic scenario's weights go on), saved at steps
// 8 and 16 with --save-every 8.
START_TEST(save_load_resume) {
    const char *backends[2] = {"gpu", "cpu"};
    for (int b = 0; b < 2; b++) {
        const char *s6 = TMP "/view_s6.boids", *s16 = TMP "/view_s16.boids", *s6p = TMP "/view_s6p10.boids";
        unlink(s6);
        unlink(s16);
        unlink(s6p);
        run_result r = run_viewer("save6",
                                  ARGV("--backend", backends[b], "--scenario", "flocking-varying", "--count", "1500",
                                       "--bodies", "snake", "--joints", "8", "--frames", "6", "--save", s6, "--width",
                                       "320", "--height", "240", "--vsync", "off"),
                                  true);
        expect_ok(&r);
        ck_assert_msg(strstr(r.out, "saved: " TMP "/view_s6.boids (step 6)"), "stdout: %s", r.out);
        run_free(&r);
        r = run_viewer("save16",
                       ARGV("--backend", backends[b], "--scenario", "flocking-varying", "--count", "1500", "--bodies",
                            "snake", "--joints", "8", "--frames", "16", "--save", s16, "--save-every", "8", "--width",
                            "320", "--height", "240", "--vsync", "off"),
                       true);
        expect_ok(&r);
        ck_assert_msg(strstr(r.out, "saved: " TMP "/view_s16.boids (step 8)\n") &&
                          strstr(r.out, "saved: " TMP "/view_s16.boids (step 16)\n"),
                      "stdout: %s", r.out);
        run_free(&r);
        r = run_viewer("load6",
                       ARGV("--backend", backends[b], "--load", s6, "--frames", "10", "--save", s6p, "--width", "320",
                            "--height", "240", "--vsync", "off"),
                       true);
        expect_ok(&r);
        ck_assert_msg(strstr(r.out, "(from --load)") && strstr(r.out, "saved: " TMP "/view_s6p10.boids (step 16)"),
                      "stdout: %s", r.out);
        run_free(&r);
        boids_sim *a = load_snapshot(s16), *c = load_snapshot(s6p);
        ck_assert_uint_eq(a->step, 16);
        ck_assert_uint_eq(c->step, 16);
        ck_assert_msg(boids_sim_hash(a) == boids_sim_hash(c), "%s: resumed state differs from the uninterrupted one",
                      backends[b]);
        if (b == 1) // the CPU's slot order too (the GPU's scatter orders a cell's agents by atomics)
            ck_assert_msg(memcmp(a->cur.id, c->cur.id, a->n * sizeof *a->cur.id) == 0, "cpu: slot order differs");
        ck_assert(a->joints && c->joints && a->joint_rows == c->joint_rows);
        ck_assert_msg(memcmp(a->joints, c->joints, (size_t)a->joint_rows * a->n * sizeof *a->joints) == 0,
                      "%s: joints differ", backends[b]);
        ck_assert_msg(memcmp(a->p.group, c->p.group, sizeof a->p.group) == 0, "%s: the varying weights differ",
                      backends[b]);
        boids_sim_destroy(a);
        boids_sim_destroy(c);
        // W writes to --save's file at once; R goes back to the snapshot.
        r = run_viewer("save_keys",
                       ARGV("--backend", backends[b], "--load", s6, "--frames", "5", "--keys", "2:w,3:r", "--save", s6p,
                            "--width", "320", "--height", "240", "--vsync", "off"),
                       true);
        expect_ok(&r);
        // Keys act at the start of their frame: W after one step, R before the third.
        ck_assert_msg(strstr(r.out, "saved: " TMP "/view_s6p10.boids (step 7)\nreset: " TMP
                                    "/view_s6.boids (step 6)\nsaved: " TMP "/view_s6p10.boids (step 9)\n"),
                      "stdout: %s", r.out);
        run_free(&r);
        c = load_snapshot(s6p);
        ck_assert_uint_eq(c->step, 9); // at exit: 6 + the 3 frames from R on
        boids_sim_destroy(c);
    }
}
END_TEST

// R reloads --load's file only into a simulation of the same shape: after K
// gave every agent a body (12 joint rows; the file has none) it is refused
// with one line and the flock runs on (every frame done, exit 0).
START_TEST(reload_refuses_other_shape) {
    const char *snap = TMP "/view_plain.boids";
    unlink(snap);
    run_result r = boids_test_run(
        RUN_BIN, ARGV("boids-run", "--count", "200", "--steps", "5", "--save", snap, "--quiet"), TMP, "plain");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "boids-run: %s", r.err);
    run_free(&r);
    const char *backends[2] = {"gpu", "cpu"};
    for (int b = 0; b < 2; b++) {
        r = run_viewer("reload_shape",
                       ARGV("--backend", backends[b], "--load", snap, "--frames", "5", "--keys", "2:k,3:r", "--width",
                            "320", "--height", "240", "--vsync", "off"),
                       true);
        expect_ok(&r);
        ck_assert_msg(strstr(r.err, "boids: reset: --load: " TMP
                                    "/view_plain.boids: now holds another simulation (200 agents, 2D); kept running\n"),
                      "%s: expected R to refuse the body-less snapshot; stderr: %s", backends[b], r.err);
        ck_assert_msg(strstr(r.out, "frames: 5, steps 10"), "%s: expected all 5 frames after the refusal: %s",
                      backends[b], r.out);
        run_free(&r);
    }
}
END_TEST

// Bad --load / --save combinations: exit 2 with one line, before any window.
START_TEST(save_load_bad_exit_2) {
    const char *bad = TMP "/view_bad.boids";
    FILE *f = fopen(bad, "wb");
    ck_assert(f != NULL);
    fputs("\x89"
          "BDS\n\x1a\n and the rest is text\n",
          f);
    fclose(f);
    struct {
        const char *const *args;
        const char *want;
    } cases[] = {
        {ARGV("--load", bad), "boids: --load: " TMP "/view_bad.boids: "},
        {ARGV("--load", TMP "/view_missing.boids"), "view_missing.boids: cannot be opened"},
        {ARGV("--load", bad, "--count", "10"), "boids: --count: "},
        {ARGV("--save", TMP "/no_such_dir/x.boids"), "boids: --save: "},
        {ARGV("--save-every", "5"), "needs --save"},
        {ARGV("--demo", "snake", "--save", TMP "/x.boids"), "boids: --demo: 'snake'"},
        {ARGV("--replay", TMP "/replay.rec", "--load", bad), "boids: --replay: "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run_result r = run_viewer("save_bad", cases[k].args, false); // no display needed to refuse
        ck_assert_msg(WEXITSTATUS(r.status) == 2, "case %zu: expected exit 2, got %d; stderr: %s", k,
                      WEXITSTATUS(r.status), r.err);
        ck_assert_msg(strstr(r.err, cases[k].want), "case %zu: expected '%s' in stderr: %s", k, cases[k].want, r.err);
        char *nl = strchr(r.err, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "expected one line on stderr: %s", r.err);
        run_free(&r);
    }
}
END_TEST

// GL faults injected with BOIDS_DEBUG=fault=... (boids/debug.h) on the GPU backend: a
// lost context and a GL error stop the viewer with exit 3 and one line
// naming the fault and its step; --save keeps the last --save-every
// snapshot (it loads, at that step), or an existing file stays as it was
// when there is none; a bad fault is exit 2.
START_TEST(gl_faults_exit_3) {
    const char *snap = TMP "/view_fault.boids";
    struct {
        const char *fault, *every, *want, *holds;
        int64_t step; // the snapshot's step (-1: the old file is kept)
    } cases[] = {
        {"lost@5", "3", "the OpenGL context was lost (unknown reset) at step 5; stopped", "holds step 3", 3},
        {"error@7", "2", "1 OpenGL error was reported at step 7, the first: GL_INVALID_VALUE", "holds step 6", 6},
        {"lost@2", NULL, "the OpenGL context was lost (unknown reset) at step 2; stopped", "not written", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *f = fopen(snap, "wb");
        ck_assert(f != NULL);
        fputs("an older file\n", f);
        fclose(f);
        char hook[64];
        snprintf(hook, sizeof hook, "fault=%s", cases[k].fault);
        setenv("BOIDS_DEBUG", hook, 1);
        run_result r =
            cases[k].every
                ? run_viewer("fault",
                             ARGV("--count", "2000", "--frames", "12", "--vsync", "off", "--save", snap, "--save-every",
                                  cases[k].every),
                             true)
                : run_viewer("fault", ARGV("--count", "2000", "--frames", "12", "--vsync", "off", "--save", snap),
                             true);
        unsetenv("BOIDS_DEBUG");
        ck_assert_msg(WEXITSTATUS(r.status) == 3, "%s: expected exit 3, got %d; stderr: %s", cases[k].fault,
                      WEXITSTATUS(r.status), r.err);
        ck_assert_msg(strncmp(r.err, "boids: --backend gpu: ", 22) == 0 && strstr(r.err, cases[k].want) &&
                          strstr(r.err, cases[k].holds),
                      "%s: stderr: %s", cases[k].fault, r.err);
        char *nl = strchr(r.err, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "%s: expected one line on stderr: %s", cases[k].fault, r.err);
        run_free(&r);
        if (cases[k].step >= 0) {
            boids_sim *s = load_snapshot(snap);
            ck_assert_uint_eq(s->step, (uint64_t)cases[k].step);
            boids_sim_destroy(s);
        } else {
            char *text = slurp(snap);
            ck_assert_str_eq(text, "an older file\n");
            free(text);
        }
    }
    setenv("BOIDS_DEBUG", "fault=lost@zero", 1);
    run_result r = run_viewer("fault_bad", ARGV("--count", "200", "--frames", "2"), true);
    unsetenv("BOIDS_DEBUG");
    ck_assert_msg(WEXITSTATUS(r.status) == 2 && strstr(r.err, "boids: BOIDS_DEBUG fault: 'lost@zero'"), "exit %d: %s",
                  WEXITSTATUS(r.status), r.err);
    run_free(&r);
}
END_TEST

int main(void) {
    mkdir(TMP, 0755);
    Suite *s = suite_create("viewer");
    TCase *tc = tcase_create("viewer");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, camera_math);
    tcase_add_test(tc, screenshot_shows_agents);
    tcase_add_test(tc, frames_apart_differ);
    tcase_add_test(tc, keys_toggle_behaviors);
    tcase_add_test(tc, every_key_runs);
    tcase_add_test(tc, numbered_outputs_skip_links);
    tcase_add_test(tc, menu_toggles_and_weights);
    tcase_add_test(tc, menu_drawn);
    tcase_add_test(tc, follows_drawn);
    tcase_add_test(tc, resize_to_zero_and_back);
    tcase_add_test(tc, hud_wraps_in_a_narrow_window);
    tcase_add_test(tc, panels_keep_off_the_world);
    tcase_add_test(tc, cpu_backend_and_3d);
    tcase_add_test(tc, rule_set_scenarios);
    tcase_add_test(tc, no_display_exit_3);
    tcase_add_test(tc, old_gl_exit_3);
    tcase_add_test(tc, bad_input_exit_2);
    tcase_add_test(tc, profile_recording);
    tcase_add_test(tc, bodies_drawn);
    tcase_add_test(tc, bodies_key_cycles);
    tcase_add_test(tc, demo_snake);
    tcase_add_test(tc, demo_chain_drag);
    tcase_add_test(tc, bodies_bad_input_exit_2);
    tcase_add_test(tc, replay_export_frames);
    tcase_add_test(tc, replay_bad_file_exit_2);
    tcase_add_test(tc, save_load_resume);
    tcase_add_test(tc, save_load_bad_exit_2);
    tcase_add_test(tc, reload_refuses_other_shape);
    tcase_add_test(tc, gl_faults_exit_3);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
