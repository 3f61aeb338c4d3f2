// tests/viewer_run.c: see viewer_run.h.
#include "viewer_run.h"

#include <check.h>
#include <string.h>
#include <sys/wait.h>

#include <stb_image.h> // stbi_load: the implementation is boids_core's (src/core/flowfield.c)

#define MAX_ARGS 64

extern char **environ;

// Runs the viewer under xvfb-run (xvfb) or as it is, with env.
static run_result viewer_run(const char *name, const char *const *args, bool xvfb, char *const *env) {
    const char *argv[MAX_ARGS];
    int n = xvfb ? boids_test_xvfb(argv, name) : 0;
    argv[n++] = VIEWER;
    for (int i = 0; args[i]; i++) {
        ck_assert(n + 1 < MAX_ARGS);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    run_result r = boids_test_run_env(argv[0], argv, TMP, name, env);
    ck_assert_msg(r.spawned, "expected %s to start", argv[0]);
    ck_assert_msg(WIFEXITED(r.status), "expected boids to exit, not to end by signal %d; stderr: %s",
                  WIFSIGNALED(r.status) ? WTERMSIG(r.status) : -1, r.err);
    return r;
}

// See viewer_run.h.
run_result boids_test_viewer(const char *name, const char *const *args, bool display) {
    // The environment, less the display variables when asked.
    char *env[1024];
    int e = 0;
    for (char **p = environ; *p && e < 1023; p++)
        if (display || (strncmp(*p, "DISPLAY=", 8) != 0 && strncmp(*p, "WAYLAND_DISPLAY=", 16) != 0))
            env[e++] = *p;
    env[e] = NULL;
    return viewer_run(name, args, display, env);
}

// See viewer_run.h.
run_result boids_test_viewer_env(const char *name, const char *const *args, char *const *env, bool xvfb) {
    return viewer_run(name, args, xvfb, env ? env : environ);
}

// See viewer_run.h.
image boids_test_image(const char *path) {
    image im = {0};
    int comp = 0;
    im.px = stbi_load(path, &im.w, &im.h, &comp, 3);
    ck_assert_msg(im.px != NULL, "expected %s to be a PNG: %s", path, stbi_failure_reason());
    return im;
}

// See viewer_run.h.
void boids_test_image_free(image *im) {
    stbi_image_free(im->px);
    im->px = NULL;
}
