/* pngfilter.c - the Paeth filter of PNG rows (see pngfilter.h). */
#include "output/pngfilter.h"

#include <stdlib.h>

#include "base/cpu.h"
#include "output/pngfilter_simd.h"

/* The specification's PaethPredictor: the one of a (left), b (above), c (above left)
 * closest to a + b - c, ties going to a, then b. */
static inline int paeth(int a, int b, int c)
{
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

RP_DSP_TABLES(png)

void rp_png_paeth_row_dsp(const rp_png_dsp *dsp, uint8_t *out, const uint8_t *cur,
                          const uint8_t *prev, size_t n, int bpp)
{
    size_t i = 0, first = (size_t)bpp < n ? (size_t)bpp : n;

    /* The first pixel has no left neighbour: a = c = 0, so the predictor is b. */
    for (; i < first; i++)
        out[i] = (uint8_t)(cur[i] - paeth(0, prev[i], 0));
    if (dsp->paeth)
        i = dsp->paeth(out, cur, prev, n, bpp, i);
    for (; i < n; i++)
        out[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
}

void rp_png_paeth_row(uint8_t *out, const uint8_t *cur, const uint8_t *prev, size_t n, int bpp)
{
    rp_png_paeth_row_dsp(rp_png_dsp_get(), out, cur, prev, n, bpp);
}
