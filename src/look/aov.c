/* aov.c - the surface's passes as 16-bit pictures (see aov.h). */
#include "look/aov.h"

#include "base/common.h"

void rp_aov_height(const int32_t *hq8, const int16_t *h, size_t n, uint16_t *out)
{
    for (size_t i = 0; i < n; i++) /* h + 32768, h rounded from Q8 when interpolated */
        out[i] =
            (uint16_t)(hq8 ? rp_clamp64(((hq8[i] + 128) >> 8) + 32768, 0, 65535) : h[i] + 32768);
}

/* round((v + 1) / 2 * 65535) for v = num / den, |num| <= den, den > 0. */
static uint16_t unit16(int64_t num, int64_t den)
{
    int64_t v = ((num + den) * 65535 + den) / (2 * den);
    return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

/* round(num / den * 65535), clamped to 0..65535; den > 0. */
static uint16_t frac16(int64_t num, int64_t den)
{
    int64_t v = (2 * num * 65535 + den) / (2 * den);
    if (num < 0)
        v = 0;
    return (uint16_t)(v > 65535 ? 65535 : v);
}

/* Rows y0..y1-1 of the passes from the surface band. */
static void surface_rows(const rp_light *l, const rp_light_geom *g, const int32_t *hq8,
                         const uint8_t *bg, rp_light_surface *band, uint16_t *nrm, uint16_t *st,
                         uint16_t *caus, int y0, int y1)
{
    const int ow = g->width, oh = g->height;
    const int64_t w256 = (int64_t)ow << 8, h256 = (int64_t)oh << 8;
    rp_light_rows_surface(l, g, hq8, band, y0, y1);
    for (int y = y0; y < y1; y++) {
        const rp_light_surface *row = band + (size_t)(y - y0) * ow;
        for (int x = 0; x < ow; x++) {
            const rp_light_surface *p = &row[x];
            size_t i = ((size_t)y * ow + x) * 3;
            if (nrm) {
                /* n = (-sx, sy, 1) / |.| with y up; slopes Q12, the length Q20 */
                int64_t sx = p->sx, sy = p->sy;
                int64_t len =
                    (int64_t)rp_isqrt64((uint64_t)(sx * sx + sy * sy + 4096 * 4096) << 16);
                nrm[i] = unit16(-sx * 256, len);
                nrm[i + 1] = unit16(sy * 256, len);
                nrm[i + 2] = unit16((int64_t)4096 << 8, len);
            }
            if (st) {
                /* Q8 pixel positions of the sampled point's centre */
                int64_t sx = ((int64_t)x << 8) + p->dx + 128;
                int64_t sy = ((int64_t)y << 8) + p->dy + 128;
                st[i] = frac16(sx, w256);
                st[i + 1] = frac16(h256 - sy, h256);
                st[i + 2] = 0;
            }
            if (caus)
                rp_light_caustics(l, bg, ow, oh, x, y, p, caus + i);
        }
    }
}

void rp_aov_surface_rows(const rp_light *l, const rp_light_geom *g, const int32_t *hq8,
                         const uint8_t *bg, rp_light_surface *band, uint16_t *nrm, uint16_t *st,
                         uint16_t *caus, int y0, int y1)
{
    for (int y = y0; y < y1; y += RP_AOV_BAND)
        surface_rows(l, g, hq8, bg, band, nrm, st, caus, y,
                     y + RP_AOV_BAND < y1 ? y + RP_AOV_BAND : y1);
}

void rp_aov_surface(const rp_light *l, const rp_light_geom *g, const int32_t *hq8,
                    const uint8_t *bg, rp_light_surface *band, uint16_t *nrm, uint16_t *st,
                    uint16_t *caus)
{
    rp_aov_surface_rows(l, g, hq8, bg, band, nrm, st, caus, 0, g->height);
}
