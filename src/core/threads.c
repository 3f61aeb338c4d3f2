// src/core/threads.c: the thread count of the CPU steps, and what happens to
// it across fork(). libgomp keeps its worker threads in a pool that a forked
// child inherits as data only (fork copies the calling thread alone): the
// child's first parallel region of more than one thread waits on those
// workers for ever (multiprocessing's default "fork" start method in Python).
// A region of one thread never touches the pool, and the results do not
// depend on the thread count, so a forked child steps on one thread.
#include "threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <omp.h>

static atomic_bool forked_child;
static pthread_once_t registered = PTHREAD_ONCE_INIT;

// pthread_atfork's child handler: runs in the child, on its only thread.
static void after_fork_child(void) {
    atomic_store(&forked_child, true);
}

// Registers the child handler (once per process).
static void register_fork_handler(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}

// See threads.h.
int boids_step_threads(int requested) {
    pthread_once(&registered, register_fork_handler);
    if (atomic_load(&forked_child))
        return 1;
    return requested > 0 ? requested : omp_get_max_threads();
}
