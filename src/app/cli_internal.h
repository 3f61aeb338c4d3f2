/* src/app/cli_internal.h: what the files of the command-line parser share
 * (cli.c: the parse and the checks across flags; cli_flags.c: the flag table
 * and its values; cli_format.c: the one-line messages; cli_params.c: options
 * to parameters). Not for the executables: they use cli.h. */
#ifndef BOIDS_APP_CLI_INTERNAL_H
#define BOIDS_APP_CLI_INTERNAL_H

#include "cli.h"

// What a value kind of the flag table does with the value.
typedef enum cli_value_kind {
    CLI_SWITCH, // no value: sets the bool at `field` (if any)
    CLI_UINT,   // an integer lo..hi into the integer at `field` (and `also`)
    CLI_FLOAT,  // a float (BOIDS_PARSE_* of parse_flags) into the float at `field`
    CLI_PATH,   // a non-empty string: the pointer at `field`
    CLI_CHOICE, // one of `choices` (or `pick`): its index + lo into the integer or bool at `field`
    CLI_NAME,   // one of `choices`: the name itself into the pointer at `field`
    CLI_CUSTOM, // `parse` reads and stores it
} cli_value_kind;

// What one flag handler needs: where to report, and the flag and value at hand.
typedef struct parse_ctx {
    const boids_cli_spec *spec;
    const char *flag;  // "--count"
    const char *value; // as given
} parse_ctx;

// One flag: its name, bit, value and where the value goes, and the texts of its errors.
typedef struct cli_flag {
    const char *name;    // without the leading "--"
    boids_cli_bits bit;  // 0: --help / --version, always accepted
    const char *metavar; // NULL: takes no value
    cli_value_kind kind;
    unsigned parse_flags; // BOIDS_PARSE_*
    uint64_t lo, hi;      // CLI_UINT range; CLI_CHOICE: added to the index
    size_t field, size;   // offsetof / sizeof in boids_options; 0: nothing stored
    size_t also;          // a second field set alike (--steps: bench_steps), 0 if none
    size_t given;         // the bool set once the value is good, 0 if none
    const char *expected; // CLI_UINT: what follows "an integer LO..HI"; else the whole expectation
    const char *problem;  // CLI_PATH, CLI_CHOICE, CLI_NAME: "is an empty path", "is not a backend"
    const char *const *choices;
    int (*pick)(const char *name); // CLI_CHOICE by a function of the library instead of choices
    int (*parse)(const parse_ctx *c, boids_options *o, uint32_t *origin_n);
} cli_flag;

// Every flag, in the order of the suggestions and of the checks across flags.
extern const cli_flag cli_flags[];
extern const size_t cli_flag_count;

// Reports a problem with the flag and value at hand on stderr; returns 2 (error).
int cli_bad(const parse_ctx *c, const char *expected, const char *problem_fmt, ...) BOIDS_CLI_PRINTF(3, 4);
// --workload's names (cli_flags.c), NULL-terminated.
extern const char *const boids_cli_workloads[];
// Checks and stores the value of flag f; returns 0 or 2 (error printed).
int cli_flag_value(const parse_ctx *c, const cli_flag *f, boids_options *o, uint32_t *origin_n);
// The accepted flag nearest to `name` (a typo or a prefix), or NULL.
const char *cli_flag_suggest(const boids_cli_spec *spec, const char *name);

#endif
