/* test_yuv.c - the RGB24 -> Y'CbCr converter (yuv.c) against values worked out by hand, the
 * BT.601 definition evaluated in double precision, libswscale, and its own plain C loop
 * (the AVX2 kernel must match it byte for byte, for any width, height and row band). The
 * frames are allocated to their exact size, so the sanitizer build catches a kernel that
 * reads past a row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libswscale/swscale.h>

#include "base/cpu.h"
#include "output/yuv.h"

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Random bytes, a third of them 0 or 255 (the ends of the range). */
static uint8_t *random_rgb(int w, int h, uint32_t seed)
{
    size_t n = (size_t)w * (size_t)h * 3;
    uint8_t *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next(&seed);
        p[i] = (uint8_t)(r % 3 == 0 ? (r / 3 % 2) * 255 : r / 3);
    }
    return p;
}

/* BT.601 in limited range, straight from its definition (Kr = 0.299, Kb = 0.114; Y' scaled
 * to 16..235, Cb and Cr to 16..240), unrounded. */
static void bt601(double r, double g, double b, double out[3])
{
    const double kr = 0.299, kb = 0.114, kg = 1 - kr - kb;
    double y = (kr * r + kg * g + kb * b) / 255;

    out[0] = 16 + 219 * y;
    out[1] = 128 + 224 * ((b / 255 - y) / (2 * (1 - kb)));
    out[2] = 128 + 224 * ((r / 255 - y) / (2 * (1 - kr)));
}

/* Rounded to nearest: an exact value may miss by 0.5 plus the coefficients' rounding
 * (under 0.01 here), never more. */
static void assert_near(int got, double want)
{
    if (fabs(got - want) > 0.5 + 1.0 / 64)
        fail_msg("got %d, BT.601 gives %.4f", got, want);
}

typedef struct planes {
    uint8_t *p[3];
    int stride[3];
} planes;

/* Planes of exactly w x h (chroma cw x ch), strides equal to the widths. */
static planes alloc_planes(int w, int h, int cw, int ch)
{
    planes pl;
    pl.p[0] = malloc((size_t)w * (size_t)h);
    pl.p[1] = malloc((size_t)cw * (size_t)ch);
    pl.p[2] = malloc((size_t)cw * (size_t)ch);
    assert_true(pl.p[0] && pl.p[1] && pl.p[2]);
    pl.stride[0] = w;
    pl.stride[1] = pl.stride[2] = cw;
    return pl;
}

static void free_planes(planes *pl)
{
    for (int i = 0; i < 3; i++)
        free(pl->p[i]);
}

/* Solid colours, 4:4:4 and 4:2:0, against BT.601 limited-range values worked out by hand:
 * Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255 and so on, rounded. */
static void test_solid_colours(void **state)
{
    static const struct {
        uint8_t rgb[3], yuv[3];
    } cases[] = {
        {{0, 0, 0}, {16, 128, 128}},     {{255, 255, 255}, {235, 128, 128}},
        {{255, 0, 0}, {81, 90, 240}},    {{0, 255, 0}, {145, 54, 34}},
        {{0, 0, 255}, {41, 240, 110}},   {{128, 128, 128}, {126, 128, 128}},
        {{255, 255, 0}, {210, 16, 146}}, {{0, 255, 255}, {170, 166, 16}},
    };
    const int w = 40, h = 4; /* 40: the AVX2 kernel does 32 pixels, plain C the last 8 */
    (void)state;

    for (int level = RP_SIMD_C; level <= RP_SIMD_AVX2; level++) {
        rp_simd_set(level);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            uint8_t *rgb = malloc((size_t)w * h * 3);
            planes a = alloc_planes(w, h, w, h), b = alloc_planes(w, h, w / 2, h / 2);
            assert_non_null(rgb);
            for (int i = 0; i < w * h; i++)
                memcpy(rgb + 3 * i, cases[c].rgb, 3);
            rp_yuv444_rows(rgb, w, a.p, a.stride, 0, h);
            rp_yuv420_rows(rgb, w, b.p, b.stride, 0, h);
            for (int p = 0; p < 3; p++) {
                int n = p ? w * h / 4 : w * h;
                for (int i = 0; i < w * h; i++)
                    assert_int_equal(a.p[p][i], cases[c].yuv[p]);
                for (int i = 0; i < n; i++)
                    assert_int_equal(b.p[p][i], cases[c].yuv[p]);
            }
            free(rgb);
            free_planes(&a);
            free_planes(&b);
        }
    }
    rp_simd_set(-1);
}

/* Every sample of random frames against the BT.601 definition: each pixel for Y and 4:4:4
 * chroma, the mean of each 2x2 block for 4:2:0 chroma. */
static void test_definition(void **state)
{
    const int w = 70, h = 6;
    (void)state;

    for (int level = RP_SIMD_C; level <= RP_SIMD_AVX2; level++) {
        uint8_t *rgb = random_rgb(w, h, 11u + (uint32_t)level);
        planes a = alloc_planes(w, h, w, h), b = alloc_planes(w, h, w / 2, h / 2);
        double v[3], s[3];

        rp_simd_set(level);
        rp_yuv444_rows(rgb, w, a.p, a.stride, 0, h);
        rp_yuv420_rows(rgb, w, b.p, b.stride, 0, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *px = rgb + 3 * (y * w + x);
                bt601(px[0], px[1], px[2], v);
                for (int p = 0; p < 3; p++)
                    assert_near(a.p[p][y * w + x], v[p]);
                assert_near(b.p[0][y * w + x], v[0]);
            }
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w; x += 2) {
                s[1] = s[2] = 0;
                for (int k = 0; k < 4; k++) {
                    const uint8_t *px = rgb + 3 * ((y + k / 2) * w + x + k % 2);
                    bt601(px[0], px[1], px[2], v);
                    s[1] += v[1] / 4;
                    s[2] += v[2] / 4;
                }
                assert_near(b.p[1][y / 2 * (w / 2) + x / 2], s[1]);
                assert_near(b.p[2][y / 2 * (w / 2) + x / 2], s[2]);
            }
        free(rgb);
        free_planes(&a);
        free_planes(&b);
    }
    rp_simd_set(-1);
}

/* libswscale's accurate BT.601 conversion (what the ffmpeg program gives with
 * -sws_flags accurate_rnd+bitexact) agrees to within one level on every sample. */
static void test_libswscale(void **state)
{
    const int w = 64, h = 16;
    uint8_t *rgb = random_rgb(w, h, 5);
    planes a = alloc_planes(w, h, w, h), b = alloc_planes(w, h, w, h);
    struct SwsContext *sws =
        sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV444P,
                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    const uint8_t *src[4] = {rgb, NULL, NULL, NULL};
    const int src_stride[4] = {3 * w, 0, 0, 0};
    int exact = 0;
    (void)state;

    assert_non_null(sws);
    rp_yuv444_rows(rgb, w, a.p, a.stride, 0, h);
    /* libswscale may read a little past its input's rows: give it a padded copy. */
    uint8_t *padded = calloc((size_t)w * h * 3 + 64, 1);
    assert_non_null(padded);
    memcpy(padded, rgb, (size_t)w * h * 3);
    src[0] = padded;
    sws_scale(sws, src, src_stride, 0, h, b.p, b.stride);
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < w * h; i++) {
            assert_true(abs(a.p[p][i] - b.p[p][i]) <= 1);
            exact += a.p[p][i] == b.p[p][i];
        }
    assert_true(exact > 3 * w * h * 9 / 10); /* and nearly always exactly */
    sws_freeContext(sws);
    free(padded);
    free(rgb);
    free_planes(&a);
    free_planes(&b);
}

/* The AVX2 kernel against the plain C loop, byte for byte: every width up to 80 (both sides
 * of the kernel's 16-pixel blocks), and any split into row bands gives the frame converted
 * whole. Without AVX2 both sides are the plain loop, and only the bands are tested. */
static void test_simd_matches_c(void **state)
{
    (void)state;
    if (rp_simd_supported() < RP_SIMD_AVX2)
        print_message("no AVX2 on this CPU: plain C against itself\n");
    for (int w = 1; w <= 80; w++)
        for (int h = 1; h <= 4; h++) {
            uint8_t *rgb = random_rgb(w, h, (uint32_t)(w * 8 + h));
            planes c4 = alloc_planes(w, h, w, h), s4 = alloc_planes(w, h, w, h);

            rp_simd_set(RP_SIMD_C);
            rp_yuv444_rows(rgb, w, c4.p, c4.stride, 0, h);
            rp_simd_set(RP_SIMD_AVX2);
            rp_yuv444_rows(rgb, w, s4.p, s4.stride, 0, 1);
            rp_yuv444_rows(rgb, w, s4.p, s4.stride, 1, h);
            for (int p = 0; p < 3; p++)
                assert_memory_equal(c4.p[p], s4.p[p], (size_t)w * h);
            if (w % 2 == 0 && h % 2 == 0) {
                planes c2 = alloc_planes(w, h, w / 2, h / 2), s2 = alloc_planes(w, h, w / 2, h / 2);
                size_t cn = (size_t)(w / 2) * (h / 2);

                rp_simd_set(RP_SIMD_C);
                rp_yuv420_rows(rgb, w, c2.p, c2.stride, 0, h);
                rp_simd_set(RP_SIMD_AVX2);
                rp_yuv420_rows(rgb, w, s2.p, s2.stride, 0, 2);
                rp_yuv420_rows(rgb, w, s2.p, s2.stride, 2, h);
                assert_memory_equal(c2.p[0], s2.p[0], (size_t)w * h);
                assert_memory_equal(c2.p[1], s2.p[1], cn);
                assert_memory_equal(c2.p[2], s2.p[2], cn);
                free_planes(&c2);
                free_planes(&s2);
            }
            free(rgb);
            free_planes(&c4);
            free_planes(&s4);
        }
    rp_simd_set(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solid_colours),
        cmocka_unit_test(test_definition),
        cmocka_unit_test(test_libswscale),
        cmocka_unit_test(test_simd_matches_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
