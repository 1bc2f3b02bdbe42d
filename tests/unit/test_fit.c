/* test_fit.c - fit geometry (fit.c) against rectangles worked out by hand, and the scaler
 * against pixels whose place is known (crops and pads without resampling are exact). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixfmt.h>

#include "base/common.h"
#include "input/fit.h"

static void check(enum rp_fit fit, int sw, int sh, int sn, int sd, int dw, int dh, rp_rect crop,
                  rp_rect dst)
{
    rp_rect c, d;

    assert_int_equal(rp_fit_rects(fit, sw, sh, sn, sd, dw, dh, &c, &d), RP_OK);
    if (memcmp(&c, &crop, sizeof(c)) || memcmp(&d, &dst, sizeof(d)))
        fail_msg("%s %dx%d (%d:%d) -> %dx%d: crop %d,%d %dx%d dst %d,%d %dx%d; want crop "
                 "%d,%d %dx%d dst %d,%d %dx%d",
                 rp_fit_name(fit), sw, sh, sn, sd, dw, dh, c.x, c.y, c.w, c.h, d.x, d.y, d.w, d.h,
                 crop.x, crop.y, crop.w, crop.h, dst.x, dst.y, dst.w, dst.h);
}

static void test_identity(void **state)
{
    (void)state;
    for (int f = 0; f < 3; f++) {
        check((enum rp_fit)f, 160, 90, 1, 1, 160, 90, (rp_rect){0, 0, 160, 90},
              (rp_rect){0, 0, 160, 90});
        check((enum rp_fit)f, 1, 1, 0, 0, 1, 1, (rp_rect){0, 0, 1, 1}, (rp_rect){0, 0, 1, 1});
        /* same aspect, other size */
        check((enum rp_fit)f, 1920, 1080, 1, 1, 640, 360, (rp_rect){0, 0, 1920, 1080},
              (rp_rect){0, 0, 640, 360});
    }
}

static void test_stretch(void **state)
{
    (void)state;
    check(RP_FIT_STRETCH, 1920, 1080, 1, 1, 100, 100, (rp_rect){0, 0, 1920, 1080},
          (rp_rect){0, 0, 100, 100});
    check(RP_FIT_STRETCH, 7, 3, 4, 1, 3, 7, (rp_rect){0, 0, 7, 3}, (rp_rect){0, 0, 3, 7});
}

static void test_cover(void **state)
{
    (void)state;
    /* 1080 of 1920 columns, (1920 - 1080) / 2 = 420 */
    check(RP_FIT_COVER, 1920, 1080, 1, 1, 1080, 1080, (rp_rect){420, 0, 1080, 1080},
          (rp_rect){0, 0, 1080, 1080});
    /* odd: 51 of 101 columns from 25 (the odd margin pixel on the right) */
    check(RP_FIT_COVER, 101, 51, 1, 1, 50, 50, (rp_rect){25, 0, 51, 51}, (rp_rect){0, 0, 50, 50});
    /* portrait into landscape: 90 * 90 / 160 = 50.625 -> 51 rows from (160 - 51) / 2 = 54 */
    check(RP_FIT_COVER, 90, 160, 1, 1, 160, 90, (rp_rect){0, 54, 90, 51}, (rp_rect){0, 0, 160, 90});
    /* a half rounds up: 4 * 3 / 8 = 1.5 -> 2 rows */
    check(RP_FIT_COVER, 4, 3, 1, 1, 8, 3, (rp_rect){0, 0, 4, 2}, (rp_rect){0, 0, 8, 3});
    /* 5 * 1 / 4 = 1.25 -> 1 row from 0 */
    check(RP_FIT_COVER, 5, 2, 1, 1, 4, 1, (rp_rect){0, 0, 5, 1}, (rp_rect){0, 0, 4, 1});
    /* extreme: 1 * 1 / 16384 rounds to 0, kept at 1 column, from 16383 / 2 = 8191 */
    check(RP_FIT_COVER, 16384, 1, 1, 1, 1, 16384, (rp_rect){8191, 0, 1, 1},
          (rp_rect){0, 0, 1, 16384});
    check(RP_FIT_COVER, 1, 16384, 1, 1, 16384, 1, (rp_rect){0, 8191, 1, 1},
          (rp_rect){0, 0, 16384, 1});
}

static void test_contain(void **state)
{
    (void)state;
    /* 1080 * 1080 / 1920 = 607.5 -> 608 rows from (1080 - 608) / 2 = 236 */
    check(RP_FIT_CONTAIN, 1920, 1080, 1, 1, 1080, 1080, (rp_rect){0, 0, 1920, 1080},
          (rp_rect){0, 236, 1080, 608});
    /* 50 * 51 / 101 = 25.25 -> 25 rows from 12 */
    check(RP_FIT_CONTAIN, 101, 51, 1, 1, 50, 50, (rp_rect){0, 0, 101, 51},
          (rp_rect){0, 12, 50, 25});
    check(RP_FIT_CONTAIN, 90, 160, 1, 1, 160, 90, (rp_rect){0, 0, 90, 160},
          (rp_rect){54, 0, 51, 90});
    /* 2 * 1 / 4 = 0.5 -> 1 */
    check(RP_FIT_CONTAIN, 4, 1, 1, 1, 2, 2, (rp_rect){0, 0, 4, 1}, (rp_rect){0, 0, 2, 1});
    check(RP_FIT_CONTAIN, 16384, 1, 1, 1, 1, 16384, (rp_rect){0, 0, 16384, 1},
          (rp_rect){0, 8191, 1, 1});
}

static void test_sample_aspect(void **state)
{
    (void)state;
    /* PAL 4:3 (720x576, 16:15) shows as 768x576; NTSC 16:9 (720x480, 32:27) as 1280x720 */
    check(RP_FIT_COVER, 720, 576, 16, 15, 768, 576, (rp_rect){0, 0, 720, 576},
          (rp_rect){0, 0, 768, 576});
    check(RP_FIT_CONTAIN, 720, 480, 32, 27, 1280, 720, (rp_rect){0, 0, 720, 480},
          (rp_rect){0, 0, 1280, 720});
    /* pixels twice as wide: 100x100 shows as 200x100 */
    check(RP_FIT_COVER, 100, 100, 2, 1, 100, 100, (rp_rect){25, 0, 50, 100},
          (rp_rect){0, 0, 100, 100});
    check(RP_FIT_CONTAIN, 100, 100, 2, 1, 100, 100, (rp_rect){0, 0, 100, 100},
          (rp_rect){0, 25, 100, 50});
}

static void test_invalid(void **state)
{
    rp_rect c, d;

    (void)state;
    assert_int_equal(rp_fit_rects(RP_FIT_COVER, 0, 1, 1, 1, 1, 1, &c, &d), RP_ERR_INVALID);
    assert_int_equal(rp_fit_rects(RP_FIT_COVER, 1, 1, 1, 1, 16385, 1, &c, &d), RP_ERR_INVALID);
    assert_int_equal(rp_fit_rects(RP_FIT_COVER, 1, 1, 0, 1, 1, 1, &c, &d), RP_ERR_INVALID);
    assert_int_equal(rp_fit_rects(RP_FIT_COVER, 1, 1, 1, 65537, 1, 1, &c, &d), RP_ERR_INVALID);
    assert_int_equal(rp_fit_rects((enum rp_fit)7, 1, 1, 1, 1, 1, 1, &c, &d), RP_ERR_INVALID);
}

static void test_names(void **state)
{
    enum rp_fit f;

    (void)state;
    assert_int_equal(rp_fit_from_name("contain", &f), RP_OK);
    assert_int_equal(f, RP_FIT_CONTAIN);
    assert_int_equal(rp_fit_from_name("cover", &f), RP_OK);
    assert_int_equal(f, RP_FIT_COVER);
    assert_int_equal(rp_fit_from_name("fill", &f), RP_ERR_INVALID);
    assert_string_equal(rp_fit_name(RP_FIT_STRETCH), "stretch");
}

/* An 8x4 RGB24 source whose pixel (x, y) is (10 x + 1, 20 y + 2, 7). Crops and pads that
 * need no resampling must copy those values exactly. */
static void scale(enum rp_fit fit, int dw, int dh, uint8_t *out)
{
    uint8_t *src[4];
    int stride[4];
    rp_fit_scaler *s;
    rp_error err;

    assert_true(av_image_alloc(src, stride, 8, 4, AV_PIX_FMT_RGB24, 64) >= 0);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            uint8_t *p = src[0] + y * stride[0] + x * 3;
            p[0] = (uint8_t)(10 * x + 1);
            p[1] = (uint8_t)(20 * y + 2);
            p[2] = 7;
        }
    assert_int_equal(rp_fit_scaler_new(&s, fit, 8, 4, AV_PIX_FMT_RGB24, 1, 1, AVCOL_SPC_UNSPECIFIED,
                                       AVCOL_RANGE_UNSPECIFIED, dw, dh, &err),
                     RP_OK);
    assert_int_equal(rp_fit_scaler_run(s, (const uint8_t *const *)src, stride, out), RP_OK);
    rp_fit_scaler_free(&s);
    rp_fit_scaler_free(&s); /* a NULL handle is a no-op */
    av_freep(&src[0]);
}

static void test_scaler_crop_and_pad(void **state)
{
    uint8_t *out = malloc(8 * 8 * 3);

    (void)state;
    assert_non_null(out);
    /* cover 8x4 -> 4x4: columns 2..5 */
    scale(RP_FIT_COVER, 4, 4, out);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            const uint8_t *p = out + (y * 4 + x) * 3;
            assert_int_equal(p[0], 10 * (x + 2) + 1);
            assert_int_equal(p[1], 20 * y + 2);
            assert_int_equal(p[2], 7);
        }
    /* contain 8x4 -> 8x8: rows 2..5 hold the source, the rest is black */
    memset(out, 0xaa, 8 * 8 * 3);
    scale(RP_FIT_CONTAIN, 8, 8, out);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            const uint8_t *p = out + (y * 8 + x) * 3;
            int in = y >= 2 && y < 6;
            assert_int_equal(p[0], in ? 10 * x + 1 : 0);
            assert_int_equal(p[1], in ? 20 * (y - 2) + 2 : 0);
            assert_int_equal(p[2], in ? 7 : 0);
        }
    /* contain 8x4 -> 5x4 (odd): 5 * 4 / 8 = 2.5 -> 3 rows from 0: row 3 black */
    memset(out, 0xaa, 8 * 8 * 3);
    scale(RP_FIT_CONTAIN, 5, 4, out);
    for (int i = 0; i < 5 * 3; i++)
        assert_int_equal(out[3 * 5 * 3 + i], 0);
    for (int i = 0; i < 3 * 5 * 3; i++)
        assert_int_not_equal(out[i], 0xaa);
    free(out);
}

/* A yuv420p frame of limited range, W x H, in blocks of 8 x 8 pixels of one Y and one
 * U and V each (blk[i] = {Y, U, V} for block i, row-major), through the scaler at its own
 * size with matrix cs; out holds each block's RGB at its pixel (3, 3) and (4, 4), where
 * the chroma's interpolation reads that block's samples alone. */
enum { BW = 256, BH = 128, NB = (BW / 8) * (BH / 8) };
static void yuv_blocks(int cs, const uint8_t (*blk)[3], uint8_t (*out)[2][3])
{
    uint8_t *src[4], *rgb = malloc(BW * BH * 3);
    int stride[4];
    rp_fit_scaler *s;
    rp_error err;
    assert_non_null(rgb);
    assert_true(av_image_alloc(src, stride, BW, BH, AV_PIX_FMT_YUV420P, 64) >= 0);
    for (int y = 0; y < BH; y++)
        for (int x = 0; x < BW; x++) {
            const uint8_t *b = blk[(y / 8) * (BW / 8) + x / 8];
            src[0][y * stride[0] + x] = b[0];
            src[1][(y / 2) * stride[1] + x / 2] = b[1];
            src[2][(y / 2) * stride[2] + x / 2] = b[2];
        }
    assert_int_equal(rp_fit_scaler_new(&s, RP_FIT_STRETCH, BW, BH, AV_PIX_FMT_YUV420P, 1, 1, cs,
                                       AVCOL_RANGE_MPEG, BW, BH, &err),
                     RP_OK);
    assert_int_equal(rp_fit_scaler_run(s, (const uint8_t *const *)src, stride, rgb), RP_OK);
    for (int i = 0; i < NB; i++)
        for (int k = 0; k < 2; k++)
            memcpy(out[i][k],
                   rgb + (((i / (BW / 8)) * 8 + 3 + k) * BW + (i % (BW / 8)) * 8 + 3 + k) * 3, 3);
    rp_fit_scaler_free(&s);
    av_freep(&src[0]);
    free(rgb);
}

/* Limited-range YUV 4:2:0's RGB: levels worked out by hand, exact (Y 126 is 110 x 255 / 219
 * = 128.08: 128, where libswscale's accurate conversion of FFmpeg 5.1 gave 126), and every
 * block of a sweep within a level of the BT.601 and BT.709 matrices in doubles. */
static void test_scaler_yuv_levels(void **state)
{
    static uint8_t blk[NB][3], out[NB][2][3];
    (void)state;
    /* greys: Y 16 -> 0, 50 -> 34 x 255 / 219 = 39.6 -> 40, 126 -> 128, 200 -> 214.2 -> 214,
     * 235 -> 255; BT.709 red, Y 63 U 102 V 240: R 54.7 + 1.5748 x 127.5 -> 255 (held),
     * G 54.7 + 0.1873 x 29.6 - 0.4681 x 127.5 = 0.59 -> 1, B 54.7 - 1.8556 x 29.6 < 0 -> 0 */
    static const uint8_t grey_in[5] = {16, 50, 126, 200, 235}, grey_out[5] = {0, 40, 128, 214, 255};
    for (int i = 0; i < NB; i++) {
        blk[i][0] = grey_in[i % 5];
        blk[i][1] = blk[i][2] = 128;
    }
    blk[5][0] = 63, blk[5][1] = 102, blk[5][2] = 240;
    yuv_blocks(AVCOL_SPC_BT709, (const uint8_t(*)[3])blk, out);
    for (int i = 0; i < NB; i++)
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 3; c++)
                assert_int_equal(out[i][k][c], i == 5 ? (c == 0   ? 255
                                                         : c == 1 ? 1
                                                                  : 0)
                                                      : grey_out[i % 5]);
    /* the sweep: Y across 16..235 against U, V across 16..240, both matrices */
    for (int m = 0; m < 2; m++) {
        const double kr = m ? 0.2126 : 0.299, kb = m ? 0.0722 : 0.114, kg = 1 - kr - kb;
        for (int i = 0; i < NB; i++) {
            blk[i][0] = (uint8_t)(16 + (i * 37 + m) % 220);
            blk[i][1] = (uint8_t)(16 + (i * 7 + i / 32) % 225);
            blk[i][2] = (uint8_t)(16 + (i * 13 + 3 * (i / 32)) % 225);
        }
        yuv_blocks(m ? AVCOL_SPC_BT709 : AVCOL_SPC_UNSPECIFIED, (const uint8_t(*)[3])blk, out);
        for (int i = 0; i < NB; i++) {
            double l = (blk[i][0] - 16) * 255.0 / 219, u = (blk[i][1] - 128) * 255.0 / 224,
                   v = (blk[i][2] - 128) * 255.0 / 224;
            double want[3] = {l + 2 * (1 - kr) * v,
                              l - 2 * kb * (1 - kb) / kg * u - 2 * kr * (1 - kr) / kg * v,
                              l + 2 * (1 - kb) * u};
            for (int k = 0; k < 2; k++)
                for (int c = 0; c < 3; c++) {
                    double w = want[c] < 0 ? 0 : want[c] > 255 ? 255 : want[c];
                    if (out[i][k][c] < w - 1 || out[i][k][c] > w + 1)
                        fail_msg("matrix %d, Y %d U %d V %d: channel %d is %d, want %.2f", m,
                                 blk[i][0], blk[i][1], blk[i][2], c, out[i][k][c], w);
                }
        }
    }
}

/* The same random yuv420p picture, and with alpha >= 0 a yuva420p one with that alpha
 * plane, fitted to (BW / 2 + 3) x (BH / 2 + 1). */
static void rgb_of(int fmt, int alpha, uint8_t *rgb)
{
    uint8_t *src[4];
    int stride[4];
    rp_fit_scaler *s;
    rp_error err;
    uint32_t r = 12345;
    assert_true(av_image_alloc(src, stride, BW, BH, fmt, 64) >= 0);
    for (int p = 0; p < 3; p++) {
        int h = p == 1 || p == 2 ? BH / 2 : BH, w = p == 1 || p == 2 ? BW / 2 : BW;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                r = r * 1103515245u + 12345u;
                src[p][y * stride[p] + x] = (uint8_t)(16 + (r >> 16) % 220);
            }
    }
    if (src[3])
        for (int y = 0; y < BH; y++)
            memset(src[3] + y * stride[3], alpha, BW);
    assert_int_equal(rp_fit_scaler_new(&s, RP_FIT_COVER, BW, BH, fmt, 1, 1, AVCOL_SPC_BT709,
                                       AVCOL_RANGE_MPEG, BW / 2 + 3, BH / 2 + 1, &err),
                     RP_OK);
    assert_int_equal(rp_fit_scaler_run(s, (const uint8_t *const *)src, stride, rgb), RP_OK);
    rp_fit_scaler_free(&s);
    av_freep(&src[0]);
}

/* A yuva420p picture's alpha is composited over black, each sample round(c * a / 255), as
 * a still image's is (image.c): opaque, it is the yuv420p picture; transparent, black; at
 * alpha 128, every sample scaled by 128/255 (before, the alpha was dropped). */
static void test_scaler_alpha_over_black(void **state)
{
    static uint8_t a[BW * BH * 3], b[BW * BH * 3];
    const size_t n = (size_t)(BW / 2 + 3) * (BH / 2 + 1) * 3;
    size_t nonzero = 0;
    (void)state;
    rgb_of(AV_PIX_FMT_YUV420P, -1, a);
    rgb_of(AV_PIX_FMT_YUVA420P, 255, b);
    assert_memory_equal(a, b, n);
    rgb_of(AV_PIX_FMT_YUVA420P, 0, b);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(b[i], 0);
    rgb_of(AV_PIX_FMT_YUVA420P, 128, b);
    for (size_t i = 0; i < n; i++) {
        nonzero += a[i] > 1;
        if (b[i] != (a[i] * 128 + 127) / 255)
            fail_msg("sample %zu: %d, want %d", i, b[i], (a[i] * 128 + 127) / 255);
    }
    assert_true(nonzero > n / 2);
}

static void test_scaler_refuses(void **state)
{
    rp_fit_scaler *s = (rp_fit_scaler *)1;
    rp_error err;

    (void)state;
    assert_int_equal(
        rp_fit_scaler_new(&s, RP_FIT_COVER, 8, 4, AV_PIX_FMT_VAAPI, 1, 1, 0, 0, 4, 4, &err),
        RP_ERR_FORMAT);
    assert_null(s);
    assert_int_equal(
        rp_fit_scaler_new(&s, RP_FIT_COVER, 0, 4, AV_PIX_FMT_RGB24, 1, 1, 0, 0, 4, 4, &err),
        RP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_stretch),
        cmocka_unit_test(test_cover),
        cmocka_unit_test(test_contain),
        cmocka_unit_test(test_sample_aspect),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_scaler_crop_and_pad),
        cmocka_unit_test(test_scaler_refuses),
        cmocka_unit_test(test_scaler_yuv_levels),
        cmocka_unit_test(test_scaler_alpha_over_black),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
