// src/core/snapshot.c: .boids snapshots (boids/snapshot.h; the byte layout in
// docs/ARCHITECTURE.md, "Snapshots (.boids)"): the file's framing (magic,
// chunks of tag, length, payload and CRC), the header, the agents, their
// slot order and joints, and the scenario's chunks; the parameter chunks are
// snapshot_params.c's. Every value goes through byte helpers in
// little-endian order, never as raw memory. The loader checks each chunk's
// tag, length and CRC before it decodes or allocates anything sized by the
// file.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "bytes.h"
#include "boids/atomic.h"
#include "boids/input.h"
#include "boids/behaviors.h"
#include "boids/snapshot.h"
#include "snapshot_internal.h"

#define LINE_BYTES 24u     // the line target's start (3 f32) and velocity per step (3 f32)
#define HEAD_BYTES 24u     // count, dim, group_count, joint_rows (u32), step (u64)
#define AGENT_BYTES 36u    // pos (4 f32), vel (4 f32), group (u32)
#define ORDER_BYTES 4u     // id of a slot (u32)
#define JOINT_BYTES 16u    // xyz + w (4 f32)
#define CHUNK_OVERHEAD 16u // tag (4), length (8), CRC (4)
// SCEN: target mode, centre, radius, period, vary count (7 words); the varying
// weights (5 words each); the title; per group its name, colour and whether the
// colour was given.
#define SCEN_TITLE_BYTES sizeof(((boids_scenario *)0)->title)
#define SCEN_GROUP_BYTES (BOIDS_SCENARIO_NAME + 4u * 4u + 4u)
#define SCEN_BYTES (7u * 4u + BOIDS_SCENARIO_MAX_VARY * 20u + SCEN_TITLE_BYTES + BOIDS_MAX_GROUPS * SCEN_GROUP_BYTES)
_Static_assert(SCEN_BYTES == 1284, "SCEN: 1284 bytes as docs/ARCHITECTURE.md says");

// The LINE payload (LINE_BYTES) of a line target, and back into sc; a
// problem (NULL when in range: finite, the parser's speeds).
static void encode_line(const boids_scenario *sc, unsigned char *b) {
    for (int a = 0; a < 3; a++) {
        put_f32(b + 4 * a, sc->target_start[a]);
        put_f32(b + 12 + 4 * a, sc->target_velocity[a]);
    }
}

static const char *decode_line(const unsigned char *b, boids_scenario *sc) {
    for (int a = 0; a < 3; a++) {
        sc->target_start[a] = get_f32(b + 4 * a);
        sc->target_velocity[a] = get_f32(b + 12 + 4 * a);
    }
    for (int a = 0; a < 3; a++)
        if (!(fabsf(sc->target_start[a]) <= 2.0f * BOIDS_MAX_EXTENT) ||
            !(fabsf(sc->target_velocity[a]) <= BOIDS_SCENARIO_MAX_TARGET_SPEED))
            return "the line target's start (|x| <= 2e9) or velocity (-1e7..1e7 per step) is not finite or out of "
                   "range";
    return NULL;
}

// GLYP, after SCEN (and LINE): per group its glyph (u32, BOIDS_GLYPH_*) and
// glyph size (f32, 0: the default), written only when a group draws other
// than the default, so a snapshot without is byte for byte what it was.
#define GLYP_BYTES (BOIDS_MAX_GROUPS * 8u)
_Static_assert((int)BOIDS_GLYPH_SIZE_MAX == 16, "decode_glyphs' message says 0..16");

static bool has_glyphs(const boids_scenario *sc) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++)
        if (sc->glyph[g] != BOIDS_GLYPH_DEFAULT || sc->glyph_size[g] != 0.0f)
            return true;
    return false;
}

static void encode_glyphs(const boids_scenario *sc, unsigned char *b) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        put_u32(b + 8 * g, sc->glyph[g]);
        put_f32(b + 8 * g + 4, sc->glyph_size[g]);
    }
}

// Into sc; a problem (NULL when in range: the parser's).
static const char *decode_glyphs(const unsigned char *b, boids_scenario *sc) {
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        sc->glyph[g] = get_u32(b + 8 * g);
        sc->glyph_size[g] = get_f32(b + 8 * g + 4);
        if (sc->glyph[g] >= BOIDS_GLYPH_COUNT)
            return "a group's glyph is not default, arrow, wedge or dot";
        if (!(sc->glyph_size[g] >= 0.0f && sc->glyph_size[g] <= BOIDS_GLYPH_SIZE_MAX))
            return "a group's glyph size is not within 0..16";
    }
    return NULL;
}

// UPDT, after PARM's optional chunks: the update order of the steps
// (boids_sim.update: BOIDS_UPDATE_*), which is no parameter but changes the
// trajectory; written only when it is not parallel (the default), so a
// snapshot of a parallel run is byte for byte what it was.
#define UPDT_BYTES 4u

// The SCEN payload (SCEN_BYTES) of sc: what a host needs besides the params
// to continue the run (the target's motion, the varying weights) and to show
// it (title, group names and colours).
static void encode_scenario(const boids_scenario *sc, unsigned char *b) {
    memset(b, 0, SCEN_BYTES);
    put_u32(b, (uint32_t)sc->target_mode);
    for (int a = 0; a < 3; a++)
        put_f32(b + 4 + 4 * a, sc->target_center[a]);
    put_f32(b + 16, sc->target_radius);
    put_f32(b + 20, sc->target_period);
    put_u32(b + 24, sc->vary_count);
    size_t off = 28;
    for (uint32_t k = 0; k < BOIDS_SCENARIO_MAX_VARY; k++, off += 20) {
        if (k >= sc->vary_count)
            continue;
        const boids_vary *v = &sc->vary[k];
        put_u32(b + off, v->group);
        put_u32(b + off + 4, v->behavior);
        put_f32(b + off + 8, v->lo);
        put_f32(b + off + 12, v->hi);
        put_f32(b + off + 16, v->period);
    }
    memcpy(b + off, sc->title, strnlen(sc->title, SCEN_TITLE_BYTES - 1));
    off += SCEN_TITLE_BYTES;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++, off += SCEN_GROUP_BYTES) {
        memcpy(b + off, sc->group_name[g], strnlen(sc->group_name[g], BOIDS_SCENARIO_NAME - 1));
        for (int a = 0; a < 4; a++)
            put_f32(b + off + BOIDS_SCENARIO_NAME + 4 * a, sc->color[g][a]);
        put_u32(b + off + BOIDS_SCENARIO_NAME + 16, sc->color_set[g] ? 1u : 0u);
    }
}

// sc (the defaults, then the SCEN payload b of a file of `version`) for
// `groups` groups; a problem into why (NULL when every value is in range).
static const char *decode_scenario(const unsigned char *b, uint32_t version, uint32_t groups, boids_scenario *sc) {
    uint32_t mode = get_u32(b);
    if (mode > (version < 3u ? BOIDS_TARGET_CIRCLE : BOIDS_TARGET_LINE))
        return version < 3u ? "the target mode is not fixed, mouse or circle"
                            : "the target mode is not fixed, mouse, circle or line";
    sc->target_mode = (boids_target_mode)mode;
    for (int a = 0; a < 3; a++)
        sc->target_center[a] = get_f32(b + 4 + 4 * a);
    sc->target_radius = get_f32(b + 16);
    sc->target_period = get_f32(b + 20);
    // The ranges of the scenario parser (docs/SCENARIOS.md), so the schedule
    // keeps every parameter finite and inside finalize's ranges.
    if (!all_finite(sc->target_center, 3) ||
        !(sc->target_radius >= 0.0f && sc->target_radius <= BOIDS_SCENARIO_MAX_RADIUS) ||
        !(sc->target_period >= BOIDS_SCENARIO_MIN_PERIOD && sc->target_period <= BOIDS_SCENARIO_MAX_PERIOD))
        return "the target's circle (centre, radius 0..1e7, period 1..1e9 steps) is not finite or out of range";
    sc->vary_count = get_u32(b + 24);
    if (sc->vary_count > BOIDS_SCENARIO_MAX_VARY)
        return "more varying weights than 32";
    size_t off = 28;
    for (uint32_t k = 0; k < BOIDS_SCENARIO_MAX_VARY; k++, off += 20) {
        if (k >= sc->vary_count)
            continue;
        boids_vary *v = &sc->vary[k];
        v->group = get_u32(b + off);
        v->behavior = get_u32(b + off + 4);
        v->lo = get_f32(b + off + 8);
        v->hi = get_f32(b + off + 12);
        v->period = get_f32(b + off + 16);
        if (v->group >= groups || v->behavior >= BOIDS_BEHAVIOR_COUNT || !(fabsf(v->lo) <= BOIDS_MAX_WEIGHT) ||
            !(fabsf(v->hi) <= BOIDS_MAX_WEIGHT) ||
            !(v->period >= BOIDS_SCENARIO_MIN_PERIOD && v->period <= BOIDS_SCENARIO_MAX_PERIOD))
            return "a varying weight names no group or behaviour, or is outside -1e6..1e6, or its period is not "
                   "1..1e9 steps";
    }
    if (!memchr(b + off, '\0', SCEN_TITLE_BYTES))
        return "the title is not terminated";
    memcpy(sc->title, b + off, SCEN_TITLE_BYTES);
    off += SCEN_TITLE_BYTES;
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++, off += SCEN_GROUP_BYTES) {
        if (!memchr(b + off, '\0', BOIDS_SCENARIO_NAME))
            return "a group name is not terminated";
        memcpy(sc->group_name[g], b + off, BOIDS_SCENARIO_NAME);
        for (int a = 0; a < 4; a++) {
            float c = get_f32(b + off + BOIDS_SCENARIO_NAME + 4 * a);
            if (!(c >= 0.0f && c <= 1.0f))
                return "a group colour is outside 0..1";
            sc->color[g][a] = c;
        }
        uint32_t set = get_u32(b + off + BOIDS_SCENARIO_NAME + 16);
        if (set > 1)
            return "a group colour flag is not 0 or 1";
        sc->color_set[g] = set == 1;
    }
    return NULL;
}

// ---- saving ---------------------------------------------------------------

// A chunk being written: the file and the running CRC of tag + payload.
typedef struct writer {
    FILE *f;
    uLong crc;
    bool failed;
} writer;

// Writes raw bytes (no CRC).
static void w_raw(writer *w, const void *data, size_t n) {
    if (!w->failed && n && fwrite(data, 1, n, w->f) != n)
        w->failed = true;
}

// Payload bytes: written and added to the CRC (in pieces zlib's uInt holds).
static void w_payload(writer *w, const unsigned char *data, size_t n) {
    w_raw(w, data, n);
    w->crc = crc_bytes(w->crc, data, n);
}

// Starts a chunk: tag and length; the CRC starts over the tag.
static void w_begin(writer *w, const char tag[4], uint64_t length) {
    unsigned char b[12];
    memcpy(b, tag, 4);
    put_u64(b + 4, length);
    w_raw(w, b, 12);
    w->crc = crc32(0L, b, 4);
}

// Ends a chunk: its CRC.
static void w_end(writer *w) {
    unsigned char b[4];
    put_u32(b, (uint32_t)w->crc);
    w_raw(w, b, 4);
}

// A whole small chunk.
static void w_chunk(writer *w, const char tag[4], const unsigned char *payload, size_t n) {
    w_begin(w, tag, n);
    w_payload(w, payload, n);
    w_end(w);
}

// Is joint row entry i (= row * n + id) part of its agent's body? Rows past
// a body's joints and agents without a body hold no data (written as 0).
static bool joint_used(const boids_sim *s, const uint32_t *slot_of_id, size_t i) {
    uint32_t id = (uint32_t)(i % s->n), row = (uint32_t)(i / s->n);
    const boids_body_params *b = &s->p.body[s->cur.group[slot_of_id[id]]];
    return b->style != BOIDS_BODY_NONE && row < b->joints;
}

// PARM, then each optional parameter chunk whose rows are not their defaults.
static void write_params(writer *w, const boids_params *p) {
    // Per thread: engines save from several at once (an ensemble's jobs).
    static _Thread_local unsigned char parm[PARM_BYTES], chunk[SNAPSHOT_PARAM_CHUNK_MAX_BYTES];
    snapshot_encode_params(p, parm);
    w_chunk(w, "PARM", parm, sizeof parm);
    for (uint32_t k = 0; k < SNAPSHOT_PARAM_CHUNK_COUNT; k++) {
        const snapshot_param_chunk *c = &snapshot_param_chunks[k];
        if (c->present(p)) {
            c->encode(p, chunk);
            w_chunk(w, c->tag, chunk, c->bytes);
        }
    }
}

// Agents per payload block: the AGNT, ORDR and JNTS payloads are streamed,
// never held whole.
enum { BLOCK = 1024 };

// AGNT: the agents in id order.
static void write_agents(writer *w, const boids_sim *s, const uint32_t *slot_of_id) {
    unsigned char block[BLOCK * AGENT_BYTES];
    w_begin(w, "AGNT", (uint64_t)s->n * AGENT_BYTES);
    for (uint32_t id0 = 0; id0 < s->n; id0 += BLOCK) {
        uint32_t k = s->n - id0 < BLOCK ? s->n - id0 : BLOCK;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t i = slot_of_id[id0 + j];
            unsigned char *b = block + (size_t)j * AGENT_BYTES;
            for (int a = 0; a < 4; a++) {
                put_f32(b + 4 * a, s->cur.pos[i][a]);
                put_f32(b + 16 + 4 * a, s->cur.vel[i][a]);
            }
            put_u32(b + 32, s->cur.group[i]);
        }
        w_payload(w, block, (size_t)k * AGENT_BYTES);
    }
    w_end(w);
}

// ORDR: the slot order of cur, the id in each slot.
static void write_order(writer *w, const boids_sim *s) {
    unsigned char block[BLOCK * ORDER_BYTES];
    w_begin(w, "ORDR", (uint64_t)s->n * ORDER_BYTES);
    for (uint32_t i0 = 0; i0 < s->n; i0 += BLOCK) {
        uint32_t k = s->n - i0 < BLOCK ? s->n - i0 : BLOCK;
        for (uint32_t j = 0; j < k; j++)
            put_u32(block + 4 * j, s->cur.id[i0 + j]);
        w_payload(w, block, (size_t)k * ORDER_BYTES);
    }
    w_end(w);
}

// JNTS: the body joints, row by row (0 where a row holds no joint).
static void write_joints(writer *w, const boids_sim *s, const uint32_t *slot_of_id) {
    unsigned char block[BLOCK * JOINT_BYTES];
    size_t total = (size_t)s->joint_rows * s->n;
    w_begin(w, "JNTS", (uint64_t)total * JOINT_BYTES);
    for (size_t i0 = 0; i0 < total; i0 += BLOCK) {
        size_t k = total - i0 < BLOCK ? total - i0 : BLOCK;
        for (size_t j = 0; j < k; j++) {
            bool used = joint_used(s, slot_of_id, i0 + j);
            for (int a = 0; a < 4; a++)
                put_f32(block + j * JOINT_BYTES + 4 * a, used ? s->joints[i0 + j][a] : 0.0f);
        }
        w_payload(w, block, k * JOINT_BYTES);
    }
    w_end(w);
}

// Writes the snapshot body of s (magic to END) to w; slot_of_id: the slot of
// each id; scen: the encoded SCEN payload (SCEN_BYTES), or NULL for none;
// line: the LINE payload (LINE_BYTES) of a line target, or NULL; glyp: the
// GLYP payload (GLYP_BYTES), or NULL.
static void write_snapshot(writer *w, const boids_sim *s, const unsigned char *scen, const unsigned char *line,
                           const unsigned char *glyp, const uint32_t *slot_of_id) {
    unsigned char head[HEAD_BYTES], version[4];
    w_raw(w, BOIDS_SNAPSHOT_MAGIC, BOIDS_SNAPSHOT_MAGIC_SIZE);
    put_u32(version, BOIDS_SNAPSHOT_VERSION);
    w_raw(w, version, 4);

    put_u32(head, s->n);
    put_u32(head + 4, s->p.world.dim);
    put_u32(head + 8, s->p.world.group_count);
    put_u32(head + 12, s->joints ? s->joint_rows : 0u);
    put_u64(head + 16, s->step);
    w_chunk(w, "HEAD", head, sizeof head);

    write_params(w, &s->p);
    if (s->update != BOIDS_UPDATE_PARALLEL) {
        unsigned char update[UPDT_BYTES];
        put_u32(update, (uint32_t)s->update);
        w_chunk(w, "UPDT", update, sizeof update);
    }
    write_agents(w, s, slot_of_id);
    write_order(w, s);
    if (s->joints && s->joint_rows)
        write_joints(w, s, slot_of_id);
    if (scen)
        w_chunk(w, "SCEN", scen, SCEN_BYTES);
    if (scen && line)
        w_chunk(w, "LINE", line, LINE_BYTES);
    if (scen && glyp)
        w_chunk(w, "GLYP", glyp, GLYP_BYTES);
    w_chunk(w, "END ", NULL, 0);
}

// Checks that s holds only finite values and valid ids and groups (what the
// loader would accept); on failure a problem into err.
static boids_result check_saveable(const boids_sim *s, const uint32_t *slot_of_id, const char *path, char *err,
                                   size_t err_size) {
    const char *bad = snapshot_params_nonfinite(&s->p);
    if (bad)
        return fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "not saved: the %s parameters hold a NaN or infinity",
                    bad);
    for (uint32_t i = 0; i < s->n; i++) {
        if (!all_finite(s->cur.pos[i], 4) || !all_finite(s->cur.vel[i], 4))
            return fail(err, err_size, path, BOIDS_ERR_ARGUMENT,
                        "not saved: agent %u has a NaN or infinite position or velocity", s->cur.id[i]);
    }
    if (s->joints)
        for (size_t i = 0; i < (size_t)s->joint_rows * s->n; i++)
            if (joint_used(s, slot_of_id, i) && !all_finite(s->joints[i], 4))
                return fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "not saved: a body joint is NaN or infinite");
    return BOIDS_OK;
}

// What write_snapshot needs, for boids_atomic_write.
typedef struct snapshot_job {
    const boids_sim *s;
    const unsigned char *scen, *line, *glyp;
    const uint32_t *slot_of_id;
} snapshot_job;

// Writes the snapshot of job to f (a boids_atomic_fill).
static bool fill_snapshot(FILE *f, void *ctx) {
    const snapshot_job *job = ctx;
    writer w = {.f = f};
    write_snapshot(&w, job->s, job->scen, job->line, job->glyp, job->slot_of_id);
    return !w.failed;
}

// Saves s to path through a temporary file in the same directory
// (boids_atomic_write: fsync, rename, fsync of the directory).
boids_result boids_snapshot_save(const boids_sim *s, const boids_scenario *sc, const char *path, char *err,
                                 size_t err_size) {
    if (!s || !path || !path[0])
        return fail(err, err_size, path ? path : "(null)", BOIDS_ERR_ARGUMENT, "no simulation or an empty path");
    if (s->n == 0 || s->n > BOIDS_MAX_AGENTS)
        return fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "not saved: %u agents", s->n);
    boids_result r = BOIDS_OK;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return fail(err, err_size, path, BOIDS_ERR_IO, "cannot be written: is a directory");

    uint32_t *slot_of_id = malloc((size_t)s->n * sizeof *slot_of_id);
    if (!slot_of_id)
        return fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory");
    // The slot of each id (each id once), then every value the loader checks.
    memset(slot_of_id, 0xff, (size_t)s->n * sizeof *slot_of_id);
    for (uint32_t i = 0; i < s->n && r == BOIDS_OK; i++) {
        if (s->cur.id[i] >= s->n || slot_of_id[s->cur.id[i]] != UINT32_MAX || s->cur.group[i] >= s->p.world.group_count)
            r = fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "not saved: slot %u has a bad id or group", i);
        else
            slot_of_id[s->cur.id[i]] = i;
    }
    if (r == BOIDS_OK)
        r = check_saveable(s, slot_of_id, path, err, err_size);
    static _Thread_local unsigned char
        scen[SCEN_BYTES]; // per thread; encoded once: checked as the loader will, then written
    unsigned char line[LINE_BYTES], glyp[GLYP_BYTES];
    bool has_line = sc && sc->target_mode == BOIDS_TARGET_LINE, glyphs = sc && has_glyphs(sc);
    if (r == BOIDS_OK && sc) {
        boids_scenario *back = malloc(sizeof *back);
        bool allocated = back != NULL;
        const char *why = "out of memory";
        if (allocated) {
            encode_scenario(sc, scen);
            boids_scenario_default(back);
            why = decode_scenario(scen, BOIDS_SNAPSHOT_VERSION, s->p.world.group_count, back);
            if (!why && has_line) {
                encode_line(sc, line);
                why = decode_line(line, back);
            }
            if (!why && glyphs) {
                encode_glyphs(sc, glyp);
                why = decode_glyphs(glyp, back);
            }
            free(back);
        }
        if (why)
            r = fail(err, err_size, path, allocated ? BOIDS_ERR_ARGUMENT : BOIDS_ERR_NOMEM, "not saved: scenario: %s",
                     why);
    }
    if (r == BOIDS_OK) {
        snapshot_job job = {s, sc ? scen : NULL, has_line ? line : NULL, glyphs ? glyp : NULL, slot_of_id};
        r = boids_atomic_write(path, fill_snapshot, &job);
        if (r == BOIDS_ERR_NOMEM)
            r = fail(err, err_size, path, r, "out of memory");
        else if (r != BOIDS_OK)
            r = fail(err, err_size, path, r, "cannot be written: %s", strerror(errno));
    }
    free(slot_of_id);
    return r;
}

// ---- loading --------------------------------------------------------------

// The file being read: position and size, for bounds checks before reads.
typedef struct reader {
    FILE *f;
    const char *path;
    uint32_t version; // of the file (r_magic)
    uint64_t off, size;
    char *err;
    size_t err_size;
} reader;

// Reads n bytes at the current offset (the caller checked they exist).
static boids_result r_read(reader *rd, void *dst, size_t n) {
    if (n && fread(dst, 1, n, rd->f) != n)
        return fail(rd->err, rd->err_size, rd->path, ferror(rd->f) ? BOIDS_ERR_IO : BOIDS_ERR_FORMAT,
                    ferror(rd->f) ? "read error at byte %llu" : "truncated at byte %llu", (unsigned long long)rd->off);
    rd->off += n;
    return BOIDS_OK;
}

// Reads the chunk `tag` whose payload must be `expected` bytes: tag, length
// and bounds checked before *payload is allocated, then the CRC. *payload is
// malloc'd (NULL for an empty chunk).
static boids_result r_chunk(reader *rd, const char *tag, uint64_t expected, const char *what, unsigned char **payload) {
    *payload = NULL;
    unsigned char h[12];
    if (rd->size - rd->off < 12)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "truncated: the %s chunk's header needs 12 bytes at byte %llu, the file has %llu", tag,
                    (unsigned long long)rd->off, (unsigned long long)rd->size);
    uint64_t at = rd->off;
    boids_result r = r_read(rd, h, 12);
    if (r != BOIDS_OK)
        return r;
    if (memcmp(h, tag, 4) != 0) {
        char found[17];
        tag_text(h, found);
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT, "expected the %s chunk at byte %llu, found '%s'",
                    tag, (unsigned long long)at, found);
    }
    uint64_t len = get_u64(h + 4);
    if (len != expected)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "the %s chunk is %llu bytes long; expected %llu (%s)", tag, (unsigned long long)len,
                    (unsigned long long)expected, what);
    if (len > SIZE_MAX - 1 || rd->size - rd->off < len || rd->size - rd->off - len < 4)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "truncated: the %s chunk at byte %llu needs %llu bytes, the file has %llu", tag,
                    (unsigned long long)at, (unsigned long long)(len + CHUNK_OVERHEAD), (unsigned long long)rd->size);
    unsigned char *b = NULL;
    if (len && !(b = malloc((size_t)len)))
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_NOMEM, "out of memory for the %s chunk (%llu bytes)",
                    tag, (unsigned long long)len);
    unsigned char c[4];
    if ((r = r_read(rd, b, (size_t)len)) != BOIDS_OK || (r = r_read(rd, c, 4)) != BOIDS_OK) {
        free(b);
        return r;
    }
    uLong crc = crc_bytes(crc32(0L, h, 4), b, (size_t)len);
    if ((uint32_t)crc != get_u32(c)) {
        free(b);
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "bad CRC in the %s chunk at byte %llu (stored %08x, computed %08x): the file is damaged", tag,
                    (unsigned long long)at, get_u32(c), (uint32_t)crc);
    }
    *payload = b;
    return BOIDS_OK;
}

// Whether the next chunk's tag is `tag` (the offset stays where it was).
static bool r_next_is(reader *rd, const char *tag) {
    unsigned char t[4];
    if (rd->size - rd->off < 4 || fread(t, 1, 4, rd->f) != 4)
        return false;
    bool is = memcmp(t, tag, 4) == 0;
    return fseeko(rd->f, (off_t)rd->off, SEEK_SET) == 0 && is;
}

// The magic and version: a clear problem for line-ending damage.
static boids_result r_magic(reader *rd) {
    unsigned char m[BOIDS_SNAPSHOT_MAGIC_SIZE + 4];
    if (rd->size < sizeof m)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "truncated or not a boids snapshot: %llu bytes, shorter than the 12-byte magic and version",
                    (unsigned long long)rd->size);
    boids_result r = r_read(rd, m, sizeof m);
    if (r != BOIDS_OK)
        return r;
    if (memcmp(m, BOIDS_SNAPSHOT_MAGIC, BOIDS_SNAPSHOT_MAGIC_SIZE) != 0) {
        if (memcmp(m, "\211BDS", 4) == 0 || memcmp(m + 1, "BDS", 3) == 0)
            return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                        "damaged magic: line endings or the high bit were converted (opened in text mode or "
                        "transferred as text?)");
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "not a boids snapshot (wrong magic; expected 89 42 44 53 0d 0a 1a 0a)");
    }
    uint32_t version = get_u32(m + BOIDS_SNAPSHOT_MAGIC_SIZE);
    if (version > BOIDS_SNAPSHOT_VERSION)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "format version %u is newer than this program reads (%u)", version, BOIDS_SNAPSHOT_VERSION);
    if (version == 0)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT, "format version 0 is not valid");
    rd->version = version;
    return BOIDS_OK;
}

// What the chunks hold, decoded and checked, before the sim is made.
typedef struct loaded {
    uint32_t count, dim, groups, rows;
    uint64_t step;
    boids_params p;
    boids_update update; // UPDT's, else parallel
    boids_scenario sc;   // SCEN decoded over the defaults (has_scen), else the defaults
    bool has_scen;
    float (*pos)[4], (*vel)[4], (*joints)[4];
    uint32_t *group, *order;
} loaded;

// Frees the decoded arrays.
static void loaded_free(loaded *l) {
    free(l->pos);
    free(l->vel);
    free(l->joints);
    free(l->group);
    free(l->order);
}

// HEAD: the count, dimension, groups, joint rows and step, each in range.
static boids_result read_head(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r = r_chunk(rd, "HEAD", HEAD_BYTES, "count, dim, groups, joint rows, step", &b);
    if (r != BOIDS_OK)
        return r;
    l->count = get_u32(b);
    l->dim = get_u32(b + 4);
    l->groups = get_u32(b + 8);
    l->rows = get_u32(b + 12);
    l->step = get_u64(b + 16);
    free(b);
    // 2^53 steps: far beyond any run (a million steps a second for 285 years),
    // exact in a double (JSON, Python) and never near the counter's wrap.
    if (l->step > BOIDS_SNAPSHOT_MAX_STEP)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "step %llu is out of range (0..%llu)", (unsigned long long)l->step,
                    (unsigned long long)BOIDS_SNAPSHOT_MAX_STEP);
    if (l->count < 1 || l->count > BOIDS_MAX_AGENTS)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "agent count %u is out of range (1..%u)", l->count,
                    BOIDS_MAX_AGENTS);
    if (l->dim != 2 && l->dim != 3)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "dimension %u is not 2 or 3", l->dim);
    if (l->groups < 1 || l->groups > BOIDS_MAX_GROUPS)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "group count %u is out of range (1..%u)", l->groups,
                    BOIDS_MAX_GROUPS);
    if (l->rows > BOIDS_MAX_JOINTS)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "%u joint rows per agent is out of range (0..%u)", l->rows,
                    BOIDS_MAX_JOINTS);
    return BOIDS_OK;
}

// PARM, then the optional parameter chunks (version 3 on) over their
// defaults; the params must be finite and match the header.
static boids_result read_params(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r = r_chunk(rd, "PARM", PARM_BYTES, "the parameters of version 1", &b);
    if (r != BOIDS_OK)
        return r;
    snapshot_decode_params(b, &l->p);
    free(b);
    for (uint32_t k = 0; k < SNAPSHOT_PARAM_CHUNK_COUNT; k++) {
        const snapshot_param_chunk *c = &snapshot_param_chunks[k];
        if (c->reset)
            c->reset(&l->p);
        if (rd->version < 3 || !r_next_is(rd, c->tag)) // none before version 3
            continue;
        if ((r = r_chunk(rd, c->tag, c->bytes, c->what, &b)) != BOIDS_OK)
            return r;
        const char *why = c->decode(b, &l->p);
        free(b);
        if (why)
            return fail(err, es, path, BOIDS_ERR_FORMAT, "the %s chunk holds %s", c->tag, why);
    }
    boids_params_ranks(&l->p); // derived, never saved
    const char *bad = snapshot_params_nonfinite(&l->p);
    if (bad)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the %s parameters hold a NaN or infinity", bad);
    if (l->p.world.count != l->count || l->p.world.dim != l->dim || l->p.world.group_count != l->groups)
        return fail(err, es, path, BOIDS_ERR_FORMAT,
                    "the parameters (%u agents, %uD, %u groups) do not match the header (%u agents, %uD, %u groups)",
                    l->p.world.count, l->p.world.dim, l->p.world.group_count, l->count, l->dim, l->groups);
    if (memchr(l->p.flow.image, '\0', FLOW_IMAGE_BYTES) == NULL)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the flow field's image path is not terminated");
    if (boids_params_joint_rows(&l->p) != l->rows)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the bodies need %u joint rows; the header says %u",
                    boids_params_joint_rows(&l->p), l->rows);
    return BOIDS_OK;
}

// UPDT (version 3 on, when the next chunk): the update order; parallel
// without it.
static boids_result read_update(reader *rd, loaded *l) {
    l->update = BOIDS_UPDATE_PARALLEL;
    if (rd->version < 3 || !r_next_is(rd, "UPDT"))
        return BOIDS_OK;
    unsigned char *b = NULL;
    boids_result r = r_chunk(rd, "UPDT", UPDT_BYTES, "a u32: the update order", &b);
    if (r != BOIDS_OK)
        return r;
    uint32_t update = get_u32(b);
    free(b);
    if (update != BOIDS_UPDATE_SEQUENTIAL) // parallel is never written
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT,
                    "the UPDT chunk holds update order %u; expected 1 (sequential)", update);
    l->update = BOIDS_UPDATE_SEQUENTIAL;
    return BOIDS_OK;
}

// AGNT: the agents in id order, each finite, in a group and inside the world.
static boids_result read_agents(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r;
    size_t n = l->count;
    if ((r = r_chunk(rd, "AGNT", (uint64_t)n * AGENT_BYTES, "36 bytes per agent of the header's count", &b)) !=
        BOIDS_OK)
        return r;
    l->pos = malloc(n * sizeof *l->pos);
    l->vel = malloc(n * sizeof *l->vel);
    l->group = malloc(n * sizeof *l->group);
    if (!l->pos || !l->vel || !l->group) {
        free(b);
        return fail(err, es, path, BOIDS_ERR_NOMEM, "out of memory for %zu agents", n);
    }
    for (size_t id = 0; id < n; id++) {
        const unsigned char *a = b + id * AGENT_BYTES;
        for (int k = 0; k < 4; k++) {
            l->pos[id][k] = get_f32(a + 4 * k);
            l->vel[id][k] = get_f32(a + 16 + 4 * k);
        }
        l->group[id] = get_u32(a + 32);
        if (!all_finite(l->pos[id], 4) || !all_finite(l->vel[id], 4)) {
            free(b);
            return fail(err, es, path, BOIDS_ERR_FORMAT, "agent %zu has a NaN or infinite position or velocity", id);
        }
        if (l->group[id] >= l->groups) {
            free(b);
            return fail(err, es, path, BOIDS_ERR_FORMAT, "agent %zu is in group %u; there are %u groups", id,
                        l->group[id], l->groups);
        }
        char why[200];
        if (boids_agent_check(&l->p, (uint32_t)id, l->pos[id], l->vel[id], l->group[id], why, sizeof why)) {
            free(b);
            return fail(err, es, path, BOIDS_ERR_FORMAT, "agent %zu %s", id, why);
        }
    }
    free(b);
    return BOIDS_OK;
}

// ORDR: the id in each slot, each id once.
static boids_result read_order(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r;
    size_t n = l->count;
    if ((r = r_chunk(rd, "ORDR", (uint64_t)n * ORDER_BYTES, "4 bytes per agent of the header's count", &b)) != BOIDS_OK)
        return r;
    l->order = malloc(n * sizeof *l->order);
    unsigned char *seen = calloc(n, 1);
    if (!l->order || !seen) {
        free(b);
        free(seen);
        return fail(err, es, path, BOIDS_ERR_NOMEM, "out of memory for %zu agents", n);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t id = get_u32(b + 4 * i);
        if (id >= n || seen[id]) {
            free(b);
            free(seen);
            return fail(err, es, path, BOIDS_ERR_FORMAT, "slot %zu holds id %u, %s", i, id,
                        id >= n ? "out of range" : "already in another slot");
        }
        seen[id] = 1;
        l->order[i] = id;
    }
    free(b);
    free(seen);
    return BOIDS_OK;
}

// JNTS (when the header has joint rows): the body joints, each finite.
static boids_result read_joints(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r;
    size_t n = l->count;
    size_t total = (size_t)l->rows * n;
    if ((r = r_chunk(rd, "JNTS", (uint64_t)total * JOINT_BYTES, "16 bytes per joint row and agent", &b)) != BOIDS_OK)
        return r;
    if (!(l->joints = malloc(total * sizeof *l->joints))) {
        free(b);
        return fail(err, es, path, BOIDS_ERR_NOMEM, "out of memory for %zu joints", total);
    }
    for (size_t i = 0; i < total; i++) {
        for (int k = 0; k < 4; k++)
            l->joints[i][k] = get_f32(b + i * JOINT_BYTES + 4 * k);
        if (!all_finite(l->joints[i], 4)) {
            free(b);
            return fail(err, es, path, BOIDS_ERR_FORMAT, "joint %zu of agent %zu is NaN or infinite", i / n, i % n);
        }
    }
    free(b);
    return BOIDS_OK;
}

// SCEN (version 2 on) over the scenario's defaults, then a line target's
// LINE and the glyphs' GLYP (version 3 on).
static boids_result read_scenario(reader *rd, loaded *l) {
    const char *path = rd->path;
    char *err = rd->err;
    size_t es = rd->err_size;
    unsigned char *b = NULL;
    boids_result r;
    boids_scenario_default(&l->sc);
    if (rd->version >= 2 && r_next_is(rd, "SCEN")) { // version 1 has none (END is expected)
        if ((r = r_chunk(rd, "SCEN", SCEN_BYTES, "the scenario's target, varying weights, names and colours", &b)) !=
            BOIDS_OK)
            return r;
        const char *why = decode_scenario(b, rd->version, l->groups, &l->sc);
        free(b);
        if (why)
            return fail(err, es, path, BOIDS_ERR_FORMAT, "the SCEN chunk is out of range: %s", why);
        l->has_scen = true;
        if (l->sc.target_mode == BOIDS_TARGET_LINE) { // a line target's start and velocity follow
            if ((r = r_chunk(rd, "LINE", LINE_BYTES, "the line target's start and velocity", &b)) != BOIDS_OK)
                return r;
            why = decode_line(b, &l->sc);
            free(b);
            if (why)
                return fail(err, es, path, BOIDS_ERR_FORMAT, "the LINE chunk is out of range: %s", why);
        }
        if (rd->version >= 3 && r_next_is(rd, "GLYP")) { // the groups' glyphs (none when all are the default)
            if ((r = r_chunk(rd, "GLYP", GLYP_BYTES, "2 words per group: glyph, glyph size", &b)) != BOIDS_OK)
                return r;
            why = decode_glyphs(b, &l->sc);
            free(b);
            if (why)
                return fail(err, es, path, BOIDS_ERR_FORMAT, "the GLYP chunk is out of range: %s", why);
        }
    }
    return BOIDS_OK;
}

// Reads and checks every chunk into l.
static boids_result read_chunks(reader *rd, loaded *l) {
    boids_result r = read_head(rd, l);
    if (r == BOIDS_OK)
        r = read_params(rd, l);
    if (r == BOIDS_OK)
        r = read_update(rd, l);
    if (r == BOIDS_OK)
        r = read_agents(rd, l);
    if (r == BOIDS_OK)
        r = read_order(rd, l);
    if (r == BOIDS_OK && l->rows)
        r = read_joints(rd, l);
    if (r == BOIDS_OK)
        r = read_scenario(rd, l);
    if (r != BOIDS_OK)
        return r;
    unsigned char *b = NULL;
    if ((r = r_chunk(rd, "END ", 0, "an empty end chunk", &b)) != BOIDS_OK)
        return r;
    if (rd->off != rd->size)
        return fail(rd->err, rd->err_size, rd->path, BOIDS_ERR_FORMAT, "%llu unexpected bytes after the END chunk",
                    (unsigned long long)(rd->size - rd->off));
    return BOIDS_OK;
}

// An image flow field's picture, which the snapshot keeps by path and
// content hash (FIMG): when the field is used (a group follows it) or was
// built (the hash), the image at the path must be readable (a regular file,
// a PNG) and, with the hash, the picture the run used; else a problem naming
// the image (BOIDS_ERR_IO: it cannot be read; BOIDS_ERR_FORMAT: it changed).
static boids_result check_image(const loaded *l, const char *path, char *err, size_t es) {
    const boids_flowfield *f = &l->p.flow;
    bool used = false;
    for (uint32_t g = 0; g < l->p.world.group_count; g++)
        used = used || (l->p.group[g].behaviors & BOIDS_BIT(BOIDS_BI_FLOW));
    if (f->kind != BOIDS_FLOW_IMAGE || (!used && !f->image_hash))
        return BOIDS_OK;
    char why[300];
    uint64_t hash = 0;
    if (boids_flowfield_image_hash(f->image, &hash, why, sizeof why) != BOIDS_OK)
        return fail(err, es, path, BOIDS_ERR_IO,
                    "the flow-field image '%s' %s; expected the PNG the run was saved with", f->image, why);
    if (f->image_hash && hash != f->image_hash)
        return fail(err, es, path, BOIDS_ERR_FORMAT,
                    "the flow-field image '%s' is not the picture the run used (its pixels changed since the save: "
                    "hash %016llx, saved %016llx); expected that picture back at that path",
                    f->image, (unsigned long long)hash, (unsigned long long)f->image_hash);
    return BOIDS_OK;
}

// A new simulation from the checked contents l: the saved params (checked by
// finalize), the agents in their saved slots, the joints and the step.
static boids_result make_sim(const loaded *l, const char *path, boids_sim **out, char *err, size_t es) {
    boids_params check = l->p;
    char what[256] = "";
    boids_result r = boids_params_finalize(&check, what, sizeof what);
    if (r != BOIDS_OK)
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the parameters are rejected: %s (%s)", boids_result_str(r), what);
    if (l->has_scen) { // the schedule at the saved step keeps every parameter finite
        boids_params q = l->p;
        boids_scenario_at_step(&l->sc, l->step, &q);
        const char *bad = snapshot_params_nonfinite(&q);
        if (bad)
            return fail(err, es, path, BOIDS_ERR_FORMAT, "the SCEN chunk's schedule makes the %s parameters infinite",
                        bad);
    }
    if ((r = check_image(l, path, err, es)) != BOIDS_OK)
        return r;
    boids_sim *s = NULL;
    if ((r = boids_sim_create(&s, &l->p, BOIDS_DIST_UNIFORM)) != BOIDS_OK)
        return r == BOIDS_ERR_IO ? fail(err, es, path, r, "the flow-field image '%s' cannot be read", l->p.flow.image)
                                 : fail(err, es, path, r == BOIDS_ERR_NOMEM ? BOIDS_ERR_NOMEM : BOIDS_ERR_FORMAT,
                                        "cannot create the simulation: %s", boids_result_str(r));
    // The field built from the image checked above (or, where none was
    // built, the hash checked) is what the next save keeps.
    if (s->p.flow.vec && l->p.flow.image_hash && s->p.flow.image_hash != l->p.flow.image_hash) {
        boids_sim_destroy(s);
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the flow-field image '%s' changed while it was loaded",
                    l->p.flow.image);
    }
    if (!s->p.flow.vec)
        s->p.flow.image_hash = l->p.flow.image_hash;
    s->update = l->update;
    if (s->n != l->count || (s->joints ? s->joint_rows : 0u) != l->rows ||
        memcmp(s->p.world.cells, l->p.world.cells, sizeof s->p.world.cells) != 0) {
        boids_sim_destroy(s);
        return fail(err, es, path, BOIDS_ERR_FORMAT, "the saved grid or bodies do not match the parameters");
    }
    // The saved parameters must be what finalize makes of them (derived
    // values included: a damaged scale could overflow the fixed-point sums).
    const char *differs = memcmp(&s->p.world, &l->p.world, sizeof s->p.world) != 0                   ? "world"
                          : memcmp(s->p.group, l->p.group, sizeof s->p.group) != 0                   ? "group"
                          : memcmp(&s->p.scene, &l->p.scene, sizeof s->p.scene) != 0                 ? "scene"
                          : memcmp(s->p.body, l->p.body, sizeof s->p.body) != 0                      ? "body"
                          : memcmp(s->p.group_share, l->p.group_share, sizeof s->p.group_share) != 0 ? "group share"
                                                                                                     : NULL;
    if (differs) {
        boids_sim_destroy(s);
        return fail(err, es, path, BOIDS_ERR_FORMAT,
                    "the %s parameters are inconsistent (their derived values differ from the saved ones)", differs);
    }
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t id = l->order[i];
        memcpy(s->cur.pos[i], l->pos[id], sizeof(float[4]));
        memcpy(s->cur.vel[i], l->vel[id], sizeof(float[4]));
        s->cur.id[i] = id;
        s->cur.group[i] = l->group[id];
    }
    if (l->rows)
        memcpy(s->joints, l->joints, (size_t)l->rows * s->n * sizeof *s->joints);
    s->step = l->step; // world.step stays as saved (each step sets it from s->step)
    *out = s;
    return BOIDS_OK;
}

// Loads path into a new simulation (and its scenario's host parts into *sc).
boids_result boids_snapshot_load(const char *path, boids_sim **out, boids_scenario *sc, char *err, size_t err_size) {
    if (out)
        *out = NULL;
    if (!path || !out)
        return fail(err, err_size, path ? path : "(null)", BOIDS_ERR_ARGUMENT, "no path or no output");
    if (err && err_size)
        err[0] = '\0';
    char why[256];
    FILE *f = boids_input_open(path, 0, 0, "a snapshot", why, sizeof why);
    if (!f)
        return fail(err, err_size, path, BOIDS_ERR_IO, "%s", why);
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return fail(err, err_size, path, BOIDS_ERR_IO, "cannot be examined: %s", strerror(errno));
    }
    reader rd = {.f = f, .path = path, .size = (uint64_t)st.st_size, .err = err, .err_size = err_size};
    loaded l;
    memset(&l, 0, sizeof l);
    boids_result r = r_magic(&rd);
    if (r == BOIDS_OK)
        r = read_chunks(&rd, &l);
    fclose(f);
    if (r == BOIDS_OK)
        r = make_sim(&l, path, out, err, err_size);
    if (r == BOIDS_OK && sc) {
        *sc = l.sc;
        sc->params = (*out)->p;
        sc->params.flow.vec = NULL; // the sim's own field
        for (uint32_t g = 0; !l.has_scen && g < l.groups; g++)
            snprintf(sc->group_name[g], BOIDS_SCENARIO_NAME, g ? "group%u" : "default", g);
    }
    loaded_free(&l);
    return r;
}
