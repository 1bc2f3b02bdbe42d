/* light_simd.c - the AVX2 row kernel of the light (light.c), 8 pixels at a time, exact to
 * the last bit: every step of light.c's plain loop in int32 lanes (products that need 64
 * bits as pairs of 32x32 -> 64-bit multiplies), the tables read with gathers (one 32-bit
 * gather fetches entries i and i + 1 of a uint16 table for the interpolation), the
 * refracted background with 64-bit gathers (a texel and its right neighbour) and the
 * bilinear weights applied with pmaddwd. Runs of still water skip the layer, and
 * undisplaced pixels skip the gathers. Built with `target` attributes (no -m flags). */
#include "look/light_simd.h"

#include <string.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"
#include "x86/light_avx2.h"

/* 8 32-bit loads at tab + 2 * i (any alignment), with vpgatherdd: faster than scalar loads
 * through memory on the CPUs make bench has measured, with the same bytes. */
INLINE AVX2 __m256i gather16x2(const uint16_t *tab, __m256i i)
{
    return _mm256_i32gather_epi32((const int *)(const void *)tab, i, 2);
}

/* 4 64-bit loads at base + off (bytes), with vpgatherdq. */
INLINE AVX2 __m256i gather64(const uint8_t *base, __m128i off)
{
    return _mm256_i32gather_epi64((const long long *)(const void *)base, off, 1);
}

/* Entries i and i + 1 of a uint16 table as (t[i], t[i + 1] - t[i]). */
INLINE AVX2 void pair(const uint16_t *tab, __m256i i, __m256i *t0, __m256i *dt)
{
    __m256i g = gather16x2(tab, i);
    *t0 = _mm256_and_si256(g, _mm256_set1_epi32(0xffff));
    *dt = _mm256_sub_epi32(_mm256_srli_epi32(g, 16), *t0);
}

/* The curvature clamp that keeps caustics * curvature in int32. The plain loop clamps
 * curvature to +-2^20 and multiplies by caustics (<= 2^14) in 64 bits. Beyond
 * 2^26 / caustics, (caustics * curv) >> 8 is at least 2^18 in size, which outweighs the
 * shading term (< 2^17) and saturates the soft table (2^16), so clamping there changes
 * neither the sign of b nor its alpha. */
static int32_t curv_limit(const rp_light *l)
{
    int64_t c = l->p.caustics_q8;
    return (int32_t)(c > 1024 ? (((int64_t)1 << 26) + c - 1) / c : (int64_t)1 << 20);
}

/* The bilinear sample of two pixels' texel pairs: g holds pixel a's 8 bytes (R00 G00 B00
 * R01 G01 B01 ..) in its low 64 bits and pixel b's in the low 64 bits of the high half
 * (sel 0) or the high 64 bits of each half (sel 8); w the 16-bit weight pairs (256 - fx,
 * fx) of a and b. Returns 32-bit (R, G, B, 0) of a | b, horizontally weighted. */
INLINE AVX2 __m256i hpair(__m256i g, __m256i w, const int sel)
{
    const __m256i sp =
        _mm256_setr_epi8(0 + sel, -1, 3 + sel, -1, 1 + sel, -1, 4 + sel, -1, 2 + sel, -1, 5 + sel,
                         -1, -1, -1, -1, -1, 0 + sel, -1, 3 + sel, -1, 1 + sel, -1, 4 + sel, -1,
                         2 + sel, -1, 5 + sel, -1, -1, -1, -1, -1);
    return _mm256_madd_epi16(_mm256_shuffle_epi8(g, sp), w);
}

/* Vertical step of the bilinear sample: (top * (256 - fy) + bot * fy + 32768) >> 16. */
INLINE AVX2 __m256i vstep(__m256i top, __m256i bot, __m256i fy)
{
    __m256i v = _mm256_add_epi32(_mm256_slli_epi32(top, 8),
                                 _mm256_mullo_epi32(_mm256_sub_epi32(bot, top), fy));
    return _mm256_srli_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(32768)), 16);
}

/* (t * (255 - a) + c * a + 127) / 255 on 16-bit lanes (t, c, a <= 255; the sum < 2^16,
 * where x / 255 = (x * 0x8081) >> 23 exactly). */
INLINE AVX2 __m256i blend255(__m256i t, __m256i ca)
{
    __m256i a = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(ca, 0xff), 0xff);
    __m256i v = _mm256_add_epi16(
        _mm256_add_epi16(_mm256_mullo_epi16(t, _mm256_sub_epi16(_mm256_set1_epi16(255), a)),
                         _mm256_mullo_epi16(ca, a)),
        _mm256_set1_epi16(127));
    return _mm256_srli_epi16(_mm256_mulhi_epu16(v, _mm256_set1_epi16((short)0x8081)), 7);
}

/* What one row of the kernel needs: the rows of heights it reads, and every per-frame
 * constant as a vector (built once a row; the helpers below are inlined into the loop, so
 * these stay in registers or on the stack as one function's locals would). */
struct krow {
    const rp_light *l;
    int w, h, y, sxs, sky_on;
    const int32_t *r0, *ru, *rd, *ru2, *rd2;
    struct kslope kx, ky;
    __m256i cxm, cym, clim, ccl;
    __m256i hx, hy, hz, lx, ly, lz, shade, caus;
    __m256i lrgb[3], srgb[3];
    __m256i xmax, ymax, wv, w3, hm1, last;
    __m256i rxh, rxl, ryh, ryl; /* refraction r = h * 2^32 + l as (h * 16, l): split_r() */
    __m256i kxh, kxl, kyh, kyl; /* the sky image's reflection, split the same way */
};

/* r = h * 2^32 + l (l signed) as the vectors (h * 16, l) that displace_v() takes. */
static AVX2 void split_r(int64_t r, __m256i *h16, __m256i *lo)
{
    int64_t rl = (int32_t)(uint32_t)((uint64_t)r & 0xffffffffu);
    *lo = _mm256_set1_epi32((int32_t)rl);
    *h16 = _mm256_set1_epi32((int32_t)((r - rl) / ((int64_t)1 << 32) * 16));
}

static AVX2 void krow_init(struct krow *k, const rp_light *l, const struct rp_light_frame *f,
                           const int32_t *heights, int y)
{
    const int w = f->w, h = f->h;
    int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
    int yu2 = y - f->sy_step < 0 ? 0 : y - f->sy_step;
    int yd2 = y + f->sy_step > h - 1 ? h - 1 : y + f->sy_step;
    k->l = l;
    k->w = w;
    k->h = h;
    k->y = y;
    k->sxs = f->sx_step;
    k->sky_on = l->p.sky_q8 != 0;
    kslope_init(&k->kx, f->scale_x * f->mdiv);
    /* span 2 inside, 1 at an edge (the difference doubled), 0 for one row (slope 0) */
    kslope_init(&k->ky, yd - yu == 0 ? 0 : f->scale_y * f->mdiv * (yd - yu == 1 ? 2 : 1));
    k->r0 = heights + (size_t)y * w;
    k->ru = heights + (size_t)yu * w;
    k->rd = heights + (size_t)yd * w;
    k->ru2 = heights + (size_t)yu2 * w;
    k->rd2 = heights + (size_t)yd2 * w;
    k->cxm = _mm256_set1_epi32((int32_t)f->cxm);
    k->cym = _mm256_set1_epi32((int32_t)f->cym);
    k->clim = _mm256_set1_epi32(1 << 20);
    k->ccl = _mm256_set1_epi32(curv_limit(l));
    k->hx = _mm256_set1_epi32(l->hx);
    k->hy = _mm256_set1_epi32(l->hy);
    k->hz = _mm256_set1_epi32(l->hz);
    k->lx = _mm256_set1_epi32(l->lx);
    k->ly = _mm256_set1_epi32(l->ly);
    k->lz = _mm256_set1_epi32(l->lz);
    k->shade = _mm256_set1_epi32(l->p.shade_q8);
    k->caus = _mm256_set1_epi32(l->p.caustics_q8);
    for (int c = 0; c < 3; c++) {
        k->lrgb[c] = _mm256_set1_epi32(l->p.light_rgb[c]);
        k->srgb[c] = _mm256_set1_epi32(l->p.sky_rgb[c]);
    }
    k->xmax = _mm256_set1_epi32((w - 1) << 8);
    k->ymax = _mm256_set1_epi32((h - 1) << 8);
    split_r(f->rx, &k->rxh, &k->rxl);
    split_r(f->ry, &k->ryh, &k->ryl);
    k->wv = _mm256_set1_epi32(w);
    k->w3 = _mm256_set1_epi32(3 * w);
    k->hm1 = _mm256_set1_epi32(h - 1);
    /* the 8-byte texel loads must stay inside the frame */
    k->last = _mm256_set1_epi32((int32_t)((int64_t)w * h * 3 - 8));
    split_r(f->kx, &k->kxh, &k->kxl);
    split_r(f->ky, &k->kyh, &k->kyl);
}

/* The surface at pixels x..x+7: slopes by central differences and the clamped curvature
 * (pixel() in light.c). c0 points at pixel x of the row's heights, readable from x - sxs to
 * x + 7 + sxs: the row itself inside the frame, a copy with the edge pixels repeated near
 * an edge. The lanes set in edge (the first and the last pixel of the row) double their x
 * difference, which spans one pixel there instead of two. */
INLINE AVX2 void surface_v(const struct krow *k, const int32_t *c0, __m256i edge, int x,
                           __m256i *sx, __m256i *sy, __m256i *curv)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i c = loadh(c0);
    __m256i dx = _mm256_sub_epi32(loadh(c0 + 1), loadh(c0 - 1));
    dx = _mm256_add_epi32(dx, _mm256_and_si256(dx, edge));
    __m256i dy = _mm256_sub_epi32(loadh(k->rd + x), loadh(k->ru + x));
    __m256i c2 = _mm256_add_epi32(c, c);
    __m256i lapx = _mm256_sub_epi32(_mm256_add_epi32(loadh(c0 + k->sxs), loadh(c0 - k->sxs)), c2);
    __m256i lapy = _mm256_sub_epi32(_mm256_add_epi32(loadh(k->rd2 + x), loadh(k->ru2 + x)), c2);
    *sx = slope_v(dx, &k->kx);
    *sy = slope_v(dy, &k->ky);
    /* curv = clamp(-((lapx * cxm + lapy * cym) >> 20), +-2^20); |sum| < 2^51 */
    __m256i ce = _mm256_add_epi64(_mm256_mul_epi32(lapx, k->cxm), _mm256_mul_epi32(lapy, k->cym));
    __m256i co = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(lapx, 32), k->cxm),
                                  _mm256_mul_epi32(_mm256_srli_epi64(lapy, 32), k->cym));
    *curv = clampv(_mm256_sub_epi32(zero, SHR_PAIR(ce, co, 20)), _mm256_sub_epi32(zero, k->clim),
                   k->clim);
}

/* The colour of the layer from its premultiplied weights: c = (w_light * light + w_sky *
 * sky) * inv >> 30 with inv = (2^30 + A / 2) / A, per channel, packed with a8 as C | A << 24,
 * and 0 where a8 is 0 (layer_px() in light.c). */
INLINE AVX2 __m256i colour_v(const struct krow *k, __m256i A, __m256i a8, __m256i w_light,
                             __m256i w_sky, const __m256i *sky_img)
{
    const __m256i zero = _mm256_setzero_si256(), m255 = _mm256_set1_epi32(255);
    const __m256i round29 = _mm256_set1_epi64x((int64_t)1 << 29);
    const double two30 = (double)((int64_t)1 << 30);
    __m256i lit = _mm256_cmpgt_epi32(a8, zero);
    if (_mm256_testz_si256(lit, lit))
        return zero;
    /* inv = (2^30 + A / 2) / A: in doubles the quotient (< 2^24) is within 2^-29 of the true
     * one, which is an integer or at least 1/A from one, so truncating gives the integer
     * quotient exactly. */
    __m256i Am = _mm256_max_epi32(A, _mm256_set1_epi32(1));
    __m256i num = _mm256_srli_epi32(Am, 1);
    __m256d nlo =
        _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(num)), _mm256_set1_pd(two30));
    __m256d nhi =
        _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(num, 1)), _mm256_set1_pd(two30));
    __m128i ilo =
        _mm256_cvttpd_epi32(_mm256_div_pd(nlo, _mm256_cvtepi32_pd(_mm256_castsi256_si128(Am))));
    __m128i ihi = _mm256_cvttpd_epi32(
        _mm256_div_pd(nhi, _mm256_cvtepi32_pd(_mm256_extracti128_si256(Am, 1))));
    __m256i inv = _mm256_set_m128i(ihi, ilo);
    __m256i invo = _mm256_srli_epi64(inv, 32);
    __m256i ch[3];
    for (int c = 0; c < 3; c++) {
        /* pc < 2^24, inv < 2^25: the product needs 64 bits */
        __m256i sc =
            sky_img ? _mm256_and_si256(_mm256_srli_epi32(*sky_img, 8 * c), m255) : k->srgb[c];
        __m256i pc = _mm256_mullo_epi32(w_light, k->lrgb[c]);
        if (k->sky_on)
            pc = _mm256_add_epi32(pc, _mm256_mullo_epi32(w_sky, sc));
        __m256i pe = _mm256_add_epi64(_mm256_mul_epu32(pc, inv), round29);
        __m256i po = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(pc, 32), invo), round29);
        ch[c] = _mm256_min_epi32(SHR_PAIR(pe, po, 30), m255);
    }
    __m256i cw =
        _mm256_or_si256(_mm256_or_si256(ch[0], _mm256_slli_epi32(ch[1], 8)),
                        _mm256_or_si256(_mm256_slli_epi32(ch[2], 16), _mm256_slli_epi32(a8, 24)));
    return _mm256_and_si256(cw, lit);
}

/* The layer at 8 pixels from their surface, as C | A << 24 (layer_px() in light.c); sky_img
 * NULL: the sky colour, else the reflected sky image per lane (sky_v()). */
INLINE AVX2 __m256i layer_v(const struct krow *k, __m256i sx, __m256i sy, __m256i curv,
                            const __m256i *sky_img)
{
    const rp_light *l = k->l;
    const __m256i zero = _mm256_setzero_si256(), one15 = _mm256_set1_epi32(RP_LIGHT_ONE15);
    /* the normal: nz = 1 / sqrt(1 + |s|^2), interpolated (r2 < 2^31, index < RSQ_N) */
    __m256i r2 = _mm256_add_epi32(_mm256_mullo_epi32(sx, sx), _mm256_mullo_epi32(sy, sy));
    __m256i t0, dt;
    pair(l->rsq, _mm256_srli_epi32(r2, 18), &t0, &dt);
    __m256i fr = _mm256_and_si256(_mm256_srli_epi32(r2, 10), _mm256_set1_epi32(255));
    __m256i nz = _mm256_add_epi32(t0, _mm256_srai_epi32(_mm256_mullo_epi32(dt, fr), 8));
    __m256i nx = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_mullo_epi32(sx, nz), 12));
    __m256i ny = _mm256_sub_epi32(zero, _mm256_srai_epi32(_mm256_mullo_epi32(sy, nz), 12));
    /* |n| and |H| are 1 (Q15) within a few units, so the dot products fit in int32 */
    __m256i ndoth =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(nx, k->hx),
                                                            _mm256_mullo_epi32(ny, k->hy)),
                                           _mm256_mullo_epi32(nz, k->hz)),
                          15);
    __m256i ndotl =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(nx, k->lx),
                                                            _mm256_mullo_epi32(ny, k->ly)),
                                           _mm256_mullo_epi32(nz, k->lz)),
                          15);
    ndoth = clampv(ndoth, zero, one15);
    pair(l->glint, _mm256_srli_epi32(ndoth, 3), &t0, &dt);
    __m256i a_p = _mm256_add_epi32(
        t0, _mm256_srai_epi32(_mm256_mullo_epi32(dt, _mm256_and_si256(ndoth, _mm256_set1_epi32(7))),
                              3));
    __m256i a_s = zero;
    if (k->sky_on)
        a_s = _mm256_and_si256(gather16x2(l->sky, _mm256_srli_epi32(nz, 3)),
                               _mm256_set1_epi32(0xffff));
    __m256i b = _mm256_add_epi32(
        _mm256_srai_epi32(_mm256_mullo_epi32(k->shade, _mm256_sub_epi32(ndotl, k->lz)), 11),
        _mm256_srai_epi32(
            _mm256_mullo_epi32(k->caus, clampv(curv, _mm256_sub_epi32(zero, k->ccl), k->ccl)), 8));
    __m256i mag = _mm256_abs_epi32(b);
    __m256i si = _mm256_srli_epi32(mag, 4);
    __m256i sat = _mm256_cmpgt_epi32(si, _mm256_set1_epi32(RP_LIGHT_SOFT_N - 1));
    si = _mm256_min_epi32(si, _mm256_set1_epi32(RP_LIGHT_SOFT_N));
    __m256i sf = _mm256_andnot_si256(sat, _mm256_and_si256(mag, _mm256_set1_epi32(15)));
    pair(l->soft, si, &t0, &dt);
    __m256i a_b = _mm256_add_epi32(t0, _mm256_srai_epi32(_mm256_mullo_epi32(dt, sf), 4));

    /* over, bottom to top: bed, sky, glint */
    __m256i op = _mm256_sub_epi32(one15, a_p), os = _mm256_sub_epi32(one15, a_s),
            ob = _mm256_sub_epi32(one15, a_b);
    /* without a sky, a_s = 0 and os = 1 (Q15): the products by os are the identity and
     * w_sky is 0, so they are skipped (the same integers) */
    __m256i tt = k->sky_on ? _mm256_srai_epi32(_mm256_mullo_epi32(ob, os), 15) : ob;
    tt = _mm256_srai_epi32(_mm256_mullo_epi32(tt, op), 15);
    __m256i A = _mm256_sub_epi32(one15, tt);
    __m256i w_sky = k->sky_on ? _mm256_srai_epi32(_mm256_mullo_epi32(a_s, op), 15) : zero;
    __m256i b_os = k->sky_on ? _mm256_srai_epi32(_mm256_mullo_epi32(a_b, os), 15) : a_b;
    __m256i wl = _mm256_srai_epi32(_mm256_mullo_epi32(b_os, op), 15);
    __m256i w_light = _mm256_add_epi32(a_p, _mm256_and_si256(wl, _mm256_cmpgt_epi32(b, zero)));
    __m256i a8 = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_mullo_epi32(A, _mm256_set1_epi32(255)), _mm256_set1_epi32(16384)),
        15);
    return colour_v(k, A, a8, w_light, w_sky, sky_img);
}

/* The background at 8 pixels displaced by (dpx, dpy) Q8, bilinear, as 16-bit (R, G, B, 0)
 * of pixels 0 1 | 2 3 (*t_lo) and 4 5 | 6 7 (*t_hi). Returns 0, or 1 when a texel pair
 * would end past the frame (the caller leaves those pixels to the plain loop). */
INLINE AVX2 int refract_v(const struct krow *k, const uint8_t *bg, int x, __m256i dpx, __m256i dpy,
                          __m256i *t_lo, __m256i *t_hi)
{
    const __m256i zero = _mm256_setzero_si256(), m255 = _mm256_set1_epi32(255);
    const __m256i lanes = _mm256_setr_epi32(0, 256, 512, 768, 1024, 1280, 1536, 1792);
    __m256i px = _mm256_sub_epi32(_mm256_add_epi32(_mm256_set1_epi32(x << 8), lanes), dpx);
    __m256i py = _mm256_sub_epi32(_mm256_set1_epi32(k->y << 8), dpy);
    px = clampv(px, zero, k->xmax);
    py = clampv(py, zero, k->ymax);
    __m256i ix = _mm256_srli_epi32(px, 8), iy = _mm256_srli_epi32(py, 8);
    __m256i fx = _mm256_and_si256(px, m255), fy = _mm256_and_si256(py, m255);
    __m256i o00 = _mm256_add_epi32(_mm256_mullo_epi32(iy, k->wv), ix);
    o00 = _mm256_add_epi32(o00, _mm256_add_epi32(o00, o00));
    __m256i o10 = _mm256_add_epi32(o00, _mm256_and_si256(_mm256_cmpgt_epi32(k->hm1, iy), k->w3));
    __m256i beyond = _mm256_cmpgt_epi32(o10, k->last);
    if (!_mm256_testz_si256(beyond, beyond))
        return 1;
    __m256i g00a = gather64(bg, _mm256_castsi256_si128(o00));
    __m256i g00b = gather64(bg, _mm256_extracti128_si256(o00, 1));
    __m256i g10a = gather64(bg, _mm256_castsi256_si128(o10));
    __m256i g10b = gather64(bg, _mm256_extracti128_si256(o10, 1));
    /* g..a = pixels 0 1 | 2 3, g..b = 4 5 | 6 7 (64 bits each) */
    __m256i wx =
        _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(256), fx), _mm256_slli_epi32(fx, 16));
    const __m256i i02 = _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2),
                  i13 = _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3),
                  i46 = _mm256_setr_epi32(4, 4, 4, 4, 6, 6, 6, 6),
                  i57 = _mm256_setr_epi32(5, 5, 5, 5, 7, 7, 7, 7);
    __m256i w02 = _mm256_permutevar8x32_epi32(wx, i02), w13 = _mm256_permutevar8x32_epi32(wx, i13),
            w46 = _mm256_permutevar8x32_epi32(wx, i46), w57 = _mm256_permutevar8x32_epi32(wx, i57);
    __m256i t02 =
        vstep(hpair(g00a, w02, 0), hpair(g10a, w02, 0), _mm256_permutevar8x32_epi32(fy, i02));
    __m256i t13 =
        vstep(hpair(g00a, w13, 8), hpair(g10a, w13, 8), _mm256_permutevar8x32_epi32(fy, i13));
    __m256i t46 =
        vstep(hpair(g00b, w46, 0), hpair(g10b, w46, 0), _mm256_permutevar8x32_epi32(fy, i46));
    __m256i t57 =
        vstep(hpair(g00b, w57, 8), hpair(g10b, w57, 8), _mm256_permutevar8x32_epi32(fy, i57));
    *t_lo = _mm256_packus_epi32(t02, t13);
    *t_hi = _mm256_packus_epi32(t46, t57);
    return 0;
}

/* The refraction displacement floor(s * r / 2^28) Q8 pixels of one axis, r = h * 2^32 + l. */
INLINE AVX2 __m256i displace_v(__m256i s, __m256i rh, __m256i rl)
{
    return _mm256_add_epi32(
        _mm256_mullo_epi32(s, rh),
        SHR_PAIR(_mm256_mul_epi32(s, rl), _mm256_mul_epi32(_mm256_srli_epi64(s, 32), rl), 28));
}

/* The reflected sky image at pixels x..x+7 (sky_px() in light.c): the image at (x, y) +
 * (slope * k) >> 28, bilinear, as R | G << 8 | B << 16 per lane. Returns 0, or 1 when a
 * texel pair would end past the frame. */
INLINE AVX2 int sky_v(const struct krow *k, const uint8_t *sky, int x, __m256i sx, __m256i sy,
                      __m256i *rgb)
{
    const __m256i zero = _mm256_setzero_si256();
    /* refract_v samples at (x, y) less its displacement: give it the reflection negated */
    __m256i dx = _mm256_sub_epi32(zero, displace_v(sx, k->kxh, k->kxl));
    __m256i dy = _mm256_sub_epi32(zero, displace_v(sy, k->kyh, k->kyl));
    __m256i t_lo, t_hi;
    if (refract_v(k, sky, x, dx, dy, &t_lo, &t_hi))
        return 1;
    /* 16-bit (R, G, B, 0) of pixels 0 1 | 2 3 and 4 5 | 6 7 to bytes in pixel order */
    __m256i o = _mm256_packus_epi16(t_lo, t_hi);
    *rgb = _mm256_permutevar8x32_epi32(o, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    return 0;
}

/* The composited pixels x..x+7: the background refracted, the layer cw over it. Returns 0,
 * or 1 when the refraction would read past the frame (nothing written). */
INLINE AVX2 int composite_v(const struct krow *k, const uint8_t *bg, uint8_t *rgb, int x,
                            __m256i sx, __m256i sy, __m256i cw)
{
    __m256i dpx = displace_v(sx, k->rxh, k->rxl), dpy = displace_v(sy, k->ryh, k->ryl);
    __m256i dsp = _mm256_or_si256(dpx, dpy);
    size_t at = ((size_t)k->y * k->w + x) * 3;
    __m256i t_lo, t_hi;
    if (_mm256_testz_si256(dsp, dsp)) {
        if (_mm256_testz_si256(cw, cw)) {
            memcpy(rgb + at, bg + at, 24);
            return 0;
        }
        __m256i t = load_rgb(bg + at);
        t_lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(t));
        t_hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(t, 1));
    } else if (refract_v(k, bg, x, dpx, dpy, &t_lo, &t_hi)) {
        return 1;
    }
    __m256i c_lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(cw));
    __m256i c_hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(cw, 1));
    /* bytes: pixels 0 1 4 5 | 2 3 6 7 */
    __m256i o = _mm256_packus_epi16(blend255(t_lo, c_lo), blend255(t_hi, c_hi));
    o = _mm256_permutevar8x32_epi32(o, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    store_rgb(rgb + at, o);
    return 0;
}

/* Pixels x..x+7 of the row into rgba or rgb, their heights at c0 and edge as surface_v()
 * takes them. Returns 0, or 1 when a texel pair would end past the frame (nothing written:
 * the caller leaves the pixels to the plain loop). */
INLINE AVX2 int group_v(const struct krow *k, const struct rp_light_frame *f, int flat_zero,
                        const int32_t *c0, __m256i edge, int x, const uint8_t *bg, uint8_t *rgb,
                        uint8_t *rgba)
{
    __m256i sx, sy, curv;
    surface_v(k, c0, edge, x, &sx, &sy, &curv);
    __m256i any = _mm256_or_si256(_mm256_or_si256(sx, sy), curv);
    size_t at = (size_t)k->y * k->w + x;
    if (flat_zero && _mm256_testz_si256(any, any)) {
        /* still water: no layer, no displacement */
        if (rgba)
            _mm256_storeu_si256((__m256i *)(void *)(rgba + at * 4), _mm256_setzero_si256());
        else
            memcpy(rgb + at * 3, bg + at * 3, 24);
        return 0;
    }
    __m256i sky = _mm256_setzero_si256();
    if (f->sky && sky_v(k, f->sky, x, sx, sy, &sky))
        return 1;
    __m256i cw = layer_v(k, sx, sy, curv, f->sky ? &sky : NULL);
    if (rgba) {
        _mm256_storeu_si256((__m256i *)(void *)(rgba + at * 4), cw);
        return 0;
    }
    return composite_v(k, bg, rgb, x, sx, sy, cw);
}

/* The widest laplacian spacing the edge copy holds (sx_step is at most 2 * 256). */
#define EDGE_PAD 512

/* A group whose x +- sxs reaches past the row: its heights copied with the edge pixels
 * repeated (pixel() clamps the same way), and its edge lanes marked. */
static AVX2 int edge_group(const struct krow *k, const struct rp_light_frame *f, int flat_zero,
                           int x, const uint8_t *bg, uint8_t *rgb, uint8_t *rgba)
{
    int32_t buf[8 + 2 * EDGE_PAD];
    const int pad = k->sxs; /* >= 1 (frame_init), so it covers x +- 1 too */
    for (int i = 0; i < 8 + 2 * pad; i++) {
        int xi = x - pad + i;
        buf[i] = k->r0[xi < 0 ? 0 : xi > k->w - 1 ? k->w - 1 : xi];
    }
    __m256i lanes =
        _mm256_add_epi32(_mm256_set1_epi32(x), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256i edge = _mm256_or_si256(_mm256_cmpeq_epi32(lanes, _mm256_setzero_si256()),
                                   _mm256_cmpeq_epi32(lanes, _mm256_set1_epi32(k->w - 1)));
    return group_v(k, f, flat_zero, buf + pad, edge, x, bg, rgb, rgba);
}

/* Row y (w >= 8): groups of 8, the last one overlapping the one before when w is not a
 * multiple of 8 (it writes those pixels again with the same bytes: every pixel depends only
 * on the inputs). */
static AVX2 int light_row_avx2(const rp_light *l, const struct rp_light_frame *f,
                               const int32_t *heights, int y, const uint8_t *bg, uint8_t *rgb,
                               uint8_t *rgba)
{
    struct krow k;
    krow_init(&k, l, f, heights, y);
    const int flat_zero = l->flat_a8 == 0, w = k.w, pad = k.sxs;
    const __m256i inner = _mm256_setzero_si256();
    for (int x = 0;; x += 8) {
        if (x + 8 > w)
            x = w - 8;
        int fail = x - pad >= 0 && x + 7 + pad < w
                       ? group_v(&k, f, flat_zero, k.r0 + x, inner, x, bg, rgb, rgba)
                       : edge_group(&k, f, flat_zero, x, bg, rgb, rgba);
        if (fail)
            return x; /* a texel pair would end past the frame: the plain loop */
        if (x + 8 == w)
            return w;
    }
}

/* Every height of rows y0..y1-1 within +-RP_LIGHT_SIMD_HMAX. */
static AVX2 int heights_ok_avx2(const int32_t *p, size_t n)
{
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        lo = _mm256_min_epi32(lo, v);
        hi = _mm256_max_epi32(hi, v);
    }
    int32_t l8[8], h8[8], mn = 0, mx = 0;
    _mm256_storeu_si256((__m256i *)(void *)l8, lo);
    _mm256_storeu_si256((__m256i *)(void *)h8, hi);
    for (int k = 0; k < 8; k++) {
        mn = l8[k] < mn ? l8[k] : mn;
        mx = h8[k] > mx ? h8[k] : mx;
    }
    for (; i < n; i++) {
        mn = p[i] < mn ? p[i] : mn;
        mx = p[i] > mx ? p[i] : mx;
    }
    return mn >= -RP_LIGHT_SIMD_HMAX && mx <= RP_LIGHT_SIMD_HMAX;
}

#endif /* RP_HAVE_X86_KERNELS */

#ifdef RP_HAVE_X86_KERNELS
/* Whether light_row_avx2 is exact for rows y0..y1-1 of this frame: its int32 bounds are
 * curvature factors < 2^24 (always, see frame_init), frames of < 2^31 bytes, a laplacian
 * spacing within the edge copy (frame_init clamps the scale below) and the rows it reads
 * within +-HMAX. */
static int rows_ok_avx2(const struct rp_light_frame *f, const int32_t *heights, int y0, int y1)
{
    if (f->cxm >= ((int64_t)1 << 24) || f->cym >= ((int64_t)1 << 24) ||
        (int64_t)f->w * f->h * 3 >= ((int64_t)1 << 31) - 64 || f->sx_step > EDGE_PAD)
        return 0;
    if (f->peak > 0 && f->peak <= RP_LIGHT_SIMD_HMAX)
        return 1; /* the rows cannot hold a larger height */
    int ra = y0 - f->sy_step < 0 ? 0 : y0 - f->sy_step;
    int rb = y1 + f->sy_step > f->h ? f->h : y1 + f->sy_step;
    return heights_ok_avx2(heights + (size_t)ra * f->w, (size_t)(rb - ra) * f->w);
}
#endif

void rp_light_dsp_init_x86(rp_light_dsp *c, int level)
{
    rp_light_water_dsp_init_x86(c, level);
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->row = light_row_avx2;
        c->rows_ok = rows_ok_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
