/* water_simd.c - SSE2, AVX2 and AVX-512 kernels of the step's interior loop (step_span in water.c),
 * exact to the last bit: see sim/water_simd_body.h for how the int32 arithmetic of the plain
 * loop is done in 16-bit vectors; and the AVX2 kernel of the viscosity pass (viscosity_rows,
 * also the AVX-512 level's). Put in the step's table (water_simd.h) by
 * rp_water_dsp_init_x86(); built with `target` attributes, so the library needs no -m flags. */
#include "base/cpu.h"
#include "sim/water_simd.h"

#include <string.h>

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

#ifdef RP_HAVE_X86_KERNELS

#define ATTR_AVX2 __attribute__((target("avx2")))

/* The largest of the 8 (16) signed int16 lanes. */
static inline __attribute__((always_inline, target("sse2"))) int hmax16_sse2(__m128i v)
{
    v = _mm_max_epi16(v, _mm_shuffle_epi32(v, 0x4e));
    v = _mm_max_epi16(v, _mm_shuffle_epi32(v, 0xb1));
    v = _mm_max_epi16(v, _mm_shufflelo_epi16(v, 0xb1));
    return (int16_t)_mm_cvtsi128_si32(v);
}

static inline __attribute__((always_inline)) ATTR_AVX2 int hmax16_avx2(__m256i v)
{
    return hmax16_sse2(_mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
}

/* Each width below defines the template's parameters (ATTR, SFX, VW, V, LD, ...) and includes
 * water_simd_body.h, which undefines them at its end. */

/* ---- SSE2, 8 cells per vector ------------------------------------------------------- */
#define ATTR __attribute__((target("sse2")))
#define SFX(name) name##_sse2
#define VW 8
#define V __m128i
#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define SET1_32 _mm_set1_epi32
#define UNLO _mm_unpacklo_epi16
#define UNHI _mm_unpackhi_epi16
#define MADD _mm_madd_epi16
#define ADD _mm_add_epi32
#define SUB _mm_sub_epi32
#define AND _mm_and_si128
#define SRAI _mm_srai_epi32
#define SRA _mm_sra_epi32
#define SRAI16 _mm_srai_epi16
#define CMPGT _mm_cmpgt_epi32
#define MULHU16 _mm_mulhi_epu16
#define PACKS _mm_packs_epi32
#define SET1_16 _mm_set1_epi16
#define ADD16 _mm_add_epi16
#define SUB16 _mm_sub_epi16
#define SRA16 _mm_sra_epi16
#define SLLI16 _mm_slli_epi16
#define MULLO16 _mm_mullo_epi16
#define MAX16 _mm_max_epi16
#define MIN16 _mm_min_epi16
/* SSE2 has no pabsd/psignd: |n| = (n ^ s) - s and back, with s = n >> 31. */
#define SIGNOF(n) _mm_srai_epi32((n), 31)
#define ABS(n, s) _mm_sub_epi32(_mm_xor_si128((n), (s)), (s))
#define APPLY_SIGN(t, s) _mm_sub_epi32(_mm_xor_si128((t), (s)), (s))
#define SIGNOF16(n) _mm_srai_epi16((n), 15)
#define ABS16(n, s) _mm_sub_epi16(_mm_xor_si128((n), (s)), (s))
#define APPLY_SIGN16(t, s) _mm_sub_epi16(_mm_xor_si128((t), (s)), (s))
#define TAIL(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag) 0
#define XOR _mm_xor_si128
#define HMAX16 hmax16_sse2
#define CNT __m128i
#define MKCNT(shift) _mm_cvtsi32_si128(shift)
#include "sim/water_simd_body.h"

/* ---- AVX2, 16 cells per vector; rows of 8 to 15 cells with the SSE2 loop ------------- */
#define ATTR ATTR_AVX2
#define SFX(name) name##_avx2
#define VW 16
#define V __m256i
#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define SET1_32 _mm256_set1_epi32
#define UNLO _mm256_unpacklo_epi16
#define UNHI _mm256_unpackhi_epi16
#define MADD _mm256_madd_epi16
#define ADD _mm256_add_epi32
#define SUB _mm256_sub_epi32
#define AND _mm256_and_si256
#define SRAI _mm256_srai_epi32
#define SRA _mm256_sra_epi32
#define SRAI16 _mm256_srai_epi16
#define CMPGT _mm256_cmpgt_epi32
#define MULHU16 _mm256_mulhi_epu16
#define PACKS _mm256_packs_epi32
#define SET1_16 _mm256_set1_epi16
#define ADD16 _mm256_add_epi16
#define SUB16 _mm256_sub_epi16
#define SRA16 _mm256_sra_epi16
#define SLLI16 _mm256_slli_epi16
#define MULLO16 _mm256_mullo_epi16
#define MAX16 _mm256_max_epi16
#define MIN16 _mm256_min_epi16
/* psignd takes the sign from n itself (and zeroes where n = 0, where t is 0 anyway). */
#define SIGNOF(n) (n)
#define ABS(n, s) _mm256_abs_epi32(n)
#define APPLY_SIGN(t, s) _mm256_sign_epi32((t), (s))
#define SIGNOF16(n) (n)
#define ABS16(n, s) _mm256_abs_epi16(n)
#define APPLY_SIGN16(t, s) _mm256_sign_epi16((t), (s))
/* Rows of 8 to 15 cells, too short for one 256-bit vector: the 128-bit kernel. */
#define TAIL(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag)                                   \
    span_sse2(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag)
#define XOR _mm256_xor_si256
#define HMAX16 hmax16_avx2
#define CNT __m128i
#define MKCNT(shift) _mm_cvtsi32_si128(shift)
#include "sim/water_simd_body.h"

/* ---- AVX-512 (F + BW), 32 cells per vector; shorter rows with the AVX2 or SSE2 loop --- */
#define ATTR_AVX512 __attribute__((target("avx512f,avx512bw")))

static inline __attribute__((always_inline)) ATTR_AVX512 int hmax16_avx512(__m512i v)
{
    return hmax16_avx2(
        _mm256_max_epi16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)));
}

/* A compare gives a mask register in AVX-512: made a vector of all-ones lanes again (the
 * body ANDs it with a value, which the compiler turns into a masked move). */
static inline __attribute__((always_inline)) ATTR_AVX512 __m512i cmpgt32_avx512(__m512i a,
                                                                                __m512i b)
{
    return _mm512_maskz_mov_epi32(_mm512_cmpgt_epi32_mask(a, b), _mm512_set1_epi32(-1));
}

#define ATTR ATTR_AVX512
#define SFX(name) name##_avx512
#define VW 32
#define V __m512i
#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST(p, v) _mm512_storeu_si512((void *)(p), (v))
#define SET1_32 _mm512_set1_epi32
#define UNLO _mm512_unpacklo_epi16
#define UNHI _mm512_unpackhi_epi16
#define MADD _mm512_madd_epi16
#define ADD _mm512_add_epi32
#define SUB _mm512_sub_epi32
#define AND _mm512_and_si512
#define SRAI _mm512_srai_epi32
#define SRA _mm512_sra_epi32
#define SRAI16 _mm512_srai_epi16
#define CMPGT cmpgt32_avx512
#define MULHU16 _mm512_mulhi_epu16
#define PACKS _mm512_packs_epi32
#define SET1_16 _mm512_set1_epi16
#define ADD16 _mm512_add_epi16
#define SUB16 _mm512_sub_epi16
#define SRA16 _mm512_sra_epi16
#define SLLI16 _mm512_slli_epi16
#define MULLO16 _mm512_mullo_epi16
#define MAX16 _mm512_max_epi16
#define MIN16 _mm512_min_epi16
/* No psignd in AVX-512: the sign is put back as in SSE2, with s = n >> 31 all ones where n
 * < 0; pabsd exists. */
#define SIGNOF(n) _mm512_srai_epi32((n), 31)
#define ABS(n, s) _mm512_abs_epi32(n)
#define APPLY_SIGN(t, s) _mm512_sub_epi32(_mm512_xor_si512((t), (s)), (s))
#define SIGNOF16(n) _mm512_srai_epi16((n), 15)
#define ABS16(n, s) _mm512_abs_epi16(n)
#define APPLY_SIGN16(t, s) _mm512_sub_epi16(_mm512_xor_si512((t), (s)), (s))
/* Rows of 8 to 31 cells, too short for one 512-bit vector: the 256-bit kernel from 16
 * cells, the 128-bit one below. */
#define TAIL(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag)                                   \
    ((n) >= 16 ? span_avx2(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag)                     \
               : span_sse2(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag))
#define XOR _mm512_xor_si512
#define HMAX16 hmax16_avx512
#define CNT __m128i
#define MKCNT(shift) _mm_cvtsi32_si128(shift)
#include "sim/water_simd_body.h"

/* The viscosity pass (rp_visc_fn), 8 cells a vector in int32 lanes. lap * v needs up to 33
 * bits (|lap| < 2^18, v <= 2^14), so lap is split as lh * 512 + ll (0 <= ll < 512): with A
 * = lh v and B = ll v + 2^15 >= 0, floor((512 A + B) / 2^16) = (A + (B >> 9)) >> 7, every
 * term within int32. The result is a convex mix of the cell and its neighbours (v <= 1/4),
 * so the saturating pack to int16 changes nothing. */
static inline __attribute__((always_inline)) ATTR_AVX2 __m256i wide16(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
}

static ATTR_AVX2 int visc_avx2(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out,
                               int n, int32_t v)
{
    const __m256i vv = _mm256_set1_epi32(v), half = _mm256_set1_epi32(32768),
                  lo9 = _mm256_set1_epi32(511);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i c = wide16(m + i);
        __m256i s = _mm256_add_epi32(_mm256_add_epi32(wide16(u + i), wide16(d + i)),
                                     _mm256_add_epi32(wide16(m + i - 1), wide16(m + i + 1)));
        __m256i lap = _mm256_sub_epi32(s, _mm256_slli_epi32(c, 2));
        __m256i lh = _mm256_srai_epi32(lap, 9), ll = _mm256_and_si256(lap, lo9);
        __m256i b = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(ll, vv), half), 9);
        __m256i t = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(lh, vv), b), 7);
        __m256i o = _mm256_add_epi32(c, t);
        _mm_storeu_si128(
            (__m128i *)(void *)(out + i),
            _mm_packs_epi32(_mm256_castsi256_si128(o), _mm256_extracti128_si256(o, 1)));
    }
    return i;
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_water_dsp_init_x86(rp_water_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2)
        c->viscosity = visc_avx2;
    if (level >= RP_SIMD_AVX512)
        fill_avx512(c);
    else if (level >= RP_SIMD_AVX2)
        fill_avx2(c);
    else if (level >= RP_SIMD_SSE2)
        fill_sse2(c);
#else
    (void)c;
    (void)level;
#endif
}
