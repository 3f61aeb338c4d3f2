// src/core/atomic.c: files written whole or not at all (boids/atomic.h):
// a temporary file in the target's directory, fsync, rename, fsync of the
// directory.
#include "boids/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// The name of path's temporary files without their counter,
// "DIR/.BASE.tmp.PID", malloc'd with room for the counter; NULL when out of
// memory.
static char *temporary_stem(const char *path, size_t *size) {
    char *dir = boids_atomic_dir_of(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    *size = (dir ? strlen(dir) : 0) + strlen(base) + 48;
    char *tmp = dir ? malloc(*size) : NULL;
    if (tmp)
        snprintf(tmp, *size, "%s/.%s.tmp.%ld", dir, base, (long)getpid());
    free(dir);
    return tmp;
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
boids_result boids_atomic_write(const char *path, boids_atomic_fill fill, void *ctx) {
    size_t size;
    char *tmp = temporary_stem(path, &size);
    if (!tmp) {
        errno = ENOMEM;
        return BOIDS_ERR_NOMEM;
    }
    int fd = open_temporary(tmp, size);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return BOIDS_ERR_IO;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
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
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    free(tmp);
    if (!err)
        sync_directory(path);
    errno = err;
    return err ? BOIDS_ERR_IO : BOIDS_OK;
}
