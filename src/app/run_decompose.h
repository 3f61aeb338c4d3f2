/* src/app/run_decompose.h: boids-run --decompose AxB[xC], the driver of one
 * run split over the ranks of mpirun (the decomposition itself:
 * src/mpi/decompose_mpi.h, which it calls with plain parameters). Built into
 * boids-run only, with MPI: it reads boids-run's options (cli.h) and writes
 * its outputs (run_outputs.h).
 *
 * Offers: decompose_main, decompose_check, decompose_run.
 */
#ifndef BOIDS_APP_RUN_DECOMPOSE_H
#define BOIDS_APP_RUN_DECOMPOSE_H

#include "boids/engine.h"
#include "cli.h"

// boids-run's main under --decompose: MPI started (by mpirun, or alone as a
// singleton), the stdout and stderr of every rank but 0 sent to /dev/null,
// then boids_cli_main(argc, argv, spec, run), then MPI finalized. Returns
// the exit status.
int decompose_main(int argc, char **argv, const boids_cli_spec *spec, int (*run)(const boids_options *o));

// --decompose and --rebalance parsed, and the flags this slice cannot
// honour refused: 0, or 2 with one line (rank 0's).
int decompose_check(const boids_options *o);

// The run of the engine e (its parameters and initial state) split over the
// ranks: 0, 2 (bad input, one line on rank 0), 3, or 128 + a signal. Every
// rank agrees on the outcome of the checks before any exchange (a time-out
// bounds it).
int decompose_run(const boids_options *o, boids_engine *e);

#endif
