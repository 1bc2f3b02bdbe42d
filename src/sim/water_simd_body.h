/* water_simd_body.h - private to the step's kernels (src/x86/water_simd.c and
 * src/wasm/water_simd.c), included once per vector width: the step kernel written once over
 * the operations the including file defines (V, LD, MADD, ...; CNT, the type of a shift
 * count, and MKCNT(shift), one made from an int), which are undefined again at the end.
 * No include guard on purpose, except for the constants below, which are the same for
 * every width. */
#ifndef RP_WATER_SIMD_BODY_CONSTANTS
#define RP_WATER_SIMD_BODY_CONSTANTS
/* The small path's input bounds (exclusive magnitudes, see cells_small below). */
enum { SMALL_4 = 8192, SMALL_8_ISO = 4096 };

/* The (a, b) weights of one MADD (pmaddwd) pair as the 32-bit lane value: a in the low half. */
#define PAIR(a, b) ((int32_t)(((uint32_t)(uint16_t)(int16_t)(b) << 16) | (uint16_t)(int16_t)(a)))
#endif

/* Damping of int32 lanes, exactly as damp() in water.c. kind: RP_DAMP_SHIFT n - (n >> shift);
 * RP_DAMP_Q16 trunc(n * q / 65536) for q < 65536; RP_DAMP_NONE q = 65536 (n itself).
 *
 * RP_DAMP_Q16 without a 64-bit product: |n| <= 98304 < 2^17 for every stencil (S is in
 * -65536..65534 and prev in -32768..32767), so a = |n| = ah * 2^16 + al with ah 0 or 1 and
 * floor(a * q / 2^16) = ah * q + floor(al * q / 2^16); the second term is the unsigned
 * 16-bit high product of al and q (the lane's high half is multiplied by 0), the first is
 * q where a > 0xffff. Truncation toward zero is the sign of n put back on floor(|n|*q/2^16). */
static inline __attribute__((always_inline)) ATTR V SFX(damp32)(int kind, V n, CNT count, V q_lo,
                                                                V q32, V lim)
{
    if (kind == RP_DAMP_SHIFT)
        return SUB(n, SRA(n, count));
    if (kind == RP_DAMP_Q16) {
        V sign = SIGNOF(n);
        V a = ABS(n, sign);
        V t = ADD(MULHU16(a, q_lo), AND(CMPGT(a, lim), q32));
        return APPLY_SIGN(t, sign);
    }
    return n;
}

/* The same damping of int16 lanes holding an exact n with |n| < 32768 (the small path):
 * psraw by 16..30 fills with the sign as the int32 shift does, and floor(|n| * q / 2^16) is
 * the unsigned high product. The results are no larger than |n|, so nothing saturates. */
static inline __attribute__((always_inline)) ATTR V SFX(damp16)(int kind, V n, CNT count, V q16v)
{
    if (kind == RP_DAMP_SHIFT)
        return SUB16(n, SRA16(n, count));
    if (kind == RP_DAMP_Q16) {
        V sign = SIGNOF16(n);
        return APPLY_SIGN16(MULHU16(ABS16(n, sign), q16v), sign);
    }
    return n;
}

/* The new value of cells x..x+VW-1 of one row (see rp_span_fn in sim/water_simd.h), on the small
 * path: every input cell in -SMALL..SMALL-1, known from the rows' magnitudes. It works in
 * int16 lanes, VW cells per vector: no sum can leave int16 there (4 cells of -8192..8191
 * for `4`; 8 of -4096..4095 for `8`; for `iso` E = N+S+E+W + 3C stays within 7 * 4096 and
 * the sum 4E + D is split as 16 (E >> 2) + (4 (E & 3) + D)), and shifts of exact sums are
 * the int32 shifts. */
static inline __attribute__((always_inline)) ATTR V
SFX(cells_small)(enum rp_stencil s, int kind, const int16_t *u, const int16_t *m, const int16_t *d,
                 const int16_t *out, int x, CNT count, V q16v)
{
    const V three = SET1_16(3);
    V sum, p = LD(out + x);
    if (s == RP_STENCIL_4) {
        sum = ADD16(ADD16(LD(m + x - 1), LD(m + x + 1)), ADD16(LD(u + x), LD(d + x)));
        sum = SRAI16(sum, 1);
    } else if (s == RP_STENCIL_8) {
        sum = ADD16(ADD16(ADD16(LD(u + x - 1), LD(u + x)), ADD16(LD(u + x + 1), LD(m + x - 1))),
                    ADD16(ADD16(LD(m + x + 1), LD(d + x - 1)), ADD16(LD(d + x), LD(d + x + 1))));
        sum = SRAI16(sum, 2);
    } else {
        V e = ADD16(ADD16(LD(m + x - 1), LD(m + x + 1)), ADD16(LD(u + x), LD(d + x)));
        V diag = ADD16(ADD16(LD(u + x - 1), LD(u + x + 1)), ADD16(LD(d + x - 1), LD(d + x + 1)));
        e = ADD16(e, MULLO16(LD(m + x), three));
        sum = ADD16(SRAI16(e, 2), SRAI16(ADD16(SLLI16(AND(e, three), 2), diag), 4));
    }
    return SFX(damp16)(kind, SUB16(sum, p), count, q16v);
}

/* The same on the general path, for any int16 inputs. Each vector of int16 cells becomes
 * two vectors of int32 lanes: unpacking two input vectors interleaves them into (a, b)
 * pairs and MADD (pmaddwd) turns each pair into wa*a + wb*b in int32, exactly (|weights|
 * <= 16). The unpack low/high halves hold, per 128-bit lane, cells 0-3 and 4-7, which is
 * exactly the order PACKS (packssdw) puts back; PACKS also saturates to int16 as rp_sat16
 * does. For `iso` prev is folded into the (C, prev) pair with weight -16 (floor((X - 16 p)
 * / 16) = floor(X / 16) - p); for `4` and `8` it is sign-extended by unpacking it with its
 * sign. */
static inline __attribute__((always_inline)) ATTR V
SFX(cells_wide)(enum rp_stencil s, int kind, const int16_t *u, const int16_t *m, const int16_t *d,
                const int16_t *out, int x, CNT count, int32_t q16)
{
    const V ones = SET1_32(PAIR(1, 1));
    const V w41 = SET1_32(PAIR(4, 1));
    const V w_c_p = SET1_32(PAIR(12, -16));
    const V q_lo = SET1_32(q16 & 0xffff), q32 = SET1_32(q16), lim = SET1_32(0xffff);
    V lo, hi;
    V p = LD(out + x);
    if (s == RP_STENCIL_4) {
        V ml = LD(m + x - 1), mr = LD(m + x + 1), uc = LD(u + x), dc = LD(d + x);
        V ps = SRAI16(p, 15);
        lo = ADD(MADD(UNLO(ml, mr), ones), MADD(UNLO(uc, dc), ones));
        hi = ADD(MADD(UNHI(ml, mr), ones), MADD(UNHI(uc, dc), ones));
        lo = SUB(SRAI(lo, 1), UNLO(p, ps));
        hi = SUB(SRAI(hi, 1), UNHI(p, ps));
    } else if (s == RP_STENCIL_8) {
        V ul = LD(u + x - 1), uc = LD(u + x), ur = LD(u + x + 1);
        V ml = LD(m + x - 1), mr = LD(m + x + 1);
        V dl = LD(d + x - 1), dc = LD(d + x), dr = LD(d + x + 1);
        V ps = SRAI16(p, 15);
        lo = ADD(ADD(MADD(UNLO(ul, ur), ones), MADD(UNLO(ml, mr), ones)),
                 ADD(MADD(UNLO(dl, dr), ones), MADD(UNLO(uc, dc), ones)));
        hi = ADD(ADD(MADD(UNHI(ul, ur), ones), MADD(UNHI(ml, mr), ones)),
                 ADD(MADD(UNHI(dl, dr), ones), MADD(UNHI(uc, dc), ones)));
        lo = SUB(SRAI(lo, 2), UNLO(p, ps));
        hi = SUB(SRAI(hi, 2), UNHI(p, ps));
    } else {
        /* 4*(ml + mr + uc + dc) + (ul + ur + dl + dr) + 12*mc - 16*p, then >> 4 */
        V ul = LD(u + x - 1), uc = LD(u + x), ur = LD(u + x + 1);
        V ml = LD(m + x - 1), mc = LD(m + x), mr = LD(m + x + 1);
        V dl = LD(d + x - 1), dc = LD(d + x), dr = LD(d + x + 1);
        lo = ADD(ADD(MADD(UNLO(ml, ul), w41), MADD(UNLO(mr, ur), w41)),
                 ADD(MADD(UNLO(uc, dl), w41), MADD(UNLO(dc, dr), w41)));
        hi = ADD(ADD(MADD(UNHI(ml, ul), w41), MADD(UNHI(mr, ur), w41)),
                 ADD(MADD(UNHI(uc, dl), w41), MADD(UNHI(dc, dr), w41)));
        lo = SRAI(ADD(lo, MADD(UNLO(mc, p), w_c_p)), 4);
        hi = SRAI(ADD(hi, MADD(UNHI(mc, p), w_c_p)), 4);
    }
    lo = SFX(damp32)(kind, lo, count, q_lo, q32, lim);
    hi = SFX(damp32)(kind, hi, count, q_lo, q32, lim);
    return PACKS(lo, hi);
}

/* Cells x..x+VW-1 on the small path (small, a constant where this is inlined) or the
 * general one. */
static inline __attribute__((always_inline)) ATTR V SFX(cells)(enum rp_stencil s, int kind,
                                                               int small, const int16_t *u,
                                                               const int16_t *m, const int16_t *d,
                                                               const int16_t *out, int x, CNT count,
                                                               int32_t q16)
{
    if (small)
        return SFX(cells_small)(s, kind, u, m, d, out, x, count, SET1_16((int16_t)(q16 & 0xffff)));
    return SFX(cells_wide)(s, kind, u, m, d, out, x, count, q16);
}

/* One whole row of n >= VW cells on one path; see SFX(span). Returns n. */
static inline __attribute__((always_inline)) ATTR int
SFX(row)(enum rp_stencil s, int kind, int small, const int16_t *restrict u,
         const int16_t *restrict m, const int16_t *restrict d, int16_t *restrict out, int n,
         int shift, int32_t q16, int *out_mag)
{
    const CNT count = MKCNT(shift);
    /* Cells before the first aligned vector of out. First, the loop and last cover every
     * cell: the loop ends less than VW cells before n (or does not run when n < head + VW,
     * and then first and last, VW cells each, cover n < 2 VW between them). */
    int head = (int)((VW - (uintptr_t)out / sizeof *out % VW) % VW);
    V first = SFX(cells)(s, kind, small, u, m, d, out, 0, count, q16);
    V last = SFX(cells)(s, kind, small, u, m, d, out, n - VW, count, q16);
    V vmax = MAX16(first, last), vmin = MIN16(first, last);
    for (int x = head; x + VW <= n; x += VW) {
        V r = SFX(cells)(s, kind, small, u, m, d, out, x, count, q16);
        vmax = MAX16(vmax, r);
        vmin = MIN16(vmin, r);
        ST(out + x, r);
    }
    ST(out, first);
    ST(out + n - VW, last);
    /* mag = v ^ (v >> 15) is at most 32767, so a signed maximum over lanes finds it. */
    *out_mag = HMAX16(MAX16(XOR(vmax, SRAI16(vmax, 15)), XOR(vmin, SRAI16(vmin, 15))));
    return n;
}

/* One whole row of n >= VW cells; see rp_span_fn in sim/water_simd.h. Returns n, or 0 (nothing
 * done) when n < VW.
 *
 * The loop runs over vectors aligned to VW cells in out (and so in the middle row of cur,
 * at the same offset in a buffer of the same alignment; the rows above and below too when
 * the width is a multiple of VW); the first VW cells and the last VW cells are computed
 * before it and stored after it. Those may overlap the loop's first and final vectors, but
 * every computation reads only original values (cur is not written, and out's cells are
 * stored after they are read), so the overlapping cells are written twice with the same
 * values and no cell is left to a scalar head or tail.
 *
 * *out_mag receives the largest v ^ (v >> 15) over the cells written (see water.c). */
static inline __attribute__((always_inline)) ATTR int
SFX(span)(enum rp_stencil s, int kind, const int16_t *restrict u, const int16_t *restrict m,
          const int16_t *restrict d, int16_t *restrict out, int n, int shift, int32_t q16,
          int in_mag, int *out_mag)
{
    if (n < VW) {
        *out_mag = 0;
        return 0;
    }
    if (in_mag < (s == RP_STENCIL_4 ? SMALL_4 : SMALL_8_ISO))
        return SFX(row)(s, kind, 1, u, m, d, out, n, shift, q16, out_mag);
    return SFX(row)(s, kind, 0, u, m, d, out, n, shift, q16, out_mag);
}

/* One out-of-line kernel per stencil and damping kind, so each inner loop is specialised. */
#define KERNEL(S, K, NAME)                                                                         \
    static ATTR int SFX(NAME)(const int16_t *u, const int16_t *m, const int16_t *d, int16_t *out,  \
                              int n, int shift, int32_t q16, int in_mag, int *out_mag)             \
    {                                                                                              \
        int k = SFX(span)(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag);                     \
        return k ? k : TAIL(S, K, u, m, d, out, n, shift, q16, in_mag, out_mag);                   \
    }
KERNEL(RP_STENCIL_4, RP_DAMP_SHIFT, s4_shift)
KERNEL(RP_STENCIL_4, RP_DAMP_Q16, s4_q16)
KERNEL(RP_STENCIL_4, RP_DAMP_NONE, s4_none)
KERNEL(RP_STENCIL_8, RP_DAMP_SHIFT, s8_shift)
KERNEL(RP_STENCIL_8, RP_DAMP_Q16, s8_q16)
KERNEL(RP_STENCIL_8, RP_DAMP_NONE, s8_none)
KERNEL(RP_STENCIL_ISO, RP_DAMP_SHIFT, iso_shift)
KERNEL(RP_STENCIL_ISO, RP_DAMP_Q16, iso_q16)
KERNEL(RP_STENCIL_ISO, RP_DAMP_NONE, iso_none)
#undef KERNEL

/* This width's kernels into a table, by stencil and damping. */
static void SFX(fill)(rp_water_dsp *c)
{
    static const rp_span_fn table[3][RP_DAMP_KINDS] = {
        {SFX(s4_shift), SFX(s4_q16), SFX(s4_none)},
        {SFX(s8_shift), SFX(s8_q16), SFX(s8_none)},
        {SFX(iso_shift), SFX(iso_q16), SFX(iso_none)},
    };
    memcpy(c->span, table, sizeof table);
}

/* The parameters belong to this inclusion alone: undefined here, once for every width, so
 * that the next width defines them afresh (one it forgets is an error, not the previous
 * width's operation). */
#undef ATTR
#undef SFX
#undef VW
#undef V
#undef LD
#undef ST
#undef SET1_32
#undef UNLO
#undef UNHI
#undef MADD
#undef ADD
#undef SUB
#undef AND
#undef SRAI
#undef SRA
#undef SRAI16
#undef CMPGT
#undef MULHU16
#undef PACKS
#undef SET1_16
#undef ADD16
#undef SUB16
#undef SRA16
#undef SLLI16
#undef MULLO16
#undef MAX16
#undef MIN16
#undef SIGNOF
#undef ABS
#undef APPLY_SIGN
#undef SIGNOF16
#undef ABS16
#undef APPLY_SIGN16
#undef TAIL
#undef XOR
#undef HMAX16
#undef CNT
#undef MKCNT
