/* src/app/progress.h: one updating progress line on stderr for the long
 * work of boids-run, boids-validate and boids-bench:
 *   boids-run: step 4100/10000 (41%)  1234 steps/s  0:05 left
 * drawn with a carriage return (never a newline), only when stderr is a
 * terminal, from 2 s after the first boids_progress_start of the process
 * on, at most 10 times a second. Anything else the program prints goes
 * after boids_progress_clear (or _finish), so the line never mixes with it;
 * after SIGINT / SIGTERM (boids_progress_on_signal, from cli.c's handler)
 * nothing more is drawn, and the run's own clear or finish erases the line
 * before its "interrupted" message.
 * One line per process: the state is file-static, like stderr itself.
 *
 * Offers:
 *   boids_progress_start     a new piece of work: its label and step total
 *   boids_progress_update    steps done (draws when due)
 *   boids_progress_words     count runs instead of steps, a note after the count
 *   boids_progress_share     the share of the work done, when the counted units are unequal
 *   boids_progress_clear     erase the line now (the next update redraws it)
 *   boids_progress_finish    erase it and stop until the next start
 *   boids_progress_on_signal from a signal handler: draw no more
 *
 * BOIDS_DEBUG=progress-after=SECONDS (for tests): show the line after
 * SECONDS instead of 2 (0: from the first update on).
 */
#ifndef BOIDS_APP_PROGRESS_H
#define BOIDS_APP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

// Starts a piece of work of `total` steps named `label` (e.g. "boids-run",
// "boids-bench: N=100000 (2/3)"; copied). Returns true when the line will
// be drawn (stderr is a terminal), false when the program should keep to
// its plain, non-terminal output; the calls below are then no-ops.
bool boids_progress_start(const char *label, uint64_t total);
// `done` of the total steps are done: redraws the line when it is due.
void boids_progress_update(uint64_t done);
// Erases the line if it is drawn (before printing anything else).
void boids_progress_clear(void);
// Erases the line and ends the piece of work.
void boids_progress_finish(void);
// What the line counts instead of steps ("runs") and a note after the count
// (", 2 failed"); NULL or "": none. Until the next start.
void boids_progress_words(const char *unit, const char *note);
// The share of the work done, 0..1 (boids-ensemble: steps of runs in
// flight, large runs weighing more): once it grew past the first share
// given, the percentage, the rate and the time left follow it instead of
// done / total, the time left from the share done since the start (a
// resumed job's runs already done left out). Until the next start.
void boids_progress_share(double done);
// Safe in a signal handler: sets a flag only, so later updates draw nothing
// (the run is stopping). The line is erased by the run's next clear or
// finish, on its own thread: a handler that wrote it could run on any
// thread (OpenMP's too) while the line is being redrawn, and leave it
// half erased.
void boids_progress_on_signal(void);

#endif
