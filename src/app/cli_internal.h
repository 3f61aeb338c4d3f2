/* src/app/cli_internal.h: what the files of the command-line parser share
 * (cli.c: the parse and the checks across flags; cli_flags.c: the flag table,
 * its values and names; cli_help.c: --help and --list-flags from that table,
 * above it; cli_man.c: the man page and the bash completion from the same;
 * cli_format.c: the one-line messages; cli_params.c: options to
 * parameters). Not for the executables: they use cli.h. */
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
    CLI_PARAM,  // a parameter of the registry (`param`): boids_param_parse into boids_options.values
} cli_value_kind;

// What one flag handler needs: where to report, and the flag and value at hand.
typedef struct parse_ctx {
    const boids_cli_spec *spec;
    const char *flag;  // "--count"
    const char *value; // as given
} parse_ctx;

// The sections of --help, in their order.
typedef enum cli_section {
    CLI_SEC_RUN,      // what runs: counts, steps, seeds, where the start comes from
    CLI_SEC_WORLD,    // the world and its edges
    CLI_SEC_AGENTS,   // behaviours, neighbourhoods, limits
    CLI_SEC_STEERING, // the steering behaviours' own parameters
    CLI_SEC_NAMED,    // named agents and paths
    CLI_SEC_RULES,    // rule sets and the collective-motion models
    CLI_SEC_BODIES,   // procedural bodies
    CLI_SEC_BACKEND,  // where and how it computes
    CLI_SEC_OUTPUTS,  // what it writes
    CLI_SEC_WINDOW,   // the viewer's window, script and modes
    CLI_SEC_OTHER,    // --help, --version
    CLI_SECTIONS
} cli_section;

// One flag: its name, bit, value and where the value goes, its help and the texts of its errors.
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
    // CLI_UINT: what follows "an integer LO..HI"; CLI_CHOICE, CLI_NAME: NULL or
    // "(a note)", after the names of the choices ("a, b or c (a note)"); else
    // the whole expectation.
    const char *expected;
    const char *problem; // CLI_PATH, CLI_CHOICE, CLI_NAME: "is an empty path", "is not a backend"
    const char *const *choices;
    int (*pick)(const char *name); // CLI_CHOICE by a function of the library instead of choices
    int (*parse)(const parse_ctx *c, boids_options *o);
    cli_section section; // its section of --help
    // Its one-line description in --help (NULL: hidden). "%N" stands for the
    // names it accepts; without it they follow as ": a, b or c".
    const char *help;
    // The i-th name the value may be, NULL past the last, for flags whose
    // names are not `choices` (behaviours, body styles); NULL: none.
    const char *(*name_at)(size_t i);
    boids_param_id param; // CLI_PARAM: which
} cli_flag;

// Every flag, in the order of the suggestions and of the checks across flags.
extern const cli_flag cli_flags[];
extern const size_t cli_flag_count;

// Reports a problem with the flag and value at hand on stderr; returns 2 (error).
int cli_bad(const parse_ctx *c, const char *expected, const char *problem_fmt, ...) BOIDS_CLI_PRINTF(3, 4);
// --workload's names (cli_flags.c), NULL-terminated.
extern const char *const boids_cli_workloads[];
// Checks and stores the value of flag f; returns 0 or 2 (error printed).
int cli_flag_value(const parse_ctx *c, const cli_flag *f, boids_options *o);
// The i-th name the value of f may be (its choices or name_at), NULL past the last.
const char *cli_flag_name(const cli_flag *f, size_t i);
// The names the value of f may be, joined: "a, b or c" (sep NULL), else with sep.
void cli_flag_names(const cli_flag *f, const char *sep, char *buf, size_t size);
// The accepted flag nearest to `name` (a typo or a prefix), or NULL.
const char *cli_flag_suggest(const boids_cli_spec *spec, const char *name);

// The headings of --help's sections (and the man page's OPTIONS subsections).
extern const char *const cli_section_titles[CLI_SECTIONS];
// Does spec accept f? (The flags of every program, --help and the hidden ones: always.)
bool cli_flag_accepted(const boids_cli_spec *spec, const cli_flag *f);
// Is f one the help shows (a description), not a hidden one (--list-flags, --man-page)?
bool cli_flag_shown(const cli_flag *f);
// The next flag of section s that spec's help shows, from index *k of the
// table on (*k moves past it), or NULL: `for (size_t k = 0; (f =
// cli_section_next(spec, s, &k));)` walks a section as --help lists it.
const cli_flag *cli_section_next(const boids_cli_spec *spec, int s, size_t *k);
// f's description in spec's help, with the names its value may be, into buf.
void cli_flag_text(const boids_cli_spec *spec, const cli_flag *f, char *buf, size_t size);

#endif
