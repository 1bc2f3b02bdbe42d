/* yuv_simd.c - the AVX2 kernels of the RGB24 to Y'CbCr converter (yuv.c), 16 pixels at a
 * time, exact to the last bit: pmaddwd forms R*cR + G*cG and B*cB in int32 lanes, the 2x2
 * sums for 4:2:0 are added in int32, and the shifts and offsets are those of the scalar
 * code. Built with `target` attributes (no -m flags). */
#include "output/yuv_simd.h"

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

#ifdef RP_HAVE_X86_KERNELS

#define AVX2 __attribute__((target("avx2")))
#define INLINE static inline __attribute__((always_inline))

/* Pixels p[0..7] as (R, G) int16 pairs and (B, 0) in 32-bit lanes, pixel i in lane i. Reads
 * exactly the 24 bytes of the 8 pixels: bytes 0-15 into the low lane (pixels 0-3 at 0-11)
 * and bytes 8-23 into the high one (pixels 4-7 at 4-15). */
INLINE AVX2 void load8(const uint8_t *p, __m256i *rg, __m256i *b)
{
    /* clang-format off */
    const __m256i to_rg = _mm256_setr_epi8(0, -1, 1, -1, 3, -1, 4, -1, 6, -1, 7, -1, 9, -1, 10, -1,
                                           4, -1, 5, -1, 7, -1, 8, -1, 10, -1, 11, -1, 13, -1, 14, -1);
    const __m256i to_b = _mm256_setr_epi8(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1,
                                          6, -1, -1, -1, 9, -1, -1, -1, 12, -1, -1, -1, 15, -1, -1, -1);
    /* clang-format on */
    __m256i v = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p)),
        _mm_loadu_si128((const __m128i *)(const void *)(p + 8)), 1);
    *rg = _mm256_shuffle_epi8(v, to_rg);
    *b = _mm256_shuffle_epi8(v, to_b);
}

/* c[0] * R + c[1] * G + c[2] * B in each 32-bit lane. */
INLINE AVX2 __m256i dot(__m256i rg, __m256i b, const int c[3])
{
    __m256i crg =
        _mm256_set1_epi32((int)((uint32_t)(uint16_t)c[0] | (uint32_t)(uint16_t)c[1] << 16));
    __m256i cbv = _mm256_set1_epi32((int)(uint32_t)(uint16_t)c[2]);
    return _mm256_add_epi32(_mm256_madd_epi16(rg, crg), _mm256_madd_epi16(b, cbv));
}

/* Store 16 values 0..255 held as int32: pixels 0..7 in lo, 8..15 in hi. */
INLINE AVX2 void store16(uint8_t *dst, __m256i lo, __m256i hi)
{
    __m256i p = _mm256_packs_epi32(lo, hi); /* 0-3 8-11 | 4-7 12-15 */
    p = _mm256_packus_epi16(p, p);
    p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
    _mm_storeu_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(p));
}

INLINE AVX2 __m256i scaled(__m256i sum, int add, int shift)
{
    return _mm256_srai_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(add)), shift);
}

/* Pixels 0..k-1 of rows a and b (k a multiple of 16 returned) to Y rows ya, yb and 4:2:0
 * chroma rows u, v. */
static AVX2 int yuv420_pair_avx2(const rp_yuv_matrix *m, const uint8_t *a, const uint8_t *b, int w,
                                 uint8_t *ya, uint8_t *yb, uint8_t *u, uint8_t *v)
{
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    int x = 0;

    for (; x + 16 <= w; x += 16) {
        __m256i rg[4], bl[4], cu[2], cv[2];

        load8(a + 3 * x, &rg[0], &bl[0]);
        load8(a + 3 * x + 24, &rg[1], &bl[1]);
        load8(b + 3 * x, &rg[2], &bl[2]);
        load8(b + 3 * x + 24, &rg[3], &bl[3]);
        store16(ya + x, scaled(dot(rg[0], bl[0], m->y), RP_YUV_Y_ADD, 15),
                scaled(dot(rg[1], bl[1], m->y), RP_YUV_Y_ADD, 15));
        store16(yb + x, scaled(dot(rg[2], bl[2], m->y), RP_YUV_Y_ADD, 15),
                scaled(dot(rg[3], bl[3], m->y), RP_YUV_Y_ADD, 15));
        /* Column sums of the two rows, then pairs of columns: lanes come out as chroma
         * samples 0 1 4 5 | 2 3 6 7, put in order before packing. */
        for (int h = 0; h < 2; h++) {
            __m256i rgs = _mm256_add_epi16(rg[h], rg[h + 2]);
            __m256i bs = _mm256_add_epi16(bl[h], bl[h + 2]);
            cu[h] = dot(rgs, bs, m->u);
            cv[h] = dot(rgs, bs, m->v);
        }
        __m256i su = _mm256_permutevar8x32_epi32(
            scaled(_mm256_hadd_epi32(cu[0], cu[1]), RP_YUV_C420_ADD, 17), order);
        __m256i sv = _mm256_permutevar8x32_epi32(
            scaled(_mm256_hadd_epi32(cv[0], cv[1]), RP_YUV_C420_ADD, 17), order);
        __m256i p = _mm256_packs_epi32(su, sv); /* u0-3 v0-3 | u4-7 v4-7 */
        p = _mm256_packus_epi16(p, p);
        p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
        _mm_storel_epi64((__m128i *)(void *)(u + x / 2), _mm256_castsi256_si128(p));
        _mm_storel_epi64((__m128i *)(void *)(v + x / 2),
                         _mm_unpackhi_epi64(_mm256_castsi256_si128(p), _mm256_castsi256_si128(p)));
    }
    return x;
}

/* Pixels 0..k-1 of one row to 4:4:4 Y, Cb, Cr rows; returns k, a multiple of 16. */
static AVX2 int yuv444_row_avx2(const rp_yuv_matrix *m, const uint8_t *a, int w, uint8_t *y,
                                uint8_t *u, uint8_t *v)
{
    int x = 0;

    for (; x + 16 <= w; x += 16) {
        __m256i rg0, b0, rg1, b1;

        load8(a + 3 * x, &rg0, &b0);
        load8(a + 3 * x + 24, &rg1, &b1);
        store16(y + x, scaled(dot(rg0, b0, m->y), RP_YUV_Y_ADD, 15),
                scaled(dot(rg1, b1, m->y), RP_YUV_Y_ADD, 15));
        store16(u + x, scaled(dot(rg0, b0, m->u), RP_YUV_C_ADD, 15),
                scaled(dot(rg1, b1, m->u), RP_YUV_C_ADD, 15));
        store16(v + x, scaled(dot(rg0, b0, m->v), RP_YUV_C_ADD, 15),
                scaled(dot(rg1, b1, m->v), RP_YUV_C_ADD, 15));
    }
    return x;
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_yuv_dsp_init_x86(rp_yuv_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->yuv420_pair = yuv420_pair_avx2;
        c->yuv444_row = yuv444_row_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
