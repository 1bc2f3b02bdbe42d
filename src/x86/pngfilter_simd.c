/* pngfilter_simd.c - SSE2, AVX2 and AVX-512 kernels of PNG's Paeth row filter (pngfilter.c),
 * 16, 32 and 64 bytes at a time, exact to the last bit: SSE2's predictor distances in int16
 * lanes, the wider kernels' in byte lanes (paeth32), the choice by comparison masks. Built with
 * `target` attributes (no -m flags). */
#include "output/pngfilter_simd.h"

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

#ifdef RP_HAVE_X86_KERNELS
#define SSE2 __attribute__((target("sse2")))

/* |v| of int16 lanes (no pabsw in SSE2). */
static inline __attribute__((always_inline)) SSE2 __m128i abs16(__m128i v)
{
    return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v));
}

/* The predictor for 8 bytes widened to int16 lanes (a, b, c in 0..255). */
static inline __attribute__((always_inline)) SSE2 __m128i paeth8(__m128i a, __m128i b, __m128i c)
{
    __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
    __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
    /* not_a: pa > pb or pa > pc; then b where pb <= pc, else c. */
    __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
    __m128i use_c = _mm_and_si128(not_a, _mm_cmpgt_epi16(pb, pc));
    __m128i use_b = _mm_andnot_si128(use_c, not_a);
    __m128i p = _mm_andnot_si128(not_a, a);
    p = _mm_or_si128(p, _mm_and_si128(use_b, b));
    return _mm_or_si128(p, _mm_and_si128(use_c, c));
}

/* Bytes i0..k-1 (k returned, 16 at a time); needs i0 >= bpp. */
static SSE2 size_t paeth_sse2(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                              int bpp, size_t i0)
{
    const __m128i zero = _mm_setzero_si128();
    size_t i = i0;
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(cur + i));
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(cur + i - bpp));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(prev + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(prev + i - bpp));
        __m128i lo = paeth8(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero),
                            _mm_unpacklo_epi8(c, zero));
        __m128i hi = paeth8(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero),
                            _mm_unpackhi_epi8(c, zero));
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm_sub_epi8(x, _mm_packus_epi16(lo, hi)));
    }
    return i;
}

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* The predictor in byte lanes, 32 at a time: pa = |b - c| and pb = |a - c| fit a byte;
 * pc = |a + b - 2c| = |(a - c) + (b - c)| is pa + pb where a - c and b - c have the same
 * sign, and |pa - pb| where they do not. Only where the signs agree can it pass 255, and
 * there it is at least pa and pb, as its saturated sum is too, so every comparison the
 * predictor makes comes out as with the exact value. x <= y is min(x, y) == x. */
static inline __attribute__((always_inline)) AVX2 __m256i paeth32(__m256i a, __m256i b, __m256i c)
{
    __m256i pa = _mm256_sub_epi8(_mm256_max_epu8(b, c), _mm256_min_epu8(b, c));
    __m256i pb = _mm256_sub_epi8(_mm256_max_epu8(a, c), _mm256_min_epu8(a, c));
    __m256i a_ge = _mm256_cmpeq_epi8(_mm256_max_epu8(a, c), a);
    __m256i b_ge = _mm256_cmpeq_epi8(_mm256_max_epu8(b, c), b);
    __m256i diff = _mm256_sub_epi8(_mm256_max_epu8(pa, pb), _mm256_min_epu8(pa, pb));
    __m256i pc = _mm256_blendv_epi8(diff, _mm256_adds_epu8(pa, pb), _mm256_cmpeq_epi8(a_ge, b_ge));
    __m256i a_ok = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(pa, pb), pa),
                                    _mm256_cmpeq_epi8(_mm256_min_epu8(pa, pc), pa));
    __m256i b_ok = _mm256_cmpeq_epi8(_mm256_min_epu8(pb, pc), pb);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(c, b, b_ok), a, a_ok);
}

/* paeth_sse2() 32 bytes at a time, in byte lanes (paeth32). */
static AVX2 size_t paeth_avx2(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                              int bpp, size_t i0)
{
    size_t i = i0;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(cur + i));
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(cur + i - bpp));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(prev + i));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(prev + i - bpp));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_sub_epi8(x, paeth32(a, b, c)));
    }
    return i;
}

/* paeth32() at 64 bytes, its comparisons into mask registers. */
static AVX512 size_t paeth_avx512(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                                  int bpp, size_t i0)
{
    size_t i = i0;
    for (; i + 64 <= n; i += 64) {
        __m512i x = _mm512_loadu_si512((const void *)(cur + i));
        __m512i a = _mm512_loadu_si512((const void *)(cur + i - bpp));
        __m512i b = _mm512_loadu_si512((const void *)(prev + i));
        __m512i c = _mm512_loadu_si512((const void *)(prev + i - bpp));
        __m512i pa = _mm512_sub_epi8(_mm512_max_epu8(b, c), _mm512_min_epu8(b, c));
        __m512i pb = _mm512_sub_epi8(_mm512_max_epu8(a, c), _mm512_min_epu8(a, c));
        __mmask64 same = ~(_mm512_cmpge_epu8_mask(a, c) ^ _mm512_cmpge_epu8_mask(b, c));
        __m512i pc = _mm512_mask_blend_epi8(
            same, _mm512_sub_epi8(_mm512_max_epu8(pa, pb), _mm512_min_epu8(pa, pb)),
            _mm512_adds_epu8(pa, pb));
        __mmask64 a_ok = _mm512_cmple_epu8_mask(pa, pb) & _mm512_cmple_epu8_mask(pa, pc);
        __mmask64 b_ok = _mm512_cmple_epu8_mask(pb, pc);
        __m512i p = _mm512_mask_blend_epi8(a_ok, _mm512_mask_blend_epi8(b_ok, c, b), a);
        _mm512_storeu_si512((void *)(out + i), _mm512_sub_epi8(x, p));
    }
    return i;
}
#endif

#ifdef RP_HAVE_X86_KERNELS
/* The AVX2 loop, then the SSE2 one for the last 16-31 bytes. */
static size_t paeth_avx2_sse2(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                              int bpp, size_t i0)
{
    return paeth_sse2(out, cur, prev, n, bpp, paeth_avx2(out, cur, prev, n, bpp, i0));
}

/* The AVX-512 loop, then the AVX2 and SSE2 ones for the last 16-63 bytes. */
static size_t paeth_avx512_avx2(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n,
                                int bpp, size_t i0)
{
    return paeth_avx2_sse2(out, cur, prev, n, bpp, paeth_avx512(out, cur, prev, n, bpp, i0));
}
#endif

void rp_png_dsp_init_x86(rp_png_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX512)
        c->paeth = paeth_avx512_avx2;
    else if (level >= RP_SIMD_AVX2)
        c->paeth = paeth_avx2_sse2;
    else if (level >= RP_SIMD_SSE2)
        c->paeth = paeth_sse2;
#else
    (void)c;
    (void)level;
#endif
}
