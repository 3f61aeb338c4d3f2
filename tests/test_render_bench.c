// tests/test_render_bench.c: boids-bench --render WxH, the viewer's frame
// off-screen (a framebuffer object of the headless EGL context; llvmpipe in
// CI): it runs, reports a frame rate, and its last frame (--screenshot, read
// back from the framebuffer object) shows the agents, not only the clear
// colour. Label gpu: without a GL 4.5 context boids-bench exits 3 and the
// suite FAILS (never a skip). Also its refusals (one line, exit 2).
#include <check.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pixels.h"
#include "spawn.h"

#include <stb_image.h> // stbi_load: the implementation is boids_core's (src/core/flowfield.c)

#define BENCH BOIDS_BIN_DIR "/boids-bench"

// The flock's clear colour (flock_draw.c: 0.05, 0.06, 0.08) in 8 bits.
static const int background[3] = {13, 15, 20};

static run_result bench(const char *tag, const char *const *argv) {
    run_result r = boids_test_run(BENCH, argv, TMP, tag);
    ck_assert_msg(r.spawned, "expected boids-bench to start");
    ck_assert_msg(WIFEXITED(r.status), "expected boids-bench to exit, not to end by signal %d; stderr: %s",
                  WIFSIGNALED(r.status) ? WTERMSIG(r.status) : -1, r.err);
    return r;
}

// The row of n agents in the --render table: frame ms and frames/s.
static void frame_row(const run_result *r, unsigned n, double *ms, double *fps) {
    const char *t = strstr(r->out, "frame off-screen (--render ");
    ck_assert_msg(t != NULL, "expected the --render table; stdout: %s", r->out);
    const char *head = strstr(t, "| frames/s");
    ck_assert_msg(head != NULL, "expected a frames/s column; stdout: %s", r->out);
    for (const char *line = strchr(t, '\n'); line; line = strchr(line + 1, '\n')) {
        unsigned got = 0;
        double step = 0;
        if (sscanf(line + 1, "| %u | %lf | %lf | %lf |", &got, ms, fps, &step) == 4 && got == n)
            return;
    }
    ck_abort_msg("expected a --render row of %u agents; stdout: %s", n, r->out);
}

// Pixels of the PNG at path unlike the clear colour, and warm bright ones
// (the group-0 colour of agents.vert: 0.95, 0.85, 0.35 times 0.8 .. 1.25).
static void count_pixels(const char *path, int w, int h, long *unlike, long *agents) {
    int iw = 0, ih = 0, comp = 0;
    unsigned char *px = stbi_load(path, &iw, &ih, &comp, 3);
    ck_assert_msg(px != NULL, "expected %s to be a PNG: %s", path, stbi_failure_reason());
    ck_assert_msg(iw == w && ih == h, "expected a %dx%d PNG, got %dx%d", w, h, iw, ih);
    *unlike = *agents = 0;
    for (long i = 0; i < (long)w * h; i++) {
        const unsigned char *p = px + 3 * i;
        bool same = true;
        for (int c = 0; c < 3; c++)
            same = same && abs((int)p[c] - background[c]) <= 2;
        *unlike += !same;
        *agents += boids_test_yellow_pixel(p);
    }
    stbi_image_free(px);
}

static void expect_frame(const char *tag, const char *dim) {
    char png[256];
    snprintf(png, sizeof png, TMP "/%s.png", tag);
    unlink(png);
    run_result r = bench(tag, ARGV(BENCH, "--backend", "gpu", "--render", "640x360", "--counts", "1000", "--steps", "3",
                                   "--dim", dim, "--quiet", "--screenshot", png));
    ck_assert_msg(WEXITSTATUS(r.status) == 0,
                  "expected boids-bench --backend gpu --render to exit 0 (it needs an OpenGL 4.5 context: a "
                  "missing one is a failure), got %d; stderr: %s",
                  WEXITSTATUS(r.status), r.err);
    double ms = 0, fps = 0;
    frame_row(&r, 1000, &ms, &fps);
    ck_assert_msg(isfinite(fps) && fps > 0 && ms > 0, "expected frames/s > 0, got %g (%g ms); stdout: %s", fps, ms,
                  r.out);
    ck_assert_msg(fabs(fps * ms - 1e3) < 1e3 * 0.01, "expected frames/s = 1000 / frame ms, got %g and %g", fps, ms);
    char shot[300];
    snprintf(shot, sizeof shot, "screenshot: %s (640x360)", png);
    ck_assert_msg(strstr(r.out, shot), "expected '%s'; stdout: %s", shot, r.out);
    long unlike = 0, agents = 0;
    count_pixels(png, 640, 360, &unlike, &agents);
    // 1000 agents of about 5 pixels, the world box, the HUD panel.
    ck_assert_msg(unlike > 2000, "expected the frame to show more than the clear colour: %ld pixels differ", unlike);
    ck_assert_msg(agents > 500, "expected agents in the frame: %ld agent-coloured pixels", agents);
    boids_test_run_free(&r);
}

START_TEST(render_2d) {
    expect_frame("render-2d", "2");
}
END_TEST

START_TEST(render_3d) { // the depth attachment
    expect_frame("render-3d", "3");
}
END_TEST

// One line on stderr naming the flag, exit 2, nothing timed.
static void expect_refused(const char *tag, const char *const *argv, const char *flag) {
    run_result r = bench(tag, argv);
    ck_assert_msg(WEXITSTATUS(r.status) == 2, "expected exit 2, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
    char want[64];
    snprintf(want, sizeof want, "boids-bench: %s: ", flag);
    ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "expected '%s...'; stderr: %s", want, r.err);
    const char *nl = strchr(r.err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "expected one line; stderr: %s", r.err);
    ck_assert_msg(!strstr(r.out, "| N "), "expected nothing timed; stdout: %s", r.out);
    boids_test_run_free(&r);
}

START_TEST(refusals) {
    expect_refused("render-cpu", ARGV(BENCH, "--render", "640x360", "--counts", "100", "--steps", "1"), "--render");
    expect_refused("render-cpu2",
                   ARGV(BENCH, "--backend", "cpu", "--render", "640x360", "--counts", "100", "--steps", "1"),
                   "--render");
    const char *bad[] = {"640", "0x360", "640x0", "640x360x2", "axb", "640x99999", "-1x10", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused("render-size",
                       ARGV(BENCH, "--backend", "gpu", "--render", bad[i], "--counts", "100", "--steps", "1"),
                       "--render");
    expect_refused("render-shot",
                   ARGV(BENCH, "--backend", "gpu", "--screenshot", TMP "/x.png", "--counts", "100", "--steps", "1"),
                   "--screenshot");
    expect_refused("render-dir",
                   ARGV(BENCH, "--backend", "gpu", "--render", "64x64", "--screenshot", TMP "/no/such/dir/x.png",
                        "--counts", "100", "--steps", "1"),
                   "--screenshot");
}
END_TEST

int main(void) {
    Suite *s = suite_create("render_bench");
    boids_test_tcase(s, "render_2d", render_2d);
    boids_test_tcase(s, "render_3d", render_3d);
    boids_test_tcase(s, "refusals", refusals);
    return boids_test_run_suite(s);
}
