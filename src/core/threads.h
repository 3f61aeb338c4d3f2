// src/core/threads.h: the OpenMP thread count of a CPU step (src/core/threads.c).
#ifndef BOIDS_CORE_THREADS_H
#define BOIDS_CORE_THREADS_H

// The threads a parallel region of a step runs on: `requested` (> 0), else
// the OpenMP default; 1 in a process forked from one that may have used
// OpenMP (results do not depend on the count). The first call registers the
// at-fork handler, before any parallel region of the library can run.
int boids_step_threads(int requested);

#endif
