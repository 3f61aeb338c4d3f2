/* tests/fuzz/fuzz_cli.c: libFuzzer target of the command-line parser
 * (src/app/cli.c). The input is a command line of boids-run, its words
 * separated by NUL or newline; it is parsed with boids-run's flags, turned
 * into finalized parameters (no simulation is run) and, as --dump-scenario
 * does, written as a scenario file. Any crash or sanitizer report is a bug,
 * and so is an error of boids_options_params that is not one line.
 *
 * stdout (help texts) goes to /dev/null. The one-line errors go to stderr,
 * which the target leaves alone: libFuzzer and the sanitizers report there.
 * tools/fuzz.sh runs it with -close_fd_mask=2, which makes libFuzzer keep
 * its own copy of stderr for the reports and silence the program's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/scenario.h"
#include "cli.h"

#define FUZZ_MAX_WORDS 32

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// The snapshot flags, where cli.h has them.
#if defined(BOIDS_CLI_SAVE) && defined(BOIDS_CLI_SAVE_EVERY) && defined(BOIDS_CLI_LOAD)
#define FUZZ_SNAPSHOT_FLAGS (BOIDS_CLI_SAVE | BOIDS_CLI_SAVE_EVERY | BOIDS_CLI_LOAD)
#else
#define FUZZ_SNAPSHOT_FLAGS 0
#endif

// boids-run's flags (src/app/boids_run.c), so that every flag of the program is reachable.
static const boids_cli_spec spec = {
    .prog = "boids-run",
    .usage = "usage: boids-run --count N [options]\n",
    .flags = BOIDS_CLI_COUNT | BOIDS_CLI_STEPS | BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_BACKEND | BOIDS_CLI_SHADER_DIR |
             BOIDS_CLI_INIT | BOIDS_CLI_EXPORT_CSV | BOIDS_CLI_STATS_EVERY | BOIDS_CLI_THREADS | BOIDS_CLI_QUIET |
             BOIDS_CLI_PROFILE | BOIDS_CLI_INDEX | BOIDS_CLI_DUMP_SCENARIO | BOIDS_CLI_DECOMPOSE | BOIDS_CLI_TIMEOUT |
             FUZZ_SNAPSHOT_FLAGS,
};

static FILE *null_out; // where the effective scenario is written

// Silences stdout once (help and --list-scenarios print there) and opens
// the sink of the written scenarios.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    null_out = fopen("/dev/null", "w");
    if (!null_out)
        abort();
    return 0;
}

// Whether a word names a special file system (/dev/zero as --scenario would never end).
static int names_special_file(const char *w) {
    return strstr(w, "/dev") || strstr(w, "/proc") || strstr(w, "/sys");
}

// One input: split into argv words, parse, build the params, write the scenario.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[FUZZ_MAX_WORDS + 2]; // "boids-run", the words, NULL
    int argc = 0;
    argv[argc++] = "boids-run";
    char *word = text;
    for (size_t i = 0; i <= size; i++) {
        if (text[i] != '\0' && text[i] != '\n')
            continue;
        text[i] = '\0';
        bool last = i == size;
        if (!(last && !word[0])) { // a trailing separator adds no empty word
            if (argc == FUZZ_MAX_WORDS + 1 || names_special_file(word)) {
                free(text);
                return 0; // too many words, or a device file: skipped
            }
            argv[argc++] = word;
        }
        word = text + i + 1;
    }
    argv[argc] = NULL;

    boids_options o;
    if (boids_cli_parse(argc, argv, &spec, &o) == 0) {
        boids_params p;
        char err[1024];
        uint32_t count = o.count_set ? o.count : 100;
        if (boids_options_params(&o, count, &p, err, sizeof err) == BOIDS_OK) {
            boids_scenario *eff = malloc(sizeof *eff);
            if (eff) {
                boids_options_scenario(&o, &p, eff);
                boids_scenario_write(eff, null_out);
                free(eff);
            }
        } else if (!err[0] || strchr(err, '\n')) {
            abort(); // an error must be exactly one line
        }
    }
    boids_options_free(&o);
    free(text);
    return 0;
}
