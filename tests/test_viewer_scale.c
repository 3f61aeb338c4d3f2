// tests/test_viewer_scale.c: the viewer's drawing at every scale, through
// the real executable under Xvfb (xvfb-run) with llvmpipe: a million agents
// of a flock that has gathered show their structure (not a flat carpet:
// luminance that follows the density, hues that follow the headings), the
// hunters of predators-prey are drawn larger than their prey, and 3D agents
// are lit (their faces differ in brightness). Also the sizing rule
// boids_agents_scale itself (no GL). Label viewer: without a display the
// suite fails, never skips.
#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pixels.h"
#include "spawn.h"
#include "viewer_run.h"
#include "boids/render.h"

#define run_free boids_test_run_free

static void expect_ok(const run_result *r, const char *what) {
    ck_assert_msg(WEXITSTATUS(r->status) == 0, "%s: expected exit 0, got %d; stderr: %s", what, WEXITSTATUS(r->status),
                  r->err);
    ck_assert_msg(strstr(r->out, "gl-errors 0") || strstr(r->out, "state-hash"),
                  "%s: expected zero GL errors; stdout: %s", what, r->out);
}

static double luminance(const unsigned char *p) {
    return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
}

// Hue in [0, 1) and saturation (max - min) / max of an RGB pixel.
static void hue_sat(const unsigned char *p, double *hue, double *sat) {
    double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
    double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn;
    *sat = mx > 0.0 ? d / mx : 0.0;
    double h = 0.0;
    if (d > 0.0) {
        if (mx == r)
            h = fmod((g - b) / d + 6.0, 6.0);
        else if (mx == g)
            h = (b - r) / d + 2.0;
        else
            h = (r - g) / d + 4.0;
    }
    *hue = h / 6.0;
}

// What a square of the picture holds: the share of pixels brighter than
// the background, the spread (standard deviation) of those pixels'
// luminance, and how many of 12 hue bins hold at least 3 % of the coloured
// ones (saturation above 0.25).
typedef struct picture_stats {
    double lit_share, lum_spread;
    int hue_bins;
} picture_stats;

static picture_stats measure(const image *im, int x0, int y0, int side) {
    long lit = 0, total = 0, coloured = 0, bins[12] = {0};
    double sum = 0.0, sum2 = 0.0;
    for (int y = y0; y < y0 + side && y < im->h; y++)
        for (int x = x0; x < x0 + side && x < im->w; x++) {
            const unsigned char *p = image_at(im, x, y);
            total++;
            double l = luminance(p);
            if (l < 30.0) // the background is (0.05, 0.06, 0.08): about 15
                continue;
            lit++;
            sum += l;
            sum2 += l * l;
            double h, s;
            hue_sat(p, &h, &s);
            if (s > 0.25) {
                coloured++;
                bins[(int)(h * 12.0) % 12]++;
            }
        }
    picture_stats st = {0};
    st.lit_share = total ? (double)lit / (double)total : 0.0;
    if (lit > 1) {
        double mean = sum / (double)lit;
        st.lum_spread = sqrt(fmax(0.0, sum2 / (double)lit - mean * mean));
    }
    for (int b = 0; b < 12; b++)
        st.hue_bins += coloured > 0 && bins[b] * 100 >= coloured * 3;
    return st;
}

// The sizing rule alone: sparse agents keep their full length and are drawn
// opaque; past the cover limit they shrink (never below a pixel), become
// points below 2 pixels and are summed (dense) with a reference of at least
// 4 agents on a pixel; more agents never draw longer.
START_TEST(agents_scale_rule) {
    const float world[3] = {1000.0f, 1000.0f, 0.0f};
    boids_agents_look a, b, c;
    boids_agents_scale(100, world, 1.0f, 3.0f, 5.0f, &a); // 100 agents on 10^6 pixels
    ck_assert(!a.dense && !a.points && fabsf(a.px - 5.0f) < 1e-4f && fabsf(a.size - 5.0f) < 1e-4f);
    boids_agents_scale(100000, world, 1.0f, 3.0f, 5.0f, &b); // 5 px glyphs would cover 1.8 of each pixel
    ck_assert_msg(b.dense && b.px < 5.0f && b.px >= 1.0f, "100 000: px %g dense %d", (double)b.px, b.dense);
    boids_agents_scale(1000000, world, 1.0f, 3.0f, 5.0f, &c);
    ck_assert_msg(c.dense && c.points && c.px >= 1.0f && c.px <= b.px, "1 000 000: px %g points %d", (double)c.px,
                  c.points);
    ck_assert(c.density_ref >= 4.0f && c.density_ref >= b.density_ref);
    // Zoomed in (0.01 world units a pixel) the same million is sparse on screen: full length again.
    boids_agents_scale(1000000, world, 0.01f, 0.001f, 5.0f, &c);
    ck_assert_msg(!c.dense && fabsf(c.px - 5.0f) < 1e-3f, "zoomed in: px %g", (double)c.px);
    // Never a NaN from an empty or degenerate world.
    const float flat[3] = {0.0f, 0.0f, 0.0f};
    boids_agents_scale(1000, flat, 1.0f, 3.0f, 5.0f, &c);
    ck_assert(!c.dense && isfinite(c.px) && isfinite(c.size));
}
END_TEST

// A million agents of a flock that has gathered (120 steps of the chapter's
// flocking from a uniform start: small flocks of one heading each), drawn
// at 960x720, where each pixel holds about one agent: the picture inside
// the world is not flat. With colours by heading (the default at this
// count) at least 6 of 12 hue bins are well filled, and the luminance
// spreads with the density; colours by group (C three times: one colour for
// all) still show the density in the luminance.
START_TEST(million_flock_structure) {
    run_result r = boids_test_run(
        RUN_BIN,
        ARGV(RUN_BIN, "--count", "1000000", "--steps", "120", "--stats-every", "120", "--save", TMP "/million.boids"),
        TMP, "million-run");
    expect_ok(&r, "boids-run");
    run_free(&r);
    static const char *const shots[2] = {TMP "/million-heading.png", TMP "/million-group.png"};
    for (int k = 0; k < 2; k++) {
        r = boids_test_viewer(k ? "million-group" : "million-heading",
                              k ? ARGV("--backend", "cpu", "--load", TMP "/million.boids", "--width", "960", "--height",
                                       "720", "--vsync", "off", "--keys", "space,c,c,c", "--frames", "5",
                                       "--screenshot", shots[k])
                                : ARGV("--backend", "cpu", "--load", TMP "/million.boids", "--width", "960", "--height",
                                       "720", "--vsync", "off", "--frames", "1", "--screenshot", shots[k]),
                              true);
        expect_ok(&r, shots[k]);
        image im = boids_test_image(shots[k]);
        // A square in the middle of the world, below where any panel is.
        picture_stats st = measure(&im, im.w / 2 - im.h / 6, im.h / 2 - im.h / 12, im.h / 3);
        fprintf(stderr, "%s: lit %.3f, luminance spread %.1f, hue bins %d\n", shots[k], st.lit_share, st.lum_spread,
                st.hue_bins);
        ck_assert_msg(st.lit_share > 0.15 && st.lit_share < 0.97, "%s: %.3f of the pixels lit", shots[k], st.lit_share);
        ck_assert_msg(st.lum_spread > 15.0, "%s: the luminance of the agents' pixels spreads only %.1f (flat)",
                      shots[k], st.lum_spread);
        if (!k)
            ck_assert_msg(st.hue_bins >= 6, "%s: only %d of 12 hue bins hold 3 %% of the coloured pixels", shots[k],
                          st.hue_bins);
        else
            ck_assert_msg(st.hue_bins <= 2, "%s: one group colour, yet %d hue bins", shots[k], st.hue_bins);
        boids_test_image_free(&im);
        run_free(&r);
    }
}
END_TEST

// predators-prey: 75 predators among 1425 prey. A predator (red, #e74c3c)
// covers well over twice the pixels of a prey (blue #3498db, yellow
// #f1c40f): hunters are drawn as larger wedges.
START_TEST(hunters_larger) {
    run_result r = boids_test_viewer("hunters",
                                     ARGV("--scenario", "predators-prey", "--frames", "30", "--width", "1280",
                                          "--height", "800", "--vsync", "off", "--screenshot", TMP "/hunters.png"),
                                     true);
    expect_ok(&r, "predators-prey");
    image im = boids_test_image(TMP "/hunters.png");
    long red = 0, prey = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            const unsigned char *p = image_at(&im, x, y);
            if (p[0] > 150 && p[1] < 110 && p[2] < 100 && p[0] > p[1] + 70)
                red++;
            else if ((p[2] > 150 && p[0] < 110 && p[2] > p[0] + 60) || (p[0] > 150 && p[1] > 120 && p[2] < 70))
                prey++;
        }
    double per_hunter = (double)red / 75.0, per_prey = (double)prey / 1425.0;
    fprintf(stderr, "hunters: %.1f pixels a predator, %.1f a prey\n", per_hunter, per_prey);
    ck_assert_msg(prey > 1425 && red > 75, "expected both kinds drawn: %ld red, %ld prey pixels", red, prey);
    ck_assert_msg(per_hunter > 2.5 * per_prey, "a predator covers %.1f pixels, a prey %.1f: not distinct", per_hunter,
                  per_prey);
    boids_test_image_free(&im);
    run_free(&r);
}
END_TEST

// 3D agents lit: the pixels of one group's colour (yellow, 0.95 0.85 0.35)
// differ in brightness between faces and with depth: the 90th percentile of
// their luminance is at least 1.6 times the 10th.
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(lit_3d) {
    run_result r = boids_test_viewer("lit3d",
                                     ARGV("--dim", "3", "--count", "1500", "--frames", "30", "--width", "1280",
                                          "--height", "800", "--vsync", "off", "--screenshot", TMP "/lit3d.png"),
                                     true);
    expect_ok(&r, "3D");
    image im = boids_test_image(TMP "/lit3d.png");
    double *lum = malloc(sizeof(double) * (size_t)im.w * (size_t)im.h);
    ck_assert(lum);
    long n = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            const unsigned char *p = image_at(&im, x, y);
            if (boids_test_yellow_pixel(p))
                lum[n++] = luminance(p);
        }
    ck_assert_msg(n > 1000, "expected the 3D agents drawn, got %ld yellow pixels", n);
    qsort(lum, (size_t)n, sizeof *lum, cmp_double);
    double p10 = lum[n / 10], p90 = lum[n * 9 / 10];
    fprintf(stderr, "lit 3D: %ld pixels, luminance p10 %.1f, p90 %.1f\n", n, p10, p90);
    ck_assert_msg(p90 > 1.6 * p10, "3D agents flat: luminance p10 %.1f, p90 %.1f", p10, p90);
    free(lum);
    boids_test_image_free(&im);
    run_free(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("viewer_scale");
    boids_test_tcase(s, "agents_scale_rule", agents_scale_rule);
    boids_test_tcase(s, "hunters_larger", hunters_larger);
    boids_test_tcase(s, "lit_3d", lit_3d);
    boids_test_tcase(s, "million_flock_structure", million_flock_structure);
    return boids_test_main_suite(s, TMP);
}
