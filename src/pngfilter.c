/* pngfilter.c - the Paeth filter of PNG rows (see pngfilter.h). */
#include "pngfilter.h"

#include <stdlib.h>

#include "simd.h"

#if defined(__SSE2__) && !defined(RP_NO_SIMD)
#define RP_HAVE_SSE2 1
#include <emmintrin.h>
#endif

/* The specification's PaethPredictor: the one of a (left), b (above), c (above left)
 * closest to a + b - c, ties going to a, then b. */
static inline int paeth(int a, int b, int c)
{
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

#ifdef RP_HAVE_SSE2
/* |v| of int16 lanes (no pabsw in SSE2). */
static inline __m128i abs16(__m128i v)
{
    return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v));
}

/* The predictor for 8 bytes widened to int16 lanes (a, b, c in 0..255). */
static inline __m128i paeth8(__m128i a, __m128i b, __m128i c)
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
static size_t paeth_sse2(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp,
                         size_t i0)
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
#endif

void rp_png_paeth_row(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp)
{
    size_t i = 0, first = (size_t)bpp < n ? (size_t)bpp : n;

    /* The first pixel has no left neighbour: a = c = 0, so the predictor is b. */
    for (; i < first; i++)
        out[i] = (uint8_t)(cur[i] - paeth(0, prev[i], 0));
#ifdef RP_HAVE_SSE2
    if (rp_simd_level() >= RP_SIMD_SSE2)
        i = paeth_sse2(out, cur, prev, n, bpp, i);
#endif
    for (; i < n; i++)
        out[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
}
