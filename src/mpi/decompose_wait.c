// src/mpi/decompose_wait.c: the decomposed run's waits (decompose_private.h):
// every request tested in a loop with a time-out, then a roll call on
// d->ping names the ranks that do not answer, one line, MPI_Abort; never a
// hang. Also the one-line abort and the buffers' growth.
#include <stdlib.h>
#include <time.h>

#include "decompose_private.h"

// The roll call of a rank that timed out (roll_call), on d->ping: its
// own messages, apart from the run's.
enum { TAG_PING = 1, TAG_PONG = 2 };

// Answers the roll calls that came (a rank waiting also answers: the one
// that timed out names only the ranks that do not).
static void answer_roll_calls(decomp *d) {
    for (;;) {
        int came = 0, call;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_PING, d->ping, &came, &st);
        if (!came)
            return;
        MPI_Recv(&call, 1, MPI_INT, st.MPI_SOURCE, TAG_PING, d->ping, MPI_STATUS_IGNORE);
        MPI_Request r;
        MPI_Isend(&d->rank, 1, MPI_INT, st.MPI_SOURCE, TAG_PONG, d->ping, &r);
        MPI_Request_free(&r);
    }
}

// After a time-out: asks every other rank to answer, waits for the answers
// a few seconds (answering the others' calls meanwhile), and writes into
// `silent` the ranks that did not ("1, 3"; empty: every rank answered).
static void roll_call(decomp *d, char *silent, size_t size) {
    int n = d->size, *answer = calloc((size_t)n, sizeof *answer);
    MPI_Request *recv = calloc((size_t)n, sizeof *recv), *send = calloc((size_t)n, sizeof *send);
    silent[0] = '\0';
    if (!answer || !recv || !send) { // (freed by the abort that follows, as the buffers below)
        snprintf(silent, size, "(unknown: out of memory)");
        return;
    }
    for (int k = 0; k < n; k++) {
        recv[k] = send[k] = MPI_REQUEST_NULL;
        if (k == d->rank)
            continue;
        MPI_Irecv(&answer[k], 1, MPI_INT, k, TAG_PONG, d->ping, &recv[k]);
        MPI_Isend(&d->rank, 1, MPI_INT, k, TAG_PING, d->ping, &send[k]);
    }
    double grace = d->timeout_s < 10 ? d->timeout_s : 10, t0 = MPI_Wtime();
    int waiting = n - 1;
    while (waiting > 0 && MPI_Wtime() - t0 < grace) {
        answer_roll_calls(d);
        waiting = 0;
        for (int k = 0; k < n; k++) {
            int done = 1;
            if (recv[k] != MPI_REQUEST_NULL)
                MPI_Test(&recv[k], &done, MPI_STATUS_IGNORE);
            waiting += !done;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    size_t used = 0;
    for (int k = 0; k < n; k++)
        if (recv[k] != MPI_REQUEST_NULL && used < size)
            used += (size_t)snprintf(silent + used, size - used, "%s%d", used ? ", " : "", k);
    // Not freed: a late answer may still land in them before MPI_Abort, which follows.
}

// Waits for r, giving up after the time-out (a rank lost or stuck): a roll
// call names the ranks that do not answer, one line, MPI_Abort; never a hang.
void decomp_wait_for(decomp *d, MPI_Request *r, const char *what) {
    double t0 = MPI_Wtime();
    for (unsigned spin = 0;; spin++) {
        int done = 0;
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done) {
            d->wait_s += MPI_Wtime() - t0;
            return;
        }
        if (MPI_Wtime() - t0 > d->timeout_s) {
            char silent[256];
            roll_call(d, silent, sizeof silent);
            if (silent[0])
                fprintf(d->err,
                        "boids-run: --decompose: rank %d waited %.0f s for %s; rank %s does not answer (stopped, "
                        "lost, or busy beyond --timeout): the run ends\n",
                        d->rank, d->timeout_s, what, silent);
            else
                fprintf(d->err,
                        "boids-run: --decompose: rank %d waited %.0f s for %s; every rank answers, so they wait on "
                        "one another (a fault of boids-run: please report it): the run ends\n",
                        d->rank, d->timeout_s, what);
            fflush(d->err);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (spin > 1000) { // a loaded machine: leave the cores to the other ranks
            answer_roll_calls(d);
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

void decomp_fatal(const decomp *d, const char *msg) {
    fprintf(d->err, "boids-run: --decompose: rank %d: %s\n", d->rank, msg);
    fflush(d->err);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void *decomp_grow(const decomp *d, void *b, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return b;
    size_t c = need + need / 2 + 64;
    void *n = realloc(b, c * size);
    if (!n)
        decomp_fatal(d, "out of memory");
    *cap = c;
    return n;
}
