// src/engine/engine_debug.c: the test hooks (boids/debug.h) in one place:
// the fields of boids_engine_desc.debug a program left zero filled from
// BOIDS_DEBUG, and every value checked before any GL, so each program and
// the Python package reach the hooks through that one variable and the GPU
// backend reads no environment.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/parse.h"

#include "engine_private.h"

// BOIDS_DEBUG's item `name` into v (size bytes): false when absent; a value
// that does not fit is BOIDS_ERR_ARGUMENT in *r with err saying so.
static bool item(const char *name, char *v, size_t size, boids_result *r, char *err, size_t err_size) {
    if (!boids_debug_value(name, v, size))
        return false;
    if (strlen(v) + 1 >= size) {
        engine_say(err, err_size, "BOIDS_DEBUG %s: '%s...' is too long; expected at most %zu characters", name, v,
                   size - 2);
        *r = BOIDS_ERR_ARGUMENT;
        return false;
    }
    return true;
}

// A text hook (emulate, fault): BOIDS_DEBUG's value, checked by `check`,
// into *field when the desc left it NULL or "".
static boids_result text_hook(const char *name, char *buf, size_t size,
                              boids_result (*check)(const char *, const char *, char *, size_t), const char **field,
                              char *err, size_t err_size) {
    boids_result r = BOIDS_OK;
    if (!item(name, buf, size, &r, err, err_size))
        return r;
    char input[64];
    snprintf(input, sizeof input, "BOIDS_DEBUG %s", name);
    if ((r = check(input, buf, err, err_size)) != BOIDS_OK)
        return r;
    if (!*field || !**field)
        *field = buf;
    return BOIDS_OK;
}

// A switch (steer-general, no-int64): the bare name, on or 1 sets *field;
// off or 0 leaves it as the desc has it.
static boids_result switch_hook(const char *name, bool *field, char *err, size_t err_size) {
    char v[32];
    boids_result r = BOIDS_OK;
    if (!item(name, v, sizeof v, &r, err, err_size))
        return r;
    if (!v[0] || strcmp(v, "on") == 0 || strcmp(v, "1") == 0) {
        *field = true;
    } else if (strcmp(v, "off") != 0 && strcmp(v, "0") != 0) {
        engine_say(err, err_size, "BOIDS_DEBUG %s: '%s' is not a switch; expected the bare name, on, off, 1 or 0", name,
                   v);
        return BOIDS_ERR_ARGUMENT;
    }
    return BOIDS_OK;
}

// correct-rounding: auto, on or off, into *field when the desc left it AUTO.
static boids_result rounding_hook(boids_debug_rounding *field, char *err, size_t err_size) {
    static const char *const names[] = {"auto", "on", "off"};
    char v[32];
    boids_result r = BOIDS_OK;
    if (!item("correct-rounding", v, sizeof v, &r, err, err_size))
        return r;
    for (int k = 0; k < 3; k++)
        if (strcmp(v, names[k]) == 0) {
            if (*field == BOIDS_DEBUG_ROUNDING_AUTO)
                *field = (boids_debug_rounding)k;
            return BOIDS_OK;
        }
    engine_say(err, err_size, "BOIDS_DEBUG correct-rounding: '%s' is not a setting; expected auto, on or off", v);
    return BOIDS_ERR_ARGUMENT;
}

// See engine_private.h.
boids_result engine_debug(const boids_debug *desc, boids_debug *out, engine_debug_text *text, char *err,
                          size_t err_size) {
    static const boids_debug none = {0};
    *out = desc ? *desc : none;
    char unknown[64];
    if (boids_debug_unknown(unknown, sizeof unknown)) {
        char names[400] = "";
        size_t len = 0;
        for (size_t k = 0; boids_debug_names(k) && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", boids_debug_names(k));
        engine_say(err, err_size, "BOIDS_DEBUG: '%s' is not a hook; expected items of %s", unknown, names);
        return BOIDS_ERR_ARGUMENT;
    }
    boids_result r = text_hook("emulate", text->emulate, sizeof text->emulate, boids_gpu_emulate_parse, &out->emulate,
                               err, err_size);
    if (r == BOIDS_OK)
        r = text_hook("fault", text->fault, sizeof text->fault, boids_gpu_fault_parse, &out->fault, err, err_size);
    if (r == BOIDS_OK)
        r = rounding_hook(&out->correct_rounding, err, err_size);
    if (r == BOIDS_OK)
        r = switch_hook("steer-general", &out->steer_general, err, err_size);
    if (r == BOIDS_OK)
        r = switch_hook("no-int64", &out->no_int64, err, err_size);
    return r;
}

// See engine_private.h.
boids_result engine_nan_hook(boids_engine *e, char *err, size_t err_size) {
    char v[64];
    boids_result r = BOIDS_OK;
    e->nan_step = 0;
    if (!item("nan", v, sizeof v, &r, err, err_size))
        return r;
    uint64_t id = 0, step = 0;
    char *at = strchr(v, '@');
    if (at)
        *at = '\0';
    if (!at || boids_parse_uint(v, 0, 0, UINT32_MAX, &id) || boids_parse_uint(at + 1, 0, 1, 1000000000, &step) ||
        id >= e->sim->n) {
        engine_say(err, err_size,
                   "BOIDS_DEBUG nan: '%s%s%s' is not a planted NaN; expected ID@STEP, an agent id below the count %u "
                   "and a step 1..1000000000",
                   v, at ? "@" : "", at ? at + 1 : "", e->sim->n);
        return BOIDS_ERR_ARGUMENT;
    }
    e->nan_id = (uint32_t)id;
    e->nan_step = step;
    return BOIDS_OK;
}

// See engine_private.h.
boids_result engine_nan_plant(boids_engine *e) {
    if (e->nan_step == 0 || engine_steps_of(e) != e->nan_step)
        return BOIDS_OK;
    boids_result r = engine_readback(e); // the GPU's state of now in the mirror (the CPU's is the state)
    if (r != BOIDS_OK)
        return r;
    boids_sim *s = e->sim;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->cur.id[i] == e->nan_id) {
            s->cur.pos[i][0] = NAN;
            s->cur.vel[i][0] = NAN;
        }
    if (!e->gpu)
        return BOIDS_OK;
    boids_gpu_upload(e->gpu, s); // the same step counter and joints, one agent changed
    return engine_healthy(e);
}

// See boids/engine.h.
boids_result boids_engine_fault_env(char *err, size_t err_size) {
    boids_debug hooks;
    engine_debug_text text;
    return engine_debug(NULL, &hooks, &text, err, err_size);
}
