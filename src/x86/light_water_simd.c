/* light_water_simd.c - the AVX2 kernel of look water (light.c: water_px, water_bed and the
 * blend of water_span_rgb, or the layer of water_span_rgba), 8 pixels at a time and exact to
 * the last bit: every step of the plain loop in int32 lanes, where each value is shown to
 * fit, and the products that need 64 bits as pairs of 32x32 -> 64-bit multiplies. Tables are
 * read with gathers (one 32-bit gather fetches entries i and i + 1 of a uint16 table), or,
 * for the slopes of most water (below 0.35), from registers with permutes; the bed with four
 * 32-bit gathers of its texels. Groups with no slope, no curvature, no bright caustics or no
 * layer skip those parts (the same integers come out), and still water that shows the
 * picture as it is is copied. Groups near the row's ends read copies of their heights
 * continued past the ends (rp_light_odd), and rows near the top and bottom copies of the
 * rows past the frame (water_row_avx2). There is no SSE2 kernel: without SSE4.1's 32-bit
 * multiplies and min/max and AVX2's gathers, emulating them would cost about what the
 * vectors save. Built with `target` attributes (no -m flags), like the layer's kernel in
 * light_simd.c. */
#include "look/light_simd.h"

#include <stdlib.h>
#include <string.h>

#include "base/cpu.h"

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>

#include "x86/avx2_common.h"
#include "x86/light_avx2.h"

/* floor((a * b + r) / 2^s) of int32 lanes, r a 64-bit vector, when the result fits int32. */
#define MUL_SHR(a, b, r, s)                                                                        \
    SHR_PAIR(_mm256_add_epi64(_mm256_mul_epi32((a), (b)), (r)),                                    \
             _mm256_add_epi64(                                                                     \
                 _mm256_mul_epi32(_mm256_srli_epi64((a), 32), _mm256_srli_epi64((b), 32)), (r)),   \
             (s))

/* The same for unsigned lanes. */
#define MULU_SHR(a, b, r, s)                                                                       \
    SHR_PAIR(_mm256_add_epi64(_mm256_mul_epu32((a), (b)), (r)),                                    \
             _mm256_add_epi64(                                                                     \
                 _mm256_mul_epu32(_mm256_srli_epi64((a), 32), _mm256_srli_epi64((b), 32)), (r)),   \
             (s))

/* Entries i and i + 1 of a uint16 table (one 32-bit load each lane) interpolated by fr of
 * 2^shift: t[i] + ((t[i + 1] - t[i]) * fr >> shift). */
INLINE AVX2 __m256i interp16(const uint16_t *tab, __m256i i, __m256i fr, const int shift)
{
    __m256i g = _mm256_i32gather_epi32((const int *)(const void *)tab, i, 2);
    __m256i t0 = _mm256_and_si256(g, _mm256_set1_epi32(0xffff));
    __m256i dt = _mm256_sub_epi32(_mm256_srli_epi32(g, 16), t0);
    return _mm256_add_epi32(t0, _mm256_srai_epi32(_mm256_mullo_epi32(dt, fr), shift));
}

/* What one row needs: its rows of heights and every per-frame constant as a vector. */
struct wk {
    const rp_light *l;
    const int32_t *u2, *u1, *m, *d1, *d2;
    const uint8_t *bg;
    int w, y, st, sky_on;
    struct kslope kx, ky;
    __m256i cxm, cym, cxym; /* curvature factors (< 2^24) */
    __m256i hlim;           /* the Hessian terms' clamp (caustic_gain) */
    __m256i caus_a, lim, caus, gain0;
    __m256i dx, dy, half27; /* the bed offset's factors (< 2^31) */
    __m256i xmax, ymax, wm1, hm1, wv, w3, last;
    __m256i mx, my, glim, ginh, ginl; /* the glint: mirror slope, d^2 limit, 1/sigma^2 */
    __m256i tint[3], light[3], sky[3];
    /* entries 0..7 and 1..8 of wref and wsky: slopes below 0.35 (r2 < 2^21) index no
     * further, so most groups read them with a permute instead of a gather */
    __m256i wref0, wref1, wsky0, wsky1;
    __m256i cw0;   /* the layer on still water (no slope) */
    int flat_copy; /* still water is the picture itself (no layer, no gain, no tint) */
};

static AVX2 void wk_init(struct wk *k, const rp_light *l, const struct rp_light_frame *f,
                         const struct rp_light_wrows *r, const uint8_t *bg)
{
    k->l = l;
    k->u2 = r->u2;
    k->u1 = r->u1;
    k->m = r->m;
    k->d1 = r->d1;
    k->d2 = r->d2;
    k->bg = bg;
    k->w = f->w;
    k->y = r->y;
    k->st = f->sx_step;
    k->sky_on = l->p.sky_q8 != 0; /* else every wsky entry is 0 */
    kslope_init(&k->kx, f->scale_x * f->mdiv);
    kslope_init(&k->ky, f->scale_y * f->mdiv);
    k->cxm = _mm256_set1_epi32((int32_t)f->cxm);
    k->cym = _mm256_set1_epi32((int32_t)f->cym);
    k->cxym = _mm256_set1_epi32((int32_t)f->cxym);
    /* clamp(caus_a * h >> 8, +-lim) is lim from h = ceil(256 lim / caus_a) on (and -lim from
     * -h), so h may be clamped there first, which keeps caus_a * h below 2^25 */
    const int64_t lim = (int64_t)16 << 12;
    k->hlim =
        _mm256_set1_epi32(l->caus_a > 0 ? (int32_t)((256 * lim + l->caus_a - 1) / l->caus_a) : 0);
    k->caus_a = _mm256_set1_epi32((int32_t)l->caus_a);
    k->lim = _mm256_set1_epi32((int32_t)lim);
    k->caus = _mm256_set1_epi32(l->p.caustics_q8);
    /* flat water: det = 1 (4096), so gain = 1 + caustics * (1 / det - 1) as water_px has it */
    int64_t g0 = 4096 + (((int64_t)(l->wrecip[4096] - 4096) * l->p.caustics_q8) >> 8);
    k->gain0 = _mm256_set1_epi32((int32_t)(g0 < 0 ? 0 : g0 > lim ? lim : g0));
    k->dx = _mm256_set1_epi32((int32_t)f->dx);
    k->dy = _mm256_set1_epi32((int32_t)f->dy);
    k->half27 = _mm256_set1_epi64x((int64_t)1 << 27);
    k->xmax = _mm256_set1_epi32((f->w - 1) << 8);
    k->ymax = _mm256_set1_epi32((f->h - 1) << 8);
    k->wm1 = _mm256_set1_epi32(f->w - 1);
    k->hm1 = _mm256_set1_epi32(f->h - 1);
    k->wv = _mm256_set1_epi32(f->w);
    k->w3 = _mm256_set1_epi32(3 * f->w);
    /* the 4-byte texel loads must stay inside the frame */
    k->last = _mm256_set1_epi32((int32_t)((int64_t)f->w * f->h * 3 - 4));
    k->mx = _mm256_set1_epi32(l->mirror_x);
    k->my = _mm256_set1_epi32(l->mirror_y);
    k->glim = _mm256_set1_epi32((int32_t)l->glint_lim);
    /* glint_inv = hi * 2^32 + lo, lo unsigned: d^2 * inv >> 24 = (d^2 * hi << 8) + (d^2 *
     * lo >> 24) */
    k->ginh = _mm256_set1_epi32((int32_t)((l->glint_inv >> 32) << 8));
    k->ginl = _mm256_set1_epi32((int32_t)(uint32_t)(l->glint_inv & 0xffffffffu));
    for (int c = 0; c < 3; c++) {
        k->tint[c] = _mm256_set1_epi32(l->tint[c]);
        k->light[c] = _mm256_set1_epi32(l->p.light_rgb[c]);
        k->sky[c] = _mm256_set1_epi32(l->p.sky_rgb[c]);
    }
    k->wref0 = _mm256_loadu_si256((const __m256i *)(const void *)l->wref);
    k->wref1 = _mm256_loadu_si256((const __m256i *)(const void *)(l->wref + 1));
    k->wsky0 = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)l->wsky));
    k->wsky1 = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(l->wsky + 1)));
}

/* Every lane's table index r2 >> 18 below 8. */
INLINE AVX2 int small_r2(__m256i r2)
{
    return none(_mm256_cmpgt_epi32(r2, _mm256_set1_epi32((1 << 21) - 1)));
}

/* t[i] + ((t[i + 1] - t[i]) * fr >> 8) from t0 = t[0..7] and t1 = t[1..8], every i < 8. */
INLINE AVX2 __m256i interp_reg(__m256i t0, __m256i t1, __m256i i, __m256i fr)
{
    __m256i a = _mm256_permutevar8x32_epi32(t0, i), b = _mm256_permutevar8x32_epi32(t1, i);
    return _mm256_add_epi32(a,
                            _mm256_srai_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(b, a), fr), 8));
}

/* The caustics' gain (Q12) from the laplacians lxx, lyy and the cross difference lxy (each
 * within 2^26): water_px's 1 / det(I + a Hess), eased by the strength. */
INLINE AVX2 __m256i caustic_gain(const struct wk *k, __m256i lxx, __m256i lyy, __m256i lxy)
{
    const __m256i zero = _mm256_setzero_si256(), r0 = _mm256_setzero_si256();
    const __m256i nh = _mm256_sub_epi32(zero, k->hlim), nl = _mm256_sub_epi32(zero, k->lim);
    /* h = lap * c >> 20 within 2^30; each a * h term clamped to +-16 (Q12) */
    __m256i hxx = clampv(MUL_SHR(lxx, k->cxm, r0, 20), nh, k->hlim);
    __m256i hyy = clampv(MUL_SHR(lyy, k->cym, r0, 20), nh, k->hlim);
    __m256i hxy = clampv(MUL_SHR(lxy, k->cxym, r0, 20), nh, k->hlim);
    __m256i axx = clampv(_mm256_srai_epi32(_mm256_mullo_epi32(k->caus_a, hxx), 8), nl, k->lim);
    __m256i ayy = clampv(_mm256_srai_epi32(_mm256_mullo_epi32(k->caus_a, hyy), 8), nl, k->lim);
    __m256i axy = clampv(_mm256_srai_epi32(_mm256_mullo_epi32(k->caus_a, hxy), 8), nl, k->lim);
    /* (4096 + a) reaches 69632: the products need 64 bits, their >> 12 does not */
    const __m256i one = _mm256_set1_epi32(4096);
    __m256i bxx = _mm256_add_epi32(one, axx), byy = _mm256_add_epi32(one, ayy);
    __m256i det = _mm256_sub_epi32(MUL_SHR(bxx, byy, r0, 12), MUL_SHR(axy, axy, r0, 12));
    det = clampv(det, zero, _mm256_set1_epi32(RP_LIGHT_RECIP_N));
    __m256i e = _mm256_i32gather_epi32((const int *)k->l->wrecip, det, 4);
    /* (e - 4096) * caustics: e <= 2^16, caustics <= 2^14 */
    __m256i gain = _mm256_add_epi32(
        one, _mm256_srai_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(e, one), k->caus), 8));
    return clampv(gain, zero, k->lim);
}

/* light.c's reflect_q8: q mirrored about 0 and max, then clamped (|q| < 2^30). */
INLINE AVX2 __m256i reflect_v(__m256i q, __m256i max)
{
    __m256i a = _mm256_abs_epi32(q);
    a = _mm256_min_epi32(a, _mm256_sub_epi32(_mm256_add_epi32(max, max), a));
    return clampv(a, _mm256_setzero_si256(), max);
}

/* The bed point seen at pixels x..x+7 (Q8 pixels, mirrored at the edges): (x, y) +
 * ((s * g >> 8) * d + 2^27) >> 28 per axis, g the refraction table at |s|^2 (g <= 2^14, so
 * s * g < 2^29). */
INLINE AVX2 void bed_point(const struct wk *k, int x, __m256i sx, __m256i sy, __m256i r2,
                           __m256i *qx, __m256i *qy)
{
    const __m256i lanes = _mm256_setr_epi32(0, 256, 512, 768, 1024, 1280, 1536, 1792);
    __m256i i = _mm256_srli_epi32(r2, 18);
    __m256i fr = _mm256_and_si256(_mm256_srli_epi32(r2, 10), _mm256_set1_epi32(255));
    __m256i g;
    if (small_r2(r2)) {
        g = interp_reg(k->wref0, k->wref1, i, fr);
    } else {
        __m256i g0 = _mm256_i32gather_epi32((const int *)k->l->wref, i, 4);
        __m256i g1 = _mm256_i32gather_epi32((const int *)k->l->wref + 1, i, 4);
        g = _mm256_add_epi32(
            g0, _mm256_srai_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(g1, g0), fr), 8));
    }
    __m256i mxv = _mm256_srai_epi32(_mm256_mullo_epi32(sx, g), 8);
    __m256i myv = _mm256_srai_epi32(_mm256_mullo_epi32(sy, g), 8);
    __m256i px = _mm256_add_epi32(_mm256_set1_epi32(x << 8), lanes);
    *qx = reflect_v(_mm256_add_epi32(px, MUL_SHR(mxv, k->dx, k->half27, 28)), k->xmax);
    *qy = reflect_v(
        _mm256_add_epi32(_mm256_set1_epi32(k->y << 8), MUL_SHR(myv, k->dy, k->half27, 28)),
        k->ymax);
}

/* The background at the bed points, bilinear, Q8 levels per channel (plate_px: its exact
 * path for undisplaced pixels is this formula's value there). Returns 0, or 1 when a texel
 * load would end past the frame (nothing done: the caller leaves the pixels to the plain
 * loop). */
INLINE AVX2 int plate_v(const struct wk *k, __m256i qx, __m256i qy, __m256i t[3])
{
    const __m256i m255 = _mm256_set1_epi32(255);
    __m256i ix = _mm256_srli_epi32(qx, 8), iy = _mm256_srli_epi32(qy, 8);
    __m256i fx = _mm256_and_si256(qx, m255), fy = _mm256_and_si256(qy, m255);
    __m256i o00 = _mm256_add_epi32(_mm256_mullo_epi32(iy, k->wv), ix);
    o00 = _mm256_add_epi32(o00, _mm256_add_epi32(o00, o00));
    __m256i step = _mm256_and_si256(_mm256_cmpgt_epi32(k->wm1, ix), _mm256_set1_epi32(3));
    __m256i o10 = _mm256_add_epi32(o00, _mm256_and_si256(_mm256_cmpgt_epi32(k->hm1, iy), k->w3));
    __m256i o11 = _mm256_add_epi32(o10, step);
    __m256i beyond = _mm256_cmpgt_epi32(o11, k->last);
    if (!none(beyond))
        return 1;
    const int *bg = (const int *)(const void *)k->bg;
    __m256i g00 = _mm256_i32gather_epi32(bg, o00, 1);
    __m256i g01 = _mm256_i32gather_epi32(bg, _mm256_add_epi32(o00, step), 1);
    __m256i g10 = _mm256_i32gather_epi32(bg, o10, 1);
    __m256i g11 = _mm256_i32gather_epi32(bg, o11, 1);
    for (int c = 0; c < 3; c++) {
        __m256i p00 = _mm256_and_si256(_mm256_srli_epi32(g00, 8 * c), m255);
        __m256i p01 = _mm256_and_si256(_mm256_srli_epi32(g01, 8 * c), m255);
        __m256i p10 = _mm256_and_si256(_mm256_srli_epi32(g10, 8 * c), m255);
        __m256i p11 = _mm256_and_si256(_mm256_srli_epi32(g11, 8 * c), m255);
        /* top = p00 (256 - fx) + p01 fx; tq = (top (256 - fy) + bot fy + 128) >> 8 */
        __m256i top = _mm256_add_epi32(_mm256_slli_epi32(p00, 8),
                                       _mm256_mullo_epi32(_mm256_sub_epi32(p01, p00), fx));
        __m256i bot = _mm256_add_epi32(_mm256_slli_epi32(p10, 8),
                                       _mm256_mullo_epi32(_mm256_sub_epi32(p11, p10), fx));
        __m256i v = _mm256_add_epi32(_mm256_slli_epi32(top, 8),
                                     _mm256_mullo_epi32(_mm256_sub_epi32(bot, top), fy));
        t[c] = _mm256_srli_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(128)), 8);
    }
    return 0;
}

/* floor(n * m / 2^(32 + e)) of unsigned lanes n and m, 0 <= e <= 32. */
#define MULHI_U(n, m, e)                                                                           \
    _mm256_blend_epi32(_mm256_srli_epi64(_mm256_mul_epu32((n), (m)), 32 + (e)),                    \
                       _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64((n), 32), (m)), (e)),  \
                       0xAA)

/* floor(n / 3) and floor(n / 9) of lanes 0 <= n < 2^32 (the compilers' magic numbers, exact
 * over that range). */
INLINE AVX2 __m256i div3(__m256i n)
{
    return MULHI_U(n, _mm256_set1_epi32((int32_t)0xAAAAAAABu), 1);
}

INLINE AVX2 __m256i div9(__m256i n)
{
    return MULHI_U(n, _mm256_set1_epi32(0x38E38E39), 1);
}

/* floor(a / b) of lanes 0 <= a < 2^31, 1 <= b < 2^31, in doubles: a quotient q = n - e
 * short of an integer n is at least 1/b short, more than half of q's unit in the last place
 * (q / 2^53 < 1/b as a < 2^53), so the rounded quotient stays below n and truncates to the
 * integer quotient. */
INLINE AVX2 __m256i div_v(__m256i a, __m256i b)
{
    __m256d lo = _mm256_div_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(a)),
                               _mm256_cvtepi32_pd(_mm256_castsi256_si128(b)));
    __m256d hi = _mm256_div_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1)),
                               _mm256_cvtepi32_pd(_mm256_extracti128_si256(b, 1)));
    return _mm256_set_m128i(_mm256_cvttpd_epi32(hi), _mm256_cvttpd_epi32(lo));
}

/* lit_q8() of light.c: the picture tq (Q8 levels) lit by the gain (Q12), with the ease of
 * the light it gains; tq * gain < 2^32 (tq <= 255 << 8, gain <= 16 << 12). */
INLINE AVX2 __m256i lit_v(__m256i tq, __m256i gain)
{
    __m256i v = _mm256_srli_epi32(_mm256_mullo_epi32(tq, gain), 12);
    __m256i bright = _mm256_cmpgt_epi32(v, tq);
    if (none(bright))
        return v;
    __m256i add = _mm256_sub_epi32(v, tq);
    __m256i room = _mm256_sub_epi32(_mm256_set1_epi32(255 << 8), tq);
    /* within 48 levels of white room^2 / 12288 * room / 36864 (12288 = 3 * 4096, 36864 = 9 *
     * 4096: floor(floor(n / 3) / 4096) = floor(n / 12288)), else room / 3 */
    __m256i near = _mm256_cmpgt_epi32(_mm256_set1_epi32(48 << 8), room);
    __m256i lh_n = _mm256_srli_epi32(div3(_mm256_mullo_epi32(room, room)), 12);
    lh_n = _mm256_srli_epi32(div9(_mm256_mullo_epi32(lh_n, room)), 12);
    __m256i lh = _mm256_blendv_epi8(div3(room), lh_n, near);
    __m256i soft = _mm256_and_si256(bright, _mm256_cmpgt_epi32(_mm256_add_epi32(add, add), lh));
    if (!none(soft)) {
        /* lh^2 < 2^29, 4 add < 2^22; lanes not soft divide by 1 and are not used */
        __m256i den = _mm256_max_epi32(_mm256_slli_epi32(add, 2), _mm256_set1_epi32(1));
        __m256i q = div_v(_mm256_mullo_epi32(lh, lh), den);
        add = _mm256_blendv_epi8(add, _mm256_sub_epi32(lh, q), soft);
    }
    return _mm256_blendv_epi8(v, _mm256_add_epi32(tq, add), bright);
}

/* lit3_q8() of light.c: the three channels t (Q8 levels) lit by the gain (Q12), the
 * brightest eased by lit_v and the others scaled by its ratio where the gain brightens. The
 * quotients in doubles are exact: t * vm < 2^32 is held exactly, and its quotient by mx <
 * 2^16 is an integer or at least 2^-16 from one, far beyond a double's rounding. */
INLINE AVX2 void lit3_v(const __m256i t[3], __m256i gain, __m256i v[3])
{
    __m256i mx = _mm256_max_epi32(_mm256_max_epi32(t[0], t[1]), t[2]);
    __m256i bright = _mm256_and_si256(_mm256_cmpgt_epi32(gain, _mm256_set1_epi32(4096)),
                                      _mm256_cmpgt_epi32(mx, _mm256_setzero_si256()));
    for (int c = 0; c < 3; c++)
        v[c] = _mm256_srli_epi32(_mm256_mullo_epi32(t[c], gain), 12);
    if (none(bright))
        return;
    __m256i vm = lit_v(mx, gain);
    __m256d den[2] = {_mm256_cvtepi32_pd(_mm256_castsi256_si128(mx)),
                      _mm256_cvtepi32_pd(_mm256_extracti128_si256(mx, 1))};
    __m256d num[2] = {_mm256_cvtepi32_pd(_mm256_castsi256_si128(vm)),
                      _mm256_cvtepi32_pd(_mm256_extracti128_si256(vm, 1))};
    /* lanes not bright divide by 1 and are not used */
    const __m256d one = _mm256_set1_pd(1);
    for (int i = 0; i < 2; i++)
        den[i] = _mm256_max_pd(den[i], one);
    for (int c = 0; c < 3; c++) {
        __m256d lo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(t[c])), num[0]);
        __m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(t[c], 1)), num[1]);
        __m256i q = _mm256_set_m128i(_mm256_cvttpd_epi32(_mm256_div_pd(hi, den[1])),
                                     _mm256_cvttpd_epi32(_mm256_div_pd(lo, den[0])));
        v[c] = _mm256_blendv_epi8(v[c], q, bright);
    }
}

/* The layer at 8 pixels from their slopes (r2 = |s|^2): the sky's Fresnel alpha and the
 * glint composed as compose() does, as C | A << 24 per lane, 0 where A rounds to 0. */
INLINE AVX2 __m256i layer_v(const struct wk *k, __m256i sx, __m256i sy, __m256i r2)
{
    const rp_light *l = k->l;
    const __m256i zero = _mm256_setzero_si256(), one15 = _mm256_set1_epi32(RP_LIGHT_ONE15);
    const __m256i m255 = _mm256_set1_epi32(255);
    __m256i a_s = zero;
    if (k->sky_on) {
        __m256i i = _mm256_srli_epi32(r2, 18);
        __m256i fr = _mm256_and_si256(_mm256_srli_epi32(r2, 10), m255);
        a_s = small_r2(r2) ? interp_reg(k->wsky0, k->wsky1, i, fr) : interp16(l->wsky, i, fr, 8);
    }
    /* the glint: d^2 = |s - m|^2, each difference clamped to 32767 (so d^2 < 2^31) where
     * d^2 is beyond glint_lim (<= 32767^2) either way */
    const __m256i dmax = _mm256_set1_epi32(32767), dmin = _mm256_set1_epi32(-32767);
    __m256i dgx = clampv(_mm256_sub_epi32(sx, k->mx), dmin, dmax);
    __m256i dgy = clampv(_mm256_sub_epi32(sy, k->my), dmin, dmax);
    __m256i d2 = _mm256_add_epi32(_mm256_mullo_epi32(dgx, dgx), _mm256_mullo_epi32(dgy, dgy));
    __m256i in = _mm256_cmpgt_epi32(k->glim, d2);
    __m256i a_p = zero;
    if (!none(in)) {
        /* u = d^2 * inv >> 24 < 2^20 where in; d^2 = 0 elsewhere keeps the index in the table */
        __m256i d2m = _mm256_and_si256(d2, in);
        __m256i u =
            _mm256_add_epi32(_mm256_mullo_epi32(d2m, k->ginh), MULU_SHR(d2m, k->ginl, zero, 24));
        a_p = _mm256_and_si256(
            interp16(l->wglint, _mm256_srli_epi32(u, 8), _mm256_and_si256(u, m255), 8), in);
    }
    if (none(_mm256_or_si256(a_s, a_p)))
        return zero;
    /* compose(): t = os * op, A = 1 - t, the sky's weight a_s * op, the light's a_p */
    __m256i op = _mm256_sub_epi32(one15, a_p), os = _mm256_sub_epi32(one15, a_s);
    __m256i A = _mm256_sub_epi32(one15, _mm256_srai_epi32(_mm256_mullo_epi32(os, op), 15));
    __m256i w_sky = _mm256_srai_epi32(_mm256_mullo_epi32(a_s, op), 15);
    __m256i a8 = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_mullo_epi32(A, m255), _mm256_set1_epi32(16384)), 15);
    __m256i lit = _mm256_cmpgt_epi32(a8, zero);
    if (none(lit))
        return zero;
    /* inv = (2^30 + A / 2) / A, A >= 1 where lit */
    __m256i Am = _mm256_max_epi32(A, _mm256_set1_epi32(1));
    __m256i inv = div_v(_mm256_add_epi32(_mm256_set1_epi32(1 << 30), _mm256_srli_epi32(Am, 1)), Am);
    const __m256i r29 = _mm256_set1_epi64x((int64_t)1 << 29);
    __m256i cw = _mm256_slli_epi32(a8, 24);
    for (int c = 0; c < 3; c++) {
        /* pc < 2^24, inv < 2^25: the product needs 64 bits, its >> 30 does not */
        __m256i pc = _mm256_add_epi32(_mm256_mullo_epi32(a_p, k->light[c]),
                                      _mm256_mullo_epi32(w_sky, k->sky[c]));
        __m256i ch = _mm256_min_epi32(MULU_SHR(pc, inv, r29, 30), m255);
        cw = _mm256_or_si256(cw, _mm256_slli_epi32(ch, 8 * c));
    }
    return _mm256_and_si256(cw, lit);
}

/* The composite of pixels x..x+7 of the row into out (the row): the bed under the layer
 * cw, or the layer alone into an RGBA row. m, u2 and d2 point at pixel x of rows y, y -
 * sy_step and y + sy_step, readable from x - sx_step to x + 7 + sx_step: the rows
 * themselves inside the frame, edge_group's copies near its ends. Returns 0, or 1
 * when a texel load would end past the frame (nothing written). */
INLINE AVX2 int group_v(const struct wk *k, int x, const int32_t *m, const int32_t *u2,
                        const int32_t *d2, uint8_t *out, int rgba)
{
    const __m256i m255 = _mm256_set1_epi32(255);
    const int st = k->st;
    __m256i sx = slope_v(_mm256_sub_epi32(loadh(m + 1), loadh(m - 1)), &k->kx);
    __m256i sy = slope_v(_mm256_sub_epi32(loadh(k->d1 + x), loadh(k->u1 + x)), &k->ky);
    /* |s| < 2^15 per axis: r2 < 2^31 and its table index r2 >> 18 < RSQ_N */
    __m256i sxy = _mm256_or_si256(sx, sy);
    __m256i r2 = _mm256_add_epi32(_mm256_mullo_epi32(sx, sx), _mm256_mullo_epi32(sy, sy));
    if (rgba) {
        __m256i cw = none(sxy) ? k->cw0 : layer_v(k, sx, sy, r2);
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * (size_t)x), cw);
        return 0;
    }
    /* the curvature's differences over +-st pixels, each within 2^26 */
    __m256i c2 = loadh(m);
    c2 = _mm256_add_epi32(c2, c2);
    __m256i lxx = _mm256_sub_epi32(_mm256_add_epi32(loadh(m + st), loadh(m - st)), c2);
    __m256i lyy = _mm256_sub_epi32(_mm256_add_epi32(loadh(d2), loadh(u2)), c2);
    __m256i lxy = _mm256_sub_epi32(_mm256_sub_epi32(loadh(d2 + st), loadh(u2 + st)),
                                   _mm256_sub_epi32(loadh(d2 - st), loadh(u2 - st)));
    __m256i any = _mm256_or_si256(_mm256_or_si256(lxx, lyy), lxy);
    if (none(_mm256_or_si256(any, sxy)) && k->flat_copy) {
        size_t at = ((size_t)k->y * k->w + x) * 3;
        memcpy(out + 3 * (size_t)x, k->bg + at, 24);
        return 0;
    }
    __m256i cw = none(sxy) ? k->cw0 : layer_v(k, sx, sy, r2);
    __m256i gain = none(any) ? k->gain0 : caustic_gain(k, lxx, lyy, lxy);
    __m256i t[3];
    if (none(_mm256_or_si256(sx, sy))) {
        /* no slope: the bed point is the pixel itself */
        __m256i p = load_rgb(k->bg + ((size_t)k->y * k->w + x) * 3);
        for (int c = 0; c < 3; c++)
            t[c] = _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(p, 8 * c), m255), 8);
    } else {
        __m256i qx, qy;
        bed_point(k, x, sx, sy, r2, &qx, &qy);
        if (plate_v(k, qx, qy, t))
            return 1;
    }
    __m256i a = _mm256_srli_epi32(cw, 24), na = _mm256_sub_epi32(m255, a);
    __m256i px = _mm256_setzero_si256(), lit[3];
    lit3_v(t, gain, lit);
    for (int c = 0; c < 3; c++) {
        /* lit * tint + 2^23 < 2^32 (lit <= 255 << 8, tint <= 2^16) */
        __m256i v = _mm256_mullo_epi32(lit[c], k->tint[c]);
        v = _mm256_min_epi32(_mm256_srli_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(1 << 23)), 24),
                             m255);
        if (!none(cw)) {
            /* (v (255 - a) + c a + 127) / 255 = (x * 0x8081) >> 23 for x < 2^16 */
            __m256i cc = _mm256_and_si256(_mm256_srli_epi32(cw, 8 * c), m255);
            v = _mm256_add_epi32(
                _mm256_add_epi32(_mm256_mullo_epi32(v, na), _mm256_mullo_epi32(cc, a)),
                _mm256_set1_epi32(127));
            v = _mm256_srli_epi32(_mm256_mullo_epi32(v, _mm256_set1_epi32(0x8081)), 23);
        }
        px = _mm256_or_si256(px, _mm256_slli_epi32(v, 8 * c));
    }
    store_rgb(out + 3 * (size_t)x, px);
    return 0;
}

/* The widest laplacian spacing the edge copies hold (4K from a grid of 180 cells and more;
 * the selector leaves wider ones to the plain loop). */
#define EDGE_PAD 64

/* A group whose x +- sx_step reaches past the row: its heights copied as water_px reads them
 * there, the row's point reflection about its end pixel (rp_light_odd() is the identity
 * inside the row). Those may pass +-RP_LIGHT_SIMD_HMAX (2 h(e) - h): then 1, and the plain
 * loop does the rest of the row. */
static AVX2 int edge_group(const struct wk *k, int x, uint8_t *out, int rgba)
{
    int32_t m[8 + 2 * EDGE_PAD], u2[8 + 2 * EDGE_PAD], d2[8 + 2 * EDGE_PAD];
    const int st = k->st;
    for (int i = 0; i < 8 + 2 * st; i++) {
        int64_t v[3] = {rp_light_odd(k->m, x - st + i, k->w), rp_light_odd(k->u2, x - st + i, k->w),
                        rp_light_odd(k->d2, x - st + i, k->w)};
        for (int j = 0; j < 3; j++)
            if (v[j] < -RP_LIGHT_SIMD_HMAX || v[j] > RP_LIGHT_SIMD_HMAX)
                return 1;
        m[i] = (int32_t)v[0];
        u2[i] = (int32_t)v[1];
        d2[i] = (int32_t)v[2];
    }
    return group_v(k, x, m + st, u2 + st, d2 + st, out, rgba);
}

/* The row from x0 on in groups of 8, the last one overlapping the one before when w is not
 * a multiple of 8 (it writes those pixels again with the same bytes). */
static AVX2 int row_v(const rp_light *l, const struct rp_light_frame *f,
                      const struct rp_light_wrows *r, int x0, const uint8_t *bg, uint8_t *out,
                      int rgba)
{
    struct wk k;
    wk_init(&k, l, f, r, bg);
    /* still water: lit3_q8(t << 8, gain0) is t << 8 when gain0 is 4096, and a white tint
     * takes it back to t */
    const __m256i zero = _mm256_setzero_si256();
    k.cw0 = layer_v(&k, zero, zero, zero);
    k.flat_copy = none(k.cw0) && _mm256_cvtsi256_si32(k.gain0) == 4096 && l->tint[0] == 65536 &&
                  l->tint[1] == 65536 && l->tint[2] == 65536;
    const int w = k.w, st = k.st;
    for (int x = x0; x < w; x += 8) {
        if (x + 8 > w)
            x = w - 8;
        int fail = x - st >= 0 && x + 7 + st <= w - 1
                       ? group_v(&k, x, k.m + x, k.u2 + x, k.d2 + x, out, rgba)
                       : edge_group(&k, x, out, rgba);
        if (fail)
            return x; /* a texel past the frame, or an edge height past HMAX: the plain loop */
    }
    return w;
}

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

/* The row from x0 on (row_v). Rows within sy_step of the top or bottom read rows past the
 * frame: only those (u2, and u1 on row 0; d2, and d1 on the last row) are copied as 2 edge -
 * row, about 2 (sy_step + 1) rows a frame (rp_light_odd is linear, so the copies' own
 * continuation past the left and right ends is water_px's), or left to the plain loop when
 * a copy cannot be made or passes the kernel's bounds. */
static AVX2 int water_row_avx2(const rp_light *l, const struct rp_light_frame *f,
                               const struct rp_light_wrows *r, int x0, const uint8_t *bg,
                               uint8_t *out, int rgba)
{
    if (!(r->odd_u2 | r->odd_d2)) /* sy_step >= 1: odd_u1 implies odd_u2, odd_d1 odd_d2 */
        return row_v(l, f, r, x0, bg, out, rgba);
    struct rp_light_wrows c = *r;
    const int32_t **rows[4] = {&c.u2, &c.u1, &c.d1, &c.d2};
    const int odd[4] = {r->odd_u2, r->odd_u1, r->odd_d1, r->odd_d2};
    const int w = f->w, n = odd[0] + odd[1] + odd[2] + odd[3];
    int32_t *tmp = malloc((size_t)w * n * sizeof *tmp), *t = tmp;
    if (!tmp)
        return x0;
    int ok = 1;
    for (int i = 0; i < 4 && ok; i++) {
        if (!odd[i])
            continue;
        ok = odd_row(*rows[i], i < 2 ? r->top : r->bottom, w, t);
        *rows[i] = t;
        t += w;
    }
    c.odd_u2 = c.odd_u1 = c.odd_d1 = c.odd_d2 = 0;
    int x = ok ? row_v(l, f, &c, x0, bg, out, rgba) : x0;
    free(tmp);
    return x;
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

/* Whether water_row_avx2 is exact for rows y0..y1-1 of this frame (frames 8 or more pixels
 * wide, y0 < y1): no sky image (the plain loop reflects it), a laplacian spacing within the
 * edge copies, the int32 bounds the kernel's steps rely on (each holds for every frame_init
 * and build_water gives today; checked, not assumed), and the heights it reads. */
static int water_rows_ok_avx2(const rp_light *l, const struct rp_light_frame *f,
                              const int32_t *heights, int y0, int y1)
{
    const int64_t b24 = (int64_t)1 << 24, b31 = (int64_t)1 << 31;
    if (f->sky || f->sx_step > EDGE_PAD)
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
    /* the rows y0 - sy_step .. y1 + sy_step - 1 hold every row these read, mirrored or not */
    int ra = y0 - f->sy_step < 0 ? 0 : y0 - f->sy_step;
    int rb = y1 + f->sy_step > f->h ? f->h : y1 + f->sy_step;
    return heights_ok(heights + (size_t)ra * f->w, (size_t)(rb - ra) * f->w);
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_light_water_dsp_init_x86(rp_light_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->water_row = water_row_avx2;
        c->water_rows_ok = water_rows_ok_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
