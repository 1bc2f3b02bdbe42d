/* settings.c - presets and the merging of settings (see settings.h). */
#include "scene/settings.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/common.h"

/* One row per setting: the bit that says it was given and the bytes it covers. */
#define FIELD(bit, member)                                                                         \
    {                                                                                              \
        bit, offsetof(rp_settings, member), sizeof(((rp_settings *)0)->member)                     \
    }
static const struct field {
    unsigned bit;
    size_t offset, size;
} fields[] = {
    FIELD(RP_SET_SIZE, width),
    FIELD(RP_SET_SIZE, height),
    FIELD(RP_SET_FPS, time.fps),
    FIELD(RP_SET_DURATION, time.duration),
    FIELD(RP_SET_DURATION, time.duration_background),
    FIELD(RP_SET_SEED, seed),
    FIELD(RP_SET_PRESET, preset),
    FIELD(RP_SET_BACKGROUND, background),
    FIELD(RP_SET_BACKGROUND, background_end),
    FIELD(RP_SET_DAMPING, water.damping_shift),
    FIELD(RP_SET_DAMPING, water.damping_q16),
    FIELD(RP_SET_STENCIL, water.stencil),
    FIELD(RP_SET_BOUNDARY, water.boundary),
    FIELD(RP_SET_REFRACTION, look.refraction),
    FIELD(RP_SET_SHADING, look.shading),
    FIELD(RP_SET_LIGHT, look.light_x),
    FIELD(RP_SET_LIGHT, look.light_y),
    FIELD(RP_SET_RENDER, look.mode),
    FIELD(RP_SET_FPS, time.fps_den),
    FIELD(RP_SET_RATE, time.rate),
    FIELD(RP_SET_PREROLL, time.preroll),
    FIELD(RP_SET_OUTPUT_SIZE, out_width),
    FIELD(RP_SET_OUTPUT_SIZE, out_height),
    FIELD(RP_SET_GRID, sim.grid_w),
    FIELD(RP_SET_GRID, sim.grid_h),
    FIELD(RP_SET_GRID, sim.grid_pct),
    FIELD(RP_SET_SPEED, sim.speed),
    FIELD(RP_SET_SPEED, sim.speed_pct),
    FIELD(RP_SET_FADE, sim.fade_us),
    FIELD(RP_SET_LIGHT, light.azimuth_mdeg),
    FIELD(RP_SET_LIGHT, light.elevation_mdeg),
    FIELD(RP_SET_REFRACTION, light.refraction_q8),
    FIELD(RP_SET_REFRACT_OFF, light.refraction_q8),
    FIELD(RP_SET_SPECULAR, light.specular_q8),
    FIELD(RP_SET_SPECULAR, light.shininess),
    FIELD(RP_SET_SKY, light.sky_q8),
    FIELD(RP_SET_SKY, light.sky_rgb),
    FIELD(RP_SET_SKY, sky_image),
    FIELD(RP_SET_SKY, light.sky_flat),
    FIELD(RP_SET_CAUSTICS, light.caustics_q8),
    FIELD(RP_SET_FIT, fit),
    FIELD(RP_SET_WALLS, walls_visible),
    FIELD(RP_SET_WALLS, wall_rgb),
    FIELD(RP_SET_DEPTH, light.depth_q8),
    FIELD(RP_SET_SUN, light.sun_size_mdeg),
    FIELD(RP_SET_TINT, light.tint_rgb),
    FIELD(RP_SET_LOOK, light.model),
    FIELD(RP_SET_LOOK, light.height_scale),
    FIELD(RP_SET_STRENGTH, strength_milli),
};

/* The presets: one per seed text, reproduced exactly, and the house style. */
static const struct preset {
    const char *name;
    rp_water_params water;
    rp_render_params look;
    enum rp_shape shape;
    enum rp_mode mode;
    rp_sim_settings sim;
} presets[] = {
    /* The house style: its own clock and grid, so the water is the same at every frame
     * rate and output size; lit as water (light.h). */
    [RP_PRESET_ROCKPOOL] = {"rockpool",
                            {.stencil = RP_STENCIL_ISO, .damping_shift = 7},
                            {RP_RENDER_LIGHT, 2, 1, -1, 4},
                            RP_SHAPE_SMOOTH,
                            RP_MODE_ADD,
                            {.auto_grid = 1,
                             .speed = RP_ROCKPOOL_SPEED,
                             .speed_pct = 1,
                             .fade_us = RP_ROCKPOOL_FADE_US,
                             .viscosity = RP_ROCKPOOL_VISCOSITY}},
    /* Elias: 4 neighbours, h -= h >> 5, offset render with shading = dx. */
    [RP_PRESET_ELIAS] = {"elias",
                         {.stencil = RP_STENCIL_4, .damping_shift = 5},
                         {RP_RENDER_OFFSET, 0, 1, 0, 1},
                         RP_SHAPE_DISC,
                         RP_MODE_ADD,
                         {.auto_grid = 0}},
    /* The Java applet: lens refraction, no shading, square drops. */
    [RP_PRESET_APPLET] = {"applet",
                          {.stencil = RP_STENCIL_4, .damping_shift = 5},
                          {RP_RENDER_LENS, 0, 1, -1, 0},
                          RP_SHAPE_SQUARE,
                          RP_MODE_ADD,
                          {.auto_grid = 0}},
    /* Silverlight: damping 0.94 = round(0.94 * 65536) / 65536, shading (dx - dy) / 2. */
    [RP_PRESET_SILVERLIGHT] = {"silverlight",
                               {.stencil = RP_STENCIL_4, .damping_q16 = 61604},
                               {RP_RENDER_OFFSET, 0, 1, -1, 2},
                               RP_SHAPE_SPLASH,
                               RP_MODE_ADD,
                               {.auto_grid = 0}},
    /* CodeProject: 8 neighbours >> 2, offsets >> 3, cosine drops that replace. */
    [RP_PRESET_CODEPROJECT] = {"codeproject",
                               {.stencil = RP_STENCIL_8, .damping_shift = 5},
                               {RP_RENDER_OFFSET, 3, 1, -1, 0},
                               RP_SHAPE_COSINE,
                               RP_MODE_SET,
                               {.auto_grid = 0}},
};

void rp_light_defaults(rp_light_params *p)
{
    p->azimuth_mdeg = 315000; /* from the top left */
    p->elevation_mdeg = 60000;
    p->height_scale = RP_LIGHT_WATER_HEIGHT_SCALE;
    p->refraction_q8 = 3 * 256;
    p->shade_q8 = 384;
    p->caustics_q8 = 32;
    p->specular_q8 = 3 * 256;
    p->shininess = 50;
    p->sky_q8 = 0;
    p->light_rgb[0] = 255;
    p->light_rgb[1] = 250;
    p->light_rgb[2] = 240;
    p->sky_rgb[0] = 200;
    p->sky_rgb[1] = 220;
    p->sky_rgb[2] = 255;
    p->model = RP_LIGHT_WATER;
    p->depth_q8 = 64 * 256;
    p->sun_size_mdeg = 3000;
    p->sky_flat = 0;
    p->tint_rgb[0] = p->tint_rgb[1] = p->tint_rgb[2] = 255;
}

void rp_settings_defaults(rp_settings *s, enum rp_preset preset)
{
    if ((int)preset < 0 || preset > RP_PRESET_CODEPROJECT)
        preset = RP_PRESET_ROCKPOOL;
    const struct preset *p = &presets[preset];
    memset(s, 0, sizeof *s);
    s->width = 640;
    s->height = 480;
    s->time.fps = 30;
    s->time.duration.value = 10 * INT64_C(1000000);
    s->preset = preset;
    s->shape = p->shape;
    s->mode = p->mode;
    s->strength_milli = 1000;
    s->water = p->water;
    s->water.boundary = RP_BOUNDARY_WALL;
    s->look = p->look;
    s->sim = p->sim;
    /* Backgrounds of another aspect: the seed presets stretch them. */
    s->fit = preset == RP_PRESET_ROCKPOOL ? RP_FIT_COVER : RP_FIT_STRETCH;
    s->time.fps_den = 1;
    s->wall_rgb[0] = 138; /* a stone grey, #8a8578 */
    s->wall_rgb[1] = 133;
    s->wall_rgb[2] = 120;
    rp_light_defaults(&s->light);
}

void rp_settings_merge(rp_settings *dst, const rp_settings *src)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (src->set & fields[i].bit)
            memcpy((char *)dst + fields[i].offset, (const char *)src + fields[i].offset,
                   fields[i].size);
    if ((src->set & RP_SET_PRESET) && (int)src->preset >= 0 &&
        src->preset <= RP_PRESET_CODEPROJECT) {
        /* drop shape and mode have no setting of their own: they follow the preset */
        dst->shape = presets[src->preset].shape;
        dst->mode = presets[src->preset].mode;
    }
    dst->set |= src->set;
}

void rp_settings_resolve(rp_settings *out, const rp_settings *scene, const rp_settings *over)
{
    enum rp_preset preset = over && (over->set & RP_SET_PRESET) ? over->preset
                            : (scene->set & RP_SET_PRESET)      ? scene->preset
                                                                : RP_PRESET_ROCKPOOL;
    rp_settings_defaults(out, preset);
    rp_settings_merge(out, scene);
    if (over)
        rp_settings_merge(out, over);
    out->preset = preset;
    out->over = over ? over->set : 0;
}

int32_t rp_strength_caustics(int32_t caustics_q8, int32_t strength_milli)
{
    if (strength_milli <= 1000)
        return caustics_q8;
    int64_t s2 = (int64_t)strength_milli * strength_milli;
    return (int32_t)(((int64_t)caustics_q8 * 1000000 + s2 / 2) / s2);
}

int rp_preset_from_name(const char *name)
{
    for (int i = 0; name && i <= RP_PRESET_CODEPROJECT; i++)
        if (strcmp(name, presets[i].name) == 0)
            return i;
    return -1;
}

const char *rp_preset_name(enum rp_preset p)
{
    if ((int)p < 0 || p > RP_PRESET_CODEPROJECT)
        return "unknown";
    return presets[p].name;
}

/* FFmpeg's frame rate names (libavutil/parseutils.c). */
static const struct {
    const char *name;
    int num, den;
} fps_names[] = {
    {"ntsc", 30000, 1001},  {"pal", 25, 1},  {"qntsc", 30000, 1001}, {"qpal", 25, 1},
    {"sntsc", 30000, 1001}, {"spal", 25, 1}, {"film", 24, 1},        {"ntsc-film", 24000, 1001},
};

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int rp_fps_parse(const char *text, size_t len, int *num, int *den)
{
    int64_t n = 0, d = 1, q = 0, qd = 0;
    size_t i = 0;
    for (size_t k = 0; k < sizeof fps_names / sizeof fps_names[0]; k++)
        if (strlen(fps_names[k].name) == len && !strncmp(text, fps_names[k].name, len)) {
            *num = fps_names[k].num;
            *den = fps_names[k].den;
            return RP_OK;
        }
    /* digits [. digits] or digits / digits, every number at most 9 digits */
    for (; i < len && text[i] >= '0' && text[i] <= '9' && i < 9; i++)
        n = n * 10 + (text[i] - '0');
    if (i == 0)
        return RP_ERR_INVALID;
    if (i < len && text[i] == '/') {
        size_t j = ++i;
        for (d = 0; i < len && text[i] >= '0' && text[i] <= '9' && i - j < 9; i++)
            d = d * 10 + (text[i] - '0');
        if (i == j || i != len || d == 0)
            return RP_ERR_INVALID;
    } else if (i < len && text[i] == '.') {
        size_t j = ++i;
        for (; i < len && text[i] >= '0' && text[i] <= '9' && i - j < 6; i++) {
            n = n * 10 + (text[i] - '0');
            d *= 10;
        }
        if (i == j || i != len)
            return RP_ERR_INVALID;
        /* A decimal that is N*1000/1001 rounded to its digits (29.97, 23.976, 59.94,
         * 29.970) means that NTSC ratio, as video tools label it (FFmpeg's own -r reads
         * 29.97 as 2997/100); any other is itself (1.001 and 1000.009 are not 0.999 and
         * 1000). q: the nearest N, qd: N*1000/1001 to d, rounded half up. */
        q = (n * 1001 + d * 500) / (d * 1000);
        qd = (q * 1000 * d * 2 + 1001) / 2002;
        if (n % d != 0 && q > 0 && q % 1001 != 0 && qd == n) {
            n = q * 1000;
            d = 1001;
        }
    } else if (i != len) {
        return RP_ERR_INVALID;
    }
    int64_t g = gcd64(n, d);
    if (n == 0 || g == 0)
        return RP_ERR_INVALID;
    n /= g;
    d /= g;
    if (n > (int64_t)RP_FPS_MAX * d || n > INT32_MAX || d > INT32_MAX)
        return RP_ERR_INVALID;
    *num = (int)n;
    *den = (int)d;
    return RP_OK;
}

int rp_fit_from_name(const char *name, enum rp_fit *fit)
{
    static const char *const names[] = {"stretch", "cover", "contain"};

    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *fit = (enum rp_fit)i;
            return RP_OK;
        }
    return RP_ERR_INVALID;
}

const char *rp_fit_name(enum rp_fit fit)
{
    switch (fit) {
    case RP_FIT_STRETCH: return "stretch";
    case RP_FIT_COVER: return "cover";
    case RP_FIT_CONTAIN: return "contain";
    }
    return "?";
}
