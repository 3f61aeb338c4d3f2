// tests/test_denormals.c: subnormal floats never decide the state. GLSL lets
// a driver flush subnormal inputs and results to zero (many GPUs do), the C
// reference keeps them (x86-64 SSE by default); so a run is portable only if
// no subnormal arises, or none that changes what is kept. Each run here
// steps the C reference twice from the same seed: as built, with the
// underflow flag watched (IEEE 754: a tiny, inexact result), and with the
// processor flushing every subnormal input and result to zero (SSE's DAZ
// and FTZ bits, as a flushing GPU does). The two state-hashes must be
// equal and the flag must stay clear: every behaviour, rule set, model and
// body, 2D and 3D. One thread (the flags are per thread). Label core.
#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_FLUSH 1
#endif

#include "boids/engine.h"

typedef struct run_case {
    const char *name, *scenario;
    uint32_t count, dim; // without a scenario
    boids_engine_option opt[4];
    uint32_t n_opt, steps;
} run_case;

static const run_case cases[] = {
    {"2D flock", NULL, 3000, 2, {{NULL, NULL}}, 0, 60},
    {"2D all behaviours, snake bodies", NULL, 2000, 2, {{"behaviors", "all"}, {"bodies", "snake"}}, 2, 40},
    {"3D all behaviours, fish bodies", NULL, 2000, 3, {{"behaviors", "all"}, {"bodies", "fish"}}, 2, 40},
    {"3D walls, chain bodies", NULL, 2000, 3, {{"boundary", "walls"}, {"bodies", "chain"}}, 2, 40},
    {"predators-prey", "predators-prey", 0, 0, {{NULL, NULL}}, 0, 60},
    {"vicsek", "vicsek", 0, 0, {{NULL, NULL}}, 0, 60},
    {"couzin-mill", "couzin-mill", 0, 0, {{NULL, NULL}}, 0, 60},
    {"angle-bug", "angle-bug", 0, 0, {{NULL, NULL}}, 0, 60},
    {"flocking-tutorial", "flocking-tutorial", 0, 0, {{NULL, NULL}}, 0, 60},
    {"wander", "wander", 0, 0, {{NULL, NULL}}, 0, 60},
    {"formations", "formations", 0, 0, {{NULL, NULL}}, 0, 60},
    {"circles", "circles", 0, 0, {{NULL, NULL}}, 0, 5},
};

static uint64_t run(const run_case *c, bool flush, bool *underflow) {
    boids_engine_desc d = {.threads = 1, .count = c->count, .dim = c->dim};
    boids_engine *e = NULL;
    char err[1024];
#ifdef HAVE_FLUSH
    unsigned csr = _mm_getcsr();
    if (flush)
        _mm_setcsr(csr | 0x8040u); // FTZ (bit 15) and DAZ (bit 6)
#endif
    feclearexcept(FE_ALL_EXCEPT);
    boids_result r = boids_engine_create_options(&e, c->scenario, &d, c->opt, c->n_opt, err, sizeof err);
    ck_assert_msg(r == BOIDS_OK, "%s: %s", c->name, err);
    // The initial state (libm's sin and cos of the seed's headings) is
    // made once, on the CPU, for both backends: only the steps count.
    feclearexcept(FE_ALL_EXCEPT);
    boids_engine_step(e, c->steps, NULL);
    *underflow = fetestexcept(FE_UNDERFLOW) != 0;
    uint64_t h = boids_engine_hash(e);
    boids_engine_destroy(e);
#ifdef HAVE_FLUSH
    _mm_setcsr(csr);
#endif
    return h;
}

START_TEST(no_subnormal_decides) {
#ifndef HAVE_FLUSH
    ck_abort_msg("this check needs SSE's flush-to-zero controls (x86)");
#else
    const run_case *c = &cases[_i];
    bool under_plain = false, under_flush = false;
    uint64_t plain = run(c, false, &under_plain), flushed = run(c, true, &under_flush);
    ck_assert_msg(!under_plain, "%s: a step's arithmetic underflowed (a tiny inexact result, IEEE 754)", c->name);
    ck_assert_msg(plain == flushed,
                  "%s: state-hash %016llx as built, %016llx with subnormals flushed to zero: a subnormal "
                  "changed the state, and a GPU that flushes would differ",
                  c->name, (unsigned long long)plain, (unsigned long long)flushed);
#endif
}
END_TEST

// The controls this suite relies on do what it says: a tiny product raises
// the underflow flag as built, and is flushed to zero under FTZ and DAZ (so
// a pass above is no dead check).
START_TEST(controls_bite) {
#ifndef HAVE_FLUSH
    ck_abort_msg("this check needs SSE's flush-to-zero controls (x86)");
#else
    volatile float a = 1e-20f, b = 3e-20f;
    feclearexcept(FE_ALL_EXCEPT);
    volatile float tiny = a * b; // 3e-40: subnormal, inexact
    ck_assert_msg(tiny > 0.0f && fetestexcept(FE_UNDERFLOW), "a subnormal product did not raise the underflow flag");
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);
    volatile float flushed = a * b, read = tiny * 2.0f;
    _mm_setcsr(csr);
    ck_assert_msg(flushed == 0.0f && read == 0.0f, "FTZ/DAZ did not flush: %g, %g", (double)flushed, (double)read);
#endif
}
END_TEST

int main(void) {
    Suite *s = suite_create("denormals");
    TCase *t = tcase_create("cpu");
    tcase_add_test(t, controls_bite);
    tcase_add_loop_test(t, no_subnormal_decides, 0, (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
