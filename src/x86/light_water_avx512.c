/* light_water_avx512.c - look water's kernel (look/light_water_body.h) at 16 pixels a vector:
 * the same steps as the AVX2 kernel, byte for byte, on AVX-512F and BW. Comparisons give
 * lanes of all ones or zeros, as AVX2's do, so the body is the same text.
 *
 * light_water_avx512icl.c compiles this file again with RP_LIGHT_WATER_ICL defined (as
 * dav1d compiles its _tmpl.c files once per bit depth): the same kernel with AVX512VBMI,
 * whose byte permutes pick the bed's texels where all of a group's lie close together. */
#include "x86/light_water.h"

#include <string.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"
#include "x86/light_avx2.h"

#ifdef RP_LIGHT_WATER_ICL
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#else
#define AVX512 __attribute__((target("avx512f,avx512bw")))
#endif

INLINE AVX512 int none512(__m512i v)
{
    return _mm512_test_epi32_mask(v, v) == 0;
}

INLINE AVX512 __m512i cmpgt512(__m512i a, __m512i b)
{
    return _mm512_maskz_mov_epi32(_mm512_cmpgt_epi32_mask(a, b), _mm512_set1_epi32(-1));
}

INLINE AVX512 __m512i clamp512(__m512i v, __m512i lo, __m512i hi)
{
    return _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
}

/* floor(a * b / 2^32) for int32 lanes, b the same in every lane. */
INLINE AVX512 __m512i mulhi512(__m512i a, __m512i b)
{
    __m512i e = _mm512_mul_epi32(a, b);
    __m512i o = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), b);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(e, 32), o);
}

/* light.c's slope_q12, as light_avx2.h's slope_v at 16 lanes: clamp(floor(d * scale * mdiv / 2^32),
 * +-SLOPE_MAX), with d clamped to k->dlim. */
INLINE AVX512 __m512i slope512(__m512i d, const struct kslope *k)
{
    const __m512i dl = _mm512_set1_epi32(k->dlim), smax = _mm512_set1_epi32(RP_LIGHT_SLOPE_MAX);
    d = clamp512(d, _mm512_sub_epi32(_mm512_setzero_si512(), dl), dl);
    __m512i s = _mm512_add_epi32(_mm512_mullo_epi32(d, _mm512_set1_epi32(k->hi)),
                                 mulhi512(d, _mm512_set1_epi32(k->lo)));
    return clamp512(s, _mm512_sub_epi32(_mm512_setzero_si512(), smax), smax);
}

INLINE AVX512 __m512i loadh512(const int32_t *p)
{
    return _mm512_loadu_si512((const void *)p);
}

/* The R, G, B bytes of 16 pixels (32-bit lanes R, G, B, x) as 48 bytes (writes no further). */
INLINE AVX512 void store_rgb512(uint8_t *out, __m512i px)
{
    const __m512i pack3 = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
    const __m512i join = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15);
    __m512i v = _mm512_permutexvar_epi32(join, _mm512_shuffle_epi8(px, pack3));
    _mm512_mask_storeu_epi32((void *)out, 0x0FFF, v);
}

/* The 48 bytes of 16 RGB pixels as 32-bit lanes R, G, B, 0 (reads no further). */
INLINE AVX512 __m512i load_rgb512(const uint8_t *p)
{
    const __m512i spread =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
    const __m512i part = _mm512_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0, 6, 7, 8, 0, 9, 10, 11, 0);
    __m512i v = _mm512_maskz_loadu_epi32(0x0FFF, (const void *)p);
    return _mm512_shuffle_epi8(_mm512_permutexvar_epi32(part, v), spread);
}

#define VL 16
#define VI __m512i
#define VF __m512
#define TARGET AVX512
#ifdef RP_LIGHT_WATER_ICL
#define ROW_V rp_light_water_row_avx512icl
#else
#define ROW_V rp_light_water_row_avx512
#endif
#define VOP(op) _mm512_##op
#define VAND _mm512_and_si512
#define VOR _mm512_or_si512
#define VZERO _mm512_setzero_si512
#define VCMPGT cmpgt512
#define VBLENDV(a, b, m) _mm512_mask_blend_epi32(_mm512_test_epi32_mask((m), (m)), (a), (b))
#define VBLEND_ODD(e, o) _mm512_mask_blend_epi32(0xAAAA, (e), (o))
#define VGATHER(base, i, s) _mm512_i32gather_epi32((i), (const void *)(base), (s))
#define VPERM(t, i) _mm512_permutexvar_epi32((i), (t))
#define VSET1_64 _mm512_set1_epi64
#define VFIRST _mm512_cvtsi512_si32
#define VIOTA() _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define VSTORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VLOAD_U16(p) _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define vnone none512
#define vclamp clamp512
#define vslope slope512
#define vloadh loadh512
#define vload_rgb load_rgb512
#define vstore_rgb store_rgb512
#ifdef RP_LIGHT_WATER_ICL
#define VLOADU(p) _mm512_loadu_si512((const void *)(p))
/* bytes i (0..127) of lo then hi */
#define VPERMB(lo, i, hi) _mm512_permutex2var_epi8((lo), (i), (hi))
/* each lane's byte offset r (0..127) as the offsets of its four bytes, r..r + 3 */
#define VBYTES(r)                                                                                  \
    _mm512_add_epi32(                                                                              \
        _mm512_shuffle_epi8((r), _mm512_broadcast_i32x4(_mm_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8,   \
                                                                      8, 8, 8, 12, 12, 12, 12))),  \
        _mm512_set1_epi32(0x03020100))
#endif

#include "look/light_water_body.h"

#endif /* RP_HAVE_X86_KERNELS */
