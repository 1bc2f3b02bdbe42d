/* light_water_simd.c - look water's vector kernels in the light's table: the row kernels
 * (light_water_body.h, compiled at 8 pixels a vector for AVX2 and 16 for AVX-512), their
 * rows near the top and bottom (copies of the rows past the frame), and the check of
 * whether they are exact for a band of rows. There is no SSE2 kernel: without SSE4.1's
 * 32-bit multiplies and min/max and AVX2's gathers, emulating them would cost about what
 * the vectors save. Built with `target` attributes (no -m flags), like the layer's kernel
 * in light_simd.c. */
#include "x86/light_water.h"

#include <stdlib.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"

/* A row past the top or bottom, 2 edge - row, into tmp; 0 where a height passes
 * +-RP_LIGHT_SIMD_HMAX. */
static int odd_row(const int32_t *row, const int32_t *edge, int w, int32_t *tmp)
{
    for (int x = 0; x < w; x++) {
        int64_t v = 2 * (int64_t)edge[x] - row[x];
        if (v < -RP_LIGHT_SIMD_HMAX || v > RP_LIGHT_SIMD_HMAX)
            return 0;
        tmp[x] = (int32_t)v;
    }
    return 1;
}

typedef int (*row_fn)(const rp_light *l, const struct rp_light_frame *f,
                      const struct rp_light_wrows *r, int x0, const uint8_t *bg, uint8_t *out,
                      int rgba);

/* The row from x0 on by the row kernel rv. Rows within sy_step of the top or bottom read
 * rows past the frame: only those (u2, and u1 on row 0; d2, and d1 on the last row) are
 * copied as 2 edge - row, about 2 (sy_step + 1) rows a frame (rp_light_odd is linear, so the
 * copies' own continuation past the left and right ends is water_px's), or left to the plain
 * loop when a copy cannot be made or passes the kernel's bounds. */
static int water_row(row_fn rv, const rp_light *l, const struct rp_light_frame *f,
                     const struct rp_light_wrows *r, int x0, const uint8_t *bg, uint8_t *out,
                     int rgba)
{
    /* sy_step, fy_step >= 1: odd_u1 implies odd_u2 and odd_u3, odd_d1 odd_d2 and odd_d3 */
    if (!(r->odd_u2 | r->odd_d2 | r->odd_u3 | r->odd_d3))
        return rv(l, f, r, x0, bg, out, rgba);
    struct rp_light_wrows c = *r;
    const int32_t **rows[6] = {&c.u2, &c.u1, &c.u3, &c.d1, &c.d2, &c.d3};
    const int odd[6] = {r->odd_u2, r->odd_u1, r->odd_u3, r->odd_d1, r->odd_d2, r->odd_d3};
    const int w = f->w;
    int n = 0;
    for (int i = 0; i < 6; i++)
        n += odd[i];
    int32_t *tmp = malloc((size_t)w * n * sizeof *tmp), *t = tmp;
    if (!tmp)
        return x0;
    int ok = 1;
    for (int i = 0; i < 6 && ok; i++) {
        if (!odd[i])
            continue;
        ok = odd_row(*rows[i], i < 3 ? r->top : r->bottom, w, t);
        *rows[i] = t;
        t += w;
    }
    c.odd_u2 = c.odd_u1 = c.odd_d1 = c.odd_d2 = c.odd_u3 = c.odd_d3 = 0;
    int x = ok ? rv(l, f, &c, x0, bg, out, rgba) : x0;
    free(tmp);
    return x;
}

static int water_row_avx2(const rp_light *l, const struct rp_light_frame *f,
                          const struct rp_light_wrows *r, int x0, const uint8_t *bg, uint8_t *out,
                          int rgba)
{
    return water_row(rp_light_water_row_avx2, l, f, r, x0, bg, out, rgba);
}

/* Frames 8 to 15 pixels wide take the AVX2 kernel. */
static int water_row_avx512(const rp_light *l, const struct rp_light_frame *f,
                            const struct rp_light_wrows *r, int x0, const uint8_t *bg, uint8_t *out,
                            int rgba)
{
    return water_row(f->w < 16 ? rp_light_water_row_avx2 : rp_light_water_row_avx512, l, f, r, x0,
                     bg, out, rgba);
}

/* Every height of n within +-RP_LIGHT_SIMD_HMAX. */
static AVX2 int heights_ok(const int32_t *p, size_t n)
{
    const __m256i hmax = _mm256_set1_epi32(RP_LIGHT_SIMD_HMAX);
    __m256i out = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_abs_epi32(loadh(p + i)); /* INT32_MIN stays negative: caught below */
        out = _mm256_or_si256(out, _mm256_or_si256(_mm256_cmpgt_epi32(v, hmax),
                                                   _mm256_cmpgt_epi32(_mm256_setzero_si256(), v)));
    }
    for (; i < n; i++)
        if (p[i] < -RP_LIGHT_SIMD_HMAX || p[i] > RP_LIGHT_SIMD_HMAX)
            return 0;
    return none(out);
}

/* Whether the row kernels are exact for rows y0..y1-1 of this frame (frames 8 or more pixels
 * wide, y0 < y1): no sky image (the plain loop reflects it), a laplacian spacing within the
 * edge copies, the int32 bounds the kernel's steps rely on (each holds for every frame_init
 * and build_water gives today; checked, not assumed), and the heights it reads. */
static int water_rows_ok_avx2(const rp_light *l, const struct rp_light_frame *f,
                              const int32_t *heights, int y0, int y1)
{
    const int64_t b24 = (int64_t)1 << 24, b31 = (int64_t)1 << 31;
    if (f->sky || f->sx_step > EDGE_PAD || f->fx_step > EDGE_PAD)
        return 0;
    if (f->cxm < 0 || f->cxm >= b24 || f->cym < 0 || f->cym >= b24 || f->cxym < 0 ||
        f->cxym >= b24 || f->dx < 0 || f->dx >= b31 || f->dy < 0 || f->dy >= b31 ||
        (int64_t)f->w * f->h * 3 >= b31 - 64)
        return 0;
    if (l->caus_a < 0 || l->caus_a > b24 || l->glint_lim < 0 ||
        l->glint_lim > (int64_t)32767 * 32767 || l->glint_inv < 0 || l->glint_inv >= b31 * 256)
        return 0;
    if (f->peak > 0 && f->peak <= RP_LIGHT_SIMD_HMAX)
        return 1; /* the rows cannot hold a larger height */
    /* the rows y0 - reach .. y1 + reach - 1 hold every row these read, mirrored or not */
    int reach = f->sy_step > f->fy_step ? f->sy_step : f->fy_step;
    int ra = y0 - reach < 0 ? 0 : y0 - reach;
    int rb = y1 + reach > f->h ? f->h : y1 + reach;
    return heights_ok(heights + (size_t)ra * f->w, (size_t)(rb - ra) * f->w);
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_light_water_dsp_init_x86(rp_light_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->water_row = level >= RP_SIMD_AVX512 ? water_row_avx512 : water_row_avx2;
        c->water_rows_ok = water_rows_ok_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
