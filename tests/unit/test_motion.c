/* test_motion.c - paths, the oscillator's sine and keys (scene/motion.h) against values
 * worked by hand and against double-precision references. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scene/motion.h"

static void at(const rp_path_geo *p, int64_t t, int64_t x, int64_t y)
{
    int64_t gx, gy;
    rp_path_at(p, t, &gx, &gy);
    assert_int_equal(gx, x);
    assert_int_equal(gy, y);
}

/* (0,0) -> (1000,0) -> (1000,500) at times 0, 100, 200: halfway along each segment, and
 * held at the ends. */
static void test_polyline(void **state)
{
    (void)state;
    rp_path_geo p = {.n = 3, .x = {0, 1000, 1000}, .y = {0, 0, 500}, .t = {0, 100, 200}};
    at(&p, -5, 0, 0);
    at(&p, 0, 0, 0);
    at(&p, 50, 500, 0);
    at(&p, 100, 1000, 0);
    at(&p, 150, 1000, 250);
    at(&p, 175, 1000, 375);
    at(&p, 300, 1000, 500);
}

/* Catmull-Rom through (0,0), (256,256), (512,0), end points repeated: at u = 1/2 of the
 * first segment, x = (128 + 128 - 32) / 2 = 112 and y = (128 + 256 - 96) / 2 = 144 (worked
 * from p = (2P1 + (P2-P0)u + (2P0-5P1+4P2-P3)u^2 + (3P1-P0-3P2+P3)u^3) / 2); the curve
 * passes through every point. */
static void test_catmull_rom(void **state)
{
    (void)state;
    rp_path_geo p = {.n = 3, .smooth = 1, .x = {0, 256, 512}, .y = {0, 256, 0}, .t = {0, 100, 200}};
    at(&p, 0, 0, 0);
    at(&p, 50, 112, 144);
    at(&p, 100, 256, 256);
    at(&p, 200, 512, 0);
    /* the second segment mirrors the first about x = 256 */
    at(&p, 150, 512 - 112, 144);
}

/* Constant speed: segments of 500 and 500 (a 3-4-5 triangle and a vertical one) share the
 * span evenly; a segment twice as long takes twice the time. */
static void test_constant_speed(void **state)
{
    (void)state;
    rp_path_geo p = {.n = 3, .x = {0, 300, 300}, .y = {0, 400, 900}};
    rp_path_constant_speed(&p, 0, 1000);
    assert_int_equal(p.t[0], 0);
    assert_int_equal(p.t[1], 500);
    assert_int_equal(p.t[2], 1000);
    rp_path_geo q = {.n = 3, .x = {0, 1000, 1000}, .y = {0, 0, 500}};
    rp_path_constant_speed(&q, 100, 400);
    assert_int_equal(q.t[1], 300);
    assert_int_equal(rp_path_segment_length(&q, 0), 1000);
}

/* The sine against libm's at 4096 phases: within 2 in Q15; exact at the quarters. */
static void test_sine(void **state)
{
    (void)state;
    assert_int_equal(rp_sin_q15(0), 0);
    assert_int_equal(rp_sin_q15(1u << 30), 32767);
    assert_int_equal(rp_sin_q15(1u << 31), 0);
    assert_int_equal(rp_sin_q15(3u << 30), -32767);
    for (uint32_t i = 0; i < 4096; i++) {
        uint32_t ph = i * 1048573u;
        double want = 32767 * sin(2 * M_PI * (double)ph / 4294967296.0);
        assert_true(fabs(rp_sin_q15(ph) - want) <= 2);
    }
}

/* Keys: linear and smooth values worked by hand; the same instant written as another
 * fraction gives the same value (two frame rates agree at shared instants). */
static void test_keys(void **state)
{
    (void)state;
    rp_keys k = {.n = 3, .t = {0, 1000, 3000}, .v = {0, 1000, -1000}};
    assert_int_equal(rp_keys_at(&k, -7, 1), 0);
    assert_int_equal(rp_keys_at(&k, 250, 1), 250);
    assert_int_equal(rp_keys_at(&k, 2000, 1), 0);
    assert_int_equal(rp_keys_at(&k, 2500, 1), -500);
    assert_int_equal(rp_keys_at(&k, 9000, 1), -1000);
    assert_int_equal(rp_keys_at(&k, 1000, 3), 333); /* 1/3 of the way, rounded down */
    for (int64_t d = 1; d <= 1000; d *= 10)
        assert_int_equal(rp_keys_at(&k, 500 * d, d), 500);
    k.smooth = 1;
    assert_int_equal(rp_keys_at(&k, 500, 1), 500);
    assert_int_equal(rp_keys_at(&k, 250, 1), 156); /* 3/16 - 2/64 = 0.15625 */
    assert_int_equal(rp_keys_at(&k, 750, 1), 843); /* 1 - 0.15625, rounded down */
    /* 24 and 60 fps at 0.5 s: frame 12 of 24 and frame 30 of 60 */
    rp_keys s = {.n = 2, .smooth = 1, .t = {0, 2000000}, .v = {0, 180000}};
    assert_int_equal(rp_keys_at(&s, 12 * 1000000, 24), rp_keys_at(&s, 30 * 1000000, 60));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polyline),       cmocka_unit_test(test_catmull_rom),
        cmocka_unit_test(test_constant_speed), cmocka_unit_test(test_sine),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
