// src/app/run_outputs.c: boids-run's outputs (run_outputs.h): the writes at
// the end of a run (--export-csv, --save, --record, --profile) and their
// flush after a GPU fault, from the last state read back before it.
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "progress.h"
#include "run_outputs.h"

// A write given up at a signal (boids_cli_cut_by_signal, cli.h).
static int cut_by_signal(const char *flag, const char *path, int flag_before) {
    return boids_cli_cut_by_signal(PROG, flag, path, flag_before);
}

// See run_outputs.h. --save: the state of now and the scenario's schedule
// to the snapshot; returns 0, 3 (one line printed; an existing file is left as it was),
// 130 / 143 (a signal cut a write to a pipe short) or -1
// for a GPU fault (nothing written, the caller stops).
int run_save(const boids_options *o, boids_engine *e) {
    char err[1200];
    int before = boids_cli_interrupted();
    boids_result r = boids_engine_save(e, o->save, err, sizeof err);
    if (r == BOIDS_ERR_GPU_LOST || r == BOIDS_ERR_GL_ERRORS)
        return -1;
    if (r != BOIDS_OK) {
        int cut = cut_by_signal("--save", o->save, before);
        if (cut)
            return cut;
        boids_progress_clear(); // --save-every during the run
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        return EXIT_ENVIRONMENT;
    }
    return 0;
}

// Appends printf-style text to the line buf (cut at its size).
static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

// The end of a stopped run's line: --profile written with the steps it
// has (or why not), then the line printed; returns 3.
static int profile_and_say(const boids_options *o, run_outputs *out, char *line, size_t size) {
    if (out->profile) {
        char why[256];
        if (boids_profile_write_quiet(out->profile, why, sizeof why) == 0)
            append(line, size, "; --profile %s holds %llu step%s", o->profile, (unsigned long long)out->profile_rows,
                   out->profile_rows == 1 ? "" : "s");
        else
            append(line, size, "; --profile %s could not be written: %s", o->profile, why);
    }
    fflush(stdout);
    fprintf(stderr, "%s\n", line);
    return EXIT_ENVIRONMENT;
}

// After a state that is not finite (the engine's fault BOIDS_ERR_NONFINITE):
// no more steps. --export-csv and --save are not written (a file of that
// state, or of an earlier one, would look whole; one there is left as it
// was, and --save-every's last snapshot stays); the recording is closed
// with its frames, every one finite (a frame is written only from a checked
// state), the last before the problem; --profile gets the steps run. Prints
// ONE line: the problem (step, agent, group, behaviours) and what each
// output holds; returns 3.
static int flush_after_nonfinite(const boids_options *o, boids_engine *e, run_outputs *out) {
    char line[4096], problem[1024];
    boids_engine_check(e, problem, sizeof problem);
    snprintf(line, sizeof line, "%s: %s; stopped", PROG, problem);
    if (out->recording) {
        uint32_t frames = 0;
        uint64_t last = 0;
        char err[512];
        boids_result rr = boids_engine_record_close(e, &frames, &last, err, sizeof err);
        out->recording = false;
        if (rr != BOIDS_OK)
            append(line, sizeof line, "; --record %s: %s", o->record, err);
        else
            append(line, sizeof line, "; --record %s holds %u frame%s (to step %llu, before the problem)", o->record,
                   frames, frames == 1 ? "" : "s", (unsigned long long)last);
    }
    if (o->save && out->saved_step >= 0)
        append(line, sizeof line, "; --save %s holds step %lld (from --save-every)", o->save,
               (long long)out->saved_step);
    else if (o->save)
        append(line, sizeof line, "; --save %s not written", o->save);
    if (o->export_csv)
        append(line, sizeof line, "; --export-csv %s not written", o->export_csv);
    return profile_and_say(o, out, line, sizeof line);
}

// See run_outputs.h. After a GPU fault: no more steps and no read-back.
// The recording is closed with every frame written so far; --save and
// --export-csv are written from the last trusted read-back before the fault
// (boids_engine_last_good), else left as they are; --profile gets the steps
// before the fault. Prints ONE line: the fault, its step and what each
// output now holds (a write failure's own reason included); returns 3.
int run_flush_after_fault(const boids_options *o, boids_engine *e, run_outputs *out) {
    char line[4096], fault[1024];
    if (boids_engine_check(e, fault, sizeof fault) == BOIDS_ERR_NONFINITE)
        return flush_after_nonfinite(o, e, out);
    snprintf(line, sizeof line, "%s: --backend gpu: %s; stopped", PROG, fault);
    uint64_t good_step = 0;
    bool trusted = boids_engine_last_good(e, &good_step);
    if (out->recording) {
        uint32_t frames = 0;
        uint64_t last = 0;
        char err[512];
        boids_result rr = boids_engine_record_close(e, &frames, &last, err, sizeof err);
        out->recording = false;
        if (rr != BOIDS_OK)
            append(line, sizeof line, "; --record %s: %s", o->record, err);
        else if (frames == 0)
            append(line, sizeof line, "; --record %s holds no frames", o->record);
        else
            append(line, sizeof line, "; --record %s holds %u frame%s (to step %llu)", o->record, frames,
                   frames == 1 ? "" : "s", (unsigned long long)last);
    }
    if (o->save) {
        char err[1200];
        if (!trusted && out->saved_step >= 0)
            append(line, sizeof line,
                   "; --save %s holds step %lld (from --save-every; the state read back at the "
                   "fault is not trusted)",
                   o->save, (long long)out->saved_step);
        else if (!trusted)
            append(line, sizeof line, "; --save %s not written (the state read back at the fault is not trusted)",
                   o->save);
        else if (boids_engine_save(e, o->save, err, sizeof err) != BOIDS_OK)
            append(line, sizeof line, "; --save: %s", err);
        else
            append(line, sizeof line, "; --save %s holds step %llu (the last good state before the fault)", o->save,
                   (unsigned long long)good_step);
    }
    if (o->export_csv) {
        char err[512];
        if (!trusted)
            append(line, sizeof line, "; --export-csv %s not written (no trusted state)", o->export_csv);
        else if (boids_engine_write_csv(e, o->export_csv, err, sizeof err) != BOIDS_OK)
            append(line, sizeof line, "; --export-csv %s could not be written: %s", o->export_csv, err);
        else
            append(line, sizeof line, "; --export-csv %s holds step %llu", o->export_csv,
                   (unsigned long long)good_step);
    }
    return profile_and_say(o, out, line, sizeof line);
}

// See run_outputs.h: the outputs of a run that ended without a fault, in
// this order (a failure stops at it).
int run_write_outputs(const boids_options *o, boids_engine *e, run_outputs *out) {
    int before = boids_cli_interrupted(), rc;
    if (o->export_csv) {
        char err[512];
        if (boids_engine_write_csv(e, o->export_csv, err, sizeof err) != BOIDS_OK) {
            int saved = errno;
            if ((rc = cut_by_signal("--export-csv", o->export_csv, before)))
                return rc;
            boids_cli_error(PROG, "--export-csv", o->export_csv, NULL, "could not be written: %s", strerror(saved));
            return EXIT_ENVIRONMENT;
        }
    }
    if (o->save && (rc = run_save(o, e)) != 0)
        return rc > 0 ? rc : EXIT_ENVIRONMENT;
    if (out->recording) {
        uint32_t frames = 0;
        char rec_err[512];
        boids_result rr = boids_engine_record_close(e, &frames, NULL, rec_err, sizeof rec_err);
        out->recording = false;
        if (rr != BOIDS_OK) { // in an interrupted run: a stalled reader's flush given up, 128 + the signal
            fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
            return boids_cli_interrupted() ? 128 + boids_cli_interrupted() : EXIT_ENVIRONMENT;
        }
        if (!o->quiet)
            printf("recorded: %s (%u frames, every %llu steps)\n", o->record, frames,
                   (unsigned long long)o->record_every);
    }
    if (out->profile) {
        if ((rc = boids_profile_write(out->profile))) // one line: not written, or given up at a signal
            return rc;
        boids_profile_summary(out->profile, o->quiet || boids_cli_interrupted() ? stderr : stdout);
    }
    return 0;
}

// See run_outputs.h: the recording is flushed on every exit.
void run_close_record(boids_engine *e, run_outputs *out) {
    char rec_err[512];
    if (out->recording && boids_engine_record_close(e, NULL, NULL, rec_err, sizeof rec_err) != BOIDS_OK)
        fprintf(stderr, "%s: --record: %s\n", PROG, rec_err);
    out->recording = false;
}

// See run_outputs.h.
void run_print_stats(const char *label, const boids_stats *st, double ms_per_step) {
    printf("%sstep %llu  polarisation %.4f  milling %.4f  speed %.4f  neighbors %.3f  nearest %.4f  cell-max %u  "
           "cell-mean %.3f  ms/step %.3f\n",
           label, (unsigned long long)st->step, st->polarisation, st->milling, st->mean_speed, st->mean_neighbors,
           st->mean_nearest, st->cell_max, st->cell_mean, ms_per_step);
}

// See run_outputs.h.
int run_check_outputs(const boids_options *o) {
    static const char expected[] = "a file path in an existing, writable directory";
    int rc = boids_cli_check_files(PROG, o);
    if (rc)
        return rc;
    if (o->export_csv && (rc = boids_cli_check_output(PROG, "--export-csv", o->export_csv, expected)))
        return rc;
    if (o->save && (rc = boids_cli_check_output(PROG, "--save", o->save, expected)))
        return rc;
    if (o->record && (rc = boids_cli_check_output(PROG, "--record", o->record, expected)))
        return rc;
    return 0;
}
