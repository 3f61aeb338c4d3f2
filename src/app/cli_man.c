/* src/app/cli_man.c: a program's man page (--man-page) and its bash
 * completion (--bash-completion), made from the same spec and flag table
 * as its --help (cli_help.c): the usage lines are the SYNOPSIS, the prose
 * the DESCRIPTION and NOTES, every flag the help shows an entry of OPTIONS
 * and a word of the completion, the names its value may be (the parser's
 * own tables) the completion's words for that flag. The build writes both
 * for each installed program (cmake/gen_doc.cmake). */
#include "cli_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

// The installed programs, for SEE ALSO.
static const char *const programs[] = {"boids", "boids-run", "boids-bench", "boids-validate", "boids-ensemble", NULL};

// Writes the n characters of text as roff text: '-' as the minus sign of
// flags (\-), the backslash as \e, a leading '.' or '\'' made plain.
static void roff(FILE *out, const char *text, size_t n) {
    if (n > 0 && (text[0] == '.' || text[0] == '\''))
        fputs("\\&", out);
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '-')
            fputs("\\-", out);
        else if (text[i] == '\\')
            fputs("\\e", out);
        else
            fputc(text[i], out);
    }
}

// The same for a NUL-terminated string.
static void roffs(FILE *out, const char *text) {
    roff(out, text, strlen(text));
}

// Is `line` one of the usage lines: the first when it begins "usage: ",
// or an indented one under it?
static bool usage_line(const char *line, bool first) {
    return first ? strncmp(line, "usage: ", 7) == 0 : line[0] == ' ';
}

// Does the line begin the exit statuses' paragraph?
static bool exit_line(const char *line) {
    return strncmp(line, "Exit status", 11) == 0;
}

// Prose (one paragraph or "  KEY  text" item per line) as roff paragraphs
// and tagged items; lines of the exit statuses are left out (exits false)
// or the only ones written (exits true).
static void roff_prose(FILE *out, const char *text, bool exits) {
    bool items = false; // within a run of items: no space between them (.PD 0)
    for (const char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        size_t lead = strspn(line, " ");
        if (lead < n && exit_line(line + lead) == exits) {
            const char *gap = lead > 0 ? strstr(line + lead, "  ") : NULL;
            if (gap && gap < line + n) { // an item: its key in bold, its text beside it
                size_t after = (size_t)(gap - line) + strspn(gap, " ");
                fputs(items ? ".TP\n\\fB" : ".PD 0\n.TP 12\n\\fB", out);
                items = true;
                roff(out, line + lead, (size_t)(gap - line) - lead);
                fputs("\\fR\n", out);
                roff(out, line + after, n - after);
            } else {
                fputs(items ? ".PD\n.PP\n" : ".PP\n", out);
                items = false;
                size_t from = lead;
                if (exits) { // under EXIT STATUS: the statuses themselves
                    from += 11;
                    from += strspn(line + from, ": ");
                }
                roff(out, line + from, n - from);
            }
            fputc('\n', out);
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    if (items)
        fputs(".PD\n", out);
}

// The program's name in capitals (the title line's).
static void upper(FILE *out, const char *s) {
    for (; *s; s++)
        if (*s == '-')
            fputs("\\-", out);
        else
            fputc(toupper((unsigned char)*s), out);
}

// SYNOPSIS and DESCRIPTION: the usage lines, then the rest of `usage`.
static void man_usage(const boids_cli_spec *spec, FILE *out) {
    const char *line = spec->usage;
    fputs(".SH SYNOPSIS\n.nf\n", out);
    for (bool first = true; *line && usage_line(line, first); first = false) {
        size_t n = strcspn(line, "\n");
        size_t skip = first ? 7 : strspn(line, " ");
        roff(out, line + skip, n - skip);
        fputc('\n', out);
        line += n + (line[n] == '\n');
    }
    fputs(".fi\n.SH DESCRIPTION\n", out);
    roff_prose(out, line, false);
}

// OPTIONS: every flag the help shows, by the help's sections.
static void man_options(const boids_cli_spec *spec, FILE *out) {
    fputs(".SH OPTIONS\n", out);
    for (int s = 0; s < CLI_SECTIONS; s++) {
        size_t k = 0;
        bool heading = false;
        for (const cli_flag *f; (f = cli_section_next(spec, s, &k)); heading = true) {
            if (!heading)
                fprintf(out, ".SS \"%s\"\n", cli_section_titles[s]);
            fputs(".TP\n\\fB\\-\\-", out);
            roffs(out, f->name);
            fputs("\\fR", out);
            if (f->metavar) {
                fputs(" \\fI", out);
                roffs(out, f->metavar);
                fputs("\\fR", out);
            }
            char text[2048];
            cli_flag_text(spec, f, text, sizeof text);
            fputc('\n', out);
            roffs(out, text);
            fputc('\n', out);
        }
    }
}

// ENVIRONMENT and FILES: the scenarios' folder (programs that take
// --scenario), OpenMP's threads (--threads N), the plans (boids-ensemble).
static void man_environment(const boids_cli_spec *spec, FILE *out) {
    bool scenarios = spec->flags & BOIDS_CLI_SCENARIO, threads = spec->flags & BOIDS_CLI_THREADS;
    bool plans = spec->flags & BOIDS_CLI_OUT; // the viewer draws through its window, not headless EGL:
    bool gpu = (spec->flags & (BOIDS_CLI_BACKEND | BOIDS_CLI_KERNEL)) && !(spec->flags & BOIDS_CLI_WIDTH);
    fputs(".SH ENVIRONMENT\n", out);
    if (scenarios)
        fputs(".TP\n.B BOIDS_SCENARIOS\nThe folder of the shipped scenarios that \\-\\-scenario NAME and "
              "\\-\\-list\\-scenarios read, before the installed one.\n",
              out);
    if (threads)
        fputs(".TP\n.B OMP_NUM_THREADS\nThe OpenMP threads of the CPU backend when \\-\\-threads is 0 or not "
              "given.\n",
              out);
    if (gpu)
        fputs(".TP\n.B BOIDS_EGL_DEVICE\nThe headless EGL device of the GPU backend: software, hardware or an "
              "index (default: a hardware device, else the software one).\n",
              out);
    fputs(".TP\n.B BOIDS_DEBUG\nThe tests' hooks (items separated by ';'); not for ordinary runs.\n", out);
    if (!scenarios && !plans)
        return;
    fputs(".SH FILES\n", out);
    if (scenarios)
        fputs(".TP\n.I PREFIX/share/boids/scenarios/NAME.ini\nThe shipped scenarios (docs/SCENARIOS.md), found "
              "beside the program (bin/../share/boids/scenarios) unless BOIDS_SCENARIOS names another folder; "
              "\\-\\-list\\-scenarios lists them.\n",
              out);
    if (plans)
        fputs(".TP\n.I PREFIX/share/boids/plans/*.ini\nThe shipped ensemble plans (docs/ENSEMBLES.md).\n", out);
}

// See cli.h.
void boids_cli_man_print(const boids_cli_spec *spec, FILE *out) {
    fprintf(out, ".\\\" %s.1: made by '%s --man-page' from its flag table; not edited by hand.\n", spec->prog,
            spec->prog);
    fputs(".TH ", out);
    upper(out, spec->prog);
    // Left-aligned, unhyphenated: flags and names stay whole words.
    fprintf(out, " 1 \"\" \"boids %s\" \"User Commands\"\n.nh\n.ad l\n.SH NAME\n", BOIDS_VERSION);
    roffs(out, spec->prog);
    fputs(" \\- ", out);
    roffs(out, spec->summary ? spec->summary : spec->prog);
    fputc('\n', out);
    man_usage(spec, out);
    man_options(spec, out);
    if ((spec->usage_notes || spec->usage_more)) {
        fputs(".SH NOTES\n", out);
        roff_prose(out, spec->usage_notes, false);
        roff_prose(out, spec->usage_more, false);
    }
    if (spec->examples && spec->examples[0].command) {
        fputs(".SH EXAMPLES\n", out);
        for (const boids_cli_example *e = spec->examples; e->command; e++) {
            fputs(".PP\n", out);
            roffs(out, e->what);
            fputs(":\n.RS 4\n.nf\n\\fB", out);
            roffs(out, e->command);
            fputs("\\fR\n.fi\n.RE\n", out);
        }
    }
    fputs(".SH EXIT STATUS\n", out);
    roff_prose(out, spec->usage, true);
    roff_prose(out, spec->usage_notes, true);
    roff_prose(out, spec->usage_more, true);
    man_environment(spec, out);
    fputs(".SH SEE ALSO\n", out);
    bool comma = false;
    for (size_t i = 0; programs[i]; i++) {
        if (strcmp(programs[i], spec->prog) == 0)
            continue;
        fputs(comma ? ",\n.BR " : ".BR ", out);
        roffs(out, programs[i]);
        fputs(" (1)", out);
        comma = true;
    }
    fputs("\n", out);
}

// The shell word of a completion function's name: _boids_run for boids-run.
static void function_name(FILE *out, const char *prog) {
    fputc('_', out);
    for (; *prog; prog++)
        fputc(isalnum((unsigned char)*prog) ? *prog : '_', out);
}

// How the completion completes a flag's value.
typedef enum value_kind { VALUE_NONE, VALUE_FILE, VALUE_DIR, VALUE_OWN } value_kind;

// The kind of f's value: its own case (names, a comma list of them, the
// scenarios), a file, a folder, or nothing to complete (a number).
static value_kind value_of(const cli_flag *f) {
    if (f->bit == BOIDS_CLI_SCENARIO || cli_flag_name(f, 0))
        return VALUE_OWN;
    if (strstr(f->metavar, "DIR"))
        return VALUE_DIR;
    return strstr(f->metavar, "FILE") ? VALUE_FILE : VALUE_NONE;
}

// The case of a flag of its own: its names (a comma list of them for
// behaviours and weights), or the scenarios (the program's own
// --list-scenarios, so that names resolve as --scenario resolves them) and
// .ini files.
static void completion_case(const cli_flag *f, FILE *out) {
    fprintf(out, "    --%s)\n", f->name);
    if (f->bit == BOIDS_CLI_SCENARIO) {
        fputs("        COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" --list-scenarios 2>/dev/null | "
              "awk 'NR > 1 {print $1}')\" -- \"$cur\") $(compgen -f -X '!*.ini' -- \"$cur\") "
              "$(compgen -d -- \"$cur\"))\n        compopt -o filenames 2>/dev/null\n        return ;;\n",
              out);
        return;
    }
    char names[1024];
    cli_flag_names(f, " ", names, sizeof names);
    if (f->name_at) // a comma list: the name after the last comma (weights: NAME=)
        fprintf(out,
                "        local pre=${cur%%\"${cur##*,}\"}\n"
                "        COMPREPLY=($(compgen %s-W \"%s\" -- \"${cur##*,}\"))\n"
                "        COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
                "        compopt -o nospace 2>/dev/null\n        return ;;\n",
                strchr(f->metavar, '=') ? "-S = " : "", names);
    else
        fprintf(out, "        COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n        return ;;\n", names);
}

// One case for every flag of spec whose value is of `kind`: "    --a|--b)".
static bool completion_group(const boids_cli_spec *spec, value_kind kind, FILE *out) {
    bool any = false;
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (f->metavar && cli_flag_shown(f) && cli_flag_accepted(spec, f) && value_of(f) == kind) {
            fprintf(out, "%s--%s", any ? "|" : "    ", f->name);
            any = true;
        }
    }
    if (any)
        fputs(")\n", out);
    return any;
}

// See cli.h.
void boids_cli_completion_print(const boids_cli_spec *spec, FILE *out) {
    fprintf(out, "# bash completion of %s, made by '%s --bash-completion' from its flag table; not edited by hand.\n",
            spec->prog, spec->prog);
    function_name(out, spec->prog);
    fputs("() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    # --flag=value: bash splits the word at '='\n"
          "    if [[ $cur == = ]]; then\n"
          "        cur=\n"
          "    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n"
          "    COMPREPLY=()\n"
          "    case $prev in\n",
          out);
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (f->metavar && cli_flag_shown(f) && cli_flag_accepted(spec, f) && value_of(f) == VALUE_OWN)
            completion_case(f, out);
    }
    if (completion_group(spec, VALUE_FILE, out))
        fputs("        COMPREPLY=($(compgen -f -- \"$cur\"))\n        compopt -o filenames 2>/dev/null\n"
              "        return ;;\n",
              out);
    if (completion_group(spec, VALUE_DIR, out))
        fputs("        COMPREPLY=($(compgen -d -- \"$cur\"))\n        compopt -o filenames 2>/dev/null\n"
              "        return ;;\n",
              out);
    if (completion_group(spec, VALUE_NONE, out)) // a number or a value of its own form: nothing to offer
        fputs("        return ;;\n", out);
    fputs("    esac\n    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"", out);
    bool space = false;
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (cli_flag_shown(f) && cli_flag_accepted(spec, f)) {
            fprintf(out, "%s--%s", space ? " " : "", f->name);
            space = true;
        }
    }
    fputs("\" -- \"$cur\"))\n", out);
    if (spec->operands) // the operand: a file (a plan: an .ini file)
        fprintf(out,
                "    else\n        COMPREPLY=($(compgen -f %s-- \"$cur\") $(compgen -d -- \"$cur\"))\n"
                "        compopt -o filenames 2>/dev/null\n",
                strstr(spec->operands, ".ini") ? "-X '!*.ini' " : "");
    fputs("    fi\n}\ncomplete -F ", out);
    function_name(out, spec->prog);
    fprintf(out, " %s\n", spec->prog);
}
