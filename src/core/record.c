// src/core/record.c: recordings (boids/record.h; the byte layout in
// docs/ARCHITECTURE.md, "Recordings"). Integers and floats go through byte
// helpers in little-endian order (the same ones as snapshot.c). The writer
// appends and flushes one block per frame; the reader checks the header,
// then scans every block (sizes before allocating, CRC, decompressed size,
// finite values) and keeps an index of the frames' offsets.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "bytes.h"
#include "boids/atomic.h"
#include "boids/input.h"
#include "boids/record.h"

#define FIELDS_BYTES 52u // version .. world size
#define ZSTD_LEVEL 3

// ---- byte helpers: src/core/bytes.h ------------------------------------

// The bytes of one frame's raw payload for count agents.
static size_t frame_raw_bytes(uint32_t count, uint32_t components) {
    return (size_t)count * components * 2u * 4u;
}

// ---- writing --------------------------------------------------------------

struct boids_recorder {
    FILE *f;
    bool regular; // a regular file (fsynced at the end); else a pipe, FIFO or device
    char *path;
    uint32_t count, components, frames;
    uint64_t every, last_step;
    unsigned char *raw, *packed; // one frame, raw and compressed
    size_t raw_size, packed_cap;
    ZSTD_CCtx *cctx;
};

// Compresses raw_size bytes of rec->raw and appends them as a block; flushes.
static boids_result write_block(boids_recorder *rec, const char tag[4], uint64_t step, size_t raw_size, char *err,
                                size_t es) {
    size_t c = ZSTD_compressCCtx(rec->cctx, rec->packed, rec->packed_cap, rec->raw, raw_size, ZSTD_LEVEL);
    if (ZSTD_isError(c))
        return fail(err, es, rec->path, BOIDS_ERR_IO, "zstd compression failed: %s", ZSTD_getErrorName(c));
    unsigned char h[BOIDS_RECORD_BLOCK_SIZE];
    memcpy(h, tag, 4);
    put_u64(h + 4, step);
    put_u64(h + 12, raw_size);
    put_u64(h + 20, c);
    uLong crc = crc_bytes(crc32(0L, h, 28), rec->packed, c);
    put_u32(h + 28, (uint32_t)crc);
    if (fwrite(h, 1, sizeof h, rec->f) != sizeof h || fwrite(rec->packed, 1, c, rec->f) != c || fflush(rec->f) != 0)
        return fail(err, es, rec->path, BOIDS_ERR_IO, "cannot be written: %s",
                    errno == EINTR ? "a signal came while it waited for its reader" : strerror(errno));
    return BOIDS_OK;
}

// Frees a recorder's memory and closes its file (no checks).
static void recorder_free(boids_recorder *rec) {
    if (rec->f)
        fclose(rec->f);
    ZSTD_freeCCtx(rec->cctx);
    free(rec->raw);
    free(rec->packed);
    free(rec->path);
    free(rec);
}

// Creates path with the header and the groups of s.
boids_result boids_record_open(const char *path, const boids_sim *s, uint64_t every, boids_recorder **out, char *err,
                               size_t err_size) {
    if (out)
        *out = NULL;
    if (!path || !s || !out)
        return fail(err, err_size, path ? path : "(null)", BOIDS_ERR_ARGUMENT, "no path, simulation or output");
    if (every < 1)
        return fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "the recording stride must be at least 1");
    const boids_world_params *w = &s->p.world;
    if (BOIDS_MAX_GROUPS > 256 || s->n < 1 || s->n > BOIDS_MAX_AGENTS || (w->dim != 2 && w->dim != 3))
        return fail(err, err_size, path, BOIDS_ERR_ARGUMENT, "cannot record %u agents in %uD", s->n, w->dim);
    boids_recorder *rec = calloc(1, sizeof *rec);
    if (!rec)
        return fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory for the recorder");
    rec->count = s->n;
    rec->components = w->dim;
    rec->every = every;
    rec->raw_size = frame_raw_bytes(s->n, w->dim);
    rec->packed_cap = ZSTD_compressBound(rec->raw_size);
    rec->path = malloc(strlen(path) + 1);
    rec->raw = malloc(rec->raw_size);
    rec->packed = malloc(rec->packed_cap);
    rec->cctx = ZSTD_createCCtx();
    if (!rec->path || !rec->raw || !rec->packed || !rec->cctx) {
        recorder_free(rec);
        return fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory for a frame of %u agents", s->n);
    }
    strcpy(rec->path, path);
    // Appended frame by frame, not renamed into place: written through a
    // link, in place on a device; a FIFO with no reader fails at once
    // (O_NONBLOCK: never a hang), a directory, block device or socket is
    // refused. A pipe, FIFO or device is written through boids_atomic_stream
    // (a reader that stalls holds no signal off).
    const char *why = boids_atomic_refusal(path);
    int fd = why ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY, 0666);
    struct stat st;
    rec->regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (rec->regular) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    if (fd < 0 || !(rec->f = rec->regular ? fdopen(fd, "wb") : boids_atomic_stream(fd))) {
        boids_result r = fail(err, err_size, path, BOIDS_ERR_IO, "cannot be created: %s",
                              why              ? why
                              : errno == ENXIO ? "a FIFO with no reader"
                                               : strerror(errno));
        if (fd >= 0)
            close(fd);
        recorder_free(rec);
        return r;
    }
    unsigned char h[BOIDS_RECORD_HEADER_SIZE];
    memcpy(h, BOIDS_RECORD_MAGIC, BOIDS_RECORD_MAGIC_SIZE);
    unsigned char *b = h + BOIDS_RECORD_MAGIC_SIZE;
    put_u32(b, BOIDS_RECORD_VERSION);
    put_u32(b + 4, s->n);
    put_u32(b + 8, w->dim);
    put_u32(b + 12, rec->components);
    put_u32(b + 16, w->group_count);
    put_u64(b + 20, every);
    for (int a = 0; a < 3; a++) {
        put_f32(b + 28 + 4 * a, w->min[a]);
        put_f32(b + 40 + 4 * a, w->size[a]);
    }
    put_u32(b + FIELDS_BYTES, (uint32_t)crc32(0L, h, BOIDS_RECORD_MAGIC_SIZE + FIELDS_BYTES));
    if (fwrite(h, 1, sizeof h, rec->f) != sizeof h) {
        boids_result r = fail(err, err_size, path, BOIDS_ERR_IO, "cannot be written: %s", strerror(errno));
        recorder_free(rec);
        return r;
    }
    for (uint32_t i = 0; i < s->n; i++)
        rec->raw[s->cur.id[i]] = (unsigned char)s->cur.group[i];
    boids_result r = write_block(rec, "GRPS", 0, s->n, err, err_size);
    if (r != BOIDS_OK) {
        recorder_free(rec);
        return r;
    }
    *out = rec;
    return BOIDS_OK;
}

// Appends s as a frame on a multiple of every (the first call always does).
boids_result boids_record_frame(boids_recorder *rec, const boids_sim *s, bool *written, char *err, size_t err_size) {
    if (written)
        *written = false;
    if (!rec || !s)
        return fail(err, err_size, rec ? rec->path : "(null)", BOIDS_ERR_ARGUMENT, "no recorder or simulation");
    if (s->n != rec->count || s->p.world.dim != rec->components)
        return fail(err, err_size, rec->path, BOIDS_ERR_ARGUMENT, "the simulation changed its size");
    if (rec->frames > 0 && (s->step % rec->every != 0 || s->step <= rec->last_step))
        return BOIDS_OK;
    if (rec->frames == UINT32_MAX)
        return fail(err, err_size, rec->path, BOIDS_ERR_ARGUMENT, "too many frames");
    size_t c = rec->components, vel0 = (size_t)rec->count * c * 4u;
    for (uint32_t i = 0; i < s->n; i++) {
        size_t at = (size_t)s->cur.id[i] * c * 4u;
        for (size_t a = 0; a < c; a++) {
            put_f32(rec->raw + at + 4 * a, s->cur.pos[i][a]);
            put_f32(rec->raw + vel0 + at + 4 * a, s->cur.vel[i][a]);
        }
    }
    boids_result r = write_block(rec, "FRAM", s->step, rec->raw_size, err, err_size);
    if (r != BOIDS_OK)
        return r;
    rec->frames++;
    rec->last_step = s->step;
    if (written)
        *written = true;
    return BOIDS_OK;
}

// Frames written so far.
uint32_t boids_record_frames(const boids_recorder *rec) {
    return rec ? rec->frames : 0;
}

// Flushes, fsyncs and closes.
boids_result boids_record_close(boids_recorder *rec, char *err, size_t err_size) {
    if (!rec)
        return BOIDS_OK;
    boids_result r = BOIDS_OK;
    if (fflush(rec->f) != 0 || (rec->regular && fsync(fileno(rec->f)) != 0))
        r = fail(err, err_size, rec->path, BOIDS_ERR_IO, "cannot be flushed: %s",
                 errno == EINTR ? "a signal came while it waited for its reader" : strerror(errno));
    int c = fclose(rec->f);
    rec->f = NULL;
    if (c != 0 && r == BOIDS_OK)
        r = fail(err, err_size, rec->path, BOIDS_ERR_IO, "cannot be closed: %s", strerror(errno));
    recorder_free(rec);
    return r;
}

// ---- reading --------------------------------------------------------------

// Where one frame lies.
typedef struct frame_entry {
    uint64_t offset; // of the compressed bytes
    uint64_t step;
    size_t packed;
} frame_entry;

struct boids_recording {
    FILE *f;
    char *path;
    boids_recording_info info;
    uint32_t *group;
    frame_entry *frames;
    size_t cap;
    unsigned char *raw, *packed;
    size_t raw_size, packed_cap;
    ZSTD_DCtx *dctx;
};

// Reads n bytes at the current offset; a short read is an I/O error.
static boids_result r_read(boids_recording *r, void *b, size_t n, char *err, size_t es) {
    if (n && fread(b, 1, n, r->f) != n)
        return fail(err, es, r->path, BOIDS_ERR_IO, "cannot be read: %s",
                    ferror(r->f) ? strerror(errno) : "unexpected end of file");
    return BOIDS_OK;
}

// The header: magic (line-ending damage named), version, sizes, world.
static boids_result r_header(boids_recording *r, uint64_t size, char *err, size_t es) {
    unsigned char h[BOIDS_RECORD_HEADER_SIZE];
    const char *p = r->path;
    if (size < BOIDS_RECORD_MAGIC_SIZE + 4)
        return fail(err, es, p, BOIDS_ERR_FORMAT,
                    "truncated or not a boids recording: %llu bytes, shorter than the magic and version",
                    (unsigned long long)size);
    boids_result res = r_read(r, h, BOIDS_RECORD_MAGIC_SIZE + 4, err, es);
    if (res != BOIDS_OK)
        return res;
    if (memcmp(h, BOIDS_RECORD_MAGIC, BOIDS_RECORD_MAGIC_SIZE) != 0) {
        if (memcmp(h, "\211BRC", 4) == 0 || memcmp(h + 1, "BRC", 3) == 0)
            return fail(err, es, p, BOIDS_ERR_FORMAT,
                        "damaged magic: line endings or the high bit were converted (opened in text mode or "
                        "transferred as text?)");
        return fail(err, es, p, BOIDS_ERR_FORMAT,
                    "not a boids recording (wrong magic; expected 89 42 52 43 0d 0a 1a 0a)");
    }
    uint32_t version = get_u32(h + BOIDS_RECORD_MAGIC_SIZE);
    if (version > BOIDS_RECORD_VERSION)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "format version %u is newer than this program reads (%u)", version,
                    BOIDS_RECORD_VERSION);
    if (version == 0)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "format version 0 is not valid");
    if (size < BOIDS_RECORD_HEADER_SIZE)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "truncated: %llu bytes, shorter than the %u-byte header",
                    (unsigned long long)size, BOIDS_RECORD_HEADER_SIZE);
    if ((res = r_read(r, h + BOIDS_RECORD_MAGIC_SIZE + 4, BOIDS_RECORD_HEADER_SIZE - BOIDS_RECORD_MAGIC_SIZE - 4, err,
                      es)) != BOIDS_OK)
        return res;
    const unsigned char *b = h + BOIDS_RECORD_MAGIC_SIZE;
    uint32_t crc = (uint32_t)crc32(0L, h, BOIDS_RECORD_MAGIC_SIZE + FIELDS_BYTES);
    if (crc != get_u32(b + FIELDS_BYTES))
        return fail(err, es, p, BOIDS_ERR_FORMAT,
                    "bad CRC in the header (stored %08x, computed %08x): the file is damaged",
                    get_u32(b + FIELDS_BYTES), crc);
    boids_recording_info *in = &r->info;
    in->count = get_u32(b + 4);
    in->dim = get_u32(b + 8);
    in->components = get_u32(b + 12);
    in->group_count = get_u32(b + 16);
    in->every = get_u64(b + 20);
    for (int a = 0; a < 3; a++) {
        in->min[a] = get_f32(b + 28 + 4 * a);
        in->size[a] = get_f32(b + 40 + 4 * a);
    }
    if (in->count < 1 || in->count > BOIDS_MAX_AGENTS)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "agent count %u is out of range (1..%u)", in->count,
                    BOIDS_MAX_AGENTS);
    if (in->dim != 2 && in->dim != 3)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "dimension %u is not 2 or 3", in->dim);
    if (in->components != in->dim)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "%u components per vector in %uD (expected %u)", in->components,
                    in->dim, in->dim);
    if (in->group_count < 1 || in->group_count > BOIDS_MAX_GROUPS)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "group count %u is out of range (1..%u)", in->group_count,
                    BOIDS_MAX_GROUPS);
    if (in->every < 1 || in->every > 1000000000ull)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "recording stride %llu is out of range",
                    (unsigned long long)in->every);
    for (int a = 0; a < 3; a++)
        if (!isfinite(in->min[a]) || !isfinite(in->size[a]) || ((uint32_t)a < in->dim && !(in->size[a] > 0.0f)))
            return fail(err, es, p, BOIDS_ERR_FORMAT, "the world on axis %c (min %g, size %g) is not valid", "xyz"[a],
                        (double)in -> min[a], (double)in -> size[a]);
    return BOIDS_OK;
}

// Reads the block header at the current offset: tag, step, raw size and
// compressed bytes (into r->packed, checked against the CRC). *truncated:
// the file ends inside the block (a note in info, not an error).
static boids_result r_block(boids_recording *r, uint64_t size, const char *tag, size_t raw_expected, uint64_t *step,
                            size_t *packed, bool *truncated, char *err, size_t es) {
    *truncated = false;
    off_t at_o = ftello(r->f);
    uint64_t at = at_o < 0 ? size : (uint64_t)at_o;
    const char *p = r->path;
    boids_recording_info *in = &r->info;
    if (at > size || size - at < BOIDS_RECORD_BLOCK_SIZE) {
        snprintf(in->note, sizeof in->note,
                 "truncated: the file ends inside a %s block header at byte %llu (%llu of %u bytes)", tag,
                 (unsigned long long)at, (unsigned long long)(at > size ? 0 : size - at), BOIDS_RECORD_BLOCK_SIZE);
        *truncated = true;
        return BOIDS_OK;
    }
    unsigned char h[BOIDS_RECORD_BLOCK_SIZE];
    boids_result res = r_read(r, h, sizeof h, err, es);
    if (res != BOIDS_OK)
        return res;
    if (memcmp(h, tag, 4) != 0) {
        char found[17];
        tag_text(h, found);
        return fail(err, es, p, BOIDS_ERR_FORMAT, "expected a %s block at byte %llu, found '%s'", tag,
                    (unsigned long long)at, found);
    }
    uint64_t raw = get_u64(h + 12), comp = get_u64(h + 20);
    if (raw != raw_expected)
        return fail(err, es, p, BOIDS_ERR_FORMAT, "the %s block at byte %llu holds %llu bytes; expected %zu", tag,
                    (unsigned long long)at, (unsigned long long)raw, raw_expected);
    if (comp < 1 || comp > r->packed_cap)
        return fail(err, es, p, BOIDS_ERR_FORMAT,
                    "the %s block at byte %llu has a compressed size of %llu bytes (1..%zu possible)", tag,
                    (unsigned long long)at, (unsigned long long)comp, r->packed_cap);
    if (size - at - BOIDS_RECORD_BLOCK_SIZE < comp) {
        snprintf(in->note, sizeof in->note,
                 "truncated: the %s block at byte %llu needs %llu bytes, the file has %llu after it", tag,
                 (unsigned long long)at, (unsigned long long)comp,
                 (unsigned long long)(size - at - BOIDS_RECORD_BLOCK_SIZE));
        *truncated = true;
        return BOIDS_OK;
    }
    if ((res = r_read(r, r->packed, (size_t)comp, err, es)) != BOIDS_OK)
        return res;
    uint32_t crc = (uint32_t)crc_bytes(crc32(0L, h, 28), r->packed, (size_t)comp);
    if (crc != get_u32(h + 28))
        return fail(err, es, p, BOIDS_ERR_FORMAT,
                    "bad CRC in the %s block at byte %llu (stored %08x, computed %08x): the file is damaged", tag,
                    (unsigned long long)at, get_u32(h + 28), crc);
    *step = get_u64(h + 4);
    *packed = (size_t)comp;
    return BOIDS_OK;
}

// Decompresses r->packed (n bytes) into r->raw: exactly raw bytes, or an error.
static boids_result r_unpack(boids_recording *r, size_t n, size_t raw, const char *what, char *err, size_t es) {
    unsigned long long content = ZSTD_getFrameContentSize(r->packed, n);
    if (content == ZSTD_CONTENTSIZE_ERROR)
        return fail(err, es, r->path, BOIDS_ERR_FORMAT, "%s: not zstd data", what);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != raw)
        return fail(err, es, r->path, BOIDS_ERR_FORMAT, "%s: decompresses to %llu bytes; expected %zu", what, content,
                    raw);
    size_t got = ZSTD_decompressDCtx(r->dctx, r->raw, raw, r->packed, n);
    if (ZSTD_isError(got))
        return fail(err, es, r->path, BOIDS_ERR_FORMAT, "%s: zstd data is damaged: %s", what, ZSTD_getErrorName(got));
    if (got != raw)
        return fail(err, es, r->path, BOIDS_ERR_FORMAT, "%s: decompresses to %zu bytes; expected %zu", what, got, raw);
    return BOIDS_OK;
}

// Checks r->raw as a frame: every value finite.
static boids_result check_frame(boids_recording *r, uint32_t index, uint64_t step, char *err, size_t es) {
    size_t words = r->raw_size / 4u, c = r->info.components;
    for (size_t k = 0; k < words; k++)
        if (!isfinite(get_f32(r->raw + 4 * k))) {
            size_t per = (size_t)r->info.count * c;
            return fail(err, es, r->path, BOIDS_ERR_FORMAT, "frame %u (step %llu): agent %zu has a NaN or infinite %s",
                        index, (unsigned long long)step, (k % per) / c, k < per ? "position" : "velocity");
        }
    return BOIDS_OK;
}

// Opens and checks path.
boids_result boids_recording_open(const char *path, boids_recording **out, char *err, size_t err_size) {
    if (out)
        *out = NULL;
    if (!path || !out)
        return fail(err, err_size, path ? path : "(null)", BOIDS_ERR_ARGUMENT, "no path or no output");
    if (err && err_size)
        err[0] = '\0';
    boids_recording *r = calloc(1, sizeof *r);
    if (!r || !(r->path = malloc(strlen(path) + 1))) {
        free(r);
        return fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory");
    }
    strcpy(r->path, path);
    boids_result res = BOIDS_OK;
    struct stat st;
    char why[256];
    if (!(r->f = boids_input_open(path, 0, 0, "a recording", why, sizeof why))) {
        res = fail(err, err_size, path, BOIDS_ERR_IO, "%s", why);
        goto out;
    }
    if (fstat(fileno(r->f), &st) != 0) {
        res = fail(err, err_size, path, BOIDS_ERR_IO, "cannot be examined: %s", strerror(errno));
        goto out;
    }
    uint64_t size = (uint64_t)st.st_size;
    if ((res = r_header(r, size, err, err_size)) != BOIDS_OK)
        goto out;
    boids_recording_info *in = &r->info;
    r->raw_size = frame_raw_bytes(in->count, in->components);
    r->packed_cap = ZSTD_compressBound(r->raw_size);
    r->raw = malloc(r->raw_size);
    r->packed = malloc(r->packed_cap);
    r->group = malloc((size_t)in->count * sizeof *r->group);
    r->dctx = ZSTD_createDCtx();
    if (!r->raw || !r->packed || !r->group || !r->dctx) {
        res = fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory for frames of %u agents", in->count);
        goto out;
    }
    uint64_t step = 0;
    size_t packed = 0;
    bool truncated = false;
    if ((res = r_block(r, size, "GRPS", in->count, &step, &packed, &truncated, err, err_size)) != BOIDS_OK)
        goto out;
    if (truncated) {
        res = fail(err, err_size, path, BOIDS_ERR_FORMAT, "%s", in->note);
        goto out;
    }
    if ((res = r_unpack(r, packed, in->count, "the groups", err, err_size)) != BOIDS_OK)
        goto out;
    for (uint32_t i = 0; i < in->count; i++) {
        r->group[i] = r->raw[i];
        if (r->group[i] >= in->group_count) {
            res = fail(err, err_size, path, BOIDS_ERR_FORMAT, "agent %u is in group %u; there are %u groups", i,
                       r->group[i], in->group_count);
            goto out;
        }
    }
    in->group = r->group;
    // Scan the frames: each checked whole; the index keeps their offsets.
    for (;;) {
        off_t at = ftello(r->f);
        if (at < 0) {
            res = fail(err, err_size, path, BOIDS_ERR_IO, "cannot be read: %s", strerror(errno));
            goto out;
        }
        if ((uint64_t)at == size)
            break;
        if ((res = r_block(r, size, "FRAM", r->raw_size, &step, &packed, &truncated, err, err_size)) != BOIDS_OK)
            goto out;
        if (truncated) {
            in->truncated = true;
            break;
        }
        char what[64];
        snprintf(what, sizeof what, "frame %u", in->frames);
        if ((res = r_unpack(r, packed, r->raw_size, what, err, err_size)) != BOIDS_OK ||
            (res = check_frame(r, in->frames, step, err, err_size)) != BOIDS_OK)
            goto out;
        if (in->frames > 0 && step <= r->frames[in->frames - 1].step) {
            res = fail(err, err_size, path, BOIDS_ERR_FORMAT, "frame %u is step %llu, not after step %llu", in->frames,
                       (unsigned long long)step, (unsigned long long)r->frames[in->frames - 1].step);
            goto out;
        }
        if (in->frames == UINT32_MAX) {
            res = fail(err, err_size, path, BOIDS_ERR_FORMAT, "too many frames");
            goto out;
        }
        if (in->frames == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 64;
            frame_entry *e = realloc(r->frames, cap * sizeof *e);
            if (!e) {
                res = fail(err, err_size, path, BOIDS_ERR_NOMEM, "out of memory for the frame index");
                goto out;
            }
            r->frames = e;
            r->cap = cap;
        }
        r->frames[in->frames++] =
            (frame_entry){.offset = (uint64_t)at + BOIDS_RECORD_BLOCK_SIZE, .step = step, .packed = packed};
    }
out:
    if (res != BOIDS_OK) {
        boids_recording_close(r);
        return res;
    }
    *out = r;
    return BOIDS_OK;
}

// The header and frame count.
const boids_recording_info *boids_recording_get_info(const boids_recording *r) {
    return r ? &r->info : NULL;
}

// Frame i into pos/vel (id order).
boids_result boids_recording_frame(boids_recording *r, uint32_t i, uint64_t *step, float (*pos)[4], float (*vel)[4],
                                   char *err, size_t err_size) {
    if (!r || i >= r->info.frames)
        return fail(err, err_size, r ? r->path : "(null)", BOIDS_ERR_ARGUMENT, "no frame %u (the recording has %u)", i,
                    r ? r->info.frames : 0u);
    const frame_entry *e = &r->frames[i];
    if (fseeko(r->f, (off_t)e->offset, SEEK_SET) != 0)
        return fail(err, err_size, r->path, BOIDS_ERR_IO, "cannot seek: %s", strerror(errno));
    boids_result res = r_read(r, r->packed, e->packed, err, err_size);
    if (res != BOIDS_OK)
        return res;
    char what[64];
    snprintf(what, sizeof what, "frame %u", i);
    if ((res = r_unpack(r, e->packed, r->raw_size, what, err, err_size)) != BOIDS_OK ||
        (res = check_frame(r, i, e->step, err, err_size)) != BOIDS_OK)
        return res; // the file changed since it was opened
    size_t c = r->info.components, vel0 = (size_t)r->info.count * c * 4u;
    for (uint32_t id = 0; id < r->info.count; id++) {
        size_t at = (size_t)id * c * 4u;
        for (size_t a = 0; a < 4; a++) {
            if (pos)
                pos[id][a] = a < c ? get_f32(r->raw + at + 4 * a) : a < 3 ? r->info.min[a] : 0.0f;
            if (vel)
                vel[id][a] = a < c ? get_f32(r->raw + vel0 + at + 4 * a) : 0.0f;
        }
    }
    if (step)
        *step = e->step;
    return BOIDS_OK;
}

// Closes r.
void boids_recording_close(boids_recording *r) {
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    ZSTD_freeDCtx(r->dctx);
    free(r->raw);
    free(r->packed);
    free(r->group);
    free(r->frames);
    free(r->path);
    free(r);
}
