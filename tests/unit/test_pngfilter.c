/* test_pngfilter.c - the Paeth filter (pngfilter.c) against the PNG specification's own
 * pseudo-code, transcribed below, at every SIMD level, for row lengths on both sides of the
 * SSE2, AVX2 and AVX-512 loops' 16, 32 and 64 bytes (0 to 200) and every pixel size; and inverted
 * by the specification's reconstruction, which must give back the row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "output/pngfilter.h"
#include "base/cpu.h"

/* PNG specification, 9.4 "Filter type 4: Paeth". */
static int spec_paeth(int a, int b, int c)
{
    int p = a + b - c;
    int pa = abs(p - a);
    int pb = abs(p - b);
    int pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return a;
    else if (pb <= pc)
        return b;
    else
        return c;
}

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Bytes with long runs, extremes and noise, so every branch of the predictor is taken. */
static void fill(uint8_t *p, size_t n, uint32_t *s)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next(s);
        p[i] = (uint8_t)(r % 4 == 0   ? 0
                         : r % 4 == 1 ? 255
                         : r % 4 == 2 ? (i ? p[i - 1] : 7)
                                      : r >> 8);
    }
}

static void test_against_specification(void **state)
{
    uint32_t seed = 3;
    (void)state;
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        rp_simd_set(level);
        for (int bpp = 1; bpp <= 8; bpp++)
            for (size_t n = 0; n <= 200; n++) {
                uint8_t *cur = malloc(n + 1), *prev = malloc(n + 1), *out = malloc(n + 1);
                assert_true(cur && prev && out);
                fill(cur, n, &seed);
                fill(prev, n, &seed);
                rp_png_paeth_row(out, cur, prev, n, bpp);
                for (size_t i = 0; i < n; i++) {
                    int a = i >= (size_t)bpp ? cur[i - bpp] : 0;
                    int c = i >= (size_t)bpp ? prev[i - bpp] : 0;
                    uint8_t want = (uint8_t)(cur[i] - spec_paeth(a, prev[i], c));
                    if (out[i] != want)
                        fail_msg("level %d bpp %d n %zu byte %zu: %d, want %d", level, bpp, n, i,
                                 out[i], want);
                }
                free(cur);
                free(prev);
                free(out);
            }
    }
    rp_simd_set(-1);
}

/* A whole image filtered row by row (the first against zeros) and reconstructed as a
 * decoder does (Recon(x) = Filt(x) + PaethPredictor(Recon(a), Recon(b), Recon(c))). */
static void test_reconstructs(void **state)
{
    enum { W = 97 * 3, H = 9 };
    static uint8_t img[H][W], filt[H][W], recon[H][W], zeros[W];
    uint32_t seed = 8;
    (void)state;
    for (int y = 0; y < H; y++)
        fill(img[y], W, &seed);
    for (int y = 0; y < H; y++)
        rp_png_paeth_row(filt[y], img[y], y ? img[y - 1] : zeros, W, 3);
    for (int y = 0; y < H; y++)
        for (int i = 0; i < W; i++) {
            int a = i >= 3 ? recon[y][i - 3] : 0, b = y ? recon[y - 1][i] : 0;
            int c = y && i >= 3 ? recon[y - 1][i - 3] : 0;
            recon[y][i] = (uint8_t)(filt[y][i] + spec_paeth(a, b, c));
        }
    assert_memory_equal(recon, img, sizeof img);
}

/* Every (a, b, c) of bytes, 2^24 of them, at every SIMD level: rows of 128 bytes with a
 * pixel of 64 bytes, whose second pixel's bytes have a = cur[k], b = prev[64 + k] and
 * c = prev[k] each their own, so one row holds 64 triples (the byte-lane kernels' pc
 * passes 255 where a - c and b - c share a sign, as at a = b = 255, c = 0). */
static void test_every_triple(void **state)
{
    enum { P = 64 };
    uint8_t cur[2 * P], prev[2 * P], out[2 * P];
    (void)state;
    for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
        rp_simd_set(level);
        for (int c = 0; c < 256; c++)
            for (int b = 0; b < 256; b++)
                for (int a0 = 0; a0 < 256; a0 += P) {
                    for (int k = 0; k < P; k++) {
                        cur[k] = (uint8_t)(a0 + k);
                        cur[P + k] = (uint8_t)(a0 + 7 * k + 3 * b + c);
                        prev[k] = (uint8_t)c;
                        prev[P + k] = (uint8_t)b;
                    }
                    rp_png_paeth_row(out, cur, prev, 2 * P, P);
                    for (int k = 0; k < P; k++) {
                        uint8_t want = (uint8_t)(cur[P + k] - spec_paeth(a0 + k, b, c));
                        if (out[P + k] != want)
                            fail_msg("level %d a %d b %d c %d: %d, want %d", level, a0 + k, b, c,
                                     out[P + k], want);
                    }
                }
    }
    rp_simd_set(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_specification),
        cmocka_unit_test(test_reconstructs),
        cmocka_unit_test(test_every_triple),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
