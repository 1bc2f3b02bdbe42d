/* yuv.h - RGB24 to Y'CbCr (BT.601, limited range) for the video and Y4M outputs.
 *
 * Integer arithmetic only, so a frame converts to the same bytes on every machine, at every
 * SIMD level (an AVX2 kernel is picked at run time; the plain C loop is the reference) and
 * for every split into row bands. With R, G, B in 0..255 and Q15 coefficients derived from
 * Kr = 0.299, Kb = 0.114 and the 219/224 level ranges:
 *
 *   Y  = (8415 R + 16519 G + 3208 B + (16 << 15) + (1 << 14)) >> 15
 *   Cb = (-4857 R - 9535 G + 14392 B + (128 << 15) + (1 << 14)) >> 15
 *   Cr = (14392 R - 12052 G - 2340 B + (128 << 15) + (1 << 14)) >> 15
 *
 * (black 16/128/128, white 235/128/128, red 81/90/240). For 4:2:0, Cb and Cr come from the
 * sums of R, G and B over each 2x2 block, with shift 17 and rounding 1 << 16: the average
 * of the block, centred between its four pixels. Every sample is within 0.5 + 1/64 of the
 * exact BT.601 value (rounding, plus the Q15 coefficients' error of under 0.01), and each
 * 4:4:4 sample within one level of libswscale's accurate conversion; test_yuv checks both. */
#ifndef RP_YUV_H
#define RP_YUV_H

#include <stdint.h>

/** A conversion's Q15 coefficients: Y, Cb and Cr each from R, G, B. */
typedef struct rp_yuv_matrix {
    int y[3], u[3], v[3];
} rp_yuv_matrix;

/** BT.601 (the formulas above) and BT.709 (Kr = 0.2126, Kb = 0.0722, the same ranges:
 * Y = (5983 R + 20127 G + 2032 B ...) >> 15, Cb = (-3298 R - 11094 G + 14392 B ...),
 * Cr = (14392 R - 13072 G - 1320 B ...), offsets and rounding as above). */
extern const rp_yuv_matrix rp_yuv_bt601, rp_yuv_bt709;

/** Convert rows y0..y1-1 of a width x height RGB24 frame (rows 3 * width bytes apart) to
 * 4:2:0 planes: dst[0] Y (full size), dst[1] Cb and dst[2] Cr (width/2 x height/2), with
 * strides stride[0..2]. width must be even, and y0 and y1 even (chroma row y/2 is made from
 * rows y and y+1). */
void rp_yuv420_rows(const uint8_t *rgb, int width, uint8_t *const dst[3], const int stride[3],
                    int y0, int y1);

/** The same for 4:4:4 planes (all three full size); any width, any rows. */
void rp_yuv444_rows(const uint8_t *rgb, int width, uint8_t *const dst[3], const int stride[3],
                    int y0, int y1);

/** rp_yuv420_rows and rp_yuv444_rows (which are BT.601) with the coefficients of m. */
void rp_yuv420_rows_m(const rp_yuv_matrix *m, const uint8_t *rgb, int width, uint8_t *const dst[3],
                      const int stride[3], int y0, int y1);
void rp_yuv444_rows_m(const rp_yuv_matrix *m, const uint8_t *rgb, int width, uint8_t *const dst[3],
                      const int stride[3], int y0, int y1);

#endif
