/* test_provenance.c - unit tests for provenance.c. SHA-256 oracles: the FIPS 180-2 test
 * vector for "abc", and the sha256sum program run on the same bytes written to a file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "check/provenance.h"
#include "rockpool.h"

/* sha256sum of the bytes, through a temporary file. */
static void sha256sum(const void *data, size_t len, char hex[65])
{
    char path[] = "/tmp/rp-test-prov-XXXXXX", cmd[256];
    int fd = mkstemp(path);
    FILE *p;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
    p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(hex, 65, p));
    assert_int_equal(pclose(p), 0);
    unlink(path);
    assert_int_equal(strlen(hex), 64);
}

static const char scene[] = "# rain on a pond\r\nsize 640x360\nfps 30\nseed 7\n"
                            "rain 0s..10s rate 4/s radius 3 \xc3\xa9t\xc3\xa9\n";

static void test_sha256(void **state)
{
    char hex[65], want[65];
    uint8_t *big = malloc(1000003);

    (void)state;
    assert_int_equal(rp_sha256_hex("abc", 3, hex), RP_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(rp_sha256_hex("", 0, hex), RP_OK);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    rp_sha256_hex(scene, sizeof(scene) - 1, hex);
    sha256sum(scene, sizeof(scene) - 1, want);
    assert_string_equal(hex, want);
    assert_non_null(big);
    for (size_t i = 0; i < 1000003; i++)
        big[i] = (uint8_t)((i * 131 + (i >> 9)) & 255);
    rp_sha256_hex(big, 1000003, hex);
    sha256sum(big, 1000003, want);
    assert_string_equal(hex, want);
    free(big);
}

static void test_build(void **state)
{
    rp_provenance p;
    char want[65];

    (void)state;
    assert_int_equal(rp_provenance_build(&p, "0.1.0", "rockpool", UINT64_C(18446744073709551615),
                                         scene, sizeof(scene) - 1),
                     RP_OK);
    sha256sum(scene, sizeof(scene) - 1, want);
    assert_int_equal(p.count, 4);
    assert_string_equal(p.kv[0], "rockpool_version");
    assert_string_equal(p.kv[1], "0.1.0");
    assert_string_equal(p.kv[2], "rockpool_preset");
    assert_string_equal(p.kv[3], "rockpool");
    assert_string_equal(p.kv[4], "rockpool_seed");
    assert_string_equal(p.kv[5], "18446744073709551615");
    assert_string_equal(p.kv[6], "rockpool_scene_sha256");
    assert_string_equal(p.kv[7], want);
    assert_null(p.kv[8]);
    assert_string_equal(p.entries[3].key, RP_PROV_SCENE_SHA256);
    assert_string_equal(p.entries[3].value, want);

    /* No preset, no scene: left out. */
    assert_int_equal(rp_provenance_build(&p, "2.0.0", NULL, 0, NULL, 0), RP_OK);
    assert_int_equal(p.count, 2);
    assert_string_equal(p.kv[0], "rockpool_version");
    assert_string_equal(p.kv[2], "rockpool_seed");
    assert_string_equal(p.kv[3], "0");
    assert_null(p.kv[4]);
    /* An empty scene file still has a hash. */
    assert_int_equal(rp_provenance_build(&p, "2.0.0", NULL, 0, "", 0), RP_OK);
    assert_string_equal(p.kv[5],
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    /* The frames of a chunk: "A-L/N", both ends included; an empty or outside range
     * is refused and leaves the list as it was. */
    assert_int_equal(rp_provenance_build(&p, "2.0.0", NULL, 0, NULL, 0), RP_OK);
    assert_int_equal(rp_provenance_add_frames(&p, 10, 20, 120), RP_OK);
    assert_int_equal(p.count, 3);
    assert_string_equal(p.kv[4], "rockpool_frames");
    assert_string_equal(p.kv[5], "10-19/120");
    assert_null(p.kv[6]);
    assert_int_equal(rp_provenance_add_frames(&p, 5, 5, 120), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_add_frames(&p, 0, 121, 120), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_add_frames(&p, -1, 3, 120), RP_ERR_INVALID);
    assert_int_equal(p.count, 3);
    assert_int_equal(rp_provenance_build(&p, "2.0.0", "elias", 1, "", 0), RP_OK);
    assert_int_equal(rp_provenance_add_frames(&p, 0, 1, 1), RP_OK);
    assert_string_equal(p.kv[9], "0-0/1");
    /* Where the sound lies, "FROM..TO" microseconds (FROM may be negative), or "none"; an
     * empty or reversed extent is refused */
    assert_int_equal(rp_provenance_add_sound(&p, 1, 5, 5), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_add_sound(&p, 1, 7, 5), RP_ERR_INVALID);
    assert_int_equal(p.count, 5);
    assert_int_equal(rp_provenance_add_sound(&p, 1, -21333, 2000000), RP_OK);
    assert_string_equal(p.kv[10], "rockpool_sound");
    assert_string_equal(p.kv[11], "-21333..2000000");
    assert_int_equal(rp_provenance_add_frames(&p, 0, 1, 1), RP_ERR_INVALID); /* full */
    assert_int_equal(rp_provenance_add_sound(&p, 0, 0, 0), RP_ERR_INVALID);
    assert_null(p.kv[12]);
    assert_int_equal(rp_provenance_build(&p, "2.0.0", NULL, 0, NULL, 0), RP_OK);
    assert_int_equal(rp_provenance_add_sound(&p, 0, 0, 0), RP_OK);
    assert_string_equal(p.kv[5], "none");

    /* The same inputs twice: the same bytes (no clock). */
    {
        rp_provenance a, b;

        assert_int_equal(rp_provenance_build(&a, "0.1.0", "elias", 42, scene, 10), RP_OK);
        sleep(1);
        assert_int_equal(rp_provenance_build(&b, "0.1.0", "elias", 42, scene, 10), RP_OK);
        for (size_t i = 0; i < a.count; i++) {
            assert_string_equal(a.entries[i].key, b.entries[i].key);
            assert_string_equal(a.entries[i].value, b.entries[i].value);
        }
    }

    /* Strings PNG tEXt could not carry. */
    assert_int_equal(rp_provenance_build(&p, NULL, "x", 0, NULL, 0), RP_ERR_INVALID);
    assert_int_equal(p.count, 0);
    assert_null(p.kv[0]);
    assert_int_equal(rp_provenance_build(&p, "", NULL, 0, NULL, 0), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_build(&p, "1.0", "", 0, NULL, 0), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_build(&p, "1.0", "a\nb", 0, NULL, 0), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_build(&p, "1.0", "\xc3\xa9", 0, NULL, 0), RP_ERR_INVALID);
    assert_int_equal(rp_provenance_build(&p,
                                         "0123456789012345678901234567890123456789"
                                         "0123456789012345678901234567890123456789",
                                         NULL, 0, NULL, 0),
                     RP_ERR_INVALID);
    assert_int_equal(rp_provenance_build(&p,
                                         "0123456789012345678901234567890123456789"
                                         "012345678901234567890123456789012345678",
                                         NULL, 0, NULL, 0),
                     RP_OK);
}

/* A job line is its own form and nothing else; a session given anything else as its
 * job_id refuses it (a line break in it was written into a framemd5 file's header as a
 * line of its own, a forged frame line). */
static void test_job_line(void **state)
{
    (void)state;
    const char *good = "scene=0123456789abcdef,inputs=0123456789abcdef,"
                       "options=0123456789abcdef,build=0123456789abcdef";
    assert_int_equal(strlen(good), RP_JOB_LINE_LEN);
    assert_true(rp_job_line_valid(good));
    char bad[128];
    snprintf(bad, sizeof bad, "%s\n0, 0, 0, 1, 3, 00000000", good);
    assert_false(rp_job_line_valid(bad));
    assert_false(rp_job_line_valid("scene=0123456789ABCDEF,inputs=0123456789abcdef,"
                                   "options=0123456789abcdef,build=0123456789abcdef"));
    assert_false(rp_job_line_valid("scene=0123456789abcdef,inputs=0123456789abcdef,"
                                   "options=0123456789abcdef,build=0123456789abcde"));
    assert_false(rp_job_line_valid(""));

    const char *text = "size 32x16\nfps 30\nduration 2f\n";
    rp_scene *sc = NULL;
    rp_session *se = NULL;
    rp_error err;
    assert_int_equal(rp_scene_from_text(&sc, text, strlen(text), NULL, &err), RP_OK);
    rp_run run;
    rp_run_init(&run);
    run.out.path = NULL;
    run.job_id = bad;
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_ERR_INVALID);
    assert_int_equal(err.bad_input, 1);
    assert_null(se);
    run.job_id = good;
    assert_int_equal(rp_session_new(&se, sc, &run, &err), RP_OK);
    rp_session_free(&se);
    rp_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_job_line),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
