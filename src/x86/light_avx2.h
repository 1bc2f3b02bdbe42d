/* light_avx2.h - what the AVX2 kernels of the light (light_simd.c: the layer models;
 * light_water_body.h: look water) share: the slope of light.c's slope_q12 in int32 lanes.
 * Include after avx2_common.h. */
#ifndef RP_X86_LIGHT_AVX2_H
#define RP_X86_LIGHT_AVX2_H

#include "look/light_simd.h"

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
