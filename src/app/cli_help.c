/* src/app/cli_help.c: --help and --list-flags of every executable, made
 * from the flag table (cli_flags.c) that the parser reads: a program's
 * usage lines, then each flag it accepts, by section, with its argument,
 * its one-line description and the names its value may be (from the
 * parser's own name tables), then the program's notes and its examples.
 * Every line is wrapped to the terminal's width (80 columns when stdout is
 * not a terminal), a continued line indented under its text. */
#include "cli_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define HELP_WIDTH_PIPE 80 // not a terminal: what a terminal of the usual size shows unbroken
#define HELP_WIDTH_MIN 40  // narrower terminals: wrapped as if 40 wide
#define HELP_WIDTH_MAX 100 // wider ones: lines longer than this read badly
#define HELP_INDENT 24     // where the descriptions start (a third of a narrow width)

const char *const cli_section_titles[CLI_SECTIONS] = {
    [CLI_SEC_RUN] = "Run",
    [CLI_SEC_WORLD] = "World",
    [CLI_SEC_AGENTS] = "Behaviours and neighbourhoods",
    [CLI_SEC_STEERING] = "Steering behaviours' parameters (every group)",
    [CLI_SEC_NAMED] = "Named agents and paths",
    [CLI_SEC_RULES] = "Rule sets (docs/MODELS.md)",
    [CLI_SEC_BODIES] = "Bodies",
    [CLI_SEC_BACKEND] = "Backend",
    [CLI_SEC_OUTPUTS] = "Outputs",
    [CLI_SEC_WINDOW] = "Window",
    [CLI_SEC_OTHER] = "Other",
};

// The description of f in spec's help: the program's own, else the table's.
static const char *help_of(const boids_cli_spec *spec, const cli_flag *f) {
    for (const boids_cli_help *h = spec->help; h && h->text; h++)
        if (f->bit && h->bit == f->bit && (!h->flag || strcmp(h->flag, f->name) == 0))
            return h->text;
    return f->help;
}

// See cli_internal.h: "%N" in the description is the names, else they follow ": a, b or c".
void cli_flag_text(const boids_cli_spec *spec, const cli_flag *f, char *buf, size_t size) {
    char names[1024];
    cli_flag_names(f, NULL, names, sizeof names);
    const char *help = help_of(spec, f);
    const char *at = strstr(help, "%N");
    if (at)
        snprintf(buf, size, "%.*s%s%s", (int)(at - help), help, names, at + 2);
    else if (names[0])
        snprintf(buf, size, "%s: %s", help, names);
    else
        snprintf(buf, size, "%s", help);
}

// The width of the help on out: a terminal's columns (TIOCGWINSZ, else
// $COLUMNS), within HELP_WIDTH_MIN..HELP_WIDTH_MAX; HELP_WIDTH_PIPE when out
// is not a terminal.
static int help_width(FILE *out) {
    int fd = fileno(out);
    if (fd < 0 || !isatty(fd))
        return HELP_WIDTH_PIPE;
    struct winsize ws;
    long cols = 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        cols = ws.ws_col;
    const char *env = getenv("COLUMNS");
    if (cols <= 0 && env && *env)
        cols = strtol(env, NULL, 10);
    if (cols <= 0)
        cols = HELP_WIDTH_PIPE;
    return cols < HELP_WIDTH_MIN ? HELP_WIDTH_MIN : cols > HELP_WIDTH_MAX ? HELP_WIDTH_MAX : (int)cols;
}

// Prints the n characters of text from column `col` on, words wrapped at
// `width`, each further line indented to `indent`; ends the line. A word
// longer than a line stands alone on its line. With groups, a bracketed
// group ("[--steps S]") is one word.
static void wrap(FILE *out, size_t col, const char *text, size_t n, size_t indent, size_t width, bool groups) {
    const char *p = text, *end = text + n;
    while (p < end && *p == ' ')
        p++;
    for (bool first = true; p < end; first = false) {
        size_t word = 0;
        for (int depth = 0; p + word < end && (p[word] != ' ' || depth > 0); word++)
            depth += groups ? (p[word] == '[') - (p[word] == ']') : 0;
        if (!first && col + 1 + word > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, word, out);
        col += word;
        p += word;
        while (p < end && *p == ' ')
            p++;
    }
    fputc('\n', out);
}

// Prints prose (one paragraph or item per line) wrapped at width: a line's
// further lines start under its text, that is after its leading spaces; for
// an item "  KEY   text" (two spaces or more after its first word) under
// its text; for a usage line ("usage: PROG ..." or an indented "PROG ...")
// under the words after the program.
static void reflow(FILE *out, const char *text, size_t width) {
    bool usage = false;
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        size_t lead = strspn(line, " "), indent = lead;
        // The usage lines: the first "usage: ", the indented ones under it.
        usage = line == text ? strncmp(line, "usage: ", 7) == 0 : usage && lead > 0;
        if (lead < n) {
            const char *gap = strstr(line + lead, "  ");
            size_t text_at = 0;
            if (gap && gap < line + n)
                text_at = (size_t)(gap - line) + strspn(gap, " ");
            else if (usage && line[lead] != '[') // after "usage: PROG " or "PROG "
                text_at = lead + (lead ? 0 : 7) + strcspn(line + lead + (lead ? 0 : 7), " \n") + 1;
            if (text_at && text_at < n && text_at <= width / 2)
                indent = text_at;
        }
        if (lead > width / 2)
            indent = lead = 4;
        if (n <= width) {
            fwrite(line, 1, n, out);
            fputc('\n', out);
        } else {
            size_t head = indent > lead ? indent : lead; // the item's key and gap are kept as they are
            fwrite(line, 1, head, out);
            wrap(out, head, line + head, n - head, indent, width, usage);
        }
        line += n;
        if (*line == '\n')
            line++;
    }
}

// One flag's entry: "  --name ARG" and its description with its names.
static void print_flag(const boids_cli_spec *spec, const cli_flag *f, FILE *out, size_t width) {
    char meta[64], text[2048];
    snprintf(meta, sizeof meta, "%s%s", f->metavar ? " " : "", f->metavar ? f->metavar : "");
    cli_flag_text(spec, f, text, sizeof text);
    size_t indent = width / 3 < HELP_INDENT ? width / 3 : HELP_INDENT;
    int col = fprintf(out, "  --%s%s", f->name, meta);
    // A long flag: its description on the next line.
    if (col >= 0 && (size_t)col < indent - 1)
        fprintf(out, "%*s", (int)indent - col, "");
    else
        fprintf(out, "\n%*s", (int)indent, "");
    wrap(out, indent, text, strlen(text), indent, width, false);
}

// See cli.h.
void boids_cli_help_print(const boids_cli_spec *spec, FILE *out, int width) {
    size_t w = (size_t)(width > 0 ? width : help_width(out));
    reflow(out, spec->usage, w);
    for (int s = 0; s < CLI_SECTIONS; s++) {
        size_t k = 0;
        bool heading = false;
        for (const cli_flag *f; (f = cli_section_next(spec, s, &k)); heading = true) {
            if (!heading)
                fprintf(out, "\n%s:\n", cli_section_titles[s]);
            print_flag(spec, f, out, w);
        }
    }
    if (spec->usage_notes)
        reflow(out, spec->usage_notes, w);
    if (spec->usage_more)
        reflow(out, spec->usage_more, w);
    if (spec->examples && spec->examples[0].command) {
        fputs("\nExamples:\n", out);
        for (const boids_cli_example *e = spec->examples; e->command; e++) {
            fprintf(out, "  %s\n      ", e->command); // as written, never broken: it is to be copied
            wrap(out, 6, e->what, strlen(e->what), 6, w, false);
        }
    }
}

// See cli.h: "--NAME name name ..." per accepted flag, as the parser reads
// them: with or without a description (a flag without one is a flag the
// help misses), but the hidden ones of every program (--list-flags,
// --man-page, --bash-completion, --check-args).
void boids_cli_list_flags(const boids_cli_spec *spec, FILE *out) {
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (!cli_flag_accepted(spec, f) || (!f->bit && !cli_flag_shown(f)))
            continue;
        fprintf(out, "--%s", f->name);
        for (size_t i = 0; cli_flag_name(f, i); i++)
            fprintf(out, " %s", cli_flag_name(f, i));
        fputc('\n', out);
    }
}
