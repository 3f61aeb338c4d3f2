// tests/test_interrupt.c: a signal ends the largest run promptly. SIGINT
// during the set-up of 16,777,216 agents ends the program at once with
// 130 and one line, writing nothing; SIGTERM while it steps finishes with
// 143, its statistics and its state-hash, well within the bound (the final
// hash used to take ten seconds there on two cores). The hash that makes
// that fast (agents gathered into id order by the threads, in blocks) is
// the definition's: FNV-1a of the id-ordered arrays, for any thread count
// and counts around the block size. Label core.
#include <check.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boids/core.h"
#include "layouts.h"
#include "spawn.h"

extern char **environ;

#define LARGEST "16777216"
// A bound against waiting for a slow exit (minutes before), not a speed
// figure: the exit after the signal takes about a second on a workstation.
#define EXIT_BOUND_S 10.0

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// What a signalled run did: its wait status, its output, and the seconds
// from the signal to its exit.
typedef struct signalled {
    int status;
    bool silent; // nothing on stdout yet when signalled (still setting up)
    double exit_s;
    char *out, *err;
} signalled;

// Runs boids-run with argv; once `needle` is in its stdout (NULL: at the
// start) and delay_s more, sends sig and times the exit.
static signalled run_signalled(const char *const *argv, const char *needle, double delay_s, int sig) {
    static unsigned serial;
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/run-%u.out", TMP, serial);
    snprintf(err_path, sizeof err_path, "%s/run-%u.err", TMP, serial++);
    pid_t pid;
    int rc = boids_test_start(RUN_BIN, argv, out_path, err_path, environ, &pid);
    ck_assert_msg(rc == 0, "cannot start %s: %s", RUN_BIN, strerror(rc));
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; needle && i < 12000; i++) { // at most two minutes
        char *text = boids_test_slurp(out_path);
        bool seen = strstr(text, needle) != NULL;
        free(text);
        if (seen)
            break;
        nanosleep(&tick, NULL);
    }
    struct timespec d = {(time_t)delay_s, (long)((delay_s - (double)(time_t)delay_s) * 1e9)};
    nanosleep(&d, NULL);
    signalled r = {0};
    char *so_far = boids_test_slurp(out_path);
    r.silent = so_far[0] == '\0';
    free(so_far);
    double t0 = now_s();
    kill(pid, sig);
    while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
    }
    r.exit_s = now_s() - t0;
    r.out = boids_test_slurp(out_path);
    r.err = boids_test_slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    return r;
}

static void signalled_free(signalled *r) {
    free(r->out);
    free(r->err);
}

static void expect_status(const signalled *r, int sig) {
    ck_assert_msg(WIFEXITED(r->status), "expected an exit, not death by signal %d; stderr: %s",
                  WIFSIGNALED(r->status) ? WTERMSIG(r->status) : -1, r->err);
    ck_assert_msg(WEXITSTATUS(r->status) == 128 + sig, "expected exit %d, got %d; stderr: %s", 128 + sig,
                  WEXITSTATUS(r->status), r->err);
    ck_assert_msg(r->exit_s < EXIT_BOUND_S, "the run took %.1f s to exit after the signal; stderr: %s", r->exit_s,
                  r->err);
}

// SIGINT half a second into making 16 M agents (about two seconds on two
// cores; the title line follows the set-up): the program ends with 130 and
// one line, and writes nothing. On a machine that made them sooner the
// signal finds the run stepping: it ends as a stepping run does (the next
// case), within the bound all the same.
START_TEST(setup_ends_at_once) {
    const char *save = TMP "/setup.boids";
    signalled r = run_signalled(ARGV("boids-run", "--count", LARGEST, "--steps", "1000000", "--save", save), NULL, 0.5,
                                SIGINT);
    expect_status(&r, SIGINT);
    struct stat st;
    if (r.silent) {
        ck_assert_msg(strcmp(r.err, "boids-run: interrupted during the set-up; nothing was written\n") == 0,
                      "expected one line, got: %s", r.err);
        ck_assert_msg(stat(save, &st) != 0 && errno == ENOENT, "the set-up's interruption wrote %s", save);
        ck_assert_msg(r.out[0] == '\0', "stdout: %s", r.out);
    } else {
        ck_assert_msg(strstr(r.err, "interrupted after"), "stderr: %s", r.err);
        ck_assert_int_eq(stat(save, &st), 0);
    }
    signalled_free(&r);
}
END_TEST

// SIGTERM while 16 M agents step: the step is cut short, and the final
// statistics and state-hash printed within the bound (outputs asked for
// take what writing them takes: none here).
START_TEST(stepping_ends_within_bound) {
    signalled r = run_signalled(ARGV("boids-run", "--count", LARGEST, "--steps", "1000000"), "boids-run 0.", 0.3,
                                SIGTERM);
    expect_status(&r, SIGTERM);
    ck_assert_msg(strstr(r.err, "interrupted after"), "stderr: %s", r.err);
    ck_assert_msg(strstr(r.out, "\nfinal: ") && strstr(r.out, "\nstate-hash: "), "stdout: %s", r.out);
    signalled_free(&r);
}
END_TEST

// boids_sim_hash against the definition, boids_state_hash of the agents in
// id order, after steps (the grid has permuted the slots): counts below,
// at and around the block the threads gather, on one thread and on two.
START_TEST(hash_is_the_definition) {
    static const uint32_t counts[] = {1, 1000, 16383, 16384, 16385, 40000};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint32_t n = counts[k];
        uint64_t seen[2];
        for (int threads = 1; threads <= 2; threads++) {
            boids_params p;
            world_params(&p, n, 2, BOIDS_BOUNDARY_WRAP, (const float[3]){0, 0, 0}, (const float[3]){400, 400, 0}, 10.0f);
            boids_sim *s = create(&p, BOIDS_DIST_UNIFORM);
            s->threads = threads;
            for (int step = 0; step < 3; step++)
                boids_sim_step(s);
            float(*pos)[4] = malloc((size_t)n * sizeof *pos), (*vel)[4] = malloc((size_t)n * sizeof *vel);
            uint32_t *group = malloc((size_t)n * sizeof *group);
            ck_assert(pos && vel && group);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t id = s->cur.id[i];
                memcpy(pos[id], s->cur.pos[i], sizeof pos[id]);
                memcpy(vel[id], s->cur.vel[i], sizeof vel[id]);
                group[id] = s->cur.group[i];
            }
            uint64_t want = boids_state_hash(n, (const float(*)[4])pos, (const float(*)[4])vel, group);
            seen[threads - 1] = boids_sim_hash(s);
            ck_assert_msg(seen[threads - 1] == want, "%u agents, %d threads: %016llx, the definition %016llx", n,
                          threads, (unsigned long long)seen[threads - 1], (unsigned long long)want);
            free(pos);
            free(vel);
            free(group);
            boids_sim_destroy(s);
        }
        ck_assert_msg(seen[0] == seen[1], "%u agents: a hash per thread count", n);
    }
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"setup_ends_at_once", setup_ends_at_once},
        {"stepping_ends_within_bound", stepping_ends_within_bound},
        {"hash_is_the_definition", hash_is_the_definition},
    };
    return boids_test_main("interrupt", cases, sizeof cases / sizeof cases[0], TMP);
}
