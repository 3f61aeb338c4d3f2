// src/gpu/asm_stats.c: boids_gpu_asm_parse (boids/program_stats.h), the
// figures of NVIDIA's assembly text inside a program binary. Pure C over the
// bytes, no GL, so the core tests feed it text of their own.
//
// The text is NV_gpu_program5's: statements end with ';', '#' starts a
// comment to the end of the line, a declaration of temporaries is
// "[MODIFIER ...] TEMP name, name, ..., array[size];" (MODIFIER: LONG, INT,
// SHORT, ... in capitals), arrays of temporaries live in local memory.
#include <stdlib.h>
#include <string.h>

#include "boids/program_stats.h"

#define ASM_MAGIC "!!NVcp"

// A word of the text: where it starts and how long it is.
typedef struct span {
    const char *p;
    size_t n;
} span;

// Whether c may be part of a name (letters, digits, '_').
static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether c is white space (isspace without the locale).
static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Orders spans by their bytes (qsort), for counting distinct names.
static int span_cmp(const void *a, const void *b) {
    const span *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

// The first "!!NVcp" in b[0..n), or NULL (memmem is not POSIX).
static const char *find_magic(const char *b, size_t n) {
    size_t m = sizeof ASM_MAGIC - 1;
    for (size_t i = 0; i + m <= n; i++)
        if (b[i] == '!' && memcmp(b + i, ASM_MAGIC, m) == 0)
            return b + i;
    return NULL;
}

// The statements of t[0..n) (comments already blanked): fn(statement,
// user) for each, split at ';' (a statement may span lines).
static void each_statement(const char *t, size_t n, void (*fn)(span s, void *user), void *user) {
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || t[i] == ';') {
            if (i > start)
                fn((span){t + start, i - start}, user);
            start = i + 1;
        }
}

// What the statements tell, gathered over two passes (declarations, then uses).
typedef struct gather {
    boids_asm_stats *out;
    span *names; // every non-array TEMP name, repeats included (grown by add_name)
    size_t n_names, cap_names;
    bool nomem;
    span arrays[64]; // the arrays' names, for counting their uses (more than 64: the first 64)
    size_t n_arrays;
    bool uses_pass;
} gather;

// Skips spaces in s from i.
static size_t skip_space(span s, size_t i) {
    while (i < s.n && is_space(s.p[i]))
        i++;
    return i;
}

// Whether statement s is a TEMP declaration; *list: where its names begin.
static bool temp_declaration(span s, size_t *list) {
    size_t i = skip_space(s, 0);
    for (;;) {
        size_t w = i;
        while (i < s.n && s.p[i] >= 'A' && s.p[i] <= 'Z')
            i++;
        if (i == w || (i < s.n && !is_space(s.p[i]))) // not a word of capitals alone (an instruction, a label)
            return false;
        if (i - w == 4 && memcmp(s.p + w, "TEMP", 4) == 0) {
            *list = i;
            return true;
        }
        i = skip_space(s, i); // a modifier (LONG, INT, ...): the next word
    }
}

// Adds name to the list of TEMP names (growing it).
static void add_name(gather *g, span name) {
    if (g->n_names == g->cap_names) {
        size_t cap = g->cap_names ? 2 * g->cap_names : 64;
        span *p = realloc(g->names, cap * sizeof *p);
        if (!p) {
            g->nomem = true;
            return;
        }
        g->names = p;
        g->cap_names = cap;
    }
    g->names[g->n_names++] = name;
}

// The names of a TEMP declaration's list from i: temporaries and arrays.
static void declaration(gather *g, span s, size_t i) {
    boids_asm_stats *o = g->out;
    while (i < s.n) {
        i = skip_space(s, i);
        size_t w = i;
        while (i < s.n && is_word_char(s.p[i]))
            i++;
        span name = {s.p + w, i - w};
        i = skip_space(s, i);
        if (name.n && i < s.n && s.p[i] == '[') { // an array: local memory
            uint64_t size = 0;
            for (i = skip_space(s, i + 1); i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++)
                if (size < UINT32_MAX) // (a longer number: UINT32_MAX)
                    size = size * 10 + (uint64_t)(s.p[i] - '0');
            while (i < s.n && s.p[i] != ']' && s.p[i] != ',')
                i++;
            if (i < s.n && s.p[i] == ']')
                i++;
            if (o->arrays < BOIDS_ASM_LMEM_MAX) {
                boids_asm_array *a = &o->array[o->arrays];
                size_t k = name.n < BOIDS_ASM_NAME_MAX - 1 ? name.n : BOIDS_ASM_NAME_MAX - 1;
                memcpy(a->name, name.p, k);
                a->name[k] = '\0';
                a->size = size < UINT32_MAX ? (uint32_t)size : UINT32_MAX;
            }
            if (g->n_arrays < sizeof g->arrays / sizeof g->arrays[0])
                g->arrays[g->n_arrays++] = name;
            o->arrays++;
        } else if (name.n) {
            add_name(g, name);
        }
        while (i < s.n && s.p[i] != ',') // anything else up to the next name
            i++;
        i++;
    }
}

// The arrays' names as words in statement s (not a declaration).
static uint32_t array_uses(const gather *g, span s) {
    uint32_t uses = 0;
    for (size_t i = 0; i < s.n;) {
        if (!is_word_char(s.p[i])) {
            i++;
            continue;
        }
        size_t w = i;
        while (i < s.n && is_word_char(s.p[i]))
            i++;
        span word = {s.p + w, i - w};
        for (size_t a = 0; a < g->n_arrays; a++)
            if (span_cmp(&word, &g->arrays[a]) == 0) {
                uses++;
                break;
            }
    }
    return uses;
}

// One statement, in the pass at hand.
static void statement(span s, void *user) {
    gather *g = user;
    size_t list = 0;
    bool decl = temp_declaration(s, &list);
    if (!g->uses_pass && decl)
        declaration(g, s, list);
    else if (g->uses_pass && !decl)
        g->out->array_uses += array_uses(g, s);
}

// See boids/program_stats.h.
boids_result boids_gpu_asm_parse(const void *binary, size_t bytes, boids_asm_stats *out) {
    memset(out, 0, sizeof *out);
    const char *b = binary, *t = binary ? find_magic(b, bytes) : NULL;
    if (!t)
        return BOIDS_OK;
    const char *nul = memchr(t, '\0', bytes - (size_t)(t - b));
    size_t n = nul ? (size_t)(nul - t) : bytes - (size_t)(t - b);
    out->found = true;
    size_t p = 0;
    while (p < n && !is_space(t[p]) && p < sizeof out->profile - 1)
        p++;
    memcpy(out->profile, t, p);
    while (p < n && !is_space(t[p])) // the rest of a longer first word
        p++;
    for (size_t i = 0; i < n; i++)
        out->lines += t[i] == '\n';
    if (n && t[n - 1] != '\n')
        out->lines++;
    // The statements from after the first word, comments ('#' to the end
    // of the line) blanked; the names point into this copy.
    size_t m = n - p;
    char *text = malloc(m + 1);
    gather g = {.out = out, .nomem = !text};
    if (text) {
        memcpy(text, t + p, m);
        for (size_t i = 0; i < m; i++)
            if (text[i] == '#')
                for (; i < m && text[i] != '\n'; i++)
                    text[i] = ' ';
        each_statement(text, m, statement, &g);
        g.uses_pass = true;
        if (g.n_arrays)
            each_statement(text, m, statement, &g);
    }
    if (!g.nomem && g.n_names) {
        qsort(g.names, g.n_names, sizeof *g.names, span_cmp);
        out->temps = 1;
        for (size_t i = 1; i < g.n_names; i++)
            out->temps += span_cmp(&g.names[i - 1], &g.names[i]) != 0;
    }
    free(g.names);
    free(text);
    if (g.nomem) {
        memset(out, 0, sizeof *out);
        return BOIDS_ERR_NOMEM;
    }
    return BOIDS_OK;
}
