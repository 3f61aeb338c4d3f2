/* src/app/cli_format.c: the one-line error messages of the command line
 * (see cli.h): "PROG: FLAG: 'VALUE' PROBLEM; expected ALLOWED". */
#include "cli_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boids/parse.h"

// Appends printf output to buf at *len, never past size (keeps it terminated).
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) BOIDS_CLI_PRINTF(4, 5);
// Appends printf output to buf at *len, never past size (keeps it terminated).
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
    if (*len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *len += (size_t)n;
    if (*len >= size)
        *len = size - 1;
}

// Shared body of boids_cli_format, boids_cli_error and cli_bad.
static void format_line(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                        const char *expected, const char *problem_fmt, va_list ap) {
    size_t len = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    append(buf, size, &len, "%s: ", prog ? prog : "boids");
    if (flag)
        append(buf, size, &len, "%s: ", flag);
    if (value) {
        char text[BOIDS_PARSE_SHOWN_MAX * 4 + 8];
        append(buf, size, &len, "'%s' ", boids_parse_shown(value, text, sizeof text));
    }
    if (len + 1 < size) {
        int n = vsnprintf(buf + len, size - len, problem_fmt, ap);
        if (n > 0)
            len = len + (size_t)n < size ? len + (size_t)n : size - 1;
    }
    if (expected)
        append(buf, size, &len, "; expected %s", expected);
    // A problem text built from file content must not break the line either.
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

// Formats the one-line error message (see cli.h).
void boids_cli_format(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                      const char *expected, const char *problem_fmt, ...) {
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, size, prog, flag, value, expected, problem_fmt, ap);
    va_end(ap);
}

// Formats a library description as the one-line message (see cli.h).
void boids_cli_format_described(char *buf, size_t size, const char *prog, const char *flag, const char *value,
                                const char *default_expected, const char *description) {
    static const char marker[] = " (allowed: ";
    char body[512];
    snprintf(body, sizeof body, "%s", description);
    const char *expected = default_expected;
    char *open = strstr(body, marker);
    size_t n = strlen(body);
    if (open && n > 0 && body[n - 1] == ')') {
        body[n - 1] = '\0';
        *open = '\0';
        expected = open + strlen(marker);
    }
    boids_cli_format(buf, size, prog, flag, value, expected, "%s", body);
}

// Prints the one-line error message on stderr (see cli.h).
void boids_cli_error(const char *prog, const char *flag, const char *value, const char *expected,
                     const char *problem_fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, sizeof buf, prog, flag, value, expected, problem_fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
}

// Reports a problem with the flag and value at hand (see cli_internal.h).
int cli_bad(const parse_ctx *c, const char *expected, const char *problem_fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, problem_fmt);
    format_line(buf, sizeof buf, c->spec->prog, c->flag, c->value, expected, problem_fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
    return 2;
}
