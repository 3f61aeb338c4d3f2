/* src/app/cli.h: the one command-line parser of every executable (boids,
 * boids-run, boids-bench, boids-validate, boids-ensemble,
 * boids-shader-source). Each program names the flags it accepts and the
 * prose of its usage; --help is generated from the flag table the parser
 * reads (cli_help.c). Values are checked completely (full consumption,
 * finite, in range) and every error is ONE line on stderr:
 *   PROG: --flag: 'VALUE' <what is wrong>; expected <what is allowed>
 *
 * Offers:
 *   BOIDS_CLI_*            one bit per flag
 *   boids_cli_spec         what a program accepts (flags, usage)
 *   boids_options          the parsed values (defaults filled in)
 *   boids_cli_help         a program's own description of a flag
 *   boids_cli_parse        argv -> options (0 run, 1 help/version shown, 2 error shown)
 *   boids_cli_help_print, boids_cli_list_flags   --help and --list-flags
 *   boids_cli_main         parse, run, free: an executable's main
 *   boids_options_params   options -> finalized boids_params, errors as one line
 *   boids_cli_format, boids_cli_error   the one-line error format
 */
#ifndef BOIDS_APP_CLI_H
#define BOIDS_APP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/core.h"
#include "boids/registry.h"
#include "boids/scenario.h"

// One bit per flag (--help, -h and --version are always accepted).
// The flag bits. More than 64 flags: 128 bits (unsigned __int128, a GCC and
// Clang extension; used only for these masks).
__extension__ typedef unsigned __int128 boids_cli_bits;
#define BOIDS_CLI_BIT(n) ((boids_cli_bits)1 << (n))

#define BOIDS_CLI_COUNT BOIDS_CLI_BIT(0)         // --count N
#define BOIDS_CLI_STEPS BOIDS_CLI_BIT(1)         // --steps S
#define BOIDS_CLI_SEED BOIDS_CLI_BIT(2)          // --seed X
#define BOIDS_CLI_DIM BOIDS_CLI_BIT(3)           // --dim 2|3
#define BOIDS_CLI_PARAMS BOIDS_CLI_BIT(4)        // every flag of the parameter registry (boids/registry.h)
#define BOIDS_CLI_BACKEND BOIDS_CLI_BIT(15)      // --backend cpu|gpu
#define BOIDS_CLI_INIT BOIDS_CLI_BIT(16)         // --init FILE.csv
#define BOIDS_CLI_EXPORT_CSV BOIDS_CLI_BIT(17)   // --export-csv FILE.csv
#define BOIDS_CLI_STATS_EVERY BOIDS_CLI_BIT(18)  // --stats-every K
#define BOIDS_CLI_THREADS BOIDS_CLI_BIT(19)      // --threads N
#define BOIDS_CLI_COUNTS BOIDS_CLI_BIT(20)       // --counts N,N,...
#define BOIDS_CLI_DISTRIBUTION BOIDS_CLI_BIT(21) // --distribution uniform|clustered
#define BOIDS_CLI_QUIET BOIDS_CLI_BIT(22)        // --quiet
#define BOIDS_CLI_SHADER_DIR BOIDS_CLI_BIT(23)   // --shader-dir DIR
#define BOIDS_CLI_WIDTH BOIDS_CLI_BIT(24)        // --width W (viewer window)
#define BOIDS_CLI_HEIGHT BOIDS_CLI_BIT(25)       // --height H
#define BOIDS_CLI_VSYNC BOIDS_CLI_BIT(26)        // --vsync on|off
#define BOIDS_CLI_FRAMES BOIDS_CLI_BIT(27)       // --frames K
#define BOIDS_CLI_SCREENSHOT BOIDS_CLI_BIT(28)   // --screenshot FILE.png
#define BOIDS_CLI_KEYS BOIDS_CLI_BIT(29)         // --keys SCRIPT
#define BOIDS_CLI_PROFILE BOIDS_CLI_BIT(30)      // --profile FILE.csv|FILE.json
#define BOIDS_CLI_DEMO BOIDS_CLI_BIT(34)         // --demo chain|snake (viewer)
#define BOIDS_CLI_INDEX BOIDS_CLI_BIT(35)        // --index grid|quadtree|brute (CPU backend)
#define BOIDS_CLI_SCENARIO BOIDS_CLI_BIT(36)     // --scenario FILE.ini|NAME
#define BOIDS_CLI_LIST_SCENARIOS BOIDS_CLI_BIT(37) // --list-scenarios
#define BOIDS_CLI_DUMP_SCENARIO BOIDS_CLI_BIT(38)  // --dump-scenario (boids-run)
#define BOIDS_CLI_SAVE BOIDS_CLI_BIT(39)           // --save FILE.boids (snapshot at exit)
#define BOIDS_CLI_SAVE_EVERY BOIDS_CLI_BIT(40)     // --save-every K (and every K steps)
#define BOIDS_CLI_LOAD BOIDS_CLI_BIT(41)           // --load FILE.boids (start from a snapshot)
#define BOIDS_CLI_RECORD BOIDS_CLI_BIT(42)         // --record FILE (boids-run: a recording of the run)
#define BOIDS_CLI_RECORD_EVERY BOIDS_CLI_BIT(43)   // --record-every K (a frame every K steps)
#define BOIDS_CLI_REPLAY BOIDS_CLI_BIT(44)         // --replay FILE (viewer: play a recording)
#define BOIDS_CLI_EXPORT_FRAMES BOIDS_CLI_BIT(45)  // --export-frames DIR (viewer: every frame as PNG)
#define BOIDS_CLI_FRAME BOIDS_CLI_BIT(46)          // --frame N (viewer: the replayed frame to start at)
#define BOIDS_CLI_UPDATE BOIDS_CLI_BIT(60)         // --update parallel|sequential (boids-run, CPU backend)
#define BOIDS_CLI_KERNEL BOIDS_CLI_BIT(64)         // --kernel reference|morton (GPU)
#define BOIDS_CLI_WORKLOAD BOIDS_CLI_BIT(65)       // --workload circles (boids-bench: a peer's named workload)
#define BOIDS_CLI_RENDER BOIDS_CLI_BIT(66)         // --render WxH (boids-bench: the viewer's frame off-screen)
#define BOIDS_CLI_PROGRAM_STATS BOIDS_CLI_BIT(72)  // --program-stats (boids-bench: the GPU programs' binaries)
#define BOIDS_CLI_DECOMPOSE BOIDS_CLI_BIT(73)      // --decompose AxB[xC] (boids-run under mpirun)
#define BOIDS_CLI_REBALANCE BOIDS_CLI_BIT(74)      // --rebalance K[:T]|off (with --decompose)
#define BOIDS_CLI_OUT BOIDS_CLI_BIT(75)            // --out DIR (boids-ensemble)
#define BOIDS_CLI_JOBS BOIDS_CLI_BIT(76)           // --jobs N (boids-ensemble)
#define BOIDS_CLI_RESUME BOIDS_CLI_BIT(77)         // --resume (boids-ensemble)
#define BOIDS_CLI_TIMEOUT BOIDS_CLI_BIT(78)        // --timeout S (MPI: boids-ensemble, --decompose)
#define BOIDS_CLI_RUN_THREADS BOIDS_CLI_BIT(79)    // --threads T of each run (boids-ensemble: 1..1024, default 1)
#define BOIDS_CLI_VIDEO BOIDS_CLI_BIT(80)          // --video FILE.mp4 (viewer: the drawn frames through ffmpeg)
#define BOIDS_CLI_VIDEO_FPS BOIDS_CLI_BIT(81)      // --video-fps N (the video's frame rate, default 30)
#define BOIDS_CLI_ROUNDING_COST BOIDS_CLI_BIT(82)  // --rounding-cost (boids-bench: the steer with the correction on and off)
// The flags that boids_options_params turns into simulation parameters.
#define BOIDS_CLI_SIM_FLAGS (BOIDS_CLI_SEED | BOIDS_CLI_DIM | BOIDS_CLI_PARAMS | BOIDS_CLI_SCENARIO | BOIDS_CLI_LIST_SCENARIOS)

#define BOIDS_CLI_MAX_COUNTS 64u
#define BOIDS_CLI_MAX_STEPS 1000000000ull
#define BOIDS_CLI_MAX_THREADS 1024
#define BOIDS_CLI_MAX_WINDOW 16384u

#define BOIDS_CLI_MAX_OPERANDS 2u

// A program's own description of a flag, in place of the flag table's (a
// default of its own, what the flag means there).
typedef struct boids_cli_help {
    boids_cli_bits bit;
    const char *text;
    const char *flag; // BOIDS_CLI_PARAMS: the parameter's flag (without "--")
} boids_cli_help;

// One example command line of a program's help and man page: `command`
// runs as written (from an empty folder, after the examples above it), with
// what it does.
typedef struct boids_cli_example {
    const char *command;
    const char *what;
} boids_cli_example;

// What a program accepts. Zero `required` means every flag is optional.
// --help is generated: `usage`, then every accepted flag of the flag table
// (cli_flags.c) by section, each with its argument, its description and the
// names it accepts, then `usage_notes`, `usage_more` and the examples; every
// line wrapped to the terminal's width (80 columns when stdout is not a
// terminal). The man page (--man-page) and the bash completion
// (--bash-completion) come from the same spec and table (cli_man.c). The
// prose texts hold one paragraph (or one "  KEY  text" item) per line; the
// usage lines come first, each "usage: " or indented under it.
typedef struct boids_cli_spec {
    const char *prog;        // program name in messages (stable, unlike argv[0])
    const char *summary;     // what it does in a few words: the man page's NAME line
    const char *usage;       // the usage lines and what the program does, printed before the flags
    const char *usage_notes; // printed after the flags, or NULL; a paragraph "Exit status..." is the man page's EXIT STATUS
    const char *usage_more;  // printed after the notes (a generated list), or NULL
    const boids_cli_example *examples; // 3 to 6, ended by {NULL, NULL}; printed last under "Examples:"
    const boids_cli_help *help; // descriptions of this program's own, ended by {0, NULL}; NULL: none
    boids_cli_bits flags;       // BOIDS_CLI_* accepted
    boids_cli_bits required;    // BOIDS_CLI_* that must be given
    const char *operands;       // what the words that are not flags are ("PLAN.ini"); NULL: none taken
    uint32_t operands_min, operands_max; // how many (max <= BOIDS_CLI_MAX_OPERANDS)
    const char *version_note;            // printed after "PROG VERSION" by --version, or NULL
} boids_cli_spec;

// Parsed options; boids_cli_parse fills in the defaults of everything not given.
typedef struct boids_options {
    const char *prog;
    boids_cli_bits flags_given; // BOIDS_CLI_* seen on the command line

    uint32_t count; // --count (1..BOIDS_MAX_AGENTS)
    bool count_set;
    uint64_t steps; // --steps for boids-run (default 100)
    bool steps_set;
    uint64_t bench_steps; // --steps for boids-bench (default 10); --steps sets both
    uint64_t seed;        // --seed, decimal or 0x hex (default 1)
    uint32_t dim;         // --dim (default 2)
    bool dim_set;
    // The parameter flags (the registry's, boids/registry.h), parsed and
    // checked: values.set[BOIDS_PARAM_RADIUS] says whether --radius was given.
    boids_param_values values;
    const char *world_arg;  // --world as given, for messages
    const char *origin_arg; // --origin as given, for messages
    const char *backend;    // "cpu" (default) or "gpu"
    const char *shader_dir; // --shader-dir: load shaders from DIR; NULL = built in
    const char *init_csv;   // --init, NULL if not given
    const char *export_csv; // --export-csv, NULL if not given
    uint32_t stats_every;   // --stats-every (default steps / 10, at least 1)
    bool stats_every_set;
    int threads;                           // --threads (0 = OpenMP default)
    uint32_t counts[BOIDS_CLI_MAX_COUNTS]; // --counts
    uint32_t n_counts;
    uint32_t distribution; // BOIDS_DIST_* (default uniform)
    bool quiet;
    uint32_t width, height; // --width / --height of the viewer's window (default 1280x800)
    bool vsync;             // --vsync (default on)
    uint64_t frames;        // --frames: exit after K frames (0 = run until closed)
    const char *screenshot; // --screenshot: PNG of the last frame, NULL if not given
    const char *keys;       // --keys: scripted key presses (the viewer parses it), NULL if not given
    const char *profile;    // --profile: frame-time profile to write (.csv or .json), NULL if not given
    const char *demo;       // --demo: "chain" or "snake" (the notebook's demos), NULL if not given
    uint32_t index;         // --index: BOIDS_INDEX_* (default grid)
    uint32_t update;        // --update: BOIDS_UPDATE_* (default parallel)
    uint32_t kernel;        // --kernel: BOIDS_KERNEL_* (default reference; the GPU backend's variants)
    const char *scenario_arg; // --scenario as given (or the shipped scenario of --workload)
    uint32_t workload;        // --workload: index in boids_cli_workloads
    bool workload_set;
    boids_scenario *scenario; // --scenario, loaded by boids_cli_parse (count, dim, distribution taken from it
                              // unless given); freed by boids_options_free
    bool dump_scenario;       // --dump-scenario
    const char *save;         // --save: .boids snapshot to write at exit, NULL if not given
    uint64_t save_every;      // --save-every: also save every K steps (0 = only at exit)
    const char *load;         // --load: .boids snapshot to start from, NULL if not given
    const char *record;       // --record: recording to write, NULL if not given
    uint64_t record_every;    // --record-every: a frame every K steps (default 1)
    const char *replay;       // --replay: recording to play in the viewer, NULL if not given
    const char *export_frames; // --export-frames: directory for frame-NNNNN.png, NULL if not given
    uint32_t frame;           // --frame: the replayed frame (0 = the first)
    const char *video;        // --video: the drawn frames as an H.264 file (through ffmpeg), NULL if not given
    uint32_t video_fps;       // --video-fps: the video's frames per second (0 = not given: 30)
    uint32_t render_w, render_h; // --render WxH: boids-bench draws each step's frame off-screen (0x0: not given)
    bool program_stats;          // --program-stats: boids-bench prints the GPU's compute programs as compiled
    bool rounding_cost;          // --rounding-cost: boids-bench times the steer with sqrt and division corrected and not
    const char *decompose;       // --decompose AxB[xC] as given (boids-run checks it), NULL if not given
    const char *rebalance;       // --rebalance K[:T]|off as given, NULL if not given
    const char *out_dir;         // --out: boids-ensemble's output folder, NULL if not given
    uint32_t jobs;               // --jobs (boids-ensemble; default 1)
    uint32_t timeout;            // --timeout seconds (boids-ensemble under MPI; default 3600; --decompose: 120)
    bool timeout_set;
    bool resume;                 // --resume (boids-ensemble)
    bool check_args;             // --check-args (hidden): parse and check the command line, run nothing
    const char *operand[BOIDS_CLI_MAX_OPERANDS]; // the words that are not flags (spec->operands)
    uint32_t n_operands;
} boids_options;

// Parses argv[1..argc-1]. Returns 0: run; 1: --help, --version,
// --list-flags, --man-page, --bash-completion or --list-scenarios was
// printed (exit 0); 2: a one-line error was printed on stderr (exit 2).
// Hidden flags: --list-flags (for tests) prints one line per accepted flag:
// "--NAME" and every name its value may be, from the tables the parser
// reads; --man-page and --bash-completion print the program's man page
// (roff) and bash completion (the build installs both); --check-args
// parses and checks the line and runs nothing (the tests' check of the
// help's examples).
int boids_cli_parse(int argc, char **argv, const boids_cli_spec *spec, boids_options *out);
// The --help text of spec (see boids_cli_spec), on f, wrapped to `width`
// columns (0: the terminal's width when f is one, at most 100; else 80).
void boids_cli_help_print(const boids_cli_spec *spec, FILE *f, int width);
// The --list-flags lines of spec, on f.
void boids_cli_list_flags(const boids_cli_spec *spec, FILE *f);
// The man page of spec (roff, man macros: NAME, SYNOPSIS, DESCRIPTION,
// OPTIONS, EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO), on f.
void boids_cli_man_print(const boids_cli_spec *spec, FILE *f);
// The bash completion of spec (a function and its `complete -F` line), on f.
void boids_cli_completion_print(const boids_cli_spec *spec, FILE *f);
// An executable's main: parses argv, then returns 0 after --help / --version
// (3 when stdout cannot be written), 2 after a bad argument (its line
// printed), 0 after --check-args, else run's exit status; frees the options.
int boids_cli_main(int argc, char **argv, const boids_cli_spec *spec, int (*run)(const boids_options *o));
// SIGINT / SIGTERM for headless runs: from boids_cli_catch_interrupts on,
// a signal only sets a flag, which boids_cli_interrupted returns (0: none;
// else the signal). Runs poll it between steps, finish the step, write their
// outputs and exit 128 + the signal (130 / 143). A second signal ends the
// program at once.
void boids_cli_catch_interrupts(void);
int boids_cli_interrupted(void);
// The flag itself, for boids_engine_set_cancel (a long step stops inside).
const volatile sig_atomic_t *boids_cli_interrupt_flag(void);
// After an output's write failed: when SIGINT / SIGTERM arrived during it
// (flag_before: boids_cli_interrupted() when it began) the write was one to
// a pipe, FIFO or device whose reader took no more, given up at the signal:
// one line ("PROG: FLAG: 'PATH' not written whole: ...") and 128 + the
// signal. Else 0 (the caller reports the failure).
int boids_cli_cut_by_signal(const char *prog, const char *flag, const char *path, int flag_before);

// Frees what parsing allocated (the scenario).
void boids_options_free(boids_options *o);
// The effective scenario of o and the params it built (the file's, or the
// defaults, with the flags applied): what --dump-scenario writes. *out is
// filled; p from boids_options_params.
void boids_options_scenario(const boids_options *o, const boids_params *p, boids_scenario *out);

// Builds finalized parameters for `count` agents: boids_params_default, every
// flag applied to all groups, the world from --world/--origin (or sized
// automatically for 20 neighbours), the seed. On error `err` receives one line
// (no newline) in the format above.
boids_result boids_options_params(const boids_options *o, uint32_t count, boids_params *p, char *err, size_t err_size);

#if defined(__GNUC__)
#define BOIDS_CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define BOIDS_CLI_PRINTF(fmt, args)
#endif

// Writes "PROG: FLAG: 'VALUE' PROBLEM; expected EXPECTED" (no newline) into
// buf. flag, value and expected may be NULL (the part is left out); control
// characters in value are escaped and long values shortened, so it stays one line.
void boids_cli_format(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                      const char *expected, const char *problem_fmt, ...) BOIDS_CLI_PRINTF(7, 8);
// A library description "WHAT (allowed: RANGE)" (as boids_params_finalize and
// boids_csv_read write them) as the line "PROG: FLAG: 'VALUE' WHAT; expected
// RANGE"; default_expected is used when the description names no range.
void boids_cli_format_described(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                                const char *default_expected, const char *description);
// The same line, printed on stderr with a newline.
void boids_cli_error(const char *prog, const char *flag, const char *value, const char *expected,
                     const char *problem_fmt, ...) BOIDS_CLI_PRINTF(5, 6);

// --kernel on a backend: 0, or 2 with one line on stderr when a GPU kernel
// other than reference is asked of the CPU backend (which has only that).
int boids_cli_check_kernel(const char *prog, const boids_options *o, bool gpu);

// Checks before a run that the output file `path` of `flag` can be written
// (by boids_atomic_write): through a symbolic link, its target; not a
// directory, block device or socket (a character device or a FIFO is
// written in place: fine); its name
// within the file system's limit; its directory exists and accepts a new
// file (a probe file is created and removed: the only test that holds for
// permissions, read-only mounts, ACLs and root). Returns 0, or 2 (3 out of
// memory) with one line printed that names the flag, the path and
// `expected`.
int boids_cli_check_output(const char *prog, const char *flag, const char *path, const char *expected);

// Checks before a run that no two of the files of o name the same file
// where one of them is an output (--export-csv, --save, --record,
// --profile, --screenshot, --video against each other and against the
// inputs --init, --load, --scenario, --replay): through links, by inode
// where the file exists, by directory and name where not; character
// devices and FIFOs (/dev/null) never clash. Returns 0, or 2 with one line
// naming both flags.
int boids_cli_check_files(const char *prog, const boids_options *o);

// Checks before a run the flags that would have no effect in it, given its
// parameters p: an output with --dump-scenario (which runs nothing) is an
// error (2, one line); --shader-dir where no shaders run (shaders_used
// false), --margin without --boundary margin, --joints without bodies,
// --grid-fine with another index than the grid, --maxspeed (--maxforce)
// beside its range get one warning line each on stderr. Returns 0 or 2.
int boids_cli_check_effects(const char *prog, const boids_options *o, const boids_params *p, bool shaders_used);

#endif
