/* water_simd.c - WebAssembly SIMD128 kernels of the step's interior loop (step_span in
 * water.c) and of the viscosity pass (viscosity_rows), exact to the last bit: the step is
 * sim/water_simd_body.h, the same template as the x86 kernels', over 128-bit vectors of 8
 * cells. Put in the step's table (water_simd.h) at level 1, the 128-bit level, by
 * rp_water_dsp_init_wasm(); built only in the playground's wasm32 build (make web), where
 * this file alone is compiled with -msimd128, and a no-op everywhere else. */
#include "base/cpu.h"
#include "sim/water_simd.h"

#include <string.h>

#ifdef RP_HAVE_WASM_KERNELS
#ifndef __wasm_simd128__
#error "src/wasm/ is compiled with -msimd128 (the Makefile's web rules)"
#endif
#include <wasm_simd128.h>

/* The unsigned high halves of the 16 x 16-bit products (SSE2's pmulhuw): WebAssembly has
 * the widening products, whose odd 16-bit halves are the high ones. */
static inline v128_t mulhu16_wasm(v128_t a, v128_t b)
{
    v128_t lo = wasm_u32x4_extmul_low_u16x8(a, b), hi = wasm_u32x4_extmul_high_u16x8(a, b);
    return wasm_i16x8_shuffle(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
}

/* The largest of the 8 signed int16 lanes. */
static inline int hmax16_wasm(v128_t v)
{
    v = wasm_i16x8_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = wasm_i16x8_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    v = wasm_i16x8_max(v, wasm_i16x8_shuffle(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
    return wasm_i16x8_extract_lane(v, 0);
}

/* The template's parameters (see sim/water_simd_body.h and the SSE2 set in
 * src/x86/water_simd.c, whose meaning each one has). Shift counts are ints: WebAssembly
 * shifts take the count modulo the lane's width, so the int16 shift by 16..30 (the damping's
 * shift, which fills with the sign in psraw) is made a shift by 15, which fills the same;
 * the int32 shifts' counts (1..31) need nothing. */
#define ATTR
#define SFX(name) name##_wasm
#define VW 8
#define V v128_t
#define LD(p) wasm_v128_load(p)
#define ST(p, v) wasm_v128_store((p), (v))
#define SET1_32 wasm_i32x4_splat
#define UNLO(a, b) wasm_i16x8_shuffle((a), (b), 0, 8, 1, 9, 2, 10, 3, 11)
#define UNHI(a, b) wasm_i16x8_shuffle((a), (b), 4, 12, 5, 13, 6, 14, 7, 15)
#define MADD wasm_i32x4_dot_i16x8
#define ADD wasm_i32x4_add
#define SUB wasm_i32x4_sub
#define AND wasm_v128_and
#define SRAI wasm_i32x4_shr
#define SRA wasm_i32x4_shr
#define SRAI16 wasm_i16x8_shr
#define CMPGT wasm_i32x4_gt
#define MULHU16 mulhu16_wasm
#define PACKS wasm_i16x8_narrow_i32x4
#define SET1_16 wasm_i16x8_splat
#define ADD16 wasm_i16x8_add
#define SUB16 wasm_i16x8_sub
#define SRA16(n, c) wasm_i16x8_shr((n), (c) > 15 ? 15 : (c))
#define SLLI16 wasm_i16x8_shl
#define MULLO16 wasm_i16x8_mul
#define MAX16 wasm_i16x8_max
#define MIN16 wasm_i16x8_min
/* No sign-apply instruction: |n| and back with s = n >> 31 (n >> 15), as SSE2 does it. */
#define SIGNOF(n) wasm_i32x4_shr((n), 31)
#define ABS(n, s) wasm_i32x4_abs(n)
#define APPLY_SIGN(t, s) wasm_i32x4_sub(wasm_v128_xor((t), (s)), (s))
#define SIGNOF16(n) wasm_i16x8_shr((n), 15)
#define ABS16(n, s) wasm_i16x8_abs(n)
#define APPLY_SIGN16(t, s) wasm_i16x8_sub(wasm_v128_xor((t), (s)), (s))
#define TAIL(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag) 0
#define XOR wasm_v128_xor
#define HMAX16 hmax16_wasm
#define CNT int
#define MKCNT(shift) (shift)
#include "sim/water_simd_body.h"

/* The viscosity pass (rp_visc_fn), 8 cells a loop in two vectors of int32 lanes, split as
 * src/x86/water_simd.c's visc_avx2 splits it: lap = lh * 512 + ll (0 <= ll < 512), A = lh v,
 * B = ll v + 2^15, floor((512 A + B) / 2^16) = (A + (B >> 9)) >> 7, every term within
 * int32; the saturating narrow changes nothing (the result is a convex mix of int16s). */
static inline v128_t visc4_wasm(v128_t c, v128_t s, v128_t vv)
{
    v128_t lap = wasm_i32x4_sub(s, wasm_i32x4_shl(c, 2));
    v128_t lh = wasm_i32x4_shr(lap, 9), ll = wasm_v128_and(lap, wasm_i32x4_splat(511));
    v128_t b = wasm_i32x4_shr(wasm_i32x4_add(wasm_i32x4_mul(ll, vv), wasm_i32x4_splat(32768)), 9);
    v128_t t = wasm_i32x4_shr(wasm_i32x4_add(wasm_i32x4_mul(lh, vv), b), 7);
    return wasm_i32x4_add(c, t);
}

static int visc_wasm(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out, int n,
                     int32_t v)
{
    const v128_t vv = wasm_i32x4_splat(v);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v128_t c = wasm_v128_load(m + i), ml = wasm_v128_load(m + i - 1);
        v128_t mr = wasm_v128_load(m + i + 1), uc = wasm_v128_load(u + i);
        v128_t dc = wasm_v128_load(d + i);
        v128_t s_lo = wasm_i32x4_add(
            wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(uc), wasm_i32x4_extend_low_i16x8(dc)),
            wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(ml), wasm_i32x4_extend_low_i16x8(mr)));
        v128_t s_hi = wasm_i32x4_add(
            wasm_i32x4_add(wasm_i32x4_extend_high_i16x8(uc), wasm_i32x4_extend_high_i16x8(dc)),
            wasm_i32x4_add(wasm_i32x4_extend_high_i16x8(ml), wasm_i32x4_extend_high_i16x8(mr)));
        v128_t lo = visc4_wasm(wasm_i32x4_extend_low_i16x8(c), s_lo, vv);
        v128_t hi = visc4_wasm(wasm_i32x4_extend_high_i16x8(c), s_hi, vv);
        wasm_v128_store(out + i, wasm_i16x8_narrow_i32x4(lo, hi));
    }
    return i;
}

#endif /* RP_HAVE_WASM_KERNELS */

void rp_water_dsp_init_wasm(rp_water_dsp *c, int level)
{
#ifdef RP_HAVE_WASM_KERNELS
    if (level >= RP_SIMD_128) {
        fill_wasm(c);
        c->viscosity = visc_wasm;
    }
#else
    (void)c;
    (void)level;
#endif
}
