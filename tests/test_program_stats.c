// tests/test_program_stats.c: boids_gpu_asm_parse (boids/program_stats.h),
// the figures of NVIDIA's assembly text in a program binary, without
// NVIDIA: synthetic "!!NVcp5.0" texts written here (one a line per
// statement as the driver prints them, one packed on a line), each count
// asserted; binaries with no such text give no figures (boids-bench's n/a).
#include <check.h>

#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "boids/program_stats.h"

// A binary: bytes of a header before the text, the text, a NUL, and bytes
// after it that would count if the parser read past the NUL.
static const char binary[] = "\x01\x02\x03header TEMP X0, X1; lmem0 "
                             "!!NVcp5.0\n"
                             "OPTION NV_internal;\n"
                             "OPTION NV_shader_storage_buffer;\n"
                             "GROUP_SIZE 256;\n"
                             "# a comment: TEMP C0, C1; lmem0[R0.x]\n"
                             "STORAGE sbo_buf0[] = { program.storage[0] };\n"
                             "TEMP R0, R1, R2, R3;\n"
                             "TEMP R1, R4;\n"
                             "LONG TEMP D0, D1;\n"
                             "INT TEMP I0;\n"
                             "TEMP RC, HC;\n"
                             "TEMP lmem0[180], lmem1[4];\n"
                             "MOV.U R0.x, invocation.globalid.x;\n"
                             "MOV.F lmem0[R0.x], R1;\n"
                             "ADD.F R2, lmem0[R0.x], lmem1[0]; # lmem0 again, in a comment\n"
                             "STORE.F32 R2, sbo_buf0[R0.x];\n"
                             "END\n"
                             "# 6 instructions, 5 R-regs\n"
                             "\0"
                             "TEMP Z0, Z1; lmem0 lmem1\n";

// The text above: 18 lines from "!!NVcp5.0" to the NUL; temporaries R0..R4,
// D0, D1, I0, RC, HC (R1 twice: one name; the comment's and the header's
// not); two arrays, used three times outside their declaration and comments.
START_TEST(driver_text) {
    boids_asm_stats a;
    ck_assert_int_eq(boids_gpu_asm_parse(binary, sizeof binary - 1, &a), BOIDS_OK);
    ck_assert_msg(a.found, "expected the !!NVcp text to be found");
    ck_assert_str_eq(a.profile, "!!NVcp5.0");
    ck_assert_uint_eq(a.lines, 18);
    ck_assert_uint_eq(a.temps, 10);
    ck_assert_uint_eq(a.arrays, 2);
    ck_assert_str_eq(a.array[0].name, "lmem0");
    ck_assert_uint_eq(a.array[0].size, 180);
    ck_assert_str_eq(a.array[1].name, "lmem1");
    ck_assert_uint_eq(a.array[1].size, 4);
    ck_assert_uint_eq(a.array_uses, 3);
}
END_TEST

// Statements packed on one line (no newline, no NUL: the text runs to the
// binary's end), the array inside the list of temporaries.
START_TEST(packed_text) {
    const char t[] = "!!NVcp5.0\nOPTION NV_internal;GROUP_SIZE 32 1 1;TEMP R0,R1,lmem[12],RC;LONG TEMP D0,DC;"
                     "MOV.F lmem[R0.x].x,R1.x;MOV.F R1.y,lmem[R0.y].x;END";
    boids_asm_stats a;
    ck_assert_int_eq(boids_gpu_asm_parse(t, sizeof t - 1, &a), BOIDS_OK);
    ck_assert_msg(a.found, "expected the !!NVcp text to be found");
    ck_assert_uint_eq(a.lines, 2);
    ck_assert_uint_eq(a.temps, 5); // R0, R1, RC, D0, DC
    ck_assert_uint_eq(a.arrays, 1);
    ck_assert_str_eq(a.array[0].name, "lmem");
    ck_assert_uint_eq(a.array[0].size, 12);
    ck_assert_uint_eq(a.array_uses, 2);
}
END_TEST

// No local memory: "none" in the table, not n/a (found, arrays 0).
START_TEST(no_local_memory) {
    const char t[] = "!!NVcp5.0\nTEMP R0;\nMOV.F R0, 1;\nEND\n";
    boids_asm_stats a;
    ck_assert_int_eq(boids_gpu_asm_parse(t, sizeof t, &a), BOIDS_OK); // the NUL included
    ck_assert_msg(a.found, "expected the !!NVcp text to be found");
    ck_assert_uint_eq(a.lines, 4);
    ck_assert_uint_eq(a.temps, 1);
    ck_assert_uint_eq(a.arrays, 0);
    ck_assert_uint_eq(a.array_uses, 0);
}
END_TEST

// A binary without the text (Mesa's, another stage's, a cut magic, none):
// found false and every figure 0, whatever TEMP-like bytes it holds.
START_TEST(no_text) {
    const char mesa[] = "\x4d\x45\x53\x41\0\0\0\x01TEMP R0, R1;\nlmem0[4];\n!!NVc";
    const char vertex[] = "!!NVvp5.0\nTEMP R0;\nEND\n";
    const struct {
        const void *p;
        size_t n;
    } cases[] = {{mesa, sizeof mesa - 1}, {vertex, sizeof vertex - 1}, {binary, 20}, {NULL, 0}, {"", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        boids_asm_stats a;
        memset(&a, 0xff, sizeof a);
        ck_assert_int_eq(boids_gpu_asm_parse(cases[i].p, cases[i].n, &a), BOIDS_OK);
        ck_assert_msg(!a.found, "case %zu: expected no assembly text", i);
        ck_assert_msg(a.lines == 0 && a.temps == 0 && a.arrays == 0 && a.array_uses == 0 && a.profile[0] == '\0',
                      "case %zu: expected every figure 0, got %u lines, %u temps, %u arrays, %u uses", i, a.lines,
                      a.temps, a.arrays, a.array_uses);
    }
}
END_TEST

// More arrays than are listed: all counted, the first BOIDS_ASM_LMEM_MAX
// named; a name longer than the field is cut, a size beyond 32 bits held.
START_TEST(many_arrays) {
    char t[1024] = "!!NVcp5.0\nTEMP an_array_name_longer_than_thirty_one_characters[99999999999]";
    for (int i = 1; i < BOIDS_ASM_LMEM_MAX + 3; i++)
        snprintf(t + strlen(t), sizeof t - strlen(t), ", a%d[%d]", i, i);
    strcat(t, ", R0;\nEND\n");
    boids_asm_stats a;
    ck_assert_int_eq(boids_gpu_asm_parse(t, strlen(t), &a), BOIDS_OK);
    ck_assert_uint_eq(a.arrays, BOIDS_ASM_LMEM_MAX + 3);
    ck_assert_uint_eq(a.temps, 1);
    ck_assert_str_eq(a.array[0].name, "an_array_name_longer_than_thirt"); // 31 characters
    ck_assert_uint_eq(a.array[0].size, UINT32_MAX);
    ck_assert_str_eq(a.array[BOIDS_ASM_LMEM_MAX - 1].name, "a7");
    ck_assert_uint_eq(a.array[BOIDS_ASM_LMEM_MAX - 1].size, 7);
    ck_assert_uint_eq(a.lines, 3);
}
END_TEST

int main(void) {
    Suite *s = suite_create("program_stats");
    boids_test_tcase(s, "driver_text", driver_text);
    boids_test_tcase(s, "packed_text", packed_text);
    boids_test_tcase(s, "no_local_memory", no_local_memory);
    boids_test_tcase(s, "no_text", no_text);
    boids_test_tcase(s, "many_arrays", many_arrays);
    return boids_test_run_suite(s);
}
