/* test_obstacle.c - moving walls (sim/obstacle.h) on small grids worked by hand: the water
 * a wall moves onto goes to its rim ahead (the sum kept to within the share's rounding),
 * its push raises ahead and lowers behind by mirror amounts, it is drawn ahead of its last
 * place by the exact lead of the frame's instant. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/timeline.h"
#include "sim/obstacle.h"
#include "sim/water.h"

#define N 41 /* the grid is N x N; a centre at cell 20's centre is (20 * 256 + 128) */
#define C (20 * 256 + 128)

static rp_water *make(void)
{
    rp_water *w = NULL;
    rp_water_params p = {N, N, RP_STENCIL_4, RP_BOUNDARY_WALL, 5, 0, 0};
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
    rp_obstacles_apply(os, w, 1, NULL);
    static int16_t flat[N * N];
    for (int i = 0; i < N * N; i++)
        flat[i] = (int16_t)(rp_water_is_held(w, i % N, i / N) ? 0 : 100);
    rp_water_load(w, flat, flat);
    int64_t before = sum(w);
    place(os, C, C, 2 * 256, 0);
    assert_int_equal(rp_obstacles_apply(os, w, 1, NULL), 1);
    int64_t after = sum(w);
    /* entered: the cells within 3 of (20.5, 20.5) not within 3 of (18.5, 20.5): the circle's
     * right crescent, x 22 and 23 in row 20 among them */
    assert_true(rp_water_is_held(w, 23, 20) && at(w, 23, 20) == 0);
    assert_true(rp_water_is_held(w, 17, 20) && at(w, 17, 20) == 0);
    assert_false(rp_water_is_held(w, 16, 20));
    assert_true(before - after >= 0 &&
                before - after < 4 * N);  /* rounding only: under 1 per rim cell */
    assert_true(at(w, 25, 20) > 100);     /* ahead: gained */
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
    rp_obstacles_apply(os, w, 1, NULL);
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
    rp_obstacles_apply(os, w, 1, NULL);
    place(os, C, C, 256, 100);
    rp_obstacles_apply(os, w, 1, NULL);
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

/* A mask obstacle (a w x h box in 1/256 cell, mask the N x N grid's mask) at (x, y). */
static void place_mask(rp_obstacles *os, const uint8_t *mask, int x, int y, int w, int h, int dx,
                       int push)
{
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    it.mask_path = "mask.png";
    it.x = x;
    it.y = y;
    it.w = w;
    it.h = h;
    it.dx = dx;
    it.push = push;
    assert_int_equal(rp_obstacles_shape(os, &it, mask, N, N), RP_OK);
    rp_obstacles_item(os, &it);
}

/* A mask that is wall everywhere is a rectangle: the same held cells, and the same pushed
 * water cell for cell beside its sides, as a rect of its size moving the same way (the
 * distance field's edge lies where the rectangle's does on every side; only off its
 * corners, where the rect's distance is the larger of the two axes' and the field's is
 * round, do the rims differ). */
static void test_full_mask_is_a_rect(void **state)
{
    (void)state;
    static uint8_t full[N * N];
    memset(full, 1, sizeof full);
    rp_water *wm = make(), *wr = make();
    rp_obstacles *om = NULL, *orc = NULL;
    assert_int_equal(rp_obstacles_new(&om, 1), RP_OK);
    assert_int_equal(rp_obstacles_new(&orc, 1), RP_OK);
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    for (int step = 0; step < 2; step++) { /* appears at cell 19.5, moves to 20.5 */
        int x = C - 256 + step * 256, dx = step ? 256 : 0;
        place_mask(om, full, x, C, 7 * 256, 5 * 256, dx, 100);
        it.x = x;
        it.y = C;
        it.w = 7 * 256;
        it.h = 5 * 256;
        it.dx = dx;
        it.push = 100;
        rp_obstacles_item(orc, &it);
        rp_obstacles_apply(om, wm, 1, NULL);
        rp_obstacles_apply(orc, wr, 1, NULL);
    }
    int held = 0, beside = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            assert_int_equal(rp_water_is_held(wm, x, y), rp_water_is_held(wr, x, y));
            held += rp_water_is_held(wm, x, y);
            if ((x >= 17 && x <= 23) || (y >= 18 && y <= 22)) { /* not off a corner */
                assert_int_equal(at(wm, x, y), at(wr, x, y));
                beside += at(wr, x, y) != 0;
            }
        }
    assert_int_equal(held, 7 * 5 + 4 * (N - 1)); /* and the grid's edge, a wall */
    assert_true(beside > 40);                    /* the comparison saw the push */
    rp_obstacles_free(&om);
    rp_obstacles_free(&orc);
    rp_water_free(&wm);
    rp_water_free(&wr);
}

/* The shape follows the image: a mask walled on its left half only (columns x < 20 of the
 * grid's mask) makes an obstacle whose left half holds the water, its right half not; and
 * a mirror-symmetric mask moving along row 20 leaves a field mirror-symmetric about it. */
static void test_mask_shape_follows_image(void **state)
{
    (void)state;
    static uint8_t left[N * N], disc[N * N];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            left[y * N + x] = x < 20;
            disc[y * N + x] = (x - 20) * (x - 20) + (y - 20) * (y - 20) <= 18 * 18;
        }
    rp_water *w = make();
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    /* 8 cells wide (4 walled), 4 high, centred on cell 20: cells 16..23 by 18..21 */
    place_mask(os, left, C - 128, C - 128, 8 * 256, 4 * 256, 0, 0);
    rp_obstacles_apply(os, w, 1, NULL);
    for (int x = 14; x < 26; x++)
        assert_int_equal(rp_water_is_held(w, x, 20), x >= 16 && x < 20);
    rp_obstacles_free(&os);
    rp_water_free(&w);

    w = make();
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    place_mask(os, disc, C - 256, C, 9 * 256, 9 * 256, 0, 100);
    rp_obstacles_apply(os, w, 1, NULL);
    place_mask(os, disc, C, C, 9 * 256, 9 * 256, 256, 100);
    rp_obstacles_apply(os, w, 1, NULL);
    assert_true(at(w, 27, 20) > 0 && at(w, 13, 20) < 0); /* bow ahead, trough behind */
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            assert_int_equal(at(w, x, y), at(w, x, N - 1 - y));
    rp_obstacles_free(&os);
    rp_water_free(&w);
}

/* The lead 1 + (k R D mod N) / N steps, worked by hand. */
/* A stop flag already set: the walls are not applied (-1), and applying them afterwards
 * without it holds their cells as usual. */
static void test_stop_flag(void **state)
{
    (void)state;
    rp_water *w = make();
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    place(os, C, C, 0, 0);
    volatile sig_atomic_t stop = 1;
    assert_int_equal(rp_obstacles_apply(os, w, 1, &stop), -1);
    assert_false(rp_water_is_held(w, 20, 20));
    stop = 0;
    assert_int_equal(rp_obstacles_apply(os, w, 1, &stop), 1);
    assert_true(rp_water_is_held(w, 20, 20));
    rp_obstacles_free(&os);
    rp_water_free(&w);
}

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

/* floor(sqrt(v)) by doubles, corrected to the exact integer. */
static int64_t floor_sqrt(int64_t v)
{
    int64_t r = (int64_t)sqrt((double)v);
    while (r * r > v)
        r--;
    while ((r + 1) * (r + 1) <= v)
        r++;
    return r;
}

/* A plain transcription of how a circle (r) or a rectangle (w x h) is drawn (obstacle.c
 * draw_px, every pixel of the frame through its distance): the square root for every pixel
 * of a circle, each pixel's centre by its own division, no shortcut. */
static void draw_ref(int64_t x0, int64_t y0, int64_t r, int64_t rw, int64_t rh, int gw, int gh,
                     int ow, int oh, const uint8_t rgb[3], int32_t sx, int32_t sy, uint8_t *frame,
                     int bpp)
{
    int64_t px = ((int64_t)gw << 8) / ow, py = ((int64_t)gh << 8) / oh;
    int64_t edge = px > py ? px : py;
    for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
            int64_t cx = ((2 * x + 1) * gw << 7) / ow, cy = ((2 * y + 1) * gh << 7) / oh;
            int64_t dx = cx - x0, dy = cy - y0, out, gx, gy;
            if (r) {
                int64_t d = floor_sqrt(dx * dx + dy * dy);
                out = d - r;
                gx = d ? dx * 32767 / d : 0;
                gy = d ? dy * 32767 / d : 0;
            } else {
                int64_t ax = llabs(dx) - rw / 2, ay = llabs(dy) - rh / 2;
                out = ax > ay ? ax : ay;
                gx = ax > ay ? (dx < 0 ? -32767 : 32767) : 0;
                gy = ax > ay ? 0 : (dy < 0 ? -32767 : 32767);
            }
            if (out >= edge + edge / 2)
                continue;
            uint8_t *p = frame + ((size_t)y * ow + (size_t)x) * bpp;
            static const uint8_t black[3] = {0, 0, 0};
            int64_t a = (edge / 2 - out) * 256 / edge;
            a = a < 0 ? 0 : a > 256 ? 256 : a;
            int64_t contact = 0;
            if (out > -edge / 2) {
                contact = 256 - out * 256 / (edge + edge / 2);
                contact = contact < 0 ? 0 : contact > 256 ? 256 : contact;
            }
            if (contact)
                rp_blend_px(p, bpp, black, (int32_t)(contact * 26214 >> 8));
            if (!a)
                continue;
            uint8_t lit[3] = {rgb[0], rgb[1], rgb[2]};
            int64_t rim = 3 * edge, in = -out;
            if (in < rim) {
                int64_t w = in <= 0 ? 256 : 256 - in * 256 / rim;
                int64_t shade = 32768 + (((gx * sx + gy * sy) >> 16) * w >> 8);
                for (int c = 0; c < 3; c++) {
                    int64_t v = (rgb[c] * shade + 16384) >> 15;
                    lit[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
            }
            rp_blend_px(p, bpp, lit, (int32_t)a << 8);
        }
}

/* got and want (w x h pixels of bpp bytes, over a background of 90s) are the same, and at
 * least min pixels were drawn. */
static void same_drawing(const uint8_t *got, const uint8_t *want, int w, int h, int bpp, int min)
{
    int drawn = 0;
    for (int i = 0; i < w * h; i++) {
        drawn += want[(size_t)i * bpp] != 90;
        if (memcmp(got + (size_t)i * bpp, want + (size_t)i * bpp, (size_t)bpp))
            fail_msg("pixel (%d, %d): %d %d %d %d, want %d %d %d %d", i % w, i / w,
                     got[(size_t)i * bpp], got[(size_t)i * bpp + 1], got[(size_t)i * bpp + 2],
                     bpp == 4 ? got[(size_t)i * bpp + 3] : -1, want[(size_t)i * bpp],
                     want[(size_t)i * bpp + 1], want[(size_t)i * bpp + 2],
                     bpp == 4 ? want[(size_t)i * bpp + 3] : -1);
    }
    assert_true(drawn > min);
}

/* One obstacle item drawn by rp_obstacles_draw into an ow x oh frame of bpp bytes a pixel
 * over a layer of 90s, in the light of a sun at (azimuth, elevation) mdeg, equals draw_ref
 * byte for byte, and more than min pixels are drawn. */
static void check_drawing(const rp_item *it, int ow, int oh, int bpp, int32_t azimuth,
                          int32_t elevation, const uint8_t rgb[3], int min)
{
    size_t n = (size_t)ow * oh * bpp;
    uint8_t *got = malloc(n), *want = malloc(n);
    assert_non_null(got);
    assert_non_null(want);
    memset(got, 90, n);
    memset(want, 90, n);
    int32_t sx, sy;
    rp_obstacles_sun(azimuth, elevation, &sx, &sy);
    rp_obstacles *os = NULL;
    assert_int_equal(rp_obstacles_new(&os, 1), RP_OK);
    rp_obstacles_item(os, it);
    rp_obstacles_draw(os, 0, 1, N, N, ow, oh, rgb, sx, sy, got, bpp, 0, oh);
    draw_ref(it->x, it->y, it->circle ? it->r : 0, it->w, it->h, N, N, ow, oh, rgb, sx, sy, want,
             bpp);
    same_drawing(got, want, ow, oh, bpp, min);
    rp_obstacles_free(&os);
    free(got);
    free(want);
}

/* A circle drawn at 5 output pixels a cell, off the cells' centres, equals the plain
 * transcription byte for byte: the drawing's shortcuts (no square root deep inside or
 * beyond the contact line, the inside filled without blending, the pixels' centres stepped
 * along a row) change nothing. */
static void test_draw_circle(void **state)
{
    (void)state;
    const uint8_t rgb[3] = {138, 133, 120};
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    it.circle = 1;
    it.x = C + 77;
    it.y = C - 41;
    it.r = 3 * 256;
    check_drawing(&it, 5 * N, 5 * N, 3, 315000, 40000, rgb, 600); /* pi (3 * 5 + 1.5)^2 */
}

/* A rectangle in the --alpha layer (RGBA over a layer of alpha 90), at 3.3 and 2.7 output
 * pixels a cell, equals the plain transcription byte for byte. */
static void test_draw_rect_rgba(void **state)
{
    (void)state;
    const uint8_t rgb[3] = {201, 64, 17};
    rp_item it;
    memset(&it, 0, sizeof it);
    it.kind = RP_ITEM_OBSTACLE;
    it.x = C - 300;
    it.y = C + 90;
    it.w = 17 * 256 + 70;
    it.h = 9 * 256 + 130;
    /* (17.3 * 3.3) (9.5 * 2.7) pixels */
    check_drawing(&it, 33 * N / 10, 27 * N / 10, 4, 120000, 25000, rgb, 1400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_displaced_water_goes_ahead),
        cmocka_unit_test(test_appearing_keeps_water),
        cmocka_unit_test(test_push_bow_and_trough),
        cmocka_unit_test(test_lead),
        cmocka_unit_test(test_draw_circle),
        cmocka_unit_test(test_draw_rect_rgba),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_full_mask_is_a_rect),
        cmocka_unit_test(test_mask_shape_follows_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
