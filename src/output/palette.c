/* palette.c - median cut and ordered dither (palette.h). */
#include "output/palette.h"

#include <stdlib.h>
#include <string.h>

typedef struct bin {
    uint16_t c; /* r << 10 | g << 5 | b, 5 bits each */
    uint32_t n;
} bin;

static int chan(uint16_t c, int axis)
{
    return (c >> (10 - 5 * axis)) & 31;
}

/* By the axis, then by the whole colour: a total order, so the sort's result is unique. */
static int by_axis(const void *a, const void *b, void *axis)
{
    const bin *x = a, *y = b;
    int ax = *(const int *)axis;
    int d = chan(x->c, ax) - chan(y->c, ax);
    return d ? d : (int)x->c - (int)y->c;
}

typedef struct box {
    int lo, hi; /* bins [lo, hi) */
    uint64_t count;
    int axis, range; /* the longest side */
} box;

static void measure(box *bx, const bin *bins)
{
    int mn[3] = {31, 31, 31}, mx[3] = {0, 0, 0};
    bx->count = 0;
    for (int i = bx->lo; i < bx->hi; i++) {
        bx->count += bins[i].n;
        for (int a = 0; a < 3; a++) {
            int v = chan(bins[i].c, a);
            mn[a] = v < mn[a] ? v : mn[a];
            mx[a] = v > mx[a] ? v : mx[a];
        }
    }
    bx->axis = 0;
    bx->range = -1;
    for (int a = 0; a < 3; a++)
        if (mx[a] - mn[a] > bx->range) {
            bx->range = mx[a] - mn[a];
            bx->axis = a;
        }
}

int rp_palette_build(rp_palette *p, const uint8_t *const *frames, int nframes, int w, int h)
{
    uint32_t *hist = calloc(1 << 15, sizeof *hist);
    bin *bins = malloc((1 << 15) * sizeof *bins);
    box boxes[256];
    if (!hist || !bins) {
        free(hist);
        free(bins);
        return -1;
    }
    for (int f = 0; f < nframes; f++)
        for (size_t i = 0; i < (size_t)w * h; i++) {
            const uint8_t *q = frames[f] + 3 * i;
            hist[(q[0] >> 3) << 10 | (q[1] >> 3) << 5 | q[2] >> 3]++;
        }
    int nb = 0;
    for (int c = 0; c < 1 << 15; c++)
        if (hist[c])
            bins[nb++] = (bin){(uint16_t)c, hist[c]};
    int nbox = 1;
    boxes[0] = (box){0, nb, 0, 0, 0};
    measure(&boxes[0], bins);
    while (nbox < 256) {
        /* the box whose pixels times its longest side is largest: a few pixels of a
         * colour far from the rest (grey walls in blue water) still get their own */
        int best = -1;
        uint64_t top = 0;
        for (int i = 0; i < nbox; i++) {
            uint64_t pri = boxes[i].count * (uint64_t)boxes[i].range * boxes[i].range;
            if (boxes[i].hi - boxes[i].lo > 1 && boxes[i].range > 0 && (best < 0 || pri > top)) {
                best = i;
                top = pri;
            }
        }
        if (best < 0)
            break;
        box *bx = &boxes[best];
        qsort_r(bins + bx->lo, (size_t)(bx->hi - bx->lo), sizeof *bins, by_axis, &bx->axis);
        uint64_t half = bx->count / 2, acc = 0;
        int mid = bx->lo;
        while (mid < bx->hi - 1 && acc + bins[mid].n <= half)
            acc += bins[mid++].n;
        if (mid == bx->lo)
            mid++;
        boxes[nbox] = (box){mid, bx->hi, 0, 0, 0};
        bx->hi = mid;
        measure(bx, bins);
        measure(&boxes[nbox++], bins);
    }
    p->n = nb ? nbox : 1;
    for (int i = 0; i < p->n; i++) {
        uint64_t s[3] = {0, 0, 0}, n = 0;
        for (int j = boxes[i].lo; j < boxes[i].hi; j++)
            for (int a = 0; a < 3; a++)
                s[a] += (uint64_t)bins[j].n * (uint64_t)(chan(bins[j].c, a) * 8 + 4);
        for (int j = boxes[i].lo; j < boxes[i].hi; j++)
            n += bins[j].n;
        uint32_t c = 0xff000000u;
        for (int a = 0; a < 3; a++)
            c |= (uint32_t)(n ? (s[a] + n / 2) / n : 0) << (16 - 8 * a);
        p->argb[i] = c;
    }
    for (int i = p->n; i < 256; i++)
        p->argb[i] = 0xff000000u;
    free(hist);
    free(bins);
    /* the nearest entry for every 5-bit colour (ties: the first) */
    for (int c = 0; c < 1 << 15; c++) {
        int r = chan((uint16_t)c, 0) * 8 + 4, g = chan((uint16_t)c, 1) * 8 + 4,
            b = chan((uint16_t)c, 2) * 8 + 4, bi = 0;
        int64_t bd = INT64_MAX;
        for (int i = 0; i < p->n; i++) {
            int dr = r - (int)((p->argb[i] >> 16) & 255), dg = g - (int)((p->argb[i] >> 8) & 255),
                db = b - (int)(p->argb[i] & 255);
            int64_t d = (int64_t)dr * dr + (int64_t)dg * dg + (int64_t)db * db;
            if (d < bd) {
                bd = d;
                bi = i;
            }
        }
        p->lut[c] = (uint8_t)bi;
    }
    return 0;
}

static const uint8_t bayer8[8][8] = {
    {0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26},
    {12, 44, 4, 36, 14, 46, 6, 38}, {60, 28, 52, 20, 62, 30, 54, 22},
    {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
    {15, 47, 7, 39, 13, 45, 5, 37}, {63, 31, 55, 23, 61, 29, 53, 21},
};

void rp_palette_map(const rp_palette *p, const uint8_t *rgb, int w, int h, uint8_t *out, int stride)
{
    for (int y = 0; y < h; y++) {
        const uint8_t *q = rgb + (size_t)y * w * 3;
        uint8_t *o = out + (size_t)y * stride;
        for (int x = 0; x < w; x++, q += 3) {
            /* a threshold of -4..+3.9 levels (a 5-bit step is 8) */
            int d = ((2 * bayer8[y & 7][x & 7] - 63) * 4) / 64, c = 0;
            for (int a = 0; a < 3; a++) {
                int v = q[a] + d;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                c = c << 5 | v >> 3;
            }
            o[x] = p->lut[c];
        }
    }
}
