/* obstacle.c - walls that move along paths (obstacle.h). */
#include "sim/obstacle.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "scene/motion.h"

typedef struct obstacle {
    int active, moved, circle;
    int64_t x, y, r, w, h; /* centre, radius or size: 1/256 cell */
    int64_t dx, dy;        /* this step's motion */
    int32_t push;
    /* a mask's shape: its signed distance (1/256 cell, < 0 inside) at sw x sh samples
     * spaced spx, spy (1/256 cell, about a cell), the mask's bw x bh samples bordered by pad
     * on each side; NULL for a circle or a rectangle */
    int32_t *sdf;
    int sw, sh, pad;
    int64_t spx, spy;
} obstacle;

struct rp_obstacles {
    size_t n;
    int changed;
    obstacle *o;
};

int rp_obstacles_new(rp_obstacles **po, size_t n)
{
    rp_obstacles *o = calloc(1, sizeof *o);
    if (!o || !(o->o = calloc(n ? n : 1, sizeof *o->o))) {
        free(o);
        *po = NULL;
        return RP_ERR_NOMEM;
    }
    o->n = n;
    *po = o;
    return RP_OK;
}

double rp_obstacles_bytes(size_t n)
{
    return (double)sizeof(rp_obstacles) + (double)(n ? n : 1) * sizeof(obstacle);
}

void rp_obstacles_free(rp_obstacles **po)
{
    if (po && *po) {
        for (size_t i = 0; i < (*po)->n; i++)
            free((*po)->o[i].sdf);
        free((*po)->o);
        free(*po);
        *po = NULL;
    }
}

void rp_obstacles_item(rp_obstacles *os, const rp_item *it)
{
    if (it->id < 0 || (size_t)it->id >= os->n)
        return;
    obstacle *o = &os->o[it->id];
    if (it->mask_path && !o->sdf)
        return; /* its shape was never made (rp_obstacles_shape) */
    o->active = !it->gone;
    o->circle = it->circle;
    o->x = it->x;
    o->y = it->y;
    o->r = it->r;
    o->w = it->w;
    o->h = it->h;
    o->dx = it->dx;
    o->dy = it->dy;
    o->push = it->push;
    o->moved = 1;
    os->changed = 1;
}

/* Two passes of a chamfer distance over a w x h field (steps ax, ay across, ad diagonal):
 * each sample's distance to the nearest sample that started at 0. */
static void chamfer(int32_t *d, int w, int h, int32_t ax, int32_t ay, int32_t ad)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int32_t *p = d + (size_t)y * w + x, v = *p;
            if (x > 0 && p[-1] + ax < v)
                v = p[-1] + ax;
            if (y > 0) {
                const int32_t *u = p - w;
                v = u[0] + ay < v ? u[0] + ay : v;
                if (x > 0 && u[-1] + ad < v)
                    v = u[-1] + ad;
                if (x < w - 1 && u[1] + ad < v)
                    v = u[1] + ad;
            }
            *p = v;
        }
    for (int y = h - 1; y >= 0; y--)
        for (int x = w - 1; x >= 0; x--) {
            int32_t *p = d + (size_t)y * w + x, v = *p;
            if (x < w - 1 && p[1] + ax < v)
                v = p[1] + ax;
            if (y < h - 1) {
                const int32_t *u = p + w;
                v = u[0] + ay < v ? u[0] + ay : v;
                if (x < w - 1 && u[1] + ad < v)
                    v = u[1] + ad;
                if (x > 0 && u[-1] + ad < v)
                    v = u[-1] + ad;
            }
            *p = v;
        }
}

/* The field of a w x h (1/256 cell) mask: about one sample a cell, bordered by the rim
 * and three samples more. */
static void mask_field(int64_t w, int64_t h, int *bw, int *bh, int *pad, int64_t *spx, int64_t *spy)
{
    *bw = (int)(w + 128 > 256 ? (w + 128) / 256 : 1);
    *bh = (int)(h + 128 > 256 ? (h + 128) / 256 : 1);
    *spx = w / *bw > 0 ? w / *bw : 1;
    *spy = h / *bh > 0 ? h / *bh : 1;
    int64_t rim = (w < h ? w : h) / 2, sp = *spx < *spy ? *spx : *spy;
    rim = rim > 4 * 256 ? rim : 4 * 256;
    *pad = (int)(rim / sp + 3);
}

int64_t rp_obstacle_mask_bytes(int64_t w, int64_t h)
{
    int bw, bh, pad;
    int64_t spx, spy;
    mask_field(w, h, &bw, &bh, &pad, &spx, &spy);
    return 2 * ((int64_t)bw + 2 * pad) * ((int64_t)bh + 2 * pad) * (int64_t)sizeof(int32_t);
}

int rp_obstacles_shape(rp_obstacles *os, const rp_item *it, const uint8_t *mask, int gw, int gh)
{
    if (it->id < 0 || (size_t)it->id >= os->n || os->o[it->id].sdf)
        return RP_OK;
    obstacle *o = &os->o[it->id];
    int bw, bh, pad;
    mask_field(it->w, it->h, &bw, &bh, &pad, &o->spx, &o->spy);
    int sw = bw + 2 * pad, sh = bh + 2 * pad;
    size_t n = (size_t)sw * (size_t)sh;
    int32_t *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
    if (!out || !in) {
        free(out);
        free(in);
        return RP_ERR_NOMEM;
    }
    const int32_t far = (int32_t)1 << 28;
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++) {
            int bx = x - pad, by = y - pad, wall = 0;
            if (bx >= 0 && bx < bw && by >= 0 && by < bh) {
                /* the mask's grid cell nearest the sample's centre */
                int64_t gx = ((2 * (int64_t)bx + 1) * gw) / (2 * bw);
                int64_t gy = ((2 * (int64_t)by + 1) * gh) / (2 * bh);
                wall = mask[gy * gw + gx] != 0;
            }
            out[(size_t)y * sw + x] = wall ? 0 : far;
            in[(size_t)y * sw + x] = wall ? far : 0;
        }
    int32_t ax = (int32_t)o->spx, ay = (int32_t)o->spy;
    int32_t ad = (int32_t)rp_isqrt64((uint64_t)(o->spx * o->spx + o->spy * o->spy));
    chamfer(out, sw, sh, ax, ay, ad);
    chamfer(in, sw, sh, ax, ay, ad);
    /* the edge lies half a step between a wall sample and a free one */
    int32_t half = (ax < ay ? ax : ay) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = out[i] == 0 ? half - in[i] : out[i] - half;
    free(in);
    o->sdf = out;
    o->sw = sw;
    o->sh = sh;
    o->pad = pad;
    return RP_OK;
}

int rp_obstacles_any(const rp_obstacles *os)
{
    for (size_t i = 0; i < os->n; i++)
        if (os->o[i].active)
            return 1;
    return 0;
}

/* A mask's signed distance at (px, py), 1/256 cell: its field bilinearly between samples;
 * beyond the field (farther than any rim reaches), far. */
static int64_t mask_outside(const obstacle *o, int64_t px, int64_t py)
{
    /* Q8 sample coordinates from the field's first sample's centre */
    int64_t u = ((px - o->x + o->w / 2) * 256) / o->spx + (int64_t)o->pad * 256 - 128;
    int64_t v = ((py - o->y + o->h / 2) * 256) / o->spy + (int64_t)o->pad * 256 - 128;
    if (u < 0 || v < 0 || u >= (int64_t)(o->sw - 1) << 8 || v >= (int64_t)(o->sh - 1) << 8)
        return (int64_t)1 << 30;
    int64_t i = u >> 8, j = v >> 8, fu = u & 255, fv = v & 255;
    const int32_t *a = o->sdf + j * o->sw + i, *b = a + o->sw;
    int64_t top = a[0] * (256 - fu) + a[1] * fu, bot = b[0] * (256 - fu) + b[1] * fu;
    return (top * (256 - fv) + bot * fv) >> 16;
}

/* How far outside the obstacle the point (px, py) lies, in 1/256 cell (<= 0: inside). */
static int64_t outside(const obstacle *o, int64_t px, int64_t py)
{
    if (o->sdf)
        return mask_outside(o, px, py);
    int64_t dx = px - o->x, dy = py - o->y;
    if (o->circle)
        return (int64_t)rp_isqrt64((uint64_t)(dx * dx + dy * dy)) - o->r;
    int64_t ax = (dx < 0 ? -dx : dx) - o->w / 2, ay = (dy < 0 ? -dy : dy) - o->h / 2;
    return ax > ay ? ax : ay;
}

/* The rim the push acts on: out to max(4 cells, the radius or half the smaller side) from
 * the edge, in 1/256 cell. */
static int64_t rim_of(const obstacle *o)
{
    int64_t size = o->circle ? o->r : (o->w < o->h ? o->w : o->h) / 2;
    return size > 4 * 256 ? size : 4 * 256;
}

/* The cells around o, clipped to the grid. */
static void box(const obstacle *o, int gw, int gh, int *x0, int *y0, int *x1, int *y1)
{
    int64_t rim = rim_of(o);
    int64_t ex = (o->circle ? o->r : o->w / 2) + rim + 256,
            ey = (o->circle ? o->r : o->h / 2) + rim + 256;
    *x0 = (int)rp_clamp64((o->x - ex) >> 8, 0, gw);
    *x1 = (int)rp_clamp64(((o->x + ex) >> 8) + 1, 0, gw);
    *y0 = (int)rp_clamp64((o->y - ey) >> 8, 0, gh);
    *y1 = (int)rp_clamp64(((o->y + ey) >> 8) + 1, 0, gh);
}

/* Whether *stop (may be NULL) is set: checked once a row, so that a wall as large as the
 * grid stops within a row of its cells. */
static int stopped(volatile sig_atomic_t *stop)
{
    return stop && *stop;
}

/* Hold o's cells; the water they held is returned. */
static int64_t cover(const obstacle *o, rp_water *w, int gw, int gh, volatile sig_atomic_t *stop)
{
    int x0, y0, x1, y1;
    int64_t water = 0;
    box(o, gw, gh, &x0, &y0, &x1, &y1);
    for (int y = y0; y < y1 && !stopped(stop); y++)
        for (int x = x0; x < x1; x++) {
            int32_t cur;
            if (outside(o, ((int64_t)x << 8) + 128, ((int64_t)y << 8) + 128) <= 0 &&
                rp_water_move_hold(w, x, y, &cur) == RP_OK)
                water += cur;
        }
    return water;
}

/* The rim's push (and the water moved ahead; a wall that appears or stands still shares
 * it over its whole rim): see obstacle.h. */
static void push_rim(const obstacle *o, rp_water *w, int gw, int gh, int64_t water,
                     volatile sig_atomic_t *stop)
{
    int x0, y0, x1, y1, ahead = 0, still = !o->dx && !o->dy;
    int64_t rim = rim_of(o);
    box(o, gw, gh, &x0, &y0, &x1, &y1);
    for (int pass = 0; pass < 2; pass++)
        for (int y = y0; y < y1 && !stopped(stop); y++)
            for (int x = x0; x < x1; x++) {
                int64_t px = ((int64_t)x << 8) + 128, py = ((int64_t)y << 8) + 128;
                int64_t out = outside(o, px, py);
                if (out <= 0 || out >= rim || rp_water_is_held(w, x, y))
                    continue;
                int64_t dx = px - o->x, dy = py - o->y;
                int64_t dist = (int64_t)rp_isqrt64((uint64_t)(dx * dx + dy * dy));
                int64_t dot = dx * o->dx + dy * o->dy;
                if (pass == 0) {
                    ahead += dot > 0 || still;
                    continue;
                }
                /* shaped by sin(pi * out / rim): 0 at the edge and at the rim's outer edge,
                 * so nothing is pushed at the grid's scale */
                int64_t shape = rp_sin_q15((uint32_t)((out << 31) / rim));
                int64_t v = dist > 0 ? (int64_t)o->push * dot / (dist * 256) * shape / 32767 : 0;
                if ((dot > 0 || still) && ahead > 0)
                    v += water / ahead;
                if (v)
                    rp_water_add(w, x, y, (int32_t)rp_clamp64(v, INT16_MIN, INT16_MAX));
            }
}

int rp_obstacles_apply(rp_obstacles *os, rp_water *w, int push, volatile sig_atomic_t *stop)
{
    if (!os->changed)
        return 0;
    const rp_water_params *p = rp_water_params_of(w);
    int gw = p->width, gh = p->height;
    rp_water_move_release(w);
    for (size_t i = 0; i < os->n; i++) {
        obstacle *o = &os->o[i];
        if (!o->active)
            continue;
        int64_t water = cover(o, w, gw, gh, stop);
        if (push && o->moved)
            push_rim(o, w, gw, gh, water, stop);
        o->moved = 0;
        if (stopped(stop))
            return -1;
    }
    os->changed = 0;
    return 1;
}

void rp_obstacles_lead(int64_t k, int64_t rate, int fps, int fps_den, int64_t *num, int64_t *den)
{
    *den = fps > 0 ? fps : 1;
    *num = 0;
    if (rate > 0 && fps > 0) /* (k R D) mod N without overflow */
        *num = fps + (k % fps) * ((rate * fps_den) % fps) % fps;
}

void rp_obstacles_sun(int32_t azimuth_mdeg, int32_t elevation_mdeg, int32_t *sx, int32_t *sy)
{
    /* as the light's (light.c): cos(a) = cos(|a|), sin(a) = cos(a - 90 degrees) */
    int64_t ce =
        rp_cos_pi_q16(elevation_mdeg < 0 ? -(int64_t)elevation_mdeg : elevation_mdeg, 180000);
    int64_t ca = rp_cos_pi_q16(azimuth_mdeg < 0 ? -(int64_t)azimuth_mdeg : azimuth_mdeg, 180000);
    int64_t m = (int64_t)azimuth_mdeg - 90000;
    int64_t sa = rp_cos_pi_q16(m < 0 ? -m : m, 180000);
    *sx = (int32_t)((ce * sa + (1 << 16)) >> 17);
    *sy = (int32_t)(-((ce * ca + (1 << 16)) >> 17));
}

/* The outward direction of o's edge nearest (px, py), Q15 (length 32767, or 0 at a
 * circle's centre): a circle's radius, a rectangle's nearer side, a mask's distance field's
 * gradient. */
static void outward(const obstacle *o, int64_t px, int64_t py, int64_t *gx, int64_t *gy)
{
    int64_t dx = px - o->x, dy = py - o->y;
    if (o->sdf) {
        dx = mask_outside(o, px + 128, py) - mask_outside(o, px - 128, py);
        dy = mask_outside(o, px, py + 128) - mask_outside(o, px, py - 128);
    } else if (!o->circle) {
        int64_t ax = (dx < 0 ? -dx : dx) - o->w / 2, ay = (dy < 0 ? -dy : dy) - o->h / 2;
        dx = ax > ay ? (dx < 0 ? -1 : 1) : 0;
        dy = ax > ay ? 0 : (dy < 0 ? -1 : 1);
    }
    int64_t len = (int64_t)rp_isqrt64((uint64_t)(dx * dx + dy * dy));
    *gx = len ? dx * 32767 / len : 0;
    *gy = len ? dy * 32767 / len : 0;
}

/* One pixel of an obstacle whose edge is out (1/256 cell) from the pixel's centre
 * (px, py): the contact line darkens the water within 1.5 output pixels outside the edge
 * (by 40% at the edge, fading to nothing), then the wall, lit on its rim by the sun, covers
 * the pixel by its coverage (obstacle.h). */
static void draw_px(const obstacle *o, int64_t px, int64_t py, int64_t out, int64_t edge,
                    const uint8_t rgb[3], int32_t sun_x, int32_t sun_y, uint8_t *p, int bpp)
{
    static const uint8_t black[3] = {0, 0, 0};
    if (out <= -3 * edge) { /* inside the rim: covered by rgb (a = 256, no contact, no shade) */
        memcpy(p, rgb, 3);
        if (bpp == 4)
            p[3] = 255;
        return;
    }
    int64_t a = rp_clamp64((edge / 2 - out) * 256 / edge, 0, 256);
    int64_t contact = out > -edge / 2 ? rp_clamp64(256 - out * 256 / (edge + edge / 2), 0, 256) : 0;
    if (contact)
        rp_blend_px(p, bpp, black, (int32_t)(contact * 26214 >> 8)); /* 0.4 * 65536 */
    if (!a)
        return;
    /* the rim, 3 output pixels wide, rounds over: its slope faces the edge's outward
     * direction, so its shade is 1 + 1/2 (outward . sun), fading in from the rim's inner side */
    uint8_t lit[3] = {rgb[0], rgb[1], rgb[2]};
    int64_t rim = 3 * edge, in = -out;
    if (in < rim) {
        int64_t gx, gy;
        outward(o, px, py, &gx, &gy);
        int64_t w = in <= 0 ? 256 : 256 - in * 256 / rim;                     /* Q8 */
        int64_t shade = 32768 + (((gx * sun_x + gy * sun_y) >> 16) * w >> 8); /* Q15 */
        for (int c = 0; c < 3; c++)
            lit[c] = (uint8_t)rp_clamp64((rgb[c] * shade + 16384) >> 15, 0, 255);
    }
    rp_blend_px(p, bpp, lit, (int32_t)a << 8);
}

void rp_obstacles_draw(const rp_obstacles *os, int64_t lead_num, int64_t lead_den, int gw, int gh,
                       int ow, int oh, const uint8_t rgb[3], int32_t sun_x, int32_t sun_y,
                       uint8_t *frame, int bpp, int y0, int y1)
{
    /* one output pixel in 1/256 cell, along each side */
    int64_t px = ((int64_t)gw << 8) / ow, py = ((int64_t)gh << 8) / oh;
    int64_t edge = px > py ? px : py;
    edge = edge > 0 ? edge : 1;
    for (size_t i = 0; i < os->n; i++) {
        if (!os->o[i].active)
            continue;
        obstacle at = os->o[i], *o = &at; /* where it is at the frame's instant */
        at.x += at.dx * lead_num / lead_den;
        at.y += at.dy * lead_num / lead_den;
        /* the box reaches the contact line, 1.5 pixels outside the edge */
        int64_t ex = (o->circle ? o->r : o->w / 2) + 2 * edge,
                ey = (o->circle ? o->r : o->h / 2) + 2 * edge;
        int64_t ox0 = rp_clamp64((o->x - ex) * ow / ((int64_t)gw << 8) - 1, 0, ow);
        int64_t ox1 = rp_clamp64((o->x + ex) * ow / ((int64_t)gw << 8) + 2, 0, ow);
        int64_t oy0 = rp_clamp64((o->y - ey) * oh / ((int64_t)gh << 8) - 1, y0, y1);
        int64_t oy1 = rp_clamp64((o->y + ey) * oh / ((int64_t)gh << 8) + 2, y0, y1);
        /* a plain circle's pixels more than the rim inside its edge, or beyond the contact
         * line, need no square root: floor(sqrt(d2)) < K exactly when d2 < K^2, and
         * draw_px draws every out below -3 edge alike */
        const int plain = o->circle && !o->sdf && o->r > 3 * edge;
        const int64_t kin = o->r - 3 * edge, kout = o->r + edge + edge / 2;
        /* the pixel's centre, 1/256 cell: cx = ((2 x + 1) gw << 7) / ow, stepped along the
         * row as a quotient and remainder */
        const int64_t step = (int64_t)gw << 8, step_q = step / ow, step_r = step % ow;
        const int64_t cx0 = ((2 * ox0 + 1) * gw << 7) / ow, rx0 = ((2 * ox0 + 1) * gw << 7) % ow;
        for (int64_t y = oy0; y < oy1; y++) {
            int64_t cy = ((2 * y + 1) * gh << 7) / oh, cx = cx0, rx = rx0;
            uint8_t *row = frame + (size_t)y * ow * bpp;
            for (int64_t x = ox0; x < ox1; x++, cx += step_q, rx += step_r) {
                if (rx >= ow) {
                    rx -= ow;
                    cx++;
                }
                int64_t out;
                if (plain) {
                    int64_t d2 = (cx - o->x) * (cx - o->x) + (cy - o->y) * (cy - o->y);
                    if (d2 >= kout * kout)
                        continue;
                    out = d2 < kin * kin ? -3 * edge - 1 : outside(o, cx, cy);
                } else {
                    out = outside(o, cx, cy);
                }
                if (out >= edge + edge / 2)
                    continue;
                draw_px(o, cx, cy, out, edge, rgb, sun_x, sun_y, row + (size_t)x * bpp, bpp);
            }
        }
    }
}
