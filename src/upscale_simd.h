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

/** The row pass over outputs 0..n-1 in groups of 8: output x of group g = x / 8 sums
 * column[first[x] + k] * w[g * 8 * ntap + k * 8 + x % 8] over k < ntap in int64, then
 * rounds Q30 to Q8 ((acc + 2^21) >> 22). Returns the count done (a multiple of 8). */
typedef int (*rp_upscale_row_fn)(const int32_t *column, const int32_t *first, const int32_t *w,
                                 int ntap, int32_t *dst, int n);

/** The passes at a level (simd.h), or NULL. */
rp_upscale_col_fn rp_upscale_simd_col(int level);
rp_upscale_row_fn rp_upscale_simd_row(int level);

#endif
