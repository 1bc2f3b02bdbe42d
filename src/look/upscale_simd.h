/* upscale_simd.h - private to upscale.c and upscale_simd.c: the vector passes of
 * rp_upscale_rows(). Each computes exactly what upscale.c's plain loops compute, byte for
 * byte; the plain loops stay the reference and the fallback (other architectures and
 * compilers, -DRP_NO_SIMD, rp_simd_set(RP_SIMD_C)). */
#ifndef RP_UPSCALE_SIMD_H
#define RP_UPSCALE_SIMD_H

#include <stdint.h>

/** The column pass over cells 0..n-1: column[x] = sum over k < ny of src[k * stride + x] *
 * wy[k] in int32 (the plain loop's arithmetic; its sums fit, see upscale.c). Returns the
 * count done (a multiple of 8); the caller does the rest. */
typedef int (*rp_upscale_col_fn)(const int16_t *src, int stride, const int32_t *wy, int ny,
                                 int32_t *column, int n);

/** Cells past the grid that rp_upscale_rows keeps zero in the column for the row pass: the
 * span groups read up to 15 past their window (which ends inside the grid), the pair groups
 * 6 past it, and the row pass splits the column 16 cells at a time up to 6 past the grid. */
#define RP_UPSCALE_PAD 32

/** How a group of 8 outputs of the row pass reads its cells (rp_upscale_group). */
enum rp_upscale_kind {
    /* 16-bit halves of the cells, two taps per multiply (_mm256_madd_epi16), the cells
     * picked by a byte shuffle inside each 128-bit lane: pairs of taps (w[k], w[k + 1]) as
     * int16, negated; each half of the group reads 8 cells from base (low half) or base + hi
     * (high half) per pair of taps. Set-up chooses it only where it is exact (upscale.c). */
    RP_UPSCALE_PAIRS,
    /* int32 cells, one tap per multiply in int64 lanes, weights w[k * 8 + x % 8]; the 8
     * outputs read cells base + rel[] + k with rel[] < 8, < 16, or any (gathered). */
    RP_UPSCALE_SPAN8,
    RP_UPSCALE_SPAN16,
    RP_UPSCALE_SPANWIDE,
};

/** One group of 8 outputs, built once at set-up so the row loop does no per-group arithmetic.
 * Output x % 8 of the group reads the cells base + rel[x % 8] + k, k below the group's
 * widest run of taps (zero weights pad each output's own run), weighted by the group's
 * weights from w + woff (layout by kind). n: taps per output, or pairs of taps for
 * RP_UPSCALE_PAIRS (whose fields are base, hi, pick and n). */
typedef struct rp_upscale_group {
    int32_t rel[8];
    uint8_t pick[32]; /* RP_UPSCALE_PAIRS: the byte shuffle, per 128-bit lane */
    int32_t base, hi, n, kind, woff;
} rp_upscale_group;

/** The row pass over outputs 0..n-1 in groups of 8: output x sums its taps'
 * column[cell] * weight in int64 (exactly: see rp_upscale_group), then rounds Q30 to Q8
 * ((acc + 2^21) >> 22). column has gw + RP_UPSCALE_PAD cells, those past the grid zero;
 * scratch has room for 2 * (gw + RP_UPSCALE_PAD) int16_t. Returns the count done (a
 * multiple of 8). */
typedef int (*rp_upscale_row_fn)(const int32_t *column, int gw, const rp_upscale_group *groups,
                                 const int32_t *w, int32_t *dst, int n, int16_t *scratch);

/* The upscale's table of vector kernels (see base/cpu.h). */
typedef struct rp_upscale_dsp {
    rp_upscale_col_fn col;
    rp_upscale_row_fn row; /* used where set-up built the groups */
} rp_upscale_dsp;

/** The table for the level in effect, or for a given level (tests). */
const rp_upscale_dsp *rp_upscale_dsp_get(void);
const rp_upscale_dsp *rp_upscale_dsp_level(int level);

/** Fill the x86 entries for a level (src/x86/upscale_simd.c). */
void rp_upscale_dsp_init_x86(rp_upscale_dsp *c, int level);

#endif
