// src/core/parse.c: the one value parser (boids/parse.h) of the command line
// and the scenario files. The rules live here once; the wording of the
// messages around each problem phrase is the caller's.
#include "boids/parse.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/core.h"

const char *const boids_parse_boundary_names[] = {"wrap", "walls", "bounce", "margin", NULL};
const char *const boids_parse_distribution_names[] = {"uniform", "clustered", NULL};
const char *const boids_parse_wall_corner_names[] = {"both", "book", NULL};
const char *const boids_parse_grid_fine_names[] = {"1", "2", "3", "4", "auto", NULL};

// See boids/parse.h.
uint32_t boids_parse_grid_fine_word(int k) {
    return k == BOIDS_PARSE_GRID_FINE_AUTO ? BOIDS_GRID_FINE_AUTO : (k >= 1 && k <= 3 ? (uint32_t)k + 1u : 0u);
}

// See boids/parse.h.
const char *boids_parse_grid_fine_text(uint32_t word) {
    if (word & BOIDS_GRID_FINE_AUTO)
        return "auto";
    uint32_t m = word & BOIDS_GRID_FINE_MASK;
    return boids_parse_grid_fine_names[m >= 1 && m <= 4 ? m - 1 : 0];
}
const char *const boids_parse_path_outside_names[] = {"clamp", "end", NULL};
const char *const boids_parse_path_line_names[] = {"segment", "infinite", NULL};
const char *const boids_parse_glyph_names[BOIDS_GLYPH_COUNT + 1] = {"default", "arrow", "wedge", "dot", NULL};
const char *const boids_parse_rules_names[BOIDS_RULES_COUNT + 1] = {"chapter", "tutorial", "heading", "circles",
                                                                    "vicsek",  "couzin",   NULL};
const char *const boids_parse_formation_names[BOIDS_FORMATION_COUNT + 1] = {
    [BOIDS_FORMATION_NONE] = "none", [BOIDS_FORMATION_LINE] = "line", [BOIDS_FORMATION_COLUMN] = "column",
    [BOIDS_FORMATION_V] = "v",       [BOIDS_FORMATION_RING] = "ring", [BOIDS_FORMATION_COUNT] = NULL};

const char *boids_parse_agents(const char *s, uint32_t n, uint32_t ids[2]) {
    char store[256];
    char *pieces[3];
    if (strlen(s) >= sizeof store)
        return "too long";
    uint32_t k = boids_parse_split(s, ",", store, pieces, 3);
    if (k != n)
        return n == 2 ? "not two names" : "not one name";
    for (uint32_t i = 0; i < k; i++) {
        if (boids_parse_pick(pieces[i], BOIDS_PARSE_TRIM, (const char *const[]){"target", NULL}) == 0) {
            ids[i] = BOIDS_ID_TARGET;
            continue;
        }
        uint64_t u;
        const char *p = boids_parse_uint(pieces[i], BOIDS_PARSE_TRIM, 0, BOIDS_MAX_AGENTS - 1, &u);
        if (p)
            return p;
        ids[i] = (uint32_t)u;
    }
    return NULL;
}
const char *const boids_parse_combine_names[] = {"sum", "priority", "truncated", NULL};
const char *const boids_parse_index_names[] = {"grid", "quadtree", "brute", NULL};
const char *const boids_parse_update_names[] = {"parallel", "sequential", NULL};

// The span of s without blanks at either end when TRIM is set; *n its length.
static const char *span(const char *s, unsigned flags, size_t *n) {
    if (flags & BOIDS_PARSE_TRIM)
        while (isspace((unsigned char)*s))
            s++;
    size_t len = strlen(s);
    if (flags & BOIDS_PARSE_TRIM)
        while (len > 0 && isspace((unsigned char)s[len - 1]))
            len--;
    *n = len;
    return s;
}

// Parses an unsigned integer (see parse.h).
const char *boids_parse_uint(const char *s, unsigned flags, uint64_t lo, uint64_t hi, uint64_t *out) {
    size_t n;
    s = span(s, flags, &n);
    if (n == 0 && (flags & BOIDS_PARSE_TRIM))
        return "empty";
    if (n >= 2 && s[0] == '-' && isdigit((unsigned char)s[1])) {
        for (size_t i = 1; i < n; i++)
            if (!isdigit((unsigned char)s[i]))
                return "not an integer";
        return "negative";
    }
    unsigned base = 10;
    size_t i = 0;
    if ((flags & BOIDS_PARSE_HEX) && n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    if (i == n)
        return "not an integer";
    for (size_t k = i; k < n; k++)
        if (base == 16 ? !isxdigit((unsigned char)s[k]) : !isdigit((unsigned char)s[k]))
            return "not an integer";
    uint64_t v = 0;
    bool overflow = false;
    for (; i < n; i++) {
        unsigned d = isdigit((unsigned char)s[i]) ? (unsigned)(s[i] - '0') : (unsigned)(tolower(s[i]) - 'a' + 10);
        if (v > (UINT64_MAX - d) / base)
            overflow = true;
        v = v * base + d;
    }
    if (overflow || v > hi)
        return "too large";
    if (v < lo)
        return "too small";
    *out = v;
    return NULL;
}

// Parses a finite float (see parse.h).
const char *boids_parse_float(const char *s, unsigned flags, float *out) {
    size_t n; // the number is s[0..n), parsed in place: a copy of bounded size cut long values into valid ones
    s = span(s, flags, &n);
    if (n == 0 && (flags & BOIDS_PARSE_TRIM))
        return "empty";
    if (n == 0 || isspace((unsigned char)s[0]))
        return "not a number";
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || end != s + n)
        return "not a number";
    if (memchr(s, 'x', n) || memchr(s, 'X', n))
        return "not a decimal number";
    bool positive = (flags & BOIDS_PARSE_POSITIVE) != 0;
    if (errno == ERANGE && fabs(v) > 1.0)
        return "too large";
    if (errno == ERANGE && positive)
        return "too small";
    if (!isfinite(v))
        return "not a finite number";
    // Too large only when it does not round to FLT_MAX: below FLT_MAX + half
    // its ULP (2^103) it does, so FLT_MAX printed with 8 digits reads back.
    if (fabs(v) >= (double)FLT_MAX + ldexp(1.0, 103))
        return "too large";
    if (positive) {
        if (v < 0.0)
            return "negative";
        if (v == 0.0)
            return "zero";
        if ((float)v < FLT_MIN) // 0 or subnormal (a time step of 1e-40, a field of view of 1e-45 degrees)
            return "too small (below 1.2e-38)";
        if ((flags & BOIDS_PARSE_DEGREES) && v > 360.0)
            return "more than 360";
    }
    *out = (float)v;
    return NULL;
}

// Splits a list into pieces (see parse.h).
uint32_t boids_parse_split(const char *s, const char *separators, char *store, char **pieces, uint32_t max) {
    uint32_t n = 0;
    strcpy(store, s);
    char *start = store;
    for (;;) {
        char *sep = strpbrk(start, separators);
        if (n < max)
            pieces[n] = start;
        n++;
        if (!sep)
            break;
        *sep = '\0';
        start = sep + 1;
    }
    return n;
}

// Does the span s[0..n) equal the string name?
static bool span_is(const char *s, size_t n, const char *name) {
    return strlen(name) == n && strncmp(s, name, n) == 0;
}

// Picks a name from a list (see parse.h).
int boids_parse_pick(const char *s, unsigned flags, const char *const *names) {
    size_t n;
    s = span(s, flags, &n);
    for (int i = 0; names[i]; i++)
        if (span_is(s, n, names[i]))
            return i;
    return -1;
}

// Optimal string alignment distance (see parse.h).
size_t boids_parse_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

// The nearest name for "did you mean" (see parse.h).
const char *boids_parse_nearest(const char *given, const char *const *names, size_t max_distance, bool prefixes) {
    const char *best = NULL;
    size_t best_d = SIZE_MAX, len = strlen(given);
    for (size_t i = 0; names[i]; i++) {
        size_t d = boids_parse_edit_distance(given, names[i]);
        if (prefixes && len >= 2 && strncmp(given, names[i], len) == 0 && d > 1)
            d = 1; // never more than 1, but an exact match stays 0
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best_d <= max_distance ? best : NULL;
}

// See boids/parse.h.
const char *boids_parse_hint(const char *given, const char *const *names, char *buf, size_t size) {
    const char *near = boids_parse_nearest(given, names, strlen(given) <= 4 ? 1 : 2, true);
    if (near)
        snprintf(buf, size, " (did you mean '%s'?)", near);
    else if (size)
        buf[0] = '\0';
    return buf;
}

// See boids/parse.h.
const char *boids_parse_behavior_hint(const char *given, bool sets, char *buf, size_t size) {
    const char *names[BOIDS_BEHAVIOR_COUNT + 4];
    size_t n = 0;
    for (uint32_t i = 0; i < BOIDS_BEHAVIOR_COUNT; i++)
        names[n++] = boids_behavior_name(i);
    if (sets) {
        names[n++] = "flocking";
        names[n++] = "all";
        names[n++] = "none";
    }
    names[n] = NULL;
    return boids_parse_hint(given, names, buf, size);
}

// Parses a behaviour list (see parse.h).
bool boids_parse_behaviors(const char *s, unsigned flags, uint32_t *bits, char *problem, size_t problem_size) {
    size_t n;
    s = span(s, flags, &n);
    if (span_is(s, n, "all")) {
        *bits = (uint32_t)((1ull << BOIDS_BEHAVIOR_COUNT) - 1u);
        return true;
    }
    if (span_is(s, n, "none")) {
        *bits = 0;
        return true;
    }
    uint32_t b = 0;
    const char *end = s + n;
    for (const char *item = s;;) {
        const char *comma = memchr(item, ',', (size_t)(end - item));
        const char *stop = comma ? comma : end;
        char name[BOIDS_PARSE_SHOWN_MAX + 32], text[BOIDS_PARSE_SHOWN_MAX + 8];
        size_t len = (size_t)(stop - item);
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), item);
        size_t name_len;
        const char *trimmed = span(name, flags, &name_len);
        memmove(name, trimmed, name_len);
        name[name_len] = '\0';
        int index = boids_behavior_index(name);
        if (!name[0]) {
            snprintf(problem, problem_size, "has an empty name");
            return false;
        } else if (strcmp(name, "flocking") == 0) {
            b |= BOIDS_B_FLOCKING;
        } else if (strcmp(name, "all") == 0 || strcmp(name, "none") == 0) {
            snprintf(problem, problem_size, "mixes '%s' with other names", name);
            return false;
        } else if (index >= 0 && (uint32_t)index < BOIDS_BEHAVIOR_COUNT) {
            b |= BOIDS_BIT((uint32_t)index);
        } else {
            char hint[96];
            snprintf(problem, problem_size, "names an unknown behaviour '%s'%s",
                     boids_parse_shown(name, text, sizeof text),
                     boids_parse_behavior_hint(name, true, hint, sizeof hint));
            return false;
        }
        if (!comma)
            break;
        item = comma + 1;
    }
    *bits = b;
    return true;
}

// A value escaped and cut as messages show it (see parse.h).
const char *boids_parse_shown(const char *value, char *buf, size_t size) {
    size_t len = 0;
    if (size == 0)
        return buf;
    buf[0] = '\0';
    size_t count = 0;
    for (const unsigned char *c = (const unsigned char *)value; *c && len + 1 < size; c++, count++) {
        char piece[8];
        if (count == BOIDS_PARSE_SHOWN_MAX)
            snprintf(piece, sizeof piece, "...");
        else if (*c == '\n')
            snprintf(piece, sizeof piece, "\\n");
        else if (*c == '\t')
            snprintf(piece, sizeof piece, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            snprintf(piece, sizeof piece, "\\x%02x", *c);
        else
            snprintf(piece, sizeof piece, "%c", *c);
        int written = snprintf(buf + len, size - len, "%s", piece);
        len += (size_t)written;
        if (len >= size)
            len = size - 1;
        if (count == BOIDS_PARSE_SHOWN_MAX)
            break;
    }
    return buf;
}
