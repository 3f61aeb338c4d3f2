// tests/test_snapshot.c: .boids snapshots (boids/snapshot.h). Through the
// library: every field round-trips, a resumed run continues bit for bit as
// the uninterrupted one (2D and 3D, bodies, several groups), and every kind
// of damaged file gives its message and BOIDS_ERR_* without a crash. Through
// boids-run: --save / --load resume, a bad --load exits 2 with one line, a
// failed save leaves the old file, and SIGINT / SIGTERM exit 130 / 143 with a
// loadable snapshot.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "boids/atomic.h"
#include "boids/scenario.h"
#include "boids/snapshot.h"
#include "png_grey.h"
#include "spawn.h"

#define GOOD TMP "/snap_good.boids"

extern char **environ;

// Parameters of `n` agents in `dim` dimensions with three groups (shares
// 2:1:1), a snake body on group 0, a fish on group 1, none on group 2,
// obstacles and wander: everything a snapshot must carry.
static void rich_params(boids_params *p, uint32_t n, uint32_t dim) {
    boids_params_default(p, n, dim);
    p->world.group_count = 3;
    p->world.seed_lo = 0x1234567u;
    p->world.seed_hi = 0x89u;
    p->group_share[0] = 2.0f;
    p->group_share[1] = 1.0f;
    p->group_share[2] = 1.0f;
    p->group[1].maxspeed = 4.0f;
    p->group[1].behaviors |= BOIDS_BIT(BOIDS_BI_WANDER);
    p->group[2].behaviors |= BOIDS_BIT(BOIDS_BI_OBSTACLES);
    p->group[2].relations = BOIDS_REL_FLEE << (2 * 1);
    p->scene.obstacle_count = 2;
    for (uint32_t k = 0; k < 2; k++) {
        for (uint32_t a = 0; a < dim; a++)
            p->scene.obstacle[k][a] = p->world.min[a] + p->world.size[a] * (0.3f + 0.4f * (float)k);
        p->scene.obstacle[k][3] = 20.0f;
    }
    ck_assert_int_eq(boids_body_make(&p->body[0], BOIDS_BODY_SNAKE, 8, 20.0f, NULL, 0), BOIDS_OK);
    ck_assert_int_eq(boids_body_make(&p->body[1], BOIDS_BODY_FISH, 12, 25.0f, NULL, 0), BOIDS_OK);
    char what[256] = "";
    boids_result r = boids_params_finalize(p, what, sizeof what);
    ck_assert_msg(r == BOIDS_OK, "finalize: %s (%s)", boids_result_str(r), what);
}

// A simulation of rich_params after `steps` steps.
static boids_sim *rich_sim(uint32_t n, uint32_t dim, uint32_t steps) {
    boids_params p;
    rich_params(&p, n, dim);
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
    for (uint32_t i = 0; i < steps; i++)
        boids_sim_step(s);
    return s;
}

// Saves s to path; fails the test on error.
static void save_ok(const boids_sim *s, const char *path) {
    char err[512] = "";
    boids_result r = boids_snapshot_save(s, NULL, path, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "save: %s", err);
}

// Loads path; fails the test on error.
static boids_sim *load_ok(const char *path) {
    char err[512] = "";
    boids_sim *s = NULL;
    boids_result r = boids_snapshot_load(path, &s, NULL, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "load: %s", err);
    ck_assert_ptr_nonnull(s);
    return s;
}

// The joints of the bodies of a and b are equal (rows past a body's joints
// hold no data).
static void assert_same_joints(boids_sim *a, boids_sim *b) {
    ck_assert_uint_eq(a->joint_rows, b->joint_rows);
    ck_assert(a->joints && b->joints);
    const uint32_t *slot = boids_sim_slots_by_id(a);
    for (uint32_t id = 0; id < a->n; id++) {
        const boids_body_params *body = &a->p.body[a->cur.group[slot[id]]];
        uint32_t rows = body->style == BOIDS_BODY_NONE ? 0 : body->joints;
        for (uint32_t j = 0; j < rows; j++)
            ck_assert_msg(memcmp(a->joints[(size_t)j * a->n + id], b->joints[(size_t)j * a->n + id], 16) == 0,
                          "joint %u of agent %u differs", j, id);
    }
}

// Every field of the state that a snapshot carries is equal.
static void assert_same_state(boids_sim *a, boids_sim *b) {
    ck_assert_uint_eq(a->n, b->n);
    ck_assert_uint_eq(a->step, b->step);
    ck_assert_int_eq(memcmp(&a->p.world, &b->p.world, sizeof a->p.world), 0);
    ck_assert_int_eq(memcmp(a->p.group, b->p.group, sizeof a->p.group), 0);
    ck_assert_int_eq(memcmp(&a->p.scene, &b->p.scene, sizeof a->p.scene), 0);
    ck_assert_int_eq(memcmp(a->p.body, b->p.body, sizeof a->p.body), 0);
    ck_assert_int_eq(memcmp(a->p.group_share, b->p.group_share, sizeof a->p.group_share), 0);
    ck_assert_uint_eq(a->p.flow.kind, b->p.flow.kind);
    ck_assert(a->p.flow.resolution == b->p.flow.resolution && a->p.flow.noise_scale == b->p.flow.noise_scale);
    ck_assert_uint_eq(a->p.flow.noise_seed, b->p.flow.noise_seed);
    ck_assert_int_eq(memcmp(a->p.flow.direction, b->p.flow.direction, sizeof a->p.flow.direction), 0);
    ck_assert_str_eq(a->p.flow.image, b->p.flow.image);
    // Slot by slot: the slot order is restored too.
    ck_assert_int_eq(memcmp(a->cur.pos, b->cur.pos, a->n * sizeof *a->cur.pos), 0);
    ck_assert_int_eq(memcmp(a->cur.vel, b->cur.vel, a->n * sizeof *a->cur.vel), 0);
    ck_assert_int_eq(memcmp(a->cur.id, b->cur.id, a->n * sizeof *a->cur.id), 0);
    ck_assert_int_eq(memcmp(a->cur.group, b->cur.group, a->n * sizeof *a->cur.group), 0);
    assert_same_joints(a, b);
}

// Every field survives save + load, in 2D and 3D.
START_TEST(test_round_trip) {
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_sim *a = rich_sim(300, dim, 7);
        a->p.flow.kind = BOIDS_FLOW_SWIRL;
        a->p.flow.noise_seed = 77;
        a->p.flow.direction[1] = 1.0f;
        snprintf(a->p.flow.image, sizeof a->p.flow.image, "some/image.png");
        save_ok(a, TMP "/snap_rt.boids");
        boids_sim *b = load_ok(TMP "/snap_rt.boids");
        assert_same_state(a, b);
        ck_assert_uint_eq(boids_sim_hash(a), boids_sim_hash(b));
        boids_sim_destroy(a);
        boids_sim_destroy(b);
    }
}
END_TEST

// 20 steps == 10 steps, save, load, 10 steps: same hash and joints (2D, 3D).
START_TEST(test_resume_equals_uninterrupted) {
    for (uint32_t dim = 2; dim <= 3; dim++) {
        boids_sim *a = rich_sim(800, dim, 20);
        boids_sim *b = rich_sim(800, dim, 10);
        save_ok(b, TMP "/snap_resume.boids");
        boids_sim_destroy(b);
        boids_sim *c = load_ok(TMP "/snap_resume.boids");
        c->threads = 1; // the thread count does not change the results
        for (int i = 0; i < 10; i++)
            boids_sim_step(c);
        ck_assert_uint_eq(c->step, 20);
        ck_assert_uint_eq(boids_sim_hash(a), boids_sim_hash(c));
        assert_same_joints(a, c);
        boids_sim_destroy(a);
        boids_sim_destroy(c);
    }
}
END_TEST

// ---- damaged files ---------------------------------------------------------

// A file's bytes.
typedef struct bytes {
    unsigned char *b;
    size_t n;
} bytes;

// A scenario's host parts for the rich sim's groups: a circling target, two
// varying weights, a title, names and a colour.
static void rich_scenario(boids_scenario *sc) {
    boids_scenario_default(sc);
    snprintf(sc->title, sizeof sc->title, "rich");
    sc->target_mode = BOIDS_TARGET_CIRCLE;
    sc->target_center[0] = 12.5f;
    sc->target_radius = 30.0f;
    sc->target_period = 250.0f;
    sc->vary[0] = (boids_vary){.group = 1, .behavior = BOIDS_BI_COHESION, .lo = 0.25f, .hi = 2.0f, .period = 90};
    sc->vary[1] = (boids_vary){.group = 0, .behavior = BOIDS_BI_WANDER, .lo = 0.0f, .hi = 1.5f, .period = 40};
    sc->vary_count = 2;
    snprintf(sc->group_name[1], BOIDS_SCENARIO_NAME, "fish");
    sc->color[1][0] = 0.75f;
    sc->color[1][3] = 1.0f;
    sc->color_set[1] = true;
}

// The good snapshot (made once per test: 50 agents, 3D, bodies, a scenario).
static bytes good_file(void) {
    boids_sim *s = rich_sim(50, 3, 3);
    boids_scenario *sc = malloc(sizeof *sc);
    ck_assert_ptr_nonnull(sc);
    rich_scenario(sc);
    char err[512] = "";
    ck_assert_msg(boids_snapshot_save(s, sc, GOOD, err, sizeof err) == BOIDS_OK, "save: %s", err);
    free(sc);
    boids_sim_destroy(s);
    bytes f;
    f.b = (unsigned char *)boids_test_slurp_len(GOOD, &f.n);
    ck_assert_ptr_nonnull(f.b);
    return f;
}

// The offset of chunk `tag` (its tag byte) in f; fails if absent.
static size_t chunk_at(const bytes *f, const char *tag) {
    size_t off = 12;
    while (off + 12 <= f->n) {
        uint64_t len = 0;
        for (int i = 7; i >= 0; i--)
            len = len << 8 | f->b[off + 4 + (size_t)i];
        if (memcmp(f->b + off, tag, 4) == 0)
            return off;
        off += 16 + (size_t)len;
    }
    ck_abort_msg("no chunk %s", tag);
    return 0;
}

// Stores v little-endian at b.
static void le32(unsigned char *b, uint32_t v) {
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

// Recomputes the CRC of the chunk at off (its length as stored).
static void fix_crc(bytes *f, size_t off) {
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--)
        len = len << 8 | f->b[off + 4 + (size_t)i];
    uLong c = crc32(0L, f->b + off, 4);
    c = crc32(c, f->b + off + 12, (uInt)len);
    le32(f->b + off + 12 + len, (uint32_t)c);
}

// Loading b (n bytes, written to a file) fails with `code` and a message
// "PATH: ..." containing `needle`.
static void expect_bad(const unsigned char *b, size_t n, boids_result code, const char *needle) {
    const char *path = TMP "/snap_bad.boids";
    boids_test_write(path, b, n);
    char err[512] = "";
    boids_sim *s = (boids_sim *)&err; // must be reset to NULL
    boids_result r = boids_snapshot_load(path, &s, NULL, err, sizeof err);
    ck_assert_msg(r == code, "%zu bytes: expected %s, got %s (%s)", n, boids_result_str(code), boids_result_str(r),
                  err);
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(err, path, strlen(path)) == 0 && strncmp(err + strlen(path), ": ", 2) == 0,
                  "message does not name the file: %s", err);
    ck_assert_msg(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
    ck_assert_msg(!strchr(err, '\n'), "message is not one line: %s", err);
}

// Truncated anywhere: in the magic, in a chunk header, payload or CRC, at a
// chunk boundary, one byte short.
START_TEST(test_truncated) {
    bytes f = good_file();
    size_t cuts[] = {0, 1, 7, 11, 12, 13, 23, 40, 100, 3000, f.n / 2, chunk_at(&f, "END "), f.n - 5, f.n - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++)
        expect_bad(f.b, cuts[k], BOIDS_ERR_FORMAT, "truncated");
    free(f.b);
}
END_TEST

// Not a snapshot, line endings converted either way, the high bit stripped.
START_TEST(test_magic) {
    bytes f = good_file();
    unsigned char *m = malloc(f.n + 1);
    memcpy(m, f.b, f.n);
    memcpy(m, "PK\x03\x04\x14\x00\x00\x00", 8);
    expect_bad(m, f.n, BOIDS_ERR_FORMAT, "wrong magic");
    // CRLF -> LF: "\r\n" of the magic becomes "\n".
    memcpy(m, f.b, 4);
    memcpy(m + 4, f.b + 5, f.n - 5);
    expect_bad(m, f.n - 1, BOIDS_ERR_FORMAT, "line endings");
    // LF -> CRLF: the lone "\n" at the end of the magic becomes "\r\n".
    memcpy(m, f.b, 7);
    m[7] = '\r';
    memcpy(m + 8, f.b + 7, f.n - 7);
    expect_bad(m, f.n + 1, BOIDS_ERR_FORMAT, "line endings");
    // 7-bit transfer.
    memcpy(m, f.b, f.n);
    m[0] = 0x09;
    expect_bad(m, f.n, BOIDS_ERR_FORMAT, "line endings");
    free(m);
    free(f.b);
}
END_TEST

// A flipped bit in each chunk (payload; the CRC itself for the empty END).
START_TEST(test_bad_crc) {
    bytes f = good_file();
    const char *tags[] = {"HEAD", "PARM", "AGNT", "ORDR", "JNTS", "END "};
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
        size_t at = chunk_at(&f, tags[k]);
        size_t flip = strcmp(tags[k], "END ") == 0 ? at + 12 : at + 12 + 3;
        f.b[flip] ^= 0x10;
        char needle[64];
        snprintf(needle, sizeof needle, "bad CRC in the %s chunk", tags[k]);
        expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, needle);
        f.b[flip] ^= 0x10;
    }
    // A flipped tag is a missing chunk.
    size_t at = chunk_at(&f, "AGNT");
    f.b[at] = 'X';
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "expected the AGNT chunk");
    free(f.b);
}
END_TEST

// Version 0 and a version from the future.
START_TEST(test_version) {
    bytes f = good_file();
    le32(f.b + 8, BOIDS_SNAPSHOT_VERSION + 1);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "newer than this program reads");
    le32(f.b + 8, 0);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "version 0");
    free(f.b);
}
END_TEST

// The SCEN chunk: loaded back field for field (and the defaults without
// one); out-of-range values are refused on load and on save.
START_TEST(test_scenario_chunk) {
    bytes f = good_file();
    boids_scenario *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    ck_assert(want && got);
    rich_scenario(want);
    boids_sim *s = NULL;
    char err[512] = "";
    ck_assert_msg(boids_snapshot_load(GOOD, &s, got, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert_str_eq(got->title, "rich");
    ck_assert_int_eq(got->target_mode, BOIDS_TARGET_CIRCLE);
    ck_assert(memcmp(got->target_center, want->target_center, sizeof want->target_center) == 0);
    ck_assert(got->target_radius == want->target_radius && got->target_period == want->target_period);
    ck_assert_uint_eq(got->vary_count, 2);
    ck_assert(memcmp(got->vary, want->vary, 2 * sizeof want->vary[0]) == 0);
    ck_assert_str_eq(got->group_name[1], "fish");
    ck_assert(got->color_set[1] && !got->color_set[0] && got->color[1][0] == 0.75f);
    ck_assert(memcmp(&got->params.world, &s->p.world, sizeof s->p.world) == 0);
    boids_sim_destroy(s);
    // Without SCEN (saved with no scenario): the defaults, nothing dynamic.
    s = rich_sim(50, 3, 3);
    save_ok(s, TMP "/snap_noscen.boids");
    boids_sim_destroy(s);
    ck_assert_msg(boids_snapshot_load(TMP "/snap_noscen.boids", &s, got, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert(!boids_scenario_is_dynamic(got));
    ck_assert_str_eq(got->group_name[0], "default");
    ck_assert_str_eq(got->group_name[1], "group1");
    boids_sim_destroy(s);

    // Damaged values behind a good CRC.
    size_t at = chunk_at(&f, "SCEN") + 12;
    struct {
        size_t off;
        uint32_t value;
        const char *needle;
    } bad[] = {
        {0, 4, "target mode"}, // 3 is line
        {20, 0, "period 1..1e9"},
        {20, 0x3f000000u, "period 1..1e9"}, // 0.5 steps
        {16, 0xff800000u, "radius 0..1e7"},
        {16, 0x4b989680u + 1u, "radius 0..1e7"}, // just above 1e7
        {24, 33, "more varying weights"},
        {28, 3, "varying weight"}, // 3 groups
        {28 + 4, BOIDS_BEHAVIOR_COUNT, "varying weight"},
        {28 + 16, 0x7fc00000u, "varying weight"},
        {28 + 8, 0x49800000u, "outside -1e6..1e6"}, // lo = 2^20
        {868 + BOIDS_SCENARIO_NAME + 4, 0x40000000u, "colour is outside"},
        {868 + BOIDS_SCENARIO_NAME + 16, 2, "colour flag"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unsigned char keep[4];
        memcpy(keep, f.b + at + bad[k].off, 4);
        le32(f.b + at + bad[k].off, bad[k].value);
        fix_crc(&f, at - 12);
        expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, bad[k].needle);
        memcpy(f.b + at + bad[k].off, keep, 4);
    }
    memset(f.b + at + 668, 'A', 200); // the title without its terminator
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "title is not terminated");
    le32(f.b + 8, 1); // version 1 has no SCEN chunk
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "expected the END  chunk");

    // Saving a scenario the loader would refuse.
    s = rich_sim(50, 3, 0);
    rich_scenario(want);
    want->vary[1].group = 5; // the sim has 3 groups
    ck_assert_int_eq(boids_snapshot_save(s, want, TMP "/snap_badscen.boids", err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err, "not saved: scenario"));
    ck_assert_int_eq(access(TMP "/snap_badscen.boids", F_OK), -1);
    boids_sim_destroy(s);
    free(want);
    free(got);
    free(f.b);
}
END_TEST

static bool has_chunk(const bytes *f, const char *tag);

// The GLYP chunk: a scenario's glyphs (shape and size per group) load back,
// so a --load draws what the scenario asked for; none at the defaults (the
// file as it was); a shape or size out of range is refused on load and on
// save.
START_TEST(test_glyph_chunk) {
    boids_scenario *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    ck_assert(want && got);
    rich_scenario(want);
    boids_sim *s = rich_sim(50, 2, 3);
    char err[512] = "";
    ck_assert_msg(boids_snapshot_save(s, want, TMP "/snap_noglyph.boids", err, sizeof err) == BOIDS_OK, "%s", err);
    bytes plain;
    plain.b = (unsigned char *)boids_test_slurp_len(TMP "/snap_noglyph.boids", &plain.n);
    ck_assert_ptr_nonnull(plain.b);
    ck_assert_msg(!has_chunk(&plain, "GLYP"), "a GLYP chunk at the defaults");
    want->glyph[0] = BOIDS_GLYPH_DOT;
    want->glyph_size[0] = 3.0f;
    want->glyph[2] = BOIDS_GLYPH_WEDGE;
    ck_assert_msg(boids_snapshot_save(s, want, TMP "/snap_glyph.boids", err, sizeof err) == BOIDS_OK, "%s", err);
    boids_sim *t = NULL;
    ck_assert_msg(boids_snapshot_load(TMP "/snap_glyph.boids", &t, got, err, sizeof err) == BOIDS_OK, "%s", err);
    ck_assert_uint_eq(got->glyph[0], BOIDS_GLYPH_DOT);
    ck_assert(got->glyph_size[0] == 3.0f);
    ck_assert_uint_eq(got->glyph[1], BOIDS_GLYPH_DEFAULT);
    ck_assert_uint_eq(got->glyph[2], BOIDS_GLYPH_WEDGE);
    ck_assert(got->glyph_size[2] == 0.0f);
    ck_assert_str_eq(got->group_name[1], "fish"); // SCEN as before
    ck_assert_uint_eq(boids_sim_hash(t), boids_sim_hash(s));
    boids_sim_destroy(t);
    // Damaged values behind a good CRC.
    bytes f;
    f.b = (unsigned char *)boids_test_slurp_len(TMP "/snap_glyph.boids", &f.n);
    ck_assert_ptr_nonnull(f.b);
    ck_assert_uint_eq(f.n, plain.n + 16 + 8 * BOIDS_MAX_GROUPS);
    size_t at = chunk_at(&f, "GLYP") + 12;
    le32(f.b + at, BOIDS_GLYPH_COUNT);
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "glyph is not default, arrow, wedge or dot");
    le32(f.b + at, BOIDS_GLYPH_DOT);
    le32(f.b + at + 4, 0x41880000u); // 17
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "glyph size is not within 0..16");
    // Saving glyphs the loader would refuse.
    want->glyph_size[1] = -1.0f;
    ck_assert_int_eq(boids_snapshot_save(s, want, TMP "/snap_badglyph.boids", err, sizeof err), BOIDS_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err, "glyph size"));
    ck_assert_int_eq(access(TMP "/snap_badglyph.boids", F_OK), -1);
    boids_sim_destroy(s);
    free(f.b);
    free(plain.b);
    free(want);
    free(got);
}
END_TEST

// Whether f holds a chunk `tag` (chunk_at without failing).
static bool has_chunk(const bytes *f, const char *tag) {
    for (size_t off = 12; off + 12 <= f->n;) {
        uint64_t len = 0;
        for (int i = 7; i >= 0; i--)
            len = len << 8 | f->b[off + 4 + (size_t)i];
        if (memcmp(f->b + off, tag, 4) == 0)
            return true;
        off += 16 + (size_t)len;
    }
    return false;
}

// s saved to path, the file's bytes; `tag` must be in it exactly when
// `present` (the optional chunks of version 3).
static bytes saved_with(boids_sim *s, const char *path, const char *tag, bool present) {
    char err[512] = "";
    ck_assert_msg(boids_snapshot_save(s, NULL, path, err, sizeof err) == BOIDS_OK, "save: %s", err);
    bytes f;
    f.b = (unsigned char *)boids_test_slurp_len(path, &f.n);
    ck_assert_ptr_nonnull(f.b);
    ck_assert_msg(has_chunk(&f, tag) == present, "%s: expected %s chunk %s", path, present ? "a" : "no", tag);
    return f;
}

// The snapshot at path loads, and its next step equals s's (which it steps).
static boids_sim *loads_and_continues(const char *path, boids_sim *s) {
    char err[512] = "";
    boids_sim *t = NULL;
    ck_assert_msg(boids_snapshot_load(path, &t, NULL, err, sizeof err) == BOIDS_OK, "load: %s", err);
    boids_sim *copy = NULL;
    ck_assert_int_eq(boids_snapshot_load(path, &copy, NULL, err, sizeof err), BOIDS_OK);
    boids_sim_step(s);
    boids_sim_step(copy);
    ck_assert_uint_eq(boids_sim_hash(copy), boids_sim_hash(s));
    boids_sim_destroy(copy);
    return t;
}

// The world's options (wall_corner): no WOPT chunk at their defaults (the
// file is version 2's chunks), WOPT with the book's corner rule, which
// loads back and continues bit for bit; a WOPT with an unknown rule, a
// grid fine word finalize never writes (1, 5, an unknown bit), a reserved
// word set or no option is refused.
START_TEST(test_world_options) {
    boids_sim *s = rich_sim(60, 2, 2);
    bytes f = saved_with(s, TMP "/snap_wopt0.boids", "WOPT", false);
    free(f.b);
    s->p.world.wall_corner = BOIDS_WALL_CORNER_BOOK;
    f = saved_with(s, TMP "/snap_wopt.boids", "WOPT", true);
    boids_sim *t = loads_and_continues(TMP "/snap_wopt.boids", s);
    ck_assert_uint_eq(t->p.world.wall_corner, BOIDS_WALL_CORNER_BOOK);
    boids_sim_destroy(t);
    size_t at = chunk_at(&f, "WOPT") + 12;
    static const struct {
        size_t off;
        uint32_t value;
        const char *needle;
    } bad[] = {{0, 2, "wall-corner rule"}, {4, 0xbf800000u, "margin"}, // -1.0f
               {4, 0x7fc00000u, "margin"},                             // NaN
               {8, 1, "grid fine factor"},                             // M = 1 is written as 0 (no option)
               {8, 5, "grid fine factor"}, {8, 0x200, "grid fine factor"},
               {12, 1, "reserved words"},  {0, 0, "no option"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        le32(f.b + at + bad[k].off, bad[k].value);
        fix_crc(&f, at - 12);
        expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, bad[k].needle);
        le32(f.b + at, BOIDS_WALL_CORNER_BOOK);
        le32(f.b + at + 4, 0);
        le32(f.b + at + 8, 0);
        le32(f.b + at + 12, 0);
    }
    free(f.b);
    boids_sim_destroy(s);
}
END_TEST

// The margin boundary: agents in the band beyond the edges (which the
// sketch's borders() keeps) load back, with the default margin (no WOPT
// chunk: the word is 0) and with one of its own (in WOPT), and continue bit
// for bit; a position beyond the band is refused.
START_TEST(test_margin_band) {
    for (int own = 0; own < 2; own++) {
        boids_params p;
        boids_params_default(&p, 40, 2);
        p.world.boundary = BOIDS_BOUNDARY_MARGIN;
        p.world.margin = own ? 6.0f : 0.0f;
        p.world.min[0] = p.world.min[1] = 0.0f;
        p.world.size[0] = 640.0f;
        p.world.size[1] = 360.0f;
        boids_sim *s = NULL;
        ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_UNIFORM), BOIDS_OK);
        float band = own ? 5.5f : 2.5f;
        uint32_t i0 = boids_sim_slots_by_id(s)[0], i1 = boids_sim_slots_by_id(s)[1];
        s->cur.pos[i0][0] = -band; // within the band left of the canvas
        s->cur.pos[i1][1] = 360.0f + band;
        const char *path = own ? TMP "/snap_margin6.boids" : TMP "/snap_margin.boids";
        bytes f = saved_with(s, path, "WOPT", own == 1);
        free(f.b);
        boids_sim *t = loads_and_continues(path, s);
        ck_assert_float_eq(t->p.world.margin, p.world.margin);
        ck_assert_uint_eq(t->p.world.boundary, BOIDS_BOUNDARY_MARGIN);
        boids_sim_destroy(t);
        s->cur.pos[boids_sim_slots_by_id(s)[0]][0] = own ? -6.5f : -3.5f; // beyond the band
        char err[512] = "";
        ck_assert_int_eq(boids_snapshot_save(s, NULL, path, err, sizeof err), BOIDS_OK);
        boids_sim *u = NULL;
        ck_assert_int_eq(boids_snapshot_load(path, &u, NULL, err, sizeof err), BOIDS_ERR_FORMAT);
        ck_assert_msg(strstr(err, "outside the world"), "expected 'outside the world' in: %s", err);
        boids_sim_destroy(s);
    }
}
END_TEST

// The groups' rules: no RULE chunk with the chapter's rules and the
// default turn; RULE with the tutorial's in group 1, which loads back (the
// other groups at the default) and continues bit for bit; a RULE with a
// noise word (Vicsek's eta, Couzin's sigma) in a group of other rules, or
// only defaults, is refused.
START_TEST(test_rules_chunk) {
    boids_sim *s = rich_sim(60, 2, 2);
    bytes f = saved_with(s, TMP "/snap_rule0.boids", "RULE", false);
    free(f.b);
    s->p.group[1].rules = BOIDS_RULES_TUTORIAL;
    f = saved_with(s, TMP "/snap_rule.boids", "RULE", true);
    boids_sim *t = loads_and_continues(TMP "/snap_rule.boids", s);
    ck_assert_uint_eq(t->p.group[1].rules, BOIDS_RULES_TUTORIAL);
    ck_assert_uint_eq(t->p.group[0].rules, BOIDS_RULES_CHAPTER);
    ck_assert_float_eq(t->p.group[0].turn, BOIDS_TURN_DEFAULT);
    boids_sim_destroy(t);
    size_t at = chunk_at(&f, "RULE") + 12;
    le32(f.b + at + 16 + 12, 1); // group 1's noise word (the one before it is circles' repulse)
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "only the rule sets vicsek (eta) and couzin (sigma) have noise");
    le32(f.b + at + 16 + 12, 0);
    le32(f.b + at + 16, BOIDS_RULES_CHAPTER);
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "only the default rules");
    free(f.b);
    boids_sim_destroy(s);
}
END_TEST

// The collective-motion models' parameters round-trip: a Vicsek group (eta)
// and a Couzin group (sigma, turn, the zones) in one 3D world are saved in
// the RULE chunk and load back to the same words, continuing bit for bit.
START_TEST(test_models_round_trip) {
    boids_params p;
    boids_params_default(&p, 90, 3);
    p.world.group_count = 2;
    p.group[1] = p.group[0];
    p.group[0].rules = BOIDS_RULES_VICSEK;
    p.group[0].behaviors = BOIDS_BIT(BOIDS_BI_ALIGNMENT);
    p.group[0].noise = 1.25f;
    p.group[1].rules = BOIDS_RULES_COUZIN;
    p.group[1].behaviors = BOIDS_B_FLOCKING;
    p.group[1].separation = 10.0f;
    p.group[1].alignment_radius = 20.0f;
    p.group[1].cohesion_radius = 40.0f;
    p.group[1].noise = 0.05f;
    p.group[1].turn = 0.7f;
    char what[256];
    ck_assert_msg(boids_params_finalize(&p, what, sizeof what) == BOIDS_OK, "%s", what);
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
    for (int k = 0; k < 3; k++)
        boids_sim_step(s);
    bytes f = saved_with(s, TMP "/snap_models.boids", "RULE", true);
    free(f.b);
    boids_sim *t = loads_and_continues(TMP "/snap_models.boids", s);
    for (uint32_t g = 0; g < 2; g++) {
        ck_assert_uint_eq(t->p.group[g].rules, p.group[g].rules);
        ck_assert_msg(t->p.group[g].noise == p.group[g].noise && t->p.group[g].turn == p.group[g].turn,
                      "group %u: noise %g turn %g, saved %g %g", g, (double)t->p.group[g].noise,
                      (double)t->p.group[g].turn, (double)p.group[g].noise, (double)p.group[g].turn);
    }
    boids_sim_destroy(t);
    boids_sim_destroy(s);
}
END_TEST

// The float's bits, for le32.
static uint32_t f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

// The per-rule neighbourhoods: no NBHD chunk with one radius and one field
// of view (the pinned snapshots' bytes); NBHD with group 1's own alignment
// radius and cone, which loads back (the other groups at 0) and continues
// bit for bit; a least speed travels in it too; an NBHD with a bad radius,
// cone, bit, min_speed or only defaults is refused.
START_TEST(test_neighborhood_chunk) {
    boids_sim *s = rich_sim(60, 2, 2);
    bytes f = saved_with(s, TMP "/snap_nbhd0.boids", "NBHD", false);
    free(f.b);
    s->p.group[1].alignment_radius = 30.0f;
    s->p.group[1].own_cones = BOIDS_CONE_ALIGNMENT;
    s->p.group[1].alignment_fov_cos = boids_fov_cos(200.0f);
    s->p.group[1].neighbors_max = 5; // a topological K travels in NBHD too
    s->p.group[1].min_speed = 0.5f;  // and a least speed
    f = saved_with(s, TMP "/snap_nbhd.boids", "NBHD", true);
    boids_sim *t = loads_and_continues(TMP "/snap_nbhd.boids", s);
    ck_assert_float_eq(t->p.group[1].alignment_radius, 30.0f);
    ck_assert_uint_eq(t->p.group[1].own_cones, BOIDS_CONE_ALIGNMENT);
    ck_assert_float_eq(t->p.group[1].alignment_fov_cos, boids_fov_cos(200.0f));
    ck_assert_uint_eq(t->p.group[1].neighbors_max, 5u);
    ck_assert_float_eq(t->p.group[1].min_speed, 0.5f);
    ck_assert_uint_eq(t->p.group[0].neighbors_max, 0u);
    ck_assert_float_eq(t->p.group[0].alignment_radius, 0.0f);
    ck_assert_uint_eq(t->p.group[0].own_cones, 0u);
    boids_sim_destroy(t);
    size_t at = chunk_at(&f, "NBHD") + 12 + 32; // group 1's row
    static const struct {
        size_t word;
        uint32_t value;
        const char *needle;
    } bad[] = {
        {0, 0xbf800000u, "a radius"},      // alignment radius -1
        {1, 0x7fc00000u, "a radius"},      // cohesion radius NaN
        {3, 0x40000000u, "a cone cosine"}, // alignment cos 2
        {2, 0x3f000000u, "a cone cosine"}, // separation cos 0.5 without its bit
        {5, 8u, "own-cone bits"},          // a bit past cohesion
        {6, 33u, "neighbors_max"},         // K above 32
        {7, 0xbf800000u, "min_speed"},     // a least speed -1
    };
    uint32_t good[8];
    for (size_t w = 0; w < 8; w++)
        good[w] = (uint32_t)f.b[at + 4 * w] | (uint32_t)f.b[at + 4 * w + 1] << 8 | (uint32_t)f.b[at + 4 * w + 2] << 16 |
                  (uint32_t)f.b[at + 4 * w + 3] << 24;
    ck_assert_uint_eq(good[0], f32_bits(30.0f));
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        le32(f.b + at + 4 * bad[k].word, bad[k].value);
        fix_crc(&f, at - 12 - 32);
        expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, bad[k].needle);
        le32(f.b + at + 4 * bad[k].word, good[bad[k].word]);
    }
    for (size_t w = 0; w < 8; w++)
        le32(f.b + at + 4 * w, 0);
    fix_crc(&f, at - 12 - 32);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "only the default neighbourhoods");
    free(f.b);
    boids_sim_destroy(s);
}
END_TEST

// The later behaviours' rows (weight.speed, target_speed): no MORE chunk at
// the defaults; MORE with a target speed and a weight of their own, which
// load back and continue bit for bit; a MORE with only defaults, a spare
// word set or a NaN is refused.
START_TEST(test_more_chunk) {
    boids_sim *s = rich_sim(60, 2, 2);
    bytes f = saved_with(s, TMP "/snap_more0.boids", "MORE", false);
    free(f.b);
    s->p.group[1].behaviors |= BOIDS_BIT(BOIDS_BI_SPEED);
    s->p.group[1].target_speed = 2.5f;
    *boids_weight_ref(&s->p.group[1], BOIDS_BI_SPEED) = 0.75f;
    f = saved_with(s, TMP "/snap_more.boids", "MORE", true);
    boids_sim *t = loads_and_continues(TMP "/snap_more.boids", s);
    ck_assert_float_eq(t->p.group[1].target_speed, 2.5f);
    ck_assert_float_eq(boids_weight(&t->p.group[1], BOIDS_BI_SPEED), 0.75f);
    ck_assert_float_eq(t->p.group[0].target_speed, BOIDS_TARGET_SPEED_DEFAULT);
    boids_sim_destroy(t);
    free(f.b);
    // queue_distance and avoid_horizon (the words after target_speed) travel in MORE too.
    s->p.group[2].behaviors |= BOIDS_BIT(BOIDS_BI_QUEUE) | BOIDS_BIT(BOIDS_BI_AVOID);
    s->p.group[2].queue_distance = 7.5f;
    s->p.group[2].avoid_horizon = 12.0f;
    f = saved_with(s, TMP "/snap_more2.boids", "MORE", true);
    t = loads_and_continues(TMP "/snap_more2.boids", s);
    ck_assert_float_eq(t->p.group[2].queue_distance, 7.5f);
    ck_assert_float_eq(t->p.group[2].avoid_horizon, 12.0f);
    ck_assert_float_eq(t->p.group[0].queue_distance, BOIDS_QUEUE_DISTANCE_DEFAULT);
    ck_assert_float_eq(t->p.group[0].avoid_horizon, BOIDS_AVOID_HORIZON_DEFAULT);
    boids_sim_destroy(t);
    s->p.group[2].behaviors &= ~(BOIDS_BIT(BOIDS_BI_QUEUE) | BOIDS_BIT(BOIDS_BI_AVOID));
    s->p.group[2].queue_distance = BOIDS_QUEUE_DISTANCE_DEFAULT;
    s->p.group[2].avoid_horizon = BOIDS_AVOID_HORIZON_DEFAULT;
    free(f.b);
    f = saved_with(s, TMP "/snap_more.boids", "MORE", true);
    size_t at = chunk_at(&f, "MORE") + 12, g1 = 80; // group 1's 20 words
    le32(f.b + at + g1 + 76, 0xbf800000u);          // its hide_margin (the last word): -1
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "below 0");
    le32(f.b + at + g1 + 76, 0x41200000u); // hide_margin 10 (the default)
    le32(f.b + at + g1 + 68, 0xbf800000u); // queue_distance -1
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "below 0");
    le32(f.b + at + g1 + 68, 0x41200000u); // queue_distance 10 (the default)
    le32(f.b + at + g1 + 72, 0x7f800000u); // avoid_horizon +inf
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "not finite");
    le32(f.b + at + g1 + 72, 0x41f00000u); // avoid_horizon 30 (the default)
    le32(f.b + at + g1, 0x7fc00000u);      // weight.speed: NaN
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "not finite");
    le32(f.b + at + g1, 0x3f800000u);      // weight 1 (the default)
    le32(f.b + at + g1 + 64, 0x3fc00000u); // target speed 1.5 (the default)
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "only the defaults");
    free(f.b);
    boids_sim_destroy(s);
}
END_TEST

// The leader rows (LEAD) and the walls (WALL): neither chunk at the
// defaults, so such a file is what the earlier chunks alone wrote (the
// bytes of a save before and after naming default leaders are the same);
// with a named leader in a formation, a follower group, a guard group
// and walls (segments), both chunks, which load back field for field and
// continue bit for bit; a LEAD with a NaN or only defaults and a WALL with
// no wall or a bad kind are refused.
START_TEST(test_lead_wall_chunks) {
    boids_sim *s = rich_sim(60, 2, 2);
    bytes f0 = saved_with(s, TMP "/snap_lead0.boids", "LEAD", false);
    ck_assert(!has_chunk(&f0, "WALL"));
    // The defaults written back explicitly: the same bytes.
    for (uint32_t g = 0; g < BOIDS_MAX_GROUPS; g++) {
        s->p.group[g].leader = BOIDS_ID_TARGET;
        s->p.group[g].formation = BOIDS_FORMATION_NONE;
        s->p.group[g].interpose_b = BOIDS_ID_TARGET;
    }
    bytes f1 = saved_with(s, TMP "/snap_lead1.boids", "LEAD", false);
    ck_assert_msg(f0.n == f1.n && memcmp(f0.b, f1.b, f0.n) == 0, "default leader rows changed the snapshot's bytes");
    free(f0.b);
    free(f1.b);
    boids_sim_destroy(s);

    // Named agents and walls, set before the run (finalize checks them).
    boids_params p;
    rich_params(&p, 60, 2); // groups by shares 2:1:1: ids 0..29, 30..44, 45..59
    p.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_OFFSET);
    p.group[0].leader = 3;
    p.group[0].formation = BOIDS_FORMATION_V;
    p.group[0].formation_spacing = 12.0f;
    p.group[1].behaviors |= BOIDS_BIT(BOIDS_BI_FOLLOW) | BOIDS_BIT(BOIDS_BI_FEELERS);
    p.group[1].leader = 3;
    p.group[1].leader_behind = 25.0f;
    p.group[1].leader_sight = 9.0f;
    p.group[1].feeler_length = 30.0f;
    p.group[2].behaviors |= BOIDS_BIT(BOIDS_BI_INTERPOSE);
    p.group[2].interpose_a = 31;
    p.group[2].interpose_b = BOIDS_ID_TARGET;
    p.group[2].leader_offset[1] = 4.0f;
    const float *lo = p.world.min, *size = p.world.size;
    p.scene.wall_count = 2;
    for (uint32_t k = 0; k < 2; k++) {
        p.scene.wall[2 * k][0] = lo[0] + size[0] * (0.2f + 0.6f * (float)k);
        p.scene.wall[2 * k][1] = lo[1] + size[1] * 0.1f;
        p.scene.wall[2 * k + 1][0] = p.scene.wall[2 * k][0];
        p.scene.wall[2 * k + 1][1] = lo[1] + size[1] * 0.9f;
    }
    p.scene.wall[2][3] = BOIDS_WALL_PLANE; // the second one a line: point and normal (1,0)
    p.scene.wall[3][0] = 1.0f;
    p.scene.wall[3][1] = 0.0f;
    char what[256] = "";
    ck_assert_msg(boids_params_finalize(&p, what, sizeof what) == BOIDS_OK, "finalize: %s", what);
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
    for (int k = 0; k < 5; k++)
        boids_sim_step(s);
    bytes f = saved_with(s, TMP "/snap_lead.boids", "LEAD", true);
    ck_assert(has_chunk(&f, "WALL"));
    boids_sim *t = loads_and_continues(TMP "/snap_lead.boids", s); // s steps once
    ck_assert_uint_eq(t->p.group[0].leader, 3);
    ck_assert_uint_eq(t->p.group[0].formation, BOIDS_FORMATION_V);
    ck_assert_float_eq(t->p.group[1].leader_behind, 25.0f);
    ck_assert_uint_eq(t->p.group[2].interpose_a, 31);
    ck_assert_uint_eq(t->p.scene.wall_count, 2);
    // The rank rows are derived on load as finalize derives them.
    for (uint32_t g = 0; g < 3; g++)
        ck_assert_msg(t->p.group[g].rank_base == s->p.group[g].rank_base &&
                          t->p.group[g].rank_count == s->p.group[g].rank_count &&
                          t->p.group[g].rank_stride == s->p.group[g].rank_stride,
                      "group %u's ranks differ after loading", g);
    boids_sim_step(t);
    for (int k = 0; k < 30; k++) {
        boids_sim_step(s);
        boids_sim_step(t);
    }
    ck_assert_uint_eq(boids_sim_hash(t), boids_sim_hash(s));
    assert_same_state(s, t);
    boids_sim_destroy(t);

    size_t at = chunk_at(&f, "LEAD") + 12;
    le32(f.b + at, 0x7fc00000u); // group 0's leader_offset x: NaN
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "not finite");
    le32(f.b + at, 0xc1a00000u); // -20, the default
    fix_crc(&f, at - 12);
    ck_assert_msg(boids_snapshot_load(TMP "/snap_lead.boids", &t, NULL, what, sizeof what) == BOIDS_OK, "%s", what);
    boids_sim_destroy(t);
    // Every group's rows back to the defaults (leader, formation, spacing, ..., feeler length).
    for (uint32_t g = 0; g < 3; g++) {
        size_t r = at + 48u * g;
        static const uint32_t def[12] = {0xc1a00000u, 0,           0,           0, 0xffffffffu, 0,
                                         0x41700000u, 0x41a00000u, 0x41700000u, 0, 0xffffffffu, 0x42200000u};
        for (size_t w = 0; w < 12; w++)
            le32(f.b + r + 4 * w, def[w]); // -20,0,0,0; target; none; 15; 20; 15; 0; target; 40
    }
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "only the defaults");
    free(f.b);

    f = saved_with(s, TMP "/snap_wall.boids", "WALL", true);
    at = chunk_at(&f, "WALL") + 12;
    le32(f.b + at + 16 * 2 * BOIDS_MAX_WALLS, 0); // the wall count
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "no wall");
    le32(f.b + at + 16 * 2 * BOIDS_MAX_WALLS, 2);
    le32(f.b + at + 12, 0x40000000u); // wall 0's kind: 2
    fix_crc(&f, at - 12);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "a kind that is not a segment (0) or a plane (1)");
    free(f.b);
    boids_sim_destroy(s);
}
END_TEST

// Sizes: a count above the maximum, zero, counts that disagree between
// chunks, lengths that do not match or would overflow, too many joint rows.
START_TEST(test_sizes) {
    bytes f = good_file();
    size_t head = chunk_at(&f, "HEAD");
    unsigned char keep[4];
    memcpy(keep, f.b + head + 12, 4);
    le32(f.b + head + 12, BOIDS_MAX_AGENTS + 1);
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "agent count 16777217 is out of range");
    le32(f.b + head + 12, 0);
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "agent count 0 is out of range");
    le32(f.b + head + 12, 49); // the PARM says 50
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "do not match the header");
    memcpy(f.b + head + 12, keep, 4);
    le32(f.b + head + 24, 33); // joint rows
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "joint rows per agent is out of range");
    le32(f.b + head + 24, 3);
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the bodies need 12 joint rows");
    le32(f.b + head + 24, 12);
    fix_crc(&f, head);

    // AGNT one agent short, and lengths of 2^64 - 1 and 2^63 (no overflow).
    size_t agnt = chunk_at(&f, "AGNT");
    unsigned char len[8];
    memcpy(len, f.b + agnt + 4, 8);
    le32(f.b + agnt + 4, 49 * 36);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the AGNT chunk is 1764 bytes long; expected 1800");
    memset(f.b + agnt + 4, 0xff, 8);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the AGNT chunk is 18446744073709551615 bytes long");
    memset(f.b + agnt + 4, 0, 8);
    f.b[agnt + 11] = 0x80;
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "expected 1800");
    memcpy(f.b + agnt + 4, len, 8);
    memset(f.b + head + 4, 0xff, 8);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the HEAD chunk is 18446744073709551615 bytes long");
    free(f.b);
}
END_TEST

// Values: NaN and infinite positions, velocities, joints, parameters; a bad
// group; a slot order that is not a permutation; bytes after END.
START_TEST(test_values) {
    bytes f = good_file();
    size_t agnt = chunk_at(&f, "AGNT"), ordr = chunk_at(&f, "ORDR"), jnts = chunk_at(&f, "JNTS");
    size_t parm = chunk_at(&f, "PARM"), head = chunk_at(&f, "HEAD");
    unsigned char keep[36];
    // The step: 2^64 - 1 would wrap the counter; above 2^53 is refused, 2^53 loads.
    memcpy(keep, f.b + head + 12 + 16, 8);
    le32(f.b + head + 12 + 16, 0xffffffffu);
    le32(f.b + head + 12 + 20, 0xffffffffu);
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "step 18446744073709551615 is out of range (0..9007199254740992)");
    le32(f.b + head + 12 + 16, 1);
    le32(f.b + head + 12 + 20, 1u << 21); // 2^53 + 1
    fix_crc(&f, head);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "step 9007199254740993 is out of range");
    memcpy(f.b + head + 12 + 16, keep, 8);
    fix_crc(&f, head);
    float bad_values[] = {NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < 3; k++) {
        unsigned char *a = f.b + agnt + 12 + 3 * 36;
        memcpy(keep, a, 36);
        uint32_t v;
        memcpy(&v, &bad_values[k], 4);
        le32(a + 4 * (k * 2), v); // pos x, pos z, vel x
        fix_crc(&f, agnt);
        expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "agent 3 has a NaN or infinite position or velocity");
        memcpy(a, keep, 36);
        fix_crc(&f, agnt);
    }
    memcpy(keep, f.b + agnt + 12 + 4 * 36 + 24, 4);
    le32(f.b + agnt + 12 + 4 * 36 + 24, 0x42c80000u); // vel z = 100
    fix_crc(&f, agnt);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "agent 4 is faster");
    memcpy(f.b + agnt + 12 + 4 * 36 + 24, keep, 4);
    fix_crc(&f, agnt);
    le32(f.b + agnt + 12 + 5 * 36 + 32, 3); // group 3 of 3
    fix_crc(&f, agnt);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "agent 5 is in group 3; there are 3 groups");
    le32(f.b + agnt + 12 + 5 * 36 + 32, 0);
    fix_crc(&f, agnt);

    memcpy(keep, f.b + ordr + 12, 8);
    memcpy(f.b + ordr + 16, f.b + ordr + 12, 4); // slot 1 holds slot 0's id
    fix_crc(&f, ordr);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "already in another slot");
    le32(f.b + ordr + 16, 50);
    fix_crc(&f, ordr);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "holds id 50, out of range");
    memcpy(f.b + ordr + 12, keep, 8);
    fix_crc(&f, ordr);

    uint32_t nan_bits;
    float nan = NAN;
    memcpy(&nan_bits, &nan, 4);
    memcpy(keep, f.b + jnts + 12 + 16 * 60, 4);
    le32(f.b + jnts + 12 + 16 * 60, nan_bits); // joint 1 of agent 10
    fix_crc(&f, jnts);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "joint 1 of agent 10 is NaN or infinite");
    memcpy(f.b + jnts + 12 + 16 * 60, keep, 4);
    fix_crc(&f, jnts);

    memcpy(keep, f.b + parm + 12 + 4 * 44, 4);
    le32(f.b + parm + 12 + 4 * 44, nan_bits); // world.dt
    fix_crc(&f, parm);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the world parameters hold a NaN or infinity");
    le32(f.b + parm + 12 + 4 * 44, 0); // dt 0: finalize rejects it
    fix_crc(&f, parm);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the parameters are rejected");
    memcpy(f.b + parm + 12 + 4 * 44, keep, 4);
    fix_crc(&f, parm);
    memcpy(keep, f.b + parm + 12 + 4 * 46, 4);
    f.b[parm + 12 + 4 * 46 + 3] ^= 0x08; // world.max_speed_all, derived by finalize
    fix_crc(&f, parm);
    expect_bad(f.b, f.n, BOIDS_ERR_FORMAT, "the world parameters are inconsistent");
    memcpy(f.b + parm + 12 + 4 * 46, keep, 4);
    fix_crc(&f, parm);

    unsigned char *longer = malloc(f.n + 3);
    memcpy(longer, f.b, f.n);
    memset(longer + f.n, 0, 3);
    expect_bad(longer, f.n + 3, BOIDS_ERR_FORMAT, "3 unexpected bytes after the END chunk");
    free(longer);
    // The repaired file loads again.
    boids_test_write(TMP "/snap_bad.boids", f.b, f.n);
    boids_sim_destroy(load_ok(TMP "/snap_bad.boids"));
    free(f.b);
}
END_TEST

// Missing file, a directory, an empty file.
START_TEST(test_not_a_file) {
    char err[512];
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_snapshot_load(TMP "/snap_missing.boids", &s, NULL, err, sizeof err), BOIDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "snap_missing.boids: cannot be opened"));
    ck_assert_int_eq(boids_snapshot_load(TMP, &s, NULL, err, sizeof err), BOIDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "is a directory"));
    expect_bad((const unsigned char *)"", 0, BOIDS_ERR_FORMAT, "truncated or not a boids snapshot");
}
END_TEST

// A failed save (bad path, target a directory, read-only directory when
// not root) leaves the old file byte for byte and no temporary file.
START_TEST(test_save_failure_keeps_old_file) {
    const char *dir = TMP "/snap_ro";
    mkdir(dir, 0755);
    chmod(dir, 0755);
    bytes f = good_file();
    boids_test_write(TMP "/snap_ro/keep.boids", f.b, f.n);
    boids_sim *s = rich_sim(60, 2, 1);
    char err[512];
    ck_assert_int_eq(boids_snapshot_save(s, NULL, TMP "/snap_no_such_dir/x.boids", err, sizeof err), BOIDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "snap_no_such_dir/x.boids: cannot be written"));
    ck_assert_int_eq(boids_snapshot_save(s, NULL, dir, err, sizeof err), BOIDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "is a directory"));
    if (geteuid() != 0) { // root writes into read-only directories
        ck_assert_int_eq(chmod(dir, 0555), 0);
        ck_assert_int_eq(boids_snapshot_save(s, NULL, TMP "/snap_ro/keep.boids", err, sizeof err), BOIDS_ERR_IO);
        ck_assert_int_eq(chmod(dir, 0755), 0);
    }
    // A state that could not be loaded back is not saved either.
    s->cur.pos[7][0] = NAN;
    ck_assert_int_eq(boids_snapshot_save(s, NULL, TMP "/snap_ro/keep.boids", err, sizeof err), BOIDS_ERR_ARGUMENT);
    size_t n = 0;
    unsigned char *now = (unsigned char *)boids_test_slurp_len(TMP "/snap_ro/keep.boids", &n);
    ck_assert_ptr_nonnull(now);
    ck_assert_uint_eq(n, f.n);
    ck_assert_int_eq(memcmp(now, f.b, n), 0);
    // No temporary file left behind.
    run_result r = boids_test_run("/bin/ls", ARGV("ls", "-A", TMP "/snap_ro"), TMP, "snap_ls");
    ck_assert_str_eq(r.out, "keep.boids\n");
    boids_test_run_free(&r);
    // A good save replaces it.
    s->cur.pos[7][0] = 1.0f;
    save_ok(s, TMP "/snap_ro/keep.boids");
    boids_sim_destroy(load_ok(TMP "/snap_ro/keep.boids"));
    boids_sim_destroy(s);
    free(now);
    free(f.b);
}
END_TEST

// A boids_atomic_fill that writes ctx (a string), or fails after a part of
// it when the string starts with '!'.
static bool fill_text(FILE *f, void *ctx) {
    const char *text = ctx;
    if (fputs(text, f) < 0)
        return false;
    if (text[0] == '!') {
        errno = ENOSPC;
        return false;
    }
    return true;
}

// Checks that the file at path holds exactly expected.
static void expect_text(const char *path, const char *expected) {
    char *text = boids_test_slurp(path);
    ck_assert_msg(text && strcmp(text, expected) == 0, "expected %s to hold '%s', got '%s'", path, expected,
                  text ? text : "(unreadable)");
    free(text);
}

// boids_atomic_write (boids/atomic.h): a good write replaces the target with
// the default mode; a writer's failure leaves the old file byte for byte,
// no temporary file, and its errno; boids_atomic_dir_of as documented.
START_TEST(test_atomic_write) {
    const char *dir = TMP "/atomic";
    mkdir(dir, 0755);
    ck_assert_int_eq(boids_atomic_write(TMP "/atomic/t.txt", fill_text, "old\n"), BOIDS_OK);
    expect_text(TMP "/atomic/t.txt", "old\n");
    errno = 0;
    ck_assert_int_eq(boids_atomic_write(TMP "/atomic/t.txt", fill_text, "!half"), BOIDS_ERR_IO);
    ck_assert_int_eq(errno, ENOSPC); // the writer's errno, as set by the writer
    expect_text(TMP "/atomic/t.txt", "old\n");
    ck_assert_int_eq(boids_atomic_write(TMP "/atomic_no_such_dir/t.txt", fill_text, "x"), BOIDS_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(boids_atomic_write(TMP "/atomic/t.txt", fill_text, "new\n"), BOIDS_OK);
    expect_text(TMP "/atomic/t.txt", "new\n");
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    ck_assert_int_eq(stat(TMP "/atomic/t.txt", &st), 0);
    ck_assert_msg((st.st_mode & 0777) == (0666 & ~mask), "expected mode %o (0666 less the umask), got %o", 0666 & ~mask,
                  st.st_mode & 0777);
    run_result r = boids_test_run("/bin/ls", ARGV("ls", "-A", TMP "/atomic"), TMP, "atomic_ls");
    ck_assert_str_eq(r.out, "t.txt\n"); // no temporary file left behind
    boids_test_run_free(&r);
    const char *paths[][2] = {{"a.csv", "."}, {"/a.csv", "/"}, {"d/e/a.csv", "d/e"}, {"/d/a.csv", "/d"}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char *d = boids_atomic_dir_of(paths[i][0]);
        ck_assert_str_eq(d, paths[i][1]);
        free(d);
    }
}
END_TEST

// ---- boids-run ----------------------------------------------------------------

// The value of the "state-hash: " line of out ("" if none).
static void state_hash(const char *out, char hash[17]) {
    const char *h = strstr(out, "state-hash: ");
    hash[0] = '\0';
    if (h)
        snprintf(hash, 17, "%s", h + 12);
}

// Runs boids-run and checks its exit status; returns its output.
static run_result run_ok(const char *const *argv, int status) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "snap_run");
    ck_assert(r.spawned);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == status, "exit %d (expected %d), stderr: %s",
                  WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, status, r.err);
    return r;
}

// boids-run: 20 steps == 10 + --save, --load + 10 (bodies, 3D); --save-every.
START_TEST(test_run_resume) {
    char h1[17], h2[17];
    run_result a = run_ok(ARGV("boids-run", "--count", "700", "--dim", "3", "--steps", "20", "--bodies", "fish",
                               "--behaviors", "flocking,wander", "--seed", "9", "--quiet"),
                          0);
    state_hash(a.out, h1);
    boids_test_run_free(&a);
    run_result b =
        run_ok(ARGV("boids-run", "--count", "700", "--dim", "3", "--steps", "10", "--bodies", "fish", "--behaviors",
                    "flocking,wander", "--seed", "9", "--quiet", "--save", TMP "/snap_run.boids", "--save-every", "3"),
               0);
    boids_test_run_free(&b);
    run_result c = run_ok(ARGV("boids-run", "--load", TMP "/snap_run.boids", "--steps", "10", "--threads", "1"), 0);
    ck_assert_ptr_nonnull(strstr(c.out, "from " TMP "/snap_run.boids"));
    state_hash(c.out, h2);
    boids_test_run_free(&c);
    ck_assert_uint_eq(strlen(h1), 16);
    ck_assert_str_eq(h1, h2);
    boids_sim *s = load_ok(TMP "/snap_run.boids");
    ck_assert_uint_eq(s->step, 10);
    boids_sim_destroy(s);
    // Flags that set parameters are refused with --load; --save-every needs --save.
    run_result d = run_ok(ARGV("boids-run", "--load", TMP "/snap_run.boids", "--seed", "3"), 2);
    ck_assert_ptr_nonnull(strstr(d.err, "--seed"));
    ck_assert_ptr_nonnull(strstr(d.err, "cannot be combined with --load"));
    boids_test_run_free(&d);
    run_result e = run_ok(ARGV("boids-run", "--count", "10", "--save-every", "3"), 2);
    ck_assert_ptr_nonnull(strstr(e.err, "needs --save"));
    boids_test_run_free(&e);
    run_result g = run_ok(ARGV("boids-run", "--count", "10", "--save", TMP "/snap_no_such_dir/x.boids"), 2);
    boids_test_run_free(&g);
}
END_TEST

// boids-run with a dynamic scenario (varying weights; a circling target):
// 40 steps == 20 + --save, --load + 20, because the snapshot carries the
// schedule (SCEN); the loaded scenario holds the file's title and weights.
// The seeds' rule sets (rules, turn: version 3's PARM rows) survive a save:
// 20 + 20 steps = 40; the loaded groups keep their rule set and turn.
START_TEST(test_run_resume_rules) {
    static const char *const names[] = {"angle-bug", "flocking-tutorial"};
    static const uint32_t rules[] = {BOIDS_RULES_HEADING, BOIDS_RULES_TUTORIAL};
    for (int k = 0; k < 2; k++) {
        char h1[17], h2[17];
        run_result a = run_ok(ARGV("boids-run", "--scenario", names[k], "--steps", "40", "--quiet"), 0);
        state_hash(a.out, h1);
        boids_test_run_free(&a);
        run_result b = run_ok(
            ARGV("boids-run", "--scenario", names[k], "--steps", "20", "--quiet", "--save", TMP "/snap_rules.boids"),
            0);
        boids_test_run_free(&b);
        run_result c = run_ok(ARGV("boids-run", "--load", TMP "/snap_rules.boids", "--steps", "20", "--quiet"), 0);
        state_hash(c.out, h2);
        boids_test_run_free(&c);
        ck_assert_msg(strcmp(h1, h2) == 0, "%s: resumed %s, uninterrupted %s", names[k], h2, h1);
        boids_sim *s = NULL;
        char err[512];
        ck_assert_msg(boids_snapshot_load(TMP "/snap_rules.boids", &s, NULL, err, sizeof err) == BOIDS_OK, "%s", err);
        ck_assert_msg(s->p.group[0].rules == rules[k], "%s: rules %u after loading, expected %u", names[k],
                      s->p.group[0].rules, rules[k]);
        ck_assert_msg(s->p.group[0].turn == 0.05f, "%s: turn %g after loading, expected 0.05", names[k],
                      (double)s->p.group[0].turn);
        boids_sim_destroy(s);
    }
}
END_TEST

START_TEST(test_run_resume_scenario) {
    // (formations and feelers: named leaders in formations and walls, the LEAD and WALL chunks)
    static const char *const names[] = {"flocking-varying", "pursue-circle", "formations", "feelers"};
    for (int k = 0; k < 4; k++) {
        char h1[17], h2[17];
        run_result a = run_ok(ARGV("boids-run", "--scenario", names[k], "--steps", "40", "--quiet"), 0);
        state_hash(a.out, h1);
        boids_test_run_free(&a);
        run_result b = run_ok(
            ARGV("boids-run", "--scenario", names[k], "--steps", "20", "--quiet", "--save", TMP "/snap_scen.boids"), 0);
        ck_assert_msg(!strstr(b.err, "warning"), "stderr: %s", b.err);
        boids_test_run_free(&b);
        run_result c = run_ok(ARGV("boids-run", "--load", TMP "/snap_scen.boids", "--steps", "20", "--quiet"), 0);
        state_hash(c.out, h2);
        boids_test_run_free(&c);
        ck_assert_uint_eq(strlen(h1), 16);
        ck_assert_msg(strcmp(h1, h2) == 0, "%s: resumed %s, uninterrupted %s", names[k], h2, h1);

        boids_scenario *sc = malloc(sizeof *sc);
        boids_sim *s = NULL;
        char err[512];
        ck_assert_ptr_nonnull(sc);
        ck_assert_msg(boids_snapshot_load(TMP "/snap_scen.boids", &s, sc, err, sizeof err) == BOIDS_OK, "%s", err);
        ck_assert(k >= 2 || boids_scenario_is_dynamic(sc));
        ck_assert_uint_eq(s->step, 20);
        if (k == 0) {
            ck_assert_ptr_nonnull(strstr(sc->title, "sine waves"));
            ck_assert_uint_eq(sc->vary_count, 3);
            ck_assert_float_eq(sc->vary[0].lo, 0.5f);
            ck_assert_float_eq(sc->vary[0].period, 600.0f);
        } else if (k == 2) {
            ck_assert_uint_eq(s->p.group[1].leader, 0); // [group.line] (the second group) follows agent 0
            ck_assert_uint_eq(s->p.group[1].formation, BOIDS_FORMATION_LINE);
        } else if (k == 3) {
            ck_assert_uint_gt(s->p.scene.wall_count, 0);
        } else {
            ck_assert_int_eq(sc->target_mode, BOIDS_TARGET_CIRCLE);
            ck_assert_float_eq(sc->target_radius, 80.0f);
            ck_assert(sc->color_set[0]);
        }
        boids_sim_destroy(s);
        free(sc);
    }
}
END_TEST

// boids-run --load of damaged files: exit 2, one line naming the file.
START_TEST(test_run_bad_load) {
    bytes f = good_file();
    const char *path = TMP "/snap_run_bad.boids";
    size_t sizes[] = {5, 200, f.n - 1};
    for (size_t k = 0; k < 4; k++) {
        if (k < 3) {
            boids_test_write(path, f.b, sizes[k]);
        } else {
            f.b[chunk_at(&f, "AGNT") + 20] ^= 1;
            boids_test_write(path, f.b, f.n);
        }
        run_result r = run_ok(ARGV("boids-run", "--load", path), 2);
        ck_assert_msg(strncmp(r.err, "boids-run: --load: " TMP "/snap_run_bad.boids: ", 19 + strlen(path) + 2) == 0,
                      "stderr: %s", r.err);
        ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "not one line: %s", r.err);
        boids_test_run_free(&r);
    }
    run_result r = run_ok(ARGV("boids-run", "--load", TMP "/snap_missing.boids"), 2);
    ck_assert_ptr_nonnull(strstr(r.err, "snap_missing.boids: cannot be opened"));
    boids_test_run_free(&r);
    free(f.b);
}
END_TEST

// boids-run --update sequential: 20 steps == 10 + --save, --load + 10 (the
// snapshot keeps the update order); the loaded sequential run is refused on
// the GPU and with --update parallel, which would continue another run.
START_TEST(test_run_resume_sequential) {
    char h1[17], h2[17];
    run_result a = run_ok(ARGV("boids-run", "--count", "150", "--update", "sequential", "--behaviors",
                               "flocking,wander", "--steps", "20", "--quiet"),
                          0);
    state_hash(a.out, h1);
    boids_test_run_free(&a);
    run_result b = run_ok(ARGV("boids-run", "--count", "150", "--update", "sequential", "--behaviors",
                               "flocking,wander", "--steps", "10", "--quiet", "--save", TMP "/snap_seq.boids"),
                          0);
    boids_test_run_free(&b);
    run_result c = run_ok(ARGV("boids-run", "--load", TMP "/snap_seq.boids", "--steps", "10", "--quiet"), 0);
    state_hash(c.out, h2);
    boids_test_run_free(&c);
    ck_assert_uint_eq(strlen(h1), 16);
    ck_assert_msg(strcmp(h1, h2) == 0, "sequential: resumed %s, uninterrupted %s", h2, h1);
    static const char *const other[][2] = {{"--backend", "gpu"}, {"--update", "parallel"}};
    for (int k = 0; k < 2; k++) {
        run_result d =
            run_ok(ARGV("boids-run", "--load", TMP "/snap_seq.boids", other[k][0], other[k][1], "--steps", "1"), 2);
        ck_assert_msg(strstr(d.err, "sequential") && strstr(d.err, other[k][0]) &&
                          strchr(d.err, '\n') == d.err + strlen(d.err) - 1,
                      "--load of a sequential run with %s %s: %s", other[k][0], other[k][1], d.err);
        boids_test_run_free(&d);
    }
}
END_TEST

// boids-run --load of a run whose flow-field image (a scenario's [flowfield]
// image) changed, went missing, was damaged or became a FIFO since the
// save: exit 2 at once, one line naming the image; the image put back loads.
START_TEST(test_run_flow_image) {
    const char *png = TMP "/snap_field.png", *ini = TMP "/snap_field.ini", *snap = TMP "/snap_field.boids";
    static const char text[] = "[world]\ncount = 60\nsize = 300x300\n[group.a]\nbehaviors = flow\n"
                               "[flowfield]\nkind = image\nimage = snap_field.png\nresolution = 10\n";
    ck_assert(png_grey_write(png, 40, 30, 5));
    boids_test_write(ini, text, sizeof text - 1);
    char h1[17], h2[17];
    run_result a = run_ok(ARGV("boids-run", "--scenario", ini, "--steps", "10", "--quiet"), 0);
    state_hash(a.out, h1);
    boids_test_run_free(&a);
    run_result b = run_ok(ARGV("boids-run", "--scenario", ini, "--steps", "5", "--quiet", "--save", snap), 0);
    boids_test_run_free(&b);
    static const char *const cases[] = {"pixels changed", "No such file", "PNG image", "FIFO"};
    for (int k = 0; k < 4; k++) {
        unlink(png);
        if (k == 0)
            ck_assert(png_grey_write(png, 40, 30, 6));
        else if (k == 2)
            boids_test_write(png, "\x89PNG\r\n\x1a\nIHDR", 12);
        else if (k == 3)
            ck_assert_int_eq(mkfifo(png, 0600), 0);
        run_result r = run_ok(ARGV("boids-run", "--load", snap, "--steps", "5", "--quiet"), 2);
        ck_assert_msg(strstr(r.err, "snap_field.png") && strstr(r.err, cases[k]) &&
                          strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "image %s: expected one line naming it and saying '%s': %s", cases[k], cases[k], r.err);
        boids_test_run_free(&r);
    }
    unlink(png);
    ck_assert(png_grey_write(png, 40, 30, 5)); // the picture of the run, written again
    run_result c = run_ok(ARGV("boids-run", "--load", snap, "--steps", "5", "--quiet"), 0);
    state_hash(c.out, h2);
    boids_test_run_free(&c);
    ck_assert_msg(strcmp(h1, h2) == 0, "image field: resumed %s, uninterrupted %s", h2, h1);
}
END_TEST

// SIGINT / SIGTERM during a long run: the step finishes, --save and
// --export-csv are written, exit 130 / 143, the snapshot loads.
START_TEST(test_run_signals) {
    const int sigs[2] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        unlink(TMP "/snap_sig.boids");
        unlink(TMP "/snap_sig.csv");
        boids_test_signal when = {.needle = "\nstep ", .delay_s = 0.3, .sig = sigs[k]}; // stepping
        run_result r = boids_test_run_signal(RUN_BIN,
                                             ARGV("boids-run", "--count", "2000", "--steps", "1000000", "--bodies",
                                                  "snake", "--stats-every", "1", "--save", TMP "/snap_sig.boids",
                                                  "--export-csv", TMP "/snap_sig.csv"),
                                             TMP, "snap_sig", &when);
        ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 128 + sigs[k], "status %d, stderr: %s", r.status,
                      r.err);
        ck_assert_ptr_nonnull(strstr(r.err, "interrupted after"));
        boids_test_run_free(&r);
        boids_sim *s = load_ok(TMP "/snap_sig.boids");
        ck_assert_uint_gt(s->step, 0);
        ck_assert_uint_lt(s->step, 1000000);
        boids_sim_destroy(s);
        struct stat st;
        ck_assert_int_eq(stat(TMP "/snap_sig.csv", &st), 0);
        ck_assert_int_gt(st.st_size, 2000 * 10);
    }
}
END_TEST

// SIGTERM inside a step far too long to wait for (1.5 million agents, the
// brute index: over 10^12 pairs): the step is cut short, not finished. The
// run exits 143 within a minute (uncut, the step alone takes hours), says so,
// and writes the state of the last whole step: its hash is the one of the
// run that saved it, the snapshot's step counter is unchanged, and so are
// the parameters a scenario's schedule sets before each step (varying
// weights here) and the world's step word.
START_TEST(test_run_cut_short) {
    char h1[17], h2[17];
    run_result a = run_ok(ARGV("boids-run", "--scenario", "flocking-varying", "--count", "1500000", "--world",
                               "24271x24271", "--steps", "1", "--quiet", "--save", TMP "/snap_cut_a.boids"),
                          0);
    state_hash(a.out, h1);
    boids_test_run_free(&a);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    boids_test_signal when = {.needle = "boids-run 0.1", .delay_s = 1.0, .sig = SIGTERM}; // the title, then stepping
    run_result b = boids_test_run_signal(RUN_BIN,
                                         ARGV("boids-run", "--load", TMP "/snap_cut_a.boids", "--index", "brute",
                                              "--steps", "3", "--save", TMP "/snap_cut_b.boids"),
                                         TMP, "snap_cut", &when);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ck_assert_msg(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 128 + SIGTERM, "status %d, stderr: %s", b.status,
                  b.err);
    ck_assert_msg(took < 60.0, "the cut run took %.1f s", took);
    ck_assert_msg(strstr(b.err, "interrupted after 0 steps (the next one was cut short"), "stderr: %s", b.err);
    ck_assert_ptr_nonnull(strstr(b.out, "neighbors 0.000  nearest 0.0000"));
    state_hash(b.out, h2);
    ck_assert_str_eq(h1, h2);
    boids_test_run_free(&b);
    boids_sim *s = load_ok(TMP "/snap_cut_b.boids"), *before = load_ok(TMP "/snap_cut_a.boids");
    ck_assert_uint_eq(s->step, 1);
    ck_assert_msg(memcmp(&s->p.world, &before->p.world, sizeof s->p.world) == 0, "the world's parameters moved");
    ck_assert_msg(memcmp(&s->p.group[0], &before->p.group[0], sizeof s->p.group[0]) == 0,
                  "the group's parameters moved (the schedule's weights)");
    boids_sim_destroy(s);
    boids_sim_destroy(before);
}
END_TEST

// Two threads saving snapshots of different simulations at the same time
// (an ensemble's --jobs, Python threads): every file loads, its CRCs hold
// and it is its own simulation's. The encoders' buffers were once static,
// shared by the threads: a CRC of the other thread's bytes now and then (this
// case caught it in about one run of three, under load less often).
#define SAVES 1500

typedef struct saver {
    boids_sim *sim;
    int index;
    int bad; // saves that failed
    char why[512];
} saver;

static void saver_path(char *path, size_t size, int thread, int k) {
    snprintf(path, size, TMP "/snap_thread%d_%d.boids", thread, k);
}

static void *save_many(void *arg) {
    saver *v = arg;
    for (int k = 0; k < SAVES && !v->bad; k++) {
        char err[512] = "", path[256];
        saver_path(path, sizeof path, v->index, k);
        if (boids_snapshot_save(v->sim, NULL, path, err, sizeof err) != BOIDS_OK) {
            v->bad = 1;
            snprintf(v->why, sizeof v->why, "save %d: %s", k, err);
        }
    }
    return NULL;
}

START_TEST(test_concurrent_saves) {
    saver v[2] = {{.sim = rich_sim(64, 2, 3), .index = 0}, {.sim = rich_sim(96, 3, 5), .index = 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, save_many, &v[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(!v[i].bad, "thread %d: %s", i, v[i].why);
        for (int k = 0; k < SAVES; k++) {
            char err[512] = "", path[256];
            saver_path(path, sizeof path, i, k);
            boids_sim *back = NULL;
            ck_assert_msg(boids_snapshot_load(path, &back, NULL, err, sizeof err) == BOIDS_OK, "thread %d, save %d: %s",
                          i, k, err);
            ck_assert_msg(back->n == v[i].sim->n &&
                              memcmp(&back->p.world, &v[i].sim->p.world, sizeof back->p.world) == 0 &&
                              memcmp(back->p.group, v[i].sim->p.group, sizeof back->p.group) == 0,
                          "thread %d, save %d: another simulation's parameters", i, k);
            boids_sim_destroy(back);
            unlink(path);
        }
        boids_sim_destroy(v[i].sim);
    }
}
END_TEST

// The cases, each in its own TCase; exit 0 when every one passes.
int main(void) {
    const boids_test_case cases[] = {
        {"round_trip", test_round_trip},
        {"resume", test_resume_equals_uninterrupted},
        {"truncated", test_truncated},
        {"magic", test_magic},
        {"bad_crc", test_bad_crc},
        {"version", test_version},
        {"scenario_chunk", test_scenario_chunk},
        {"sizes", test_sizes},
        {"world_options", test_world_options},
        {"margin_band", test_margin_band},
        {"rules_chunk", test_rules_chunk},
        {"models_round_trip", test_models_round_trip},
        {"more_chunk", test_more_chunk},
        {"lead_wall_chunks", test_lead_wall_chunks},
        {"neighborhood_chunk", test_neighborhood_chunk},
        {"values", test_values},
        {"not_a_file", test_not_a_file},
        {"concurrent_saves", test_concurrent_saves},
        {"save_failure", test_save_failure_keeps_old_file},
        {"atomic_write", test_atomic_write},
        {"run_resume", test_run_resume},
        {"run_resume_scenario", test_run_resume_scenario},
        {"run_resume_rules", test_run_resume_rules},
        {"run_bad_load", test_run_bad_load},
        {"run_signals", test_run_signals},
        {"run_cut_short", test_run_cut_short},
        {"glyph_chunk", test_glyph_chunk},
        {"run_resume_sequential", test_run_resume_sequential},
        {"run_flow_image", test_run_flow_image},
    };
    return boids_test_main("snapshot", cases, sizeof cases / sizeof cases[0], TMP);
}
