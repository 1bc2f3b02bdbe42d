/* light_water.c - look water's WebAssembly SIMD128 kernel: look/light_water_body.h, the
 * same template as the AVX2 and AVX-512 kernels', at 4 pixels a vector, through
 * look/light_water_rows.c's copies of the rows past the frame and its check of whether it
 * is exact for a band of rows. Put in the light's table at level 1, the 128-bit level, by
 * rp_light_water_dsp_init_wasm(); built only in the playground's wasm32 build (make web),
 * where src/wasm/ alone is compiled with -msimd128, and a no-op everywhere else.
 *
 * SIMD128 has what the template asks of AVX2 but the gathers: a gather here is four scalar
 * loads put in a vector. The 64-bit products are the widening multiplies of lanes 0 and 2,
 * as pmuldq / pmuludq take them. */
#include <string.h>

#include "base/cpu.h"
#include "look/light_simd.h"

#ifdef RP_HAVE_WASM_KERNELS
#ifndef __wasm_simd128__
#error "src/wasm/ is compiled with -msimd128 (the Makefile's web rules)"
#endif
#include <wasm_simd128.h>

#define INLINE static inline __attribute__((always_inline))

/* The template's operations (see look/light_water_body.h), each with the meaning of the
 * x86 instruction it is named after. Shift counts are below the lane's width throughout
 * the template, where WebAssembly's (taken modulo the width) and x86's agree. */
#define w_set1_epi32 wasm_i32x4_splat
#define w_add_epi32 wasm_i32x4_add
#define w_sub_epi32 wasm_i32x4_sub
#define w_mullo_epi32 wasm_i32x4_mul
#define w_srli_epi32 wasm_u32x4_shr
#define w_srai_epi32 wasm_i32x4_shr
#define w_slli_epi32 wasm_i32x4_shl
#define w_max_epi32 wasm_i32x4_max
#define w_min_epi32 wasm_i32x4_min
#define w_abs_epi32 wasm_i32x4_abs
#define w_srli_epi64 wasm_u64x2_shr
#define w_slli_epi64 wasm_i64x2_shl
#define w_add_epi64 wasm_i64x2_add
#define w_div_ps wasm_f32x4_div
#define w_mul_ps wasm_f32x4_mul
#define w_set1_ps wasm_f32x4_splat
#define w_cvtepi32_ps wasm_f32x4_convert_i32x4
#define w_cvttps_epi32 wasm_i32x4_trunc_sat_f32x4

/* The 64-bit products of lanes 0 and 2 (pmuldq, pmuludq). */
INLINE v128_t w_mul_epi32(v128_t a, v128_t b)
{
    return wasm_i64x2_extmul_low_i32x4(wasm_i32x4_shuffle(a, a, 0, 2, 0, 2),
                                       wasm_i32x4_shuffle(b, b, 0, 2, 0, 2));
}
INLINE v128_t w_mul_epu32(v128_t a, v128_t b)
{
    return wasm_u64x2_extmul_low_u32x4(wasm_i32x4_shuffle(a, a, 0, 2, 0, 2),
                                       wasm_i32x4_shuffle(b, b, 0, 2, 0, 2));
}
/* Lanes 4 bytes each at base + i * scale bytes (any alignment). */
INLINE v128_t w_gather(const int *base, v128_t i, int scale)
{
    const char *b = (const char *)(const void *)base;
    int32_t v[4];
    memcpy(&v[0], b + (ptrdiff_t)wasm_i32x4_extract_lane(i, 0) * scale, 4);
    memcpy(&v[1], b + (ptrdiff_t)wasm_i32x4_extract_lane(i, 1) * scale, 4);
    memcpy(&v[2], b + (ptrdiff_t)wasm_i32x4_extract_lane(i, 2) * scale, 4);
    memcpy(&v[3], b + (ptrdiff_t)wasm_i32x4_extract_lane(i, 3) * scale, 4);
    return wasm_i32x4_make(v[0], v[1], v[2], v[3]);
}

/* Lane i (0..3) of t in every lane: its four bytes picked by a byte shuffle. */
INLINE v128_t w_perm(v128_t t, v128_t i)
{
    v128_t bytes = wasm_i32x4_add(wasm_i32x4_mul(i, wasm_i32x4_splat(0x04040404)),
                                  wasm_i32x4_splat(0x03020100));
    return wasm_i8x16_swizzle(t, bytes);
}

INLINE int w_none(v128_t v)
{
    return !wasm_v128_any_true(v);
}

INLINE v128_t w_clamp(v128_t v, v128_t lo, v128_t hi)
{
    return wasm_i32x4_min(wasm_i32x4_max(v, lo), hi);
}

/* floor(a * b / 2^32) of int32 lanes: the high halves of the 64-bit products. */
INLINE v128_t w_mulhi32(v128_t a, v128_t b)
{
    v128_t lo = wasm_i64x2_extmul_low_i32x4(a, b), hi = wasm_i64x2_extmul_high_i32x4(a, b);
    return wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7);
}

/* light.c's slope_q12, as light_avx2.h's slope_v at 4 lanes. */
INLINE v128_t w_slope(v128_t d, const struct kslope *k)
{
    const v128_t dl = wasm_i32x4_splat(k->dlim), smax = wasm_i32x4_splat(RP_LIGHT_SLOPE_MAX);
    d = w_clamp(d, wasm_i32x4_neg(dl), dl);
    v128_t s = wasm_i32x4_add(wasm_i32x4_mul(d, wasm_i32x4_splat(k->hi)),
                              w_mulhi32(d, wasm_i32x4_splat(k->lo)));
    return w_clamp(s, wasm_i32x4_neg(smax), smax);
}

INLINE v128_t w_loadh(const int32_t *p)
{
    return wasm_v128_load(p);
}

/* The 12 bytes of 4 RGB pixels as 32-bit lanes R, G, B, 0 (reads no further). */
INLINE v128_t w_load_rgb(const uint8_t *p)
{
    v128_t v = wasm_v128_load32_lane(p + 8, wasm_v128_load64_zero(p), 2);
    return wasm_i8x16_swizzle(
        v, wasm_i8x16_make(0, 1, 2, 16, 3, 4, 5, 16, 6, 7, 8, 16, 9, 10, 11, 16));
}

/* The R, G, B bytes of 4 pixels (32-bit lanes R, G, B, x) as 12 bytes (writes no further). */
INLINE void w_store_rgb(uint8_t *out, v128_t px)
{
    v128_t v = wasm_i8x16_swizzle(
        px, wasm_i8x16_make(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 16, 16, 16));
    wasm_v128_store64_lane(out, v, 0);
    wasm_v128_store32_lane(out + 8, v, 2);
}

#define VL 4
#define VI v128_t
#define VF v128_t
#define TARGET
#define ROW_V water_row_wasm
#define VOP(op) w_##op
#define VAND wasm_v128_and
#define VOR wasm_v128_or
#define VZERO() wasm_i32x4_splat(0)
#define VCMPGT wasm_i32x4_gt
#define VBLENDV(a, b, m) wasm_v128_bitselect((b), (a), (m))
#define VBLEND_ODD(e, o) wasm_i32x4_shuffle((e), (o), 0, 5, 2, 7)
#define VGATHER w_gather
#define VPERM w_perm
#define VSET1_64 wasm_i64x2_splat
#define VFIRST(v) wasm_i32x4_extract_lane((v), 0)
#define VIOTA() wasm_i32x4_make(0, 1, 2, 3)
#define VSTORE(p, v) wasm_v128_store((p), (v))
#define VLOAD_U16(p) wasm_u32x4_load16x4(p)
#define vnone w_none
#define vclamp w_clamp
#define vslope w_slope
#define vloadh w_loadh
#define vload_rgb w_load_rgb
#define vstore_rgb w_store_rgb

/* The row kernel, static here (ROW_V is declared for the template's TARGET int ROW_V(...)). */
static int water_row_wasm(const rp_light *l, const struct rp_light_frame *f,
                          const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                          uint8_t *out, int rgba);

#include "look/light_water_body.h"

static int water_row(const rp_light *l, const struct rp_light_frame *f,
                     const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                     uint8_t *out, int rgba)
{
    return rp_light_water_row_by(water_row_wasm, l, f, r, x0, x1, bg, out, rgba);
}

/* Every height of n within +-RP_LIGHT_SIMD_HMAX. */
static int heights_ok(const int32_t *p, size_t n)
{
    const v128_t hmax = wasm_i32x4_splat(RP_LIGHT_SIMD_HMAX), zero = wasm_i32x4_splat(0);
    v128_t out = zero;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_i32x4_abs(wasm_v128_load(p + i)); /* INT32_MIN stays negative */
        out = wasm_v128_or(out, wasm_v128_or(wasm_i32x4_gt(v, hmax), wasm_i32x4_gt(zero, v)));
    }
    for (; i < n; i++)
        if (p[i] < -RP_LIGHT_SIMD_HMAX || p[i] > RP_LIGHT_SIMD_HMAX)
            return 0;
    return w_none(out);
}

static int water_rows_ok(const rp_light *l, const struct rp_light_frame *f, const int32_t *heights,
                         int y0, int y1)
{
    return rp_light_water_rows_ok_by(heights_ok, l, f, heights, y0, y1);
}

#endif /* RP_HAVE_WASM_KERNELS */

void rp_light_water_dsp_init_wasm(rp_light_dsp *c, int level)
{
#ifdef RP_HAVE_WASM_KERNELS
    if (level >= RP_SIMD_128) {
        c->water_row = water_row;
        c->water_rows_ok = water_rows_ok;
    }
#else
    (void)c;
    (void)level;
#endif
}
