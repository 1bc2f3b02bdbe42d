/* test_render.c - rendering against the seeds' render loops, transcribed plainly, and
 * one pixel worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "threads.h"
#include "look/render.h"
#include "look/texture.h"
#include "sim/water.h"

#define W 37
#define H 29

static uint8_t texture[H][W][3];
static int16_t heights[H][W];

static void fill(unsigned seed)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1103515245u + 12345u;
            heights[y][x] = (int16_t)((int)(seed >> 16) % 2001 - 1000);
            texture[y][x][0] = (uint8_t)(x * 7 + y);
            texture[y][x][1] = (uint8_t)(y * 9 + 3 * x);
            texture[y][x][2] = (uint8_t)(x ^ y);
        }
}

static int hgt(int x, int y)
{
    return x < 0 || y < 0 || x >= W || y >= H ? 0 : heights[y][x];
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static uint8_t sat(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Seed 001's render loop: Xoffset = buffer(x-1,y) - buffer(x+1,y), Yoffset likewise,
 * Shading = Xoffset (elias) / (Xoffset - Yoffset) / 2 (silverlight) / none with >> 3
 * offsets (codeproject); t = texture(x + Xoffset, y + Yoffset); plot t + Shading. */
static void seed_offset_render(int kind, uint8_t out[H][W][3])
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int xo = hgt(x - 1, y) - hgt(x + 1, y);
            int yo = hgt(x, y - 1) - hgt(x, y + 1);
            int shading = kind == 0 ? xo : kind == 1 ? (xo - yo) / 2 : 0;
            if (kind == 2) {
                xo >>= 3;
                yo >>= 3;
            }
            const uint8_t *t = texture[clampi(y + yo, 0, H - 1)][clampi(x + xo, 0, W - 1)];
            for (int c = 0; c < 3; c++)
                out[y][x][c] = sat(t[c] + shading);
        }
}

static void test_offset_presets_match_seed_loops(void **state)
{
    (void)state;
    static uint8_t want[H][W][3], got[H][W][3];
    const rp_render_params params[3] = {
        {RP_RENDER_OFFSET, 0, 1, 0, 1},  /* elias: shading = dx */
        {RP_RENDER_OFFSET, 0, 1, -1, 2}, /* silverlight: (dx - dy) / 2 */
        {RP_RENDER_OFFSET, 3, 0, 0, 0},  /* codeproject: >> 3, no shading */
    };
    for (unsigned seed = 1; seed < 6; seed++) {
        fill(seed);
        for (int k = 0; k < 3; k++) {
            seed_offset_render(k, want);
            rp_render_frame(&params[k], &heights[0][0], W, H, &texture[0][0][0], &got[0][0][0],
                            NULL);
            assert_memory_equal(got, want, sizeof want);
        }
    }
}

/* Seed 002's applet: data = 1024 - h; a = ((x - hwidth) * data / 1024) + hwidth; bounds
 * checked; ripple[i] = texture[a + b * width]. */
static void test_lens_matches_applet(void **state)
{
    (void)state;
    static uint8_t want[H][W][3], got[H][W][3];
    int hwidth = W >> 1, hheight = H >> 1;
    fill(42);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int data = 1024 - heights[y][x];
            int a = ((x - hwidth) * data / 1024) + hwidth;
            int b = ((y - hheight) * data / 1024) + hheight;
            if (a >= W)
                a = W - 1;
            if (a < 0)
                a = 0;
            if (b >= H)
                b = H - 1;
            if (b < 0)
                b = 0;
            memcpy(want[y][x], texture[b][a], 3);
        }
    rp_render_params p = {RP_RENDER_LENS, 0, 0, 0, 0};
    rp_render_frame(&p, &heights[0][0], W, H, &texture[0][0][0], &got[0][0][0], NULL);
    assert_memory_equal(got, want, sizeof want);
}

/* One pixel by hand. Heights around (1,1) of a 3x3 grid: left 10, right 4, up -6, down 2.
 * dx = 10 - 4 = 6, dy = -6 - 2 = -8. R = 1: texel (1 + 3, 1 - 4) clamped to (2, 0).
 * Shading with light (1, -1), divisor 2: (6 + 8) / 2 = 7. Texel (2,0) is (250, 100, 0):
 * 250 + 7 saturates to 255, 107, 7. */
static void test_one_pixel_by_hand(void **state)
{
    (void)state;
    const int16_t h[9] = {0, -6, 0, 10, 0, 4, 0, 2, 0};
    uint8_t tex[27] = {0}, out[27];
    tex[6] = 250;
    tex[7] = 100;
    tex[8] = 0;
    rp_render_params p = {RP_RENDER_OFFSET, 1, 1, -1, 2};
    rp_render_rows(&p, h, 3, 3, tex, out, 0, 3);
    assert_int_equal(out[12], 255);
    assert_int_equal(out[13], 107);
    assert_int_equal(out[14], 7);
}

static void test_threads_do_not_change_frames(void **state)
{
    (void)state;
    const int w = 301, h = 203;
    int16_t *hf = malloc(sizeof(int16_t) * w * h);
    uint8_t *tex = malloc((size_t)w * h * 3), *a = malloc((size_t)w * h * 3),
            *b = malloc((size_t)w * h * 3);
    unsigned seed = 7;
    for (int i = 0; i < w * h; i++) {
        seed = seed * 1103515245u + 12345u;
        hf[i] = (int16_t)((int)(seed >> 16) % 3001 - 1500);
    }
    rp_texture_default(tex, w, h);
    const rp_render_params params[2] = {{RP_RENDER_OFFSET, 2, 1, -1, 4},
                                        {RP_RENDER_LENS, 0, 0, 0, 0}};
    for (int k = 0; k < 2; k++) {
        rp_render_frame(&params[k], hf, w, h, tex, a, NULL);
        for (int t = 2; t <= 7; t += 5) {
            rp_pool *pool = pool_of(t);
            memset(b, 0, (size_t)w * h * 3);
            rp_render_frame(&params[k], hf, w, h, tex, b, pool);
            assert_memory_equal(a, b, (size_t)w * h * 3);
            rp_pool_free(&pool);
        }
    }
    free(hf);
    free(tex);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_presets_match_seed_loops),
        cmocka_unit_test(test_lens_matches_applet),
        cmocka_unit_test(test_one_pixel_by_hand),
        cmocka_unit_test(test_threads_do_not_change_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
