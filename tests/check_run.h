// tests/check_run.h: a Check suite run as a test program (CK_NORMAL output,
// every case in its own process unless CK_FORK=no).
#ifndef BOIDS_TEST_CHECK_RUN_H
#define BOIDS_TEST_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

// A test case of one test added to s (its own process and timeout); returned
// for more tests or a timeout.
static inline TCase *boids_test_tcase(Suite *s, const char *name, const TTest *test) {
    TCase *tc = tcase_create(name);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
    return tc;
}

// Runs the suite (and frees it); EXIT_SUCCESS when every case passed.
static inline int boids_test_run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
