/* test_presets.c - each seed preset, end to end (drops, steps, render over the built-in
 * texture), against a plain transcription of that seed's loops written from the texts in
 * shared/seeds, without the 1-D row wrap. The presets' settings come from
 * rp_settings_defaults(), so this also checks the rockpool-scene(5) PRESETS table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "look/render.h"
#include "scene/scene.h"
#include "look/texture.h"
#include "sim/water.h"

#define W 48
#define H 36
#define FRAMES 45

static uint8_t tex[H][W][3];

/* The seeds' state: two buffers, cur holds the latest heights. */
static int buf_a[H][W], buf_b[H][W];
static int (*cur)[W], (*old)[W];

static int at(int x, int y)
{
    return x < 0 || y < 0 || x >= W || y >= H ? 0 : cur[y][x];
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static uint8_t sat(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* A disc drop as the seeds place them: cells within the radius, added (Elias, applet,
 * Silverlight) or set (CodeProject's `_waveHeight[...] = ...`). */
static void seed_drop(int cx, int cy, int r, int h, int set)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r && x > 0 && y > 0 && x < W - 1 &&
                y < H - 1)
                cur[y][x] = set ? h : cur[y][x] + h;
}

/* Elias (001) ProcessWater / applet (002) newframe / Silverlight (003) / CodeProject (004),
 * new heights written into old, then swapped. */
static void seed_step(enum rp_preset p)
{
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            int n;
            if (p == RP_PRESET_ROCKPOOL) /* the iso stencil, rockpool-scene(5) */
                n = ((4 * (cur[y][x - 1] + cur[y][x + 1] + cur[y - 1][x] + cur[y + 1][x]) +
                      (cur[y - 1][x - 1] + cur[y - 1][x + 1] + cur[y + 1][x - 1] +
                       cur[y + 1][x + 1]) +
                      12 * cur[y][x]) >>
                     4) -
                    old[y][x];
            else if (p == RP_PRESET_CODEPROJECT)
                n = ((cur[y][x - 1] + cur[y - 1][x - 1] + cur[y - 1][x] + cur[y - 1][x + 1] +
                      cur[y][x + 1] + cur[y + 1][x + 1] + cur[y + 1][x] + cur[y + 1][x - 1]) >>
                     2) -
                    old[y][x];
            else
                n = ((cur[y][x - 1] + cur[y][x + 1] + cur[y - 1][x] + cur[y + 1][x]) >> 1) -
                    old[y][x];
            if (p == RP_PRESET_SILVERLIGHT)
                n = (int)((long long)n * 61604 /
                          65536); /* 0.94 in Q16 (rockpool-scene(5) PRESETS) */
            else if (p == RP_PRESET_ROCKPOOL)
                n -= n >> 7;
            else
                n -= n >> 5;
            old[y][x] = n;
        }
    int(*t)[W] = cur;
    cur = old;
    old = t;
}

static void seed_render(enum rp_preset p, uint8_t out[H][W][3])
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *t;
            int shading = 0;
            if (p == RP_PRESET_APPLET) {
                /* a = ((x - hwidth) * data / 1024) + hwidth, data = 1024 - h */
                int data = 1024 - cur[y][x];
                int a = clampi(((x - W / 2) * data / 1024) + W / 2, 0, W - 1);
                int b = clampi(((y - H / 2) * data / 1024) + H / 2, 0, H - 1);
                t = tex[b][a];
            } else {
                int xo = at(x - 1, y) - at(x + 1, y);
                int yo = at(x, y - 1) - at(x, y + 1);
                if (p == RP_PRESET_ELIAS)
                    shading = xo;
                else if (p == RP_PRESET_SILVERLIGHT)
                    shading = (xo - yo) / 2;
                else if (p == RP_PRESET_ROCKPOOL)
                    shading = (xo - yo) / 4;
                if (p == RP_PRESET_CODEPROJECT) {
                    xo >>= 3;
                    yo >>= 3;
                } else if (p == RP_PRESET_ROCKPOOL) {
                    xo >>= 2;
                    yo >>= 2;
                }
                t = tex[clampi(y + yo, 0, H - 1)][clampi(x + xo, 0, W - 1)];
            }
            for (int c = 0; c < 3; c++)
                out[y][x][c] = sat(t[c] + shading);
        }
}

static void run_preset(enum rp_preset p)
{
    static uint8_t want[H][W][3], got[H][W][3];
    rp_settings s;
    rp_water *w = NULL;
    rp_settings_defaults(&s, p);
    rp_water_params wp = {W,
                          H,
                          s.water.stencil,
                          s.water.boundary,
                          s.water.damping_shift,
                          s.water.damping_q16,
                          s.water.viscosity_q16};
    rp_render_params rp = {s.look.mode, s.look.refraction, s.look.light_x, s.look.light_y,
                           s.look.shading};
    assert_int_equal(rp_water_new(&w, &wp), RP_OK);
    memset(buf_a, 0, sizeof buf_a);
    memset(buf_b, 0, sizeof buf_b);
    cur = buf_a;
    old = buf_b;
    rp_texture_default(&tex[0][0][0], W, H);
    for (int k = 0; k < FRAMES; k++) {
        if (k % 9 == 0) {
            int x = 5 + (k * 7) % (W - 10), y = 4 + (k * 5) % (H - 8), h = 300 + 40 * k;
            rp_drop d = {x, y, 3, h, RP_SHAPE_DISC, s.mode};
            rp_water_drop(w, &d);
            seed_drop(x, y, 3, h, s.mode == RP_MODE_SET);
        }
        rp_water_step(w, NULL);
        seed_step(p);
        rp_render_frame(&rp, rp_water_heights(w), W, H, &tex[0][0][0], &got[0][0][0], NULL);
        seed_render(p, want);
        assert_memory_equal(got, want, sizeof want);
    }
    rp_water_free(&w);
}

static void test_elias(void **state)
{
    (void)state;
    run_preset(RP_PRESET_ELIAS);
}

static void test_applet(void **state)
{
    (void)state;
    run_preset(RP_PRESET_APPLET);
}

static void test_silverlight(void **state)
{
    (void)state;
    run_preset(RP_PRESET_SILVERLIGHT);
}

/* rockpool's own preset: iso stencil, shift 7, offset R 2, shading (dx - dy) / 4. */
static void test_rockpool(void **state)
{
    (void)state;
    run_preset(RP_PRESET_ROCKPOOL);
}

static void test_codeproject(void **state)
{
    (void)state;
    run_preset(RP_PRESET_CODEPROJECT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elias),       cmocka_unit_test(test_applet),
        cmocka_unit_test(test_silverlight), cmocka_unit_test(test_codeproject),
        cmocka_unit_test(test_rockpool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
