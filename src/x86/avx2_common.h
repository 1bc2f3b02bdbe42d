/* avx2_common.h - helpers the AVX2 kernels of src/x86 share (render, light, look water):
 * the `target` and inline attributes (no -m flags), lane clamps and tests, and 8 packed
 * RGB pixels to and from 32-bit lanes. Include after <immintrin.h>, inside the kernels'
 * RP_HAVE_X86_KERNELS block. */
#ifndef RP_X86_AVX2_COMMON_H
#define RP_X86_AVX2_COMMON_H

#include <stdint.h>

#define AVX2 __attribute__((target("avx2")))
#define INLINE static inline __attribute__((always_inline))

/* Bits s..s+31 of 64-bit products e (even lanes) and o (odd lanes): floor(p / 2^s) when
 * that fits in int32 (a logical and an arithmetic shift agree on those bits). */
#define SHR_PAIR(e, o, s)                                                                          \
    _mm256_blend_epi32(_mm256_srli_epi64((e), (s)), _mm256_slli_epi64((o), 32 - (s)), 0xAA)

/* floor(a * b / 2^32) for int32 lanes, b the same in every lane. */
INLINE AVX2 __m256i mulhi32(__m256i a, __m256i b)
{
    __m256i e = _mm256_mul_epi32(a, b);
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), b);
    return _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xAA);
}

INLINE AVX2 __m256i clampv(__m256i v, __m256i lo, __m256i hi)
{
    return _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
}

/* Whether every bit of v is 0. */
INLINE AVX2 int none(__m256i v)
{
    return _mm256_testz_si256(v, v);
}

INLINE AVX2 __m256i loadh(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* Store the R, G, B bytes of 8 pixels (32-bit lanes R, G, B, x) as 24 bytes. */
INLINE AVX2 void store_rgb(uint8_t *out, __m256i px)
{
    const __m256i pack3 = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                           0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    __m256i v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(px, pack3), join);
    _mm_storeu_si128((__m128i *)(void *)out, _mm256_castsi256_si128(v));
    _mm_storel_epi64((__m128i *)(void *)(out + 16), _mm256_extracti128_si256(v, 1));
}

/* Load the 24 bytes of 8 RGB pixels as 32-bit lanes R, G, B, 0 (reads no further). */
INLINE AVX2 __m256i load_rgb(const uint8_t *p)
{
    const __m256i spread = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 4,
                                            5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
    __m256i v = _mm256_set_m128i(_mm_loadu_si128((const __m128i *)(const void *)(p + 8)),
                                 _mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_shuffle_epi8(v, spread);
}

#endif
