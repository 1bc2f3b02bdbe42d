/* upscale_simd.c - AVX2 passes of the height resampler (upscale.c), exact to the last bit.
 * The column pass takes two grid rows per _mm256_madd_epi16 (heights and, negated, weights
 * fit int16; the int32 sums are the plain loop's), or one per int32 multiply where a row's
 * weights do not fit. The row pass takes the groups of 8 outputs set-up laid out (upscale.c,
 * rp_upscale_group): where the sums allow, each cell split in 16-bit halves, two taps per
 * _mm256_madd_epi16 and the cells placed by byte shuffles within 128-bit lanes (cheaper
 * than permutes across lanes); else int64 products of cells placed by permutes, or gathers
 * for wide windows. Built with `target`
 * attributes (no -m flags). */
#include "look/upscale_simd.h"

#include "base/common.h"
#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* Rows col_pairs takes at most (its weights stay in registers or on the stack). */
#define COL_PAIRS_MAX 32

/* Whether col_pairs may take this row's taps: at most COL_PAIRS_MAX, each weight, negated,
 * fits int16, and their absolute sum is under 2^16, so a sum of heights times weights stays
 * within 32768 * 65535 < 2^31 however _mm256_madd_epi16 groups it. */
static int col_pairs_fit(const int32_t *wy, int ny)
{
    int64_t sum = 0;
    if (ny > COL_PAIRS_MAX)
        return 0;
    for (int k = 0; k < ny; k++) {
        if (wy[k] < -32767 || wy[k] > 32768)
            return 0;
        sum += wy[k] < 0 ? -wy[k] : wy[k];
    }
    return sum < 65536;
}

/* sums of cells 0-3, 8-11 (lo) and 4-7, 12-15 (hi) += rows a and b interleaved as int16
 * pairs times the weight pair w */
static AVX2 inline void col_step(__m256i *lo, __m256i *hi, __m256i a, __m256i b, __m256i w)
{
    *lo = _mm256_add_epi32(*lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), w));
    *hi = _mm256_add_epi32(*hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), w));
}

/* The column pass 16 cells at a time, two grid rows per multiply: rows k and k + 1
 * interleaved as int16 pairs against (-wy[k], -wy[k + 1]), so the sums come out negated.
 * The interleave works within 128-bit lanes, so the sums hold cells 0-3, 8-11 and 4-7,
 * 12-15; the lane swaps at the end put them back in order. Returns the count done. */
static AVX2 int col_pairs(const int16_t *src, int stride, const int32_t *wy, int ny,
                          int32_t *column, int n)
{
    __m256i wp[COL_PAIRS_MAX / 2];
    for (int k = 0; k < ny; k += 2) {
        /* (-wy[k], -wy[k + 1]) as int16, low first; an odd last row pairs with itself,
         * weighted 0 */
        uint32_t w0 = (uint32_t)-wy[k], w1 = k + 1 < ny ? (uint32_t)-wy[k + 1] : 0;
        wp[k / 2] = _mm256_set1_epi32((int32_t)(w1 << 16 | (w0 & 0xffffu)));
    }
    int x = 0;
    for (; x + 16 <= n; x += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = lo;
        const int16_t *row = src + x;
        for (int k = 0; k + 1 < ny; k += 2, row += 2 * (size_t)stride)
            col_step(&lo, &hi, _mm256_loadu_si256((const __m256i *)(const void *)row),
                     _mm256_loadu_si256((const __m256i *)(const void *)(row + stride)), wp[k / 2]);
        if (ny & 1) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)row);
            col_step(&lo, &hi, a, a, wp[ny / 2]);
        }
        __m256i zero = _mm256_setzero_si256();
        _mm256_storeu_si256((__m256i *)(void *)(column + x),
                            _mm256_sub_epi32(zero, _mm256_permute2x128_si256(lo, hi, 0x20)));
        _mm256_storeu_si256((__m256i *)(void *)(column + x + 8),
                            _mm256_sub_epi32(zero, _mm256_permute2x128_si256(lo, hi, 0x31)));
    }
    return x;
}

static AVX2 int col_avx2(const int16_t *src, int stride, const int32_t *wy, int ny, int32_t *column,
                         int n)
{
    int x = col_pairs_fit(wy, ny) ? col_pairs(src, stride, wy, ny, column, n) : 0;
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

/* acc += c * w in int64 lanes, even outputs in even, odd outputs in odd (their products
 * are taken from the high halves: _mm256_mul_epi32 reads the low half of each 64-bit lane). */
static AVX2 inline void macc(__m256i *even, __m256i *odd, __m256i c, const int32_t *w)
{
    __m256i wk = _mm256_loadu_si256((const __m256i *)(const void *)w);
    *even = _mm256_add_epi64(*even, _mm256_mul_epi32(c, wk));
    *odd = _mm256_add_epi64(*odd,
                            _mm256_mul_epi32(_mm256_srli_epi64(c, 32), _mm256_srli_epi64(wk, 32)));
}

/* An RP_UPSCALE_SPAN* group (upscale_simd.h) in int64 lanes. Tap k of output j is cell
 * base + k + rel[j]: the cells are loaded from base + k, so one permute by the fixed rel
 * (and a blend when rel reaches past 7) places every output's cell. */
static AVX2 __m256i span_avx2(const int32_t *column, const rp_upscale_group *g, const int32_t *w)
{
    const int32_t *c = column + g->base;
    const int ntap = g->n;
    __m256i rel = _mm256_loadu_si256((const __m256i *)(const void *)g->rel);
    __m256i even = _mm256_set1_epi64x((int64_t)1 << 21), odd = even;
    if (g->kind == RP_UPSCALE_SPAN8) {
        for (int k = 0; k < ntap; k++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(c + k));
            macc(&even, &odd, _mm256_permutevar8x32_epi32(v, rel), w + k * 8);
        }
    } else if (g->kind == RP_UPSCALE_SPAN16) {
        __m256i upper = _mm256_cmpgt_epi32(rel, _mm256_set1_epi32(7));
        for (int k = 0; k < ntap; k++) {
            __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(c + k));
            __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(c + k + 8));
            __m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, rel),
                                           _mm256_permutevar8x32_epi32(hi, rel), upper);
            macc(&even, &odd, v, w + k * 8);
        }
    } else {
        for (int k = 0; k < ntap; k++)
            macc(&even, &odd, _mm256_i32gather_epi32((const int *)(c + k), rel, 4), w + k * 8);
    }
    /* bits 22..53 of each sum: the arithmetic shift's result, which fits in int32 */
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 22), _mm256_slli_epi64(odd, 10), 0xAA);
}

/* sh, sl += pair s's products: each 128-bit lane holds its half's 8 cells (h and l in the
 * low lane, h + hi and l + hi in the high; one load for both where hi is 0), the shuffle
 * pairs each output's two */
static AVX2 inline __attribute__((always_inline)) void pair_step(__m256i *sh, __m256i *sl,
                                                                 const int16_t *h, const int16_t *l,
                                                                 int hi, __m256i pick,
                                                                 const int32_t *w)
{
    __m256i vh, vl;
    if (hi == 0) {
        vh = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)h));
        vl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)l));
    } else {
        vh = _mm256_loadu2_m128i((const __m128i *)(const void *)(h + hi),
                                 (const __m128i *)(const void *)h);
        vl = _mm256_loadu2_m128i((const __m128i *)(const void *)(l + hi),
                                 (const __m128i *)(const void *)l);
    }
    __m256i ws = _mm256_loadu_si256((const __m256i *)(const void *)w);
    *sh = _mm256_add_epi32(*sh, _mm256_madd_epi16(_mm256_shuffle_epi8(vh, pick), ws));
    *sl = _mm256_add_epi32(*sl, _mm256_madd_epi16(_mm256_shuffle_epi8(vl, pick), ws));
}

/* An RP_UPSCALE_PAIRS group. Cell c = high * 2^16 + low with low its low 16 bits, signed,
 * and high (c - low) / 2^16 (both int16: upscale.c bounds |c|), so the int64 sum
 * acc = sum c * w is -(sh * 2^16 + sl) with sh, sl the int32 sums of the halves times the
 * negated weights (upscale.c bounds them below 2^31 - 2^22). Then with
 * 2^21 - sl = q * 2^16 + r (0 <= r < 2^16), acc + 2^21 = (q - sh) * 2^16 + r, whose floor
 * over 2^22 is (q - sh) >> 6: the plain loop's rounding without int64. */
static AVX2 __m256i pairs_avx2(const int16_t *high, const int16_t *low, const rp_upscale_group *g,
                               const int32_t *w)
{
    const int16_t *h = high + g->base, *l = low + g->base;
    const int npair = g->n, hi = g->hi;
    __m256i pick = _mm256_loadu_si256((const __m256i *)(const void *)g->pick);
    __m256i sh = _mm256_setzero_si256(), sl = sh;
    if (hi == 0 && npair == 2) {
        /* 4 taps, both halves' cells within 8: upscales by 1.5 and more, the common
         * case; written out, as gcc does not unroll the loop */
        pair_step(&sh, &sl, h, l, 0, pick, w);
        pair_step(&sh, &sl, h + 2, l + 2, 0, pick, w + 8);
    } else if (hi == 0) {
        for (int s = 0; s < npair; s++)
            pair_step(&sh, &sl, h + 2 * s, l + 2 * s, 0, pick, w + s * 8);
    } else {
        for (int s = 0; s < npair; s++)
            pair_step(&sh, &sl, h + 2 * s, l + 2 * s, hi, pick, w + s * 8);
    }
    __m256i q = _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(1 << 21), sl), 16);
    return _mm256_srai_epi32(_mm256_sub_epi32(q, sh), 6);
}

/* The cells' 16-bit halves for pairs_avx2: low = c's low 16 bits, signed; high =
 * (c - low) >> 16. n cells, a multiple of 16. */
static AVX2 void split_avx2(const int32_t *column, int16_t *high, int16_t *low, int n)
{
    for (int x = 0; x < n; x += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(column + x));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(column + x + 8));
        __m256i la = _mm256_srai_epi32(_mm256_slli_epi32(a, 16), 16);
        __m256i lb = _mm256_srai_epi32(_mm256_slli_epi32(b, 16), 16);
        __m256i ha = _mm256_srai_epi32(_mm256_sub_epi32(a, la), 16);
        __m256i hb = _mm256_srai_epi32(_mm256_sub_epi32(b, lb), 16);
        /* the packs interleave the 128-bit lanes; the permute puts them back in order */
        _mm256_storeu_si256((__m256i *)(void *)(low + x),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(la, lb), 0xD8));
        _mm256_storeu_si256((__m256i *)(void *)(high + x),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(ha, hb), 0xD8));
    }
}

static AVX2 int row_avx2(const int32_t *column, int gw, const rp_upscale_group *groups,
                         const int32_t *w, int32_t *dst, int n, int16_t *scratch)
{
    /* the 16-bit halves of the cells pairs_avx2 reads, column[0 .. gw + 6], in whole 16s
     * (at most gw + 22 <= gw + RP_UPSCALE_PAD), in the caller's scratch */
    int16_t *high = scratch, *low = scratch + gw + RP_UPSCALE_PAD;
    split_avx2(column, high, low, (gw + 7 + 15) / 16 * 16);
    int x = 0;
    for (const rp_upscale_group *g = groups; x + 8 <= n; x += 8, g++) {
        __m256i r = g->kind == RP_UPSCALE_PAIRS ? pairs_avx2(high, low, g, w + g->woff)
                                                : span_avx2(column, g, w + g->woff);
        _mm256_storeu_si256((__m256i *)(void *)(dst + x), r);
    }
    return x;
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_upscale_dsp_init_x86(rp_upscale_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->col = col_avx2;
        c->row = row_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
