// src/core/atomic.c: files written whole or not at all (boids/atomic.h):
// a temporary file in the target's directory, fsync, rename, fsync of the
// directory; through a symbolic link to its target; in place for character
// devices, FIFOs and the process's own descriptors, through writes that wait
// with poll and give up when a signal's flag rises; never to block devices,
// sockets or directories.
#define _GNU_SOURCE // fopencookie
#include "boids/atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// The longest part of the target's name kept in a temporary file's name:
// ".BASE.tmp.PID.N" stays within NAME_MAX (255) whatever the target's length.
#define STEM_BASE_MAX 200

// See boids/atomic.h.
char *boids_atomic_dir_of(const char *path) {
    size_t len = strlen(path);
    char *dir = malloc(len + 2);
    if (!dir)
        return NULL;
    const char *slash = strrchr(path, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else
        snprintf(dir, len + 2, "%.*s", (int)(slash - path), path);
    return dir;
}

// See boids/atomic.h.
char *boids_atomic_target(const char *path) {
    char *p = strdup(path);
    for (int hops = 0; p && hops < 40; hops++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;
        char link[PATH_MAX];
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = strdup(link);
        } else { // relative to the link's own directory
            char *dir = boids_atomic_dir_of(p);
            size_t size = dir ? strlen(dir) + strlen(link) + 2 : 0;
            next = dir ? malloc(size) : NULL;
            if (next)
                snprintf(next, size, "%s/%s", dir, link);
            free(dir);
        }
        free(p);
        p = next;
    }
    if (p) { // a loop of links
        free(p);
        errno = ELOOP;
    }
    return NULL;
}

// See boids/atomic.h.
const char *boids_atomic_refusal(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL; // a new file (or a dangling link: its target is made)
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    if (S_ISBLK(st.st_mode))
        return "is a block device (a disk): not overwritten";
    if (S_ISSOCK(st.st_mode))
        return "is a socket";
    return NULL;
}

// The name of path's temporary files without their counter,
// "DIR/.BASE.tmp.PID" (BASE cut to STEM_BASE_MAX bytes), malloc'd with room
// for the counter; NULL when out of memory. *prefix_len: the length of
// "DIR/.BASE.tmp.", what every process's temporaries of path share.
static char *temporary_stem(const char *path, size_t *size, size_t *prefix_len) {
    char *dir = boids_atomic_dir_of(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    *size = (dir ? strlen(dir) : 0) + strlen(base) + 48;
    char *tmp = dir ? malloc(*size) : NULL;
    if (tmp) {
        int n = snprintf(tmp, *size, "%s/.%.*s.tmp.", dir, STEM_BASE_MAX, base);
        *prefix_len = (size_t)n;
        snprintf(tmp + n, *size - (size_t)n, "%ld", (long)getpid());
    }
    free(dir);
    return tmp;
}

// Removes the temporaries in dir left by processes that no longer exist
// (killed mid-write): ".BASE.tmp.PID.N" with no process PID, of the one
// BASE that prefix (".BASE.tmp.", plen bytes) names, or (prefix NULL) of
// any. Those of live processes (another writer now) stay.
static void remove_stale_in(const char *dir, const char *prefix, size_t plen) {
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        const char *tmp = prefix ? NULL : strstr(de->d_name, ".tmp.");
        if (prefix ? strncmp(de->d_name, prefix, plen) != 0 : de->d_name[0] != '.' || !tmp)
            continue;
        char *end;
        long pid = strtol(prefix ? de->d_name + plen : tmp + 5, &end, 10);
        if (pid <= 0 || *end != '.' || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char stale[PATH_MAX];
        if ((size_t)snprintf(stale, sizeof stale, "%s/%s", dir, de->d_name) < sizeof stale)
            unlink(stale);
    }
    if (d)
        closedir(d);
}

// The temporaries of the target whose stem (".../.BASE.tmp.", prefix_len
// bytes, then the PID) is given: remove_stale_in of its folder.
static void remove_stale(const char *stem, size_t prefix_len) {
    const char *slash = strrchr(stem, '/');
    size_t dir_len = (size_t)(slash - stem);
    char dir[PATH_MAX];
    if (dir_len + 1 > sizeof dir)
        return;
    memcpy(dir, stem, dir_len);
    dir[dir_len] = '\0';
    remove_stale_in(dir, slash + 1, prefix_len - dir_len - 1);
}

// See boids/atomic.h.
void boids_atomic_sweep(const char *dir) {
    if (dir)
        remove_stale_in(dir, NULL, 0);
}

// Creates a new file tmp + ".N" (O_EXCL, mode 0666 less the umask, as fopen
// would), trying the next N while the name is taken; -1 with errno on failure.
static int open_temporary(char *tmp, size_t size) {
    static atomic_uint counter; // distinct names for the threads of a process
    size_t stem = strlen(tmp);
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(tmp + stem, size - stem, ".%u", atomic_fetch_add(&counter, 1u));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

// Makes a rename in path's directory durable (best effort: some file systems
// refuse to fsync a directory, and the file itself is already synced).
static void sync_directory(const char *path) {
    char *dir = boids_atomic_dir_of(path);
    int dfd = dir ? open(dir, O_RDONLY) : -1;
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
}

// See boids/atomic.h.
int boids_atomic_descriptor(const char *path) {
    static const char *const streams[3] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    for (int k = 0; k < 3; k++)
        if (strcmp(path, streams[k]) == 0)
            return k;
    const char *digits = NULL;
    char own[48];
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    static const char *const dirs[3] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
    for (int k = 0; k < 3 && !digits; k++)
        if (strncmp(path, dirs[k], strlen(dirs[k])) == 0)
            digits = path + strlen(dirs[k]);
    if (!digits && strncmp(path, own, strlen(own)) == 0)
        digits = path + strlen(own);
    if (!digits || *digits < '0' || *digits > '9')
        return -1;
    char *end;
    errno = 0;
    long fd = strtol(digits, &end, 10);
    return *end || errno || fd > INT_MAX ? -1 : (int)fd;
}

// See boids/atomic.h.
bool boids_atomic_in_place(const char *path) {
    struct stat st;
    return boids_atomic_descriptor(path) >= 0 ||
           (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

// The flag of boids_atomic_set_cancel (NULL: writes in place wait as long
// as their reader does).
static const volatile sig_atomic_t *cancel_flag;

// See boids/atomic.h.
void boids_atomic_set_cancel(const volatile sig_atomic_t *flag) {
    cancel_flag = flag;
}

// A stream of boids_atomic_stream: its descriptor, whether that is a
// regular file (never waited on), whether it is non-blocking, whether the
// flag was already up when it opened (then a later signal ends the program:
// the handler is reset), and the first failure's errno.
typedef struct in_place_stream {
    int fd;
    bool regular, nonblocking, flag_was_up;
    int err;
} in_place_stream;

// Writes all of buf, waiting with poll (a tenth of a second at a time) for
// room, so that a signal whose handler restarts system calls still ends the
// wait: when the cancel flag has risen and there is no room, the write fails
// with EINTR (a reader that keeps reading gets the whole content). A blocking
// descriptor (one the process was given) is written PIPE_BUF bytes at a
// time after poll says there is room, which a pipe takes without blocking.
static ssize_t stream_write(void *cookie, const char *buf, size_t size) {
    in_place_stream *s = cookie;
    size_t done = 0;
    while (done < size && !s->err) {
        if (!s->regular) {
            struct pollfd p = {.fd = s->fd, .events = POLLOUT};
            int ready = poll(&p, 1, 100);
            if (ready < 0 && errno != EINTR)
                s->err = errno;
            else if (ready <= 0 && cancel_flag && *cancel_flag && !s->flag_was_up)
                s->err = EINTR; // waiting for room when the signal came
            if (ready <= 0)
                continue;
        }
        size_t chunk = size - done;
        if (!s->regular && !s->nonblocking && chunk > PIPE_BUF)
            chunk = PIPE_BUF;
        ssize_t n = write(s->fd, buf + done, chunk);
        if (n > 0)
            done += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            s->err = n == 0 ? EIO : errno;
    }
    if (s->err) {
        errno = s->err;
        return -1;
    }
    return (ssize_t)done;
}

// Closes the stream's descriptor and frees it; fails with the stream's
// first error, if any.
static int stream_close(void *cookie) {
    in_place_stream *s = cookie;
    int rc = close(s->fd);
    int err = s->err;
    free(s);
    if (err) {
        errno = err;
        return -1;
    }
    return rc;
}

// See boids/atomic.h.
FILE *boids_atomic_stream(int fd) {
    struct stat st;
    in_place_stream *s = calloc(1, sizeof *s);
    if (!s || fstat(fd, &st) != 0) {
        int e = s ? errno : ENOMEM;
        free(s);
        errno = e;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    s->fd = fd;
    s->regular = S_ISREG(st.st_mode);
    s->nonblocking = fl >= 0 && (fl & O_NONBLOCK);
    s->flag_was_up = cancel_flag && *cancel_flag;
    FILE *f = fopencookie(s, "wb", (cookie_io_functions_t){.write = stream_write, .close = stream_close});
    if (!f) {
        free(s);
        errno = ENOMEM;
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1u << 16); // a pipe's worth a write
    return f;
}

// Writes fill's content straight into the character device or FIFO at
// path, or into the process's own descriptor a name such as /dev/stdout or
// /dev/fd/3 gives (no temporary: /dev/null, /dev/stdout, a pipe a reader
// holds). An own descriptor is written through a duplicate sharing its
// offset, after what stdio holds for it; where it is a regular file opened
// without O_APPEND, the file ends where the content ends (nothing of a
// longer old file is left after it).
static boids_result write_in_place(const char *path, boids_atomic_fill fill, void *ctx) {
    int own = boids_atomic_descriptor(path);
    int fd;
    if (own >= 0) {
        fflush(stdout);
        fflush(stderr);
        fd = dup(own);
    } else { // O_NONBLOCK: a FIFO without a reader fails (ENXIO), never a hang
        fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY);
    }
    if (fd < 0)
        return BOIDS_ERR_IO; // errno: ENXIO for a FIFO with no reader
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    bool trim = own >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND);
    FILE *f = boids_atomic_stream(fd);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return BOIDS_ERR_IO;
    }
    int err = 0;
    errno = 0;
    if (!fill(f, ctx) || ferror(f) || fflush(f) != 0)
        err = errno ? errno : EIO;
    off_t end = trim && !err ? lseek(fd, 0, SEEK_CUR) : -1;
    if (end >= 0 && ftruncate(fd, end) != 0)
        err = errno;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    errno = err;
    return err ? BOIDS_ERR_IO : BOIDS_OK;
}

// See boids/atomic.h.
// boids_atomic_write (own false) and boids_atomic_write_own (own true: the
// name itself is replaced, whatever it is, but a directory).
static boids_result atomic_write(const char *path, boids_atomic_fill fill, void *ctx, bool own) {
    // A file-size limit (ulimit -f) is a write error (EFBIG), not a kill.
    signal(SIGXFSZ, SIG_IGN);
    struct stat st;
    if (own) {
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return BOIDS_ERR_IO;
        }
    } else if (boids_atomic_in_place(path)) {
        return write_in_place(path, fill, ctx);
    } else if (boids_atomic_refusal(path)) { // it exists (a refusal stats it)
        errno = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return BOIDS_ERR_IO;
    }
    char *target = own ? strdup(path) : boids_atomic_target(path);
    if (!target)
        return errno == ENOMEM || own ? BOIDS_ERR_NOMEM : BOIDS_ERR_IO;
    size_t size, prefix_len;
    char *tmp = temporary_stem(target, &size, &prefix_len);
    if (!tmp) {
        free(target);
        errno = ENOMEM;
        return BOIDS_ERR_NOMEM;
    }
    remove_stale(tmp, prefix_len);
    int fd = open_temporary(tmp, size);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(target);
        errno = e;
        return BOIDS_ERR_IO;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        free(target);
        errno = e;
        return BOIDS_ERR_IO;
    }
    int err = 0; // the first failure's errno
    errno = 0;
    if (!fill(f, ctx) || ferror(f))
        err = errno ? errno : EIO;
    if (fflush(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err && fsync(fileno(f)) != 0)
        err = errno;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err && rename(tmp, target) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    free(tmp);
    if (!err)
        sync_directory(target);
    free(target);
    errno = err;
    return err ? BOIDS_ERR_IO : BOIDS_OK;
}

// See boids/atomic.h.
boids_result boids_atomic_write(const char *path, boids_atomic_fill fill, void *ctx) {
    return atomic_write(path, fill, ctx, false);
}

// See boids/atomic.h.
boids_result boids_atomic_write_own(const char *path, boids_atomic_fill fill, void *ctx) {
    return atomic_write(path, fill, ctx, true);
}
