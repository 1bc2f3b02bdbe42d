/* render.c - height field + background texture -> RGB24 (rockpool(1) FRAME LOOP,
 * rockpool-scene(5)).
 *
 * offset: Elias' refraction and shading (seed 000/001), generalised with the
 *   refraction shift R of CodeProject (seed 004) and a light direction so Silverlight's
 *   (dx - dy) / 2 (seed 003) is one setting: shading = (dx*lx + dy*ly) / divisor.
 * lens: the Java applet's magnifying refraction (seed 002), no shading.
 * Heights outside the grid read as 0; texture coordinates are clamped to the image. */
#include "look/render.h"

#include "base/common.h"
#include "base/pool.h"
#include "base/cpu.h"
#include "look/render_simd.h"

static inline int32_t height_at(const int16_t *h, int w, int ht, int x, int y)
{
    if (x < 0 || y < 0 || x >= w || y >= ht)
        return 0;
    return h[(size_t)y * w + x];
}

static inline void put(uint8_t *out, const uint8_t *texel, int32_t shade)
{
    out[0] = rp_sat8(texel[0] + shade);
    out[1] = rp_sat8(texel[1] + shade);
    out[2] = rp_sat8(texel[2] + shade);
}

/* One offset pixel given its four neighbour heights. */
static inline __attribute__((always_inline)) void
offset_pixel(const rp_render_params *p, const uint8_t *tex, int w, int ht, uint8_t *out, int x,
             int y, int32_t left, int32_t right, int32_t up, int32_t down)
{
    int32_t dx = left - right, dy = up - down;
    int tx = rp_clampi(x + (dx >> p->refraction), 0, w - 1);
    int ty = rp_clampi(y + (dy >> p->refraction), 0, ht - 1);
    int32_t shade = p->shading ? (dx * p->light_x + dy * p->light_y) / p->shading : 0;
    put(out, tex + ((size_t)ty * w + tx) * 3, shade);
}

RP_DSP_TABLES(render)

/* The table's offset kernel for these parameters, or NULL where they are outside the
 * kernels' range (render_simd.h). */
static rp_offset_row_fn offset_kernel(const rp_render_dsp *c, const rp_render_params *p)
{
    const int sum = RP_RENDER_SIMD_LIGHT_SUM;
    if (p->refraction < 0 || p->refraction > 31 || p->light_x < -sum || p->light_x > sum ||
        p->light_y < -sum || p->light_y > sum ||
        (p->light_x < 0 ? -p->light_x : p->light_x) + (p->light_y < 0 ? -p->light_y : p->light_y) >
            sum ||
        p->shading <= -RP_RENDER_SIMD_SHADING || p->shading >= RP_RENDER_SIMD_SHADING)
        return NULL;
    return c->offset_row[p->shading != 0];
}

static void offset_rows(const rp_render_params *p, const int16_t *h, int w, int ht,
                        const uint8_t *tex, uint8_t *rgb, int y0, int y1)
{
    rp_offset_row_fn kernel = offset_kernel(rp_render_dsp_get(), p);
    for (int y = y0; y < y1; y++) {
        uint8_t *out = rgb + (size_t)y * w * 3;
        if (y == 0 || y == ht - 1 || w < 3) {
            for (int x = 0; x < w; x++)
                offset_pixel(p, tex, w, ht, out + 3 * x, x, y, height_at(h, w, ht, x - 1, y),
                             height_at(h, w, ht, x + 1, y), height_at(h, w, ht, x, y - 1),
                             height_at(h, w, ht, x, y + 1));
            continue;
        }
        const int16_t *m = h + (size_t)y * w, *u = m - w, *d = m + w;
        offset_pixel(p, tex, w, ht, out, 0, y, 0, m[1], u[0], d[0]);
        for (int x = 1; x < w - 1;) {
            /* The vector kernel renders what it can; the plain loop (the reference it
             * matches) takes up to 8 pixels it leaves, then the kernel goes on. */
            if (kernel)
                x = kernel(p, m, w, ht, y, tex, out, x, w - 1);
            for (int end = x + 8 < w - 1 ? x + 8 : w - 1; x < end; x++)
                offset_pixel(p, tex, w, ht, out + 3 * x, x, y, m[x - 1], m[x + 1], u[x], d[x]);
        }
        offset_pixel(p, tex, w, ht, out + 3 * (w - 1), w - 1, y, m[w - 2], 0, u[w - 1], d[w - 1]);
    }
}

/* The applet: d = 1024 - h; a = (x - W/2) * d / 1024 + W/2 with C division. */
static inline void lens_pixel(const int16_t *row, int w, int ht, const uint8_t *tex, uint8_t *out,
                              int x, int y)
{
    int32_t d = 1024 - (int32_t)row[x];
    int a = rp_clampi((x - w / 2) * d / 1024 + w / 2, 0, w - 1);
    int b = rp_clampi((y - ht / 2) * d / 1024 + ht / 2, 0, ht - 1);
    const uint8_t *t = tex + ((size_t)b * w + a) * 3;
    out[3 * x] = t[0];
    out[3 * x + 1] = t[1];
    out[3 * x + 2] = t[2];
}

static void lens_rows(const int16_t *h, int w, int ht, const uint8_t *tex, uint8_t *rgb, int y0,
                      int y1)
{
    rp_lens_row_fn kernel = rp_render_dsp_get()->lens_row;
    for (int y = y0; y < y1; y++) {
        const int16_t *row = h + (size_t)y * w;
        uint8_t *out = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w;) {
            /* As in offset_rows: the kernel, then the plain loop for what it leaves. */
            if (kernel)
                x = kernel(row, w, ht, y, tex, out, x, w);
            for (int end = x + 8 < w ? x + 8 : w; x < end; x++)
                lens_pixel(row, w, ht, tex, out, x, y);
        }
    }
}

void rp_render_rows(const rp_render_params *p, const int16_t *heights, int width, int height,
                    const uint8_t *texture, uint8_t *rgb, int y0, int y1)
{
    if (p->mode == RP_RENDER_LENS)
        lens_rows(heights, width, height, texture, rgb, y0, y1);
    else
        offset_rows(p, heights, width, height, texture, rgb, y0, y1);
}

struct render_job {
    const rp_render_params *p;
    const int16_t *heights;
    int width, height;
    const uint8_t *texture;
    uint8_t *rgb;
};

static void render_job_rows(void *ctx, int y0, int y1)
{
    const struct render_job *j = ctx;
    rp_render_rows(j->p, j->heights, j->width, j->height, j->texture, j->rgb, y0, y1);
}

void rp_render_frame(const rp_render_params *p, const int16_t *heights, int width, int height,
                     const uint8_t *texture, uint8_t *rgb, rp_pool *pool)
{
    struct render_job j = {p, heights, width, height, texture, rgb};
    rp_pool_run(pool, height, render_job_rows, &j);
}
