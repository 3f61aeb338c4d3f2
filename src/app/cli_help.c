/* src/app/cli_help.c: --help and --list-flags of every executable, made
 * from the flag table (cli_flags.c) that the parser reads: a program's
 * usage lines, then each flag it accepts, by section, with its argument,
 * its one-line description and the names its value may be (from the
 * parser's own name tables), then the program's notes. */
#include "cli_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 100 // the longest line of the flag list
#define HELP_INDENT 24 // where the descriptions start

static const char *const section_titles[CLI_SECTIONS] = {
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

// Does spec accept f? (--help, --version and --list-flags: always.)
static bool accepted(const boids_cli_spec *spec, const cli_flag *f) {
    return !f->bit || (spec->flags & f->bit);
}

// The description of f in spec's help: the program's own, else the table's.
static const char *help_of(const boids_cli_spec *spec, const cli_flag *f) {
    for (const boids_cli_help *h = spec->help; h && h->text; h++)
        if (f->bit && h->bit == f->bit && (!h->flag || strcmp(h->flag, f->name) == 0))
            return h->text;
    return f->help;
}

// Prints text from column `col` on, words wrapped at HELP_WIDTH, each further
// line indented to HELP_INDENT; ends the line.
static void wrap(FILE *out, size_t col, const char *text) {
    const char *p = text + strspn(text, " ");
    for (bool first = true; *p; first = false) {
        size_t word = strcspn(p, " ");
        if (!first && col + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, word, out);
        col += word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

// One flag's entry: "  --name ARG" and its description with its names.
static void print_flag(const boids_cli_spec *spec, const cli_flag *f, FILE *out) {
    char names[1024], meta[64], text[2048];
    cli_flag_names(f, NULL, names, sizeof names);
    snprintf(meta, sizeof meta, "%s%s", f->metavar ? " " : "", f->metavar ? f->metavar : "");
    const char *help = help_of(spec, f);
    const char *at = strstr(help, "%N");
    if (at)
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - help), help, names, at + 2);
    else if (names[0])
        snprintf(text, sizeof text, "%s: %s", help, names);
    else
        snprintf(text, sizeof text, "%s", help);
    int col = fprintf(out, "  --%s%s", f->name, meta);
    // A long flag: its description on the next line.
    if (col < HELP_INDENT - 1)
        fprintf(out, "%*s", HELP_INDENT - col, "");
    else
        fprintf(out, "\n%*s", HELP_INDENT, "");
    wrap(out, HELP_INDENT, text);
}

// See cli.h.
void boids_cli_help_print(const boids_cli_spec *spec, FILE *out) {
    fputs(spec->usage, out);
    for (int s = 0; s < CLI_SECTIONS; s++) {
        bool heading = false;
        for (size_t k = 0; k < cli_flag_count; k++) {
            const cli_flag *f = &cli_flags[k];
            if ((int)f->section != s || !f->help || !accepted(spec, f))
                continue;
            if (!heading)
                fprintf(out, "\n%s:\n", section_titles[s]);
            heading = true;
            print_flag(spec, f, out);
        }
    }
    if (spec->usage_notes)
        fputs(spec->usage_notes, out);
    if (spec->usage_more)
        fputs(spec->usage_more, out);
}

// See cli.h: "--NAME name name ..." per accepted flag, as the parser reads
// them: with or without a description (a flag without one is a flag the
// help misses), but --list-flags itself.
void boids_cli_list_flags(const boids_cli_spec *spec, FILE *out) {
    for (size_t k = 0; k < cli_flag_count; k++) {
        const cli_flag *f = &cli_flags[k];
        if (!accepted(spec, f) || strcmp(f->name, "list-flags") == 0)
            continue;
        fprintf(out, "--%s", f->name);
        for (size_t i = 0; cli_flag_name(f, i); i++)
            fprintf(out, " %s", cli_flag_name(f, i));
        fputc('\n', out);
    }
}
