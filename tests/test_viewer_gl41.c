// tests/test_viewer_gl41.c: the viewer `boids` on an OpenGL 4.1 core context
// (macOS's, and older drivers'), under Xvfb with Mesa's llvmpipe capped by
// MESA_GL_VERSION_OVERRIDE=4.1 MESA_GLSL_VERSION_OVERRIDE=410 (set for the
// spawned viewer only). --backend cpu must run there and draw what it draws
// on 4.5: each picture is compared, pixel for pixel below the HUD (whose
// timings differ), with the same run uncapped. --backend gpu must be refused
// (exit 3, one line naming the version and --backend cpu); without
// --backend the viewer falls back to the CPU with a one-line notice. Without
// xvfb-run and without a display the suite FAILS: it is never skipped.
#include <check.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "viewer_run.h"

#include <stb_image.h> // stbi_load: the implementation is boids_core's (src/core/flowfield.c)

// Rows from the top that the comparison leaves out: the HUD panel (six lines
// of stb_easy_font at scale 1 on a 480-pixel window, about 85 pixels) with
// its frame times.
#define HUD_ROWS 120
#define MAX_ARGS 64 // the words of one viewer command

extern char **environ;

// Runs boids with args under `xvfb-run -a` (else on $DISPLAY); `capped`:
// Mesa offers at most OpenGL 4.1 core, GLSL 4.10. The test's own
// MESA_GL*_VERSION_OVERRIDE, if any, never reaches the viewer.
static run_result run_viewer(const char *name, const char *const *args, bool capped) {
    char *env[1024];
    int e = 0;
    for (char **p = environ; *p && e < 1020; p++)
        if (strncmp(*p, "MESA_GL_VERSION_OVERRIDE=", 25) != 0 && strncmp(*p, "MESA_GLSL_VERSION_OVERRIDE=", 27) != 0)
            env[e++] = *p;
    if (capped) {
        env[e++] = "MESA_GL_VERSION_OVERRIDE=4.1";
        env[e++] = "MESA_GLSL_VERSION_OVERRIDE=410";
    }
    env[e] = NULL;
    return boids_test_viewer_env(name, args, env, true);
}

// Exit 0, no GL error, and the context's version as the first line says it.
static void expect_ok(const run_result *r, const char *version) {
    ck_assert_msg(WEXITSTATUS(r->status) == 0, "expected exit 0, got %d; stderr: %s", WEXITSTATUS(r->status), r->err);
    ck_assert_msg(strstr(r->out, "gl-errors 0"), "expected zero GL errors; stdout: %s", r->out);
    ck_assert_msg(strstr(r->out, version), "expected a context of '%s'; stdout: %s", version, r->out);
}

#define load boids_test_image

// Pixels below the HUD that differ from the background's colour (flock_draw.c
// 0.05, 0.06, 0.08: 13, 15, 20 in 8 bits): something was drawn there.
static long drawn_pixels(const image *im) {
    long n = 0;
    for (int y = HUD_ROWS; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            const unsigned char *p = im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
            n += abs(p[0] - 13) + abs(p[1] - 15) + abs(p[2] - 20) > 24;
        }
    return n;
}

// Runs `args` capped at 4.1 and at 4.5 with a screenshot each; the two
// pictures below the HUD must be the same and show at least `least` drawn
// pixels. `flock`: a flock run, which must say it is on the CPU backend.
// Returns the drawn pixels of the 4.1 picture.
static long same_pictures(const char *name, const char *const *args, long least, bool flock) {
    char shot[2][256];
    const char *all[MAX_ARGS];
    int n = 0;
    for (; args[n]; n++)
        all[n] = args[n];
    ck_assert(n + 9 < MAX_ARGS);
    const char *size[] = {"--width", "640", "--height", "480", "--vsync", "off", "--screenshot"};
    for (int k = 0; k < 7; k++)
        all[n + k] = size[k];
    image im[2];
    for (int c = 0; c < 2; c++) {
        snprintf(shot[c], sizeof shot[c], TMP "/%s-%s.png", name, c ? "gl45" : "gl41");
        unlink(shot[c]);
        all[n + 7] = shot[c];
        all[n + 8] = NULL;
        run_result r = run_viewer(name, all, c == 0);
        expect_ok(&r, c ? "OpenGL 4.5" : "OpenGL 4.1");
        ck_assert_msg(!flock || strstr(r.out, "backend cpu"), "%s: expected the CPU backend; stdout: %s", name, r.out);
        boids_test_run_free(&r);
        im[c] = load(shot[c]);
    }
    ck_assert(im[0].w == 640 && im[0].h == 480 && im[1].w == im[0].w && im[1].h == im[0].h);
    long differ = 0;
    for (size_t i = (size_t)HUD_ROWS * 640 * 3; i < (size_t)640 * 480 * 3; i += 3)
        differ += memcmp(im[0].px + i, im[1].px + i, 3) != 0;
    long drawn = drawn_pixels(&im[0]);
    stbi_image_free(im[0].px);
    stbi_image_free(im[1].px);
    // The same simulation (the C reference, one seed) drawn by the same
    // rasteriser: the shaders' 4.1 variant reads the same values.
    ck_assert_msg(differ == 0, "%s: expected the 4.1 picture to equal the 4.5 one below the HUD, %ld pixels differ",
                  name, differ);
    ck_assert_msg(drawn >= least, "%s: expected >= %ld drawn pixels below the HUD on 4.1, got %ld", name, least, drawn);
    return drawn;
}

// A flock on the CPU backend, the same on 4.1 as on 4.5.
static long same_on_both(const char *name, const char *const *args, long least) {
    return same_pictures(name, args, least, true);
}

// 2D glyphs in the group colours, the world's box.
START_TEST(cpu_2d) {
    same_on_both("flock2d", ARGV("--backend", "cpu", "--count", "5000", "--frames", "20"), 5000);
}
END_TEST

// 3D: lit, fogged arrows and the world's box in perspective.
START_TEST(cpu_3d) {
    same_on_both("flock3d", ARGV("--backend", "cpu", "--dim", "3", "--count", "3000", "--frames", "20"), 2000);
}
END_TEST

// The colour modes (C: heading, then speed, then neighbours).
START_TEST(cpu_colours) {
    same_on_both("heading", ARGV("--backend", "cpu", "--count", "3000", "--frames", "8", "--keys", "2:c"), 3000);
    same_on_both("neighbours", ARGV("--backend", "cpu", "--count", "3000", "--frames", "8", "--keys", "2:c,3:c,4:c"),
                 3000);
}
END_TEST

// Bodies: snakes (fill, outline, eyes) in 2D, chains, fish in 3D.
START_TEST(cpu_bodies) {
    same_on_both("snake",
                 ARGV("--backend", "cpu", "--count", "300", "--bodies", "snake", "--joints", "8", "--frames", "10"),
                 3000);
    same_on_both("chain", ARGV("--backend", "cpu", "--count", "300", "--bodies", "chain", "--frames", "10"), 1000);
    same_on_both("fish3d",
                 ARGV("--backend", "cpu", "--dim", "3", "--count", "300", "--bodies", "fish", "--frames", "10"), 1000);
}
END_TEST

// Overlays and panels: who follows whom (L), the grid heat map (G), the
// behaviour menu (M), the help (H).
START_TEST(cpu_overlays) {
    same_on_both("follows",
                 ARGV("--backend", "cpu", "--scenario", "predators-prey", "--frames", "10", "--keys", "2:l,3:g"),
                 20000);
    same_on_both("menu", ARGV("--backend", "cpu", "--count", "300", "--frames", "6", "--keys", "2:m,3:down"), 20000);
    same_on_both("help", ARGV("--backend", "cpu", "--count", "300", "--frames", "6", "--keys", "2:h"), 20000);
}
END_TEST

// A replay of a boids-run recording and the chain demo: no simulation on
// the GPU, so they run on 4.1 too.
START_TEST(replay_and_demo) {
    const char *rec = TMP "/gl41.rec";
    run_result r =
        boids_test_run(RUN_BIN, ARGV(RUN_BIN, "--count", "3000", "--steps", "10", "--record", rec), TMP, "record");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "expected boids-run to record; %s",
                  r.err);
    boids_test_run_free(&r);
    same_pictures("replay", ARGV("--replay", rec, "--frames", "5"), 3000, false);
    // The demo's canvas is light: its picture equal to 4.5's (the chain's
    // dark joints included) is the check, the drawn pixels are the canvas.
    same_pictures("demo", ARGV("--demo", "chain", "--frames", "3"), 1000, false);
}
END_TEST

// --backend gpu on 4.1: exit 3 with one line naming the version found and
// --backend cpu; no window's picture.
START_TEST(gpu_refused) {
    const char *shot = TMP "/refused.png";
    unlink(shot);
    run_result r = run_viewer("refused", ARGV("--backend", "gpu", "--frames", "5", "--screenshot", shot), true);
    ck_assert_msg(WEXITSTATUS(r.status) == 3, "expected exit 3, got %d; stderr: %s", WEXITSTATUS(r.status), r.err);
    ck_assert_msg(strstr(r.err, "boids: --backend gpu: found OpenGL '4.1") && strstr(r.err, "use --backend cpu"),
                  "expected the version found and --backend cpu; stderr: %s", r.err);
    const char *nl = strchr(r.err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "expected one line; stderr: %s", r.err);
    ck_assert_msg(access(shot, F_OK) != 0, "expected no screenshot");
    boids_test_run_free(&r);
}
END_TEST

// No --backend (the default is the GPU): on 4.1 a one-line notice and the
// CPU backend; on 4.5 the GPU backend as before.
START_TEST(default_falls_back) {
    run_result r = run_viewer("fallback", ARGV("--count", "2000", "--frames", "5", "--vsync", "off"), true);
    expect_ok(&r, "OpenGL 4.1");
    ck_assert_msg(strstr(r.err, "running on the CPU backend, as --backend cpu\n"), "expected the notice; stderr: %s",
                  r.err);
    ck_assert_msg(strstr(r.out, "backend cpu"), "expected the CPU backend; stdout: %s", r.out);
    boids_test_run_free(&r);
    r = run_viewer("default45", ARGV("--count", "2000", "--frames", "5", "--vsync", "off"), false);
    expect_ok(&r, "OpenGL 4.5");
    ck_assert_msg(strstr(r.out, "backend gpu") && !strstr(r.err, "CPU backend"),
                  "expected the GPU backend on 4.5, no notice; stdout: %s stderr: %s", r.out, r.err);
    boids_test_run_free(&r);
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"cpu_2d", cpu_2d},
        {"cpu_3d", cpu_3d},
        {"cpu_colours", cpu_colours},
        {"cpu_bodies", cpu_bodies},
        {"cpu_overlays", cpu_overlays},
        {"replay_and_demo", replay_and_demo},
        {"gpu_refused", gpu_refused},
        {"default_falls_back", default_falls_back},
    };
    return boids_test_main("viewer_gl41", cases, sizeof cases / sizeof cases[0], TMP);
}
