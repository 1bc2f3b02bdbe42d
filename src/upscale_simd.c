/* upscale_simd.c - AVX2 passes of the height resampler (upscale.c), exact to the last bit:
 * the column pass in int32 lanes (the plain loop's int32 sums), the row pass with each
 * output's taps padded to a common count with zero weights (upscale.c builds that table),
 * the cells fetched with gathers and the products summed in int64 lanes. Built with
 * `target` attributes (no -m flags). */
#include "upscale_simd.h"

#include "simd.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

static AVX2 int col_avx2(const int16_t *src, int stride, const int32_t *wy, int ny, int32_t *column,
                         int n)
{
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256i acc = _mm256_setzero_si256();
        for (int k = 0; k < ny; k++) {
            __m256i v = _mm256_cvtepi16_epi32(
                _mm_loadu_si128((const __m128i *)(const void *)(src + (size_t)k * stride + x)));
            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(v, _mm256_set1_epi32(wy[k])));
        }
        _mm256_storeu_si256((__m256i *)(void *)(column + x), acc);
    }
    return x;
}

static AVX2 int row_avx2(const int32_t *column, const int32_t *first, const int32_t *w, int ntap,
                         int32_t *dst, int n)
{
    const __m256i round = _mm256_set1_epi64x((int64_t)1 << 21), one = _mm256_set1_epi32(1),
                  seven = _mm256_set1_epi32(7);
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        const int32_t *wg = w + (size_t)x * ntap;
        __m256i idx = _mm256_loadu_si256((const __m256i *)(const void *)(first + x));
        __m256i even = round, odd = round;
        /* the cells the group reads: first runs need not be monotonic (zero taps trimmed) */
        int base = first[x], top = first[x];
        for (int j = 1; j < 8; j++) {
            base = first[x + j] < base ? first[x + j] : base;
            top = first[x + j] > top ? first[x + j] : top;
        }
        if (top - base + ntap <= 16) {
            /* the cells lie in column[base .. base + 15]: two loads and permutes (the
             * caller keeps 16 readable cells past the grid) */
            __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(column + base));
            __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(column + base + 8));
            __m256i rel = _mm256_sub_epi32(idx, _mm256_set1_epi32(base));
            for (int k = 0; k < ntap; k++) {
                __m256i c = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, rel),
                                               _mm256_permutevar8x32_epi32(hi, rel),
                                               _mm256_cmpgt_epi32(rel, seven));
                __m256i wk =
                    _mm256_loadu_si256((const __m256i *)(const void *)(wg + (size_t)k * 8));
                even = _mm256_add_epi64(even, _mm256_mul_epi32(c, wk));
                odd = _mm256_add_epi64(
                    odd, _mm256_mul_epi32(_mm256_srli_epi64(c, 32), _mm256_srli_epi64(wk, 32)));
                rel = _mm256_add_epi32(rel, one);
            }
        } else {
            for (int k = 0; k < ntap; k++) {
                __m256i c = _mm256_i32gather_epi32((const int *)column, idx, 4);
                __m256i wk =
                    _mm256_loadu_si256((const __m256i *)(const void *)(wg + (size_t)k * 8));
                even = _mm256_add_epi64(even, _mm256_mul_epi32(c, wk));
                odd = _mm256_add_epi64(
                    odd, _mm256_mul_epi32(_mm256_srli_epi64(c, 32), _mm256_srli_epi64(wk, 32)));
                idx = _mm256_add_epi32(idx, one);
            }
        }
        /* bits 22..53 of each sum: the arithmetic shift's result, which fits in int32 */
        __m256i r =
            _mm256_blend_epi32(_mm256_srli_epi64(even, 22), _mm256_slli_epi64(odd, 10), 0xAA);
        _mm256_storeu_si256((__m256i *)(void *)(dst + x), r);
    }
    return x;
}

#endif /* RP_HAVE_X86_KERNELS */

rp_upscale_col_fn rp_upscale_simd_col(int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2)
        return col_avx2;
#endif
    (void)level;
    return NULL;
}

rp_upscale_row_fn rp_upscale_simd_row(int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2)
        return row_avx2;
#endif
    (void)level;
    return NULL;
}
