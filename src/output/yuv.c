/* yuv.c - RGB24 to Y'CbCr, BT.601 or BT.709, limited range (see yuv.h for the formulas).
 *
 * The plain C loops are the reference and the fallback; the AVX2 kernels of the module's
 * table (yuv_simd.h, base/cpu.h) do 16 pixels at a time and compute exactly the same
 * integers. */
#include "output/yuv.h"

#include "base/cpu.h"
#include "output/yuv_simd.h"

/* One row per output component (kept by hand: clang-format would put one per line). In
 * each, the Y row sums to 28142 = round(219/255 * 2^15), the Cb and Cr rows to 0, and
 * UB = VR = round(224/255 / 2 * 2^15); BT.709's from Kr = 0.2126, Kb = 0.0722. */
/* clang-format off */
const rp_yuv_matrix rp_yuv_bt601 = {{8415, 16519, 3208}, {-4857, -9535, 14392},
                                    {14392, -12052, -2340}};
const rp_yuv_matrix rp_yuv_bt709 = {{5983, 20127, 2032}, {-3298, -11094, 14392},
                                    {14392, -13072, -1320}};
/* clang-format on */

static inline uint8_t luma(const rp_yuv_matrix *m, int r, int g, int b)
{
    return (uint8_t)((m->y[0] * r + m->y[1] * g + m->y[2] * b + RP_YUV_Y_ADD) >> 15);
}

/* Cb and Cr of one pixel (shift 15) or of the sums over a 2x2 block (shift 17). The sum
 * plus the offset is positive, so the shift is a floor division. */
static inline uint8_t chroma(const int c[3], int r, int g, int b, int add, int shift)
{
    return (uint8_t)((c[0] * r + c[1] * g + c[2] * b + add) >> shift);
}

RP_DSP_TABLES(yuv)

void rp_yuv420_rows(const uint8_t *rgb, int width, uint8_t *const dst[3], const int stride[3],
                    int y0, int y1)
{
    rp_yuv420_rows_m(&rp_yuv_bt601, rgb, width, dst, stride, y0, y1);
}

void rp_yuv444_rows(const uint8_t *rgb, int width, uint8_t *const dst[3], const int stride[3],
                    int y0, int y1)
{
    rp_yuv444_rows_m(&rp_yuv_bt601, rgb, width, dst, stride, y0, y1);
}

void rp_yuv420_rows_m(const rp_yuv_matrix *m, const uint8_t *rgb, int width, uint8_t *const dst[3],
                      const int stride[3], int y0, int y1)
{
    size_t row = (size_t)width * 3;
    rp_yuv420_pair_fn kernel = rp_yuv_dsp_get()->yuv420_pair;

    for (int y = y0; y + 1 < y1; y += 2) {
        const uint8_t *a = rgb + (size_t)y * row, *b = a + row;
        uint8_t *ya = dst[0] + (size_t)y * (size_t)stride[0], *yb = ya + stride[0];
        uint8_t *u = dst[1] + (size_t)(y / 2) * (size_t)stride[1];
        uint8_t *v = dst[2] + (size_t)(y / 2) * (size_t)stride[2];
        int x = 0;

        if (kernel)
            x = kernel(m, a, b, width, ya, yb, u, v);
        for (; x + 1 < width; x += 2) {
            const uint8_t *p = a + 3 * x, *q = b + 3 * x;
            int r = p[0] + p[3] + q[0] + q[3];
            int g = p[1] + p[4] + q[1] + q[4];
            int bl = p[2] + p[5] + q[2] + q[5];

            ya[x] = luma(m, p[0], p[1], p[2]);
            ya[x + 1] = luma(m, p[3], p[4], p[5]);
            yb[x] = luma(m, q[0], q[1], q[2]);
            yb[x + 1] = luma(m, q[3], q[4], q[5]);
            u[x / 2] = chroma(m->u, r, g, bl, RP_YUV_C420_ADD, 17);
            v[x / 2] = chroma(m->v, r, g, bl, RP_YUV_C420_ADD, 17);
        }
    }
}

void rp_yuv444_rows_m(const rp_yuv_matrix *m, const uint8_t *rgb, int width, uint8_t *const dst[3],
                      const int stride[3], int y0, int y1)
{
    size_t row = (size_t)width * 3;
    rp_yuv444_row_fn kernel = rp_yuv_dsp_get()->yuv444_row;

    for (int y = y0; y < y1; y++) {
        const uint8_t *a = rgb + (size_t)y * row;
        uint8_t *py = dst[0] + (size_t)y * (size_t)stride[0];
        uint8_t *pu = dst[1] + (size_t)y * (size_t)stride[1];
        uint8_t *pv = dst[2] + (size_t)y * (size_t)stride[2];
        int x = 0;

        if (kernel)
            x = kernel(m, a, width, py, pu, pv);
        for (; x < width; x++) {
            const uint8_t *p = a + 3 * x;

            py[x] = luma(m, p[0], p[1], p[2]);
            pu[x] = chroma(m->u, p[0], p[1], p[2], RP_YUV_C_ADD, 15);
            pv[x] = chroma(m->v, p[0], p[1], p[2], RP_YUV_C_ADD, 15);
        }
    }
}
