/* light_water_rows.c - what look water's vector kernels share on every architecture
 * (light_simd.h): the rows past the top and bottom copied for them, and the check of whether
 * they are exact for a band of rows. Plain C; the kernels themselves are
 * look/light_water_body.h, compiled in src/x86/ and src/wasm/. */
#include <stdlib.h>

#include "look/light_simd.h"

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

int rp_light_water_row_by(rp_light_water_fn rv, const rp_light *l, const struct rp_light_frame *f,
                          const struct rp_light_wrows *r, int x0, int x1, const uint8_t *bg,
                          uint8_t *out, int rgba)
{
    /* sy_step, fy_step >= 1: odd_u1 implies odd_u2 and odd_u3, odd_d1 odd_d2 and odd_d3 */
    if (!(r->odd_u2 | r->odd_d2 | r->odd_u3 | r->odd_d3))
        return rv(l, f, r, x0, x1, bg, out, rgba);
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
    int x = ok ? rv(l, f, &c, x0, x1, bg, out, rgba) : x0;
    free(tmp);
    return x;
}

int rp_light_water_rows_ok_by(int (*heights_ok)(const int32_t *p, size_t n), const rp_light *l,
                              const struct rp_light_frame *f, const int32_t *heights, int y0,
                              int y1)
{
    const int64_t b24 = (int64_t)1 << 24, b31 = (int64_t)1 << 31;
    if (f->sky || f->sx_step > RP_LIGHT_EDGE_PAD || f->fx_step > RP_LIGHT_EDGE_PAD)
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
