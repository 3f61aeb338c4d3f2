// tests/test_parse.c: the value parser (boids/parse.h) at its edges: a
// trimmed float longer than any copy buffer is parsed whole, so garbage
// after 127 characters is still "not a number"; an exact name is nearest.
#include <check.h>

#include <float.h>
#include <string.h>

#include "check_run.h"
#include "boids/parse.h"

// "1.5" + 200 zeros + "abc" with TRIM: not a number (the whole value is
// looked at); "1.5" + 200 zeros is 1.5 (a long but valid number).
START_TEST(long_float) {
    char s[256] = "1.5";
    memset(s + 3, '0', 200);
    s[203] = '\0';
    float v = 0.0f;
    const char *problem = boids_parse_float(s, BOIDS_PARSE_TRIM, &v);
    ck_assert_msg(problem == NULL && v == 1.5f, "1.5 and 200 zeros: expected 1.5, got %s", problem ? problem : "ok");
    strcat(s, "abc");
    ck_assert_msg((problem = boids_parse_float(s, BOIDS_PARSE_TRIM, &v)) && strcmp(problem, "not a number") == 0,
                  "1.5, 200 zeros and abc: expected 'not a number', got %s", problem ? problem : "ok");
    ck_assert_str_eq(boids_parse_float(" ", BOIDS_PARSE_TRIM, &v), "empty");
    ck_assert_str_eq(boids_parse_float("", 0, &v), "not a number");
    ck_assert_msg(boids_parse_float(" 2.5 ", BOIDS_PARSE_TRIM, &v) == NULL && v == 2.5f, "' 2.5 ' trimmed: 2.5");
    ck_assert_str_eq(boids_parse_float(" 2.5", 0, &v), "not a number");
    ck_assert_str_eq(boids_parse_float("0x10", 0, &v), "not a decimal number");
}
END_TEST

// With prefixes, "sep" is exactly the first name: distance 0 beats the
// prefix rule's 1 of a later "separation"; a true prefix still finds it.
START_TEST(nearest_exact) {
    const char *const names[] = {"separation", "sep", NULL};
    ck_assert_str_eq(boids_parse_nearest("sep", names, 1, true), "sep");
    ck_assert_str_eq(boids_parse_nearest("separ", names, 1, true), "separation");
}
END_TEST

// The largest floats: FLT_MAX printed with 8 digits (3.4028235e38, a little
// above it) rounds to FLT_MAX and is accepted; from FLT_MAX + half its ULP
// (2^103; 3.4028236e38 is past it) the float would be infinite: too large.
START_TEST(largest_float) {
    float v = 0.0f;
    ck_assert_msg(boids_parse_float("3.4028235e38", 0, &v) == NULL && v == FLT_MAX,
                  "3.4028235e38: expected FLT_MAX (%.9g), got %.9g", (double)FLT_MAX, (double)v);
    ck_assert_msg(boids_parse_float("-3.4028235e38", 0, &v) == NULL && v == -FLT_MAX, "-3.4028235e38: -FLT_MAX");
    ck_assert_str_eq(boids_parse_float("3.4028236e38", 0, &v), "too large");
    ck_assert_str_eq(boids_parse_float("1e39", 0, &v), "too large");
}
END_TEST

int main(void) {
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, long_float);
    tcase_add_test(tc, nearest_exact);
    tcase_add_test(tc, largest_float);
    suite_add_tcase(s, tc);
    return boids_test_run_suite(s);
}
