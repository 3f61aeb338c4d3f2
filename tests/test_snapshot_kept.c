// tests/test_snapshot_kept.c: a .boids snapshot keeps every setting that
// changes the trajectory. Walks the parameter registry (each row set to a
// value that is not its default) and the settings outside it (the update
// order, the neighbour index, seeds, the dimension, the distribution, every
// small shipped scenario: targets, schedules, paths, obstacles, walls,
// bodies, groups, flow fields), and an image flow field of the test's own:
// for each, N steps + save + load + N steps hash as 2N uninterrupted steps,
// and the loaded parameters are the saved ones field by field. An image
// that changed, went missing, was damaged or became a FIFO after the save
// is refused naming it.
#define _GNU_SOURCE // memmem
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boids/engine.h"
#include "boids/registry.h"
#include "boids/scenario.h"
#include "png_grey.h"
#include "spawn.h"

#define STEPS 6u
#define SNAP TMP "/kept.boids"

// The parameters a snapshot carries, part by part (the flow field but its
// vectors, which the loaded sim builds itself): the name of the first that
// differs, or NULL.
static const char *params_differ(const boids_params *a, const boids_params *b) {
    if (memcmp(&a->world, &b->world, sizeof a->world) != 0)
        return "world";
    if (memcmp(a->group, b->group, sizeof a->group) != 0)
        return "group";
    if (memcmp(&a->scene, &b->scene, sizeof a->scene) != 0)
        return "scene";
    if (memcmp(a->body, b->body, sizeof a->body) != 0)
        return "body";
    if (memcmp(a->group_share, b->group_share, sizeof a->group_share) != 0)
        return "group share";
    boids_flowfield fa = a->flow, fb = b->flow;
    fa.vec = fb.vec = NULL;
    fa.dims[3] = fb.dims[3] = 0; // set by a build, which only a following group makes
    if (memcmp(&fa, &fb, sizeof fa) != 0)
        return "flow field";
    return NULL;
}

// Runs the engine of desc 2 * STEPS steps (hash *whole), and STEPS steps,
// saved, loaded with an empty desc (as `boids-run --load FILE`) and STEPS
// more (hash *resumed); the loaded engine's parameters must be the saved
// ones. `what` names the case in messages.
static void resume_matches(const boids_engine_desc *desc, const char *what) {
    char err[1200] = "";
    boids_engine *a = NULL, *b = NULL, *c = NULL;
    boids_result r = boids_engine_create(&a, desc, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "%s: create: %s", what, err);
    ck_assert_int_eq(boids_engine_step(a, 2 * STEPS, NULL), BOIDS_OK);
    uint64_t whole = boids_engine_hash(a);
    boids_engine_destroy(a);

    ck_assert_int_eq(boids_engine_create(&b, desc, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_engine_step(b, STEPS, NULL), BOIDS_OK);
    r = boids_engine_save(b, SNAP, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "%s: save: %s", what, err);
    static const boids_engine_desc none = {0};
    r = boids_engine_load(&c, SNAP, &none, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "%s: load: %s", what, err);
    const char *differs = params_differ(boids_engine_params(b), boids_engine_params(c));
    ck_assert_msg(!differs, "%s: the loaded %s parameters are not the saved ones", what, differs);
    ck_assert_msg(boids_engine_update(c) == boids_engine_update(b), "%s: saved with update order %d, loaded %d", what,
                  (int)boids_engine_update(b), (int)boids_engine_update(c));
    boids_engine_destroy(b);
    ck_assert_int_eq(boids_engine_step(c, STEPS, NULL), BOIDS_OK);
    uint64_t resumed = boids_engine_hash(c);
    boids_engine_destroy(c);
    ck_assert_msg(resumed == whole, "%s: %u steps + save + load + %u steps hash %016llx; %u uninterrupted %016llx",
                  what, STEPS, STEPS, (unsigned long long)resumed, 2 * STEPS, (unsigned long long)whole);
}

// A value of registry row `in` that is not its default and that finalize
// takes with the base behaviours (flocking, wander and those the row's
// number steers).
static void sample(const boids_param_info *in, char *out, size_t size) {
    switch (in->kind) {
    case BOIDS_PK_FLOAT:
        if (in->def > 0.0)
            snprintf(out, size, "%g", in->def * 0.6);
        else
            snprintf(out, size, "%g", in->hi < 1.5 ? in->hi / 2.0 : 0.75);
        break;
    case BOIDS_PK_DEGREES:
        snprintf(out, size, "270");
        break;
    case BOIDS_PK_UINT:
        snprintf(out, size, "%.0f", in->lo + 2.0);
        break;
    case BOIDS_PK_CHOICE:
        snprintf(out, size, "%s", in->choices[1] ? in->choices[1] : in->choices[0]);
        break;
    case BOIDS_PK_RANGE:
        snprintf(out, size, in == &boids_param_table[BOIDS_PARAM_MAXFORCE_RANGE] ? "0.03,0.08" : "2,4");
        break;
    case BOIDS_PK_AGENT:
        snprintf(out, size, "3");
        break;
    case BOIDS_PK_AGENTS:
        snprintf(out, size, "3,4");
        break;
    case BOIDS_PK_VECTOR:
        snprintf(out, size, "-10,5");
        break;
    case BOIDS_PK_POINT:
        snprintf(out, size, "10,20");
        break;
    case BOIDS_PK_EXTENTS:
        snprintf(out, size, "300x240");
        break;
    case BOIDS_PK_BEHAVIORS:
        snprintf(out, size, "flocking,seek,wander");
        break;
    case BOIDS_PK_WEIGHTS:
        snprintf(out, size, "separation=2,wander=0.5");
        break;
    }
}

// Parses `text` as row id into v (the test fails when it is refused).
static void parse(boids_param_values *v, boids_param_id id, const char *text) {
    char problem[400] = "", expected[400] = "";
    const char *bad = boids_param_parse(v, id, text, problem, sizeof problem, expected, sizeof expected);
    ck_assert_msg(!bad, "--%s %s: %s (expected %s)", boids_param_table[id].flag, text, problem, expected);
}

// The finalized parameters of 64 agents in 2D (seed 7) with the values v.
static void params_of(const boids_param_values *v, boids_params *p) {
    boids_param_start start = {.count = 64, .dim = 2, .seed_set = true, .seed = 7};
    char err[600] = "";
    boids_result r = boids_params_from_values(&start, v, true, p, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "parameters: %s", err);
    r = boids_params_finalize(p, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "finalize: %s", err);
}

// Every row of the registry, set to a value that is not its default: the
// parameters differ from the base's (the value reaches boids_params, which a
// snapshot holds whole), and the resumed run is the uninterrupted one.
START_TEST(test_registry_rows_kept) {
    boids_param_values *base = calloc(1, sizeof *base), *v = calloc(1, sizeof *v);
    ck_assert(base && v);
    boids_params p0, p;
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        memset(base, 0, sizeof *base);
        char behaviors[400] = "flocking,wander", steered[300] = "", text[400];
        if (in->kind == BOIDS_PK_FLOAT && in->aux) { // the behaviours that use the number
            boids_behaviors_text(in->aux, ",", steered, sizeof steered);
            snprintf(behaviors + strlen(behaviors), sizeof behaviors - strlen(behaviors), ",%s", steered);
        }
        // The rows that need another: the models' noises their rule set
        // (Vicsek's: alignment alone; Couzin's: flocking's three rules), a
        // body's joints and length a body.
        if (i == BOIDS_PARAM_ETA || i == BOIDS_PARAM_SIGMA) { // (Couzin's: the three zones)
            snprintf(behaviors, sizeof behaviors, i == BOIDS_PARAM_ETA ? "alignment" : "flocking");
            parse(base, BOIDS_PARAM_RULES, i == BOIDS_PARAM_ETA ? "vicsek" : "couzin");
        }
        parse(base, BOIDS_PARAM_BEHAVIORS, behaviors);
        if (i == BOIDS_PARAM_JOINTS || i == BOIDS_PARAM_BODY_LENGTH)
            parse(base, BOIDS_PARAM_BODIES, "chain");
        params_of(base, &p0);
        *v = *base;
        sample(in, text, sizeof text);
        parse(v, (boids_param_id)i, text);
        params_of(v, &p);
        char what[600];
        snprintf(what, sizeof what, "--%s %s (with --behaviors %s)", in->flag, text, behaviors);
        ck_assert_msg(params_differ(&p0, &p), "%s: the value changes nothing a snapshot holds (boids_params)", what);
        boids_engine_desc d = {.params = &p};
        resume_matches(&d, what);
    }
    free(base);
    free(v);
}
END_TEST

// The settings outside the registry: the update order (sequential: the
// chapter's sketch), the neighbour index and threads (the same bits), the
// seed, the dimension and the clustered start.
START_TEST(test_settings_kept) {
    boids_params p;
    boids_params_default(&p, 200, 2);
    p.group[0].behaviors |= BOIDS_BIT(BOIDS_BI_WANDER);
    resume_matches(&(boids_engine_desc){.params = &p, .update = BOIDS_UPDATE_SEQUENTIAL}, "update sequential");
    resume_matches(&(boids_engine_desc){.params = &p, .index = BOIDS_INDEX_QUADTREE}, "index quadtree");
    resume_matches(&(boids_engine_desc){.params = &p, .index = BOIDS_INDEX_BRUTE, .threads = 1}, "index brute");
    resume_matches(&(boids_engine_desc){.params = &p, .seed = 99}, "seed 99");
    resume_matches(&(boids_engine_desc){.params = &p, .distribution = BOIDS_DIST_CLUSTERED}, "clustered");
    boids_params q;
    boids_params_default(&q, 200, 3);
    resume_matches(&(boids_engine_desc){.params = &q, .update = BOIDS_UPDATE_SEQUENTIAL}, "3D sequential");
    // A sequential run's snapshot says so; a parallel one's has no UPDT.
    char err[1200];
    boids_engine *e = NULL;
    ck_assert_int_eq(boids_engine_create(&e, &(boids_engine_desc){.params = &p}, err, sizeof err), BOIDS_OK);
    ck_assert_int_eq(boids_engine_save(e, SNAP, err, sizeof err), BOIDS_OK);
    boids_engine_destroy(e);
    size_t n = 0;
    char *b = boids_test_slurp_len(SNAP, &n);
    ck_assert_msg(b && !memmem(b, n, "UPDT", 4), "a parallel run's snapshot holds an UPDT chunk");
    free(b);
    // The GPU has only the parallel update: a sequential snapshot is refused there.
    boids_engine *s = NULL;
    ck_assert_int_eq(
        boids_engine_create(&s, &(boids_engine_desc){.params = &p, .update = BOIDS_UPDATE_SEQUENTIAL}, err, sizeof err),
        BOIDS_OK);
    ck_assert_int_eq(boids_engine_save(s, SNAP, err, sizeof err), BOIDS_OK);
    boids_engine_destroy(s);
    b = boids_test_slurp_len(SNAP, &n);
    ck_assert_msg(b && memmem(b, n, "UPDT", 4), "a sequential run's snapshot lacks its UPDT chunk");
    free(b);
    boids_engine *g = NULL;
    boids_result r = boids_engine_load(&g, SNAP, &(boids_engine_desc){.backend = BOIDS_BACKEND_GPU}, err, sizeof err);
    ck_assert_msg(r == BOIDS_ERR_ARGUMENT && strstr(err, "sequential"),
                  "a sequential snapshot on the GPU: expected BOIDS_ERR_ARGUMENT naming sequential, got %s: %s",
                  boids_result_str(r), err);
}
END_TEST

// Every shipped scenario of at most 2000 agents (their targets, schedules,
// paths, obstacles, walls, bodies, groups, flow fields, rule sets).
START_TEST(test_scenarios_kept) {
    const char *dir = getenv("BOIDS_SCENARIOS");
    ck_assert_msg(dir, "BOIDS_SCENARIOS names the shipped scenarios");
    DIR *d = opendir(dir);
    ck_assert_msg(d, "%s: %s", dir, strerror(errno));
    boids_scenario *sc = malloc(sizeof *sc);
    ck_assert_ptr_nonnull(sc);
    uint32_t tried = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024], err[1200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        boids_result r = boids_scenario_load(path, sc, err, sizeof err);
        ck_assert_msg(r == BOIDS_OK, "%s", err);
        if (sc->params.world.count > 2000)
            continue;
        resume_matches(&(boids_engine_desc){.scenario = sc}, de->d_name);
        tried++;
    }
    closedir(d);
    free(sc);
    ck_assert_uint_ge(tried, 30);
}
END_TEST

#define IMAGE TMP "/kept-field.png"

// The parameters of an image flow field (IMAGE, 64 x 48) that 150 agents follow.
static void image_params(boids_params *p) {
    boids_params_default(p, 150, 2);
    p->group[0].behaviors |= BOIDS_BIT(BOIDS_BI_FLOW);
    p->flow.kind = BOIDS_FLOW_IMAGE;
    p->flow.resolution = 12.0f;
    snprintf(p->flow.image, sizeof p->flow.image, "%s", IMAGE);
}

// Loads SNAP; expects r and a message naming the image and holding `needle`.
static void load_refused(boids_result expected, const char *needle, const char *what) {
    char err[1200] = "";
    boids_engine *e = NULL;
    boids_result r = boids_engine_load(&e, SNAP, &(boids_engine_desc){0}, err, sizeof err);
    ck_assert_msg(r == expected && !e, "%s: expected %s, got %s: %s", what, boids_result_str(expected),
                  boids_result_str(r), err);
    ck_assert_msg(strstr(err, IMAGE) && strstr(err, needle), "%s: the message does not name the image and say '%s': %s",
                  what, needle, err);
}

// An image flow field resumes bit for bit; after the save, an image whose
// pixels changed is refused (the same pixels written again are not), and a
// missing, damaged or FIFO image is BOIDS_ERR_IO naming it, at once.
START_TEST(test_flow_image_kept) {
    ck_assert(png_grey_write(IMAGE, 64, 48, 1));
    boids_params p;
    image_params(&p);
    resume_matches(&(boids_engine_desc){.params = &p}, "image flow field");
    size_t n = 0;
    char *b = boids_test_slurp_len(SNAP, &n);
    ck_assert_msg(b && memmem(b, n, "FIMG", 4), "the snapshot of an image field lacks its FIMG chunk");
    free(b);

    ck_assert(png_grey_write(IMAGE, 64, 48, 1)); // the same picture again: loads
    boids_engine *e = NULL;
    char err[1200];
    ck_assert_msg(boids_engine_load(&e, SNAP, &(boids_engine_desc){0}, err, sizeof err) == BOIDS_OK, "%s", err);
    boids_engine_destroy(e);
    ck_assert(png_grey_write(IMAGE, 64, 48, 2)); // another picture at the path
    load_refused(BOIDS_ERR_FORMAT, "pixels changed", "a changed image");
    unlink(IMAGE);
    load_refused(BOIDS_ERR_IO, "No such file", "a missing image");
    boids_test_write(IMAGE, "\x89PNG\r\n\x1a\n", 8);
    load_refused(BOIDS_ERR_IO, "PNG", "a damaged image");
    unlink(IMAGE);
    ck_assert_int_eq(mkfifo(IMAGE, 0600), 0);
    load_refused(BOIDS_ERR_IO, "FIFO", "a FIFO in place of the image");
    // A fresh engine on a missing image: a bad input naming it, not memory.
    unlink(IMAGE);
    boids_result r = boids_engine_create(&e, &(boids_engine_desc){.params = &p}, err, sizeof err);
    ck_assert_msg(r == BOIDS_ERR_IO && strstr(err, IMAGE),
                  "a missing image: expected BOIDS_ERR_IO naming it, got %s: %s", boids_result_str(r), err);
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"registry_rows", test_registry_rows_kept},
        {"settings", test_settings_kept},
        {"scenarios", test_scenarios_kept},
        {"flow_image", test_flow_image_kept},
    };
    return boids_test_main("snapshot_kept", cases, sizeof cases / sizeof cases[0], TMP);
}
