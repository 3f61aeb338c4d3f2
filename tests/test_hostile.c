// tests/test_hostile.c: files that cannot surprise, through the real
// executables: an output through a symbolic link is written to the link's
// target (the link stays); a character device or a FIFO is written in
// place (never replaced by a regular file), a FIFO with no reader fails at
// once instead of hanging, one whose reader stalls gives way to SIGINT /
// SIGTERM; a regular file reached through /proc or /dev/fd is replaced
// whole; sockets and directories are refused before the
// run; an output name as long as a file system allows is written (its
// temporary name is short) and a longer one refused before the run; a
// file-size limit (ulimit -f) is a write error, not a kill; temporaries of
// killed writers are removed by the next write to the same file. Label
// core.
#define _XOPEN_SOURCE 700 // mknod
#include <check.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

#define run_free boids_test_run_free

static run_result run_bin(const char *bin, const char *tag, const char *const *argv) {
    run_result r = boids_test_run(bin, argv, TMP, tag);
    ck_assert_msg(r.spawned, "expected %s to start", bin);
    ck_assert_msg(WIFEXITED(r.status), "%s: expected an exit, not signal %d; stderr: %s", tag,
                  WIFSIGNALED(r.status) ? WTERMSIG(r.status) : -1, r.err);
    return r;
}

static run_result run(const char *tag, const char *const *argv) {
    return run_bin(RUN_BIN, tag, argv);
}

static void expect_exit(const run_result *r, int code, const char *needle) {
    ck_assert_msg(WEXITSTATUS(r->status) == code, "expected exit %d, got %d; stderr: %s", code, WEXITSTATUS(r->status),
                  r->err);
    if (code) {
        const char *nl = strchr(r->err, '\n');
        ck_assert_msg(nl && nl[1] == '\0', "expected one line on stderr: %s", r->err);
    }
    if (needle)
        ck_assert_msg(strstr(r->err, needle), "expected '%s' in: %s", needle, r->err);
}

// Files in TMP whose names start with `prefix`.
static int count_prefixed(const char *prefix) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '^%s' || true", TMP, prefix);
    FILE *p = popen(cmd, "r");
    ck_assert(p);
    int n = 0;
    ck_assert(fscanf(p, "%d", &n) == 1);
    pclose(p);
    return n;
}

// --export-csv, --save and --profile through a symbolic link (relative and
// absolute): the target gets the file, the link stays a link.
START_TEST(symlink_output_kept) {
    static const char *const flags[3] = {"--export-csv", "--save", "--profile"};
    static const char *const names[3] = {"real.csv", "real.boids", "real-profile.csv"};
    for (int k = 0; k < 3; k++) {
        char real[256], link[256];
        snprintf(real, sizeof real, TMP "/%s", names[k]);
        snprintf(link, sizeof link, TMP "/link-%s", names[k]);
        boids_test_write(real, "old\n", 4);
        unlink(link);
        ck_assert(symlink(names[k], link) == 0); // relative to the link's directory
        run_result r = run("symlink", ARGV(RUN_BIN, "--count", "40", "--steps", "3", "--quiet", flags[k], link));
        expect_exit(&r, 0, NULL);
        struct stat st;
        ck_assert_msg(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "%s: the link was replaced", flags[k]);
        ck_assert_msg(stat(real, &st) == 0 && st.st_size > 4, "%s: the link's target was not written", flags[k]);
        run_free(&r);
    }
}
END_TEST

// A character device stays one whatever writes to it (as root a rename
// would replace it with a regular file). A private null device made in the
// scratch folder (mknod: root, as CI runs) so that a regression cannot
// harm the machine's /dev/null; without the right to make one, /dev/null
// itself (then no rename could replace it anyway).
START_TEST(device_output_in_place) {
    const char *dev = TMP "/null";
    unlink(dev);
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        ck_assert_msg(errno == EPERM, "mknod: %s", strerror(errno));
        dev = "/dev/null";
    }
    struct stat before, after;
    ck_assert(stat(dev, &before) == 0 && S_ISCHR(before.st_mode));
    static const char *const flags[3] = {"--export-csv", "--save", "--record"}; // a recording is not fsynced there
    for (int k = 0; k < 3; k++) {
        run_result r = run("devnull", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--quiet", flags[k], dev));
        expect_exit(&r, 0, NULL);
        run_free(&r);
        ck_assert_msg(stat(dev, &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev,
                      "%s %s replaced it", flags[k], dev);
    }
    // stdout is a file of the test's capture: through /proc/self/fd/1 the
    // CSV lands in it (in place), beside the run's own lines.
    run_result r = run("proc-fd", ARGV(RUN_BIN, "--count", "5", "--steps", "2", "--export-csv", "/dev/stdout"));
    expect_exit(&r, 0, NULL);
    ck_assert_msg(strstr(r.out, "id,group,px") && strstr(r.out, "state-hash"), "stdout: %s", r.out);
    run_free(&r);
}
END_TEST

// A FIFO: with no reader the run fails at the write (exit 3, one line) in
// well under the test's time-out instead of hanging; with a reader the
// reader gets the whole CSV and the FIFO stays a FIFO.
START_TEST(fifo_output) {
    const char *fifo = TMP "/out.fifo";
    unlink(fifo);
    ck_assert(mkfifo(fifo, 0644) == 0);
    run_result r = run("fifo-noreader", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--export-csv", fifo));
    expect_exit(&r, 3, "out.fifo");
    run_free(&r);
    // A recording (appended frame by frame, not renamed) too: at its start, never a hang.
    r = run("fifo-record", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--record", fifo));
    ck_assert_msg(WEXITSTATUS(r.status) != 0 && strstr(r.err, "a FIFO with no reader"), "stderr: %s", r.err);
    run_free(&r);
    pid_t reader = fork();
    ck_assert(reader >= 0);
    if (reader == 0) { // child: copy the FIFO into a file
        int in = open(fifo, O_RDONLY), out = open(TMP "/fifo-copy.csv", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[4096];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                _exit(1);
        _exit(0);
    }
    nanosleep(&(struct timespec){0, 200000000L}, NULL); // the reader's open is waiting
    r = run("fifo-reader", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--quiet", "--export-csv", fifo));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    int status;
    ck_assert(waitpid(reader, &status, 0) == reader && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *copy = boids_test_slurp(TMP "/fifo-copy.csv");
    int lines = 0;
    for (const char *c = copy; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == 41, "expected the header and 40 rows through the FIFO, got %d lines", lines);
    free(copy);
    struct stat st;
    ck_assert(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
}
END_TEST

// The size of the file at path (-1: none).
static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

// Paths under /proc that reach a regular file (/proc/self/cwd/NAME,
// /proc/self/root/...) replace it whole like any other path, and a name of
// an open descriptor (/dev/fd/N) over a longer old file leaves none of it:
// the snapshot loads, the CSV is a plain run's. Two outputs that meet on
// one file under other names are refused before the run; a descriptor not
// open, or open for reading only, too; an output no file can be made for
// (/proc/self/mem, /proc/1/root/... where it cannot be reached) is refused
// before the run, never found out after it.
START_TEST(proc_and_fd_paths) {
    ck_assert(chdir(TMP) == 0); // this test's own process: /proc/self/cwd is TMP
    run_result r = run("plain", ARGV(RUN_BIN, "--count", "40", "--steps", "3", "--quiet", "--save", "plain.boids",
                                     "--export-csv", "plain.csv"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    long size = file_size("plain.boids");
    ck_assert(size > 0);
    char *plain_csv = boids_test_slurp("plain.csv");
    char junk[30000];
    memset(junk, 'x', sizeof junk);
    boids_test_write("cwd.boids", junk, sizeof junk);
    boids_test_write("root.csv", junk, sizeof junk);
    r = run("proc-cwd", ARGV(RUN_BIN, "--count", "40", "--steps", "3", "--quiet", "--save", "/proc/self/cwd/cwd.boids",
                             "--export-csv", "/proc/self/root" TMP "/root.csv"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    ck_assert_msg(file_size("cwd.boids") == size, "/proc/self/cwd: %ld bytes, expected %ld (replaced whole)",
                  file_size("cwd.boids"), size);
    char *csv = boids_test_slurp("root.csv");
    ck_assert_msg(strcmp(csv, plain_csv) == 0, "/proc/self/root: the CSV is not a plain run's");
    free(csv);
    free(plain_csv);
    r = run("load-cwd", ARGV(RUN_BIN, "--load", "cwd.boids", "--steps", "1", "--quiet"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    // An open descriptor over a longer old file (opened without truncation).
    boids_test_write("fd.boids", junk, sizeof junk);
    int fd = open("fd.boids", O_RDWR);
    ck_assert(fd >= 0);
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    r = run("dev-fd", ARGV(RUN_BIN, "--count", "40", "--steps", "3", "--quiet", "--save", name));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    ck_assert_msg(file_size("fd.boids") == size, "/dev/fd/N: %ld bytes, expected %ld", file_size("fd.boids"), size);
    r = run("load-fd", ARGV(RUN_BIN, "--load", "fd.boids", "--steps", "1", "--quiet"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    // Two outputs on one file under two names, whether it is there or not.
    unlink("v.csv");
    for (int there = 0; there < 2; there++) {
        r = run("two-names", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--export-csv", "v.csv", "--save",
                                  "/proc/self/cwd/v.csv"));
        expect_exit(&r, 2, "is also the file of --export-csv");
        ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
        run_free(&r);
        boids_test_write("v.csv", "kept\n", 5);
    }
    r = run("fd-and-name",
            ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--export-csv", TMP "/fd.boids", "--save", name));
    expect_exit(&r, 2, "is also the file of --export-csv");
    run_free(&r);
    close(fd);
    fd = open("fd.boids", O_RDONLY);
    ck_assert(fd >= 0);
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    r = run("fd-read-only", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--save", name));
    expect_exit(&r, 2, "open for reading only");
    ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
    run_free(&r);
    close(fd);
    r = run("fd-closed", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--save", "/dev/fd/1000"));
    expect_exit(&r, 2, "not an open descriptor");
    ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
    run_free(&r);
    r = run("proc-mem", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--export-csv", "/proc/self/mem"));
    expect_exit(&r, 2, "/proc/self/mem");
    ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
    run_free(&r);
    // Init's root: written (where this process may reach it) or refused
    // before the run; never a failure after it.
    const char *far = "/proc/1/root" TMP "/pid1.csv";
    r = run("proc-1-root", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--export-csv", far));
    if (WEXITSTATUS(r.status) == 0) {
        ck_assert_msg(file_size(far) > 0, "exit 0 but %s was not written", far);
    } else {
        expect_exit(&r, 2, far);
        ck_assert_msg(!strstr(r.out, "state-hash"), "refused after the run: %s", r.err);
    }
    run_free(&r);
}
END_TEST

// Starts bin with argv, stdout into out_fd (-1: /dev/null) and stderr into
// err_path, without waiting; its pid.
static pid_t start(const char *const *argv, int out_fd, const char *err_path) {
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
        if (err < 0 || out < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(99);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(argv[0], (char *const *)argv);
        _exit(98);
    }
    return pid;
}

// Waits until the pipe whose reading end is fd holds `bytes` (its writer is
// then blocked), at most 30 s.
static void wait_pipe_full(int fd, int bytes, pid_t writer) {
    for (int i = 0; i < 3000; i++) {
        int n = 0;
        ck_assert(ioctl(fd, FIONREAD, &n) == 0);
        if (n >= bytes)
            return;
        int status;
        ck_assert_msg(waitpid(writer, &status, WNOHANG) == 0, "the writer ended before the pipe filled");
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    ck_abort_msg("the pipe did not fill in 30 s");
}

// Sends sig to pid and waits for its exit, at most `limit_s`; a process
// still there then is killed and fails the test. Its wait status.
static int signal_and_wait(pid_t pid, int sig, double limit_s) {
    ck_assert(kill(pid, sig) == 0);
    int status = 0;
    for (int i = 0; i < (int)(limit_s * 100); i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ck_abort_msg("still writing %.1f s after signal %d (killed)", limit_s, sig);
    return status;
}

// A pipe or FIFO whose reader holds it open but never reads: the run that
// fills it and waits in its write ends at SIGINT / SIGTERM, exit 130 / 143
// with one line naming the output, within 5 s (a tenth of a second idle:
// the bound holds on a loaded machine); a recording into
// such a FIFO ends too. Everything bounded (a hang is killed).
START_TEST(stalled_reader_interruptible) {
    const char *fifo = TMP "/stalled.fifo", *err_path = TMP "/stalled.err";
    unlink(fifo);
    ck_assert(mkfifo(fifo, 0644) == 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK); // held, never read
    ck_assert(reader >= 0);
    static const int sigs[2] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        pid_t pid =
            start(ARGV(RUN_BIN, "--count", "20000", "--steps", "1", "--quiet", "--export-csv", fifo), -1, err_path);
        wait_pipe_full(reader, 60000, pid);
        int status = signal_and_wait(pid, sigs[k], 5.0);
        char *err = boids_test_slurp(err_path);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sigs[k],
                      "expected exit %d, got status %#x; stderr: %s", 128 + sigs[k], status, err);
        const char *nl = strchr(err, '\n');
        ck_assert_msg(nl && !nl[1] && strstr(err, "stalled.fifo") &&
                          strstr(err, sigs[k] == SIGINT ? "SIGINT" : "SIGTERM"),
                      "expected one line naming the FIFO and the signal: %s", err);
        free(err);
        char drain[65536];
        while (read(reader, drain, sizeof drain) > 0) {
        }
    }
    // A recording written as the run goes (frames smaller than the pipe:
    // the steps fill it), into the same stalled FIFO.
    pid_t pid = start(ARGV(RUN_BIN, "--count", "500", "--steps", "100000", "--quiet", "--record", fifo), -1, err_path);
    wait_pipe_full(reader, 60000, pid);
    int status = signal_and_wait(pid, SIGINT, 5.0);
    char *err = boids_test_slurp(err_path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130 && strstr(err, "--record"),
                  "--record: status %#x; stderr: %s", status, err);
    free(err);
    close(reader);
    // boids-bench's --profile (written at the end) into a stalled FIFO.
    const char *profile_fifo = TMP "/stalled-profile.csv";
    unlink(profile_fifo);
    ck_assert(mkfifo(profile_fifo, 0644) == 0);
    reader = open(profile_fifo, O_RDONLY | O_NONBLOCK);
    ck_assert(reader >= 0);
    pid = start(ARGV(BOIDS_BIN_DIR "/boids-bench", "--counts", "200", "--steps", "2000", "--quiet", "--profile",
                     profile_fifo),
                -1, err_path);
    wait_pipe_full(reader, 60000, pid);
    status = signal_and_wait(pid, SIGINT, 5.0);
    err = boids_test_slurp(err_path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130 &&
                      strstr(err, "boids-bench: --profile: '" TMP "/stalled-profile.csv' not written whole: SIGINT"),
                  "boids-bench --profile: status %#x; stderr: %s", status, err);
    free(err);
    close(reader);
    // stdout a pipe nobody reads: --export-csv /dev/stdout.
    int p[2];
    ck_assert(pipe(p) == 0);
    pid = start(ARGV(RUN_BIN, "--count", "20000", "--steps", "1", "--quiet", "--export-csv", "/dev/stdout"), p[1],
                err_path);
    close(p[1]);
    wait_pipe_full(p[0], 60000, pid);
    status = signal_and_wait(pid, SIGINT, 5.0);
    err = boids_test_slurp(err_path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "/dev/stdout: status %#x; stderr: %s", status, err);
    free(err);
    close(p[0]);
}
END_TEST

// A socket, a directory and a block device are refused before the run
// (exit 2, one line).
START_TEST(socket_and_directory_refused) {
    const char *sock = TMP "/out.sock";
    unlink(sock);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    run_result r = run("socket", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--save", sock));
    expect_exit(&r, 2, "is a socket");
    run_free(&r);
    close(fd);
    r = run("dir", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--export-csv", TMP));
    expect_exit(&r, 2, "is a directory");
    run_free(&r);
    // A block device node of the scratch folder (mknod: root, as CI runs;
    // never opened: refused by its type). Without the right to make one,
    // nothing to test here: no user but root could write a disk.
    const char *blk = TMP "/disk";
    unlink(blk);
    if (mknod(blk, S_IFBLK | 0600, makedev(7, 250)) == 0) {
        r = run("block", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--save", blk));
        expect_exit(&r, 2, "is a block device");
        run_free(&r);
        struct stat st;
        ck_assert(stat(blk, &st) == 0 && S_ISBLK(st.st_mode));
    } else {
        ck_assert_msg(errno == EPERM, "mknod: %s", strerror(errno));
    }
}
END_TEST

// A name of 250 bytes (within 255) is written: its temporary's name is cut
// short. One of 256 is refused before the run, naming the limit.
START_TEST(long_names) {
    char name[600], path[700];
    memset(name, 'a', 244);
    strcpy(name + 244, ".boids"); // 250 bytes
    snprintf(path, sizeof path, TMP "/%s", name);
    unlink(path);
    run_result r = run("long-ok", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--quiet", "--save", path));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    ck_assert_msg(access(path, F_OK) == 0, "the 250-byte name was not written");
    memset(name, 'b', 250);
    strcpy(name + 250, ".boids"); // 256 bytes
    snprintf(path, sizeof path, TMP "/%s", name);
    r = run("long-bad", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--save", path));
    expect_exit(&r, 2, "over the 255");
    ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
    run_free(&r);
}
END_TEST

// ulimit -f: a snapshot larger than the limit fails with one line and exit
// 3 (not SIGXFSZ), leaving no temporary and the old file as it was.
START_TEST(file_size_limit) {
    const char *path = TMP "/limited.boids";
    boids_test_write(path, "old\n", 4);
    struct rlimit keep, lim;
    ck_assert(getrlimit(RLIMIT_FSIZE, &keep) == 0);
    lim = keep;
    lim.rlim_cur = 64 * 1024; // the captures of stdout and stderr stay far below
    ck_assert(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    run_result r = run("fsize", ARGV(RUN_BIN, "--count", "20000", "--steps", "1", "--quiet", "--save", path));
    setrlimit(RLIMIT_FSIZE, &keep);
    expect_exit(&r, 3, "File too large");
    run_free(&r);
    char *old = boids_test_slurp(path);
    ck_assert_str_eq(old, "old\n");
    free(old);
    ck_assert_int_eq(count_prefixed(".limited.boids.tmp."), 0);
}
END_TEST

// Temporaries of writers that no longer exist go at the next write to the
// same file; one of a live process (this test) stays.
START_TEST(stale_temporaries_removed) {
    char live[256];
    snprintf(live, sizeof live, TMP "/.stale.boids.tmp.%ld.7", (long)getpid());
    // A pid above the kernel's pid_max (4194304 at most) is no process.
    boids_test_write(TMP "/.stale.boids.tmp.99999999.1", "x", 1);
    boids_test_write(TMP "/.stale.boids.tmp.99999998.3", "x", 1);
    boids_test_write(live, "x", 1);
    run_result r =
        run("stale", ARGV(RUN_BIN, "--count", "40", "--steps", "2", "--quiet", "--save", TMP "/stale.boids"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    ck_assert_int_eq(count_prefixed(".stale.boids.tmp.9999999"), 0);
    ck_assert_msg(access(live, F_OK) == 0, "a live process's temporary was removed");
    unlink(live);
}
END_TEST

// Two outputs on one path, or an output written during the run on an input,
// are refused before the run with one line naming both flags, through links
// too; an input read whole before the run may be replaced after it (a run
// continued in place); /dev/null may take several outputs.
START_TEST(two_outputs_one_path) {
    const char *good = TMP "/good.csv";
    run_result r = run("good", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--quiet", "--export-csv", good));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    char *before = boids_test_slurp(good);
    unlink(TMP "/alias.csv");
    ck_assert(symlink("good.csv", TMP "/alias.csv") == 0);
    r = run("in", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--quiet", "--save", TMP "/in.boids"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    static const char *const cases[][8] = {
        {"--save", TMP "/x.out", "--export-csv", TMP "/x.out", "--export-csv", "--save"},
        {"--record", TMP "/r.out", "--save", TMP "/./r.out", "--save", "--record"},
        {"--profile", TMP "/p.csv", "--export-csv", TMP "/p.csv", "--export-csv", "--profile"},
        {"--load", TMP "/in.boids", "--record", TMP "/in.boids", "--record", "--load"}, // written while the run goes
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *const *c = cases[k];
        const char *const argv_count[] = {RUN_BIN, "--count", "40", "--steps", "1", c[0], c[1], c[2], c[3], NULL};
        const char *const argv_load[] = {RUN_BIN, "--steps", "1", c[0], c[1], c[2], c[3], NULL};
        r = run("same", strcmp(c[0], "--load") == 0 ? argv_load : argv_count);
        expect_exit(&r, 2, c[4]);
        ck_assert_msg(strstr(r.err, c[5]), "expected both flags named: %s", r.err);
        ck_assert_msg(!strstr(r.out, "state-hash"), "the run went ahead: %s", r.out);
        run_free(&r);
    }
    char *after = boids_test_slurp(good);
    ck_assert_msg(strcmp(before, after) == 0, "the input was changed");
    free(after);
    // An input read whole before the run, replaced atomically after it: a
    // run continued in place (through a link too), nothing lost.
    static const char *const in_place[][4] = {{"--init", TMP "/good.csv", "--export-csv", TMP "/good.csv"},
                                              {"--init", TMP "/alias.csv", "--export-csv", TMP "/good.csv"}};
    for (size_t k = 0; k < 2; k++) {
        r = run("in-place", ARGV(RUN_BIN, "--steps", "1", "--quiet", in_place[k][0], in_place[k][1], in_place[k][2],
                                 in_place[k][3]));
        expect_exit(&r, 0, NULL);
        run_free(&r);
        char *now = boids_test_slurp(good);
        ck_assert_msg(strcmp(before, now) != 0 && strncmp(now, "id,group,", 9) == 0,
                      "%s %s: expected the next state in the file", in_place[k][0], in_place[k][1]);
        free(now);
    }
    free(before);
    r = run("null-twice", ARGV(RUN_BIN, "--count", "40", "--steps", "1", "--quiet", "--save", "/dev/null",
                               "--export-csv", "/dev/null"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
}
END_TEST

// Runs bin with argv under a 20 s bound: it must end by itself (a hang is
// killed and fails the test) with exit 2 and one line containing needle.
static void expect_refused_quickly(const char *bin, const char *tag, const char *const *argv, const char *needle) {
    const char *bounded[24] = {"timeout", "-s", "KILL", "20", bin};
    int n = 5;
    for (int i = 1; argv[i] && n < 23; i++)
        bounded[n++] = argv[i];
    bounded[n] = NULL;
    run_result r = boids_test_run("/usr/bin/timeout", bounded, TMP, tag);
    ck_assert_msg(r.spawned && WIFEXITED(r.status), "%s: did not exit", tag);
    ck_assert_msg(WEXITSTATUS(r.status) != 137 && WEXITSTATUS(r.status) != 124, "%s: hung (killed after 20 s)", tag);
    expect_exit(&r, 2, needle);
    run_free(&r);
}

// Inputs that are not files never hang and never read without end:
// /dev/zero and /dev/urandom (character devices), a FIFO with no writer,
// an endless line through a pipe, as --init, --load, --scenario, a plan's
// scenario, boids-validate --load.
START_TEST(inputs_never_hang) {
    const char *fifo = TMP "/in.fifo";
    unlink(fifo);
    ck_assert(mkfifo(fifo, 0644) == 0);
    expect_refused_quickly(RUN_BIN, "init-zero", ARGV(RUN_BIN, "--init", "/dev/zero", "--steps", "1"),
                           "character device");
    expect_refused_quickly(RUN_BIN, "init-random", ARGV(RUN_BIN, "--init", "/dev/urandom", "--steps", "1"),
                           "character device");
    expect_refused_quickly(RUN_BIN, "scen-zero", ARGV(RUN_BIN, "--scenario", "/dev/zero", "--steps", "1"),
                           "character device");
    expect_refused_quickly(RUN_BIN, "load-zero", ARGV(RUN_BIN, "--load", "/dev/zero", "--steps", "1"),
                           "character device");
    expect_refused_quickly(RUN_BIN, "load-fifo", ARGV(RUN_BIN, "--load", fifo, "--steps", "1"), "FIFO");
    expect_refused_quickly(RUN_BIN, "init-fifo", ARGV(RUN_BIN, "--init", fifo, "--steps", "1"), "empty");
    const char *validate = BOIDS_BIN_DIR "/boids-validate";
    expect_refused_quickly(validate, "validate-fifo", ARGV(validate, "--load", fifo), "FIFO");
    const char *plan = "[plan]\nscenario = /dev/zero\nsteps = 5\n";
    boids_test_write(TMP "/zero-plan.ini", plan, strlen(plan));
    const char *ensemble = BOIDS_BIN_DIR "/boids-ensemble";
    expect_refused_quickly(ensemble, "plan-zero", ARGV(ensemble, TMP "/zero-plan.ini", "--out", TMP "/zero-out"),
                           "character device");
    // An endless line through a pipe (as --init <(...) would give): cut at the line limit.
    run_result r = boids_test_run(
        "/bin/sh",
        ARGV("/bin/sh", "-c", "yes | tr -d '\\n' | timeout -s KILL 20 " RUN_BIN " --init /dev/stdin --steps 1"), TMP,
        "endless-line");
    ck_assert(r.spawned && WIFEXITED(r.status));
    expect_exit(&r, 2, "longer than 4096 bytes");
    run_free(&r);
}
END_TEST

// A flow-field image that is not one: text, a truncated PNG, a header that
// claims 20000 x 20000 pixels. Named with what is wrong, exit 2, before any
// memory is spent on it.
START_TEST(bad_flow_images) {
    boids_test_write(TMP "/text.png", "hello\n", 6);
    static const unsigned char png_start[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    // A header (IHDR) of 20000 x 20000 grey pixels and no data; CRCs are not
    // checked by stb_image's header reader.
    unsigned char huge[8 + 25] = {0};
    memcpy(huge, png_start, 8);
    static const unsigned char ihdr[] = {0,    0, 0, 13,   'I',  'H', 'D', 'R', 0, 0, 0x4e,
                                         0x20, 0, 0, 0x4e, 0x20, 8,   0,   0,   0, 0};
    memcpy(huge + 8, ihdr, sizeof ihdr);
    boids_test_write(TMP "/huge.png", huge, sizeof huge);
    // A real PNG cut after its header: stb_image's info passes, decoding fails.
    unsigned char cut[8 + 25 + 12] = {0};
    memcpy(cut, huge, sizeof huge);
    cut[18] = 0;
    cut[19] = 64; // width 64
    cut[22] = 0;
    cut[23] = 64; // height 64
    static const unsigned char idat[] = {0, 0, 0, 40, 'I', 'D', 'A', 'T', 0x78, 0x9c, 0x63, 0x60};
    memcpy(cut + 8 + 25, idat, sizeof idat);
    boids_test_write(TMP "/cut.png", cut, sizeof cut);
    static const char *const images[3][2] = {
        {"text.png", "is not a PNG image"}, {"huge.png", "20000 x 20000 pixels"}, {"cut.png", "damaged or truncated"}};
    for (int k = 0; k < 3; k++) {
        char ini[256];
        int n = snprintf(ini, sizeof ini, "[flowfield]\nkind = image\nimage = %s\n", images[k][0]);
        boids_test_write(TMP "/image.ini", ini, (size_t)n);
        expect_refused_quickly(RUN_BIN, "image", ARGV(RUN_BIN, "--scenario", TMP "/image.ini", "--steps", "1"),
                               images[k][1]);
    }
}
END_TEST

// --resume after a run's files were damaged: its CSV cut to 10 bytes, or
// removed while its JSON stays. The run counts as not done and runs again;
// results.csv is byte for byte the undamaged one's.
START_TEST(resume_checks_files) {
    const char *ensemble = BOIDS_BIN_DIR "/boids-ensemble";
    const char *plan = "[plan]\nscenario = flocking\nsteps = 20\nbackend = cpu\nseeds = 1..3\n"
                       "[sweep]\nworld.count = 30\n[log]\nevery = 10\n";
    boids_test_write(TMP "/resume-plan.ini", plan, strlen(plan));
    run_result r = run_bin(ensemble, "resume-first", ARGV(ensemble, TMP "/resume-plan.ini", "--out", TMP "/resume"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    char *good = boids_test_slurp(TMP "/resume/results.csv");
    ck_assert(good[0]);
    ck_assert(truncate(TMP "/resume/runs/000001.csv", 10) == 0);
    ck_assert(unlink(TMP "/resume/runs/000002.csv") == 0);
    r = run_bin(ensemble, "resume-again", ARGV(ensemble, TMP "/resume-plan.ini", "--out", TMP "/resume", "--resume"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
    char *again = boids_test_slurp(TMP "/resume/results.csv");
    ck_assert_msg(strcmp(good, again) == 0, "results.csv after --resume differs:\n%s\nexpected:\n%s", again, good);
    free(good);
    free(again);
}
END_TEST

// Plans that would mislabel their runs or drop a key: a swept key that
// another overrides (group.*.radius beside group.boids.radius), a [plan] or
// [log] key twice. Refused (exit 2) naming both lines, before any run.
START_TEST(plans_never_mislabel) {
    const char *ensemble = BOIDS_BIN_DIR "/boids-ensemble";
    static const char *const plans[][2] = {
        {"[plan]\nscenario = flocking\nsteps = 5\n[sweep]\ngroup.*.radius = 5 | 6\ngroup.boids.radius = 7\n",
         "sets what group.*.radius (line 5) sets too"},
        {"[plan]\nscenario = flocking\nsteps = 5\n[sweep]\ngroup.boids.radius = 7\ngroup.*.radius = 5 | 6\n",
         "sets what group.boids.radius (line 5) sets too"},
        {"[plan]\nscenario = flocking\nsteps = 5\nsteps = 6\n", "[plan] steps: is given twice (first on line 3)"},
        {"[plan]\nscenario = flocking\nsteps = 5\n[log]\nevery = 1\nevery = 2\n",
         "[log] every: is given twice (first on line 5)"},
    };
    for (size_t k = 0; k < sizeof plans / sizeof plans[0]; k++) {
        boids_test_write(TMP "/mislabel.ini", plans[k][0], strlen(plans[k][0]));
        run_result r = run_bin(ensemble, "mislabel", ARGV(ensemble, TMP "/mislabel.ini", "--out", TMP "/mislabel"));
        expect_exit(&r, 2, plans[k][1]);
        run_free(&r);
        ck_assert_msg(access(TMP "/mislabel/plan.csv", F_OK) != 0, "plan %zu: the output folder was made", k);
    }
    // Different parameters of one group, and one key per group: fine.
    const char *ok = "[plan]\nscenario = flocking\nsteps = 3\n[sweep]\ngroup.*.radius = 40 | 50\n"
                     "group.boids.maxspeed = 2\nworld.count = 20\n";
    boids_test_write(TMP "/fine.ini", ok, strlen(ok));
    run_result r = run_bin(ensemble, "fine", ARGV(ensemble, TMP "/fine.ini", "--out", TMP "/fine"));
    expect_exit(&r, 0, NULL);
    run_free(&r);
}
END_TEST

// Nonsense that was quietly accepted: --init rows outside the world or
// faster than maxspeed (held to a snapshot's rules), a subnormal --dt or
// --fov, boids-bench's fit of equal counts; flags that do nothing warn, and
// an output beside --dump-scenario (which runs nothing) is refused.
START_TEST(nonsense_refused) {
    const char *far = "id,group,px,py,vx,vy\n0,0,1e30,2,0.1,0\n1,0,3,4,0,1\n";
    const char *fast = "id,group,px,py,vx,vy\n0,0,1,2,1e30,0\n1,0,3,4,0,1\n";
    boids_test_write(TMP "/far.csv", far, strlen(far));
    boids_test_write(TMP "/fast.csv", fast, strlen(fast));
    run_result r = run("far", ARGV(RUN_BIN, "--init", TMP "/far.csv", "--steps", "1"));
    expect_exit(&r, 2, "agent 0 is outside the world on axis x (1e+30");
    run_free(&r);
    r = run("fast", ARGV(RUN_BIN, "--init", TMP "/fast.csv", "--steps", "1"));
    expect_exit(&r, 2, "agent 0 is faster (1e+30) than its maxspeed (3)");
    run_free(&r);
    r = run("dt", ARGV(RUN_BIN, "--count", "10", "--steps", "1", "--dt", "1e-40"));
    expect_exit(&r, 2, "too small");
    run_free(&r);
    r = run("fov", ARGV(RUN_BIN, "--count", "10", "--steps", "1", "--fov", "1e-45"));
    expect_exit(&r, 2, "too small");
    run_free(&r);
    r = run("dump-save", ARGV(RUN_BIN, "--count", "10", "--dump-scenario", "--save", TMP "/never.boids"));
    expect_exit(&r, 2, "would never be written");
    run_free(&r);
    static const char *const ignored[][5] = {
        {"--shader-dir", TMP, NULL, NULL, "--shader-dir has no effect"},
        {"--margin", "5", NULL, NULL, "--margin has no effect"},
        {"--joints", "5", NULL, NULL, "--joints has no effect"},
        {"--grid-fine", "2", "--index", "brute", "--grid-fine has no effect"},
        {"--maxspeed", "2", "--maxspeed-range", "1,2", "--maxspeed has no effect"},
        {"--timeout", "5", NULL, NULL, "--timeout has no effect without --decompose"},
    };
    for (size_t k = 0; k < sizeof ignored / sizeof ignored[0]; k++) {
        const char *const *c = ignored[k];
        const char *argv[12] = {RUN_BIN, "--count", "20", "--steps", "1", "--quiet", c[0], c[1], c[2], c[3], NULL};
        r = run("ignored", argv);
        expect_exit(&r, 0, NULL);
        ck_assert_msg(strstr(r.err, c[4]) && strstr(r.err, "warning"), "expected a warning '%s': %s", c[4], r.err);
        run_free(&r);
    }
    const char *bench = BOIDS_BIN_DIR "/boids-bench";
    r = run_bin(bench, "bench-equal", ARGV(bench, "--counts", "30,30,30", "--steps", "1"));
    expect_exit(&r, 0, NULL);
    ck_assert_msg(!strstr(r.out, "nan") && !strstr(r.out, "NaN") &&
                      strstr(r.out, "fitted exponent of ms/step vs N: none"),
                  "stdout: %s", r.out);
    run_free(&r);
}
END_TEST

int main(void) {
    const boids_test_case cases[] = {
        {"symlink_output_kept", symlink_output_kept},
        {"device_output_in_place", device_output_in_place},
        {"fifo_output", fifo_output},
        {"proc_and_fd_paths", proc_and_fd_paths},
        {"stalled_reader_interruptible", stalled_reader_interruptible},
        {"socket_and_directory_refused", socket_and_directory_refused},
        {"long_names", long_names},
        {"file_size_limit", file_size_limit},
        {"stale_temporaries_removed", stale_temporaries_removed},
        {"two_outputs_one_path", two_outputs_one_path},
        {"inputs_never_hang", inputs_never_hang},
        {"bad_flow_images", bad_flow_images},
        {"resume_checks_files", resume_checks_files},
        {"plans_never_mislabel", plans_never_mislabel},
        {"nonsense_refused", nonsense_refused},
    };
    return boids_test_main("hostile", cases, sizeof cases / sizeof cases[0], TMP);
}
