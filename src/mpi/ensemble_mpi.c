// src/mpi/ensemble_mpi.c: a plan over MPI ranks (ensemble_mpi.h). Rank 0
// is the dispatcher and the only writer: a rank asks for work, gets a run
// index (or STOP), runs it through the library (boids_ensemble_run_one) and
// sends the text of its files back with its next request; rank 0 also runs
// `jobs` runs at a time on threads of its own (only its main thread calls
// MPI: MPI_THREAD_FUNNELED). Every file but a run's snapshot (RUN.boids,
// written by the rank that ran it, atomically: the folder must be on a file
// system the ranks share) is written by rank 0 with the library's writer, so
// the folder is the same bytes for any number of ranks.
// Waits poll (MPI_Iprobe / MPI_Test) against a deadline, so a rank that
// dies or hangs is a message and MPI_Abort, not a hang.
#include "ensemble_mpi.h"

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TAG_ASK = 1, TAG_RUN = 2, TAG_RESULT = 3 };
#define STOP UINT32_MAX

bool boids_mpi_active(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap(void) {
    struct timespec ts = {0, 1000000}; // 1 ms between polls
    nanosleep(&ts, NULL);
}

// Completes a request, polling until `timeout_s`; false on time-out.
static bool wait_for(MPI_Request *req, double timeout_s) {
    double end = now_s() + timeout_s;
    for (;;) {
        int flag = 0;
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return true;
        if (now_s() > end)
            return false;
        nap();
    }
}

// The result message: a fixed head, then the texts.
typedef struct head {
    uint32_t run, ok, interrupted, pad;
    uint64_t state_hash;
    double seconds;
    uint32_t len_message, len_csv, len_json, len_time;
} head;

static char *pack(const boids_run_output *o, int *size) {
    head h = {o->run,
              o->ok,
              o->interrupted,
              0,
              o->state_hash,
              o->seconds,
              (uint32_t)strlen(o->message),
              (uint32_t)strlen(o->csv),
              (uint32_t)strlen(o->json),
              (uint32_t)strlen(o->time_json)};
    size_t n = sizeof h + h.len_message + h.len_csv + h.len_json + h.len_time;
    if (n > (size_t)INT32_MAX)
        return NULL;
    char *b = malloc(n), *p = b;
    if (!b)
        return NULL;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    memcpy(p, o->message, h.len_message);
    p += h.len_message;
    memcpy(p, o->csv, h.len_csv);
    p += h.len_csv;
    memcpy(p, o->json, h.len_json);
    p += h.len_json;
    memcpy(p, o->time_json, h.len_time);
    *size = (int)n;
    return b;
}

static char *dup_n(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static bool unpack(const char *b, int size, boids_run_output *o) {
    memset(o, 0, sizeof *o);
    head h;
    if ((size_t)size < sizeof h)
        return false;
    memcpy(&h, b, sizeof h);
    size_t need = sizeof h + (size_t)h.len_message + h.len_csv + h.len_json + h.len_time;
    if (need != (size_t)size || h.len_message >= sizeof o->message)
        return false;
    const char *p = b + sizeof h;
    o->run = h.run;
    o->ok = h.ok != 0;
    o->interrupted = h.interrupted != 0;
    o->state_hash = h.state_hash;
    o->seconds = h.seconds;
    memcpy(o->message, p, h.len_message);
    p += h.len_message;
    o->csv = dup_n(p, h.len_csv);
    p += h.len_csv;
    o->json = dup_n(p, h.len_json);
    p += h.len_json;
    o->time_json = dup_n(p, h.len_time);
    return o->csv && o->json && o->time_json;
}

static void snapshot_path(const char *out_dir, uint32_t r, char *out, size_t size) {
    snprintf(out, size, "%s/runs/%06u.boids", out_dir, r);
}

// ---- a worker rank ----------------------------------------------------------------

// Tests: BOIDS_DEBUG=ensemble-fail-rank=R:hang (or R:die) makes rank R hang
// (or die by SIGKILL) once it is handed its first run: a lost rank, which
// rank 0 must report within --timeout instead of waiting for ever.
static void test_failure(int rank) {
    char s[32];
    int r = -1;
    char how[8] = "";
    if (!boids_debug_value("ensemble-fail-rank", s, sizeof s) || sscanf(s, "%d:%7s", &r, how) != 2 || r != rank)
        return;
    if (strcmp(how, "die") == 0)
        raise(SIGKILL);
    for (;;)
        pause();
}

static int worker(const boids_plan *p, const boids_mpi_options *o, int rank) {
    boids_engine_headless *h = NULL;
    char err[600];
    if (p && p->backend == BOIDS_BACKEND_GPU && boids_engine_headless_open(&h, err, sizeof err) != BOIDS_OK)
        h = NULL; // each run then reports the missing context as its failure
    char *msg = NULL;
    int msg_size = 0, tag = TAG_ASK;
    uint32_t ask = (uint32_t)rank;
    for (;;) {
        MPI_Request req;
        if (tag == TAG_ASK)
            MPI_Isend(&ask, 1, MPI_UINT32_T, 0, TAG_ASK, MPI_COMM_WORLD, &req);
        else
            MPI_Isend(msg, msg_size, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &req);
        if (!wait_for(&req, o->timeout_s)) {
            fprintf(stderr, "boids-ensemble: rank %d: rank 0 took no message for %.0f s; stopping (see --timeout)\n",
                    rank, o->timeout_s);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        free(msg);
        msg = NULL;
        uint32_t run = STOP;
        MPI_Irecv(&run, 1, MPI_UINT32_T, 0, TAG_RUN, MPI_COMM_WORLD, &req);
        if (!wait_for(&req, o->timeout_s)) {
            fprintf(stderr, "boids-ensemble: rank %d: no answer from rank 0 for %.0f s; stopping (see --timeout)\n",
                    rank, o->timeout_s);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (run == STOP || !p)
            break;
        test_failure(rank);
        char snap[1200];
        if (p->snapshot)
            snapshot_path(o->out_dir, run, snap, sizeof snap);
        boids_run_env env = {
            .threads = o->threads, .headless = h, .snapshot_path = p->snapshot ? snap : NULL, .rank = rank};
        boids_run_output out;
        if (boids_ensemble_run_one(p, run, &env, &out) != BOIDS_OK || !(msg = pack(&out, &msg_size))) {
            fprintf(stderr, "boids-ensemble: rank %d: run %u: out of memory\n", rank, run);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        boids_ensemble_output_free(&out);
        tag = TAG_RESULT;
    }
    boids_engine_headless_close(h);
    return 0;
}

// ---- rank 0 -------------------------------------------------------------------------

typedef struct dispatch {
    const boids_plan *p;
    const boids_mpi_options *o;
    pthread_mutex_t lock;
    uint32_t *todo, n_todo, next;
    boids_run_output *ready;
    uint32_t n_ready, local_active;
    bool stop;
    boids_engine_headless *headless;
} dispatch;

// Takes the next run to do (STOP when none).
static uint32_t take(dispatch *D) {
    pthread_mutex_lock(&D->lock);
    uint32_t r = !D->stop && D->next < D->n_todo ? D->todo[D->next++] : STOP;
    pthread_mutex_unlock(&D->lock);
    return r;
}

static void *local_worker(void *arg) {
    dispatch *D = arg;
    // The GPU: a context current on this thread (rank 0's only worker thread).
    char err[600];
    if (D->p->backend == BOIDS_BACKEND_GPU && boids_engine_headless_open(&D->headless, err, sizeof err) != BOIDS_OK)
        D->headless = NULL; // each run then reports the missing context as its failure
    for (;;) {
        uint32_t r = take(D);
        if (r == STOP)
            break;
        char snap[1200];
        if (D->p->snapshot)
            snapshot_path(D->o->out_dir, r, snap, sizeof snap);
        boids_run_env env = {.threads = D->o->threads,
                             .headless = D->headless,
                             .snapshot_path = D->p->snapshot ? snap : NULL,
                             .worker = 1};
        boids_run_output out;
        boids_result res = boids_ensemble_run_one(D->p, r, &env, &out);
        pthread_mutex_lock(&D->lock);
        if (res == BOIDS_OK)
            D->ready[D->n_ready++] = out;
        else
            D->stop = true;
        pthread_mutex_unlock(&D->lock);
    }
    boids_engine_headless_close(D->headless);
    D->headless = NULL;
    pthread_mutex_lock(&D->lock);
    D->local_active--;
    pthread_mutex_unlock(&D->lock);
    return NULL;
}

typedef struct rank_state {
    uint32_t run; // the run it holds, STOP: none
    double since; // when it was handed out
    bool stopped; // told to stop
} rank_state;

static int dispatcher(const boids_plan *p, const boids_mpi_options *o, int size, bool prepared) {
    dispatch D = {.p = p, .o = o};
    pthread_mutex_init(&D.lock, NULL);
    uint32_t runs = p ? p->runs : 0, done = 0, failed = 0, written = 0;
    D.todo = malloc(sizeof *D.todo * (runs ? runs : 1));
    D.ready = malloc(sizeof *D.ready * (runs ? runs : 1));
    rank_state *rs = calloc((size_t)size, sizeof *rs);
    int status = prepared ? 0 : 2;
    if (!D.todo || !D.ready || !rs) {
        fprintf(stderr, "boids-ensemble: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (uint32_t r = 0; prepared && r < runs; r++) {
        bool f = false;
        if (!boids_ensemble_run_done(p, o->out_dir, r, &f))
            D.todo[D.n_todo++] = r;
        failed += f;
    }
    done = runs - D.n_todo;
    for (int k = 0; k < size; k++)
        rs[k].run = STOP;
    // Rank 0's own threads (the GPU: one, on a context of this process).
    int jobs = o->jobs < 0 ? 0 : o->jobs;
    char err[1600];
    if (p && p->backend == BOIDS_BACKEND_GPU && jobs > 1)
        jobs = 1;
    if (size == 1 && jobs == 0)
        jobs = 1; // someone has to run them
    pthread_t th[64];
    int started = 0;
    for (int j = 0; j < jobs && j < 64 && D.n_todo; j++)
        if (pthread_create(&th[started], NULL, local_worker, &D) == 0)
            started++;
    D.local_active = (uint32_t)started;
    int stopped = 0;
    bool busy = true;
    while (busy) {
        bool idle = true;
        // Outputs of this rank's threads.
        pthread_mutex_lock(&D.lock);
        boids_run_output out;
        bool have = D.n_ready > 0;
        if (have)
            out = D.ready[--D.n_ready];
        pthread_mutex_unlock(&D.lock);
        if (have) {
            idle = false;
            goto write;
        }
        // A message from a rank: a request, or a result (which asks again).
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            idle = false;
            int src = st.MPI_SOURCE;
            if (st.MPI_TAG == TAG_ASK) {
                uint32_t who;
                MPI_Recv(&who, 1, MPI_UINT32_T, src, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                have = false;
            } else {
                int n = 0;
                MPI_Get_count(&st, MPI_BYTE, &n);
                char *b = malloc(n > 0 ? (size_t)n : 1);
                MPI_Recv(b, n, MPI_BYTE, src, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                have = b && unpack(b, n, &out) && out.run == rs[src].run;
                free(b);
                if (!have) {
                    fprintf(stderr, "boids-ensemble: rank %d sent a malformed result; stopping\n", src);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
            uint32_t next = take(&D);
            rs[src].run = next;
            rs[src].since = now_s();
            MPI_Request req;
            MPI_Isend(&rs[src].run, 1, MPI_UINT32_T, src, TAG_RUN, MPI_COMM_WORLD, &req);
            if (!wait_for(&req, o->timeout_s)) {
                fprintf(stderr, "boids-ensemble: rank %d took no message for %.0f s (lost?); stopping\n", src,
                        o->timeout_s);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            if (next == STOP && !rs[src].stopped) {
                rs[src].stopped = true;
                stopped++;
            }
            if (have)
                goto write;
        }
        goto check;
    write : {
        char werr[1600];
        bool wrote = status == 0 && boids_ensemble_write_run(o->out_dir, &out, werr, sizeof werr) == BOIDS_OK;
        if (wrote && out.interrupted) // recorded; the environment stops the job
            snprintf(werr, sizeof werr, "run %u: %.900s; recorded as interrupted (--resume runs it again)", out.run,
                     out.message);
        if (status == 0 && (!wrote || out.interrupted)) {
            fprintf(stderr, "boids-ensemble: %s\n", werr);
            status = 3;
            pthread_mutex_lock(&D.lock);
            D.stop = true;
            pthread_mutex_unlock(&D.lock);
        } else if (status == 0) {
            done++;
            failed += !out.ok;
            written++;
            if (o->progress)
                o->progress(o->user, done, failed, runs);
            if (o->kill_after && written >= o->kill_after)
                raise(SIGKILL); // tests: a job killed with runs in flight
        }
        boids_ensemble_output_free(&out);
    }
    check:
        // A rank that holds a run past the time-out is lost.
        for (int k = 1; k < size; k++)
            if (rs[k].run != STOP && now_s() - rs[k].since > o->timeout_s) {
                fprintf(stderr,
                        "boids-ensemble: rank %d sent no result of run %u for %.0f s (lost or hung); "
                        "stopping (see --timeout)\n",
                        k, rs[k].run, o->timeout_s);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        pthread_mutex_lock(&D.lock);
        busy = stopped < size - 1 || D.local_active > 0 || D.n_ready > 0;
        pthread_mutex_unlock(&D.lock);
        if (idle && busy)
            nap();
    }
    for (int j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    if (status == 0) {
        uint32_t f = 0;
        if (boids_ensemble_assemble(p, o->out_dir, &f, err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "boids-ensemble: %s\n", err);
            status = 3;
        } else {
            fprintf(stderr, "boids-ensemble: %u runs (%u failed) on %d rank%s: %s/results.csv\n", runs, f, size,
                    size == 1 ? "" : "s", o->out_dir);
        }
    }
    free(D.todo);
    free(D.ready);
    free(rs);
    pthread_mutex_destroy(&D.lock);
    return status;
}

int boids_mpi_ensemble(const boids_mpi_options *o) {
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "boids-ensemble: MPI could not be initialised; expected a working MPI (mpirun)\n");
        return 3;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Every rank reads the plan itself (the same file, the same expansion);
    // rank 0 reports a bad one, and then answers every request with STOP.
    char err[1600];
    boids_plan *p = NULL;
    boids_result r = boids_plan_load(o->plan_path, &p, err, sizeof err);
    int status;
    if (rank == 0) {
        bool prepared = false;
        if (r != BOIDS_OK) {
            fprintf(stderr, "boids-ensemble: %s\n", err);
        } else if (boids_ensemble_prepare(p, o->out_dir, o->resume, err, sizeof err) != BOIDS_OK) {
            fprintf(stderr, "boids-ensemble: %s\n", err);
        } else {
            prepared = true;
        }
        status = dispatcher(prepared ? p : NULL, o, size, prepared);
        if (r != BOIDS_OK || !prepared)
            status = 2;
    } else {
        status = worker(r == BOIDS_OK ? p : NULL, o, rank);
    }
    boids_plan_free(p);
    MPI_Finalize();
    return status;
}
