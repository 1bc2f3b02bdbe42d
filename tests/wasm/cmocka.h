/* cmocka.h - the part of cmocka's API the core's unit tests use, for their wasm32 builds
 * (make web-tests; Debian has no cmocka for wasm32, and wasm32 has no longjmp): a failed
 * assertion prints its place and what it compared, and ends the program with status 1. */
#ifndef RP_WASM_CMOCKA_H
#define RP_WASM_CMOCKA_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CMUnitTest {
    const char *name;
    void (*test)(void **state);
};

#define cmocka_unit_test(f)                                                                        \
    {                                                                                              \
#f, f                                                                                      \
    }

static inline int rp_wasm_run(const struct CMUnitTest *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *state = NULL;
        printf("[ RUN      ] %s\n", t[i].name);
        fflush(stdout);
        t[i].test(&state);
        printf("[       OK ] %s\n", t[i].name);
    }
    printf("[==========] %zu test(s) run.\n[  PASSED  ] %zu test(s).\n", n, n);
    return 0;
}

#define cmocka_run_group_tests(tests, setup, teardown)                                             \
    ((void)(setup), (void)(teardown), rp_wasm_run(tests, sizeof(tests) / sizeof((tests)[0])))

#define rp_wasm_fail(...)                                                                          \
    do {                                                                                           \
        fflush(stdout);                                                                            \
        fprintf(stderr, "%s:%d: error: ", __FILE__, __LINE__);                                     \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n[  FAILED  ]\n");                                                       \
        exit(1);                                                                                   \
    } while (0)

#define fail_msg(...) rp_wasm_fail(__VA_ARGS__)
#define print_message(...) printf(__VA_ARGS__)
#define print_error(...) fprintf(stderr, __VA_ARGS__)

#define assert_true(c)                                                                             \
    do {                                                                                           \
        if (!(c))                                                                                  \
            rp_wasm_fail("%s is false", #c);                                                       \
    } while (0)
#define assert_false(c)                                                                            \
    do {                                                                                           \
        if (c)                                                                                     \
            rp_wasm_fail("%s is true", #c);                                                        \
    } while (0)
/* cmocka compares as its largest integral type, unsigned: so do these */
#define rp_wasm_int(a, b, op)                                                                      \
    do {                                                                                           \
        uintmax_t a_ = (uintmax_t)(a), b_ = (uintmax_t)(b);                                        \
        if (!(a_ op b_))                                                                           \
            rp_wasm_fail("%#" PRIxMAX " %s %#" PRIxMAX " is false (%s, %s)", a_, #op, b_, #a, #b); \
    } while (0)
#define assert_int_equal(a, b) rp_wasm_int(a, b, ==)
#define assert_int_not_equal(a, b) rp_wasm_int(a, b, !=)
#define assert_ptr_equal(a, b) assert_true((const void *)(a) == (const void *)(b))
#define assert_ptr_not_equal(a, b) assert_true((const void *)(a) != (const void *)(b))
#define assert_non_null(p) assert_true((p) != NULL)
#define assert_null(p) assert_true((p) == NULL)
#define assert_string_equal(a, b)                                                                  \
    do {                                                                                           \
        if (strcmp((a), (b)))                                                                      \
            rp_wasm_fail("\"%s\" != \"%s\"", (a), (b));                                            \
    } while (0)
#define assert_memory_equal(a, b, n)                                                               \
    do {                                                                                           \
        if (memcmp((a), (b), (n)))                                                                 \
            rp_wasm_fail("%s and %s differ in their %zu bytes", #a, #b, (size_t)(n));              \
    } while (0)
#define assert_memory_not_equal(a, b, n)                                                           \
    do {                                                                                           \
        if (!memcmp((a), (b), (n)))                                                                \
            rp_wasm_fail("%s and %s are equal in their %zu bytes", #a, #b, (size_t)(n));           \
    } while (0)

#endif
