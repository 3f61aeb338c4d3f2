// src/app/validate_report.c: boids-validate's report (validate.h), below the
// set-up (boids_validate.c) and the horizons (validate_horizons.c), which
// both write to it: one line per check with the failures counted, a GPU
// fault's exit, a buffer read into a new array, the CPU reference saved.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "progress.h"
#include "validate.h"

static int failures;

// See validate.h: one line of the report, PASS or FAIL and what was compared.
void validate_check(bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("  %s  ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!ok)
        failures++;
}

// See validate.h: a GPU fault (the context lost, OpenGL errors) is the
// environment's, not a failed comparison: one line, exit 3, before anything
// is compared.
void validate_exit_on_fault(boids_engine *g) {
    char line[1024];
    if (boids_engine_check(g, line, sizeof line) == BOIDS_OK)
        return;
    boids_progress_finish();
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROG, line);
    exit(3);
}

// See validate.h: a new array of `bytes` (and a spare row) holding one of
// e's buffers; a GPU fault on the read: validate_exit_on_fault.
void *validate_read_new(boids_engine *e, boids_engine_buffer which, size_t bytes) {
    void *v = malloc(bytes + 16);
    if (!v) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        exit(3);
    }
    if (boids_engine_read_buffer(e, which, v, bytes) != BOIDS_OK)
        validate_exit_on_fault(e);
    return v;
}

// See validate.h: --save / --save-every, the CPU reference's state now,
// with the scenario; 0, or 3 with one line printed.
int validate_save_reference(boids_engine *s, const char *path) {
    char err[1200];
    boids_progress_clear(); // --save-every during the S steps
    int before = boids_cli_interrupted();
    if (boids_engine_save(s, path, err, sizeof err) != BOIDS_OK) {
        int cut = boids_cli_cut_by_signal(PROG, "--save", path, before);
        if (cut)
            return cut;
        fprintf(stderr, "\n%s: --save: %s\n", PROG, err);
        return 3;
    }
    printf("  saved: %s (the CPU reference at step %llu)\n", path, (unsigned long long)boids_engine_steps(s));
    return 0;
}

// See validate.h.
int validate_failures(void) {
    return failures;
}
