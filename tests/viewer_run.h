// tests/viewer_run.h: running the viewer `boids` from a Check suite (under
// xvfb-run, or on $DISPLAY; never skipped) and reading its screenshots.
// Compiled into each suite that uses it (spawn.h's BOIDS_BIN_DIR and
// BOIDS_TEST_TMP are the suite's own).
#ifndef BOIDS_TEST_VIEWER_RUN_H
#define BOIDS_TEST_VIEWER_RUN_H

#include <stdbool.h>

#include "spawn.h"

#define VIEWER BOIDS_BIN_DIR "/boids"

// Runs boids with args (NULL-terminated): under `xvfb-run -a` when it
// exists, else on $DISPLAY; with neither the test fails (a missing display
// is never a skip). `display` false: with no display at all (DISPLAY and
// WAYLAND_DISPLAY unset). Fails the test unless it started and exited.
run_result boids_test_viewer(const char *name, const char *const *args, bool display);
// The same with env (NULL: the test's environment), under xvfb-run or not
// (xvfb false: env's own display, or none).
run_result boids_test_viewer_env(const char *name, const char *const *args, char *const *env, bool xvfb);

// An RGB image (stb_image), 3 bytes a pixel, rows from the top.
typedef struct image {
    int w, h;
    unsigned char *px;
} image;

// Loads a PNG; fails the test when it is not one.
image boids_test_image(const char *path);
// The pixel at (x, y).
static inline const unsigned char *image_at(const image *im, int x, int y) {
    return im->px + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
}
void boids_test_image_free(image *im);

#endif
