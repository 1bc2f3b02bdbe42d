/* simd.h - private: the vector kernels of the step (water_simd.c) and the render
 * (render_simd.c), and the runtime CPU dispatch that picks them (simd.c). The RGB to YUV
 * converter (yuv.c) and the PNG row filter (pngfilter.c) keep their kernels to themselves
 * but follow the same level (rp_simd_level()), so rp_simd_set() caps them too.
 *
 * The library is built for the plain x86-64 baseline (no -march); kernels for SSE2, AVX2
 * and AVX-512 are compiled with gcc/clang `target` attributes and chosen at run time from what
 * the CPU supports. Every kernel computes exactly what the plain C loop next to its caller
 * computes, byte for byte; the plain C loops stay the reference and the fallback (other
 * architectures, other compilers, builds with -DRP_NO_SIMD, rp_simd_set(RP_SIMD_C)). */
#ifndef RP_SIMD_H
#define RP_SIMD_H

#include <stdint.h>

#include "look/render.h"
#include "sim/water.h"

/* Whether this build has the x86 kernels (compiled with `target` attributes). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) &&     \
    !defined(RP_NO_SIMD)
#define RP_HAVE_X86_KERNELS 1
#endif

enum rp_simd_level {
    RP_SIMD_C = 0,      /* plain C only */
    RP_SIMD_SSE2 = 1,   /* 128-bit kernels */
    RP_SIMD_AVX2 = 2,   /* 256-bit kernels (and the 128-bit ones for rows of 8-15 cells) */
    RP_SIMD_AVX512 = 3, /* AVX512F + AVX512BW: 512-bit step kernels (and the narrower ones
                         * for shorter rows); the render and the converters keep AVX2 */
    RP_SIMD_MAX = RP_SIMD_AVX512,
};

/** The best level this CPU (and this build) supports. */
int rp_simd_supported(void);

/** Cap the level the step and render use, process-wide, for tests and benchmarks:
 * RP_SIMD_C forces the plain C reference everywhere; a negative value removes the cap.
 * Returns the level now in effect (the cap, or less if the CPU lacks it). Call it between
 * steps and renders, not while one runs on another thread. Results never depend on it. */
int rp_simd_set(int level);

/** The level in effect: min(cap, rp_simd_supported()). */
int rp_simd_level(void);

/** A step kernel: for cells 0..k-1 of one row, out[i] = sat16(damp(S - out[i])), S the
 * stencil over u, m, d (the rows above, at and below; m[-1] and m[k] are read, and u[-1],
 * d[k] etc. for the 8-cell stencils). n is the row's cell count; k, the count done, is n,
 * or 0 for rows shorter than one vector (8 cells); the caller finishes cells k..n-1.
 *
 * Magnitudes: mag(v) = v ^ (v >> 15), i.e. v for v >= 0 and -1 - v below. in_mag must be
 * at least the largest mag of every cell the kernel reads (the three rows of cur and the
 * row of prev); when it is small the kernel takes an exact int16 path. *out_mag receives
 * the largest mag of the cells written (0 if none). */
typedef int (*rp_span_fn)(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out, int n,
                          int shift, int32_t q16, int in_mag, int *out_mag);

/** The kernel for this stencil and damping (q16 != 0: factor, else shift) at the given
 * level, or NULL when the level has none (the caller's plain C loop does everything). */
rp_span_fn rp_simd_span(int level, enum rp_stencil stencil, int shift, int32_t q16);

/** For tests: 1 if every per-row magnitude bound the step keeps for the kernels (see
 * water.c) holds for both buffers, else 0. */
int rp_water_bounds_hold(const rp_water *w);

/** Render kernels for one row y of a w x h frame over pixels x0..x1-1, which must all be
 * interior (1 <= x0, x1 <= w - 1) for offset; h is the height field's row y (offset also
 * reads rows y-1 and y+1, so 1 <= y <= h-2). Return the first pixel not done (x0 <= r <=
 * x1); the caller renders r..x1-1 itself. */
typedef int (*rp_offset_row_fn)(const rp_render_params *p, const int16_t *row, int w, int h, int y,
                                const uint8_t *tex, uint8_t *out, int x0, int x1);
typedef int (*rp_lens_row_fn)(const int16_t *row, int w, int h, int y, const uint8_t *tex,
                              uint8_t *out, int x0, int x1);

/** The render kernels at a level for these parameters, or NULL (plain C does the row). */
rp_offset_row_fn rp_simd_offset_row(int level, const rp_render_params *p);
rp_lens_row_fn rp_simd_lens_row(int level);

#endif
