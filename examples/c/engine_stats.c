/* engine_stats: make an engine, step it, print its statistics and its
 * state hash. A first program against the installed library (docs/API.md):
 *
 *   engine_stats [--count N] [--steps S] [--backend cpu|gpu] [--scenario NAME|FILE]
 *
 * The engine takes the defaults of boids_params_default(count, 2), as
 * boids-run does without other flags, so the last line equals
 * `boids-run --count N --steps S --backend B --quiet`'s; with --scenario
 * (a shipped scenario's name, found by the installed library, or an .ini
 * file) the scenario's count, groups and seed instead, as
 * `boids-run --scenario NAME --steps S`. Exit 0, 2 on a bad
 * argument, 3 when the engine cannot run (no OpenGL 4.5 context, a GPU
 * fault) with the engine's line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <boids/engine.h>

// A whole non-negative number of `arg`, or false.
static bool parse_count(const char *arg, unsigned long long *out) {
    char *end;
    if (arg == NULL || arg[0] < '0' || arg[0] > '9')
        return false;
    *out = strtoull(arg, &end, 10);
    return *end == '\0';
}

int main(int argc, char **argv) {
    unsigned long long count = 1000, steps = 100;
    const char *scenario = NULL;
    boids_engine_desc desc = {0}; // zero = the defaults: 2D, the chapter's flocking, CPU
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--count") == 0 && parse_count(value, &count) && count > 0 && count <= UINT32_MAX)
            i++;
        else if (strcmp(argv[i], "--steps") == 0 && parse_count(value, &steps))
            i++;
        else if (strcmp(argv[i], "--backend") == 0 && value && strcmp(value, "cpu") == 0)
            desc.backend = BOIDS_BACKEND_CPU, i++;
        else if (strcmp(argv[i], "--backend") == 0 && value && strcmp(value, "gpu") == 0)
            desc.backend = BOIDS_BACKEND_GPU, i++;
        else if (strcmp(argv[i], "--scenario") == 0 && value)
            scenario = value, i++;
        else {
            fprintf(
                stderr,
                "usage: engine_stats [--count N] [--steps S] [--backend cpu|gpu] [--scenario NAME|FILE] (at '%s')\n",
                argv[i]);
            return 2;
        }
    }
    desc.count = (uint32_t)count; // a scenario has its own count
    desc.quiet = true;            // no GL debug messages on stderr

    char err[512];
    boids_engine *e;
    boids_result r = scenario ? boids_engine_create_scenario(&e, scenario, &desc, err, sizeof err)
                              : boids_engine_create(&e, &desc, err, sizeof err);
    if (r != BOIDS_OK) {
        fprintf(stderr, "engine_stats: %s\n", err);
        return r == BOIDS_ERR_ARGUMENT || r == BOIDS_ERR_PARAM ? 2 : 3;
    }
    printf("engine: %u agents in %uD on %s\n", boids_engine_count(e), boids_engine_dim(e), boids_engine_describe(e));

    boids_stats st;
    int rc = 0;
    if (boids_engine_stats(e, &st) == BOIDS_OK) // neighbours are counted by a step: none yet
        printf("start  step 0: polarisation %.4f, mean speed %.4f\n", st.polarisation, st.mean_speed);
    // The steps are queued on the GPU; the statistics wait for them.
    if (boids_engine_step(e, steps, NULL) != BOIDS_OK || boids_engine_stats(e, &st) != BOIDS_OK) {
        boids_engine_check(e, err, sizeof err); // the fault's line
        fprintf(stderr, "engine_stats: %s\n", err);
        rc = 3;
    } else {
        printf("final  step %llu: polarisation %.4f, mean speed %.4f, neighbours %.2f, nearest %.3f\n",
               (unsigned long long)st.step, st.polarisation, st.mean_speed, st.mean_neighbors, st.mean_nearest);
        printf("state-hash: %016llx\n", (unsigned long long)boids_engine_hash(e));
    }
    boids_engine_destroy(e);
    return rc;
}
