/* tests/fuzz/fuzz_scenario.c: libFuzzer target of the scenario parser
 * (src/core/scenario.c). The input is the text of a scenario file. When it
 * loads: it is written and loaded back, which must succeed; written again,
 * the reloaded scenario must give the same text. Its params finalized (as
 * --dump-scenario writes them) must be written and load back too. A crash,
 * a sanitizer report, a failed reload or a different second text is a bug
 * (abort).
 *
 * The input stands for FUZZ_SCENARIO_NAME (a file in the shipped
 * scenarios/ directory), so that `image = flowfield-rings.png` resolves.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/scenario.h"

#ifndef FUZZ_SCENARIO_NAME
#define FUZZ_SCENARIO_NAME "fuzz-input.ini"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Silences stdout once (the library prints nothing there; reports go to stderr, which stays).
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

// sc written as a scenario file into a malloc'd string (NULL on a write error).
static char *write_text(const boids_scenario *sc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    bool ok = boids_scenario_write(sc, f);
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

// Prints why the round trip failed (on the real stderr, kept by libFuzzer) and aborts.
static void fail(const char *what, const char *err, const char *text) {
    fprintf(stderr, "fuzz_scenario: %s: %s\n--- written text ---\n%s\n---\n", what, err ? err : "", text ? text : "");
    abort();
}

// One input: load; when it loads, finalize, write, reload; write, reload, write again and compare.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    boids_scenario *sc = malloc(sizeof *sc), *back = malloc(sizeof *back);
    boids_params *p = malloc(sizeof *p);
    if (!text || !sc || !back || !p)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char err[1024];
    if (boids_scenario_load_string(text, FUZZ_SCENARIO_NAME, sc, err, sizeof err) == BOIDS_OK) {
        // Finalized, as --dump-scenario writes it: must load back too.
        *p = sc->params;
        char what[256];
        if (boids_params_finalize(p, what, sizeof what) == BOIDS_OK) {
            *back = *sc;
            back->params = *p;
            char *dumped = write_text(back);
            if (!dumped)
                fail("writing the finalized scenario failed", NULL, NULL);
            if (boids_scenario_load_string(dumped, FUZZ_SCENARIO_NAME, back, err, sizeof err) != BOIDS_OK)
                fail("the finalized scenario does not load back", err, dumped);
            boids_scenario_at_step(back, 1000, p); // the time-dependent parts of the reloaded one
            free(dumped);
        }

        char *first = write_text(sc);
        if (!first)
            fail("writing the loaded scenario failed", NULL, NULL);
        if (boids_scenario_load_string(first, FUZZ_SCENARIO_NAME, back, err, sizeof err) != BOIDS_OK)
            fail("the written scenario does not load back", err, first);
        char *second = write_text(back);
        if (!second)
            fail("writing the reloaded scenario failed", NULL, first);
        if (strcmp(first, second) != 0) {
            fprintf(stderr, "--- second text ---\n%s\n", second);
            fail("the reloaded scenario writes a different text", NULL, first);
        }
        free(second);
        free(first);
    } else if (!err[0] || strchr(err, '\n')) {
        fail("the error is not one line", err, NULL);
    }
    free(p);
    free(back);
    free(sc);
    free(text);
    return 0;
}
