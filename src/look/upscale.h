/* upscale.h - the simulation grid's heights resampled to the output size in fixed point
 * (rockpool(1), "grid"): a separable Catmull-Rom cubic, widened like an area filter when
 * the output is smaller than the grid. Integer-only, so every machine and thread count
 * gives the same heights.
 *
 * Geometry. Output pixel x (0..ow-1) looks at grid position
 *     u = (x + 0.5) * gw / ow - 0.5 = ((2x + 1) * gw - ow) / (2 * ow),
 * an exact rational (no stepping, so no drift); the same for rows. The kernel is
 * Catmull-Rom (cubic, a = -1/2): it passes through the grid values, so an output the
 * size of the grid is the grid itself, and its negative lobes (6% at most) keep ripple
 * crests sharp where a cubic B-spline would flatten them by a third. It has no stairs:
 * value and slope are continuous across cells. When ow < gw the kernel is stretched by
 * gw/ow (support 4 * gw/ow cells), so a smaller output averages rather than aliases.
 *
 * Edges: taps beyond the grid read the nearest edge cell (their weight joins that cell's).
 *
 * Weights are Q15 (32768 = 1.0), rounded so each output's taps sum to exactly 32768; the
 * column pass keeps Q15, the row pass rounds once to the output's Q format. */
#ifndef RP_UPSCALE_H
#define RP_UPSCALE_H

#include <stddef.h>
#include <stdint.h>

/** Output heights are Q8: 256 = one height unit of the grid (int16). */
#define RP_UPSCALE_Q 8
#define RP_UPSCALE_ONE (1 << RP_UPSCALE_Q)

typedef struct rp_upscale rp_upscale;

/** Weights for a gw x gh grid to an ow x oh output (each 1..RP_MAX_SIDE). Returns RP_OK,
 * RP_ERR_INVALID for a size out of range, RP_ERR_NOMEM. *out is NULL on failure. */
int rp_upscale_new(rp_upscale **out, int gw, int gh, int ow, int oh);

/** Free and null the handle; NULL is a no-op. */
void rp_upscale_free(rp_upscale **u);

/** Output rows y0..y1-1 (0 <= y0 <= y1 <= oh): out is the whole ow x oh Q8 frame
 * (int32, row-major), heights the whole gw x gh grid. Rows are independent: any split
 * over threads gives the same bytes. scratch is rp_upscale_scratch_bytes(u) bytes of the
 * calling thread's own (made once, before the frames: a render's threads each have
 * theirs); nothing is allocated.
 * Identity (ow == gw, oh == gh): out = heights * 256 exactly. */
void rp_upscale_rows_s(const rp_upscale *u, const int16_t *heights, int32_t *out, int y0, int y1,
                       void *scratch);

/** Whether output row y reads only grid rows that are 0: still[r] is 1 where grid row r
 * is all 0 (0: not known to be). Such a row of rp_upscale_rows_s is all 0. */
int rp_upscale_row_still(const rp_upscale *u, const uint8_t *still, int y);

/** The scratch one thread of rp_upscale_rows_s needs: a grid row's column sums and the
 * vector row pass's halves. */
size_t rp_upscale_scratch_bytes(const rp_upscale *u);

/** rp_upscale_rows_s with scratch of its own for the call (tests; a slower exact path when
 * that memory cannot be had). */
void rp_upscale_rows(const rp_upscale *u, const int16_t *heights, int32_t *out, int y0, int y1);

/** The largest |output height| (Q8) any grid can give with these weights: 32768 * 256
 * times the largest sums of |weight| of a row and of a column of taps (each at least 1,
 * about 1.25 at most for Catmull-Rom). */
int64_t rp_upscale_peak_q8(const rp_upscale *u);

/** Output pixels per grid cell along one axis, Q16, rounded: (out << 16) / grid. This is
 * the scale rp_light wants (rp_light_geom). */
int32_t rp_upscale_ratio_q16(int grid, int out);

#endif
