// src/core/csv.c: CSV snapshots of the agents, in id order.
// Header id,group,px,py,pz,vx,vy,vz (2D files may leave out pz and vz; a
// trailing neighbors column, as written here, is accepted and ignored).
// Floats are written with %.9g, which round-trips every float exactly.
// Writes go to a temporary file in the same directory, renamed over the
// target only when complete, so a snapshot is never left half written.
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/atomic.h"
#include "boids/input.h"
#include "boids/core.h"
#include "boids/parse.h"

enum { COL_ID, COL_GROUP, COL_PX, COL_PY, COL_PZ, COL_VX, COL_VY, COL_VZ, COL_NEIGHBORS, COL_KINDS };

static const char *const col_name[COL_KINDS] = {"id", "group", "px", "py", "pz", "vx", "vy", "vz", "neighbors"};
static const int layout_3d[] = {COL_ID, COL_GROUP, COL_PX, COL_PY, COL_PZ, COL_VX, COL_VY, COL_VZ, COL_NEIGHBORS};
static const int layout_2d[] = {COL_ID, COL_GROUP, COL_PX, COL_PY, COL_VX, COL_VY, COL_NEIGHBORS};
#define HEADER_3D "id,group,px,py,pz,vx,vy,vz"
#define HEADER_2D "id,group,px,py,vx,vy"
#define FIELD_SHOWN_MAX 40 // longer field values are cut in messages

// Rows as read, in file order (ids are checked once all are in).
typedef struct csv_rows {
    uint32_t n, cap;
    uint32_t *id, *group, *line;
    float (*pos)[4], (*vel)[4];
} csv_rows;

// printf into msg (if any).
static void say(char *msg, size_t msg_size, const char *fmt, ...) {
    if (!msg || msg_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
}

// A field for a message: cut to FIELD_SHOWN_MAX, control characters as '?'.
static void field_text(const char *field, char out[FIELD_SHOWN_MAX + 4]) {
    size_t i = 0;
    for (; field[i] && i < FIELD_SHOWN_MAX; i++)
        out[i] = ((unsigned char)field[i] < 0x20 || field[i] == 0x7f) ? '?' : field[i];
    if (field[i])
        out[i++] = '.', out[i++] = '.', out[i++] = '.';
    out[i] = '\0';
}

// Strips spaces and tabs at both ends, in place.
static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

// Splits a line at commas in place; returns the field count (at most max;
// max + 1 means there were more).
// The longest line a CSV snapshot may have (a row of 9 numbers is under
// 200 bytes): a longer one is refused before more is read.
#define CSV_LINE_MAX 4096u

// One line of f, its newline kept, into line (cap + 1 bytes, NUL-terminated
// after at most cap bytes): its length (cap: cut there, the rest unread; a
// NUL byte counts as any other), or -1 at the end with nothing read or on a
// read error (ferror).
static ssize_t read_line(FILE *f, char *line, size_t cap) {
    size_t n = 0;
    int c = EOF;
    flockfile(f); // one lock a line, not a lock a byte (getc)
    while (n < cap && (c = getc_unlocked(f)) != EOF) {
        line[n++] = (char)c;
        if (c == '\n')
            break;
    }
    funlockfile(f);
    line[n] = '\0';
    return n == 0 && c == EOF ? -1 : (ssize_t)n;
}

static uint32_t split_fields(char *line, char **fields, uint32_t max) {
    uint32_t n = 0;
    char *start = line;
    for (;;) {
        char *comma = strchr(start, ',');
        if (n == max)
            return max + 1;
        if (comma)
            *comma = '\0';
        fields[n++] = trim(start);
        if (!comma)
            return n;
        start = comma + 1;
    }
}

// The value parser's problem (boids/parse.h) in the CSV reader's words
// ("'abc' is not a number"); NULL for none.
static const char *csv_problem(const char *problem, bool integer) {
    if (!problem)
        return NULL;
    static const char *const words[][2] = {{"not an integer", "is not an integer"},
                                           {"negative", "is negative"},
                                           {"not a number", "is not a number"},
                                           {"not a decimal number", "is not a decimal number"},
                                           {"not a finite number", "is not a finite number"}};
    if (strcmp(problem, "too large") == 0)
        return integer ? "is out of range" : "is too large for a float";
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(problem, words[i][0]) == 0)
            return words[i][1];
    return integer ? "is not an integer" : "is not a number";
}

// A decimal integer 0..max with nothing after it; NULL or the problem.
static const char *parse_uint(const char *s, uint32_t max, uint32_t *out) {
    uint64_t v = 0;
    const char *problem = csv_problem(boids_parse_uint(s, 0, 0, max, &v), true);
    if (!problem)
        *out = (uint32_t)v;
    return problem;
}

// A finite decimal number that fits a float; NULL or the problem.
static const char *parse_float(const char *s, float *out) {
    return csv_problem(boids_parse_float(s, 0, out), false);
}

// Grows the row arrays to hold at least one more row.
static bool rows_grow(csv_rows *r) {
    if (r->n < r->cap)
        return true;
    uint32_t cap = r->cap ? r->cap * 2 : 1024;
    if (cap > BOIDS_MAX_AGENTS)
        cap = BOIDS_MAX_AGENTS;
    uint32_t *id = realloc(r->id, cap * sizeof(*id));
    if (id)
        r->id = id;
    uint32_t *group = realloc(r->group, cap * sizeof(*group));
    if (group)
        r->group = group;
    uint32_t *line = realloc(r->line, cap * sizeof(*line));
    if (line)
        r->line = line;
    float(*pos)[4] = realloc(r->pos, cap * sizeof(*pos));
    if (pos)
        r->pos = pos;
    float(*vel)[4] = realloc(r->vel, cap * sizeof(*vel));
    if (vel)
        r->vel = vel;
    if (!id || !group || !line || !pos || !vel)
        return false;
    r->cap = cap;
    return true;
}

// Frees the row arrays.
static void rows_free(csv_rows *r) {
    free(r->id);
    free(r->group);
    free(r->line);
    free(r->pos);
    free(r->vel);
    memset(r, 0, sizeof(*r));
}

// Matches a header against the 3D and 2D layouts; returns the column count
// (0 if neither) and the layout in *layout.
static uint32_t match_header(char **fields, uint32_t n, const int **layout) {
    const int *candidates[2] = {layout_3d, layout_2d};
    const uint32_t lengths[2] = {8, 6};
    for (int k = 0; k < 2; k++) {
        uint32_t len = lengths[k];
        if (n != len && n != len + 1)
            continue;
        bool same = true;
        for (uint32_t i = 0; i < n && same; i++)
            same = strcmp(fields[i], col_name[candidates[k][i]]) == 0;
        if (same) {
            *layout = candidates[k];
            return n;
        }
    }
    return 0;
}

// Parses one data row into r (already grown); returns BOIDS_OK or FORMAT with msg.
static boids_result parse_row(char **fields, uint32_t n_fields, const int *layout, uint32_t dim, uint32_t line,
                              csv_rows *r, char *msg, size_t msg_size) {
    uint32_t k = r->n;
    float pos[4] = {0.0f, 0.0f, 0.0f, 0.0f}, vel[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    char group_allowed[48];
    for (uint32_t c = 0; c < n_fields; c++) {
        const char *f = fields[c];
        const char *problem = NULL, *allowed = "a finite number";
        int kind = layout[c];
        uint32_t u = 0;
        float v = 0.0f;
        switch (kind) {
        case COL_ID:
            problem = parse_uint(f, BOIDS_MAX_AGENTS - 1, &r->id[k]);
            allowed = "an integer id 0..N-1";
            break;
        case COL_GROUP:
            problem = parse_uint(f, BOIDS_MAX_GROUPS - 1, &r->group[k]);
            snprintf(group_allowed, sizeof(group_allowed), "a group 0..%u", BOIDS_MAX_GROUPS - 1);
            allowed = group_allowed;
            break;
        case COL_NEIGHBORS:
            problem = parse_uint(f, UINT32_MAX, &u);
            allowed = "an integer >= 0";
            break;
        default:
            problem = parse_float(f, &v);
            if (!problem && dim == 2 && (kind == COL_PZ || kind == COL_VZ) && v != 0.0f) {
                problem = "is not 0 in a 2D run";
                allowed = "0 in 2D (a 3D file needs a 3D run)";
            }
            if (kind <= COL_PZ)
                pos[kind - COL_PX] = v;
            else
                vel[kind - COL_VX] = v;
            break;
        }
        if (problem) {
            char shown[FIELD_SHOWN_MAX + 4];
            field_text(f, shown);
            say(msg, msg_size, "line %u, column %u (%s): '%s' %s (allowed: %s)", line, c + 1, col_name[kind], shown,
                problem, allowed);
            return BOIDS_ERR_FORMAT;
        }
    }
    memcpy(r->pos[k], pos, sizeof(pos));
    memcpy(r->vel[k], vel, sizeof(vel));
    r->line[k] = line;
    r->n++;
    return BOIDS_OK;
}

// Rows (any order) -> arrays indexed by id; every id 0..n-1 exactly once.
static boids_result rows_by_id(const csv_rows *r, float (**pos)[4], float (**vel)[4], uint32_t **group, char *msg,
                               size_t msg_size) {
    uint32_t n = r->n;
    float(*p)[4] = malloc(n * sizeof(*p));
    float(*v)[4] = malloc(n * sizeof(*v));
    uint32_t *g = malloc(n * sizeof(*g));
    uint32_t *first = calloc(n, sizeof(*first)); // line of each id; 0 = not seen
    boids_result res = BOIDS_OK;
    if (!p || !v || !g || !first) {
        say(msg, msg_size, "out of memory for %u agents", n);
        res = BOIDS_ERR_NOMEM;
        goto done;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = r->id[k];
        if (id >= n) {
            say(msg, msg_size, "line %u, column 1 (id): '%u' is out of range (allowed: 0..%u for %u rows)", r->line[k],
                id, n - 1, n);
            res = BOIDS_ERR_FORMAT;
            goto done;
        }
        if (first[id]) {
            say(msg, msg_size, "line %u, column 1 (id): '%u' is a duplicate of line %u (allowed: each id once)",
                r->line[k], id, first[id]);
            res = BOIDS_ERR_FORMAT;
            goto done;
        }
        first[id] = r->line[k];
        memcpy(p[id], r->pos[k], sizeof(p[id]));
        memcpy(v[id], r->vel[k], sizeof(v[id]));
        g[id] = r->group[k];
    }
done:
    free(first);
    if (res != BOIDS_OK) {
        free(p);
        free(v);
        free(g);
        return res;
    }
    *pos = p;
    *vel = v;
    *group = g;
    return BOIDS_OK;
}

// Reads a snapshot (see core.h): arrays in id order, allocated with malloc.
boids_result boids_csv_read(const char *path, uint32_t dim, uint32_t *count, float (**pos)[4], float (**vel)[4],
                            uint32_t **group, char *msg, size_t msg_size) {
    *count = 0;
    *pos = NULL;
    *vel = NULL;
    *group = NULL;
    if (msg && msg_size)
        msg[0] = '\0';
    if (dim != 2 && dim != 3) {
        say(msg, msg_size, "dimension %u (allowed: 2 or 3)", dim);
        return BOIDS_ERR_ARGUMENT;
    }
    char why[256];
    FILE *f = boids_input_open(path, BOIDS_INPUT_PIPES, 0, "a CSV file", why, sizeof why);
    if (!f) {
        say(msg, msg_size, "%s", why);
        return BOIDS_ERR_IO;
    }
    csv_rows rows = {0};
    const int *layout = NULL;
    uint32_t columns = 0, line_no = 0, header_line = 0;
    char *line = malloc(CSV_LINE_MAX + 2);
    if (!line) {
        fclose(f);
        say(msg, msg_size, "out of memory");
        return BOIDS_ERR_NOMEM;
    }
    char *fields[COL_KINDS + 1];
    boids_result res = BOIDS_OK;
    for (;;) {
        errno = 0;
        ssize_t len = read_line(f, line, CSV_LINE_MAX + 1);
        if (len > CSV_LINE_MAX) {
            say(msg, msg_size, "line %u: longer than %u bytes (a row of numbers is far shorter)", line_no + 1,
                CSV_LINE_MAX);
            res = BOIDS_ERR_FORMAT;
            break;
        }
        if (len < 0) {
            if (ferror(f)) {
                bool nomem = errno == ENOMEM;
                say(msg, msg_size, "line %u: %s", line_no + 1, nomem ? "out of memory" : strerror(errno));
                res = nomem ? BOIDS_ERR_NOMEM : BOIDS_ERR_IO;
            }
            break;
        }
        line_no++;
        if (line_no == 0) { // 2^32 lines: cannot be a valid snapshot
            say(msg, msg_size, "more than %u lines", UINT32_MAX);
            res = BOIDS_ERR_FORMAT;
            break;
        }
        if ((size_t)len != strlen(line)) {
            say(msg, msg_size, "line %u: contains a NUL byte (allowed: text)", line_no);
            res = BOIDS_ERR_FORMAT;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        char *text = line;
        if (line_no == 1 && strncmp(text, "\xef\xbb\xbf", 3) == 0) // UTF-8 byte order mark
            text += 3;
        text = trim(text);
        if (!text[0])
            continue; // blank lines are allowed anywhere
        if (!layout) {
            char shown[FIELD_SHOWN_MAX + 4];
            field_text(text, shown);
            uint32_t n = split_fields(text, fields, COL_KINDS);
            columns = n <= COL_KINDS ? match_header(fields, n, &layout) : 0;
            if (!columns) {
                say(msg, msg_size, "line %u: '%s' is not the header (allowed: " HEADER_3D ", or " HEADER_2D " in 2D)",
                    line_no, shown);
                res = BOIDS_ERR_FORMAT;
                break;
            }
            if (dim == 3 && layout == layout_2d) {
                say(msg, msg_size, "line %u: a 2D header in a 3D run (allowed: " HEADER_3D ")", line_no);
                res = BOIDS_ERR_FORMAT;
                break;
            }
            header_line = line_no;
            continue;
        }
        uint32_t n = split_fields(text, fields, columns);
        if (n != columns) {
            char count_text[32];
            if (n > columns)
                snprintf(count_text, sizeof count_text, "more than %u", columns);
            else
                snprintf(count_text, sizeof count_text, "%u", n);
            say(msg, msg_size, "line %u: %s columns (allowed: %u, as in the header on line %u)", line_no, count_text,
                columns, header_line);
            res = BOIDS_ERR_FORMAT;
            break;
        }
        if (rows.n == BOIDS_MAX_AGENTS) {
            say(msg, msg_size, "line %u: more than %u agents (allowed: at most %u rows)", line_no, BOIDS_MAX_AGENTS,
                BOIDS_MAX_AGENTS);
            res = BOIDS_ERR_FORMAT;
            break;
        }
        if (!rows_grow(&rows)) {
            say(msg, msg_size, "line %u: out of memory", line_no);
            res = BOIDS_ERR_NOMEM;
            break;
        }
        res = parse_row(fields, n, layout, dim, line_no, &rows, msg, msg_size);
        if (res != BOIDS_OK)
            break;
    }
    free(line);
    fclose(f);
    if (res == BOIDS_OK && !layout) {
        say(msg, msg_size, "line %u: empty file (allowed: the header " HEADER_3D ", then one row per agent)",
            line_no + 1);
        res = BOIDS_ERR_FORMAT;
    }
    if (res == BOIDS_OK && rows.n == 0) {
        say(msg, msg_size, "line %u: no agents after the header (allowed: at least one row)", line_no + 1);
        res = BOIDS_ERR_FORMAT;
    }
    if (res == BOIDS_OK)
        res = rows_by_id(&rows, pos, vel, group, msg, msg_size);
    if (res == BOIDS_OK)
        *count = rows.n;
    rows_free(&rows);
    return res;
}

// The agents a snapshot is written from: row `id` reads slot[id] of the
// arrays (slot NULL: they are in id order); neighbors NULL writes 0.
typedef struct csv_agents {
    uint32_t n;
    const float (*pos)[4], (*vel)[4];
    const uint32_t *group, *neighbors, *slot;
} csv_agents;

// Writes the agents of ctx (a csv_agents) in id order to f; false on a write
// error. The one definition of the written format.
static bool write_rows(FILE *f, void *ctx) {
    const csv_agents *a = ctx;
    if (fputs(HEADER_3D ",neighbors\n", f) < 0)
        return false;
    for (uint32_t id = 0; id < a->n; id++) {
        uint32_t i = a->slot ? a->slot[id] : id;
        const float *p = a->pos[i], *v = a->vel[i];
        if (fprintf(f, "%u,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%u\n", id, a->group[i], (double)p[0], (double)p[1],
                    (double)p[2], (double)v[0], (double)v[1], (double)v[2], a->neighbors ? a->neighbors[i] : 0u) < 0)
            return false;
    }
    return !ferror(f);
}

// Writes a snapshot of n agents held in id-order arrays to path, atomically
// (boids_atomic_write). errno tells what failed.
boids_result boids_csv_write_agents(const char *path, uint32_t n, const float (*pos)[4], const float (*vel)[4],
                                    const uint32_t *group, const uint32_t *neighbors) {
    csv_agents a = {.n = n, .pos = pos, .vel = vel, .group = group, .neighbors = neighbors};
    return boids_atomic_write(path, write_rows, &a);
}

// Writes a snapshot of s to path, through a temporary file in the same
// directory renamed over path once complete (boids_atomic_write), in the
// format of boids_csv_write_agents (s's slots read in id order). errno
// tells what failed.
boids_result boids_csv_write(const char *path, boids_sim *s) {
    csv_agents a = {.n = s->n,
                    .pos = (const float(*)[4])s->cur.pos,
                    .vel = (const float(*)[4])s->cur.vel,
                    .group = s->cur.group,
                    .neighbors = s->neighbors,
                    .slot = boids_sim_slots_by_id(s)};
    return boids_atomic_write(path, write_rows, &a);
}
