/* light_water_body.h - look water's vector kernel (light.c: water_px, water_bed and the
 * blend of water_span_rgb, or the layer of water_span_rgba), VL pixels at a time and exact to
 * the last bit: every step of the plain loop in int32 lanes, where each value is shown to
 * fit, and the products that need 64 bits as pairs of 32x32 -> 64-bit multiplies. Tables are
 * read with gathers (one 32-bit gather fetches entries i and i + 1 of a uint16 table), or,
 * for the slopes of most water, from registers with permutes; the bed with four 32-bit
 * gathers of its texels (or, with VPERMB, byte permutes where it can: texels_near). Groups
 * with no slope, no curvature, no bright caustics or no layer skip those parts (the same
 * integers come out), and still water that shows the picture as it is is copied. Groups
 * near the row's ends read copies of their heights continued past the ends (rp_light_odd).
 *
 * Written once over a vector of VL int32 lanes and compiled by light_water_avx2.c (VL 8),
 * light_water_avx512.c (VL 16; again with VBMI for light_water_avx512icl.c) and
 * src/wasm/light_water.c (VL 4), which define the types VI and VF (VL floats), the
 * function attribute TARGET, the entry's name ROW_V, and these operations: VOP(op) for
 * the _mm256_op / _mm512_op of the same meaning; VAND VOR VZERO; VCMPGT (lanes of all ones
 * or zeros), VBLENDV(a, b, m) (b where m), VBLEND_ODD(e, o) (odd lanes from o); VGATHER(base,
 * index, scale); VPERM(t, i) (lane i of t); VFIRST (lane 0); VIOTA (0..VL-1); VSTORE (VL
 * lanes); VLOAD_U16 (VL uint16 widened); vnone, vclamp,
 * vslope (light.c's slope_q12: light_avx2.h's slope_v at 8 lanes), vloadh, vload_rgb and
 * vstore_rgb (VL packed RGB pixels). Optionally VPERMB(lo, i, hi) (bytes i, 0..127, of lo
 * then hi), VBYTES(r) (each lane's byte offset r as the offsets r..r + 3 of its bytes) and
 * VLOADU (64 bytes): then texels_near picks the bed's texels without gathers where it can. */

/* Bits s..s+31 of 64-bit products e (even lanes) and o (odd lanes): floor(p / 2^s) when
 * that fits in int32 (a logical and an arithmetic shift agree on those bits). */
#define VSHR_PAIR(e, o, s) VBLEND_ODD(VOP(srli_epi64)((e), (s)), VOP(slli_epi64)((o), 32 - (s)))

/* floor((a * b + r) / 2^s) of int32 lanes, r a 64-bit vector, when the result fits int32. */
#define MUL_SHR(a, b, r, s)                                                                        \
    VSHR_PAIR(                                                                                     \
        VOP(add_epi64)(VOP(mul_epi32)((a), (b)), (r)),                                             \
        VOP(add_epi64)(VOP(mul_epi32)(VOP(srli_epi64)((a), 32), VOP(srli_epi64)((b), 32)), (r)),   \
        (s))

/* The same for unsigned lanes. */
#define MULU_SHR(a, b, r, s)                                                                       \
    VSHR_PAIR(                                                                                     \
        VOP(add_epi64)(VOP(mul_epu32)((a), (b)), (r)),                                             \
        VOP(add_epi64)(VOP(mul_epu32)(VOP(srli_epi64)((a), 32), VOP(srli_epi64)((b), 32)), (r)),   \
        (s))

/* Entries i and i + 1 of a uint16 table (one 32-bit load each lane) interpolated by fr of
 * 2^shift: t[i] + ((t[i + 1] - t[i]) * fr >> shift). */
INLINE TARGET VI interp16(const uint16_t *tab, VI i, VI fr, const int shift)
{
    VI g = VGATHER((const int *)(const void *)tab, i, 2);
    VI t0 = VAND(g, VOP(set1_epi32)(0xffff));
    VI dt = VOP(sub_epi32)(VOP(srli_epi32)(g, 16), t0);
    return VOP(add_epi32)(t0, VOP(srai_epi32)(VOP(mullo_epi32)(dt, fr), shift));
}

/* What one row needs: its rows of heights and every per-frame constant as a vector. */
struct wk {
    const rp_light *l;
    const int32_t *u2, *u1, *m, *d1, *d2, *u3, *d3;
    const uint8_t *bg;
    int w, y, st, fs, pad, sky_on;  /* pad: the reach of the widest step, max(st, fs) */
    struct kslope kx, ky, kfx, kfy; /* kfx, kfy: the footprint's slopes */
    VI cxm, cym, cxym;              /* curvature factors (< 2^24) */
    VI hlim;                        /* the Hessian terms' clamp, Q16 (caustic_gain) */
    VI llx, lly, llxy;              /* the laplacians' clamps where the terms reach hlim */
    VI caus_a, lim, caus, gain0;
    VI dx, dy, half27; /* the bed offset's factors (< 2^31) */
    VI xmax, ymax, wm1, hm1, wv, w3, last;
    VI mx, my, glim, ginh, ginl; /* the glint: mirror slope, d^2 limit, 1/sigma^2 */
    VI tint[3], light[3], sky[3];
    /* entries 0..VL-1 and 1..VL of wref and wsky: slopes below 0.35 (VL 8: r2 < 2^21) or
     * 0.5 (VL 16: r2 < 2^22) index no further, so most groups read them with a permute
     * instead of a gather */
    VI wref0, wref1, wsky0, wsky1;
    VI cw0;        /* the layer on still water (no slope) */
    int flat_copy; /* still water is the picture itself (no layer, no gain, no tint) */
};

/* The least lap >= 0 with lap * c >> s >= hl (c, hl >= 0), at most 2^(s + 10) (the
 * laplacians lie within it: 2^26 for the cross difference, s 16; 2^29 for the smoothed
 * second differences, 8 times theirs, s 19), 0 when c is 0. */
static int32_t lap_lim(int64_t hl, int64_t c, int s)
{
    if (c <= 0)
        return 0;
    int64_t v = ((hl << s) + c - 1) / c;
    return (int32_t)(v > ((int64_t)1 << (s + 10)) ? (int64_t)1 << (s + 10) : v);
}

static TARGET void wk_init(struct wk *k, const rp_light *l, const struct rp_light_frame *f,
                           const struct rp_light_wrows *r, const uint8_t *bg)
{
    k->l = l;
    k->u2 = r->u2;
    k->u1 = r->u1;
    k->m = r->m;
    k->d1 = r->d1;
    k->d2 = r->d2;
    k->u3 = r->u3;
    k->d3 = r->d3;
    k->bg = bg;
    k->w = f->w;
    k->y = r->y;
    k->st = f->sx_step;
    k->fs = f->fx_step;
    k->pad = f->fx_step > f->sx_step ? f->fx_step : f->sx_step;
    k->sky_on = l->p.sky_q8 != 0; /* else every wsky entry is 0 */
    kslope_init(&k->kx, f->scale_x * f->mdiv);
    kslope_init(&k->ky, f->scale_y * f->mdiv);
    /* the same clamp as light.c's foot_q12 (rp_light_slope_lim) */
    kslope_init(&k->kfx, f->fkx);
    kslope_init(&k->kfy, f->fky);
    k->cxm = VOP(set1_epi32)((int32_t)f->cxm);
    k->cym = VOP(set1_epi32)((int32_t)f->cym);
    k->cxym = VOP(set1_epi32)((int32_t)f->cxym);
    /* clamp(caus_a * h >> 12, +-lim) is lim from h = ceil(2^12 lim / caus_a) on (and -lim
     * from -h), so h may be clamped there first, which keeps caus_a * h within 2^28 + 2^24;
     * and h = lap * c >> 16 reaches hlim from lap = ceil(2^16 hlim / c) on (and -hlim from
     * -lap): lap clamped there first keeps lap * c within 2^44 + 2^24, h within int32 */
    const int64_t lim = (int64_t)16 << 12;
    int64_t hl = l->caus_a > 0 ? (4096 * lim + l->caus_a - 1) / l->caus_a : 0;
    k->hlim = VOP(set1_epi32)((int32_t)hl);
    k->llx = VOP(set1_epi32)(lap_lim(hl, f->cxm, 19));
    k->lly = VOP(set1_epi32)(lap_lim(hl, f->cym, 19));
    k->llxy = VOP(set1_epi32)(lap_lim(hl, f->cxym, 16));
    k->caus_a = VOP(set1_epi32)((int32_t)l->caus_a);
    k->lim = VOP(set1_epi32)((int32_t)lim);
    k->caus = VOP(set1_epi32)(l->p.caustics_q8);
    /* flat water: det = 1 (4096), so gain = 1 + caustics * (1 / det - 1) as water_px has it */
    int64_t g0 = 4096 + (((int64_t)(l->wrecip[4096] - 4096) * l->p.caustics_q8) >> 8);
    k->gain0 = VOP(set1_epi32)((int32_t)(g0 < 0 ? 0 : g0 > lim ? lim : g0));
    k->dx = VOP(set1_epi32)((int32_t)f->dx);
    k->dy = VOP(set1_epi32)((int32_t)f->dy);
    k->half27 = VSET1_64((int64_t)1 << 27);
    k->xmax = VOP(set1_epi32)((f->w - 1) << 8);
    k->ymax = VOP(set1_epi32)((f->h - 1) << 8);
    k->wm1 = VOP(set1_epi32)(f->w - 1);
    k->hm1 = VOP(set1_epi32)(f->h - 1);
    k->wv = VOP(set1_epi32)(f->w);
    k->w3 = VOP(set1_epi32)(3 * f->w);
    /* the 4-byte texel loads must stay inside the frame */
    k->last = VOP(set1_epi32)((int32_t)((int64_t)f->w * f->h * 3 - 4));
    k->mx = VOP(set1_epi32)(l->mirror_x);
    k->my = VOP(set1_epi32)(l->mirror_y);
    k->glim = VOP(set1_epi32)((int32_t)l->glint_lim);
    /* glint_inv = hi * 2^32 + lo, lo unsigned: d^2 * inv >> 24 = (d^2 * hi << 8) + (d^2 *
     * lo >> 24) */
    k->ginh = VOP(set1_epi32)((int32_t)((l->glint_inv >> 32) << 8));
    k->ginl = VOP(set1_epi32)((int32_t)(uint32_t)(l->glint_inv & 0xffffffffu));
    for (int c = 0; c < 3; c++) {
        k->tint[c] = VOP(set1_epi32)(l->tint[c]);
        k->light[c] = VOP(set1_epi32)(l->p.light_rgb[c]);
        k->sky[c] = VOP(set1_epi32)(l->p.sky_rgb[c]);
    }
    k->wref0 = vloadh(l->wref);
    k->wref1 = vloadh(l->wref + 1);
    k->wsky0 = VLOAD_U16(l->wsky);
    k->wsky1 = VLOAD_U16(l->wsky + 1);
}

/* Every lane's table index r2 >> 18 below VL (the entries the registers hold). */
INLINE TARGET int small_r2(VI r2)
{
    return vnone(VCMPGT(r2, VOP(set1_epi32)((VL << 18) - 1)));
}

/* t[i] + ((t[i + 1] - t[i]) * fr >> 8) from t0 = t[0..VL-1] and t1 = t[1..VL], every i < VL. */
INLINE TARGET VI interp_reg(VI t0, VI t1, VI i, VI fr)
{
    VI a = VPERM(t0, i), b = VPERM(t1, i);
    return VOP(add_epi32)(a, VOP(srai_epi32)(VOP(mullo_epi32)(VOP(sub_epi32)(b, a), fr), 8));
}

/* The caustics' gain (Q12) from the laplacians lxx, lyy and the cross difference lxy (each
 * within 2^26): water_px's 1 / det(I + a Hess), eased by the strength. */
INLINE TARGET VI caustic_gain(const struct wk *k, VI lxx, VI lyy, VI lxy)
{
    const VI zero = VZERO(), r0 = VZERO();
    const VI nh = VOP(sub_epi32)(zero, k->hlim), nl = VOP(sub_epi32)(zero, k->lim);
    /* h = lap * c >> 16 (Q16), the laplacians clamped first (wk_init); each a * h term
     * clamped to +-16 (Q12) */
    lxx = vclamp(lxx, VOP(sub_epi32)(zero, k->llx), k->llx);
    lyy = vclamp(lyy, VOP(sub_epi32)(zero, k->lly), k->lly);
    lxy = vclamp(lxy, VOP(sub_epi32)(zero, k->llxy), k->llxy);
    VI hxx = vclamp(MUL_SHR(lxx, k->cxm, r0, 19), nh, k->hlim);
    VI hyy = vclamp(MUL_SHR(lyy, k->cym, r0, 19), nh, k->hlim);
    VI hxy = vclamp(MUL_SHR(lxy, k->cxym, r0, 16), nh, k->hlim);
    VI axx = vclamp(VOP(srai_epi32)(VOP(mullo_epi32)(k->caus_a, hxx), 12), nl, k->lim);
    VI ayy = vclamp(VOP(srai_epi32)(VOP(mullo_epi32)(k->caus_a, hyy), 12), nl, k->lim);
    VI axy = vclamp(VOP(srai_epi32)(VOP(mullo_epi32)(k->caus_a, hxy), 12), nl, k->lim);
    /* (4096 + a) reaches 69632: the products need 64 bits, their >> 12 does not */
    const VI one = VOP(set1_epi32)(4096);
    VI bxx = VOP(add_epi32)(one, axx), byy = VOP(add_epi32)(one, ayy);
    VI det = VOP(sub_epi32)(MUL_SHR(bxx, byy, r0, 12), MUL_SHR(axy, axy, r0, 12));
    det = vclamp(det, zero, VOP(set1_epi32)(RP_LIGHT_RECIP_N));
    VI e = VGATHER((const int *)k->l->wrecip, det, 4);
    /* (e - 4096) * caustics: e <= 2^16, caustics <= 2^14 */
    VI gain =
        VOP(add_epi32)(one, VOP(srai_epi32)(VOP(mullo_epi32)(VOP(sub_epi32)(e, one), k->caus), 8));
    return vclamp(gain, zero, k->lim);
}

/* light.c's reflect_q8: q mirrored about 0 and max, then clamped (|q| < 2^30). */
INLINE TARGET VI reflect_v(VI q, VI max)
{
    VI a = VOP(abs_epi32)(q);
    a = VOP(min_epi32)(a, VOP(sub_epi32)(VOP(add_epi32)(max, max), a));
    return vclamp(a, VZERO(), max);
}

/* The bed point seen at pixels x..x+VL-1 (Q8 pixels, mirrored at the edges): (x, y) +
 * ((s * g >> 8) * d + 2^27) >> 28 per axis, g the refraction table at |s|^2 (g <= 2^14, so
 * s * g < 2^29). */
INLINE TARGET void bed_point(const struct wk *k, int x, VI sx, VI sy, VI r2, VI *qx, VI *qy)
{
    const VI lanes = VOP(slli_epi32)(VIOTA(), 8);
    VI i = VOP(srli_epi32)(r2, 18);
    VI fr = VAND(VOP(srli_epi32)(r2, 10), VOP(set1_epi32)(255));
    VI g;
    if (small_r2(r2)) {
        g = interp_reg(k->wref0, k->wref1, i, fr);
    } else {
        VI g0 = VGATHER((const int *)k->l->wref, i, 4);
        VI g1 = VGATHER((const int *)k->l->wref + 1, i, 4);
        g = VOP(add_epi32)(g0, VOP(srai_epi32)(VOP(mullo_epi32)(VOP(sub_epi32)(g1, g0), fr), 8));
    }
    VI mxv = VOP(srai_epi32)(VOP(mullo_epi32)(sx, g), 8);
    VI myv = VOP(srai_epi32)(VOP(mullo_epi32)(sy, g), 8);
    VI px = VOP(add_epi32)(VOP(set1_epi32)(x << 8), lanes);
    *qx = reflect_v(VOP(add_epi32)(px, MUL_SHR(mxv, k->dx, k->half27, 28)), k->xmax);
    *qy = reflect_v(VOP(add_epi32)(VOP(set1_epi32)(k->y << 8), MUL_SHR(myv, k->dy, k->half27, 28)),
                    k->ymax);
}

#ifdef VPERMB
/* plate_v's texels (the 4 bytes at each of o00, o00 + step, o10 and o10 + step) where every
 * lane's lie within a window of 128 bytes of each row around lane 0's (the bed points of
 * nearly flat water do): two loads of each row and byte permutes instead of four gathers,
 * the same bytes. Returns 0 (nothing set) where they do not, or a window would leave the
 * frame. */
INLINE TARGET int texels_near(const struct wk *k, VI o00, VI o10, VI step, VI *g00, VI *g01,
                              VI *g10, VI *g11)
{
    int base0 = VFIRST(o00) - 48, base1 = VFIRST(o10) - 48, last = VFIRST(k->last);
    if (base0 < 0 || base1 < 0 || base0 + 124 > last || base1 + 124 > last)
        return 0;
    VI r00 = VOP(sub_epi32)(o00, VOP(set1_epi32)(base0));
    VI r10 = VOP(sub_epi32)(o10, VOP(set1_epi32)(base1));
    VI r01 = VOP(add_epi32)(r00, step), r11 = VOP(add_epi32)(r10, step);
    const VI lim = VOP(set1_epi32)(124); /* a texel's 4 bytes end in the window */
    if (!vnone(VOR(VOR(VCMPGT(r01, lim), VCMPGT(r11, lim)),
                   VOR(VCMPGT(VZERO(), r00), VCMPGT(VZERO(), r10)))))
        return 0;
    const uint8_t *b0 = k->bg + base0, *b1 = k->bg + base1;
    VI a0 = VLOADU(b0), a1 = VLOADU(b0 + 64), c0 = VLOADU(b1), c1 = VLOADU(b1 + 64);
    *g00 = VPERMB(a0, VBYTES(r00), a1);
    *g01 = VPERMB(a0, VBYTES(r01), a1);
    *g10 = VPERMB(c0, VBYTES(r10), c1);
    *g11 = VPERMB(c0, VBYTES(r11), c1);
    return 1;
}

/* The 4 bytes at each lane's offset o, from two windows of 128 bytes that start at a and at
 * a + rb (a row further): from the second where o reaches it. 0 when a lane's lie in
 * neither. */
INLINE TARGET int window_pick(VI o, int a, int rb, VI wa0, VI wa1, VI wb0, VI wb1, VI *g)
{
    const VI lim = VOP(set1_epi32)(124);
    VI in_b = VCMPGT(o, VOP(set1_epi32)(a + rb - 1));
    VI rel = VOP(sub_epi32)(o, VOP(add_epi32)(VOP(set1_epi32)(a), VAND(in_b, VOP(set1_epi32)(rb))));
    if (!vnone(VOR(VCMPGT(rel, lim), VCMPGT(VZERO(), rel))))
        return 0;
    VI i = VBYTES(rel);
    *g = VBLENDV(VPERMB(wa0, i, wa1), VPERMB(wb0, i, wb1), in_b);
    return 1;
}

/* texels_near for groups whose lanes' rows span two (lane 0's and the one above or below),
 * where texels_near's fails: three rows' windows, each lane's texels from its own rows'. The
 * same bytes, or 0 (nothing set) where a lane's lie outside them or the frame. */
INLINE TARGET int texels_straddle(const struct wk *k, VI iy, VI o00, VI o10, VI step, VI *g00,
                                  VI *g01, VI *g10, VI *g11)
{
    int r = VFIRST(iy), rb = 3 * k->w;
    if (!vnone(VCMPGT(VOP(set1_epi32)(r), iy)))
        r--; /* a lane lies a row above lane 0's */
    int a = VFIRST(o00) - (VFIRST(iy) - r) * rb - 48, last = VFIRST(k->last);
    if (a < 0 || a + 2 * rb + 124 > last)
        return 0;
    const uint8_t *p = k->bg + a;
    VI w00 = VLOADU(p), w01 = VLOADU(p + 64), w10 = VLOADU(p + rb), w11 = VLOADU(p + rb + 64);
    VI w20 = VLOADU(p + 2 * rb), w21 = VLOADU(p + 2 * rb + 64);
    return window_pick(o00, a, rb, w00, w01, w10, w11, g00) &&
           window_pick(VOP(add_epi32)(o00, step), a, rb, w00, w01, w10, w11, g01) &&
           window_pick(o10, a + rb, rb, w10, w11, w20, w21, g10) &&
           window_pick(VOP(add_epi32)(o10, step), a + rb, rb, w10, w11, w20, w21, g11);
}
#endif

/* The background at the bed points, bilinear, Q8 levels per channel (plate_px: its exact
 * path for undisplaced pixels is this formula's value there). Returns 0, or 1 when a texel
 * load would end past the frame (nothing done: the caller leaves the pixels to the plain
 * loop). */
INLINE TARGET int plate_v(const struct wk *k, VI qx, VI qy, VI t[3])
{
    const VI m255 = VOP(set1_epi32)(255);
    VI ix = VOP(srli_epi32)(qx, 8), iy = VOP(srli_epi32)(qy, 8);
    VI fx = VAND(qx, m255), fy = VAND(qy, m255);
    VI o00 = VOP(add_epi32)(VOP(mullo_epi32)(iy, k->wv), ix);
    o00 = VOP(add_epi32)(o00, VOP(add_epi32)(o00, o00));
    VI step = VAND(VCMPGT(k->wm1, ix), VOP(set1_epi32)(3));
    VI o10 = VOP(add_epi32)(o00, VAND(VCMPGT(k->hm1, iy), k->w3));
    VI o11 = VOP(add_epi32)(o10, step);
    VI beyond = VCMPGT(o11, k->last);
    if (!vnone(beyond))
        return 1;
    const int *bg = (const int *)(const void *)k->bg;
    VI g00, g01, g10, g11;
#ifdef VPERMB
    if (!texels_near(k, o00, o10, step, &g00, &g01, &g10, &g11) &&
        !texels_straddle(k, iy, o00, o10, step, &g00, &g01, &g10, &g11))
#endif
    {
        g00 = VGATHER(bg, o00, 1);
        g01 = VGATHER(bg, VOP(add_epi32)(o00, step), 1);
        g10 = VGATHER(bg, o10, 1);
        g11 = VGATHER(bg, o11, 1);
    }
    for (int c = 0; c < 3; c++) {
        VI p00 = VAND(VOP(srli_epi32)(g00, 8 * c), m255);
        VI p01 = VAND(VOP(srli_epi32)(g01, 8 * c), m255);
        VI p10 = VAND(VOP(srli_epi32)(g10, 8 * c), m255);
        VI p11 = VAND(VOP(srli_epi32)(g11, 8 * c), m255);
        /* top = p00 (256 - fx) + p01 fx; tq = (top (256 - fy) + bot fy + 128) >> 8 */
        VI top =
            VOP(add_epi32)(VOP(slli_epi32)(p00, 8), VOP(mullo_epi32)(VOP(sub_epi32)(p01, p00), fx));
        VI bot =
            VOP(add_epi32)(VOP(slli_epi32)(p10, 8), VOP(mullo_epi32)(VOP(sub_epi32)(p11, p10), fx));
        VI v =
            VOP(add_epi32)(VOP(slli_epi32)(top, 8), VOP(mullo_epi32)(VOP(sub_epi32)(bot, top), fy));
        t[c] = VOP(srli_epi32)(VOP(add_epi32)(v, VOP(set1_epi32)(128)), 8);
    }
    return 0;
}

/* floor(n * m / 2^(32 + e)) of unsigned lanes n and m, 0 <= e <= 32. */
#define MULHI_U(n, m, e)                                                                           \
    VBLEND_ODD(VOP(srli_epi64)(VOP(mul_epu32)((n), (m)), 32 + (e)),                                \
               VOP(srli_epi64)(VOP(mul_epu32)(VOP(srli_epi64)((n), 32), (m)), (e)))

/* floor(n / 3) and floor(n / 9) of lanes 0 <= n < 2^32 (the compilers' magic numbers, exact
 * over that range). */
INLINE TARGET VI div3(VI n)
{
    return MULHI_U(n, VOP(set1_epi32)((int32_t)0xAAAAAAABu), 1);
}

INLINE TARGET VI div9(VI n)
{
    return MULHI_U(n, VOP(set1_epi32)(0x38E38E39), 1);
}

/* floor(n / d) of lanes 0 <= n < 2^31, 1 <= d < 2^24, where the quotient of n rounded to a
 * float by d (exact) truncates to within 1 of it (the callers say why theirs does): one
 * float division a lane, then the remainder n - q d (below 2d in size, so exact in int32
 * arithmetic) says which way to step. */
INLINE TARGET VI div_v(VI n, VI d)
{
    VI q = VOP(cvttps_epi32)(VOP(div_ps)(VOP(cvtepi32_ps)(n), VOP(cvtepi32_ps)(d)));
    VI r = VOP(sub_epi32)(n, VOP(mullo_epi32)(q, d));
    /* r < 0: one less; r >= d: one more (the masks are -1) */
    q = VOP(add_epi32)(q, VCMPGT(VZERO(), r));
    return VOP(sub_epi32)(q, VCMPGT(r, VOP(sub_epi32)(d, VOP(set1_epi32)(1))));
}

/* compose()'s inv = floor((2^30 + floor(A / 2)) / A) of lanes 65 <= A <= 2^15 (where a8 =
 * (255 A + 2^14) >> 15 > 0; other lanes get a value not used): div_v's float quotient is
 * within 1 of it for every such A (the numerator's rounding moves it by at most 64 / A < 1,
 * and it lies below 2^24, where a float's unit is at most 1; checked one A at a time). */
INLINE TARGET VI inv_v(VI A)
{
    VI Am = VOP(max_epi32)(A, VOP(set1_epi32)(1));
    return div_v(VOP(add_epi32)(VOP(set1_epi32)(1 << 30), VOP(srli_epi32)(Am, 1)), Am);
}

/* lit_q8() of light.c: the picture tq (Q8 levels) lit by the gain (Q12), with the ease of
 * the light it gains; tq * gain < 2^32 (tq <= 255 << 8, gain <= 16 << 12). */
INLINE TARGET VI lit_v(VI tq, VI gain)
{
    VI v = VOP(srli_epi32)(VOP(mullo_epi32)(tq, gain), 12);
    VI bright = VCMPGT(v, tq);
    if (vnone(bright))
        return v;
    VI add = VOP(sub_epi32)(v, tq);
    VI room = VOP(sub_epi32)(VOP(set1_epi32)(255 << 8), tq);
    /* within 48 levels of white room^2 / 12288 * room / 36864 (12288 = 3 * 4096, 36864 = 9 *
     * 4096: floor(floor(n / 3) / 4096) = floor(n / 12288)), else room / 3 */
    VI near = VCMPGT(VOP(set1_epi32)(48 << 8), room);
    VI lh_n = VOP(srli_epi32)(div3(VOP(mullo_epi32)(room, room)), 12);
    lh_n = VOP(srli_epi32)(div9(VOP(mullo_epi32)(lh_n, room)), 12);
    VI lh = VBLENDV(div3(room), lh_n, near);
    VI soft = VAND(bright, VCMPGT(VOP(add_epi32)(add, add), lh));
    if (!vnone(soft)) {
        /* lh^2 < 2^29, 4 add < 2^22; lanes not soft divide by 1 and are not used. The
         * quotient is below lh / 2 < 2^14 (2 add > lh), so div_v's float quotient, within
         * a relative 2^-23 of it, is within 2^-9 of it */
        VI den = VOP(max_epi32)(VOP(slli_epi32)(add, 2), VOP(set1_epi32)(1));
        VI q = div_v(VOP(mullo_epi32)(lh, lh), den);
        add = VBLENDV(add, VOP(sub_epi32)(lh, q), soft);
    }
    return VBLENDV(v, VOP(add_epi32)(tq, add), bright);
}

/* lit3_q8() of light.c: the three channels t (Q8 levels) lit by the gain (Q12), the
 * brightest eased by lit_v and the others scaled by its ratio where the gain brightens.
 * floor(t * vm / mx) from one float reciprocal of mx a lane: t and vm (< 2^16) are exact
 * as floats, and the quotient Q <= vm < 2^16 (t <= mx) comes out of three roundings within
 * a relative 2^-22, so within 2^-6 of Q, and truncates to within 1 of floor(Q); the
 * remainder t vm - q mx (below 2 mx in size, so exact in 32-bit arithmetic though t vm may
 * pass 2^31) says which way to step. */
INLINE TARGET void lit3_v(const VI t[3], VI gain, VI v[3])
{
    VI mx = VOP(max_epi32)(VOP(max_epi32)(t[0], t[1]), t[2]);
    VI bright = VAND(VCMPGT(gain, VOP(set1_epi32)(4096)), VCMPGT(mx, VZERO()));
    for (int c = 0; c < 3; c++)
        v[c] = VOP(srli_epi32)(VOP(mullo_epi32)(t[c], gain), 12);
    if (vnone(bright))
        return;
    VI vm = lit_v(mx, gain);
    /* lanes not bright divide by 1 and are not used */
    VI d = VOP(max_epi32)(mx, VOP(set1_epi32)(1));
    const VI dm1 = VOP(sub_epi32)(d, VOP(set1_epi32)(1));
    VF rcp = VOP(div_ps)(VOP(set1_ps)(1), VOP(cvtepi32_ps)(d));
    VF fvm = VOP(mul_ps)(VOP(cvtepi32_ps)(vm), rcp);
    for (int c = 0; c < 3; c++) {
        VI q = VOP(cvttps_epi32)(VOP(mul_ps)(VOP(cvtepi32_ps)(t[c]), fvm));
        VI r = VOP(sub_epi32)(VOP(mullo_epi32)(t[c], vm), VOP(mullo_epi32)(q, d));
        q = VOP(sub_epi32)(VOP(add_epi32)(q, VCMPGT(VZERO(), r)), VCMPGT(r, dm1));
        v[c] = VBLENDV(v[c], q, bright);
    }
}

/* The layer at VL pixels from their slopes (r2 = |s|^2): the sky's Fresnel alpha and the
 * glint composed as compose() does, as C | A << 24 per lane, 0 where A rounds to 0. */
INLINE TARGET VI layer_v(const struct wk *k, VI sx, VI sy, VI r2)
{
    const rp_light *l = k->l;
    const VI zero = VZERO(), one15 = VOP(set1_epi32)(RP_LIGHT_ONE15);
    const VI m255 = VOP(set1_epi32)(255);
    VI a_s = zero;
    if (k->sky_on) {
        VI i = VOP(srli_epi32)(r2, 18);
        VI fr = VAND(VOP(srli_epi32)(r2, 10), m255);
        a_s = small_r2(r2) ? interp_reg(k->wsky0, k->wsky1, i, fr) : interp16(l->wsky, i, fr, 8);
    }
    /* the glint: d^2 = |s - m|^2, each difference clamped to 32767 (so d^2 < 2^31) where
     * d^2 is beyond glint_lim (<= 32767^2) either way */
    const VI dmax = VOP(set1_epi32)(32767), dmin = VOP(set1_epi32)(-32767);
    VI dgx = vclamp(VOP(sub_epi32)(sx, k->mx), dmin, dmax);
    VI dgy = vclamp(VOP(sub_epi32)(sy, k->my), dmin, dmax);
    VI d2 = VOP(add_epi32)(VOP(mullo_epi32)(dgx, dgx), VOP(mullo_epi32)(dgy, dgy));
    VI in = VCMPGT(k->glim, d2);
    VI a_p = zero;
    if (!vnone(in)) {
        /* u = d^2 * inv >> 24 < 2^20 where in; d^2 = 0 elsewhere keeps the index in the table */
        VI d2m = VAND(d2, in);
        VI u = VOP(add_epi32)(VOP(mullo_epi32)(d2m, k->ginh), MULU_SHR(d2m, k->ginl, zero, 24));
        a_p = VAND(interp16(l->wglint, VOP(srli_epi32)(u, 8), VAND(u, m255), 8), in);
    }
    if (vnone(VOR(a_s, a_p)))
        return zero;
    /* compose(): t = os * op, A = 1 - t, the sky's weight a_s * op, the light's a_p */
    VI op = VOP(sub_epi32)(one15, a_p), os = VOP(sub_epi32)(one15, a_s);
    VI A = VOP(sub_epi32)(one15, VOP(srai_epi32)(VOP(mullo_epi32)(os, op), 15));
    VI w_sky = VOP(srai_epi32)(VOP(mullo_epi32)(a_s, op), 15);
    VI a8 = VOP(srai_epi32)(VOP(add_epi32)(VOP(mullo_epi32)(A, m255), VOP(set1_epi32)(16384)), 15);
    VI lit = VCMPGT(a8, zero);
    if (vnone(lit))
        return zero;
    VI inv = inv_v(A);
    const VI r29 = VSET1_64((int64_t)1 << 29);
    VI cw = VOP(slli_epi32)(a8, 24);
    for (int c = 0; c < 3; c++) {
        /* pc < 2^24, inv < 2^25: the product needs 64 bits, its >> 30 does not */
        VI pc =
            VOP(add_epi32)(VOP(mullo_epi32)(a_p, k->light[c]), VOP(mullo_epi32)(w_sky, k->sky[c]));
        VI ch = VOP(min_epi32)(MULU_SHR(pc, inv, r29, 30), m255);
        cw = VOR(cw, VOP(slli_epi32)(ch, 8 * c));
    }
    return VAND(cw, lit);
}

/* The composite of pixels x..x+VL-1 of the row into out (the row): the bed under the layer
 * cw, or the layer alone into an RGBA row. m, u2, d2, u3 and d3 point at pixel x of rows y,
 * y -+ sy_step and y -+ fy_step, readable from x - pad to x + VL - 1 + pad: the rows
 * themselves inside the frame, edge_group's copies near its ends. Returns 0, or 1
 * when a texel load would end past the frame (nothing written). */
INLINE TARGET int group_v(const struct wk *k, int x, const int32_t *m, const int32_t *u2,
                          const int32_t *d2, const int32_t *u3, const int32_t *d3, uint8_t *out,
                          int rgba)
{
    const VI m255 = VOP(set1_epi32)(255);
    const int st = k->st;
    VI sx = vslope(VOP(sub_epi32)(vloadh(m + 1), vloadh(m - 1)), &k->kx);
    VI sy = vslope(VOP(sub_epi32)(vloadh(k->d1 + x), vloadh(k->u1 + x)), &k->ky);
    /* |s| < 2^15 per axis: r2 < 2^31 and its table index r2 >> 18 < RSQ_N */
    VI sxy = VOR(sx, sy);
    VI r2 = VOP(add_epi32)(VOP(mullo_epi32)(sx, sx), VOP(mullo_epi32)(sy, sy));
    if (rgba) {
        VI cw = vnone(sxy) ? k->cw0 : layer_v(k, sx, sy, r2);
        VSTORE((void *)(out + 4 * (size_t)x), cw);
        return 0;
    }
    /* the curvature's differences over +-st pixels: water_px's second differences smoothed
     * across, 1 6 1 (8 times theirs, within 2^29), and the cross difference (2^26) */
    VI ul = vloadh(u2 - st), ur = vloadh(u2 + st), dl = vloadh(d2 - st), dr = vloadh(d2 + st);
    VI corners = VOP(add_epi32)(VOP(add_epi32)(ul, ur), VOP(add_epi32)(dl, dr));
    VI across = VOP(add_epi32)(vloadh(m + st), vloadh(m - st));
    VI along = VOP(add_epi32)(vloadh(d2), vloadh(u2));
    VI c4 = VOP(slli_epi32)(vloadh(m), 2);
    VI c12 = VOP(add_epi32)(VOP(add_epi32)(c4, c4), c4);
    VI across2 = VOP(add_epi32)(across, across), along2 = VOP(add_epi32)(along, along);
    VI base = VOP(sub_epi32)(corners, c12);
    /* 6 a - 2 b = 2 (3 a - b) */
    VI lxx = VOP(add_epi32)(
        base, VOP(sub_epi32)(VOP(add_epi32)(VOP(add_epi32)(across2, across2), across2), along2));
    VI lyy = VOP(add_epi32)(
        base, VOP(sub_epi32)(VOP(add_epi32)(VOP(add_epi32)(along2, along2), along2), across2));
    VI lxy = VOP(sub_epi32)(VOP(sub_epi32)(dr, ur), VOP(sub_epi32)(dl, ul));
    VI any = VOR(VOR(lxx, lyy), lxy);
    /* the refraction's slopes over the footprint (+-fs): Sobel sums, each within 2^27 */
    const int fs = k->fs;
    VI u3l = vloadh(u3 - fs), u3r = vloadh(u3 + fs), d3l = vloadh(d3 - fs), d3r = vloadh(d3 + fs);
    VI ex = VOP(sub_epi32)(vloadh(m + fs), vloadh(m - fs));
    ex = VOP(add_epi32)(VOP(add_epi32)(ex, ex),
                        VOP(add_epi32)(VOP(sub_epi32)(u3r, u3l), VOP(sub_epi32)(d3r, d3l)));
    VI ey = VOP(sub_epi32)(vloadh(d3), vloadh(u3));
    ey = VOP(add_epi32)(VOP(add_epi32)(ey, ey),
                        VOP(add_epi32)(VOP(sub_epi32)(d3l, u3l), VOP(sub_epi32)(d3r, u3r)));
    VI fx = vslope(ex, &k->kfx), fy = vslope(ey, &k->kfy);
    VI fxy = VOR(fx, fy);
    if (vnone(VOR(VOR(any, sxy), fxy)) && k->flat_copy) {
        size_t at = ((size_t)k->y * k->w + x) * 3;
        memcpy(out + 3 * (size_t)x, k->bg + at, 3 * VL);
        return 0;
    }
    VI cw = vnone(sxy) ? k->cw0 : layer_v(k, sx, sy, r2);
    VI gain = vnone(any) ? k->gain0 : caustic_gain(k, lxx, lyy, lxy);
    VI t[3];
    if (vnone(fxy)) {
        /* no slope over the footprint: the bed point is the pixel itself */
        VI p = vload_rgb(k->bg + ((size_t)k->y * k->w + x) * 3);
        for (int c = 0; c < 3; c++)
            t[c] = VOP(slli_epi32)(VAND(VOP(srli_epi32)(p, 8 * c), m255), 8);
    } else {
        VI qx, qy;
        VI f2 = VOP(add_epi32)(VOP(mullo_epi32)(fx, fx), VOP(mullo_epi32)(fy, fy));
        bed_point(k, x, fx, fy, f2, &qx, &qy);
        if (plate_v(k, qx, qy, t))
            return 1;
    }
    VI a = VOP(srli_epi32)(cw, 24), na = VOP(sub_epi32)(m255, a);
    VI px = VZERO(), lit[3];
    lit3_v(t, gain, lit);
    for (int c = 0; c < 3; c++) {
        /* lit * tint + 2^23 < 2^32 (lit <= 255 << 8, tint <= 2^16) */
        VI v = VOP(mullo_epi32)(lit[c], k->tint[c]);
        v = VOP(min_epi32)(VOP(srli_epi32)(VOP(add_epi32)(v, VOP(set1_epi32)(1 << 23)), 24), m255);
        if (!vnone(cw)) {
            /* (v (255 - a) + c a + 127) / 255 = (x * 0x8081) >> 23 for x < 2^16 */
            VI cc = VAND(VOP(srli_epi32)(cw, 8 * c), m255);
            v = VOP(add_epi32)(VOP(add_epi32)(VOP(mullo_epi32)(v, na), VOP(mullo_epi32)(cc, a)),
                               VOP(set1_epi32)(127));
            v = VOP(srli_epi32)(VOP(mullo_epi32)(v, VOP(set1_epi32)(0x8081)), 23);
        }
        px = VOR(px, VOP(slli_epi32)(v, 8 * c));
    }
    vstore_rgb(out + 3 * (size_t)x, px);
    return 0;
}

/* A group whose x +- pad reaches past the row: its heights copied as water_px reads them
 * there, the row's point reflection about its end pixel (rp_light_odd() is the identity
 * inside the row). Those may pass +-RP_LIGHT_SIMD_HMAX (2 h(e) - h): then 1, and the plain
 * loop does the rest of the row. */
static TARGET int edge_group(const struct wk *k, int x, uint8_t *out, int rgba)
{
    int32_t c[5][VL + 2 * RP_LIGHT_EDGE_PAD];
    const int32_t *rows[5] = {k->m, k->u2, k->d2, k->u3, k->d3};
    const int p = k->pad;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < VL + 2 * p; i++) {
            int64_t v = rp_light_odd(rows[j], x - p + i, k->w);
            if (v < -RP_LIGHT_SIMD_HMAX || v > RP_LIGHT_SIMD_HMAX)
                return 1;
            c[j][i] = (int32_t)v;
        }
    return group_v(k, x, c[0] + p, c[1] + p, c[2] + p, c[3] + p, c[4] + p, out, rgba);
}

/* Pixels x0..x1-1 of the row (x1 >= VL) in groups of VL, the last one overlapping the one
 * before when x1 - x0 is not a multiple of VL (it writes those pixels, or pixels before x0,
 * again with the bytes they have or get: every pixel's value is its own). */
TARGET int ROW_V(const rp_light *l, const struct rp_light_frame *f, const struct rp_light_wrows *r,
                 int x0, int x1, const uint8_t *bg, uint8_t *out, int rgba)
{
    struct wk k;
    wk_init(&k, l, f, r, bg);
    /* still water: lit3_q8(t << 8, gain0) is t << 8 when gain0 is 4096, and a white tint
     * takes it back to t */
    const VI zero = VZERO();
    k.cw0 = layer_v(&k, zero, zero, zero);
    k.flat_copy = vnone(k.cw0) && VFIRST(k.gain0) == 4096 && l->tint[0] == 65536 &&
                  l->tint[1] == 65536 && l->tint[2] == 65536;
    const int w = k.w, p = k.pad;
    for (int x = x0; x < x1; x += VL) {
        if (x + VL > x1)
            x = x1 - VL;
        int fail = x - p >= 0 && x + VL - 1 + p <= w - 1
                       ? group_v(&k, x, k.m + x, k.u2 + x, k.d2 + x, k.u3 + x, k.d3 + x, out, rgba)
                       : edge_group(&k, x, out, rgba);
        if (fail) /* a texel past the frame, or an edge height past HMAX: the plain loop */
            return x < x0 ? x0 : x;
    }
    return x1;
}
