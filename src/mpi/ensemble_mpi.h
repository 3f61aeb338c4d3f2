/* src/mpi/ensemble_mpi.h: a plan over MPI ranks (the optional component,
 * BOIDS_MPI): rank 0 hands out run indexes to the ranks as they ask for
 * work, runs `jobs` of them itself on threads, and writes every rank's
 * results into the output folder (the same files as one process writes).
 * Every wait has a time-out: a rank that sends nothing for `timeout_s`
 * while it holds a run, or a rank 0 that does not answer, is an error
 * message and MPI_Abort, not a hang. The library (src/engine) never needs MPI.
 *
 * Offers: boids_mpi_active (run under mpirun?), boids_mpi_ensemble.
 */
#ifndef BOIDS_MPI_ENSEMBLE_H
#define BOIDS_MPI_ENSEMBLE_H

#include <stdbool.h>

#include "boids/ensemble.h"

typedef struct boids_mpi_options {
    const char *plan_path, *out_dir;
    int jobs;    // rank 0's own worker threads (0: it only dispatches)
    int threads; // CPU threads per run
    bool resume;
    double timeout_s;    // the longest wait for one message
    uint32_t kill_after; // tests (BOIDS_DEBUG ensemble-kill-after)
    // rank 0's progress after each written run
    void (*progress)(void *user, uint32_t done, uint32_t failed, uint32_t total);
    void *user;
} boids_mpi_options;

// Whether this process was started by mpirun (or another launcher that sets
// the size of the world), so MPI is to be initialised.
bool boids_mpi_active(void);
// Initialises MPI, runs the plan, finalises MPI; the exit status: 0 done
// (failed runs included), 2 a bad plan or folder, 3 an environment problem
// (a rank lost, a write error). Messages on rank 0's stderr, one line each.
int boids_mpi_ensemble(const boids_mpi_options *o);

#endif
