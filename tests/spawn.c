// tests/spawn.c: see spawn.h.
#define _XOPEN_SOURCE 700 // nftw
#include "spawn.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64

extern char **environ;

// See spawn.h.
char *boids_test_slurp_len(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    ck_assert_msg(buf != NULL, "expected malloc to succeed");
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_msg(buf != NULL, "expected realloc to succeed");
        }
    }
    fclose(f);
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    return buf;
}

// See spawn.h.
char *boids_test_slurp(const char *path) {
    char *s = boids_test_slurp_len(path, NULL);
    if (!s) {
        s = malloc(1);
        ck_assert_msg(s != NULL, "expected malloc to succeed");
        s[0] = '\0';
    }
    return s;
}

// See spawn.h.
void boids_test_write(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
    ck_assert_msg(fwrite(data, 1, n, f) == n, "cannot write %s", path);
    ck_assert_msg(fclose(f) == 0, "cannot write %s: %s", path, strerror(errno));
}

// How many times needle occurs in text.
static int occurrences(const char *text, const char *needle) {
    int k = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        k++;
    return k;
}

// Waits (at most 60 s) until `when`'s needle has appeared often enough in the
// file at path, then its delay, and sends its signal to pid.
static void signal_when(pid_t pid, const char *path, const boids_test_signal *when) {
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 6000; i++) {
        char *text = boids_test_slurp(path);
        bool seen = occurrences(text, when->needle) >= (when->times > 0 ? when->times : 1);
        free(text);
        if (seen)
            break;
        nanosleep(&tick, NULL);
    }
    double d = when->delay_s;
    struct timespec t = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    nanosleep(&t, NULL);
    kill(pid, when->sig);
}

// See spawn.h.
int boids_test_start(const char *bin, const char *const *argv, const char *out_path, const char *err_path,
                     char *const *env, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int rc = posix_spawn(pid, bin, &fa, NULL, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

// Runs bin with args (stdin /dev/null, stdout and stderr into files named
// by tmp_dir and tag), signals it at `when` (NULL: never), waits, collects.
static run_result run_captured(const char *bin, const char *const *args, const char *tmp_dir, const char *tag,
                               const boids_test_signal *when, char *const *env) {
    static unsigned serial;
    run_result r = {false, 0, NULL, NULL};
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/%s-%ld-%u.out", tmp_dir, tag, (long)getpid(), serial);
    snprintf(err_path, sizeof err_path, "%s/%s-%ld-%u.err", tmp_dir, tag, (long)getpid(), serial++);
    char *argv[MAX_ARGS + 1];
    size_t n = 0;
    for (; args[n] && n < MAX_ARGS; n++)
        argv[n] = (char *)args[n];
    argv[n] = NULL;
    pid_t pid;
    int rc = boids_test_start(bin, (const char *const *)argv, out_path, err_path, env, &pid);
    if (rc == 0) {
        r.spawned = true;
        if (when)
            signal_when(pid, when->in_stderr ? err_path : out_path, when);
        while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
        }
    }
    r.out = boids_test_slurp(out_path);
    r.err = boids_test_slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    return r;
}

// See spawn.h.
run_result boids_test_run(const char *bin, const char *const *args, const char *tmp_dir, const char *tag) {
    return run_captured(bin, args, tmp_dir, tag, NULL, environ);
}

// See spawn.h.
run_result boids_test_run_env(const char *bin, const char *const *argv, const char *tmp_dir, const char *tag,
                              char *const *env) {
    return run_captured(bin, argv, tmp_dir, tag, NULL, env);
}

// See spawn.h.
void boids_test_state_hash(const run_result *r, char hash[17]) {
    const char *h = strstr(r->out, "state-hash: ");
    ck_assert_msg(h != NULL && strspn(h + 12, "0123456789abcdef") == 16,
                  "expected a 'state-hash: H' line of 16 hex digits; stdout: %s; stderr: %s", r->out, r->err);
    snprintf(hash, 17, "%s", h + 12);
}

// See spawn.h.
uint64_t boids_test_le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

// See spawn.h. Without -f, xvfb-run makes a temporary directory whose
// removal races with the server's exit now and then, and then exits 5
// whatever the viewer returned: an authority file of our own avoids it.
int boids_test_xvfb(const char **argv, const char *tag) {
    static char xvfb[4096], auth[64][512];
    static unsigned next;
    const char *path = getenv("PATH");
    bool found = false;
    while (path && *path && !found) {
        size_t n = strcspn(path, ":");
        snprintf(xvfb, sizeof xvfb, "%.*s/xvfb-run", (int)n, path);
        found = access(xvfb, X_OK) == 0;
        path += n + (path[n] == ':');
    }
    if (!found) {
        ck_assert_msg(getenv("DISPLAY") != NULL,
                      "expected xvfb-run on PATH (package xvfb) or a DISPLAY: the viewer tests need an X server");
        return 0;
    }
    char *a = auth[next++ % 64]; // argv outlives this call: a few runs' worth of names
    snprintf(a, sizeof auth[0], TMP "/%s.xauth", tag);
    argv[0] = xvfb;
    argv[1] = "-f";
    argv[2] = a;
    argv[3] = "-a";
    argv[4] = "-s";
    argv[5] = "-screen 0 1280x1024x24";
    return 6;
}

// See spawn.h.
run_result boids_test_run_signal(const char *bin, const char *const *args, const char *tmp_dir, const char *tag,
                                 const boids_test_signal *when) {
    return run_captured(bin, args, tmp_dir, tag, when, environ);
}

// See spawn.h.
void boids_test_run_free(run_result *r) {
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

// See spawn.h.
int boids_test_main(const char *name, const boids_test_case *cases, size_t n, const char *tmp_dir) {
    Suite *s = suite_create(name);
    for (size_t i = 0; i < n; i++) {
        boids_test_tcase(s, cases[i].name, cases[i].test);
    }
    return boids_test_main_suite(s, tmp_dir);
}

// nftw callback: remove one entry of a scratch tree (children first).
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

// Makes dir (and its parent) afresh: what an interrupted earlier run left
// there (temporaries of a killed write, say) cannot fail this one.
static int fresh_dir(const char *dir) {
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) {
        fprintf(stderr, "cannot empty %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char parent[1024];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "cannot create %s: %s\n", parent, strerror(errno));
            return -1;
        }
    }
    if (mkdir(dir, 0755) != 0) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

// Every test executable that runs the real ones starts with its own scratch
// directory TMP (tests/tmp/NAME) made afresh, before main: what an
// interrupted earlier run left there cannot fail this one, and no two
// suites share a directory. (Check forks each case after this has run.)
__attribute__((constructor)) static void make_scratch_dir(void) {
    if (fresh_dir(TMP) != 0)
        exit(1);
}

// See spawn.h.
int boids_test_main_suite(Suite *s, const char *tmp_dir) {
    if (mkdir(tmp_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", tmp_dir, strerror(errno));
        return 1;
    }
    return boids_test_run_suite(s);
}
