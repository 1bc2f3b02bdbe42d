/* test_output.c - unit tests for output.c and its backends (PNG, video, Y4M, framemd5)
 * and for image.c. Oracles are independent of the code under test: libpng reads back the
 * PNGs and zlib checks their chunks' CRCs and inflates their image data, libavformat counts
 * the video's packets, MD5 values were computed with md5sum. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>
#include <png.h>
#include <zlib.h>

#include "base/common.h"
#include "rockpool.h" /* rp_messages_name_options */
#include "input/image.h"
#include "output/output.h"

/* ---- helpers ---- */

/* Number of directory entries (not . or ..) under dir, and whether any is a temp file. */
static int count_entries(const char *dir, int *temps)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    if (temps)
        *temps = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        if (temps && strstr(e->d_name, ".tmp-"))
            (*temps)++;
    }
    closedir(d);
    return n;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    data[n] = 0;
    *len = (size_t)n;
    return data;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A frame that differs per pixel, channel and frame. */
static uint8_t *make_frame(int w, int h, int seed)
{
    uint8_t *rgb = malloc((size_t)w * h * 3);

    assert_non_null(rgb);
    for (int i = 0; i < w * h * 3; i++)
        rgb[i] = (uint8_t)(i * 7 + seed * 31 + (i / (w * 3)) * 13);
    return rgb;
}

static void opts_for(rp_output_spec *o, const char *path, int w, int h)
{
    rp_output_spec_init(o);
    o->path = path;
    o->width = w;
    o->height = h;
    o->fps = 25;
}

/* Write count frames with indices first..first+count-1; returns the close result. */
static int write_frames(const rp_output_spec *o, int count, rp_error *err)
{
    rp_output *out = NULL;
    int ret = rp_output_open(&out, o, err);

    if (ret)
        return ret;
    for (int i = 0; i < count; i++) {
        uint8_t *rgb = make_frame(o->width, o->height, i);

        ret = rp_output_write(out, o->first_frame + i, rgb, err);
        free(rgb);
        if (ret) {
            rp_output_abort(&out);
            return ret;
        }
    }
    assert_int_equal(rp_output_frames(out), count);
    ret = rp_output_close(&out, err);
    assert_null(out);
    return ret;
}

/* Decode a PNG with libpng's simplified API into RGB24. */
static uint8_t *png_read_rgb(const char *path, int *w, int *h)
{
    png_image img;
    uint8_t *rgb;

    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGB;
    rgb = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(rgb);
    assert_true(png_image_finish_read(&img, NULL, rgb, 0, NULL));
    *w = (int)img.width;
    *h = (int)img.height;
    return rgb;
}

/* Write a PNG with libpng: color type PNG_COLOR_TYPE_RGB or PNG_COLOR_TYPE_RGB_ALPHA. */
static void png_write_file(const char *path, const uint8_t *pixels, int w, int h, int rgba)
{
    png_image img;

    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)w;
    img.height = (png_uint_32)h;
    img.format = rgba ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    assert_true(png_image_write_to_file(&img, path, 0, pixels, 0, NULL));
}

/* Whether a PNG file holds a chunk of the given type. */
static int png_has_chunk(const uint8_t *data, size_t len, const char *type)
{
    size_t pos = 8;

    while (pos + 12 <= len) {
        uint32_t n = (uint32_t)data[pos] << 24 | (uint32_t)data[pos + 1] << 16 |
                     (uint32_t)data[pos + 2] << 8 | data[pos + 3];

        if (!memcmp(data + pos + 4, type, 4))
            return 1;
        pos += 12 + (size_t)n;
    }
    return 0;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Check a PNG file's structure with zlib, independently of libpng: the signature; chunks
 * IHDR (w x h, 8-bit RGB, not interlaced), pHYs (1:1), then the IDATs next to each other,
 * then IEND and nothing after; every chunk's CRC-32; the IDATs' data one zlib stream (zlib
 * checks its header and Adler-32) inflating to exactly h rows of 1 + 3w bytes, each
 * starting with a filter type 0..4 (want_filter, if >= 0, on every row). Returns the number
 * of IDAT chunks. */
static int png_check_structure(const uint8_t *data, size_t len, int w, int h, int want_filter)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t pos = 8, zlen = 0, raw_len = (size_t)h * (3 * (size_t)w + 1);
    uint8_t *z = malloc(len), *raw = malloc(raw_len + 1);
    uLongf got = (uLongf)raw_len + 1;
    int idat = 0, idat_done = 0, nchunk = 0, iend = 0;

    assert_non_null(z);
    assert_non_null(raw);
    assert_true(len >= 8);
    assert_memory_equal(data, sig, 8);
    while (pos < len) {
        assert_true(pos + 12 <= len);
        uint32_t n = be32(data + pos);
        const uint8_t *type = data + pos + 4, *body = data + pos + 8;
        assert_true(pos + 12 + (size_t)n <= len);
        uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + n);
        assert_int_equal(crc, be32(body + n));
        assert_false(iend);
        if (nchunk == 0) {
            assert_memory_equal(type, "IHDR", 4);
            assert_int_equal(n, 13);
            assert_int_equal(be32(body), w);
            assert_int_equal(be32(body + 4), h);
            assert_memory_equal(body + 8, "\x08\x02\x00\x00\x00", 5);
        } else if (!memcmp(type, "pHYs", 4)) {
            assert_int_equal(n, 9);
            assert_memory_equal(body, "\0\0\0\x01\0\0\0\x01\0", 9);
        } else if (!memcmp(type, "IDAT", 4)) {
            assert_false(idat_done);
            memcpy(z + zlen, body, n);
            zlen += n;
            idat++;
        } else {
            assert_memory_equal(type, "IEND", 4);
            assert_int_equal(n, 0);
            iend = 1;
        }
        if (idat && memcmp(type, "IDAT", 4))
            idat_done = 1;
        nchunk++;
        pos += 12 + (size_t)n;
    }
    assert_true(iend);
    assert_int_equal(uncompress(raw, &got, z, (uLong)zlen), Z_OK);
    assert_int_equal(got, raw_len);
    for (int y = 0; y < h; y++) {
        uint8_t f = raw[(size_t)y * (3 * (size_t)w + 1)];
        assert_true(f <= 4);
        if (want_filter >= 0)
            assert_int_equal(f, want_filter);
    }
    free(z);
    free(raw);
    return idat;
}

/* ---- front end ---- */

static void test_format_names(void **state)
{
    (void)state;
    assert_int_equal(rp_output_format_from_path("x.mp4"), RP_FORMAT_MP4);
    assert_int_equal(rp_output_format_from_path("dir.d/x.MKV"), RP_FORMAT_MKV);
    assert_int_equal(rp_output_format_from_path("x.mov"), RP_FORMAT_MOV);
    assert_int_equal(rp_output_format_from_path("x.webm"), RP_FORMAT_WEBM);
    assert_int_equal(rp_output_format_from_path("frames/f_%05d.png"), RP_FORMAT_PNG);
    assert_int_equal(rp_output_format_from_path("-"), RP_FORMAT_Y4M);
    assert_int_equal(rp_output_format_from_path("x.y4m"), RP_FORMAT_Y4M);
    assert_int_equal(rp_output_format_from_path("x.avi"), RP_FORMAT_NONE);
    assert_int_equal(rp_output_format_from_path("dir.mp4/x"), RP_FORMAT_NONE);
    assert_int_equal(rp_output_format_from_name("mkv"), RP_FORMAT_MKV);
    assert_int_equal(rp_output_format_from_name("framemd5"), RP_FORMAT_FRAMEMD5);
    assert_int_equal(rp_output_format_from_name("matroska"), RP_FORMAT_NONE);
    assert_string_equal(rp_output_format_name(RP_FORMAT_WEBM), "webm");
}

static void test_md5_hex(void **state)
{
    /* printf '\0\0\0' | md5sum ; printf '\xff\x00\x80' | md5sum */
    const uint8_t zeros[3] = {0, 0, 0}, mixed[3] = {0xff, 0x00, 0x80};
    char hex[33];

    (void)state;
    rp_md5_hex(zeros, 3, hex);
    assert_string_equal(hex, "693e9af84d3dfcc71e640e005bdc5e2e");
    rp_md5_hex(mixed, 3, hex);
    assert_string_equal(hex, "60cdccd4000580a3c394b8ad6ea9b899");
}

static void test_validate_errors(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;

    opts_for(&o, join(dir, "x.avi"), 64, 48);
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "-f"));

    opts_for(&o, join(dir, "missing/x.mp4"), 64, 48);
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_IO);
    assert_non_null(strstr(err.msg, "missing"));

    opts_for(&o, "-", 64, 48);
    o.format = RP_FORMAT_MP4;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);

    opts_for(&o, join(dir, "x.mp4"), RP_MAX_SIDE + 2, 48);
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_TOO_LARGE);

    opts_for(&o, join(dir, "x.mp4"), 64, 48);
    o.codec = "no-such-encoder";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no-such-encoder"));
    o.codec = "mpeg4";
    o.encoder_preset = "fast";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no presets"));
    o.codec = NULL;
    o.encoder_preset = "bogus";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "bogus"));
    o.encoder_preset = "ultrafast";
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    o.pix_fmt = "no-such-format";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);

    opts_for(&o, dir, 64, 48);
    o.format = RP_FORMAT_MKV;
    o.overwrite = 1;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_IO);
    assert_non_null(strstr(err.msg, "directory"));
    assert_int_equal(count_entries(dir, NULL), 0);
}

static void test_png_pattern_errors(void **state)
{
    const char *dir = *state;
    static const char *const bad[] = {
        "f.png",     "f_%s.png",    "f_%d_%d.png",  "d%d/f.png",  "f_%05ld.png", "f_%.png",
        "f_%",       "f_%123d.png", "f_%x.png",     "f_%-3d.png", "f_%+d.png",   "f_% d.png",
        "f_%#d.png", "f_%-05d.png", "f_%5d.png",    "f_%i.png",   "f_%u.png",    "f_%.3d.png",
        "f_%0d.png", "f_%005d.png", "f_%0123d.png",
    };
    rp_output_spec o;
    rp_error err;
    char path[256];

    /* Runs of two frames: a name without a conversion ("f.png") is a still, one frame. */
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, bad[i]);
        opts_for(&o, path, 8, 8);
        o.format = RP_FORMAT_PNG;
        o.frame_count = 2;
        err.msg[0] = '\0';
        assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
        assert_true(strlen(err.msg) > 10);
    }
    /* One still: a plain name is valid for one frame, and the second frame is refused. */
    opts_for(&o, join(dir, "still.png"), 8, 8);
    o.frame_count = 1;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    o.frame_count = 0; /* not known: the output refuses a second frame itself (the first
                        * goes too, as a failed sequence's frames go) */
    assert_int_equal(write_frames(&o, 2, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "one still"));
    assert_int_equal(count_entries(dir, NULL), 0);
    assert_int_equal(write_frames(&o, 1, &err), RP_OK);
    assert_int_equal(count_entries(dir, NULL), 1);
    unlink(join(dir, "still.png"));
    /* So is a name whose only '%' is a literal one, "%%": its second frame is refused too
     * (it would replace the first), and one frame is the file "100%.png". */
    opts_for(&o, join(dir, "100%%.png"), 8, 8);
    o.frame_count = 0;
    assert_int_equal(write_frames(&o, 2, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "one still"));
    assert_int_equal(count_entries(dir, NULL), 0);
    assert_int_equal(write_frames(&o, 1, &err), RP_OK);
    assert_int_equal(access(join(dir, "100%.png"), F_OK), 0);
    assert_int_equal(count_entries(dir, NULL), 1);
    unlink(join(dir, "100%.png"));
    /* %% is a literal percent; %0Nd is zero-padded to N digits, up to 99. */
    opts_for(&o, join(dir, "a%%_%05d.png"), 8, 8);
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    opts_for(&o, join(dir, "a_%099d.png"), 8, 8);
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    opts_for(&o, join(dir, "a_%d.png"), 8, 8);
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    assert_int_equal(count_entries(dir, NULL), 0);
}

/* Frames go to the pattern under a created directory, numbered by timeline index, and
 * libpng reads back exactly the bytes written; no tIME chunk, no temp file left. */
static void test_png_roundtrip(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    char name[4096];
    int temps;

    opts_for(&o, join(dir, "a/b/f_%%_%03d.png"), 37, 23);
    o.first_frame = 5;
    assert_int_equal(write_frames(&o, 3, &err), RP_OK);
    assert_int_equal(count_entries(join(dir, "a/b"), &temps), 3);
    assert_int_equal(temps, 0);
    for (int i = 0; i < 3; i++) {
        uint8_t *expect = make_frame(37, 23, i), *got, *bytes;
        size_t len;
        int w, h;

        snprintf(name, sizeof(name), "%s/a/b/f_%%_%03d.png", dir, 5 + i);
        got = png_read_rgb(name, &w, &h);
        assert_int_equal(w, 37);
        assert_int_equal(h, 23);
        assert_memory_equal(got, expect, 37 * 23 * 3);
        bytes = read_file(name, &len);
        assert_true(png_has_chunk(bytes, len, "IHDR"));
        assert_true(png_has_chunk(bytes, len, "IDAT"));
        assert_false(png_has_chunk(bytes, len, "tIME"));
        assert_false(png_has_chunk(bytes, len, "tEXt"));
        assert_int_equal(png_check_structure(bytes, len, 37, 23, 4), 1);
        free(bytes);
        free(got);
        free(expect);
    }
}

/* Every level, the default and explicit ones, on one and on several threads: libpng reads
 * back exactly the frame written, and zlib checks the file (png_check_structure): rows
 * Paeth-filtered, stored without a filter at level 0. The large frame is noise, so its data
 * is larger than one IDAT chunk and the stream spans several; the small ones have rows
 * shorter than the SSE2 filter's vector, and one pixel. */
static void test_png_levels_roundtrip(void **state)
{
    const char *dir = *state;
    static const int levels[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int sizes[][2] = {{300, 200}, {5, 3}, {1, 1}};
    uint8_t *noise = malloc(300 * 200 * 3);
    uint32_t s = 1;
    rp_error err;

    assert_non_null(noise);
    for (int i = 0; i < 300 * 200 * 3; i++) {
        s = s * 1664525u + 1013904223u;
        noise[i] = (uint8_t)(s >> 24);
    }
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int threads = 1; threads <= 2; threads++) {
                const int w = sizes[z][0], h = sizes[z][1];
                rp_output_spec o;
                rp_output *out = NULL;
                uint8_t *got, *bytes;
                size_t len;
                int gw, gh, idat;

                opts_for(&o, join(dir, "lv/f_%d.png"), w, h);
                o.png_level = levels[l];
                o.threads = threads;
                o.overwrite = 1;
                assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
                assert_int_equal(rp_output_write(out, 0, noise, &err), RP_OK);
                assert_int_equal(rp_output_close(&out, &err), RP_OK);
                got = png_read_rgb(join(dir, "lv/f_0.png"), &gw, &gh);
                assert_int_equal(gw, w);
                assert_int_equal(gh, h);
                assert_memory_equal(got, noise, (size_t)w * h * 3);
                bytes = read_file(join(dir, "lv/f_0.png"), &len);
                idat = png_check_structure(bytes, len, w, h, levels[l] == 0 ? 0 : 4);
                assert_true(idat >= (w == 300 ? 2 : 1));
                free(bytes);
                free(got);
            }
    free(noise);
}

static void test_png_deterministic(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    uint8_t *a, *b;
    size_t alen, blen;

    for (int level = -1; level <= 9; level += 5) {
        opts_for(&o, join(dir, "r1/f_%d.png"), 64, 48);
        o.png_level = level;
        o.overwrite = 1;
        assert_int_equal(write_frames(&o, 2, &err), RP_OK);
        o.path = join(dir, "r2/f_%d.png");
        assert_int_equal(write_frames(&o, 2, &err), RP_OK);
        a = read_file(join(dir, "r1/f_1.png"), &alen);
        b = read_file(join(dir, "r2/f_1.png"), &blen);
        assert_int_equal(alen, blen);
        assert_memory_equal(a, b, alen);
        free(a);
        free(b);
    }
}

static void test_png_exists(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    uint8_t *data;
    size_t len;

    write_text(join(dir, "f_0002.png"), "keep");
    opts_for(&o, join(dir, "f_%04d.png"), 8, 8);
    o.first_frame = 2;
    err.msg[0] = '\0';
    assert_int_equal(write_frames(&o, 1, &err), RP_ERR_EXISTS);
    assert_non_null(strstr(err.msg, "f_0002.png"));
    assert_int_equal(err.bad_input, 1); /* refused at open: the program exits 2 */
    data = read_file(join(dir, "f_0002.png"), &len);
    assert_string_equal((char *)data, "keep");
    free(data);
    assert_int_equal(count_entries(dir, NULL), 1);

    /* Later frames of the run are checked up front too. */
    o.first_frame = 0;
    o.frame_count = 5;
    err.msg[0] = '\0';
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_EXISTS);
    assert_non_null(strstr(err.msg, "f_0002.png"));
    assert_int_equal(err.bad_input, 1);
    o.frame_count = 2;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);

    o.first_frame = 2;
    o.overwrite = 1;
    assert_int_equal(write_frames(&o, 1, &err), RP_OK);
    data = read_file(join(dir, "f_0002.png"), &len);
    assert_memory_equal(data, "\x89PNG", 4);
    free(data);
}

static void test_write_order(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_output *out;
    rp_error err;
    uint8_t *rgb = make_frame(4, 4, 0);

    opts_for(&o, join(dir, "f_%d.png"), 4, 4);
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 3, rgb, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 3, rgb, &err), RP_ERR_INVALID);
    rp_output_abort(&out);
    assert_null(out);
    rp_output_abort(&out); /* no-op */
    free(rgb);
}

/* ---- framemd5 ---- */

static void test_framemd5_lines(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_output *out;
    rp_error err;
    const uint8_t zeros[3] = {0, 0, 0};
    uint8_t *text;
    size_t len;

    opts_for(&o, join(dir, "h.framemd5"), 1, 1);
    o.fps = 30;
    o.first_frame = 12;
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 12, zeros, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 13, zeros, &err), RP_OK);
    /* Not visible under its name until closed. */
    assert_int_equal(access(join(dir, "h.framemd5"), F_OK), -1);
    assert_int_equal(rp_output_close(&out, &err), RP_OK);
    text = read_file(join(dir, "h.framemd5"), &len);
    assert_memory_equal(text, "#format: frame checksums\n#version: 2\n#hash: MD5\n", 48);
    assert_non_null(strstr((char *)text, "\n#tb 0: 1/30\n#media_type 0: video\n"
                                         "#codec_id 0: rawvideo\n#dimensions 0: 1x1\n"
                                         "#sar 0: 1/1\n"
                                         "#stream#, dts,        pts, duration,     size, "
                                         "hash\n"));
    assert_non_null(strstr((char *)text, "hash\n"
                                         "0,         12,         12,        1,        3, "
                                         "693e9af84d3dfcc71e640e005bdc5e2e\n"
                                         "0,         13,         13,        1,        3, "
                                         "693e9af84d3dfcc71e640e005bdc5e2e\n"));
    assert_int_equal(text[len - 1], '\n');
    free(text);
}

/* A file that appears under the output's name during the run is not replaced without
 * overwrite, and no temp file is left; abort of a file backend leaves nothing. */
static void test_commit_race_and_abort(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_output *out;
    rp_error err;
    const uint8_t zeros[3] = {0, 0, 0};
    uint8_t *data;
    size_t len;
    int temps;

    opts_for(&o, join(dir, "h.framemd5"), 1, 1);
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 0, zeros, &err), RP_OK);
    write_text(join(dir, "h.framemd5"), "keep");
    assert_int_equal(rp_output_close(&out, &err), RP_ERR_EXISTS);
    assert_int_equal(err.bad_input, 0); /* made during the run: a runtime failure (1) */
    assert_null(out);
    data = read_file(join(dir, "h.framemd5"), &len);
    assert_string_equal((char *)data, "keep");
    free(data);
    assert_int_equal(count_entries(dir, &temps), 1);
    assert_int_equal(temps, 0);

    opts_for(&o, join(dir, "x.y4m"), 1, 1);
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    assert_int_equal(rp_output_write(out, 0, zeros, &err), RP_OK);
    rp_output_abort(&out);
    assert_int_equal(count_entries(dir, NULL), 1);
}

/* ---- Y4M ---- */

static void test_y4m_file(void **state)
{
    const char *dir = *state;
    static const char header[] = "YUV4MPEG2 W5 H3 F25:1 Ip A1:1 C444";
    rp_output_spec o;
    rp_error err;
    uint8_t *data;
    size_t len, hlen;

    opts_for(&o, join(dir, "x.y4m"), 5, 3);
    assert_int_equal(write_frames(&o, 2, &err), RP_OK);
    data = read_file(join(dir, "x.y4m"), &len);
    assert_memory_equal(data, header, strlen(header));
    hlen = (size_t)((uint8_t *)strchr((char *)data, '\n') - data) + 1;
    assert_int_equal(len, hlen + 2 * (6 + 3 * 15));
    assert_memory_equal(data + hlen, "FRAME\n", 6);
    assert_memory_equal(data + hlen + 6 + 45, "FRAME\n", 6);
    free(data);
}

/* The planes of a solid colour, against BT.601 limited-range values worked out by hand:
 * Y = 16 + (65.481 R + 128.553 G + 24.966 B)/255, Cb = 128 + (-37.797 R - 74.203 G + 112 B)/255,
 * Cr = 128 + (112 R - 93.786 G - 18.214 B)/255. Red gives 81, 90, 240; white 235, 128, 128;
 * black 16, 128, 128. Each plane must hold its value (within 1) in every byte, in 4:2:0
 * (the default) and 4:4:4. */
static void test_y4m_colours(void **state)
{
    const char *dir = *state;
    static const struct {
        uint8_t rgb[3], yuv[3];
    } cases[] = {{{255, 0, 0}, {81, 90, 240}},
                 {{255, 255, 255}, {235, 128, 128}},
                 {{0, 0, 0}, {16, 128, 128}},
                 {{0, 0, 255}, {41, 240, 110}}};
    const int w = 6, h = 4;
    uint8_t rgb[6 * 4 * 3];
    rp_error err;

    /* 4:2:0 (the default: chroma planes a quarter of the size) and 4:4:4 */
    for (int full = 0; full < 2; full++) {
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            rp_output_spec o;
            rp_output *out = NULL;
            uint8_t *data;
            size_t len;
            for (int i = 0; i < w * h; i++)
                memcpy(rgb + 3 * i, cases[c].rgb, 3);
            opts_for(&o, join(dir, "c.y4m"), w, h);
            o.overwrite = 1;
            o.pix_fmt = full ? "yuv444p" : NULL;
            assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
            assert_int_equal(rp_output_write(out, 0, rgb, &err), RP_OK);
            assert_int_equal(rp_output_close(&out, &err), RP_OK);
            data = read_file(join(dir, "c.y4m"), &len);
            assert_non_null(strstr((char *)data, full ? " C444 " : " C420jpeg "));
            const uint8_t *planes = (uint8_t *)strstr((char *)data, "FRAME\n") + 6;
            size_t chroma = full ? (size_t)(w * h) : (size_t)(w * h) / 4;
            assert_int_equal(len, (size_t)(planes - data) + (size_t)(w * h) + 2 * chroma);
            for (int i = 0; i < w * h; i++)
                assert_true(abs((int)planes[i] - cases[c].yuv[0]) <= 1);
            for (int p = 1; p < 3; p++)
                for (size_t i = 0; i < chroma; i++)
                    assert_true(abs((int)planes[(size_t)(w * h) + (p - 1) * chroma + i] -
                                    cases[c].yuv[p]) <= 1);
            free(data);
        }
    }
}

/* ---- video ---- */

/* Open a file with libavformat and count its video packets. */
static int count_packets(const char *path, AVRational *rate, int *w, int *h)
{
    AVFormatContext *fc = NULL;
    AVPacket *pkt = av_packet_alloc();
    int n = 0;

    assert_int_equal(avformat_open_input(&fc, path, NULL, NULL), 0);
    assert_true(avformat_find_stream_info(fc, NULL) >= 0);
    assert_int_equal(fc->nb_streams, 1);
    *rate = fc->streams[0]->avg_frame_rate;
    *w = fc->streams[0]->codecpar->width;
    *h = fc->streams[0]->codecpar->height;
    while (av_read_frame(fc, pkt) >= 0) {
        n++;
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    avformat_close_input(&fc);
    return n;
}

static void test_video_mp4(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    AVRational rate;
    int w, h, temps;

    opts_for(&o, join(dir, "v.mp4"), 64, 48);
    o.first_frame = 100;
    assert_int_equal(write_frames(&o, 10, &err), RP_OK);
    assert_int_equal(count_packets(join(dir, "v.mp4"), &rate, &w, &h), 10);
    assert_int_equal(rate.num, 25);
    assert_int_equal(rate.den, 1);
    assert_int_equal(w, 64);
    assert_int_equal(h, 48);
    assert_int_equal(count_entries(dir, &temps), 1);
    assert_int_equal(temps, 0);
}

static void test_video_mkv_mpeg4(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    AVRational rate;
    int w, h;

    opts_for(&o, join(dir, "v.mkv"), 32, 16);
    o.codec = "mpeg4";
    assert_int_equal(write_frames(&o, 7, &err), RP_OK);
    assert_int_equal(count_packets(join(dir, "v.mkv"), &rate, &w, &h), 7);
    assert_int_equal(rate.num, 25);
    assert_int_equal(rate.den, 1);
}

static void test_video_abort(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_output *out;
    rp_error err;
    uint8_t *rgb = make_frame(64, 48, 1);

    opts_for(&o, join(dir, "v.mp4"), 64, 48);
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rp_output_write(out, i, rgb, &err), RP_OK);
    rp_output_abort(&out);
    assert_null(out);
    assert_int_equal(count_entries(dir, NULL), 0);
    free(rgb);
}

static void test_video_exists(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;
    uint8_t *data;
    size_t len;

    write_text(join(dir, "v.mp4"), "keep");
    opts_for(&o, join(dir, "v.mp4"), 64, 48);
    assert_int_equal(write_frames(&o, 1, &err), RP_ERR_EXISTS);
    assert_non_null(strstr(err.msg, "exists"));
    data = read_file(join(dir, "v.mp4"), &len);
    assert_string_equal((char *)data, "keep");
    free(data);
    assert_int_equal(count_entries(dir, NULL), 1);
}

static void test_video_odd_size(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_output *out = NULL;
    rp_error err;

    opts_for(&o, join(dir, "v.mp4"), 65, 48);
    assert_int_equal(rp_output_open(&out, &o, &err), RP_ERR_INVALID);
    assert_null(out);
    assert_non_null(strstr(err.msg, "even width and height"));
    assert_non_null(strstr(err.msg, "65x48"));
    assert_non_null(strstr(err.msg, "64x48"));
    assert_int_equal(count_entries(dir, NULL), 0);

    /* 4:4:4 takes any size. */
    o.pix_fmt = "yuv444p";
    assert_int_equal(write_frames(&o, 2, &err), RP_OK);
}

/* ---- images ---- */

static void test_image_rgb(void **state)
{
    const char *dir = *state;
    uint8_t *pixels = make_frame(8, 6, 3), *rgb = NULL;
    rp_error err;
    int w = 0, h = 0;

    png_write_file(join(dir, "in.png"), pixels, 8, 6, 0);
    assert_int_equal(rp_image_probe(join(dir, "in.png"), &w, &h, &err), RP_OK);
    assert_int_equal(w, 8);
    assert_int_equal(h, 6);
    assert_int_equal(rp_image_load_rgb(join(dir, "in.png"), 8, 6, &rgb, &err), RP_OK);
    assert_memory_equal(rgb, pixels, 8 * 6 * 3);
    free(rgb);
    free(pixels);

    /* A name with '%' and ':' is a plain file name, not a pattern or protocol. */
    pixels = make_frame(4, 4, 1);
    png_write_file(join(dir, "a%d:b.png"), pixels, 4, 4, 0);
    assert_int_equal(rp_image_load_rgb(join(dir, "a%d:b.png"), 4, 4, &rgb, &err), RP_OK);
    assert_memory_equal(rgb, pixels, 4 * 4 * 3);
    free(rgb);
    free(pixels);
}

static void test_image_alpha(void **state)
{
    const char *dir = *state;
    static const uint8_t rgba[2 * 2 * 4] = {
        200, 100, 50, 255, 200, 100, 50, 0, 200, 100, 50, 192, 1, 255, 255, 128,
    };
    uint8_t expect[2 * 2 * 3], *rgb = NULL;
    rp_error err;

    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
            expect[3 * i + c] = (uint8_t)((rgba[4 * i + c] * rgba[4 * i + 3] + 127) / 255);
    png_write_file(join(dir, "a.png"), rgba, 2, 2, 1);
    assert_int_equal(rp_image_load_rgb(join(dir, "a.png"), 2, 2, &rgb, &err), RP_OK);
    assert_memory_equal(rgb, expect, sizeof(expect));
    assert_int_equal(rgb[6], 151); /* 200 * 192 / 255 = 150.6, rounded */
    assert_int_equal(rgb[9], 1);   /* 1 * 128 / 255 = 0.502 */
    free(rgb);
}

static void test_image_scale_and_mask(void **state)
{
    const char *dir = *state;
    uint8_t pixels[8 * 4 * 3], *rgb = NULL, *mask = NULL;
    rp_error err;

    /* Left half white, right half black. */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            memset(pixels + 3 * (y * 8 + x), x < 4 ? 255 : 0, 3);
    png_write_file(join(dir, "m.png"), pixels, 8, 4, 0);
    assert_int_equal(rp_image_load_rgb(join(dir, "m.png"), 32, 16, &rgb, &err), RP_OK);
    for (int y = 0; y < 16; y++) {
        assert_int_equal(rgb[3 * (y * 32 + 2)], 255);
        assert_int_equal(rgb[3 * (y * 32 + 29) + 1], 0);
    }
    free(rgb);
    assert_int_equal(rp_image_load_mask(join(dir, "m.png"), 16, 8, &mask, &err), RP_OK);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++)
            assert_int_equal(mask[y * 16 + x], x < 8);
    free(mask);
}

static void test_image_errors(void **state)
{
    const char *dir = *state;
    uint8_t *rgb = (uint8_t *)"x";
    rp_error err;
    int w, h;

    err.msg[0] = '\0';
    assert_int_equal(rp_image_probe(join(dir, "none.png"), &w, &h, &err), RP_ERR_IO);
    assert_non_null(strstr(err.msg, "none.png"));
    assert_non_null(strstr(err.msg, strerror(ENOENT)));
    assert_int_equal(err.code, RP_ERR_IO);
    assert_int_equal(err.bad_input, 1); /* a file the user named: exit status 2 */
    assert_int_equal(rp_image_load_rgb(join(dir, "none.png"), 4, 4, &rgb, &err), RP_ERR_IO);
    assert_null(rgb);

    write_text(join(dir, "t.png"), "this is not a picture\n");
    write_text(join(dir, "t.txt"), "this is not a picture either\n");
    err.msg[0] = '\0';
    assert_int_equal(rp_image_load_rgb(join(dir, "t.png"), 4, 4, &rgb, &err), RP_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "t.png"));
    err.msg[0] = '\0';
    assert_int_equal(rp_image_probe(join(dir, "t.txt"), &w, &h, &err), RP_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "t.txt"));

    err.msg[0] = '\0';
    assert_int_equal(rp_image_probe(dir, &w, &h, &err), RP_ERR_IO);
    assert_non_null(strstr(err.msg, "directory"));

    assert_int_equal(mkfifo(join(dir, "fifo.png"), 0600), 0);
    err.msg[0] = '\0';
    assert_int_equal(rp_image_probe(join(dir, "fifo.png"), &w, &h, &err), RP_ERR_IO);
    assert_non_null(strstr(err.msg, "regular file"));
}

/* An over-size image is refused from its header: 16385 x 1 is tiny on disk. */
static void test_image_too_large(void **state)
{
    const char *dir = *state;
    uint8_t *row = calloc(RP_MAX_SIDE + 1, 3), *rgb = NULL;
    rp_error err;
    int w, h;

    assert_non_null(row);
    png_write_file(join(dir, "wide.png"), row, RP_MAX_SIDE + 1, 1, 0);
    err.msg[0] = '\0';
    assert_int_equal(rp_image_probe(join(dir, "wide.png"), &w, &h, &err), RP_ERR_TOO_LARGE);
    assert_non_null(strstr(err.msg, "16385x1"));
    assert_int_equal(rp_image_load_rgb(join(dir, "wide.png"), 4, 4, &rgb, &err), RP_ERR_TOO_LARGE);
    assert_null(rgb);
    free(row);
}

/* A PNG's rows as stored (libpng's classic API, no transforms), checking its size; the
 * bit depth and colour type in *depth, *type. */
static uint8_t *png_read_raw(const char *path, int w, int h, int *depth, int *type)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    assert_non_null(f);
    png_structp rd = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(rd);
    assert_non_null(rd);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(rd)))
        fail_msg("libpng could not read %s", path);
    png_init_io(rd, f);
    png_read_png(rd, info, PNG_TRANSFORM_IDENTITY, NULL);
    assert_int_equal(png_get_image_width(rd, info), w);
    assert_int_equal(png_get_image_height(rd, info), h);
    *depth = png_get_bit_depth(rd, info);
    *type = png_get_color_type(rd, info);
    size_t row = png_get_rowbytes(rd, info);
    png_bytepp rows = png_get_rows(rd, info);
    data = malloc(row * (size_t)h);
    assert_non_null(data);
    for (int y = 0; y < h; y++)
        memcpy(data + row * (size_t)y, rows[y], row);
    png_destroy_read_struct(&rd, &info, NULL);
    fclose(f);
    return data;
}

/* The layouts beyond RGB24 through libpng's own reader (the classic API, no transforms):
 * RGBA is 8-bit colour type 6, GRAY16 and RGB48 are 16-bit colour types 0 and 2 with
 * big-endian samples, each exactly the frame written, at PNG levels 0 and 2 and on one
 * and three encoder threads. */
static void test_png_layouts(void **state)
{
    const char *dir = *state;
    static const struct {
        enum rp_pixfmt fmt;
        int depth, type, samples;
    } cases[] = {
        {RP_PIX_RGBA, 8, PNG_COLOR_TYPE_RGBA, 4},
        {RP_PIX_GRAY16, 16, PNG_COLOR_TYPE_GRAY, 1},
        {RP_PIX_RGB48, 16, PNG_COLOR_TYPE_RGB, 3},
    };
    const int w = 29, h = 11;
    rp_error err;
    char name[64];

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int v = 0; v < 4; v++) {
            int n = w * h * cases[c].samples, wide = cases[c].depth == 16;
            uint8_t *px = malloc((size_t)n * 2);
            rp_output_spec o;
            rp_output *out = NULL;

            assert_non_null(px);
            for (int i = 0; i < n; i++) {
                unsigned val = (unsigned)(i * 2654435761u >> 7) ^ (unsigned)(i / 5);
                if (wide)
                    ((uint16_t *)(void *)px)[i] = (uint16_t)val;
                else
                    px[i] = (uint8_t)val;
            }
            snprintf(name, sizeof name, "lay%zu_%d/f_%%d.png", c, v);
            opts_for(&o, join(dir, name), w, h);
            o.pixfmt = cases[c].fmt;
            o.png_level = v & 1 ? 0 : -1;
            o.threads = v & 2 ? 3 : 1;
            assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
            assert_int_equal(rp_output_write(out, 0, px, &err), RP_OK);
            assert_int_equal(rp_output_close(&out, &err), RP_OK);

            snprintf(name, sizeof name, "lay%zu_%d/f_0.png", c, v);
            int depth, type;
            uint8_t *got = png_read_raw(join(dir, name), w, h, &depth, &type);
            assert_int_equal(depth, cases[c].depth);
            assert_int_equal(type, cases[c].type);
            for (int i = 0; i < n; i++) {
                if (wide)
                    assert_int_equal((got[2 * i] << 8) | got[2 * i + 1],
                                     ((uint16_t *)(void *)px)[i]);
                else
                    assert_int_equal(got[i], px[i]);
            }
            free(got);
            free(px);
        }
    }
}

/* Which outputs take which layouts: RGBA nowhere that cannot carry alpha, 16-bit to PNG
 * only; refusals name what works. */
static void test_pixfmt_validate(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err;

    opts_for(&o, join(dir, "x.mp4"), 16, 16);
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, ".webm"));
    opts_for(&o, "-", 16, 16);
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "Y4M cannot carry alpha"));
    opts_for(&o, join(dir, "x.mkv"), 16, 16);
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "cannot carry alpha"));
    o.codec = "libvpx-vp9";
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    opts_for(&o, join(dir, "x.webm"), 16, 16);
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    opts_for(&o, join(dir, "x.mov"), 16, 16);
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    o.pixfmt = RP_PIX_RGB24;
    o.pix_fmt = "yuva420p";
    o.codec = "libvpx-vp9";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "--alpha"));
    opts_for(&o, join(dir, "x.md5"), 16, 16);
    o.format = RP_FORMAT_FRAMEMD5;
    o.pixfmt = RP_PIX_RGBA;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    o.pixfmt = RP_PIX_RGB48;
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "PNG only"));
    opts_for(&o, join(dir, "f_%d.png"), 16, 16);
    o.pixfmt = RP_PIX_GRAY16;
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
    assert_int_equal(rp_pixfmt_bytes(RP_PIX_RGB24), 3);
    assert_int_equal(rp_pixfmt_bytes(RP_PIX_RGBA), 4);
    assert_int_equal(rp_pixfmt_bytes(RP_PIX_GRAY16), 2);
    assert_int_equal(rp_pixfmt_bytes(RP_PIX_RGB48), 6);
}

/* A session used after a failed call, or closed without a start, returns an error and
 * leaves nothing (rp_session_close after a failed rp_session_start crashed: its sinks were
 * never opened); a second start is refused too. */
static void test_session_after_failure(void **state)
{
    const char *dir = *state;
    const char *text = "size 32x16\nfps 30\nduration 3f\nat 0f drop 16 8 radius 3 height 2000\n";
    rp_scene *sc = NULL;
    rp_session *se = NULL;
    const rp_frame *frame = NULL;
    rp_error err;
    assert_int_equal(rp_scene_from_text(&sc, text, strlen(text), NULL, &err), RP_OK);
    rp_run run;
    rp_run_init(&run);
    char *exists = strdup(join(dir, "exists.mkv"));
    FILE *f = fopen(exists, "w");
    assert_non_null(f);
    fputs("kept", f);
    fclose(f);
    run.out.path = exists;
    /* start fails (the output exists): next and close are refused, the file is kept */
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(se, &err), RP_ERR_EXISTS);
    assert_int_equal(rp_session_next(se, &frame, &err), RP_ERR_INVALID);
    assert_null(frame);
    assert_int_equal(rp_session_start(se, &err), RP_ERR_INVALID);
    assert_int_equal(rp_session_close(&se, NULL, &err), RP_ERR_INVALID);
    assert_null(se);
    struct stat st;
    assert_int_equal(stat(exists, &st), 0);
    assert_int_equal(st.st_size, 4);
    /* closed without a start: refused, nothing written */
    run.out.path = join(dir, "never.mkv");
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_OK);
    assert_int_equal(rp_session_close(&se, NULL, &err), RP_ERR_INVALID);
    assert_null(se);
    assert_int_equal(stat(join(dir, "never.mkv"), &st), -1);
    /* started twice: the second start is refused; the run still completes */
    run.out.path = join(dir, "twice.mkv");
    int64_t frames = 0;
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(se, &err), RP_OK);
    assert_int_equal(rp_session_start(se, &err), RP_ERR_INVALID);
    rp_session_abort(&se);
    assert_int_equal(stat(join(dir, "twice.mkv"), &st), -1);
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_OK);
    assert_int_equal(rp_session_start(se, &err), RP_OK);
    while (rp_session_next(se, &frame, &err) == RP_OK && frame)
        ;
    assert_int_equal(rp_session_close(&se, &frames, &err), RP_OK);
    assert_int_equal(frames, 3);
    free(exists);
    rp_scene_free(&sc);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_md5_hex),
        T(test_validate_errors),
        T(test_png_pattern_errors),
        T(test_png_roundtrip),
        T(test_png_levels_roundtrip),
        T(test_png_deterministic),
        T(test_png_exists),
        T(test_png_layouts),
        T(test_pixfmt_validate),
        T(test_write_order),
        T(test_framemd5_lines),
        T(test_commit_race_and_abort),
        T(test_y4m_file),
        T(test_y4m_colours),
        T(test_video_mp4),
        T(test_video_mkv_mpeg4),
        T(test_video_abort),
        T(test_video_exists),
        T(test_video_odd_size),
        T(test_image_rgb),
        T(test_image_alpha),
        T(test_image_scale_and_mask),
        T(test_image_errors),
        T(test_image_too_large),
        T(test_session_after_failure),
    };

    /* the messages as the program words them (--max-memory, --alpha): what these check */
    rp_messages_name_options(1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
