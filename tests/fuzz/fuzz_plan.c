/* tests/fuzz/fuzz_plan.c: libFuzzer target of the ensemble plan parser
 * (src/engine/ensemble_plan.c, with the swept keys checked through the
 * scenario parser's overrides). The input is the text of a plan file,
 * standing for FUZZ_PLAN_NAME in the shipped plans/ folder (so a scenario
 * named relative to it resolves). When it loads, the expansion must hold:
 * at least one run, every run's value and seed defined for the first, a
 * middle and the last run, nothing past the last; the CSV header must name
 * every swept key. Otherwise the message must be one line that starts with
 * the plan's name. A crash, a sanitizer report or a broken invariant is a
 * bug (abort).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/ensemble.h"

#ifndef FUZZ_PLAN_NAME
#define FUZZ_PLAN_NAME "fuzz-input.ini"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    boids_plan *p = NULL;
    char err[1600] = "";
    boids_result r = boids_plan_load_string(text, FUZZ_PLAN_NAME, &p, err, sizeof err);
    free(text);
    if (r != BOIDS_OK) {
        if (p || strchr(err, '\n') || strncmp(err, FUZZ_PLAN_NAME ":", strlen(FUZZ_PLAN_NAME ":")) != 0)
            abort();
        return 0;
    }
    uint32_t runs = boids_plan_runs(p);
    if (runs == 0 || runs > BOIDS_PLAN_MAX_RUNS)
        abort();
    uint32_t probe[3] = {0, runs / 2, runs - 1};
    for (uint32_t i = 0; i < 3; i++) {
        (void)boids_plan_run_seed(p, probe[i]);
        for (uint32_t k = 0; k < p->n_params; k++) {
            const char *v = boids_plan_run_value(p, probe[i], k);
            if (!v || !v[0] || strlen(v) >= BOIDS_PLAN_VALUE)
                abort();
        }
    }
    if (p->n_params && boids_plan_run_value(p, runs, 0))
        abort();
    char header[4096];
    boids_plan_csv_header(p, header, sizeof header);
    for (uint32_t k = 0; k < p->n_params; k++)
        if (!strstr(header, p->param[k].key))
            abort();
    boids_plan_free(p);
    return 0;
}
