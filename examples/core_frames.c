/* core_frames.c - render a scene's frames into memory through the core API (rpcore.h) and
 * print the frame lines of `rockpool SCENE -f framemd5 -o -` (its '#' header lines
 * aside). Links the core library (librpcore) alone: no FFmpeg, no zlib, nothing but the C
 * library and threads, so the MD5 is computed here (RFC 1321).
 *
 *     make build/examples/core_frames
 *     build/examples/core_frames examples/harbour.scene [WIDTHxHEIGHT]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcore.h"

/* ---- MD5 (RFC 1321) ----------------------------------------------------------------- */

typedef struct md5 {
    uint32_t h[4];
    uint64_t bytes;
    uint8_t block[64];
} md5;

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void md5_block(md5 *m, const uint8_t *p)
{
    /* the shifts of each round and the sines' table T[i] = floor(2^32 * |sin(i + 1)|) */
    static const int s[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    static const uint32_t t[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    uint32_t x[16], a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];
    for (int i = 0; i < 16; i++) /* little-endian words */
        x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int k;
        switch (i / 16) {
        case 0: f = (b & c) | (~b & d), k = i; break;
        case 1: f = (b & d) | (c & ~d), k = (5 * i + 1) % 16; break;
        case 2: f = b ^ c ^ d, k = (3 * i + 5) % 16; break;
        default: f = c ^ (b | ~d), k = (7 * i) % 16; break;
        }
        uint32_t next = b + rol(a + f + x[k] + t[i], s[i / 16][i % 4]);
        a = d, d = c, c = b, b = next;
    }
    m->h[0] += a, m->h[1] += b, m->h[2] += c, m->h[3] += d;
}

static void md5_init(md5 *m)
{
    static const uint32_t h0[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    memcpy(m->h, h0, sizeof h0);
    m->bytes = 0;
}

static void md5_update(md5 *m, const uint8_t *p, size_t n)
{
    size_t used = (size_t)(m->bytes % 64);
    m->bytes += n;
    while (n) {
        size_t take = 64 - used < n ? 64 - used : n;
        memcpy(m->block + used, p, take);
        used += take, p += take, n -= take;
        if (used == 64) {
            md5_block(m, m->block);
            used = 0;
        }
    }
}

static void md5_hex(md5 *m, char hex[33])
{
    uint8_t pad[72] = {0x80};
    uint64_t bits = m->bytes * 8;
    size_t n = 64 - (size_t)((m->bytes + 8) % 64); /* 1..64 bytes of padding */
    for (int i = 0; i < 8; i++)
        pad[n + i] = (uint8_t)(bits >> (8 * i));
    md5_update(m, pad, n + 8);
    for (int i = 0; i < 16; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned)(m->h[i / 4] >> (8 * (i % 4))) & 0xff);
}

/* ---- the frames --------------------------------------------------------------------- */

static int fail(const rp_error *err)
{
    if (err->has_diag && err->diag.line > 0)
        fprintf(stderr, "core_frames: %s:%d:%d: error: %s\n", err->diag.file, err->diag.line,
                err->diag.col, err->diag.msg);
    else
        fprintf(stderr, "core_frames: error: %s\n", err->msg);
    return err->bad_input ? 2 : 1;
}

int main(int argc, char **argv)
{
    rp_error err;
    rp_scene *scene = NULL;
    rp_core *core = NULL;
    rp_core_config cfg;
    rp_core_info info;
    uint8_t *rgb = NULL;
    int status = 1;

    if (argc < 2 || argc > 3 ||
        (argc == 3 && sscanf(argv[2], "%dx%d", &cfg.width, &cfg.height) != 2)) {
        fputs("usage: core_frames SCENE [WIDTHxHEIGHT]\n", stderr);
        return 2;
    }
    if ((rp_core_version() >> 16) != RP_CORE_VERSION_MAJOR) {
        fputs("core_frames: the library's major version is not this header's\n", stderr);
        return 1;
    }
    /* The scene's text: the core reads no files. */
    FILE *f = fopen(argv[1], "rb");
    char *text = malloc(1 << 20);
    size_t len = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    if (!f || !text || ferror(f) || !feof(f)) {
        fprintf(stderr, "core_frames: %s: cannot read it (or it is over 1 MiB)\n", argv[1]);
        if (f)
            fclose(f);
        free(text);
        return 2;
    }
    fclose(f);
    int r = rp_scene_from_text(&scene, text, len, argv[1], &err);
    free(text);
    if (r)
        return fail(&err);

    int width = argc == 3 ? cfg.width : 0, height = argc == 3 ? cfg.height : 0;
    rp_core_config_init(&cfg);
    cfg.width = width;
    cfg.height = height;
    cfg.threads = 2; /* the bytes are the same for any count */
    if (rp_core_open(&core, scene, &cfg, &err)) {
        status = fail(&err);
        goto done;
    }
    rp_core_get_info(core, &info);
    size_t row = (size_t)info.width * 3, bytes = row * (size_t)info.height;
    if (!(rgb = malloc(bytes)))
        goto done;
    for (int64_t k = 0; k < info.frames; k++) {
        md5 m;
        char hex[33];
        if (rp_core_render(core, k, RP_PASS_RENDER, rgb, row, &err)) {
            status = fail(&err);
            goto done;
        }
        md5_init(&m);
        md5_update(&m, rgb, bytes);
        md5_hex(&m, hex);
        printf("0, %10" PRId64 ", %10" PRId64 ", %8d, %8zu, %s\n", k, k, 1, bytes, hex);
    }
    status = fflush(stdout) ? 1 : 0;
done:
    free(rgb);
    rp_core_close(&core);
    rp_scene_free(&scene);
    return status;
}
