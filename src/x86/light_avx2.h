/* light_avx2.h - what the AVX2 kernels of the light (light_simd.c: the layer models;
 * light_water_body.h: look water) share: the slope of light.c's slope_q12 in int32 lanes.
 * Include after avx2_common.h. */
#ifndef RP_X86_LIGHT_AVX2_H
#define RP_X86_LIGHT_AVX2_H

#include "look/light_simd.h"

/* A slope's factor K = scale * mdiv as hi * 2^32 + lo (lo signed): floor(d * K / 2^32) =
 * d * hi + floor(d * lo / 2^32), exact for |d| <= dlim; a larger |d| gives a slope beyond
 * +-SLOPE_MAX either way, so d is clamped to dlim. */
struct kslope {
    int32_t hi, lo, dlim;
};

static inline void kslope_init(struct kslope *k, int64_t K)
{
    int64_t lo = (int32_t)(uint32_t)((uint64_t)K & 0xffffffffu);
    k->lo = (int32_t)lo;
    k->hi = (int32_t)((K - lo) / ((int64_t)1 << 32));
    /* |d| * K >= 2^47 makes |floor| >= 2^15 > SLOPE_MAX */
    int64_t dlim = K > 0 ? (((int64_t)1 << 47) + K - 1) / K : (int64_t)1 << 30;
    k->dlim = (int32_t)(dlim > ((int64_t)1 << 30) ? (int64_t)1 << 30 : dlim);
}

/* slope_q12() of light.c: clamp(floor(d * scale * mdiv / 2^32), +-SLOPE_MAX). */
INLINE AVX2 __m256i slope_v(__m256i d, const struct kslope *k)
{
    const __m256i dl = _mm256_set1_epi32(k->dlim), smax = _mm256_set1_epi32(RP_LIGHT_SLOPE_MAX);
    d = clampv(d, _mm256_sub_epi32(_mm256_setzero_si256(), dl), dl);
    __m256i s = _mm256_add_epi32(_mm256_mullo_epi32(d, _mm256_set1_epi32(k->hi)),
                                 mulhi32(d, _mm256_set1_epi32(k->lo)));
    return clampv(s, _mm256_sub_epi32(_mm256_setzero_si256(), smax), smax);
}

#endif
