// tests/test_record.c: recordings (boids/record.h). Through the library:
// frames equal the simulation's states at the recorded steps (2D and 3D,
// several groups), and every kind of damaged file gives its message and
// BOIDS_ERR_* without a crash (a truncated last frame leaves the earlier
// ones readable). Through boids-run: --record / --record-every frames match
// the run's --save snapshots, and a run stopped by SIGINT or SIGKILL leaves
// a readable recording.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

#include "boids/record.h"
#include "boids/snapshot.h"
#include "spawn.h"

#define GOOD TMP "/rec_good.rec"
#define BAD TMP "/rec_bad.rec"
#define N_AGENTS 300u
#define STEPS 12u
#define EVERY 3u
#define FRAMES (STEPS / EVERY + 1u)

extern char **environ;

// A simulation of n agents in dim dimensions with two groups.
static boids_sim *make_sim(uint32_t n, uint32_t dim) {
    boids_params p;
    boids_params_default(&p, n, dim);
    p.world.group_count = 2;
    p.group_share[0] = 2.0f;
    p.group_share[1] = 1.0f;
    p.group[1].maxspeed = 4.0f;
    char what[256] = "";
    boids_result r = boids_params_finalize(&p, what, sizeof what);
    ck_assert_msg(r == BOIDS_OK, "finalize: %s (%s)", boids_result_str(r), what);
    boids_sim *s = NULL;
    ck_assert_int_eq(boids_sim_create(&s, &p, BOIDS_DIST_CLUSTERED), BOIDS_OK);
    return s;
}

// Opens path; fails the test on error.
static boids_recording *open_ok(const char *path) {
    char err[512] = "";
    boids_recording *r = NULL;
    boids_result res = boids_recording_open(path, &r, err, sizeof err);
    ck_assert_msg(res == BOIDS_OK, "open: %s", err);
    ck_assert_ptr_nonnull(r);
    return r;
}

// The agents of s in id order match frame i of r exactly (xyz).
static void assert_frame_is(boids_recording *r, uint32_t i, const boids_sim *s) {
    float(*pos)[4] = malloc(s->n * sizeof *pos), (*vel)[4] = malloc(s->n * sizeof *vel);
    ck_assert(pos && vel);
    uint64_t step = 0;
    char err[512] = "";
    ck_assert_msg(boids_recording_frame(r, i, &step, pos, vel, err, sizeof err) == BOIDS_OK, "frame: %s", err);
    ck_assert_uint_eq(step, s->step);
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t id = s->cur.id[k];
        for (int a = 0; a < 3; a++) {
            ck_assert_msg(pos[id][a] == s->cur.pos[k][a], "frame %u agent %u pos[%d] %g != %g", i, id, a,
                          (double)pos[id][a], (double)s->cur.pos[k][a]);
            ck_assert_msg(vel[id][a] == s->cur.vel[k][a], "frame %u agent %u vel[%d]", i, id, a);
        }
    }
    free(pos);
    free(vel);
}

// Records STEPS steps of a sim every EVERY steps into path (the recorder
// writes only the due steps); checks each frame against the live state.
static void record_and_check(uint32_t dim, const char *path) {
    boids_sim *s = make_sim(N_AGENTS, dim);
    boids_sim *copies[FRAMES];
    char err[512] = "";
    boids_recorder *rec = NULL;
    ck_assert_msg(boids_record_open(path, s, EVERY, &rec, err, sizeof err) == BOIDS_OK, "record: %s", err);
    uint32_t k = 0;
    for (uint32_t step = 0; step <= STEPS; step++) {
        if (step)
            boids_sim_step(s);
        bool written = false;
        ck_assert_msg(boids_record_frame(rec, s, &written, err, sizeof err) == BOIDS_OK, "frame: %s", err);
        ck_assert(written == (step % EVERY == 0));
        if (written) { // a copy of the state through a snapshot
            ck_assert_int_eq(boids_snapshot_save(s, NULL, TMP "/rec_copy.boids", err, sizeof err), BOIDS_OK);
            ck_assert_int_eq(boids_snapshot_load(TMP "/rec_copy.boids", &copies[k++], NULL, err, sizeof err), BOIDS_OK);
        }
    }
    ck_assert_uint_eq(boids_record_frames(rec), FRAMES);
    ck_assert_int_eq(boids_record_close(rec, err, sizeof err), BOIDS_OK);
    boids_recording *r = open_ok(path);
    const boids_recording_info *in = boids_recording_get_info(r);
    ck_assert_uint_eq(in->frames, FRAMES);
    ck_assert_uint_eq(in->count, N_AGENTS);
    ck_assert_uint_eq(in->dim, dim);
    ck_assert_uint_eq(in->every, EVERY);
    ck_assert_uint_eq(in->group_count, 2);
    ck_assert(!in->truncated);
    for (uint32_t a = 0; a < 3; a++)
        ck_assert(in->min[a] == s->p.world.min[a] && in->size[a] == s->p.world.size[a]);
    for (uint32_t i = 0; i < s->n; i++)
        ck_assert_uint_eq(in->group[s->cur.id[i]], s->cur.group[i]);
    for (uint32_t i = FRAMES; i-- > 0;) { // backwards: random access
        assert_frame_is(r, i, copies[i]);
        boids_sim_destroy(copies[i]);
    }
    ck_assert_int_ne(boids_recording_frame(r, FRAMES, NULL, NULL, NULL, err, sizeof err), BOIDS_OK);
    boids_recording_close(r);
    boids_sim_destroy(s);
}

// Frames equal the states at the recorded steps, 2D and 3D.
START_TEST(test_round_trip) {
    record_and_check(2, GOOD);
    record_and_check(3, TMP "/rec_good3.rec");
}
END_TEST

// The bytes of a file.
typedef struct file_bytes {
    unsigned char *b;
    size_t n;
} file_bytes;

// Reads path whole.
static file_bytes read_bytes(const char *path) {
    file_bytes f;
    f.b = (unsigned char *)boids_test_slurp_len(path, &f.n);
    ck_assert_ptr_nonnull(f.b);
    return f;
}

// Stores v little-endian at b.
static void put32(unsigned char *b, uint32_t v) {
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

// Stores v little-endian at b.
static void put64(unsigned char *b, uint64_t v) {
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

// The offset of block k (0 = the groups, 1 = frame 0, ...).
static size_t block_at(const file_bytes *f, uint32_t k) {
    size_t at = BOIDS_RECORD_HEADER_SIZE;
    for (uint32_t i = 0; i < k; i++)
        at += BOIDS_RECORD_BLOCK_SIZE + (size_t)boids_test_le64(f->b + at + 20);
    ck_assert_uint_le(at + BOIDS_RECORD_BLOCK_SIZE, f->n);
    return at;
}

// Recomputes the header's CRC.
static void fix_header(unsigned char *b) {
    put32(b + 60, (uint32_t)crc32(0L, b, 60));
}

// Recomputes the CRC of the block at `at`.
static void fix_block(unsigned char *b, size_t at) {
    uLong c = crc32(0L, b + at, 28);
    c = crc32(c, b + at + 32, (uInt)boids_test_le64(b + at + 20));
    put32(b + at + 28, (uint32_t)c);
}

// Opening `path` fails with r and a message containing `what`, naming the file.
static void open_fails(const char *path, boids_result want, const char *what) {
    char err[512] = "";
    boids_recording *r = (boids_recording *)1;
    boids_result res = boids_recording_open(path, &r, err, sizeof err);
    ck_assert_msg(res == want, "expected %s, got %s (%s)", boids_result_str(want), boids_result_str(res), err);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, what) != NULL, "message '%s' lacks '%s'", err, what);
    ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "message '%s' does not name the file", err);
    ck_assert_ptr_null(strchr(err, '\n'));
}

// Wrong magic, text-mode damage, future and zero version, bad header CRC.
START_TEST(test_header_damage) {
    record_and_check(2, GOOD);
    file_bytes f = read_bytes(GOOD);
    unsigned char *b = malloc(f.n + 8);
    memcpy(b, f.b, f.n);
    b[1] = 'X';
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "not a boids recording");
    // CRLF -> LF: the magic loses its \r.
    memcpy(b, f.b, 4);
    memcpy(b + 4, f.b + 5, f.n - 5);
    boids_test_write(BAD, b, f.n - 1);
    open_fails(BAD, BOIDS_ERR_FORMAT, "line endings");
    memcpy(b, f.b, f.n);
    put32(b + 8, BOIDS_RECORD_VERSION + 1);
    fix_header(b);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "newer than this program");
    memcpy(b, f.b, f.n);
    b[40] ^= 1; // the world, under the header CRC
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "bad CRC in the header");
    boids_test_write(BAD, f.b, 30);
    open_fails(BAD, BOIDS_ERR_FORMAT, "truncated");
    boids_test_write(BAD, f.b, 5);
    open_fails(BAD, BOIDS_ERR_FORMAT, "truncated");
    open_fails(TMP "/rec_missing.rec", BOIDS_ERR_IO, "cannot be opened");
    open_fails(TMP, BOIDS_ERR_IO, "is a directory");
    free(b);
    free(f.b);
}
END_TEST

// Absurd sizes in the header and in blocks are rejected before allocating.
START_TEST(test_sizes) {
    record_and_check(2, GOOD);
    file_bytes f = read_bytes(GOOD);
    unsigned char *b = malloc(f.n);
    struct {
        size_t at;
        uint32_t value;
        const char *what;
    } header[] = {
        {12, 0xffffffffu, "agent count"}, {12, 0, "agent count"}, {16, 7, "dimension"}, {20, 3, "components"},
        {24, 0xffffu, "group count"},     {28, 0, "stride"},
    };
    for (size_t k = 0; k < sizeof header / sizeof header[0]; k++) {
        memcpy(b, f.b, f.n);
        put32(b + header[k].at, header[k].value);
        fix_header(b);
        boids_test_write(BAD, b, f.n);
        open_fails(BAD, BOIDS_ERR_FORMAT, header[k].what);
    }
    // A frame claiming another raw size, or a huge compressed size.
    size_t fr = block_at(&f, 2);
    memcpy(b, f.b, f.n);
    put64(b + fr + 12, (uint64_t)1 << 40);
    fix_block(b, fr);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "holds 1099511627776 bytes");
    memcpy(b, f.b, f.n);
    put64(b + fr + 20, UINT64_MAX);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "compressed size");
    memcpy(b, f.b, f.n);
    memcpy(b + fr, "XXXX", 4);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "expected a FRAM block");
    free(b);
    free(f.b);
}
END_TEST

// A bad CRC in a frame; zstd garbage with a good CRC; a group out of range.
START_TEST(test_payload_damage) {
    record_and_check(2, GOOD);
    file_bytes f = read_bytes(GOOD);
    unsigned char *b = malloc(f.n);
    size_t fr = block_at(&f, 3);
    memcpy(b, f.b, f.n);
    b[fr + 40] ^= 0x10;
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "bad CRC in the FRAM block");
    memcpy(b, f.b, f.n);
    for (size_t i = 0; i < (size_t)boids_test_le64(b + fr + 20); i++)
        b[fr + 32 + i] = (unsigned char)(i * 37u + 11u);
    fix_block(b, fr);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "frame 2");
    // Damaged zstd data after a valid frame header: keep the first 12 bytes.
    memcpy(b, f.b, f.n);
    for (size_t i = 12; i < (size_t)boids_test_le64(b + fr + 20); i++)
        b[fr + 32 + i] ^= 0x5a;
    fix_block(b, fr);
    boids_test_write(BAD, b, f.n);
    open_fails(BAD, BOIDS_ERR_FORMAT, "frame 2");
    free(b);
    free(f.b);

    // NaN in a frame and a group out of range (written by the library).
    boids_sim *s = make_sim(50, 2);
    char err[512] = "";
    boids_recorder *rec = NULL;
    s->cur.group[3] = 9;
    ck_assert_int_eq(boids_record_open(BAD, s, 1, &rec, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_record_close(rec, err, sizeof err), BOIDS_OK);
    open_fails(BAD, BOIDS_ERR_FORMAT, "there are 2 groups");
    s->cur.group[3] = 0;
    ck_assert_int_eq(boids_record_open(BAD, s, 1, &rec, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_record_frame(rec, s, NULL, err, sizeof err), BOIDS_OK);
    boids_sim_step(s);
    s->cur.vel[7][1] = NAN;
    ck_assert_int_eq(boids_record_frame(rec, s, NULL, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_record_close(rec, err, sizeof err), BOIDS_OK);
    open_fails(BAD, BOIDS_ERR_FORMAT, "NaN or infinite velocity");
    boids_sim_destroy(s);
}
END_TEST

// A file cut anywhere inside the last frame: the earlier frames are readable
// and the truncation is reported.
START_TEST(test_truncated) {
    record_and_check(2, GOOD);
    file_bytes f = read_bytes(GOOD);
    size_t last = block_at(&f, FRAMES);
    size_t cuts[] = {last + 1, last + 20, last + BOIDS_RECORD_BLOCK_SIZE, last + BOIDS_RECORD_BLOCK_SIZE + 7, f.n - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        boids_test_write(BAD, f.b, cuts[k]);
        boids_recording *r = open_ok(BAD);
        const boids_recording_info *in = boids_recording_get_info(r);
        ck_assert_uint_eq(in->frames, FRAMES - 1);
        ck_assert(in->truncated);
        ck_assert_ptr_nonnull(strstr(in->note, "truncated"));
        char err[512];
        float(*pos)[4] = malloc(N_AGENTS * sizeof *pos);
        uint64_t step = 0;
        ck_assert_int_eq(boids_recording_frame(r, FRAMES - 2, &step, pos, NULL, err, sizeof err), BOIDS_OK);
        ck_assert_uint_eq(step, (FRAMES - 2) * EVERY);
        free(pos);
        boids_recording_close(r);
    }
    // Cut inside the groups block: an error.
    boids_test_write(BAD, f.b, BOIDS_RECORD_HEADER_SIZE + 10);
    open_fails(BAD, BOIDS_ERR_FORMAT, "truncated");
    // Header and groups only: a valid recording of no frames.
    boids_test_write(BAD, f.b, block_at(&f, 1));
    boids_recording *r = open_ok(BAD);
    ck_assert_uint_eq(boids_recording_get_info(r)->frames, 0);
    ck_assert(!boids_recording_get_info(r)->truncated);
    boids_recording_close(r);
    free(f.b);
}
END_TEST

// Runs boids-run; checks its exit status (stderr shown on failure).
static run_result run_ok(const char *const *argv, int want) {
    run_result r = boids_test_run(RUN_BIN, argv, TMP, "rec_run");
    ck_assert(r.spawned);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == want, "status %d (want %d), stderr: %s", r.status,
                  want, r.err);
    return r;
}

// boids-run --record: the frames are the run's states (checked against
// --save snapshots of runs of the same length).
START_TEST(test_run_record) {
    run_result r = run_ok(ARGV("boids-run", "--count", "400", "--steps", "8", "--record", TMP "/rec_run.rec",
                               "--record-every", "4", "--save", TMP "/rec_run8.boids"),
                          0);
    ck_assert_ptr_nonnull(strstr(r.out, "recorded: " TMP "/rec_run.rec (3 frames, every 4 steps)"));
    boids_test_run_free(&r);
    r = run_ok(ARGV("boids-run", "--count", "400", "--steps", "4", "--quiet", "--save", TMP "/rec_run4.boids"), 0);
    boids_test_run_free(&r);
    boids_recording *rec = open_ok(TMP "/rec_run.rec");
    ck_assert_uint_eq(boids_recording_get_info(rec)->frames, 3);
    const char *snaps[2] = {TMP "/rec_run4.boids", TMP "/rec_run8.boids"};
    for (int k = 0; k < 2; k++) {
        boids_sim *s = NULL;
        char err[512];
        ck_assert_int_eq(boids_snapshot_load(snaps[k], &s, NULL, err, sizeof err), BOIDS_OK);
        assert_frame_is(rec, (uint32_t)k + 1, s);
        boids_sim_destroy(s);
    }
    uint64_t step = 1;
    char err[512];
    ck_assert_int_eq(boids_recording_frame(rec, 0, &step, NULL, NULL, err, sizeof err), BOIDS_OK);
    ck_assert_uint_eq(step, 0);
    boids_recording_close(rec);
    r = run_ok(ARGV("boids-run", "--count", "10", "--steps", "1", "--record-every", "2"), 2);
    ck_assert_ptr_nonnull(strstr(r.err, "needs --record"));
    boids_test_run_free(&r);
    r = run_ok(ARGV("boids-run", "--count", "10", "--steps", "1", "--record", TMP "/no/such/dir/x.rec"), 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--record"));
    boids_test_run_free(&r);
}
END_TEST

// SIGINT: exit 130, the recording is complete; SIGKILL: what was flushed is
// readable (at most the last frame is cut).
START_TEST(test_run_signals) {
    const int sigs[2] = {SIGINT, SIGKILL};
    for (int k = 0; k < 2; k++) {
        unlink(TMP "/rec_sig.rec");
        boids_test_signal when = {.needle = "\nstep ", .times = 3, .sig = sigs[k]}; // a few steps recorded
        run_result rr = boids_test_run_signal(RUN_BIN,
                                              ARGV("boids-run", "--count", "2000", "--steps", "1000000",
                                                   "--stats-every", "1", "--record", TMP "/rec_sig.rec",
                                                   "--record-every", "1"),
                                              TMP, "rec_sig", &when);
        int status = rr.status;
        if (sigs[k] == SIGINT)
            ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d, stderr: %s", status, rr.err);
        else
            ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        boids_test_run_free(&rr);
        boids_recording *r = open_ok(TMP "/rec_sig.rec");
        const boids_recording_info *in = boids_recording_get_info(r);
        ck_assert_uint_ge(in->frames, 3);
        if (sigs[k] == SIGINT)
            ck_assert(!in->truncated);
        char err[512];
        uint64_t step = 0;
        ck_assert_int_eq(boids_recording_frame(r, in->frames - 1, &step, NULL, NULL, err, sizeof err), BOIDS_OK);
        ck_assert_uint_eq(step, in->frames - 1);
        boids_recording_close(r);
    }
}
END_TEST

// NULL for a recorder, recording, simulation, path or output: an error
// (err naming the path, "(null)") or a neutral value; none crashes.
START_TEST(null_handles) {
    char err[256] = "";
    boids_recorder *rec = (boids_recorder *)err;
    ck_assert(boids_record_open(NULL, NULL, 1, &rec, err, sizeof err) == BOIDS_ERR_ARGUMENT && rec == NULL);
    ck_assert_msg(strstr(err, "(null)"), "got '%s'", err);
    bool written = true;
    ck_assert(boids_record_frame(NULL, NULL, &written, NULL, 0) == BOIDS_ERR_ARGUMENT && !written);
    ck_assert(boids_record_frames(NULL) == 0);
    ck_assert(boids_record_close(NULL, NULL, 0) == BOIDS_OK); // closing nothing, as free(NULL)
    boids_recording *r = (boids_recording *)err;
    ck_assert(boids_recording_open(NULL, &r, err, sizeof err) == BOIDS_ERR_ARGUMENT && r == NULL);
    ck_assert(boids_recording_open(TMP "/x.boidsrec", NULL, NULL, 0) == BOIDS_ERR_ARGUMENT);
    ck_assert(boids_recording_get_info(NULL) == NULL);
    ck_assert(boids_recording_frame(NULL, 0, NULL, NULL, NULL, err, sizeof err) == BOIDS_ERR_ARGUMENT);
    boids_recording_close(NULL);
    ck_assert(boids_snapshot_save(NULL, NULL, TMP "/x.boids", err, sizeof err) == BOIDS_ERR_ARGUMENT);
    boids_sim *s = (boids_sim *)err;
    ck_assert(boids_snapshot_load(NULL, &s, NULL, err, sizeof err) == BOIDS_ERR_ARGUMENT && s == NULL);
    ck_assert(boids_snapshot_load(TMP "/x.boids", NULL, NULL, err, sizeof err) == BOIDS_ERR_ARGUMENT);
}
END_TEST

// The cases, each in its own TCase; exit 0 when every one passes.
int main(void) {
    const boids_test_case cases[] = {
        {"round_trip", test_round_trip},   {"header_damage", test_header_damage}, {"sizes", test_sizes},
        {"payload", test_payload_damage},  {"truncated", test_truncated},         {"run_record", test_run_record},
        {"run_signals", test_run_signals},
        {"null_handles", null_handles},
    };
    return boids_test_main("record", cases, sizeof cases / sizeof cases[0], TMP);
}
