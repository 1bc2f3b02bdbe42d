/* test_pngdeflate.c - the PNG rows' deflate encoder (pngdeflate.c). The oracle is zlib's
 * inflate, which checks every code, length and distance and the Adler-32: each stream must
 * inflate to exactly the input. A small reader of deflate block headers, written from RFC
 * 1951, checks what inflate takes on trust: each block's type and final flag, and that no
 * code is longer than 15 bits (14 for literals and lengths, as the encoder promises).
 * Inputs: hand-made (empty, one byte, zeros, noise, runs of every length around the
 * limits, runs across blocks, skewed counts that make deep Huffman trees, 16-bit layouts,
 * 1x1 and odd widths) and the rows of real pictures (examples/island.png and sky.png, read by
 * libpng and Paeth-filtered at every SIMD level, the same stream from each). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

#include "base/cpu.h"
#include "rpcore.h"
#include "output/pngdeflate.h"
#include "output/pngfilter.h"

static rp_pngz *coder; /* the encoder's work area, made by main */

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* ---- a reader of block headers (RFC 1951 3.2.3, 3.2.7), to check the code lengths ---- */

typedef struct reader {
    const uint8_t *p;
    size_t n, pos; /* pos in bits */
} reader;

static unsigned getbits(reader *r, unsigned k)
{
    unsigned v = 0;
    for (unsigned i = 0; i < k; i++, r->pos++) {
        assert_true(r->pos / 8 < r->n);
        v |= (unsigned)((r->p[r->pos / 8] >> (r->pos % 8)) & 1) << i;
    }
    return v;
}

/* A canonical Huffman code as puff.c (zlib's contrib) keeps it: how many codes of each
 * length, and the symbols in code order. */
typedef struct huff {
    int count[16], sym[320];
} huff;

static void huff_make(huff *hf, const uint8_t *len, int n)
{
    int offs[16];
    memset(hf->count, 0, sizeof hf->count);
    for (int s = 0; s < n; s++)
        hf->count[len[s]]++;
    offs[1] = 0;
    for (int l = 1; l < 15; l++)
        offs[l + 1] = offs[l] + hf->count[l];
    for (int s = 0; s < n; s++)
        if (len[s])
            hf->sym[offs[len[s]]++] = s;
}

/* One symbol, a bit at a time. */
static int decode_sym(reader *r, const huff *hf)
{
    int code = 0, first = 0, index = 0;
    for (int l = 1; l <= 15; l++) {
        code |= (int)getbits(r, 1);
        int count = hf->count[l];
        if (code - first < count)
            return hf->sym[index + code - first];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    fail_msg("no code");
    return -1;
}

typedef struct stream_facts {
    int blocks, stored, dynamic, max_lit_len, max_dist_len, max_cl_len;
} stream_facts;

/* Walk the stream's blocks, decoding their symbols only to find where each ends. */
static stream_facts walk(const uint8_t *z, size_t zn)
{
    static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                      11, 4,  12, 3, 13, 2, 14, 1, 15};
    static const uint8_t lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                     2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    stream_facts f = {0};
    reader r = {z + 2, zn - 6, 0};
    int final = 0;
    while (!final) {
        final = (int)getbits(&r, 1);
        int type = (int)getbits(&r, 2);
        f.blocks++;
        if (type == 0) {
            f.stored++;
            r.pos = (r.pos + 7) & ~(size_t)7;
            unsigned len = getbits(&r, 16), nlen = getbits(&r, 16);
            assert_int_equal(len ^ 0xffff, nlen);
            r.pos += 8 * (size_t)len;
            continue;
        }
        assert_int_equal(type, 2); /* the encoder writes no fixed-code block */
        f.dynamic++;
        int hlit = (int)getbits(&r, 5) + 257, hdist = (int)getbits(&r, 5) + 1;
        int hclen = (int)getbits(&r, 4) + 4;
        uint8_t cl[19] = {0}, lens[320] = {0};
        for (int i = 0; i < hclen; i++) {
            cl[order[i]] = (uint8_t)getbits(&r, 3);
            if (cl[order[i]] > f.max_cl_len)
                f.max_cl_len = cl[order[i]];
        }
        huff hcl, hlen, hdst;
        huff_make(&hcl, cl, 19);
        for (int i = 0; i < hlit + hdist;) {
            int s = decode_sym(&r, &hcl);
            if (s < 16) {
                lens[i++] = (uint8_t)s;
            } else {
                int rep = s == 16   ? 3 + (int)getbits(&r, 2)
                          : s == 17 ? 3 + (int)getbits(&r, 3)
                                    : 11 + (int)getbits(&r, 7);
                uint8_t v = s == 16 ? lens[i - 1] : 0;
                assert_true(i + rep <= hlit + hdist);
                while (rep--)
                    lens[i++] = v;
            }
        }
        for (int i = 0; i < hlit; i++)
            if (lens[i] > f.max_lit_len)
                f.max_lit_len = lens[i];
        for (int i = 0; i < hdist; i++)
            if (lens[hlit + i] > f.max_dist_len)
                f.max_dist_len = lens[hlit + i];
        assert_true(lens[256] > 0); /* end of block has a code */
        huff_make(&hlen, lens, hlit);
        huff_make(&hdst, lens + hlit, hdist);
        for (;;) {
            int s = decode_sym(&r, &hlen);
            if (s == 256)
                break;
            if (s > 256) {
                getbits(&r, lext[s - 257]);
                int d = decode_sym(&r, &hdst);
                assert_true(d < 30);
                getbits(&r, d < 4 ? 0 : (unsigned)d / 2 - 1);
            }
        }
    }
    return f;
}

/* Compress n = row_bytes * height bytes, inflate them with zlib, compare; check the block
 * headers. Returns the compressed size. */
static size_t roundtrip_bpp(const uint8_t *in, size_t row_bytes, size_t height, unsigned bpp)
{
    size_t n = row_bytes * height, cap = rp_pngz_bound(n);
    uint8_t *z = malloc(cap), *back = malloc(n + 1);
    assert_true(z && back);
    assert_int_equal(rp_pngz_compress(coder, in, row_bytes, height, bpp, z, cap - 1),
                     0); /* small */
    size_t zn = rp_pngz_compress(coder, in, row_bytes, height, bpp, z, cap);
    assert_true(zn > 6 && zn <= cap - 8);
    uLongf got = (uLongf)(n + 1);
    int zr = uncompress(back, &got, z, (uLong)zn);
    if (zr != Z_OK)
        fail_msg("inflate: %d for %zu x %zu bytes", zr, row_bytes, height);
    assert_int_equal(got, n);
    assert_memory_equal(back, in, n);
    stream_facts f = walk(z, zn);
    assert_true(f.max_lit_len <= 14);
    assert_true(f.max_dist_len <= 15);
    assert_true(f.max_cl_len <= 7);
    assert_true(f.blocks >= 1);
    free(z);
    free(back);
    return zn;
}

/* roundtrip_bpp() at every pixel size 1..8; returns the size at 3 bytes a pixel. */
static size_t roundtrip(const uint8_t *in, size_t row_bytes, size_t height)
{
    size_t zn = 0;
    for (unsigned bpp = 1; bpp <= 8; bpp++) {
        size_t k = roundtrip_bpp(in, row_bytes, height, bpp);
        if (bpp == 3)
            zn = k;
    }
    return zn;
}

static void test_empty_and_tiny(void **state)
{
    uint8_t one = 7, px[4] = {4, 0, 0, 0}, odd[3 * (1 + 3 * 5)];
    uint32_t s = 1;
    (void)state;
    roundtrip(&one, 0, 0);
    roundtrip(&one, 1, 0);
    roundtrip(&one, 1, 1);
    roundtrip(px, 4, 1); /* a 1x1 RGB frame */
    for (size_t i = 0; i < sizeof odd; i++)
        odd[i] = (uint8_t)(i % 16 == 0 ? 4 : next(&s));
    roundtrip(odd, 16, 3);           /* 5x3 */
    for (size_t w = 1; w <= 40; w++) /* every short row, a few rows each */
        for (size_t h = 1; h <= 3; h++)
            roundtrip(odd, w, h > sizeof odd / w ? sizeof odd / w : h);
}

static void test_zeros_and_noise(void **state)
{
    size_t row = 1 + 3 * 1920, h = 60, n = row * h;
    uint8_t *p = calloc(n, 1);
    uint32_t s = 5;
    (void)state;
    assert_non_null(p);
    for (size_t y = 0; y < h; y++)
        p[y * row] = 4;
    size_t zn = roundtrip(p, row, h);
    assert_true(zn < n / 50); /* zeros are runs */
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)next(&s);
    zn = roundtrip(p, row, h);
    assert_true(zn <= n + n / 1000 + 64); /* noise: stored blocks, no more */
    stream_facts f;
    {
        size_t cap = rp_pngz_bound(n);
        uint8_t *z = malloc(cap);
        assert_non_null(z);
        f = walk(z, rp_pngz_compress(coder, p, row, h, 3, z, cap));
        free(z);
    }
    assert_true(f.stored > 0);
    /* Noise of small values around 0, as a filter leaves: coded, and smaller. */
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((int)(next(&s) % 9) - 4);
    zn = roundtrip(p, row, h);
    assert_true(zn < n / 2);
    free(p);
}

/* Runs of every length near the encoder's limits (RP_PNGZ_MIN_RUN, 258 and its multiples
 * plus 0..3), at every offset mod 8, between noise; and one run over many blocks. */
static void test_runs(void **state)
{
    size_t cap = 3 << 20, n = 0;
    uint8_t *p = malloc(cap);
    uint32_t s = 9;
    (void)state;
    assert_non_null(p);
    for (unsigned len = 1; len <= 800; len++) {
        for (unsigned k = 0; k < 1 + len % 8; k++)
            p[n++] = (uint8_t)next(&s);
        uint8_t v = (uint8_t)(len % 3 ? 0 : next(&s));
        for (unsigned k = 0; k < len; k++)
            p[n++] = v;
    }
    roundtrip(p, n, 1);
    roundtrip(p, 1, n); /* the same bytes as rows of one byte */
    /* A run from near the start across several blocks (of 256 KiB and of 65535 stored
     * bytes), another ending at the end. */
    memset(p, 0, cap);
    for (size_t i = 0; i < 1000; i++)
        p[i] = (uint8_t)next(&s);
    for (size_t i = 5 * 65536 - 5; i < 5 * 65536 + 5; i++)
        p[i] = (uint8_t)next(&s);
    size_t zn = roundtrip(p, 5761, cap / 5761);
    assert_true(zn < 20000);
    /* Runs of a byte other than zero, continuing from the previous block. */
    memset(p, 0xab, cap);
    roundtrip(p, 65536 + 17, 7);
    free(p);
}

/* Counts like the Fibonacci numbers make a Huffman tree as deep as there are symbols:
 * the encoder must limit it. */
static void test_deep_tree(void **state)
{
    size_t n = 0, cap = 4 << 20;
    uint8_t *p = malloc(cap);
    uint32_t a = 1, b = 1, s = 3;
    (void)state;
    assert_non_null(p);
    for (int sym = 0; sym < 30 && n + b < cap; sym++) {
        for (uint32_t k = 0; k < a; k++)
            p[n++] = (uint8_t)(sym * 7 + 1);
        uint32_t t = a + b;
        a = b;
        b = t;
    }
    /* Shuffle, so they are literals rather than runs. */
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next(&s) % (i + 1);
        uint8_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    /* One block of all of it (rows of the whole) and blocks of parts of it. */
    roundtrip(p, 65536, n / 65536);
    roundtrip(p, n, 1);
    free(p);
}

/* 16-bit samples as PNG stores them (big-endian), grey and RGB: high bytes mostly equal. */
static void test_16bit(void **state)
{
    size_t w = 333, h = 41;
    uint32_t s = 17;
    (void)state;
    for (int bpp = 2; bpp <= 6; bpp += 4) {
        size_t stride = w * (size_t)bpp, row = stride + 1;
        uint8_t *px = malloc(stride * h), *rows = malloc(row * h), *zeros = calloc(stride, 1);
        assert_true(px && rows && zeros);
        for (size_t i = 0; i < stride * h; i += 2) {
            unsigned v = 30000 + (unsigned)(i % 700) * 9 + next(&s) % 64;
            px[i] = (uint8_t)(v >> 8);
            px[i + 1] = (uint8_t)v;
        }
        for (size_t y = 0; y < h; y++) {
            rows[y * row] = 4;
            rp_png_paeth_row(rows + y * row + 1, px + y * stride, y ? px + (y - 1) * stride : zeros,
                             stride, bpp);
        }
        roundtrip(rows, row, h);
        free(px);
        free(rows);
        free(zeros);
    }
}

/* A real picture's rows, Paeth-filtered as the PNG output does, at every SIMD level: the
 * same stream from each, which inflates to the rows. */
static void test_real_pictures(void **state)
{
    static const char *const files[] = {"examples/island.png", "examples/sky.png"};
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        png_image img;
        memset(&img, 0, sizeof img);
        img.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_file(&img, files[f]))
            fail_msg("cannot read %s (run from the source tree)", files[f]);
        img.format = PNG_FORMAT_RGB;
        size_t w = img.width, h = img.height, stride = 3 * w, row = stride + 1;
        uint8_t *px = malloc(stride * h), *rows = malloc(row * h), *zeros = calloc(stride, 1);
        uint8_t *first = NULL;
        size_t first_n = 0;
        assert_true(px && rows && zeros);
        assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
        for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
            rp_simd_set(level);
            for (size_t y = 0; y < h; y++) {
                rows[y * row] = 4;
                rp_png_paeth_row(rows + y * row + 1, px + y * stride,
                                 y ? px + (y - 1) * stride : zeros, stride, 3);
            }
            size_t zn = roundtrip(rows, row, h), cap = rp_pngz_bound(row * h);
            uint8_t *z = malloc(cap);
            assert_non_null(z);
            assert_int_equal(rp_pngz_compress(coder, rows, row, h, 3, z, cap), zn);
            if (!first) {
                first = z;
                first_n = zn;
            } else {
                assert_int_equal(zn, first_n);
                assert_memory_equal(z, first, zn);
                free(z);
            }
        }
        rp_simd_set(-1);
        free(first);
        free(px);
        free(rows);
        free(zeros);
    }
}

/* Rendered water: frames of examples/rain.scene (rain over the built-in grainy texture)
 * through the core at 960x540, early and late, Paeth-filtered as the PNG output does. */
static void test_rendered_water(void **state)
{
    static const int64_t frames[] = {0, 20, 90};
    rp_scene *scene = NULL;
    rp_core *core = NULL;
    rp_core_config cfg;
    rp_core_info info;
    rp_error err;
    char *text = malloc(1 << 16);
    FILE *f = fopen("examples/rain.scene", "rb");
    (void)state;
    assert_true(f && text);
    size_t len = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    assert_int_equal(rp_scene_from_text(&scene, text, len, "rain.scene", &err), 0);
    free(text);
    rp_core_config_init(&cfg);
    cfg.width = 960;
    cfg.height = 540;
    assert_int_equal(rp_core_open(&core, scene, &cfg, &err), 0);
    rp_core_get_info(core, &info);
    size_t stride = (size_t)info.width * 3, row = stride + 1, h = (size_t)info.height;
    uint8_t *px = malloc(stride * h), *rows = malloc(row * h), *zeros = calloc(stride, 1);
    assert_true(px && rows && zeros);
    for (size_t k = 0; k < sizeof frames / sizeof *frames; k++) {
        assert_true(frames[k] < info.frames);
        assert_int_equal(rp_core_render(core, frames[k], RP_PASS_RENDER, px, stride, &err), 0);
        for (size_t y = 0; y < h; y++) {
            rows[y * row] = 4;
            rp_png_paeth_row(rows + y * row + 1, px + y * stride, y ? px + (y - 1) * stride : zeros,
                             stride, 3);
        }
        size_t zn = roundtrip_bpp(rows, row, h, 3);
        assert_true(zn < row * h / 2); /* the matches find the grain's repeats */
    }
    free(px);
    free(rows);
    free(zeros);
    rp_core_close(&core);
    rp_scene_free(&scene);
}

/* A stream's bytes are its rows' alone, whatever the coder compressed before (a thread's
 * coder takes frames in any order): the parse's table, its ring of candidates and its
 * choice of the one- or two-pass way start afresh. The rows change between matching
 * nearly everywhere (pixels from four triples: the two-pass way) and noise (the one-pass
 * way), as PNG rows (1 + 3 w bytes) and as rows whose pixels do not fill them. */
static void test_stream_alone(void **state)
{
    enum { W = 700, H = 160 };
    static const uint8_t triples[4][3] = {{0, 0, 0}, {1, 1, 1}, {255, 255, 255}, {1, 0, 2}};
    (void)state;
    for (size_t row = 1 + 3 * W; row <= 2 + 3 * W; row++) {
        size_t n = row * H, cap = rp_pngz_bound(n);
        uint8_t *mixed = malloc(n), *noise = malloc(n), *dense = malloc(n);
        uint8_t *za = malloc(cap), *zb = malloc(cap);
        rp_pngz *fresh = rp_pngz_new();
        uint32_t s = 5;
        assert_true(mixed && noise && dense && za && zb && fresh);
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < row; x++) {
                size_t i = y * row + x;
                const uint8_t *t = triples[next(&s) % 4];
                int band = (int)(y / 40) % 2; /* 40 rows dense, 40 noise, ... */
                mixed[i] = x == 0 ? 4 : band ? (uint8_t)next(&s) : t[(x - 1) % 3];
                dense[i] = x == 0 ? 4 : triples[(y + x / 3) % 4][(x - 1) % 3];
                noise[i] = (uint8_t)next(&s);
            }
        size_t na = rp_pngz_compress(fresh, mixed, row, H, 3, za, cap);
        assert_true(na > 6);
        const uint8_t *before[] = {noise, dense, mixed};
        for (size_t b = 0; b < sizeof before / sizeof *before; b++) {
            assert_true(rp_pngz_compress(coder, before[b], row, H, 3, zb, cap) > 6);
            size_t nb = rp_pngz_compress(coder, mixed, row, H, 3, zb, cap);
            assert_int_equal(nb, na);
            assert_memory_equal(zb, za, na);
        }
        roundtrip_bpp(mixed, row, H, 3);
        rp_pngz_free(&fresh);
        free(mixed);
        free(noise);
        free(dense);
        free(za);
        free(zb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_tiny), cmocka_unit_test(test_zeros_and_noise),
        cmocka_unit_test(test_runs),           cmocka_unit_test(test_deep_tree),
        cmocka_unit_test(test_16bit),          cmocka_unit_test(test_real_pictures),
        cmocka_unit_test(test_rendered_water), cmocka_unit_test(test_stream_alone),
    };
    coder = rp_pngz_new();
    if (!coder)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rp_pngz_free(&coder);
    return failed;
}
