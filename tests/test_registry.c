// tests/test_registry.c: the parameter registry (boids/registry.h) against
// everything said to come from it. Each parameter's flag is listed by
// boids-run's --list-flags and --help (with its metavar) and by the
// viewer's and boids-bench's; the engine's options (the Python keywords)
// are those flags and the four set-up names; each scenario key loads a
// sample value, which --dump-scenario's writer gives back so that the file
// loads to the same parameters; a flag sets the same field as the scenario
// key; boids_group_value finds every group number; every parameter's name,
// flag and key are its own (no two alike).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "boids/engine.h"
#include "boids/registry.h"
#include "boids/scenario.h"
#include "spawn.h"

// The flag spelling of a name: '_' -> '-'.
static void flag_of(const char *name, char *out, size_t size) {
    snprintf(out, size, "%s", name);
    for (char *c = out; *c; c++)
        if (*c == '_')
            *c = '-';
}

START_TEST(names_are_unique_and_found) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *a = &boids_param_table[i];
        char flag[64];
        flag_of(a->name, flag, sizeof flag);
        ck_assert_msg(strcmp(flag, a->flag) == 0, "%s: the flag '%s' is not the name's spelling '%s'", a->name, a->flag,
                      flag);
        ck_assert_msg(boids_param_find(a->name) == i && boids_param_find(a->flag) == i, "%s: not found by name",
                      a->name);
        ck_assert_msg(a->help && a->help[0] && a->expected && a->expected[0] && a->metavar, "%s: no help", a->name);
        for (int j = i + 1; j < BOIDS_PARAM_COUNT; j++) {
            const boids_param_info *b = &boids_param_table[j];
            ck_assert_msg(strcmp(a->name, b->name) != 0, "two parameters named %s", a->name);
            ck_assert_msg(!a->key || !b->key || strcmp(a->key, b->key) != 0 || a->where != b->where,
                          "%s and %s share the scenario key %s", a->name, b->name, a->key);
        }
    }
}
END_TEST

// Runs BIN_DIR/prog with one argument; its stdout (the test frees it).
static char *output_of(const char *prog, const char *arg) {
    char bin[512];
    snprintf(bin, sizeof bin, "%s/%s", BOIDS_BIN_DIR, prog);
    run_result r = boids_test_run(bin, ARGV(prog, arg), TMP, "registry");
    ck_assert_msg(r.spawned && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s %s failed: %s", prog, arg,
                  r.err ? r.err : "");
    char *out = strdup(r.out);
    boids_test_run_free(&r);
    return out;
}

// Is `word` in text as a whole word (not part of a longer flag)?
static bool has_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        char after = p[n];
        if (after == '\0' || after == ' ' || after == '\n' || after == '=')
            return true;
    }
    return false;
}

START_TEST(every_flag_in_each_programs_help) {
    static const char *const programs[] = {"boids-run", "boids-bench", "boids-validate", "boids"};
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; k++) {
        char *list = output_of(programs[k], "--list-flags"), *help = output_of(programs[k], "--help");
        for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
            const boids_param_info *in = &boids_param_table[i];
            char flag[80], entry[160];
            snprintf(flag, sizeof flag, "--%s", in->flag);
            snprintf(entry, sizeof entry, "--%s %s", in->flag, in->metavar);
            ck_assert_msg(has_word(list, flag), "%s --list-flags lacks %s", programs[k], flag);
            ck_assert_msg(strstr(help, entry), "%s --help lacks '%s'", programs[k], entry);
        }
        free(list);
        free(help);
    }
}
END_TEST

START_TEST(engine_options_are_the_flags) {
    uint32_t n = boids_engine_option_count(), params = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *kind = NULL, *name = boids_engine_option_name(i, &kind);
        ck_assert_msg(name && kind, "option %u has no name or kind", i);
        int id = boids_param_find(name);
        if (id >= 0) {
            ck_assert_str_eq(name, boids_param_table[id].flag);
            params++;
        } else {
            ck_assert_msg(strcmp(name, "distribution") == 0 || strcmp(name, "index") == 0 ||
                              strcmp(name, "update") == 0 || strcmp(name, "kernel") == 0,
                          "option %s is neither a parameter nor a set-up choice", name);
        }
    }
    ck_assert_msg(boids_engine_option_name(n, NULL) == NULL, "a name past the count");
    ck_assert_uint_eq(params, BOIDS_PARAM_COUNT);
}
END_TEST

// A value of parameter in that its scenario key and flag take, not its
// default (so the writer cannot leave it out).
static void sample(const boids_param_info *in, char *out, size_t size) {
    switch (in->kind) {
    case BOIDS_PK_FLOAT:
        snprintf(out, size, "%g", in->hi < 1.0 ? in->hi / 2.0 : 0.75);
        break;
    case BOIDS_PK_DEGREES:
        snprintf(out, size, "90");
        break;
    case BOIDS_PK_UINT:
        snprintf(out, size, "%.0f", in->lo + 1.0);
        break;
    case BOIDS_PK_CHOICE:
        snprintf(out, size, "%s", in->choices[1] ? in->choices[1] : in->choices[0]);
        break;
    case BOIDS_PK_RANGE:
        snprintf(out, size, "1.5, 2.5");
        break;
    case BOIDS_PK_AGENT:
        snprintf(out, size, "3");
        break;
    case BOIDS_PK_AGENTS:
        snprintf(out, size, "3, 4");
        break;
    case BOIDS_PK_VECTOR:
    case BOIDS_PK_POINT:
        snprintf(out, size, "1, 2");
        break;
    case BOIDS_PK_EXTENTS:
        snprintf(out, size, "400x300");
        break;
    case BOIDS_PK_BEHAVIORS:
        snprintf(out, size, "seek, wander");
        break;
    case BOIDS_PK_WEIGHTS:
        snprintf(out, size, "seek=2");
        break;
    }
}

// A scenario with one key of parameter in set to its sample (sigma needs
// rules couzin, eta rules vicsek (alignment alone), a body's joints and length a body).
static void scenario_text(const boids_param_info *in, char *text, size_t size) {
    char value[64];
    sample(in, value, sizeof value);
    bool group = in->where == BOIDS_PW_GROUP || in->where == BOIDS_PW_BODY;
    const char *needs = in == &boids_param_table[BOIDS_PARAM_SIGMA] ? "rules = couzin\n"
                        : in == &boids_param_table[BOIDS_PARAM_ETA] ? "rules = vicsek\nbehaviors = alignment\n"
                        : in->where == BOIDS_PW_BODY && in != &boids_param_table[BOIDS_PARAM_BODIES] ? "body = chain\n"
                                                                                                     : "";
    snprintf(text, size, "[world]\ncount = 50\nsize = 800x800\n%s%s%s = %s\n", group ? "[group.a]\n" : "", needs,
             in->key, value);
}

START_TEST(scenario_keys_round_trip) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (!in->key || in->where == BOIDS_PW_SHAPE)
            continue;
        char text[512], err[1024];
        scenario_text(in, text, sizeof text);
        boids_scenario *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        boids_result r = boids_scenario_load_string(text, "sample.ini", a, err, sizeof err);
        ck_assert_msg(r == BOIDS_OK, "%s: the key %s did not load:\n%s\n%s", in->name, in->key, text, err);
        char *dump = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&dump, &len);
        ck_assert_msg(f && boids_scenario_write(a, f), "%s: could not write", in->name);
        fclose(f);
        char line[128];
        snprintf(line, sizeof line, "\n%s = ", in->key);
        ck_assert_msg(strstr(dump, line), "%s: the dump lacks '%s':\n%s", in->name, in->key, dump);
        r = boids_scenario_load_string(dump, "dump.ini", b, err, sizeof err);
        ck_assert_msg(r == BOIDS_OK, "%s: the dump did not load back: %s", in->name, err);
        ck_assert_msg(memcmp(&a->params, &b->params, sizeof a->params) == 0, "%s: the dump loads other parameters",
                      in->name);
        free(dump);
        free(a);
        free(b);
    }
}
END_TEST

START_TEST(flag_and_key_set_the_same_field) {
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (!in->key || in->where == BOIDS_PW_SHAPE || in->where == BOIDS_PW_BODY || in->kind == BOIDS_PK_WEIGHTS)
            continue;
        char text[512], err[1024], value[64], problem[400], expected[400];
        scenario_text(in, text, sizeof text);
        boids_scenario *a = malloc(sizeof *a);
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(boids_scenario_load_string(text, "sample.ini", a, err, sizeof err), BOIDS_OK);
        // The same value as a flag over the same file without the key.
        boids_param_values *v = calloc(1, sizeof *v);
        ck_assert_ptr_nonnull(v);
        sample(in, value, sizeof value);
        for (char *c = value; *c; c++) // the flags' lists have no blanks
            if (*c == ' ')
                memmove(c, c + 1, strlen(c));
        ck_assert_msg(
            !boids_param_parse(v, (boids_param_id)i, value, problem, sizeof problem, expected, sizeof expected),
            "--%s %s: %s", in->flag, value, problem);
        boids_params p = a->params;
        ck_assert_int_eq(boids_param_apply(v, &p, 0, false, err, sizeof err), BOIDS_OK);
        ck_assert_msg(memcmp(&p, &a->params, sizeof p) == 0, "--%s %s and the key %s set different parameters",
                      in->flag, value, in->key);
        free(v);
        free(a);
    }
}
END_TEST

START_TEST(group_value_finds_every_group_number) {
    boids_params p;
    boids_params_default(&p, 10, 2);
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        float *x = boids_group_value(&p.group[0], in->name);
        bool number = in->where == BOIDS_PW_GROUP && in->kind == BOIDS_PK_FLOAT;
        ck_assert_msg(number == (x != NULL), "boids_group_value(%s): %p", in->name, (void *)x);
        if (x)
            ck_assert_ptr_eq(x, (float *)((char *)&p.group[0] + in->field));
    }
    ck_assert_ptr_nonnull(boids_group_value(&p.group[0], "weight.cohesion"));
    ck_assert_ptr_null(boids_group_value(&p.group[0], "weight.nothing"));
}
END_TEST

START_TEST(defaults_are_the_registrys) {
    boids_params p;
    boids_params_default(&p, 10, 2);
    for (int i = 0; i < BOIDS_PARAM_COUNT; i++) {
        const boids_param_info *in = &boids_param_table[i];
        if (in->kind != BOIDS_PK_FLOAT || in->where == BOIDS_PW_BODY)
            continue;
        const char *base = in->where == BOIDS_PW_GROUP ? (const char *)&p.group[0] : (const char *)&p.world;
        float x;
        memcpy(&x, base + in->field, sizeof x);
        ck_assert_msg(x == (float)in->def, "%s: the default parameters hold %g, the registry says %g", in->name,
                      (double)x, in->def);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("registry");
    TCase *t = tcase_create("registry");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, names_are_unique_and_found);
    tcase_add_test(t, every_flag_in_each_programs_help);
    tcase_add_test(t, engine_options_are_the_flags);
    tcase_add_test(t, scenario_keys_round_trip);
    tcase_add_test(t, flag_and_key_set_the_same_field);
    tcase_add_test(t, group_value_finds_every_group_number);
    tcase_add_test(t, defaults_are_the_registrys);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
