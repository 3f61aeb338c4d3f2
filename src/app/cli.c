/* src/app/cli.c: the shared command-line parser (see cli.h): argv walked
 * against the flag table (cli_flags.c), the scenario loaded, the checks
 * across flags; interrupts and output checks of the runs. Values are checked
 * completely by the library's parser (boids/parse.h), so the library only
 * sees sane numbers; what only the library can judge (does the radius fit
 * the world?) comes back from boids_params_finalize (cli_params.c). */
#include "cli_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boids/atomic.h"
#include "boids/parse.h"
#include "progress.h"

// The defaults of every option.
static void set_defaults(const boids_cli_spec *spec, boids_options *o) {
    memset(o, 0, sizeof *o);
    o->prog = spec->prog;
    o->steps = 100;
    o->bench_steps = 10;
    o->seed = 1;
    o->dim = 2;
    o->backend = "cpu";
    o->distribution = BOIDS_DIST_UNIFORM;
    o->width = 1280;
    o->height = 800;
    o->vsync = true;
    o->jobs = 1;
    o->timeout = 3600;
}

// qsort's order of two names.
static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// The name of the scenarios directory's file (NAME.ini) nearest to `name`
// (a typo or a prefix) into out; false when none is near.
static bool scenario_nearest(const char *name, char *out, size_t size) {
    const char *dir = boids_scenario_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return false;
    enum { MAX = 256 };
    char *names[MAX + 1];
    size_t n = 0;
    for (struct dirent *e; n < MAX && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".ini") == 0 && (names[n] = strndup(e->d_name, len - 4)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], compare_names); // readdir's order is the file system's: ties by name
    names[n] = NULL;
    const char *near = boids_parse_nearest(name, (const char *const *)names, strlen(name) <= 4 ? 1 : 2, true);
    if (near)
        snprintf(out, size, "%s", near);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    return near != NULL;
}

// --scenario: the file found and loaded (all or nothing); its count, dimension
// and distribution become the defaults of the flags not given.
static int load_scenario(const boids_cli_spec *spec, boids_options *o) {
    parse_ctx c = {spec, "--scenario", o->scenario_arg};
    char path[1024], err[900];
    if (!boids_scenario_find(o->scenario_arg, path, sizeof path))
        return cli_bad(&c,
                       "a scenario file (.ini), or a name of --list-scenarios (set BOIDS_SCENARIOS to their directory)",
                       "is not a file and no scenarios directory was found");
    if (access(path, F_OK) != 0 && !strchr(o->scenario_arg, '/') && !strstr(o->scenario_arg, ".ini")) {
        char near[256];
        if (scenario_nearest(o->scenario_arg, near, sizeof near))
            return cli_bad(&c, "a scenario file (.ini) or a name of --list-scenarios",
                           "is not a shipped scenario (did you mean '%s'?)", near);
    }
    o->scenario = malloc(sizeof *o->scenario);
    if (!o->scenario)
        return cli_bad(&c, NULL, "cannot be loaded: out of memory");
    if (boids_scenario_load(path, o->scenario, err, sizeof err) != BOIDS_OK) {
        free(o->scenario);
        o->scenario = NULL;
        boids_cli_error(spec->prog, "--scenario", NULL, NULL, "%s", err);
        return 2;
    }
    const boids_world_params *w = &o->scenario->params.world;
    if (!o->count_set) {
        o->count = w->count;
        o->count_set = true;
    }
    if (!o->dim_set)
        o->dim = w->dim;
    if (!(o->flags_given & BOIDS_CLI_DISTRIBUTION))
        o->distribution = o->scenario->distribution;
    return 0;
}

void boids_options_free(boids_options *o) {
    free(o->scenario);
    o->scenario = NULL;
}

// Parses the command line (see cli.h).
int boids_cli_main(int argc, char **argv, const boids_cli_spec *spec, int (*run)(const boids_options *o)) {
    boids_options o;
    int r = boids_cli_parse(argc, argv, spec, &o);
    if (r == 1)
        return fflush(stdout) == 0 ? 0 : 3;
    if (r != 0)
        return 2;
    if (o.check_args) { // parsed and checked: nothing runs
        boids_options_free(&o);
        return 0;
    }
    r = run(&o);
    boids_options_free(&o);
    return r;
}

// --help, --version or --list-flags anywhere on the line (even after a bad
// flag): shown, 1; else 0.
static int show_help_or_version(int argc, char **argv, const boids_cli_spec *spec) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            boids_cli_help_print(spec, stdout, 0);
            return 1;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            printf("%s %s%s\n", spec->prog, BOIDS_VERSION, spec->version_note ? spec->version_note : "");
            return 1;
        }
        if (strcmp(argv[i], "--list-flags") == 0) {
            boids_cli_list_flags(spec, stdout);
            return 1;
        }
        if (strcmp(argv[i], "--man-page") == 0) {
            boids_cli_man_print(spec, stdout);
            return 1;
        }
        if (strcmp(argv[i], "--bash-completion") == 0) {
            boids_cli_completion_print(spec, stdout);
            return 1;
        }
    }
    return 0;
}

// The row of the flag `name` (name_len characters; long: given as --name):
// of a name of two rows (--threads), the row this program accepts; NULL
// for none.
static const cli_flag *find_flag(const boids_cli_spec *spec, const char *name, size_t name_len, bool long_form) {
    const cli_flag *f = NULL;
    for (size_t k = 0; k < cli_flag_count && long_form; k++)
        if (strlen(cli_flags[k].name) == name_len && strncmp(cli_flags[k].name, name, name_len) == 0 &&
            (!f || !cli_flags[k].bit || (spec->flags & cli_flags[k].bit)))
            f = &cli_flags[k];
    return f;
}

// The message for arg (= at eq, or NULL), a flag this program does not take:
// another program's (known), or none, with the nearest name if one is near.
static int unknown_flag(const boids_cli_spec *spec, const char *arg, const char *eq, const char *name, size_t name_len,
                        bool known) {
    char bare[64];
    snprintf(bare, sizeof bare, "%.*s", (int)(name_len < 63 ? name_len : 63), name);
    const char *near = cli_flag_suggest(spec, bare);
    parse_ctx u = {spec, NULL, NULL};
    char problem[160], text[BOIDS_PARSE_SHOWN_MAX + 8];
    char *given = strdup(arg);
    if (given && eq)
        given[eq - arg] = '\0';
    boids_parse_shown(given ? given : arg, text, sizeof text);
    free(given);
    if (known)
        snprintf(problem, sizeof problem, "is not an option of %s", spec->prog);
    else if (near)
        snprintf(problem, sizeof problem, "is not an option (did you mean --%s?)", near);
    else
        snprintf(problem, sizeof problem, "is not an option");
    return cli_bad(&u, "an option listed by --help", "%s: %s", text, problem);
}

// The walk over argv: operands, then each flag and its value into out.
static int parse_args(int argc, char **argv, const boids_cli_spec *spec, boids_options *out) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        parse_ctx c = {spec, NULL, arg};
        if (arg[0] != '-' && spec->operands) {
            if (out->n_operands >= spec->operands_max)
                return cli_bad(&c, spec->operands, "is one word too many");
            out->operand[out->n_operands++] = arg;
            continue;
        }
        if (arg[0] != '-' || strcmp(arg, "-") == 0 || strcmp(arg, "--") == 0)
            return cli_bad(&c, "options of the form --flag VALUE (see --help)", "is not an option");
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const cli_flag *f = find_flag(spec, name, name_len, arg[1] == '-');
        char flag[80];
        snprintf(flag, sizeof flag, "--%.*s", (int)(name_len < 60 ? name_len : 60), name);
        if (!f || (f->bit && !(spec->flags & f->bit)))
            return unknown_flag(spec, arg, eq, name, name_len, f != NULL);
        c.flag = flag;
        if (!f->metavar) {
            c.value = NULL;
            if (eq)
                return cli_bad(&c, flag, "takes no value");
            if (f->bit == 0 && !f->field) // --help / --version: handled first
                continue;
        } else if (eq) {
            c.value = eq + 1;
        } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {
            c.value = argv[++i];
        } else {
            c.value = NULL;
            char expected[128];
            snprintf(expected, sizeof expected, "%s %s", flag, f->metavar);
            return cli_bad(&c, expected, "needs a value");
        }
        out->flags_given |= f->bit;
        if (cli_flag_value(&c, f, out))
            return 2;
    }
    return 0;
}

// --list-scenarios (shown, 1), then the scenario of --workload or
// --scenario loaded (0; 2 on an error shown).
static int take_scenario(const boids_cli_spec *spec, boids_options *out) {
    if (out->flags_given & BOIDS_CLI_LIST_SCENARIOS) {
        const char *dir = boids_scenario_dir();
        if (!dir) {
            parse_ctx c = {spec, "--list-scenarios", NULL};
            return cli_bad(&c, "a scenarios/ directory (set BOIDS_SCENARIOS to one)", "finds no scenarios directory");
        }
        printf("scenarios in %s (use --scenario NAME):\n", dir);
        boids_scenario_list(stdout);
        return 1;
    }
    // A workload is its shipped scenario (one or the other).
    if (out->workload_set) {
        if (out->scenario_arg) {
            parse_ctx c = {spec, "--workload", boids_cli_workloads[out->workload]};
            return cli_bad(&c, "--workload or --scenario, not both", "comes with --scenario %s", out->scenario_arg);
        }
        out->scenario_arg = boids_cli_workloads[out->workload];
    }
    if (out->scenario_arg && load_scenario(spec, out))
        return 2;
    return 0;
}

// The checks across flags, after the walk, so that their order does not
// matter: required flags and operands, flags that need another, what
// --load excludes, and --world and --origin against the dimension.
static int check_across_flags(const boids_cli_spec *spec, const boids_options *out) {
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (f->bit && (spec->required & f->bit) && !(out->flags_given & f->bit)) {
            char flag[80], expected[128];
            snprintf(flag, sizeof flag, "--%s", f->name);
            snprintf(expected, sizeof expected, "%s %s", flag, f->metavar);
            parse_ctx c = {spec, flag, NULL};
            return cli_bad(&c, expected, "is required");
        }
    }
    if (spec->operands && out->n_operands < spec->operands_min) {
        parse_ctx c = {spec, NULL, NULL};
        char expected[128];
        snprintf(expected, sizeof expected, "%s %s (see --help)", spec->prog, spec->operands);
        return cli_bad(&c, expected, "%s is missing", spec->operands);
    }
    if ((out->flags_given & BOIDS_CLI_REBALANCE) && !out->decompose) {
        parse_ctx c = {spec, "--rebalance", out->rebalance};
        return cli_bad(&c, "--decompose AxB[xC] with it",
                       "re-cuts the boxes of a decomposed run; this run has no --decompose");
    }
    if ((out->flags_given & BOIDS_CLI_RECORD_EVERY) && !out->record) {
        parse_ctx c = {spec, "--record-every", NULL};
        return cli_bad(&c, "--record FILE with it", "needs --record (the file to write)");
    }
    if ((out->flags_given & (BOIDS_CLI_EXPORT_FRAMES | BOIDS_CLI_FRAME)) && !out->replay) {
        parse_ctx c = {spec, out->flags_given & BOIDS_CLI_FRAME ? "--frame" : "--export-frames", NULL};
        return cli_bad(&c, "--replay FILE with it", "needs --replay (the recording to play)");
    }
    if ((out->flags_given & BOIDS_CLI_SAVE_EVERY) && !out->save) {
        parse_ctx c = {spec, "--save-every", NULL};
        return cli_bad(&c, "--save FILE.boids with it", "needs --save (the file to write)");
    }
    // A snapshot holds the parameters: with --load only the run's own flags
    // (steps, backend, outputs, threads, index) may be given.
    const boids_cli_bits not_with_load = BOIDS_CLI_SIM_FLAGS | BOIDS_CLI_COUNT | BOIDS_CLI_COUNTS | BOIDS_CLI_INIT |
                                         BOIDS_CLI_DISTRIBUTION | BOIDS_CLI_DUMP_SCENARIO;
    if (out->load && (out->flags_given & not_with_load)) {
        for (size_t k = 0; k < cli_flag_count; k++)
            if ((cli_flags[k].bit & out->flags_given & not_with_load) &&
                (cli_flags[k].kind != CLI_PARAM || out->values.set[cli_flags[k].param])) {
                char flag[80];
                snprintf(flag, sizeof flag, "--%s", cli_flags[k].name);
                parse_ctx c = {spec, flag, NULL};
                return cli_bad(&c,
                               "with --load only flags that do not set up the simulation (--steps, --frames, "
                               "--backend, --threads, --index, window and output flags)",
                               "cannot be combined with --load (the snapshot holds the parameters)");
            }
    }
    uint32_t world_n = out->values.v[BOIDS_PARAM_WORLD].n, origin_n = out->values.v[BOIDS_PARAM_ORIGIN].n;
    if (out->values.set[BOIDS_PARAM_WORLD] && world_n != out->dim) {
        parse_ctx c = {spec, "--world", out->world_arg};
        return cli_bad(&c, out->dim == 2 ? "WxH in 2D (or --dim 3 with WxHxD)" : "WxHxD in 3D",
                       "has %u extents but the run is %uD (--dim %u%s)", world_n, out->dim, out->dim,
                       out->dim_set ? "" : " by default");
    }
    if (out->values.set[BOIDS_PARAM_ORIGIN] && origin_n != out->dim) {
        parse_ctx c = {spec, "--origin", out->origin_arg};
        return cli_bad(&c, out->dim == 2 ? "X,Y in 2D" : "X,Y,Z in 3D", "has %u coordinates but the run is %uD",
                       origin_n, out->dim);
    }
    return 0;
}

// See cli.h.
int boids_cli_parse(int argc, char **argv, const boids_cli_spec *spec, boids_options *out) {
    set_defaults(spec, out);
    int r = show_help_or_version(argc, argv, spec);
    if (r == 0)
        r = parse_args(argc, argv, spec, out);
    if (r == 0)
        r = take_scenario(spec, out);
    if (r == 0)
        r = check_across_flags(spec, out);
    if (r != 0) { // nothing runs: the loaded scenario is not the caller's to free
        boids_options_free(out);
        return r;
    }
    if (!out->record_every)
        out->record_every = 1;
    if (!out->stats_every_set) {
        uint64_t k = out->steps / 10;
        out->stats_every = (uint32_t)(k < 1 ? 1 : k);
    }
    return 0;
}

// The signal that interrupted the run (see cli.h).
static volatile sig_atomic_t interrupted_by;

// The handler of the first SIGINT / SIGTERM: the flag (the progress line draws no more).
static void on_interrupt(int sig) {
    interrupted_by = sig;
    boids_progress_on_signal();
}

void boids_cli_catch_interrupts(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    // A second signal stops the program at once (the handler is reset); a
    // write or fsync under way is resumed, not failed with EINTR. A write
    // to a pipe, FIFO or device waits with poll and gives up when the flag
    // rises (boids_atomic_set_cancel): a reader that stalls holds no signal off.
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    boids_atomic_set_cancel(&interrupted_by);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int boids_cli_interrupted(void) {
    return (int)interrupted_by;
}

// The flag behind boids_cli_interrupted (see cli.h).
const volatile sig_atomic_t *boids_cli_interrupt_flag(void) {
    return &interrupted_by;
}

// See cli.h.
int boids_cli_cut_by_signal(const char *prog, const char *flag, const char *path, int flag_before) {
    int sig = boids_cli_interrupted();
    if (flag_before || !sig)
        return 0;
    boids_progress_clear();
    boids_cli_error(prog, flag, path, NULL, "not written whole: %s arrived while it waited for its reader",
                    sig == SIGINT ? "SIGINT" : "SIGTERM");
    return 128 + sig;
}

// See cli.h.
int boids_cli_check_kernel(const char *prog, const boids_options *o, bool gpu) {
    if (gpu || o->kernel == BOIDS_KERNEL_REFERENCE)
        return 0;
    boids_cli_error(prog, "--kernel", o->kernel < BOIDS_KERNEL_KINDS ? boids_kernel_names[o->kernel] : "?",
                    "reference on the CPU backend", "is a GPU kernel (add --backend gpu)");
    return 2;
}

// See cli.h.
int boids_cli_check_output(const char *prog, const char *flag, const char *path, const char *expected) {
    // One of the process's descriptors (/dev/stdout, /dev/fd/3): open for writing.
    int own = boids_atomic_descriptor(path);
    int fl = own >= 0 ? fcntl(own, F_GETFL) : 0;
    if (fl < 0 || (own >= 0 && (fl & O_ACCMODE) == O_RDONLY)) {
        boids_cli_error(prog, flag, path, "an open descriptor of this process, open for writing", "%s",
                        fl < 0 ? "is not an open descriptor of this process" : "is open for reading only");
        return 2;
    }
    // A device or FIFO (through links too) is written in place: nothing to make.
    if (boids_atomic_in_place(path))
        return 0;
    struct stat st;
    const char *why = boids_atomic_refusal(path);
    if (why) {
        boids_cli_error(prog, flag, path, expected, "%s", why);
        return 2;
    }
    // The file written: a symbolic link's target (boids_atomic_write writes beside it).
    char *target = boids_atomic_target(path);
    if (!target) {
        boids_cli_error(prog, flag, path, expected, "cannot be written: %s", strerror(errno));
        return errno == ENOMEM ? 3 : 2;
    }
    const char *slash = strrchr(target, '/');
    size_t base_len = strlen(slash ? slash + 1 : target);
    char *dir = boids_atomic_dir_of(target);
    long name_max = dir ? pathconf(dir, _PC_NAME_MAX) : -1;
    if (name_max <= 0)
        name_max = 255;
    size_t size = dir ? strlen(dir) + 64 : 0;
    char *probe = dir ? malloc(size) : NULL;
    if (!probe) {
        free(dir);
        free(target);
        boids_cli_error(prog, flag, path, NULL, "cannot be checked: out of memory");
        return 3;
    }
    int rc = 0;
    if (base_len > (size_t)name_max) {
        boids_cli_error(prog, flag, path, expected,
                        "cannot be written: its name is %zu bytes, over the %ld a name may have here", base_len,
                        name_max);
        rc = 2;
    } else if (stat(dir, &st) != 0) {
        boids_cli_error(prog, flag, path, expected, "cannot be written: directory '%s': %s", dir, strerror(errno));
        rc = 2;
    } else if (!S_ISDIR(st.st_mode)) {
        boids_cli_error(prog, flag, path, expected, "cannot be written: '%s' is not a directory", dir);
        rc = 2;
    } else {
        for (unsigned k = 0; k < 100; k++) {
            snprintf(probe, size, "%s/.boids-probe.%ld.%u", dir, (long)getpid(), k);
            int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
            if (fd >= 0) {
                close(fd);
                unlink(probe);
                break;
            }
            if (errno != EEXIST) { // what the write's temporary would meet (/proc/self, a read-only mount)
                boids_cli_error(prog, flag, path, expected, "cannot be written: no file can be made in '%s': %s", dir,
                                strerror(errno));
                rc = 2;
                break;
            }
        }
    }
    free(probe);
    free(dir);
    free(target);
    return rc;
}

// Do a and b name the same file, by device and inode whatever the names
// (through links, /proc/self/cwd/NAME, /dev/fd/N; for a file not there yet,
// the same name in the same directory)? Character devices, FIFOs, pipes and
// sockets never clash: they take one output after another (/dev/null may
// take every output), nothing is replaced.
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    bool ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    if ((ha && (S_ISCHR(sa.st_mode) || S_ISFIFO(sa.st_mode) || S_ISSOCK(sa.st_mode))) ||
        (hb && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode))))
        return false;
    if (ha && hb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ha != hb)
        return false;
    // Neither exists: the same directory (by inode) and the same last name.
    char *ta = boids_atomic_target(a), *tb = boids_atomic_target(b);
    bool same = false;
    if (ta && tb) {
        const char *na = strrchr(ta, '/'), *nb = strrchr(tb, '/');
        char *da = boids_atomic_dir_of(ta), *db = boids_atomic_dir_of(tb);
        same = da && db && strcmp(na ? na + 1 : ta, nb ? nb + 1 : tb) == 0 && stat(da, &sa) == 0 &&
               stat(db, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
        free(da);
        free(db);
    }
    free(ta);
    free(tb);
    return same;
}

// See cli.h. An output may replace an input that is read whole before the
// run starts (--load, --init, --scenario) when it is written atomically
// after the run (--save, --export-csv, --screenshot): continuing a run in
// place loses nothing. Anything else on one file is refused: two outputs,
// or an input read while an output is written (--replay; --record,
// --profile and --video write as the run goes).
int boids_cli_check_files(const char *prog, const boids_options *o) {
    struct {
        const char *flag, *path;
        bool output, whole; // whole: an input read whole first, or an output written whole after
    } f[] = {
        {"--init", o->init_csv, false, true},         {"--load", o->load, false, true},
        {"--scenario", o->scenario_arg, false, true}, {"--replay", o->replay, false, false},
        {"--export-csv", o->export_csv, true, true},  {"--save", o->save, true, true},
        {"--record", o->record, true, false},         {"--profile", o->profile, true, false},
        {"--screenshot", o->screenshot, true, true},  {"--video", o->video, true, false},
    };
    size_t n = sizeof f / sizeof f[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (!f[i].path || !f[j].path || !(f[i].output || f[j].output) || !same_file(f[i].path, f[j].path))
                continue;
            if (f[i].output != f[j].output && f[i].whole && f[j].whole)
                continue; // read whole before, replaced whole after
            // The output named second is the one refused: the other is what it would destroy.
            const char *flag = f[j].output ? f[j].flag : f[i].flag, *path = f[j].output ? f[j].path : f[i].path;
            const char *other = f[j].output ? f[i].flag : f[j].flag;
            char expected[64];
            snprintf(expected, sizeof expected, "another file than %s's", other);
            boids_cli_error(prog, flag, path, expected, "is also the file of %s (one would be lost)", other);
            return 2;
        }
    return 0;
}
