// src/core/input.c: see boids/input.h.
#include "boids/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// See boids/input.h.
FILE *boids_input_open(const char *path, unsigned flags, uint64_t max_bytes, const char *what, char *why,
                       size_t why_size) {
    if (why && why_size)
        why[0] = '\0';
    // O_NONBLOCK: a FIFO with no writer opens at once (and then reads as empty).
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, why_size, "cannot be opened: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = "cannot be examined (fstat failed)";
    else if (S_ISDIR(st.st_mode))
        bad = "is a directory";
    else if (S_ISCHR(st.st_mode))
        bad = "is a character device (as /dev/zero or a terminal), not a file";
    else if (S_ISBLK(st.st_mode))
        bad = "is a block device, not a file";
    else if (S_ISSOCK(st.st_mode))
        bad = "is a socket, not a file";
    else if (S_ISFIFO(st.st_mode) && !(flags & BOIDS_INPUT_PIPES))
        bad = "is a pipe or FIFO; expected a regular file";
    else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        bad = "is not a regular file";
    if (bad) {
        snprintf(why, why_size, "%s", bad);
        close(fd);
        return NULL;
    }
    if (S_ISREG(st.st_mode) && max_bytes && (uint64_t)st.st_size > max_bytes) {
        snprintf(why, why_size, "is %llu bytes, over the %llu %s may have", (unsigned long long)st.st_size,
                 (unsigned long long)max_bytes, what ? what : "such a file");
        close(fd);
        return NULL;
    }
    // Reads block again (a pipe's writer is waited for, as a program expects).
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot be opened: %s", strerror(errno));
        close(fd);
    }
    return f;
}
