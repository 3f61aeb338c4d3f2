// tests/test_viewer_panels.c: the viewer's panels that appear on a key, in
// its screenshots under Xvfb (llvmpipe in CI; never skipped, as test_viewer):
// the profile graph (T, --profile) is a band at the window's foot with the
// world framed above it, in 2D and 3D, at several sizes and aspects, the
// menu's column above it too, and its legend shows every stage's colour;
// the help overlay (H) lies on an opaque panel, so nothing of the world shows
// through its text. test_viewer checks the HUD's band the same way.
#include <check.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "spawn.h"
#include "viewer_run.h"

#define run_viewer boids_test_viewer // tests/viewer_run.c
#define run_free boids_test_run_free
#define load boids_test_image

static void expect_ok(const run_result *r) {
    ck_assert_msg(WEXITSTATUS(r->status) == 0, "expected exit 0, got %d; stderr: %s", WEXITSTATUS(r->status), r->err);
    ck_assert_msg(strstr(r->out, "gl-errors 0"), "expected zero GL errors; stdout: %s", r->out);
}

// A panel of the HUD's colour (the graph's too) over the background: black
// at 0.55 alpha over (0.05, 0.06, 0.08) is about (6, 7, 9), darker than the
// background (13, 15, 20).
static bool panel_pixel(const unsigned char *p) {
    return p[0] <= 9 && p[1] <= 10 && p[2] <= 12;
}

// An agent, bright or dimmed under a translucent panel: warm (red well over
// blue), as neither the white text, the grey box nor the background is.
static bool warm_pixel(const unsigned char *p) {
    return p[0] > 50 && p[0] > p[2] + 35 && p[1] > p[2] + 15;
}

// p is rgb (0..1, as the viewer's colours are written) within 2 of each byte.
static bool is_colour(const unsigned char *p, const float rgb[3]) {
    for (int c = 0; c < 3; c++)
        if (fabsf((float)p[c] - rgb[c] * 255.0f) > 2.5f)
            return false;
    return true;
}

// The graph's stages, key .. bodies, in the colours of viewer_hud.c's
// graph_colors (opaque: bars and swatches are those bytes exactly).
static const char *const stage[7] = {"key", "count", "scan", "scatter", "steer", "integrate", "bodies"};
static const float stage_rgb[7][3] = {{0.35f, 0.55f, 0.85f}, {0.95f, 0.60f, 0.20f}, {0.85f, 0.30f, 0.30f},
                                      {0.45f, 0.75f, 0.75f}, {0.35f, 0.70f, 0.35f}, {0.95f, 0.80f, 0.30f},
                                      {0.75f, 0.45f, 0.85f}};

static int stage_of(const unsigned char *p) {
    for (int k = 0; k < 7; k++)
        if (is_colour(p, stage_rgb[k]))
            return k;
    return -1;
}

// While a profile records (--profile from the first frame): the graph's
// panel found from its foot (its top: up the left edge at x 2, its right:
// along row h - 3, both inside its padding), then no agent beside it in its
// band, none under it (a warm pixel in it that is not a stage's colour), a
// legend (every stage's colour, bodies' too at 0 ms, in a swatch's worth of
// pixels or more), and the agents framed above it.
START_TEST(graph_keeps_off_the_world) {
    static const struct {
        const char *dim, *w, *h, *keys;
    } runs[4] = {{"2", "1280", "800", "2:1280x800"},
                 {"3", "800", "600", "2:800x600"},
                 {"2", "600", "900", "2:m"},
                 {"3", "1600", "500", "2:m"}};
    for (int k = 0; k < 4; k++) {
        char name[32], path[256], csv[256];
        snprintf(name, sizeof name, "graph%d", k);
        snprintf(path, sizeof path, TMP "/graph%d.png", k);
        snprintf(csv, sizeof csv, TMP "/graph%d.csv", k);
        run_result r = run_viewer(name,
                                  ARGV("--count", "6000", "--dim", runs[k].dim, "--width", runs[k].w, "--height",
                                       runs[k].h, "--frames", "30", "--vsync", "off", "--profile", csv, "--keys",
                                       runs[k].keys, "--screenshot", path),
                                  true);
        expect_ok(&r);
        image im = load(path);
        int top = im.h;
        while (top > 0 && panel_pixel(image_at(&im, 2, top - 1)))
            top--;
        int right = 0;
        while (right < im.w && panel_pixel(image_at(&im, right, im.h - 3)))
            right++;
        float s = im.h >= 700 ? 2.0f : 1.0f; // the viewer's text scale (at most: a narrow window may take less)
        ck_assert_msg(im.h - top >= 60 && im.h - top <= im.h / 3 && right >= 200,
                      "%sD %sx%s: expected the graph's panel at the foot, found rows %d.. and columns ..%d",
                      runs[k].dim, runs[k].w, runs[k].h, top, right);
        long beside = 0, under = 0, colour[7] = {0};
        for (int y = top; y < im.h; y++)
            for (int x = 0; x < im.w; x++) {
                const unsigned char *p = image_at(&im, x, y);
                int st = x < right ? stage_of(p) : -1;
                if (st >= 0)
                    colour[st]++;
                else if (warm_pixel(p))
                    *(x < right ? &under : &beside) += 1;
            }
        ck_assert_msg(
            under == 0 && beside == 0,
            "%sD %sx%s: %ld agent pixels under the graph (rows %d.., columns ..%d), %ld beside it in its band: "
            "it covers the world",
            runs[k].dim, runs[k].w, runs[k].h, under, top, right, beside);
        for (int st = 0; st < 7; st++)
            ck_assert_msg(colour[st] >= (long)(40.0f * s * s) / 4,
                          "%sD %sx%s: the legend's '%s' colour: %ld pixels in the graph, expected its swatch",
                          runs[k].dim, runs[k].w, runs[k].h, stage[st], colour[st]);
        long above = 0;
        for (int y = 0; y < top; y++)
            for (int x = 0; x < im.w; x++)
                above += warm_pixel(image_at(&im, x, y));
        ck_assert_msg(above > 200, "%sD %sx%s: expected the agents above the graph, found %ld pixels", runs[k].dim,
                      runs[k].w, runs[k].h, above);
        boids_test_image_free(&im);
        run_free(&r);
    }
}
END_TEST

// The help (H) over a full 2D world, 1280x800 and 800x600: its panel (the
// bounding box of viewer_hud.c's help_panel colour, 0.10, 0.11, 0.15) a
// large part of the window, and inside it nothing but that colour, the
// white text and the gold labels: no agent shows through.
START_TEST(help_is_opaque) {
    static const float back[3] = {0.10f, 0.11f, 0.15f}, white[3] = {0.92f, 0.94f, 0.96f},
                       gold[3] = {0.95f, 0.85f, 0.35f};
    const char *sizes[2][2] = {{"1280", "800"}, {"800", "600"}};
    for (int k = 0; k < 2; k++) {
        char name[32], path[256];
        snprintf(name, sizeof name, "help%d", k);
        snprintf(path, sizeof path, TMP "/help%d.png", k);
        run_result r = run_viewer(name,
                                  ARGV("--count", "20000", "--width", sizes[k][0], "--height", sizes[k][1], "--frames",
                                       "10", "--vsync", "off", "--keys", "2:h", "--screenshot", path),
                                  true);
        expect_ok(&r);
        image im = load(path);
        int x0 = im.w, y0 = im.h, x1 = -1, y1 = -1;
        for (int y = 0; y < im.h; y++)
            for (int x = 0; x < im.w; x++)
                if (is_colour(image_at(&im, x, y), back)) {
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                    y0 = y < y0 ? y : y0;
                    y1 = y > y1 ? y : y1;
                }
        ck_assert_msg(x1 - x0 > im.w / 3 && y1 - y0 > im.h / 3,
                      "%sx%s: expected the help's opaque panel, found its colour in %d..%d x %d..%d", sizes[k][0],
                      sizes[k][1], x0, x1, y0, y1);
        long foreign = 0, warm = 0;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                const unsigned char *p = image_at(&im, x, y);
                if (!is_colour(p, back) && !is_colour(p, white) && !is_colour(p, gold)) {
                    foreign++;
                    warm += warm_pixel(p);
                }
            }
        ck_assert_msg(foreign == 0,
                      "%sx%s: %ld pixels in the help's panel (%d..%d x %d..%d) neither its colour nor its text's (%ld "
                      "of them warm: agents showing through)",
                      sizes[k][0], sizes[k][1], foreign, x0, x1, y0, y1, warm);
        boids_test_image_free(&im);
        run_free(&r);
    }
}
END_TEST

int main(void) {
    mkdir(TMP, 0755);
    Suite *s = suite_create("viewer_panels");
    TCase *tc = tcase_create("viewer_panels");
    tcase_add_test(tc, graph_keeps_off_the_world);
    tcase_add_test(tc, help_is_opaque);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
