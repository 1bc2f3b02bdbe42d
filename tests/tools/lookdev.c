/* lookdev.c - look development for the house light (light.h) and height resampling
 * (upscale.h): simulates a few drops and some rain on a 640x360 grid with the iso stencil,
 * then upscales and lights the heights onto a photo at several output sizes and writes
 * PNGs to look at; also times upscale + light at 1920x1080 on one thread.
 *
 * Build (after `make build/librockpool.a`), from the repository root:
 *   cc -std=c11 -O2 -D_GNU_SOURCE -Isrc -Iinclude tests/tools/lookdev.c build/librockpool.a \
 *      $(pkg-config --cflags --libs libpng libdeflate libxxhash libavformat libavcodec libswscale
 * libavutil) \ -lm -pthread -o build/lookdev Run: build/lookdev PHOTO|builtin OUTDIR [steps=N]
 * [sizes=640x360,1920x1080] [key=value ...] keys: az el hs refr shade caus spec shin sky (as
 * rp_light_params, in user units), damp (damping shift), drop (height of the big drops), rainh
 * (rain height scale %), time=N (timing repetitions, 0 = none), simd=L (time SIMD level L only;
 * default every level this machine has, each compared byte for byte with plain C), tag=NAME (file
 * name prefix). */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "input/image.h"
#include "look/light.h"
#include "base/cpu.h"
#include "look/texture.h"
#include "look/upscale.h"
#include "sim/water.h"

static int write_png(const char *path, const uint8_t *px, int w, int h, int channels)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)w;
    img.height = (png_uint_32)h;
    img.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&img, path, 0, px, 0, NULL)) {
        fprintf(stderr, "lookdev: %s: %s\n", path, img.message);
        return 1;
    }
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: lookdev PHOTO|builtin OUTDIR [key=value ...]\n");
        return 2;
    }
    const char *photo = argv[1], *outdir = argv[2];
    rp_light_params lp;
    rp_light_defaults(&lp);
    int steps = 160, damp = 7, drop_h = 1200, rain_pct = 100, reps = 0, only = -1;
    char sizes[256] = "640x360,1920x1080,3840x2160", tag[64] = "look";
    for (int i = 3; i < argc; i++) {
        char key[32];
        double v;
        if (sscanf(argv[i], "sizes=%255s", sizes) == 1)
            continue;
        if (sscanf(argv[i], "tag=%63s", tag) == 1)
            continue;
        if (sscanf(argv[i], "%31[^=]=%lf", key, &v) != 2) {
            fprintf(stderr, "lookdev: bad argument %s\n", argv[i]);
            return 2;
        }
        if (!strcmp(key, "az"))
            lp.azimuth_mdeg = (int32_t)(v * 1000);
        else if (!strcmp(key, "el"))
            lp.elevation_mdeg = (int32_t)(v * 1000);
        else if (!strcmp(key, "hs"))
            lp.height_scale = (int32_t)v;
        else if (!strcmp(key, "refr"))
            lp.refraction_q8 = (int32_t)(v * 256);
        else if (!strcmp(key, "shade"))
            lp.shade_q8 = (int32_t)(v * 256);
        else if (!strcmp(key, "caus"))
            lp.caustics_q8 = (int32_t)(v * 256);
        else if (!strcmp(key, "spec"))
            lp.specular_q8 = (int32_t)(v * 256);
        else if (!strcmp(key, "shin"))
            lp.shininess = (int32_t)v;
        else if (!strcmp(key, "sky"))
            lp.sky_q8 = (int32_t)(v * 256);
        else if (!strcmp(key, "steps"))
            steps = (int)v;
        else if (!strcmp(key, "damp"))
            damp = (int)v;
        else if (!strcmp(key, "drop"))
            drop_h = (int)v;
        else if (!strcmp(key, "rainh"))
            rain_pct = (int)v;
        else if (!strcmp(key, "time"))
            reps = (int)v;
        else if (!strcmp(key, "simd"))
            only = (int)v;
        else {
            fprintf(stderr, "lookdev: unknown key %s\n", key);
            return 2;
        }
    }
    char err[256];
    rp_light *light = NULL;
    if (rp_light_new(&light, &lp, err, sizeof err)) {
        fprintf(stderr, "lookdev: %s\n", err);
        return 2;
    }

    /* The water: 640x360 grid, iso stencil, open edges; three big drops, then rain. */
    const int gw = 640, gh = 360;
    rp_water_params wp = {gw, gh, RP_STENCIL_ISO, RP_BOUNDARY_OPEN, damp, 0, 0};
    rp_water *water = NULL;
    if (rp_water_new(&water, &wp)) {
        fprintf(stderr, "lookdev: water\n");
        return 1;
    }
    uint64_t seed = 1;
    for (int s = 0; s < steps; s++) {
        if (s == 0) {
            rp_drop d = {200, 170, 12, drop_h, RP_SHAPE_COSINE, RP_MODE_ADD};
            rp_water_drop(water, &d);
        }
        if (s == steps / 3) {
            rp_drop d = {450, 120, 10, drop_h, RP_SHAPE_COSINE, RP_MODE_ADD};
            rp_water_drop(water, &d);
        }
        if (s == steps - 40) {
            rp_drop d = {380, 260, 8, drop_h, RP_SHAPE_COSINE, RP_MODE_ADD};
            rp_water_drop(water, &d);
        }
        if (s > steps / 2 && rnd(&seed) % 5 == 0) { /* rain: about 6 drops a second at 30/s */
            rp_drop d = {(int32_t)(rnd(&seed) % gw),
                         (int32_t)(rnd(&seed) % gh),
                         (int32_t)(3 + rnd(&seed) % 7),
                         (int32_t)((300 + rnd(&seed) % 600) * rain_pct / 100),
                         RP_SHAPE_COSINE,
                         RP_MODE_ADD};
            rp_water_drop(water, &d);
        }
        rp_water_step(water, NULL);
    }
    const int16_t *grid = rp_water_heights(water);
    int peak = 0;
    for (int i = 0; i < gw * gh; i++)
        peak = abs(grid[i]) > peak ? abs(grid[i]) : peak;
    printf("grid %dx%d after %d steps, damping shift %d, peak |h| %d\n", gw, gh, steps, damp, peak);

    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int ow, oh;
        if (sscanf(tok, "%dx%d", &ow, &oh) != 2)
            return 2;
        uint8_t *bg = NULL;
        if (!strcmp(photo, "builtin")) {
            bg = malloc((size_t)ow * oh * 3);
            rp_texture_default(bg, ow, oh);
        } else if (rp_image_load_rgb(photo, ow, oh, &bg, err, sizeof err)) {
            fprintf(stderr, "lookdev: %s: %s\n", photo, err);
            return 1;
        }
        rp_upscale *up = NULL;
        if (rp_upscale_new(&up, gw, gh, ow, oh))
            return 1;
        int32_t *hq = malloc((size_t)ow * oh * sizeof *hq);
        uint8_t *rgb = malloc((size_t)ow * oh * 3), *rgba = malloc((size_t)ow * oh * 4);
        rp_light_geom g = {ow, oh, rp_upscale_ratio_q16(gw, ow), rp_upscale_ratio_q16(gh, oh),
                           rp_upscale_peak_q8(up)};
        rp_upscale_rows(up, grid, hq, 0, oh);
        rp_light_rows_rgb(light, &g, hq, bg, rgb, 0, oh);
        rp_light_rows_rgba(light, &g, hq, rgba, 0, oh);
        char path[512];
        snprintf(path, sizeof path, "%s/%s_%dx%d.png", outdir, tag, ow, oh);
        write_png(path, rgb, ow, oh, 3);
        snprintf(path, sizeof path, "%s/%s_%dx%d_layer.png", outdir, tag, ow, oh);
        write_png(path, rgba, ow, oh, 4);
        /* a crop of the same scene region (grid cells 140..300 x 100..190) at native pixels */
        int cx0 = 140 * ow / gw, cy0 = 100 * oh / gh, cw = 160 * ow / gw, ch = 90 * oh / gh;
        uint8_t *crop = malloc((size_t)cw * ch * 3);
        for (int y = 0; y < ch; y++)
            memcpy(crop + (size_t)y * cw * 3, rgb + ((size_t)(cy0 + y) * ow + cx0) * 3,
                   (size_t)cw * 3);
        snprintf(path, sizeof path, "%s/%s_%dx%d_crop.png", outdir, tag, ow, oh);
        write_png(path, crop, cw, ch, 3);
        free(crop);
        if (reps > 0) {
            /* every SIMD level against the plain C path (rp_simd_set), then timed */
            uint8_t *rgb_c = malloc((size_t)ow * oh * 3), *rgba_c = malloc((size_t)ow * oh * 4);
            int32_t *hq_c = malloc((size_t)ow * oh * sizeof *hq_c);
            for (int level = RP_SIMD_C; level <= rp_simd_supported(); level++) {
                rp_simd_set(level);
                int n = only < 0 || only == level ? reps : level == RP_SIMD_C ? 1 : 0;
                if (!n)
                    continue;
                /* the fastest of n runs: the machine may be shared */
                double best[3] = {1e9, 1e9, 1e9};
                for (int r = 0; r < n; r++) {
                    double t0 = now();
                    rp_upscale_rows(up, grid, hq, 0, oh);
                    double t1 = now();
                    rp_light_rows_rgb(light, &g, hq, bg, rgb, 0, oh);
                    double t2 = now();
                    rp_light_rows_rgba(light, &g, hq, rgba, 0, oh);
                    double t3 = now();
                    best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
                    best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
                    best[2] = t3 - t2 < best[2] ? t3 - t2 : best[2];
                }
                const char *same = "";
                if (level == RP_SIMD_C) {
                    memcpy(rgb_c, rgb, (size_t)ow * oh * 3);
                    memcpy(rgba_c, rgba, (size_t)ow * oh * 4);
                    memcpy(hq_c, hq, (size_t)ow * oh * sizeof *hq);
                } else if (memcmp(rgb_c, rgb, (size_t)ow * oh * 3) ||
                           memcmp(rgba_c, rgba, (size_t)ow * oh * 4) ||
                           memcmp(hq_c, hq, (size_t)ow * oh * sizeof *hq)) {
                    same = " DIFFERENT from C";
                } else {
                    same = " (same bytes as C)";
                }
                printf("%dx%d one thread, simd level %d, best of runs: upscale %.2f ms, light rgb "
                       "%.2f ms, "
                       "light rgba %.2f ms%s\n",
                       ow, oh, level, best[0] * 1e3, best[1] * 1e3, best[2] * 1e3, same);
            }
            rp_simd_set(-1);
            FILE *la = fopen("/proc/loadavg", "r");
            char line[128];
            if (la && fgets(line, sizeof line, la))
                printf("load average: %s", line);
            if (la)
                fclose(la);
            free(rgb_c);
            free(rgba_c);
            free(hq_c);
        }
        free(hq);
        free(rgb);
        free(rgba);
        free(bg);
        rp_upscale_free(&up);
    }
    rp_water_free(&water);
    rp_light_free(&light);
    return 0;
}
