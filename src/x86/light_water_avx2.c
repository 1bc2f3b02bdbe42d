/* light_water_avx2.c - look water's kernel (look/light_water_body.h) at 8 pixels a vector. */
#include "x86/light_water.h"

#include <string.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"
#include "x86/light_avx2.h"

#define VL 8
#define VI __m256i
#define VF __m256
#define TARGET AVX2
#define ROW_V rp_light_water_row_avx2
#define VOP(op) _mm256_##op
#define VAND _mm256_and_si256
#define VOR _mm256_or_si256
#define VZERO _mm256_setzero_si256
#define VCMPGT _mm256_cmpgt_epi32
#define VBLENDV _mm256_blendv_epi8
#define VBLEND_ODD(e, o) _mm256_blend_epi32((e), (o), 0xAA)
#define VGATHER(base, i, s) _mm256_i32gather_epi32((base), (i), (s))
#define VPERM(t, i) _mm256_permutevar8x32_epi32((t), (i))
#define VSET1_64 _mm256_set1_epi64x
#define VFIRST _mm256_cvtsi256_si32
#define VIOTA() _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define VSTORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VLOAD_U16(p) _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define vnone none
#define vclamp clampv
#define vslope slope_v
#define vloadh loadh
#define vload_rgb load_rgb
#define vstore_rgb store_rgb

#include "look/light_water_body.h"

#endif /* RP_HAVE_X86_KERNELS */
