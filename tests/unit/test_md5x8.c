/* test_md5x8.c - unit tests for md5x8.c. Every lane's digest is compared with libavutil's
 * av_md5_sum (an independent MD5) over random messages of lengths on both sides of the
 * padding's edges (55/56/57 bytes, whole blocks, a 1920x1080 RGB24 frame), each lane its
 * own buffer at its own misalignment, or the same pointer in several lanes; and with RFC
 * 1321's test suite (appendix A.5) against the published digests. The AVX2 kernel is
 * checked when this build and CPU have it (else a message says so and those checks pass);
 * the fallback below RP_SIMD_AVX2 (libavutil's MD5 lane by lane) is checked for its lane
 * order on every machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/md5.h>

#include "check/md5x8.h"
#include "base/cpu.h"

static const size_t lengths[] = {0,   1,   55,  56,  57,  63,   64,        65,
                                 119, 120, 127, 128, 129, 1000, 4096 + 17, 6220800};

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void hex(const uint8_t d[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* rp_md5x8 on msg, every lane against av_md5_sum of the same bytes. */
static void check_lanes(const uint8_t *const msg[8], size_t len, const char *what)
{
    uint8_t got[8][16], want[16];
    char g[33], w[33];

    memset(got, 0xa5, sizeof(got));
    rp_md5x8(msg, len, got);
    for (int i = 0; i < 8; i++) {
        av_md5_sum(want, msg[i], len);
        if (memcmp(got[i], want, 16) != 0) {
            hex(got[i], g);
            hex(want, w);
            fail_msg("%s, level %d, len %zu, lane %d: %s, av_md5_sum %s", what, rp_simd_level(),
                     len, i, g, w);
        }
    }
}

/* Every length at the level in effect: eight random buffers, each allocated to its exact
 * end (so a sanitizer build sees any read past it) and starting i bytes into its
 * allocation; then lanes sharing pointers, as a short batch passes them. */
static void check_lengths(uint32_t seed)
{
    for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
        size_t len = lengths[k];
        uint8_t *alloc[8];
        const uint8_t *msg[8];

        for (int i = 0; i < 8; i++) {
            alloc[i] = malloc(len + (size_t)i + 1);
            assert_non_null(alloc[i]);
            for (size_t j = 0; j < len; j++)
                alloc[i][i + j] = (uint8_t)(next(&seed) >> 24);
            msg[i] = alloc[i] + i;
        }
        check_lanes(msg, len, "eight buffers");
        {
            const uint8_t *shared[8] = {msg[0], msg[0], msg[3], msg[3],
                                        msg[0], msg[5], msg[5], msg[5]};
            check_lanes(shared, len, "repeated pointers");
        }
        {
            const uint8_t *one[8] = {msg[7], msg[7], msg[7], msg[7],
                                     msg[7], msg[7], msg[7], msg[7]};
            check_lanes(one, len, "one pointer in every lane");
        }
        for (int i = 0; i < 8; i++)
            free(alloc[i]);
    }
}

static void test_against_av_md5(void **state)
{
    (void)state;
    if (!rp_md5x8_available()) {
        print_message("rp_md5x8_available() is 0 (no AVX2 in this build or CPU): only the "
                      "fallback (libavutil's MD5) is checked\n");
    } else {
        check_lengths(1);
        print_message("AVX2 kernel: %zu lengths, every lane matches av_md5_sum\n",
                      sizeof(lengths) / sizeof(lengths[0]));
    }
    assert_int_equal(rp_simd_set(RP_SIMD_C), RP_SIMD_C);
    assert_int_equal(rp_md5x8_available(), 0);
    check_lengths(2);
    rp_simd_set(-1);
}

/* RFC 1321 appendix A.5, each string in one lane (a different lane each time), random
 * bytes of the same length in the others. */
static void test_rfc1321(void **state)
{
    static const struct {
        const char *msg, *md5;
    } suite[] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890123456789"
         "0",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    uint32_t seed = 3;
    int levels[2] = {RP_SIMD_AVX2, RP_SIMD_C};

    (void)state;
    for (int l = 0; l < 2; l++) {
        if (rp_simd_set(levels[l]) != levels[l] || rp_md5x8_available() != (l == 0)) {
            print_message("level %d not available here: skipped\n", levels[l]);
            continue;
        }
        for (size_t k = 0; k < sizeof(suite) / sizeof(suite[0]); k++) {
            size_t len = strlen(suite[k].msg);
            int lane = (int)(k % 8);
            uint8_t other[8][80], got[8][16];
            const uint8_t *msg[8];
            char g[33];

            for (int i = 0; i < 8; i++) {
                for (size_t j = 0; j < len; j++)
                    other[i][j] = (uint8_t)next(&seed);
                msg[i] = i == lane ? (const uint8_t *)suite[k].msg : other[i];
            }
            rp_md5x8(msg, len, got);
            hex(got[lane], g);
            if (strcmp(g, suite[k].md5) != 0)
                fail_msg("level %d, MD5(\"%s\") in lane %d: %s, RFC 1321 says %s", levels[l],
                         suite[k].msg, lane, g, suite[k].md5);
            check_lanes(msg, len, "RFC 1321 suite");
        }
    }
    rp_simd_set(-1);
}

/* The level cap reaches rp_md5x8_available(). */
static void test_available(void **state)
{
    (void)state;
    rp_simd_set(-1);
#ifdef RP_HAVE_X86_KERNELS
    assert_int_equal(rp_md5x8_available(), rp_simd_supported() >= RP_SIMD_AVX2);
#else
    assert_int_equal(rp_md5x8_available(), 0);
#endif
    rp_simd_set(RP_SIMD_SSE2);
    assert_int_equal(rp_md5x8_available(), 0);
    rp_simd_set(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_available),
        cmocka_unit_test(test_rfc1321),
        cmocka_unit_test(test_against_av_md5),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
