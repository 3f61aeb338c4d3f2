// src/gpu/gpu_errors.c: the backend's health (boids/gpu.h Faults). GL debug
// output counts and keeps the errors of every living backend; the reset
// status (or the injected loss) marks a backend lost, after which it makes
// no more GL calls; boids_gpu_check says which, in one line.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

// GL debug output: errors are counted (tests assert zero) and printed. The
// callback belongs to the context, which several backends may share, so
// the count is the process's and each backend reports the errors since it
// was created; the callback stays installed while any backend lives.
static uint32_t gl_errors_seen;
// With asynchronous debug output (benchmark timing) the driver may call the
// callback from its own thread: the count, the first messages and the list
// of backends are only touched under this lock.
static pthread_mutex_t errors_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t backends_alive;
static bool gl_quiet;
static bool gl_silent_errors; // errors are counted and kept, not printed (boids_gpu_check says them)
static boids_gpu *alive_list; // backends with the callback installed, for their first error's text

// Keep the first error message (one line, newlines folded) in every living
// backend that has none yet.
static void keep_first_error(const char *message) {
    for (boids_gpu *g = alive_list; g; g = g->next_alive) {
        if (g->first_error[0])
            continue;
        snprintf(g->first_error, sizeof g->first_error, "%s", message ? message : "(no message)");
        for (char *c = g->first_error; *c; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
        size_t len = strlen(g->first_error);
        while (len > 0 && g->first_error[len - 1] == ' ')
            g->first_error[--len] = '\0';
        g->first_error_step = g->step + (g->in_step ? 1u : 0u);
        g->first_error_in_step = g->in_step;
    }
}

static void GLAPIENTRY debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                     const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)length;
    (void)user;
    if (type == GL_DEBUG_TYPE_ERROR) {
        pthread_mutex_lock(&errors_lock);
        gl_errors_seen++;
        keep_first_error(message);
        pthread_mutex_unlock(&errors_lock);
        if (!gl_silent_errors)
            fprintf(stderr, "GL error: %s\n", message);
    } else if (!gl_quiet && severity == GL_DEBUG_SEVERITY_HIGH) {
        fprintf(stderr, "GL: %s\n", message);
    }
}

// See gpu_internal.h.
void gpu_errors_attach(boids_gpu *g, bool asynchronous, bool quiet, bool silent) {
    boids_gl_debug_enable(debug_message, NULL, !asynchronous);
    gl_quiet = quiet;
    gl_silent_errors = silent;
    backends_alive++;
    g->alive = true;
    pthread_mutex_lock(&errors_lock);
    g->next_alive = alive_list;
    alive_list = g;
    g->errors_at_create = gl_errors_seen;
    pthread_mutex_unlock(&errors_lock);
}

// See gpu_internal.h.
void gpu_errors_detach(boids_gpu *g) {
    if (!g->alive)
        return;
    pthread_mutex_lock(&errors_lock);
    for (boids_gpu **p = &alive_list; *p; p = &(*p)->next_alive)
        if (*p == g) {
            *p = g->next_alive;
            break;
        }
    pthread_mutex_unlock(&errors_lock);
}

// See gpu_internal.h. After a loss no GL call (the context's destruction
// takes the callback with it).
void gpu_errors_release(boids_gpu *g) {
    if (!g->alive)
        return;
    g->alive = false;
    if (--backends_alive == 0 && g->reset == GL_NO_ERROR)
        boids_gl_debug_disable();
}

// See gpu_internal.h.
bool gpu_lost(boids_gpu *g) {
    if (g->reset != GL_NO_ERROR)
        return true;
    GLenum status = glGetGraphicsResetStatus();
    if (status == GL_NO_ERROR && g->fault == FAULT_LOST && g->step >= g->fault_step)
        status = GL_UNKNOWN_CONTEXT_RESET;
    if (status != GL_NO_ERROR) {
        g->reset = status;
        g->reset_step = g->step;
    }
    return status != GL_NO_ERROR;
}

uint32_t boids_gpu_debug_errors(const boids_gpu *g) {
    if (!g)
        return 0;
    pthread_mutex_lock(&errors_lock);
    uint32_t n = gl_errors_seen - g->errors_at_create;
    pthread_mutex_unlock(&errors_lock);
    return n;
}

// See boids/gpu.h.
bool boids_gpu_robust(const boids_gpu *g) {
    if (!g)
        return false;
    return g->robust;
}

// The words for a reset status.
static const char *reset_name(GLenum status) {
    switch (status) {
    case GL_GUILTY_CONTEXT_RESET:
        return "guilty reset: this program's GPU work caused it";
    case GL_INNOCENT_CONTEXT_RESET:
        return "innocent reset: caused outside this program";
    default:
        return "unknown reset";
    }
}

// See boids/gpu.h: the reset status first (a lost context's error count
// means nothing), then the debug callback's error count.
boids_result boids_gpu_check(boids_gpu *g, char *err, size_t err_size) {
    if (!g) {
        if (err && err_size)
            snprintf(err, err_size, "boids_gpu_check: the backend is NULL; expected one from boids_gpu_create");
        return BOIDS_ERR_ARGUMENT;
    }
    char scratch[8];
    if (!err || !err_size)
        err = scratch, err_size = sizeof scratch;
    err[0] = '\0';
    if (gpu_lost(g)) {
        snprintf(err, err_size, "the OpenGL context was lost (%s) at step %llu", reset_name(g->reset),
                 (unsigned long long)g->reset_step);
        return BOIDS_ERR_GPU_LOST;
    }
    pthread_mutex_lock(&errors_lock); // a consistent count and first message
    uint32_t errors = gl_errors_seen - g->errors_at_create;
    char first[sizeof g->first_error];
    memcpy(first, g->first_error, sizeof first);
    uint64_t first_step = g->first_error_step;
    bool first_in_step = g->first_error_in_step;
    pthread_mutex_unlock(&errors_lock);
    if (g->steer_error[0]) {
        snprintf(err, err_size, "a specialised steer program failed to build (the general one stepped): %s",
                 g->steer_error);
        return BOIDS_ERR_SHADER;
    }
    if (errors) {
        int len = snprintf(err, err_size, "%u OpenGL error%s reported", errors, errors == 1 ? " was" : "s were");
        if (first[0] && len >= 0 && (size_t)len < err_size)
            snprintf(err + len, err_size - (size_t)len, " %s step %llu, the first: %s", first_in_step ? "at" : "after",
                     (unsigned long long)first_step, first);
        else if (len >= 0 && (size_t)len < err_size)
            snprintf(err + len, err_size - (size_t)len, " by step %llu", (unsigned long long)g->step);
        return BOIDS_ERR_GL_ERRORS;
    }
    return BOIDS_OK;
}
