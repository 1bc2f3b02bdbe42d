/* test_obstacle.c - moving walls (sim/obstacle.h) on small grids worked by hand: the water
 * a wall moves onto goes to its rim ahead (the sum kept to within the share's rounding),
 * its push raises ahead and lowers behind by mirror amounts, it is drawn ahead of its last
 * place by the exact lead of the frame's instant. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "scene/timeline.h"
#include "sim/obstacle.h"
#include "sim/water.h"

#define N 41 /* the grid is N x N; a centre at cell 20's centre is (20 * 256 + 128) */
#define C (20 * 256 + 128)

static rp_water *make(void)
{
    rp_water *w = NULL;
    rp_water_params p = {N, N, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0};
    assert_int_equal(rp_water_new(&w, &p), RP_OK);
    return w;
}

/* A circle of radius 3 cells at (x, y) in 1/256 cell, having moved (dx, 0). */
static void place(rp_obstacles *os, int x, int y, int dx, int push)
{
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    it.circle = 1;
    it.x = x;
    it.y = y;
    it.r = 3 * 256;
    it.dx = dx;
    it.push = push;
    rp_obstacles_item(os, &it);
}

static int64_t sum(const rp_water *w)
{
    int64_t s = 0;
    for (int i = 0; i < N * N; i++)
        s += rp_water_heights(w)[i];
    return s;
}

static int16_t at(const rp_water *w, int x, int y)
{
    return rp_water_heights(w)[y * N + x];
}

/* Moving 2 cells right over water 100 high with no push: the cells it enters are held at
 * 0 and their 100s go to the rim ahead, shared evenly: the sum loses less than one unit
 * per rim cell (the share rounds toward zero), the cells behind its rim keep 100. */
static void test_displaced_water_goes_ahead(void **state)
{
    (void)state;
    rp_water *w = make();
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    place(os, C - 2 * 256, C, 0, 0);
    rp_obstacles_apply(os, w, 1);
    static int16_t flat[N * N];
    for (int i = 0; i < N * N; i++)
        flat[i] = (int16_t)(rp_water_is_held(w, i % N, i / N) ? 0 : 100);
    rp_water_load(w, flat, flat);
    int64_t before = sum(w);
    place(os, C, C, 2 * 256, 0);
    assert_int_equal(rp_obstacles_apply(os, w, 1), 1);
    int64_t after = sum(w);
    /* entered: the cells within 3 of (20.5, 20.5) not within 3 of (18.5, 20.5): the circle's
     * right crescent, x 22 and 23 in row 20 among them */
    assert_true(rp_water_is_held(w, 23, 20) && at(w, 23, 20) == 0);
    assert_true(rp_water_is_held(w, 17, 20) && at(w, 17, 20) == 0);
    assert_false(rp_water_is_held(w, 16, 20));
    assert_true(before - after >= 0 && before - after < 4 * N); /* rounding only: under 1 per rim cell */
    assert_true(at(w, 25, 20) > 100);  /* ahead: gained */
    assert_int_equal(at(w, 10, 20), 100); /* far behind: untouched */
    rp_obstacles_free(&os);
    rp_water_free(&w);
}

/* Appearing on water 100 high (not moving): the water of the cells it covers goes to its
 * whole rim, shared evenly, so the sum loses less than one unit per rim cell. */
static void test_appearing_keeps_water(void **state)
{
    (void)state;
    rp_water *w = make();
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    static int16_t flat[N * N];
    for (int i = 0; i < N * N; i++)
        flat[i] = 100;
    rp_water_load(w, flat, flat);
    int64_t before = sum(w);
    place(os, C, C, 0, 100);
    rp_obstacles_apply(os, w, 1);
    assert_true(rp_water_is_held(w, 20, 20) && at(w, 20, 20) == 0);
    assert_true(before - sum(w) >= 0 && before - sum(w) < 4 * N);
    assert_true(at(w, 24, 20) > 100 && at(w, 24, 20) == at(w, 16, 20)); /* the rim, evenly */
    assert_int_equal(at(w, 2, 2), 100);
    rp_obstacles_free(&os);
    rp_water_free(&w);
}

/* Moving right through still water with push 100: up ahead, down behind, mirror amounts
 * about its track (row 20) and ahead against behind. */
static void test_push_bow_and_trough(void **state)
{
    (void)state;
    rp_water *w = make();
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    place(os, C - 256, C, 0, 100);
    rp_obstacles_apply(os, w, 1);
    place(os, C, C, 256, 100);
    rp_obstacles_apply(os, w, 1);
    assert_true(at(w, 25, 20) > 0);
    assert_true(at(w, 15, 20) < 0);
    assert_int_equal(at(w, 25, 20), -at(w, 15, 20));
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            assert_int_equal(at(w, x, y), at(w, x, N - 1 - y));
            assert_int_equal(at(w, x, y), -at(w, N - 1 - x, y));
        }
    assert_int_equal(sum(w), 0);
    rp_obstacles_free(&os);
    rp_water_free(&w);
}

/* The lead 1 + (k R D mod N) / N steps, worked by hand. */
static void test_lead(void **state)
{
    (void)state;
    int64_t num, den;
    rp_obstacles_lead(1, 48, 30, 1, &num, &den); /* 48 mod 30 = 18 */
    assert_true(num == 48 && den == 30);
    rp_obstacles_lead(5, 48, 30, 1, &num, &den); /* 240 mod 30 = 0 */
    assert_true(num == 30 && den == 30);
    rp_obstacles_lead(1, 100, 30000, 1001, &num, &den); /* 100100 mod 30000 = 10100 */
    assert_true(num == 40100 && den == 30000);
    rp_obstacles_lead(7, 0, 30, 1, &num, &den); /* one step per frame */
    assert_int_equal(num, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_displaced_water_goes_ahead),
        cmocka_unit_test(test_appearing_keeps_water),
        cmocka_unit_test(test_push_bow_and_trough),
        cmocka_unit_test(test_lead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
