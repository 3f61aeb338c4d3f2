// tests/test_pinned.c: the results of a fixed set of runs, pinned. Each run
// (boids-run on the CPU and on the GPU, the viewer on both backends) must
// end with the same `state-hash` and write a --save snapshot whose content
// hashes to the same value as when the run was pinned. A refactor or a
// speed-up never moves them; a change that must (a real bug fix) says so in
// its commit, with the reason, and re-pins.
//
// The snapshot hash is FNV-1a 64 over the payloads of every chunk but ORDR
// (the slot order inside a cell, which the GPU's atomics set differently
// from run to run): HEAD, PARM, AGNT (id order), JNTS (the bodies) and SCEN
// (the scenario's schedule), so it also pins what the state-hash leaves out.
//
// The GPU values are llvmpipe's (the CI device). Every GPU run equals the
// CPU reference bit for bit (the same arguments give the same state-hash):
// the shaders compute sine, cosine, arctangent, logarithm, square roots and
// quotients as the C does, on any driver. The snapshot hashes are pinned
// per backend.
//
// BOIDS_PIN_PRINT=1 prints each run's values instead of failing on a
// mismatch (to re-pin after a deliberate change; the run still fails).
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define MAX_ARGS 48

// One pinned run: which program, its arguments (without --save, which the
// test adds) and the values it must give.
typedef struct pinned_run {
    const char *name;
    bool viewer;                   // boids under xvfb-run (--frames F as a step count), else boids-run
    const char *args[MAX_ARGS];    // NULL-terminated
    unsigned long long state_hash; // boids-run's last line (viewer: 0, it prints none)
    unsigned long long snap_hash;  // the --save snapshot's chunks but ORDR
} pinned_run;

// Every behaviour but wander (the GPU runs without it were pinned first).
#define NO_WANDER                                                                                                      \
    "obstacles,walls,escape,separation,flee,evade,hunt,pursue,seek,arrive,path,flow,view,alignment,cohesion"
// The chapter's sixteen behaviours, "all" when these runs were pinned: a
// behaviour added since (the steering library's) extends "all" and would move them;
// the runs with the newer ones are pinned by name below.
#define FIRST16 NO_WANDER ",wander"
// The 21 behaviours of "all" when the all21 runs were pinned (offset,
// follow, interpose and feelers joined it since: their runs are the
// scenarios' below).
#define ALL21 FIRST16 ",speed,queue,avoid,stay,hide"

static const pinned_run runs[] = {
    // 2D / 3D, each boundary, every behaviour (CPU reference).
    {"cpu-2d-wrap-flocking", false, {"--count", "400", "--steps", "30"}, 0xad555098504bc9ffull, 0x2b2fe1e6bc1989afull},
    {"cpu-3d-wrap-flocking",
     false,
     {"--count", "400", "--steps", "30", "--dim", "3"},
     0x1d19f2529f021bedull,
     0x5b8a0fef4c8e3a31ull},
    {"cpu-2d-walls-all",
     false,
     {"--count", "300", "--steps", "30", "--boundary", "walls", "--behaviors", FIRST16},
     0x583aa4b8384e4065ull,
     0xa95947709273554bull},
    {"cpu-2d-bounce-flocking",
     false,
     {"--count", "300", "--steps", "40", "--boundary", "bounce"},
     0xe36f685f982f847cull,
     0x6e0946854ccf4277ull},
    {"cpu-2d-wrap-all",
     false,
     {"--count", "300", "--steps", "30", "--behaviors", FIRST16, "--seed", "7"},
     0xddc21e8348b31183ull,
     0xf8137afde3b5c0f2ull},
    {"cpu-3d-wrap-all",
     false,
     {"--count", "300", "--steps", "30", "--dim", "3", "--behaviors", FIRST16},
     0x67710cb0173518a6ull,
     0xa5240fd49825cbd9ull},
    {"cpu-3d-walls-all",
     false,
     {"--count", "300", "--steps", "30", "--dim", "3", "--boundary", "walls", "--behaviors", FIRST16},
     0x344ff69a990920a0ull,
     0x46edc78fc69ad7f6ull},
    {"cpu-3d-bounce-flocking",
     false,
     {"--count", "300", "--steps", "40", "--dim", "3", "--boundary", "bounce"},
     0x39a3273b6cc00aadull,
     0x179010177df4c053ull},
    // The other neighbour indexes give the grid's bits.
    {"cpu-2d-wrap-all-quadtree",
     false,
     {"--count", "300", "--steps", "30", "--behaviors", FIRST16, "--seed", "7", "--index", "quadtree"},
     0xddc21e8348b31183ull,
     0xf8137afde3b5c0f2ull},
    {"cpu-3d-walls-all-brute",
     false,
     {"--count", "300", "--steps", "30", "--dim", "3", "--boundary", "walls", "--behaviors", FIRST16, "--index",
      "brute"},
     0x344ff69a990920a0ull,
     0x46edc78fc69ad7f6ull},
    // Weights, field of view, world and the physical parameters.
    {"cpu-2d-tuned",
     false,
     {"--count",      "350",
      "--steps",      "25",
      "--world",      "900x700",
      "--origin",     "-100,50",
      "--weights",    "separation=2,alignment=0.5,cohesion=1.25",
      "--radius",     "40",
      "--separation", "18",
      "--fov",        "270",
      "--maxspeed",   "4",
      "--maxforce",   "0.08",
      "--dt",         "0.5",
      "--seed",       "0x2a"},
     0x72d3c07f49dfeaa2ull,
     0x54dfeb480a673657ull},
    // Groups, scenarios (a dynamic schedule, paths, a flow field), bodies.
    {"cpu-scenario-predators-prey",
     false,
     {"--scenario", "predators-prey", "--steps", "30"},
     0x74285bc4687b396full,
     0x00672e8008d3ff50ull},
    {"cpu-scenario-flocking-varying",
     false,
     {"--scenario", "flocking-varying", "--steps", "30"},
     0x53d518369ba35766ull,
     0xab1f2d92a87f8e3aull},
    {"cpu-scenario-pursue-evade",
     false,
     {"--scenario", "pursue-evade", "--steps", "30"},
     0xdfc3b0bfb0504bb1ull,
     0x403ea6b41b364e82ull},
    {"cpu-scenario-path-following",
     false,
     {"--scenario", "path-following", "--steps", "30"},
     0x27989c228bd1ba7dull,
     0xd340f5ecedd4bbe9ull},
    {"cpu-scenario-flowfield-noise",
     false,
     {"--scenario", "flowfield-noise", "--steps", "30"},
     0xeef09bfeea28983aull,
     0xe2778f5138fa2157ull},
    {"cpu-2d-bodies-snake",
     false,
     {"--count", "200", "--steps", "30", "--bodies", "snake"},
     0xf424980d75d8c2d2ull,
     0x2966d42da29f900aull},
    {"cpu-2d-bodies-chain",
     false,
     {"--count", "200", "--steps", "30", "--bodies", "chain", "--joints", "8", "--boundary", "walls"},
     0xcc9b53691d9ad039ull,
     0xd22c7b3aad5a1de8ull},
    {"cpu-3d-bodies-fish",
     false,
     {"--count", "200", "--steps", "30", "--dim", "3", "--bodies", "fish"},
     0xad52ee3568b9a2f8ull,
     0x0c5f79cd5db5eb4eull},
    // The GPU backend (llvmpipe).
    {"gpu-2d-wrap-flocking",
     false,
     {"--count", "400", "--steps", "30", "--backend", "gpu"},
     0xad555098504bc9ffull,
     0x01ba3c8beab41860ull},
    {"gpu-3d-wrap-flocking",
     false,
     {"--count", "400", "--steps", "30", "--dim", "3", "--backend", "gpu"},
     0x1d19f2529f021bedull,
     0xa11f93083beee86aull},
    {"gpu-2d-walls-nowander",
     false,
     {"--count", "300", "--steps", "30", "--boundary", "walls", "--behaviors", NO_WANDER, "--backend", "gpu"},
     0x05aa910aa6a4b405ull,
     0x2029d3a34f899030ull},
    {"gpu-3d-bounce-nowander",
     false,
     {"--count", "300", "--steps", "30", "--dim", "3", "--boundary", "bounce", "--behaviors", NO_WANDER, "--backend",
      "gpu"},
     0x8917567c2273047cull,
     0x304af6f1fbee2956ull},
    {"gpu-2d-wrap-all",
     false,
     {"--count", "300", "--steps", "30", "--behaviors", FIRST16, "--backend", "gpu"},
     0x1447c7a5f341f74dull,
     0x819243ec1b116f71ull},
    // Every behaviour of "all" then (ALL21: the steering library's speed,
    // queue, avoid, stay, hide included), with a target speed of its own
    // (the MORE chunk), on both backends. Their snapshot hashes moved when
    // behaviours 21..24 joined: the MORE chunk holds their weights (1).
    {"cpu-2d-wrap-all21",
     false,
     {"--count", "300", "--steps", "30", "--behaviors", ALL21, "--seed", "7", "--scenario", "target-speed"},
     0xe70c20cc33a6651full,
     0xd821c5d7e8e61eb7ull},
    {"gpu-2d-wrap-all21",
     false,
     {"--count", "300", "--steps", "30", "--behaviors", ALL21, "--backend", "gpu", "--scenario", "target-speed"},
     0x9022ca56fa36b27bull,
     0xb86968dff16e84e6ull},
    {"gpu-scenario-predators-prey",
     false,
     {"--scenario", "predators-prey", "--steps", "30", "--backend", "gpu"},
     0x74285bc4687b396full,
     0x34ceee5f0cf49fabull},
    {"gpu-scenario-flocking-varying",
     false,
     {"--scenario", "flocking-varying", "--steps", "30", "--backend", "gpu"},
     0x53d518369ba35766ull,
     0x34947f722efed6b5ull},
    {"gpu-2d-bodies-snake",
     false,
     {"--count", "200", "--steps", "30", "--bodies", "snake", "--backend", "gpu"},
     0xf424980d75d8c2d2ull,
     0xab5482cc1fd2a4edull},
    {"gpu-3d-bodies-fish",
     false,
     {"--count", "200", "--steps", "30", "--dim", "3", "--bodies", "fish", "--backend", "gpu"},
     0xad52ee3568b9a2f8ull,
     0xc4972dee324e8c11ull},
    // Offset pursuit in four formations, leader following, interpose (an
    // agent and the target) and feelers against walls: named leaders and
    // walls in scenario files (the LEAD and WALL chunks), on both backends.
    {"cpu-scenario-formations",
     false,
     {"--scenario", "formations", "--steps", "30"},
     0xd865d895fb5c0e20ull,
     0x0b62600763dc73f9ull},
    {"gpu-scenario-formations",
     false,
     {"--scenario", "formations", "--steps", "30", "--backend", "gpu"},
     0xd865d895fb5c0e20ull,
     0x6a9a42d2ec5c18d2ull},
    {"cpu-scenario-follow-leader",
     false,
     {"--scenario", "follow-leader", "--steps", "30"},
     0xbce90bfb3cf19034ull,
     0x8e6552596283d280ull},
    {"gpu-scenario-follow-leader",
     false,
     {"--scenario", "follow-leader", "--steps", "30", "--backend", "gpu"},
     0xbce90bfb3cf19034ull,
     0x7ff9d9ef939edacbull},
    {"cpu-scenario-interpose",
     false,
     {"--scenario", "interpose", "--steps", "30"},
     0xf029f1031a581d8eull,
     0x1fa6ba1ccd03c2f6ull},
    {"gpu-scenario-interpose",
     false,
     {"--scenario", "interpose", "--steps", "30", "--backend", "gpu"},
     0xf029f1031a581d8eull,
     0x2d3885fb8120f951ull},
    {"cpu-scenario-feelers",
     false,
     {"--scenario", "feelers", "--steps", "30"},
     0xc527896925e28a23ull,
     0x462f1b0246dd77b6ull},
    {"gpu-scenario-feelers",
     false,
     {"--scenario", "feelers", "--steps", "30", "--backend", "gpu"},
     0xc527896925e28a23ull,
     0x5f64f2d0018707a9ull},
    // The collective-motion models: Vicsek 1995 and Couzin 2002's
    // two phases, their noise from the RNG (the RULE chunk's noise word).
    {"cpu-scenario-vicsek",
     false,
     {"--scenario", "vicsek", "--steps", "30"},
     0x85d8ec6886308f51ull,
     0x0e5be938b2c404e7ull},
    {"gpu-scenario-vicsek",
     false,
     {"--scenario", "vicsek", "--steps", "30", "--backend", "gpu"},
     0x85d8ec6886308f51ull,
     0x74ad18d422a75894ull},
    {"cpu-scenario-couzin-mill",
     false,
     {"--scenario", "couzin-mill", "--steps", "30"},
     0x8625cd97823def73ull,
     0x9cb5aab4a1a585cbull},
    {"gpu-scenario-couzin-mill",
     false,
     {"--scenario", "couzin-mill", "--steps", "30", "--backend", "gpu"},
     0x8625cd97823def73ull,
     0xad8680d38cd4607cull},
    {"cpu-scenario-couzin-parallel",
     false,
     {"--scenario", "couzin-parallel", "--steps", "30"},
     0x119e460ddc94be63ull,
     0xfbbcc86b15598f4eull},
    {"gpu-scenario-couzin-parallel",
     false,
     {"--scenario", "couzin-parallel", "--steps", "30", "--backend", "gpu"},
     0x119e460ddc94be63ull,
     0xc3858d39f44bebbdull},
    // The viewer: one step a frame, keys toggling behaviours, bodies and the boundary.
    {"viewer-cpu-2d",
     true,
     {"--backend", "cpu", "--count", "300", "--frames", "20", "--vsync", "off"},
     0,
     0x56d54e544551a92bull},
    {"viewer-gpu-2d",
     true,
     {"--backend", "gpu", "--count", "300", "--frames", "20", "--vsync", "off"},
     0,
     0xd05ad0bc90162f30ull},
    {"viewer-cpu-keys",
     true,
     {"--backend", "cpu", "--count", "300", "--frames", "24", "--vsync", "off", "--keys",
      "2:1,3:4,4:0,5:b,6:k,7:],8:=,9:=,10:9"},
     0,
     0x90a4ffb3c804636bull},
    {"viewer-gpu-keys",
     true,
     {"--backend", "gpu", "--count", "300", "--frames", "24", "--vsync", "off", "--keys",
      "2:1,3:4,4:0,5:b,6:k,7:],8:=,9:=,10:9"},
     0,
     0xac6c9ace4d38d5f8ull},
    {"viewer-gpu-scenario",
     true,
     {"--backend", "gpu", "--scenario", "predators-prey", "--frames", "15", "--vsync", "off"},
     0,
     0x8371c66a1d24d209ull},
    // Dynamic scenarios in the viewer: varying weights, a circling target.
    {"viewer-gpu-varying",
     true,
     {"--backend", "gpu", "--scenario", "flocking-varying", "--frames", "30", "--vsync", "off"},
     0,
     0x2899f834d1386720ull},
    {"viewer-cpu-circling",
     true,
     {"--backend", "cpu", "--scenario", "pursue-circle", "--frames", "30", "--vsync", "off"},
     0,
     0x8df36e231439a612ull},
    {"viewer-cpu-3d-bodies",
     true,
     {"--backend", "cpu", "--count", "200", "--dim", "3", "--bodies", "fish", "--frames", "15", "--vsync", "off"},
     0,
     0x9d7488118fcf4eb9ull},
    {"viewer-gpu-3d-walls",
     true,
     {"--backend", "gpu", "--count", "300", "--dim", "3", "--boundary", "walls", "--frames", "15", "--vsync", "off"},
     0,
     0xbe3ab9e7be8dbeabull},
};

// FNV-1a 64 over bytes, continuing from h.
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// The hash of a snapshot's chunks (tags and payloads) but ORDR.
static unsigned long long snapshot_hash(const char *path) {
    size_t len = 0;
    unsigned char *b = (unsigned char *)boids_test_slurp_len(path, &len);
    ck_assert_msg(b != NULL, "expected the run to write its snapshot %s", path);
    ck_assert_msg(len >= 12 && memcmp(b,
                                      "\x89"
                                      "BDS\r\n\x1a\n",
                                      8) == 0,
                  "expected %s to be a .boids snapshot", path);
    uint64_t h = 0xcbf29ce484222325ull;
    size_t at = 12;
    bool end = false;
    while (!end) {
        ck_assert_msg(at + 12 <= len, "expected another chunk at byte %zu of %s (%zu bytes)", at, path, len);
        uint64_t n = boids_test_le64(b + at + 4);
        ck_assert_msg(n <= len - at - 16, "expected chunk %.4s at byte %zu of %s to fit", (const char *)b + at, at,
                      path);
        end = memcmp(b + at, "END ", 4) == 0;
        if (memcmp(b + at, "ORDR", 4) != 0) {
            h = fnv(h, b + at, 4);
            h = fnv(h, b + at + 12, (size_t)n);
        }
        at += 16 + (size_t)n;
    }
    free(b);
    return h;
}

START_TEST(pinned) {
    const pinned_run *p = &runs[_i];
    char save[512];
    snprintf(save, sizeof save, TMP "/pinned-%s.boids", p->name);
    unlink(save);
    const char *argv[MAX_ARGS + 8];
    int n = 0;
    const char *bin = BOIDS_BIN_DIR "/boids-run";
    if (p->viewer) {
        char tag[96];
        snprintf(tag, sizeof tag, "pinned-%s", p->name);
        n = boids_test_xvfb(argv, tag);
        bin = n ? argv[0] : BOIDS_BIN_DIR "/boids";
        argv[n++] = BOIDS_BIN_DIR "/boids";
    } else {
        argv[n++] = "boids-run";
        argv[n++] = "--quiet";
    }
    for (int i = 0; p->args[i]; i++)
        argv[n++] = p->args[i];
    argv[n++] = "--save";
    argv[n++] = save;
    argv[n] = NULL;
    run_result r = boids_test_run(bin, argv, TMP, p->name);
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
                  "%s: expected exit 0, got status %d; stderr: %s", p->name, r.status, r.err);
    char hex[17] = "0";
    if (!p->viewer)
        boids_test_state_hash(&r, hex);
    unsigned long long state = strtoull(hex, NULL, 16);
    unsigned long long snap = snapshot_hash(save);
    if (getenv("BOIDS_PIN_PRINT"))
        printf("    {\"%s\", 0x%016llxull, 0x%016llxull},\n", p->name, state, snap), fflush(stdout);
    ck_assert_msg(state == p->state_hash, "%s: expected state-hash %016llx (pinned), got %016llx", p->name,
                  p->state_hash, state);
    ck_assert_msg(snap == p->snap_hash, "%s: expected snapshot hash %016llx (pinned), got %016llx", p->name,
                  p->snap_hash, snap);
    boids_test_run_free(&r);
    unlink(save);
}
END_TEST

// The finer grid (--grid-fine M) changes which cells are read, never which
// neighbours count (the distance test decides): every pinned boids-run, on
// the CPU and the GPU, gives its pinned state-hash at M = 2 and 3 (the
// snapshot's PARM holds the finer grid's cells, so only the state-hash is
// compared). _i: run index * 2 + (M - 2).
START_TEST(pinned_grid_fine) {
    const pinned_run *p = &runs[_i / 2];
    const char *fine = _i % 2 ? "3" : "2";
    const char *argv[MAX_ARGS + 8];
    int n = 0;
    argv[n++] = "boids-run";
    argv[n++] = "--quiet";
    for (int i = 0; p->args[i]; i++)
        argv[n++] = p->args[i];
    argv[n++] = "--grid-fine";
    argv[n++] = fine;
    argv[n] = NULL;
    char tag[128];
    snprintf(tag, sizeof tag, "%s-fine%s", p->name, fine);
    run_result r = boids_test_run(BOIDS_BIN_DIR "/boids-run", argv, TMP, tag);
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
                  "%s --grid-fine %s: expected exit 0, got status %d; stderr: %s", p->name, fine, r.status, r.err);
    char hex[17] = "0";
    boids_test_state_hash(&r, hex);
    unsigned long long state = strtoull(hex, NULL, 16);
    ck_assert_msg(state == p->state_hash,
                  "%s --grid-fine %s: expected state-hash %016llx (pinned at M = 1), got %016llx", p->name, fine,
                  p->state_hash, state);
    boids_test_run_free(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("pinned");
    TCase *cpu = tcase_create("cpu"), *gpu = tcase_create("gpu"), *viewer = tcase_create("viewer");
    int n = (int)(sizeof runs / sizeof runs[0]), first_gpu = n, first_viewer = n;
    for (int i = n - 1; i >= 0; i--) {
        if (runs[i].viewer)
            first_viewer = i;
        else if (strncmp(runs[i].name, "gpu-", 4) == 0)
            first_gpu = i;
    }
    tcase_add_loop_test(cpu, pinned, 0, first_gpu);
    tcase_add_loop_test(gpu, pinned, first_gpu, first_viewer);
    tcase_add_loop_test(viewer, pinned, first_viewer, n);
    TCase *fine = tcase_create("grid_fine");
    tcase_add_loop_test(fine, pinned_grid_fine, 0, 2 * first_viewer);
    suite_add_tcase(s, fine);
    suite_add_tcase(s, cpu);
    suite_add_tcase(s, gpu);
    suite_add_tcase(s, viewer);
    return boids_test_main_suite(s, TMP);
}
