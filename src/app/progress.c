// src/app/progress.c: the progress line of the long runs (see progress.h).
// Drawn as "\rTEXT" padded with spaces over a longer previous text, and
// erased with "\r", spaces, "\r": no terminal escape sequences, so any
// terminal (even TERM=dumb) shows it right. The text is cut to the
// terminal's width, as a wrapped line could not be taken back with "\r".
#include "progress.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "boids/core.h"

#define LINE_MAX_CHARS 200 // the text, at most (a long label is cut)
#define REFRESH_S 0.1      // at most 10 redraws a second
#define DEFAULT_AFTER_S 2.0

static struct {
    bool active;      // between a start that returned true and finish
    char label[128];  // copied from start
    uint64_t total;   // steps of this piece of work
    double started;   // its start (monotonic seconds)
    double first;     // the first start of the process: the line shows from first + after
    double after;     // BOIDS_DEBUG progress-after or DEFAULT_AFTER_S
    double last_draw; // when the line was last drawn (0: not yet)
    size_t columns;   // the terminal's width (0: unknown)
    size_t drawn;     // length of the text on the screen (0: none)
    char unit[16];    // what is counted ("step"; boids-ensemble: "runs")
    char note[64];    // after the count (boids-ensemble: ", 2 failed")
    double share;     // boids_progress_share's (< 0: none; the counts are the work)
    double share0;    // the first share given since the start
} line;

// The erase sequence of the text on screen ("\r", its length in spaces, "\r").
static char blank[LINE_MAX_CHARS + 2];
static volatile sig_atomic_t signalled; // after SIGINT / SIGTERM: nothing more is drawn

// Seconds on a monotonic clock.
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

// The delay before the line shows: BOIDS_DEBUG's progress-after (for tests)
// when it is a number >= 0, else 2 s.
static double delay_from_env(void) {
    char s[64];
    if (!boids_debug_value("progress-after", s, sizeof s) || !*s)
        return DEFAULT_AFTER_S;
    char *end;
    double v = strtod(s, &end);
    return *end == '\0' && v >= 0.0 && v < 1e9 ? v : DEFAULT_AFTER_S;
}

// Writes n bytes to stderr's descriptor (the line is written whole, at once).
static void write_all(const char *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, p, n);
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

// Seconds as "M:SS" or "H:MM:SS".
static void format_duration(double s, char *buf, size_t size) {
    unsigned long long t = s < 0 ? 0ull : s > 3.6e8 ? 360000000ull : (unsigned long long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%llu:%02llu:%02llu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%llu:%02llu", t / 60, t % 60);
}

// Draws "LABEL: step D/T (P%)  R steps/s  M:SS left" over the previous text.
// With a share (boids_progress_share) that grew since the start, the
// percentage, the rate (in units of the total) and the time left follow it;
// before that, the counts.
static void draw(uint64_t done, double now) {
    char text[LINE_MAX_CHARS + 1];
    double elapsed = now - line.started;
    uint64_t total = line.total ? line.total : 1;
    bool shared = line.share > line.share0 && line.share0 >= 0;
    unsigned long long pct = shared ? (unsigned long long)(line.share * 100) : done * 100 / total;
    int n = snprintf(text, sizeof text, "%s: %s %llu/%llu (%llu%%)%s", line.label, line.unit[0] ? line.unit : "step",
                     (unsigned long long)done, (unsigned long long)line.total, pct, line.note);
    double gained = shared ? (line.share - line.share0) * (double)line.total : (double)done;
    if (gained > 0 && elapsed > 0 && n > 0 && (size_t)n < sizeof text) {
        double rate = gained / elapsed;
        double rest =
            shared ? (1 - line.share) * (double)line.total : (double)(line.total > done ? line.total - done : 0);
        char left[32];
        format_duration(rest / rate, left, sizeof left);
        snprintf(text + n, sizeof text - (size_t)n, "  %.*f %s/s  %s left",
                 rate >= 100  ? 0
                 : rate >= 10 ? 1
                              : 2,
                 rate, line.unit[0] ? line.unit : "steps", left);
    }
    size_t len = strlen(text);
    if (line.columns > 1 && len > line.columns - 1) // never the last column: some terminals wrap there
        len = line.columns - 1;
    char out[2 * LINE_MAX_CHARS + 2];
    out[0] = '\r';
    memcpy(out + 1, text, len);
    size_t pad = line.drawn > len ? line.drawn - len : 0; // spaces over the rest of a longer previous text
    memset(out + 1 + len, ' ', pad);
    write_all(out, 1 + len + pad);
    if (pad) { // back to the end of the text
        write_all("\r", 1);
        write_all(text, len);
    }
    blank[0] = '\r';
    memset(blank + 1, ' ', len);
    blank[len + 1] = '\r';
    line.drawn = len;
    line.last_draw = now;
}

// See progress.h.
bool boids_progress_start(const char *label, uint64_t total) {
    boids_progress_clear();
    line.active = !signalled && isatty(STDERR_FILENO);
    if (!line.active)
        return false;
    double now = now_s();
    if (line.first == 0) {
        line.first = now;
        line.after = delay_from_env();
    }
    snprintf(line.label, sizeof line.label, "%s", label);
    line.unit[0] = line.note[0] = '\0';
    line.share = line.share0 = -1;
    line.total = total;
    line.started = now;
    line.last_draw = 0;
    struct winsize ws;
    line.columns = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
    return true;
}

// See progress.h.
void boids_progress_update(uint64_t done) {
    if (!line.active || signalled)
        return;
    double now = now_s();
    if (now - line.first < line.after || (line.last_draw > 0 && now - line.last_draw < REFRESH_S))
        return;
    draw(done, now);
}

// See progress.h.
void boids_progress_clear(void) {
    if (line.drawn == 0)
        return;
    write_all(blank, line.drawn + 2);
    line.drawn = 0; // redrawn by an update at most REFRESH_S after the last draw, as always
}

// See progress.h.
void boids_progress_finish(void) {
    boids_progress_clear();
    line.active = false;
}

// See progress.h.
void boids_progress_on_signal(void) {
    signalled = 1;
}

// See progress.h.
void boids_progress_words(const char *unit, const char *note) {
    snprintf(line.unit, sizeof line.unit, "%s", unit ? unit : "");
    snprintf(line.note, sizeof line.note, "%s", note ? note : "");
}

// See progress.h.
void boids_progress_share(double done) {
    done = done > 0 ? (done < 1 ? done : 1) : 0;
    if (line.share0 < 0)
        line.share0 = done;
    line.share = done;
}
