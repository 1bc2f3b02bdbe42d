/* test_manifest.c - unit tests for manifest.c: small hand-written manifests (expected
 * lines, columns and values worked out by hand) and framemd5/framehash files written by
 * the ffmpeg program itself, whose hashes are checked against md5sum of the frames ffmpeg
 * decodes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "rockpool.h" /* rp_messages_name_options */
#include "check/manifest.h"
#include "output/output.h"

/* md5 of 3 zero bytes and of ff 00 80 (printf ... | md5sum). */
#define MD5_A "693e9af84d3dfcc71e640e005bdc5e2e"
#define MD5_B "60cdccd4000580a3c394b8ad6ea9b899"

static int parse(const char *text, const char *algo, rp_manifest **m, rp_error *er)
{
    return rp_manifest_parse(m, text, strlen(text), "t.md5", algo, er);
}

/* The parse fails on line/col with msg containing fragment. */
static void parse_fails(const char *text, const char *algo, int line, int col, const char *fragment)
{
    rp_manifest *m = (rp_manifest *)&line;
    rp_error er;

    assert_int_equal(parse(text, algo, &m, &er), RP_ERR_FORMAT);
    assert_null(m);
    assert_string_equal(er.diag.file, "t.md5");
    if (er.diag.line != line || er.diag.col != col || !strstr(er.diag.msg, fragment))
        fail_msg("wanted %d:%d '%s', got %d:%d '%s' for:\n%s", line, col, fragment, er.diag.line,
                 er.diag.col, er.diag.msg, text);
}

static void test_hash_lines(void **state)
{
    rp_manifest *m;
    rp_error er;

    (void)state;
    assert_int_equal(parse("0 " MD5_A "\n1 " MD5_B "\n\n7 69"
                           "3E9AF84D3DFCC71E640E005BDC5E2E",
                           NULL, &m, &er),
                     RP_OK);
    assert_int_equal(m->kind, RP_MANIFEST_HASH_LINES);
    assert_string_equal(m->algo, "MD5");
    assert_int_equal(m->algo_line, 0);
    assert_int_equal(m->hex_len, 32);
    assert_int_equal(m->count, 3);
    assert_int_equal(m->width, 0);
    assert_int_equal(m->tb_den, 0);
    assert_int_equal(m->frame_size, -1);
    assert_int_equal(m->frames[0].frame, 0);
    assert_int_equal(m->frames[2].frame, 7);
    assert_int_equal(m->frames[2].line, 4);
    assert_string_equal(m->frames[1].hash, MD5_B);
    assert_string_equal(m->frames[2].hash, MD5_A); /* lowercased */
    assert_ptr_equal(rp_manifest_find(m, 7), &m->frames[2]);
    assert_ptr_equal(rp_manifest_find(m, 0), &m->frames[0]);
    assert_null(rp_manifest_find(m, 3));
    assert_null(rp_manifest_find(m, 8));
    assert_null(rp_manifest_find(m, -1));
    rp_manifest_free(&m);
    assert_null(m);
    rp_manifest_free(&m);
    rp_manifest_free(NULL);

    /* An algorithm prefix, in any case, CRLF line ends, tabs and comments. */
    assert_int_equal(parse("# made by hand\r\n12\tcrc32:3CAB2033\r\n  13 CRC32:00000000  \r\n"
                           "14 00000001\r\n",
                           NULL, &m, &er),
                     RP_OK);
    assert_string_equal(m->algo, "CRC32");
    assert_int_equal(m->algo_line, 2);
    assert_int_equal(m->hex_len, 8);
    assert_int_equal(m->count, 3);
    assert_string_equal(m->frames[0].hash, "3cab2033");
    assert_string_equal(m->frames[2].hash, "00000001");
    rp_manifest_free(&m);

    /* "#hash:" names the algorithm of the whole file; --hash-algo's default otherwise. */
    assert_int_equal(parse("#hash: xxh3\n0 09bb3678068ef148\n", NULL, &m, &er), RP_OK);
    assert_string_equal(m->algo, "XXH3");
    assert_int_equal(m->algo_line, 1);
    rp_manifest_free(&m);
    assert_int_equal(parse("0 09bb3678068ef148\n", "xxh3", &m, &er), RP_OK);
    assert_string_equal(m->algo, "XXH3");
    rp_manifest_free(&m);
    assert_int_equal(parse("0 sha256:"
                           "609684e642d6b91441cebc064bb48e20c4481cb92cfe08e4bd1491b7bb59f437\n",
                           "crc32", &m, &er),
                     RP_OK);
    assert_string_equal(m->algo, "SHA256");
    rp_manifest_free(&m);
}

/* The framemd5 FFmpeg wrote for 3 testsrc frames (tests above the ffmpeg run below). */
static const char ffmpeg_framemd5[] =
    "#format: frame checksums\n"
    "#version: 2\n"
    "#hash: MD5\n"
    "#software: Lavf59.27.100\n"
    "#tb 0: 1/30\n"
    "#media_type 0: video\n"
    "#codec_id 0: rawvideo\n"
    "#dimensions 0: 8x6\n"
    "#sar 0: 1/1\n"
    "#stream#, dts,        pts, duration,     size, hash\n"
    "0,          0,          0,        1,      144, 4ed4b2fd77c44813f5b6bde2bcb7cb22\n"
    "0,          1,          1,        1,      144, ddd0dc4d592efc2e5364872f3ac637e9\n"
    "0,          2,          2,        1,      144, b47141d2f2cced873e40baf2b753176f\n";

static void test_framehash_file(void **state)
{
    rp_manifest *m;
    rp_error er;

    (void)state;
    assert_int_equal(parse(ffmpeg_framemd5, "xxh3", &m, &er), RP_OK);
    assert_int_equal(m->kind, RP_MANIFEST_FRAMEHASH);
    assert_string_equal(m->algo, "MD5"); /* #hash wins over the default for hash lines */
    assert_int_equal(m->algo_line, 3);
    assert_int_equal(m->width, 8);
    assert_int_equal(m->height, 6);
    assert_int_equal(m->tb_num, 1);
    assert_int_equal(m->tb_den, 30);
    assert_string_equal(m->media_type, "video");
    assert_string_equal(m->codec, "rawvideo");
    assert_int_equal(m->frame_size, 144);
    assert_int_equal(m->count, 3);
    assert_int_equal(m->frames[2].frame, 2);
    assert_int_equal(m->frames[2].line, 13);
    assert_string_equal(m->frames[2].hash, "b47141d2f2cced873e40baf2b753176f");
    rp_manifest_free(&m);

    /* No header at all: old framemd5, MD5; side data after the hash is ignored. */
    assert_int_equal(parse("0, 0, 0, 1, 3, " MD5_A "\n0, 1, 1, 1, 3, " MD5_B
                           ", S=1, 8, 0x01020304\n",
                           "crc32", &m, &er),
                     RP_OK);
    assert_string_equal(m->algo, "MD5");
    assert_int_equal(m->frame_size, 3);
    assert_int_equal(m->count, 2);
    assert_string_equal(m->frames[1].hash, MD5_B);
    rp_manifest_free(&m);

    assert_int_equal(
        parse("#hash: CRC32\n#extradata 0, 45, 6553\n0, 4, 4, 1, 3, 3cab2033\n", NULL, &m, &er),
        RP_OK);
    assert_string_equal(m->algo, "CRC32");
    assert_int_equal(m->frames[0].frame, 4);
    rp_manifest_free(&m);
}

static void test_parse_errors(void **state)
{
    (void)state;
    /* Not a manifest. */
    parse_fails("hello world\n", NULL, 1, 1, "not a manifest");
    parse_fails("\n\n  hello\n", NULL, 3, 1, "not a manifest");
    parse_fails("\x89PNG\r\n\x1a\n", NULL, 1, 1, "not a manifest");
    {
        static const char nul[] = "0 " MD5_A "\n1 \0" MD5_A "\n";
        rp_manifest *m;
        rp_error er;

        assert_int_equal(rp_manifest_parse(&m, nul, sizeof(nul) - 1, "t.md5", NULL, &er),
                         RP_ERR_FORMAT);
        assert_int_equal(er.diag.line, 2);
        assert_non_null(strstr(er.diag.msg, "not a manifest"));
    }
    parse_fails("", NULL, 1, 0, "empty file: not a manifest");
    parse_fails("#format: frame checksums\n#version: 2\n", NULL, 2, 0, "no frame lines");
    parse_fails("0 " MD5_A "\nframe 1\n", NULL, 2, 1, "expected a frame line");
    /* Truncated lines. */
    parse_fails("0 " MD5_A "\n1\n2 " MD5_A "\n", NULL, 2, 0, "truncated line");
    parse_fails("0 " MD5_A "\n1 693e9af84d3d", NULL, 2, 3,
                "truncated line (the file ends mid-line): hash of 12 hex digits");
    parse_fails("0,          0,          0,        1,      144\n", NULL, 1, 0,
                "truncated frame line: 5 of 6 fields");
    parse_fails("0, 0, 0, 1, 3, " MD5_A "\n0, 1, 1, 1, ", NULL, 2, 0,
                "truncated line (the file ends mid-line): truncated frame line");
    parse_fails("0, 0, 0, 1, 3, " MD5_A "\n0, 1, 1, 1, 3,\n", NULL, 2, 15, "missing hash");
    /* Bad numbers and hex. */
    parse_fails("0 4ed4b2fd77c44813f5b6bde2bcb7cbzz\n", NULL, 1, 33,
                "'4ed4b2fd77c44813f5b6bde2bcb7cbzz' "
                "is not a hexadecimal hash");
    parse_fails("x1 " MD5_A "\n", NULL, 1, 1, "not a manifest");
    parse_fails("0 " MD5_A "\n1x " MD5_A "\n", NULL, 2, 1, "'1x' is not a frame number");
    parse_fails("0 " MD5_A "\n-1 " MD5_A "\n", NULL, 2, 1, "'-1' is not a frame number");
    parse_fails("0 " MD5_A " extra\n", NULL, 1, 36, "text after the hash");
    parse_fails("0, 0, x, 1, 3, " MD5_A "\n", NULL, 1, 7, "pts 'x' is not an integer");
    parse_fails("0, 0, 0, 1, 0, " MD5_A "\n", NULL, 1, 13, "frame size 0 is not positive");
    parse_fails("0, 0, 0, 1, 3, " MD5_A "\n0, 1, 1, 1, 4, " MD5_A "\n", NULL, 2, 13,
                "frame size 4 differs from 3 on line 1");
    parse_fails("0, 0, 0, 1, 144, 0x3cab2033\n", NULL, 1, 18, "framecrc is not supported");
    /* Hash lengths that do not match the algorithm. */
    parse_fails("0 3cab2033\n", NULL, 1, 3, "hash of 8 hex digits, but MD5 hashes have 32");
    parse_fails("0 " MD5_A "\n", "crc32", 1, 3, "hash of 32 hex digits, but CRC32 hashes have 8");
    parse_fails("#hash: CRC32\n0, 0, 0, 1, 3, " MD5_A "\n", NULL, 2, 16,
                "hash of 32 hex digits, but CRC32 hashes have 8");
    parse_fails("0 crc32:3cab2033\n1 xxh3:09bb3678068ef148\n", NULL, 2, 3,
                "XXH3 hash in a manifest of CRC32 hashes (named on line 1)");
    parse_fails("0 " MD5_A "\n1 crc32:3cab2033\n", NULL, 2, 3,
                "CRC32 hash in a manifest of MD5 hashes");
    parse_fails("#hash: FOO\n0 " MD5_A "\n", NULL, 1, 8,
                "unknown hash algorithm 'FOO' (expected md5");
    parse_fails("0 md4:" MD5_A "\n", NULL, 1, 3, "unknown hash algorithm 'md4'");
    parse_fails("0 " MD5_A "\n", "nope", 1, 3, "unknown hash algorithm 'nope'");
    parse_fails("0 " MD5_A "\n#hash: MD5\n", NULL, 2, 1, "'#hash' after frame lines");
    /* Order. */
    parse_fails("0 " MD5_A "\n2 " MD5_A "\n1 " MD5_A "\n", NULL, 3, 1,
                "frame 1 comes after frame 2 (line 2): frames must be in increasing order");
    parse_fails("0 " MD5_A "\n1 " MD5_A "\n\n1 " MD5_B "\n", NULL, 4, 1,
                "frame 1 appears twice (first on line 2)");
    parse_fails("0, 0, 5, 1, 3, " MD5_A "\n0, 1, 5, 1, 3, " MD5_A "\n", NULL, 2, 7,
                "frame 5 appears twice (first on line 1)");
    /* Streams, kinds and headers. */
    parse_fails("1, 0, 0, 1, 3, " MD5_A "\n", NULL, 1, 1, "stream 1: a manifest holds one video");
    parse_fails("#tb 1: 1/44100\n", NULL, 1, 5, "stream 1: a manifest holds one video");
    parse_fails("#codec_id 0: h264\n0, 0, 0, 1, 144, " MD5_A "\n", NULL, 1, 14,
                "the manifest hashes h264 packets, not decoded frames");
    parse_fails("#media_type 0: audio\n", NULL, 1, 16, "the manifest's stream is audio, not video");
    parse_fails("#tb 0: 0/30\n0 " MD5_A "\n", NULL, 1, 8, "bad time base");
    parse_fails("#tb 0 1/30\n", NULL, 1, 1, "malformed '#tb' line");
    parse_fails("#dimensions 0: 0x6\n", NULL, 1, 16, "bad dimensions");
    parse_fails("#dimensions 0: 16385x6\n", NULL, 1, 16, "bad dimensions");
    parse_fails("#dimensions 0: 8*6\n", NULL, 1, 16, "bad dimensions");
    parse_fails("0 " MD5_A "\n0, 1, 1, 1, 3, " MD5_A "\n", NULL, 2, 1,
                "a framemd5 line in a file of 'FRAME HASH' lines (line 1)");
    parse_fails("0, 0, 0, 1, 3, " MD5_A "\n1 " MD5_A "\n", NULL, 2, 1,
                "a 'FRAME HASH' line in a file of framemd5 lines (line 1)");
}

static void init_run(rp_manifest_run *run, int w, int h, int fps, int64_t first, int64_t count)
{
    memset(run, 0, sizeof(*run));
    run->width = w;
    run->height = h;
    run->fps_num = fps;
    run->fps_den = 1;
    run->first_frame = first;
    run->frame_count = count;
}

/* check() fails with line and a fragment. */
static void check_fails(const char *text, const rp_manifest_run *run, int line,
                        const char *fragment)
{
    rp_manifest *m;
    rp_error er;

    assert_int_equal(parse(text, NULL, &m, &er), RP_OK);
    assert_int_equal(rp_manifest_check(m, run, &er), RP_ERR_INVALID);
    if (er.diag.line != line || !strstr(er.diag.msg, fragment))
        fail_msg("wanted line %d '%s', got %d '%s'", line, fragment, er.diag.line, er.diag.msg);
    rp_manifest_free(&m);
}

static void test_check(void **state)
{
    rp_manifest_run run;
    rp_manifest *m;
    rp_error er;

    (void)state;
    init_run(&run, 8, 6, 30, 0, 3);
    assert_int_equal(parse(ffmpeg_framemd5, NULL, &m, &er), RP_OK);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    run.hash_algo = "md5";
    run.pix_fmt = "rgb24";
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    rp_manifest_free(&m);

    run.hash_algo = "crc32";
    check_fails(ffmpeg_framemd5, &run, 3,
                "the manifest holds MD5 hashes, --hash-algo asks for CRC32");
    run.hash_algo = "bogus";
    check_fails(ffmpeg_framemd5, &run, 0, "unknown hash algorithm 'bogus'");
    run.hash_algo = NULL;
    run.pix_fmt = "yuv420p";
    check_fails(ffmpeg_framemd5, &run, 0, "pixel format 'yuv420p' cannot be verified");
    run.pix_fmt = "rgba";
    check_fails(ffmpeg_framemd5, &run, 11,
                "the manifest's frames are 144 bytes, rgb24 frames of 3 bytes a pixel (8x6 rgba "
                "are 192): verify without --alpha, or make it with -pix_fmt rgba");
    run.pix_fmt = NULL;

    init_run(&run, 16, 6, 30, 0, 3);
    check_fails(ffmpeg_framemd5, &run, 0, "the manifest is for 8x6 frames, this run renders 16x6");
    /* No #dimensions: the size column tells: 72 bytes is 8x6 yuv420p. */
    init_run(&run, 8, 6, 30, 0, 1);
    check_fails("0, 0, 0, 1, 72, " MD5_A "\n", &run, 1,
                "the manifest's frames are 72 bytes, but 8x6 rgb24 frames are 144 (another size "
                "or pixel format: make it with -pix_fmt rgb24)");
    /* Frame ranges. */
    init_run(&run, 8, 6, 30, 0, 4);
    check_fails(ffmpeg_framemd5, &run, 0,
                "the manifest holds frames 0..2 (3), this run renders frames 0..3 (4)");
    init_run(&run, 8, 6, 30, 1, 3);
    check_fails(ffmpeg_framemd5, &run, 0,
                "the manifest holds frames 0..2 (3), this run renders frames 1..3 (3)");
    init_run(&run, 1, 1, 30, 10, 4);
    check_fails("10 " MD5_A "\n11 " MD5_A "\n13 " MD5_A "\n", &run, 3,
                "the manifest lacks frame 12 (it goes from 11 to 13)");
    assert_int_equal(
        parse("10 " MD5_A "\n11 " MD5_A "\n12 " MD5_A "\n13 " MD5_B "\n", NULL, &m, &er), RP_OK);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    assert_string_equal(rp_manifest_find(m, 13)->hash, MD5_B);
    rp_manifest_free(&m);

    /* Time bases: pts * tb * fps. 1/15360 at 30 fps is 512 a frame; 1001/30000 at
     * 30000/1001 fps is 1; 1/90000 is not a whole frame at 30 fps for pts 100. */
    init_run(&run, 1, 1, 30, 0, 3);
    assert_int_equal(parse("#tb 0: 1/15360\n0, 0, 0, 512, 3, " MD5_A "\n0, 1, 512, 512, 3, " MD5_A
                           "\n0, 2, 1024, 512, 3, " MD5_B "\n",
                           NULL, &m, &er),
                     RP_OK);
    assert_int_equal(m->frames[2].frame, 1024);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    assert_int_equal(m->frames[2].frame, 2);
    assert_string_equal(rp_manifest_find(m, 2)->hash, MD5_B);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK); /* converted once only */
    assert_int_equal(m->frames[2].frame, 2);
    rp_manifest_free(&m);
    init_run(&run, 1, 1, 30000, 0, 2);
    run.fps_den = 1001;
    assert_int_equal(parse("#tb 0: 1001/30000\n0, 0, 0, 1, 3, " MD5_A "\n0, 1, 1, 1, 3, " MD5_A
                           "\n",
                           NULL, &m, &er),
                     RP_OK);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    rp_manifest_free(&m);
    init_run(&run, 1, 1, 30, 0, 2);
    check_fails("#tb 0: 1/90000\n0, 0, 0, 1, 3, " MD5_A "\n0, 1, 100, 1, 3, " MD5_A "\n", &run, 3,
                "pts 100 in time base 1/90000 is not a whole frame at 30/1 fps");
    check_fails("#tb 0: 2147483647/1\n0, 0, 0, 1, 3, " MD5_A
                "\n0, 1, 9223372036854775807, 1, 3, " MD5_A "\n",
                &run, 3, "is too large");
    /* A framemd5 at 25 fps checked against a 30 fps run. */
    init_run(&run, 8, 6, 25, 0, 3);
    check_fails(ffmpeg_framemd5, &run, 12, "pts 1 in time base 1/30 is not a whole frame at 25/1");
}

/* ---- files written by the ffmpeg program and by rockpool's backend ---- */

static void run_cmd(const char *fmt, const char *dir)
{
    char cmd[4096];

    snprintf(cmd, sizeof(cmd), "cd '%s' && %s", dir, fmt);
    assert_int_equal(system(cmd), 0);
}

/* The first word of a command's output. */
static void cmd_word(const char *fmt, const char *dir, char *word, size_t len)
{
    char cmd[4096];
    FILE *p;

    snprintf(cmd, sizeof(cmd), "cd '%s' && %s", dir, fmt);
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(word, (int)len, p));
    assert_int_equal(pclose(p), 0);
    word[strcspn(word, " \n")] = '\0';
}

static void load(const char *dir, const char *name, const char *algo, rp_manifest **m, rp_error *er)
{
    char path[4096];
    int ret;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ret = rp_manifest_load(m, path, algo, 0, NULL, er);
    if (ret)
        fail_msg("%s:%d:%d: %s", er->diag.file, er->diag.line, er->diag.col, er->diag.msg);
}

static void test_ffmpeg_files(void **state)
{
    const char *dir = *state;
    char want[64], path[4096];
    rp_manifest_run run;
    rp_manifest *m;
    rp_error er;

    run_cmd("ffmpeg -nostdin -v error -f lavfi -i testsrc=size=20x12:rate=24 -frames:v 5 "
            "f_%05d.png && "
            "ffmpeg -nostdin -v error -framerate 24 -i f_%05d.png -pix_fmt rgb24 -f framemd5 "
            "plain.framemd5 && "
            "ffmpeg -nostdin -v error -framerate 24 -i f_%05d.png -pix_fmt rgb24 -fflags +bitexact "
            "-f framehash -hash crc32 crc.framehash && "
            "ffmpeg -nostdin -v error -framerate 24 -i f_%05d.png -c:v libx264 -pix_fmt yuv420p "
            "clip.mp4 && "
            "ffmpeg -nostdin -v error -i clip.mp4 -f framemd5 yuv.framemd5 && "
            "ffmpeg -nostdin -v error -i clip.mp4 -c copy -f framemd5 copy.framemd5",
            dir);
    init_run(&run, 20, 12, 24, 0, 5);

    /* framemd5 with the #software line; frame 3's hash is md5sum of its rgb24 pixels. */
    load(dir, "plain.framemd5", NULL, &m, &er);
    assert_string_equal(m->algo, "MD5");
    assert_int_equal(m->frame_size, 20 * 12 * 3);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    cmd_word("ffmpeg -nostdin -v error -i f_00004.png -f rawvideo -pix_fmt rgb24 - | md5sum", dir,
             want, sizeof(want));
    assert_string_equal(rp_manifest_find(m, 3)->hash, want);
    rp_manifest_free(&m);

    load(dir, "crc.framehash", NULL, &m, &er);
    assert_string_equal(m->algo, "CRC32");
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    cmd_word("ffmpeg -nostdin -v error -i f_00005.png -f rawvideo -pix_fmt rgb24 - | python3 -c "
             "\"import sys, zlib; print('%08x' % zlib.crc32(sys.stdin.buffer.read()))\"",
             dir, want, sizeof(want));
    assert_string_equal(rp_manifest_find(m, 4)->hash, want);
    run.hash_algo = "xxh3";
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_ERR_INVALID);
    assert_non_null(
        strstr(er.diag.msg, "the manifest holds CRC32 hashes, --hash-algo asks for XXH3"));
    run.hash_algo = NULL;
    rp_manifest_free(&m);

    /* Decoded yuv420p frames: the size column gives the pixel format away. */
    load(dir, "yuv.framemd5", NULL, &m, &er);
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_ERR_INVALID);
    assert_non_null(strstr(er.diag.msg, "frames are 360 bytes, but 20x12 rgb24 frames are 720"));
    rp_manifest_free(&m);
    /* Packets copied: hashes of h264, not of frames. */
    snprintf(path, sizeof(path), "%s/copy.framemd5", dir);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 0, NULL, &er), RP_ERR_FORMAT);
    assert_int_equal(er.diag.line, 8); /* #codec_id, after #extradata and #software */
    assert_non_null(strstr(er.diag.msg, "hashes h264 packets"));
    /* A PNG is not a manifest; a missing file is an I/O error naming it. */
    snprintf(path, sizeof(path), "%s/f_00001.png", dir);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 0, NULL, &er), RP_ERR_FORMAT);
    assert_int_equal(er.diag.line, 1);
    assert_non_null(strstr(er.diag.msg, "not a manifest"));
    assert_string_equal(er.diag.file, path);
    snprintf(path, sizeof(path), "%s/missing.framemd5", dir);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 0, NULL, &er), RP_ERR_IO);
    assert_null(m);
    assert_string_equal(er.diag.file, path);
    assert_non_null(strstr(er.diag.msg, "cannot open: No such file"));
}

/* rockpool's own framehash output reads back as the manifest of those frames. */
static void test_own_output(void **state)
{
    const char *dir = *state;
    char path[4096];
    rp_error err;
    uint8_t rgb[4 * 2 * 3];
    rp_output_spec o;
    rp_output *out;
    rp_manifest_run run;
    rp_manifest *m;
    rp_error er;

    snprintf(path, sizeof(path), "%s/own.framehash", dir);
    rp_output_spec_init(&o);
    o.path = path;
    o.width = 4;
    o.height = 2;
    o.fps = 50;
    o.first_frame = 7;
    o.hash_algo = "xxh3";
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    for (int k = 7; k < 10; k++) {
        memset(rgb, k, sizeof(rgb));
        assert_int_equal(rp_output_write(out, k, rgb, &err), RP_OK);
    }
    assert_int_equal(rp_output_close(&out, &err), RP_OK);
    load(dir, "own.framehash", NULL, &m, &er);
    init_run(&run, 4, 2, 50, 7, 3);
    run.hash_algo = "XXH3";
    assert_int_equal(rp_manifest_check(m, &run, &er), RP_OK);
    assert_string_equal(m->algo, "XXH3");
    assert_non_null(rp_manifest_find(m, 9));
    assert_null(rp_manifest_find(m, 10));
    rp_manifest_free(&m);
}

/* rp_manifest_load's bounds: a line longer than any manifest's, a file whose figure is over
 * max_bytes (refused before it is read), frames past max_bytes from a stream, the stop
 * flag; and the same file read without them. */
static void test_load_limits(void **state)
{
    const char *dir = *state;
    char path[4096];
    rp_manifest *m = NULL;
    rp_error er;
    FILE *f;
    volatile sig_atomic_t stop = 1;

    snprintf(path, sizeof(path), "%s/long.md5", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("0 ", f);
    for (int i = 0; i < 5000; i++)
        fputc('a', f);
    fclose(f);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 0, NULL, &er), RP_ERR_FORMAT);
    assert_non_null(strstr(er.diag.msg, "longer than 4096 bytes"));
    assert_int_equal(er.diag.line, 1);

    snprintf(path, sizeof(path), "%s/many.md5", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "%d " MD5_A "\n", i);
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    int64_t need = rp_manifest_memory(st.st_size);
    assert_int_equal(rp_manifest_load(&m, path, NULL, need - 1, NULL, &er), RP_ERR_TOO_LARGE);
    assert_null(m);
    assert_non_null(strstr(er.diag.msg, "--max-memory"));
    assert_int_equal(rp_manifest_load(&m, path, NULL, need, NULL, &er), RP_OK);
    assert_int_equal(m->count, 20000);
    assert_string_equal(m->frames[19999].hash, MD5_A);
    rp_manifest_free(&m);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 0, &stop, &er), RP_ERR_INTERRUPTED);
    assert_null(m);

    /* From a pipe the size is unknown: the frames stop at max_bytes, at their line. */
    char cmd[4200];
    snprintf(path, sizeof(path), "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(cmd, sizeof(cmd), "cat '%s/many.md5' >'%s' &", dir, path);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rp_manifest_load(&m, path, NULL, 200000, NULL, &er), RP_ERR_TOO_LARGE);
    assert_true(er.diag.line > 1000 && er.diag.line < 20000);
    assert_non_null(strstr(er.diag.msg, "more frames than fit"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_lines),
        cmocka_unit_test(test_framehash_file),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_check),
        T(test_load_limits),
        T(test_ffmpeg_files),
        T(test_own_output),
    };

    /* the messages as the program words them (--max-memory, --alpha): what these check */
    rp_messages_name_options(1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
