/* light_water_simd.c - look water's vector kernels in the light's table: the row kernels
 * (look/light_water_body.h, compiled at 8 pixels a vector for AVX2 and 16 for AVX-512, with
 * and without AVX512VBMI),
 * through look/light_water_rows.c's copies of the rows past the frame and its check of
 * whether they are exact for a band of rows, with an AVX2 scan of the heights. There is no SSE2
 * kernel: without SSE4.1's 32-bit multiplies and min/max and AVX2's gathers, emulating them would
 * cost about what the vectors save. Built with `target` attributes (no -m flags), like the layer's
 * kernel in light_simd.c. */
#include "x86/light_water.h"

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"

static int water_row_avx2(const rp_light *l, const struct rp_light_frame *f,
                          const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                          uint8_t *out, int rgba)
{
    return rp_light_water_row_by(rp_light_water_row_avx2, l, f, r, x0, x1, bg, out, rgba);
}

/* Frames 8 to 15 pixels wide take the AVX2 kernel (and spans x1 < 16 do). */
static int water_row_avx512(const rp_light *l, const struct rp_light_frame *f,
                            const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                            uint8_t *out, int rgba)
{
    return rp_light_water_row_by(x1 < 16 ? rp_light_water_row_avx2 : rp_light_water_row_avx512, l,
                                 f, r, x0, x1, bg, out, rgba);
}

static int water_row_avx512icl(const rp_light *l, const struct rp_light_frame *f,
                               const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                               uint8_t *out, int rgba)
{
    return rp_light_water_row_by(x1 < 16 ? rp_light_water_row_avx2 : rp_light_water_row_avx512icl,
                                 l, f, r, x0, x1, bg, out, rgba);
}

/* Every height of n within +-RP_LIGHT_SIMD_HMAX. */
static AVX2 int heights_ok(const int32_t *p, size_t n)
{
    const __m256i hmax = _mm256_set1_epi32(RP_LIGHT_SIMD_HMAX);
    __m256i out = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_abs_epi32(loadh(p + i)); /* INT32_MIN stays negative: caught below */
        out = _mm256_or_si256(out, _mm256_or_si256(_mm256_cmpgt_epi32(v, hmax),
                                                   _mm256_cmpgt_epi32(_mm256_setzero_si256(), v)));
    }
    for (; i < n; i++)
        if (p[i] < -RP_LIGHT_SIMD_HMAX || p[i] > RP_LIGHT_SIMD_HMAX)
            return 0;
    return none(out);
}

static int water_rows_ok_avx2(const rp_light *l, const struct rp_light_frame *f,
                              const int32_t *heights, int y0, int y1)
{
    return rp_light_water_rows_ok_by(heights_ok, l, f, heights, y0, y1);
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_light_water_dsp_init_x86(rp_light_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->water_row = level >= RP_SIMD_AVX512ICL ? water_row_avx512icl
                       : level >= RP_SIMD_AVX512  ? water_row_avx512
                                                  : water_row_avx2;
        c->water_rows_ok = water_rows_ok_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
