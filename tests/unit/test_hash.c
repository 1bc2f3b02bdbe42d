/* test_hash.c - unit tests for hash.c. Every expected digest comes from a tool
 * independent of the code under test, run on the same bytes:
 *   md5sum, sha256sum; python3 hashlib (sha1, sha512), zlib.crc32 / zlib.adler32
 *   printed "%08x"; `xxhsum -H3` (xxhash 0.8.1); murmur3 from the ffmpeg program:
 *   ffmpeg -f rawvideo -pix_fmt gray -s 43x1 -i fox.txt -f framehash -hash murmur3 -
 * "fox" is "The quick brown fox jumps over the lazy dog" (43 bytes); "pattern" is
 * 1000003 bytes with byte i = (i * 131 + (i >> 9)) & 255, written by python3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tmpdir.h"

#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "check/hash.h"
#include "check/md5x8.h"
#include "output/output.h"
#include "base/cpu.h"

#define PATTERN_LEN 1000003
static const char fox[] = "The quick brown fox jumps over the lazy dog";

static uint8_t *make_pattern(void)
{
    uint8_t *p = malloc(PATTERN_LEN);

    assert_non_null(p);
    for (size_t i = 0; i < PATTERN_LEN; i++)
        p[i] = (uint8_t)((i * 131 + (i >> 9)) & 255);
    return p;
}

typedef struct known {
    const char *name;
    const char *empty, *fox, *pattern;
} known;

static const known knowns[] = {
    {"md5", "d41d8cd98f00b204e9800998ecf8427e", "9e107d9d372bb6826bd81d3542a419d6",
     "a6c70121554bb05ff32f3e5ff5ea6b26"},
    {"crc32", "00000000", "414fa339", "0c956f2a"},
    {"adler32", "00000001", "5bdc0fda", "3302f284"},
    {"xxh3", "2d06800538d394c2", "ce7d19a5418fb365", "a47883e6fe743053"},
    {"sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592",
     "1fc9fc37b95185f1bc25ba11e19555690d1e5f1b3d4cffb37c05702f6ac20151"},
    {"sha160", "da39a3ee5e6b4b0d3255bfef95601890afd80709",
     "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12", "e4e71cc770723aea5d9d5eac3ca1bbd011535ed6"},
    {"sha512",
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
     "07e547d9586f6a73f73fbac0435ed76951218fb7d0c8d788a309d785436bbb64"
     "2e93a252a954f23912547d1e8a3b5ed6e1bfd7097821233fa0538f3db854fee6",
     "b635abeaf82a47c8599ff3e0e4caefe68c36b4bf418fd2933d1e770f8f73b984"
     "73c9aeeeb1152b8d7ee03eeab51b396e8a16570fd925f7607cd98b04d9dc4906"},
    {"murmur3", NULL, "77eef3ca5d6b43ea9fa737595f9a2954", "ae7cfcfd86ca9ad40d224d007fdbcf64"},
};

static void test_known_digests(void **state)
{
    uint8_t *pattern = make_pattern();
    char hex[RP_HASH_HEX_MAX];

    (void)state;
    for (size_t k = 0; k < sizeof(knowns) / sizeof(knowns[0]); k++) {
        const known *kn = &knowns[k];
        rp_hash *h;

        assert_int_equal(rp_hash_new(&h, kn->name), RP_OK);
        assert_int_equal(rp_hash_hex_len(h), (int)strlen(kn->fox));
        if (kn->empty) {
            rp_hash_hex(h, (const uint8_t *)"", 0, hex);
            assert_string_equal(hex, kn->empty);
        }
        rp_hash_hex(h, (const uint8_t *)fox, strlen(fox), hex);
        assert_string_equal(hex, kn->fox);
        rp_hash_hex(h, pattern, PATTERN_LEN, hex);
        assert_string_equal(hex, kn->pattern);

        /* The same digest fed in uneven pieces, then again after final reset it. */
        for (int pass = 0; pass < 2; pass++) {
            size_t at = 0, piece = 1;

            while (at < PATTERN_LEN) {
                size_t n = piece < PATTERN_LEN - at ? piece : PATTERN_LEN - at;

                rp_hash_update(h, pattern + at, n);
                at += n;
                piece = piece * 3 + 1;
            }
            rp_hash_final_hex(h, hex);
            assert_string_equal(hex, kn->pattern);
        }
        /* reset drops what was fed. */
        rp_hash_update(h, pattern, 100);
        rp_hash_reset(h);
        rp_hash_update(h, (const uint8_t *)fox, strlen(fox));
        rp_hash_final_hex(h, hex);
        assert_string_equal(hex, kn->fox);
        rp_hash_free(&h);
        assert_null(h);
    }
    free(pattern);
}

static void test_names(void **state)
{
    const char *canon;
    int len;
    char list[512];
    rp_hash *h;

    (void)state;
    assert_int_equal(rp_hash_lookup(NULL, &canon, &len), RP_OK);
    assert_string_equal(canon, "MD5");
    assert_int_equal(len, 32);
    assert_int_equal(rp_hash_lookup("", &canon, &len), RP_OK);
    assert_string_equal(canon, "MD5");
    /* framehash's "#hash:" spellings (from `ffmpeg -f framehash -hash NAME`). */
    assert_int_equal(rp_hash_lookup("crc32", &canon, &len), RP_OK);
    assert_string_equal(canon, "CRC32");
    assert_int_equal(len, 8);
    assert_int_equal(rp_hash_lookup("ADLER32", &canon, &len), RP_OK);
    assert_string_equal(canon, "adler32");
    assert_int_equal(rp_hash_lookup("MuRmUr3", &canon, &len), RP_OK);
    assert_string_equal(canon, "murmur3");
    assert_int_equal(len, 32);
    assert_int_equal(rp_hash_lookup("sha512/224", &canon, &len), RP_OK);
    assert_string_equal(canon, "SHA512/224");
    assert_int_equal(len, 56);
    assert_int_equal(rp_hash_lookup("ripemd160", &canon, NULL), RP_OK);
    assert_string_equal(canon, "RIPEMD160");
    assert_int_equal(rp_hash_lookup("XXH3", &canon, &len), RP_OK);
    assert_string_equal(canon, "XXH3");
    assert_int_equal(len, 16);
    assert_int_equal(rp_hash_lookup("xxh3", NULL, NULL), RP_OK);

    assert_int_equal(rp_hash_lookup("md4", &canon, &len), RP_ERR_INVALID);
    assert_int_equal(rp_hash_lookup("md5 ", NULL, NULL), RP_ERR_INVALID);
    assert_int_equal(rp_hash_lookup("xxh64", NULL, NULL), RP_ERR_INVALID);
    h = (rp_hash *)&len;
    assert_int_equal(rp_hash_new(&h, "sha3"), RP_ERR_INVALID);
    assert_null(h);

    assert_int_equal(rp_hash_new(&h, "Sha256"), RP_OK);
    assert_string_equal(rp_hash_name(h), "SHA256");
    assert_int_equal(rp_hash_hex_len(h), 64);
    rp_hash_free(&h);
    rp_hash_free(&h); /* no-op */
    rp_hash_free(NULL);

    /* Every listed name looks up to itself; the list holds them all, lowercase. */
    rp_hash_list(list, sizeof(list));
    for (int i = 0; rp_hash_name_at(i); i++) {
        assert_int_equal(rp_hash_lookup(rp_hash_name_at(i), &canon, NULL), RP_OK);
        assert_string_equal(canon, rp_hash_name_at(i));
    }
    assert_null(rp_hash_name_at(-1));
    assert_non_null(strstr(list, "md5, "));
    assert_non_null(strstr(list, "crc32"));
    assert_non_null(strstr(list, ", xxh3"));
    assert_non_null(strstr(list, "sha512/224"));
    assert_null(strchr(list, 'M'));
    rp_hash_list(list, 6);
    assert_string_equal(list, "md5, ");
}

/* Contexts of their own on several threads at once give the single-thread digest. */
typedef struct job {
    const char *name;
    const uint8_t *data;
    char hex[RP_HASH_HEX_MAX];
} job;

static void *hash_job(void *arg)
{
    job *j = arg;
    rp_hash *h;

    if (rp_hash_new(&h, j->name))
        return NULL;
    for (int i = 0; i < 8; i++)
        rp_hash_hex(h, j->data, PATTERN_LEN, j->hex);
    rp_hash_free(&h);
    return NULL;
}

static void test_threads(void **state)
{
    uint8_t *pattern = make_pattern();
    const char *names[] = {"md5", "xxh3", "crc32", "md5", "xxh3", "crc32"};
    const char *want[] = {knowns[0].pattern, knowns[3].pattern, knowns[1].pattern};
    pthread_t t[6];
    job jobs[6];

    (void)state;
    for (int i = 0; i < 6; i++) {
        jobs[i].name = names[i];
        jobs[i].data = pattern;
        jobs[i].hex[0] = '\0';
        assert_int_equal(pthread_create(&t[i], NULL, hash_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(t[i], NULL);
        assert_string_equal(jobs[i].hex, want[i % 3]);
    }
    free(pattern);
}

/* ---- rp_hasher: every frame called back once, in order, with the one-thread hash ---- */

#define HF_SIZE 100003
#define HF_FRAMES 43 /* not a whole number of 8-frame batches */

typedef struct order_ctx {
    int64_t next;
    int64_t fail_at; /* return 7 for this frame, -1 never */
    rp_hash *ref;
    int calls;
} order_ctx;

static void fill(uint8_t *frame, int64_t k)
{
    for (size_t i = 0; i < HF_SIZE; i++)
        frame[i] = (uint8_t)(i * 7 + (size_t)k * 13 + (i >> 8));
}

static int check_order(void *priv, int64_t index, const uint8_t *frame, const char *hex)
{
    order_ctx *c = priv;
    char want[RP_HASH_HEX_MAX];
    uint8_t *copy = malloc(HF_SIZE);

    assert_non_null(copy);
    c->calls++;
    assert_int_equal(index, c->next);
    c->next += 3;
    fill(copy, index);
    assert_memory_equal(frame, copy, HF_SIZE);
    rp_hash_hex(c->ref, copy, HF_SIZE, want);
    assert_string_equal(hex, want);
    free(copy);
    return index == c->fail_at ? 7 : 0;
}

static void hasher_cases(void)
{
    const int threads[] = {0, 1, 2, 3, 8, 64};
    const char *algos[] = {"md5", "xxh3", "crc32"};
    uint8_t *frame = malloc(HF_SIZE);

    assert_non_null(frame);
    for (size_t a = 0; a < 3; a++)
        for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
            order_ctx c = {.next = 5, .fail_at = -1};
            rp_hasher *hs;

            assert_int_equal(rp_hash_new(&c.ref, algos[a]), RP_OK);
            assert_int_equal(rp_hasher_new(&hs, algos[a], HF_SIZE, threads[t], check_order, &c),
                             RP_OK);
            assert_string_equal(rp_hasher_name(hs), rp_hash_name(c.ref));
            assert_int_equal(rp_hasher_hex_len(hs), rp_hash_hex_len(c.ref));
            for (int64_t k = 0; k < HF_FRAMES; k++) {
                fill(frame, 5 + 3 * k);
                assert_int_equal(rp_hasher_submit(hs, 5 + 3 * k, frame), RP_OK);
                memset(frame, 0xee, HF_SIZE); /* the hasher kept its own copy */
            }
            assert_int_equal(rp_hasher_flush(hs), RP_OK);
            assert_int_equal(c.calls, HF_FRAMES);
            assert_int_equal(rp_hasher_flush(hs), RP_OK);
            /* A lone frame after a flush: a batch of one. */
            fill(frame, 5 + 3 * HF_FRAMES);
            assert_int_equal(rp_hasher_submit(hs, 5 + 3 * HF_FRAMES, frame), RP_OK);
            assert_int_equal(rp_hasher_flush(hs), RP_OK);
            assert_int_equal(c.calls, HF_FRAMES + 1);
            rp_hasher_free(&hs);
            assert_null(hs);

            /* A callback's failure stops the hasher and comes back from then on. */
            c.next = 5;
            c.calls = 0;
            c.fail_at = 5 + 3 * 6;
            assert_int_equal(rp_hasher_new(&hs, algos[a], HF_SIZE, threads[t], check_order, &c),
                             RP_OK);
            for (int64_t k = 0; k < HF_FRAMES; k++) {
                int ret;

                fill(frame, 5 + 3 * k);
                ret = rp_hasher_submit(hs, 5 + 3 * k, frame);
                if (ret) {
                    assert_int_equal(ret, 7);
                    break;
                }
            }
            assert_int_equal(rp_hasher_flush(hs), 7);
            assert_int_equal(rp_hasher_submit(hs, 1000, frame), 7);
            assert_int_equal(c.calls, 7);
            rp_hasher_free(&hs);
            /* Freed with frames in flight: no callback, nothing leaked. */
            c.next = 5;
            c.fail_at = -1;
            assert_int_equal(rp_hasher_new(&hs, algos[a], HF_SIZE, threads[t], check_order, &c),
                             RP_OK);
            fill(frame, 5);
            assert_int_equal(rp_hasher_submit(hs, 5, frame), RP_OK);
            rp_hasher_free(&hs);
            rp_hasher_free(&hs);
            rp_hasher_free(NULL);
            rp_hash_free(&c.ref);
        }
    free(frame);
}

/* Every case twice: with MD5 frames hashed one at a time (the plain C level), and in
 * batches by md5x8.c where the CPU has AVX2; the reference is libavutil's MD5 either way. */
static void test_hasher(void **state)
{
    const int threads[] = {0, 1, 2, 3, 8, 64};

    (void)state;
    rp_simd_set(RP_SIMD_C);
    hasher_cases();
    rp_simd_set(-1);
    if (!rp_md5x8_available())
        fprintf(stderr, "test_hasher: no AVX2 here, MD5 batches not tested\n");
    hasher_cases();
    {
        rp_hasher *hs = (rp_hasher *)&threads;

        assert_int_equal(rp_hasher_new(&hs, "md6", 3, 2, check_order, NULL), RP_ERR_INVALID);
        assert_null(hs);
    }
}

/* rp_hasher_copies, by hand: MD5 batches hold min(8, 128 MiB / frame) frames (none below
 * 2), one batch without workers and two with its one worker; otherwise 2 per worker (up to
 * 16 workers), none inline. MD5 counts the larger of the two on every CPU and SIMD level. */
static void test_hasher_copies(void **state)
{
    const size_t hd = 1920 * 1080 * 3, uhd = 3840 * 2160 * 3, big = 4000 * 4000 * 3;
    const int levels[] = {RP_SIMD_C, -1};

    (void)state;
    for (int l = 0; l < 2; l++) {
        rp_simd_set(levels[l]);
        assert_int_equal(rp_hasher_copies("md5", hd, 1), 8);
        assert_int_equal(rp_hasher_copies(NULL, hd, 0), 8);
        assert_int_equal(rp_hasher_copies("MD5", hd, 2), 16);
        assert_int_equal(rp_hasher_copies("md5", hd, 16), 32);
        assert_int_equal(rp_hasher_copies("md5", hd, 64), 32);
        assert_int_equal(rp_hasher_copies("md5", uhd, 1), 5);  /* 134217728 / 24883200 */
        assert_int_equal(rp_hasher_copies("md5", uhd, 3), 10); /* 2 x 5 against 2 x 3 */
        assert_int_equal(rp_hasher_copies("md5", big, 1), 2);
        assert_int_equal(rp_hasher_copies("md5", (size_t)70 << 20, 1), 0); /* one lane */
        assert_int_equal(rp_hasher_copies("md5", (size_t)70 << 20, 3), 6);
        assert_int_equal(rp_hasher_copies("crc32", hd, 1), 0);
        assert_int_equal(rp_hasher_copies("xxh3", hd, 2), 4);
        assert_int_equal(rp_hasher_copies("sha256", hd, 40), 32);
        assert_int_equal(rp_hasher_copies("md6", hd, 2), 0);
    }
    rp_simd_set(-1);
}

/* ---- the framemd5 and framehash backends against the ffmpeg program ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    text[n] = '\0';
    return text;
}

#define FW 7
#define FH 5
#define FRAMES 3

/* Write FRAMES frames of FWxFH through rp_output in a format, with an algorithm, on
 * threads. */
static void write_frames_on(const char *path, const char *format, const char *algo, int threads)
{
    rp_output_spec o;
    rp_output *out;
    uint8_t rgb[FW * FH * 3];
    rp_error err;

    rp_output_spec_init(&o);
    o.path = path;
    o.format = rp_output_format_from_name(format);
    assert_int_not_equal(o.format, RP_FORMAT_NONE);
    o.width = FW;
    o.height = FH;
    o.fps = 24;
    o.hash_algo = algo;
    o.threads = threads;
    assert_int_equal(rp_output_open(&out, &o, &err), RP_OK);
    for (int k = 0; k < FRAMES; k++) {
        for (int i = 0; i < FW * FH * 3; i++)
            rgb[i] = (uint8_t)(i * 37 + k * 101 + (i / (FW * 3)) * 11);
        assert_int_equal(rp_output_write(out, k, rgb, &err), RP_OK);
    }
    assert_int_equal(rp_output_close(&out, &err), RP_OK);
}

static void write_frames(const char *path, const char *format, const char *algo)
{
    write_frames_on(path, format, algo, 1);
}

/* ffmpeg's own framemd5/framehash of the PNG frames, with -fflags +bitexact. */
static char *ffmpeg_hashes(const char *dir, const char *algo)
{
    char cmd[8192];
    char *out = join(dir, "ffmpeg.txt");

    snprintf(cmd, sizeof(cmd),
             "ffmpeg -nostdin -v error -y -framerate 24 -i '%s' -pix_fmt rgb24 "
             "-fflags +bitexact -f %s%s '%s'",
             join(dir, "f_%05d.png"), algo ? "framehash -hash " : "framemd5", algo ? algo : "",
             out);
    assert_int_equal(system(cmd), 0);
    return slurp(out);
}

static void test_framemd5_equals_ffmpeg(void **state)
{
    const char *dir = *state;
    char *ours, *theirs;

    write_frames(join(dir, "f_%05d.png"), "png", NULL);
    write_frames(join(dir, "ours.framemd5"), "framemd5", NULL);
    ours = slurp(join(dir, "ours.framemd5"));
    theirs = ffmpeg_hashes(dir, NULL);
    assert_string_equal(ours, theirs);
    assert_null(strstr(ours, "#software"));
    free(ours);
    free(theirs);
    /* framemd5 says md5 in any spelling, and nothing else. */
    write_frames(join(dir, "md5.framemd5"), "framemd5", "MD5");
}

static void test_framehash_equals_ffmpeg(void **state)
{
    const char *dir = *state;
    const char *algos[] = {"md5", "crc32", "adler32", "murmur3", "SHA256", "sha512/224"};

    write_frames(join(dir, "f_%05d.png"), "png", NULL);
    for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
        char *ours, *theirs;

        theirs = ffmpeg_hashes(dir, algos[i]);
        for (int threads = 1; threads <= 4; threads += 3) {
            write_frames_on(join(dir, "ours.framehash"), "framehash", algos[i], threads);
            ours = slurp(join(dir, "ours.framehash"));
            assert_string_equal(ours, theirs);
            free(ours);
            remove(join(dir, "ours.framehash"));
        }
        free(theirs);
    }
}

/* xxh3 is rockpool's own: the header says XXH3 and each line ends in what xxhsum -H3
 * prints for that frame's RGB24 bytes (decoded from the PNG by ffmpeg). */
static void test_framehash_xxh3(void **state)
{
    const char *dir = *state;
    char cmd[8192], want[64], *ours, *line;
    FILE *p;

    write_frames(join(dir, "f_%05d.png"), "png", NULL);
    write_frames(join(dir, "x.framehash"), "framehash", "xxh3");
    ours = slurp(join(dir, "x.framehash"));
    assert_non_null(strstr(ours, "#version: 2\n#hash: XXH3\n#tb 0: 1/24\n"));
    snprintf(cmd, sizeof(cmd),
             "ffmpeg -nostdin -v error -i '%s' -f rawvideo -pix_fmt rgb24 - | xxhsum -H3 | "
             "sed 's/.* = //'",
             join(dir, "f_00002.png"));
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(want, sizeof(want), p));
    assert_int_equal(pclose(p), 0);
    want[strcspn(want, "\n")] = '\0';
    assert_int_equal(strlen(want), 16);
    line = strstr(ours, "\n0,          2,          2,        1,      105, ");
    assert_non_null(line);
    assert_memory_equal(line + strlen("\n0,          2,          2,        1,      105, "), want,
                        17 - 1);
    free(ours);
}

static void test_backend_errors(void **state)
{
    const char *dir = *state;
    rp_output_spec o;
    rp_error err = {0};

    rp_output_spec_init(&o);
    o.path = join(dir, "x.framehash");
    assert_int_equal(rp_output_format_from_path(o.path), RP_FORMAT_FRAMEHASH);
    assert_string_equal(rp_output_format_name(RP_FORMAT_FRAMEHASH), "framehash");
    o.hash_algo = "md4";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "unknown hash algorithm 'md4' (expected md5, "));
    assert_non_null(strstr(err.msg, "xxh3"));
    o.path = join(dir, "x.framemd5");
    o.hash_algo = "crc32";
    assert_int_equal(rp_output_validate(&o, &err), RP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "-f framehash"));
    o.hash_algo = "Md5";
    assert_int_equal(rp_output_validate(&o, &err), RP_OK);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_digests),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_hasher),
        cmocka_unit_test(test_hasher_copies),
        T(test_framemd5_equals_ffmpeg),
        T(test_framehash_equals_ffmpeg),
        T(test_framehash_xxh3),
        T(test_backend_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
