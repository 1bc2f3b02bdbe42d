/* render_simd.c - AVX2 kernels for the render's inner loops (render.c), 8 pixels at a time,
 * exact to the last bit: the texel coordinates, clamps and shading in int32 lanes, the
 * texels fetched with a gather; runs of still water, whose pixels show their own texel,
 * copied straight from the texture 8 or 16 pixels at a time. Put in the render's
 * table (render_simd.h) by rp_render_dsp_init_x86(); built with `target` attributes, so the
 * library needs no -m flags. There is no SSE2 render kernel: without a gather it gains little over
 * the plain loop. */
#include "base/cpu.h"
#include "look/render_simd.h"

#include <string.h>

#ifdef RP_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

/* Shading by float division is exact while |dx*lx + dy*ly| < 2^24: see shade_avx2. */
#define MAX_LIGHT_SUM RP_RENDER_SIMD_LIGHT_SUM
#define MAX_SHADING RP_RENDER_SIMD_SHADING

#ifdef RP_HAVE_X86_KERNELS

#include "x86/avx2_common.h"

/* 8 texels at byte offsets off (3 * index) as 32-bit lanes (R, G, B, next byte), or 0 if a
 * lane would read past the texture's last byte (only the very last texel does): the caller
 * then leaves these pixels to the plain loop. Scalar loads, not vpgatherdd, which microcode
 * slows down on some CPUs (Intel's GDS mitigation). */
static inline __attribute__((always_inline)) AVX2 int gather_texels(const uint8_t *tex, __m256i off,
                                                                    __m256i last, __m256i *texels)
{
    int32_t o[8], t[8];
    __m256i beyond = _mm256_cmpgt_epi32(off, last);
    if (!_mm256_testz_si256(beyond, beyond))
        return 0;
    _mm256_storeu_si256((__m256i *)(void *)o, off);
    for (int i = 0; i < 8; i++)
        memcpy(&t[i], tex + o[i], 4);
    *texels = _mm256_setr_epi32(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
    return 1;
}

/* trunc(num / shading) for |num| < 2^24 and 0 < |shading| < 2^24, by float division: both
 * are exact floats, and a quotient that is not an integer lies at least 1/|num| (relative)
 * from the next integer, more than the 2^-24 of the division's rounding, so truncating the
 * rounded quotient gives the truncated true one (and integers are exact). */
static inline __attribute__((always_inline)) AVX2 __m256i shade_avx2(__m256i num, __m256 divisor)
{
    return _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(num), divisor));
}

/* rp_sat8(texel byte + shade) for each of R, G, B: shade clamped to -255..255 changes no
 * result; its positive part is added and its negative part subtracted with unsigned byte
 * saturation (one of the two is 0). */
static inline __attribute__((always_inline)) AVX2 __m256i add_shade(__m256i texels, __m256i shade)
{
    const __m256i zero = _mm256_setzero_si256(), max = _mm256_set1_epi32(255);
    const __m256i bcast = _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0,
                                           0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    __m256i pos = _mm256_min_epi32(_mm256_max_epi32(shade, zero), max);
    __m256i neg = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, shade), zero), max);
    pos = _mm256_shuffle_epi8(pos, bcast);
    neg = _mm256_shuffle_epi8(neg, bcast);
    return _mm256_subs_epu8(_mm256_adds_epu8(texels, pos), neg);
}

/* Calm pixels: on a typical frame most of the water is (nearly) still, and a pixel whose
 * offsets (dx >> R, dy >> R) and shading are all 0 shows the texture's own pixel (x, y), so
 * it can be copied without the gather. calm_mask tests 16 pixels x..x+15 of an interior row
 * at once in int16 lanes and returns a _mm256_movemask_epi8 mask, 2 bits per pixel (in
 * order), set where the pixel is calm.
 *
 * dx and dy are saturating int16 differences, exact wherever the test can pass: rc is
 * min(R, 14), so a passing lane has 0 <= dx, dy < 2^14, which no saturation produces, and
 * then (dx >> R) == 0 too. With R = 15 a few calm pixels (dx >= 2^14) fail the test and take
 * the gather, which renders them the same. Shading (shaded only): with dx, dy exact, the
 * shade trunc(num / shading) is 0 iff |num| < lim = |shading|; num = dx*lx + dy*ly comes from
 * vpmaddwd on (dx, dy) pairs (|lx|, |ly| <= MAX_LIGHT_SUM fit int16; |num| < 2^24). */
static inline __attribute__((always_inline)) AVX2 uint32_t calm_mask(int shaded, const int16_t *row,
                                                                     int w, int x, __m128i rc,
                                                                     __m256i lxly, __m256i lim)
{
    __m256i l = _mm256_loadu_si256((const __m256i *)(row + x - 1));
    __m256i r = _mm256_loadu_si256((const __m256i *)(row + x + 1));
    __m256i u = _mm256_loadu_si256((const __m256i *)(row - w + x));
    __m256i d = _mm256_loadu_si256((const __m256i *)(row + w + x));
    __m256i dx = _mm256_subs_epi16(l, r), dy = _mm256_subs_epi16(u, d);
    __m256i off = _mm256_or_si256(_mm256_sra_epi16(dx, rc), _mm256_sra_epi16(dy, rc));
    __m256i calm = _mm256_cmpeq_epi16(off, _mm256_setzero_si256());
    if (shaded) {
        /* unpacklo/hi take pixels 0-3, 8-11 and 4-7, 12-15; packs puts them back in order. */
        __m256i lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(dx, dy), lxly);
        __m256i hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(dx, dy), lxly);
        lo = _mm256_cmpgt_epi32(lim, _mm256_abs_epi32(lo));
        hi = _mm256_cmpgt_epi32(lim, _mm256_abs_epi32(hi));
        calm = _mm256_and_si256(calm, _mm256_packs_epi32(lo, hi));
    }
    return (uint32_t)_mm256_movemask_epi8(calm);
}

static inline __attribute__((always_inline)) AVX2 int
offset_row(int shaded, const rp_render_params *p, const int16_t *row, int w, int h, int y,
           const uint8_t *tex, uint8_t *out, int x0, int x1)
{
    const __m128i r = _mm_cvtsi32_si128(p->refraction);
    const __m128i rc = _mm_cvtsi32_si128(p->refraction < 14 ? p->refraction : 14);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i wmax = _mm256_set1_epi32(w - 1), hmax = _mm256_set1_epi32(h - 1);
    const __m256i width = _mm256_set1_epi32(w), yv = _mm256_set1_epi32(y);
    const __m256i last = _mm256_set1_epi32((int)((int64_t)w * h * 3 - 4));
    const __m256i lx = _mm256_set1_epi32(p->light_x), ly = _mm256_set1_epi32(p->light_y);
    const __m256i lxly = _mm256_set1_epi32(
        (int32_t)((uint32_t)(uint16_t)p->light_x | (uint32_t)(uint16_t)p->light_y << 16));
    const __m256i shade_lim = _mm256_set1_epi32(p->shading < 0 ? -p->shading : p->shading);
    const __m256 divisor = _mm256_set1_ps((float)(shaded ? p->shading : 1));
    const int16_t *up = row - w, *down = row + w;
    const uint8_t *trow = tex + (size_t)y * w * 3; /* texels (x, y) of the calm pixels */
    int x = x0;
    while (x + 8 <= x1) {
        uint32_t calm = 0;
        if (x + 16 <= x1) {
            calm = calm_mask(shaded, row, w, x, rc, lxly, shade_lim);
            if (calm == 0xffffffffu) {
                memcpy(out + 3 * (size_t)x, trow + 3 * (size_t)x, 48);
                x += 16;
                continue;
            }
        }
        /* Some pixel moves: the two halves on their own (just the first near x1). */
        for (int half = 0; half < 2 && x + 8 <= x1; half++, x += 8, calm >>= 16) {
            if ((calm & 0xffff) == 0xffff) {
                memcpy(out + 3 * (size_t)x, trow + 3 * (size_t)x, 24);
                continue;
            }
            __m256i left = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(row + x - 1)));
            __m256i right = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(row + x + 1)));
            __m256i u = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(up + x)));
            __m256i d = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(down + x)));
            __m256i dx = _mm256_sub_epi32(left, right), dy = _mm256_sub_epi32(u, d);
            __m256i xv = _mm256_add_epi32(_mm256_set1_epi32(x), lanes);
            __m256i tx = _mm256_add_epi32(xv, _mm256_sra_epi32(dx, r));
            __m256i ty = _mm256_add_epi32(yv, _mm256_sra_epi32(dy, r));
            tx = _mm256_min_epi32(_mm256_max_epi32(tx, zero), wmax);
            ty = _mm256_min_epi32(_mm256_max_epi32(ty, zero), hmax);
            __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(ty, width), tx);
            __m256i off = _mm256_add_epi32(idx, _mm256_add_epi32(idx, idx));
            __m256i texels;
            if (!gather_texels(tex, off, last, &texels))
                return x;
            if (shaded) {
                __m256i num =
                    _mm256_add_epi32(_mm256_mullo_epi32(dx, lx), _mm256_mullo_epi32(dy, ly));
                texels = add_shade(texels, shade_avx2(num, divisor));
            }
            store_rgb(out + 3 * (size_t)x, texels);
        }
    }
    return x;
}

static AVX2 int offset_row_shaded_avx2(const rp_render_params *p, const int16_t *row, int w, int h,
                                       int y, const uint8_t *tex, uint8_t *out, int x0, int x1)
{
    return offset_row(1, p, row, w, h, y, tex, out, x0, x1);
}

static AVX2 int offset_row_plain_avx2(const rp_render_params *p, const int16_t *row, int w, int h,
                                      int y, const uint8_t *tex, uint8_t *out, int x0, int x1)
{
    return offset_row(0, p, row, w, h, y, tex, out, x0, x1);
}

/* C division by 1024, truncating toward zero: add 1023 to negative values first. */
static inline __attribute__((always_inline)) AVX2 __m256i div1024(__m256i v)
{
    return _mm256_srai_epi32(_mm256_add_epi32(v, _mm256_srli_epi32(_mm256_srai_epi32(v, 31), 22)),
                             10);
}

static AVX2 int lens_row_avx2(const int16_t *row, int w, int h, int y, const uint8_t *tex,
                              uint8_t *out, int x0, int x1)
{
    const int hw = w / 2, hh = h / 2;
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i wmax = _mm256_set1_epi32(w - 1), hmax = _mm256_set1_epi32(h - 1);
    const __m256i width = _mm256_set1_epi32(w), k1024 = _mm256_set1_epi32(1024);
    const __m256i hwv = _mm256_set1_epi32(hw), hhv = _mm256_set1_epi32(hh);
    const __m256i dyv = _mm256_set1_epi32(y - hh);
    const __m256i last = _mm256_set1_epi32((int)((int64_t)w * h * 3 - 4));
    const __m256i here = _mm256_set1_epi32((int)((int64_t)y * w * 3)); /* texel (0, y) */
    const __m256i lanes3 = _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21);
    const uint8_t *trow = tex + (size_t)y * w * 3;
    int x = x0;
    for (; x + 8 <= x1; x += 8) {
        /* Where h == 0, d = 1024 and the texel is (x, y) itself: as in offset_row, still
         * water is copied straight from the texture, 16 pixels when all are still. */
        if (x + 16 <= x1) {
            __m256i h16 = _mm256_loadu_si256((const __m256i *)(row + x));
            if (_mm256_testz_si256(h16, h16)) {
                memcpy(out + 3 * (size_t)x, trow + 3 * (size_t)x, 48);
                x += 8; /* and 8 more by the loop */
                continue;
            }
        }
        __m256i hv = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(row + x)));
        __m256i d = _mm256_sub_epi32(k1024, hv);
        __m256i dxv = _mm256_sub_epi32(_mm256_add_epi32(_mm256_set1_epi32(x), lanes), hwv);
        __m256i a = _mm256_add_epi32(div1024(_mm256_mullo_epi32(dxv, d)), hwv);
        __m256i b = _mm256_add_epi32(div1024(_mm256_mullo_epi32(dyv, d)), hhv);
        a = _mm256_min_epi32(_mm256_max_epi32(a, zero), wmax);
        b = _mm256_min_epi32(_mm256_max_epi32(b, zero), hmax);
        __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(b, width), a);
        __m256i off = _mm256_add_epi32(idx, _mm256_add_epi32(idx, idx));
        /* Every texel (x, y) itself (h == 0 or near the centre): copy, exactly as well. */
        __m256i own = _mm256_add_epi32(here, _mm256_add_epi32(_mm256_set1_epi32(3 * x), lanes3));
        __m256i same = _mm256_cmpeq_epi32(off, own);
        if (_mm256_movemask_epi8(same) == -1) {
            memcpy(out + 3 * (size_t)x, trow + 3 * (size_t)x, 24);
            continue;
        }
        __m256i texels;
        if (!gather_texels(tex, off, last, &texels))
            break;
        store_rgb(out + 3 * (size_t)x, texels);
    }
    return x;
}

#endif /* RP_HAVE_X86_KERNELS */

void rp_render_dsp_init_x86(rp_render_dsp *c, int level)
{
#ifdef RP_HAVE_X86_KERNELS
    if (level >= RP_SIMD_AVX2) {
        c->offset_row[0] = offset_row_plain_avx2;
        c->offset_row[1] = offset_row_shaded_avx2;
        c->lens_row = lens_row_avx2;
    }
#else
    (void)c;
    (void)level;
#endif
}
