/* settings.c - presets and the merging of settings (see settings.h). */
#include "settings.h"

#include <stddef.h>
#include <string.h>

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
    FIELD(RP_SET_SEED, seed),
    FIELD(RP_SET_PRESET, preset),
    FIELD(RP_SET_PRESET, shape),
    FIELD(RP_SET_PRESET, mode),
    FIELD(RP_SET_BACKGROUND, background),
    FIELD(RP_SET_DAMPING, water.damping_shift),
    FIELD(RP_SET_DAMPING, water.damping_q16),
    FIELD(RP_SET_STENCIL, water.stencil),
    FIELD(RP_SET_BOUNDARY, water.boundary),
    FIELD(RP_SET_REFRACTION, look.refraction),
    FIELD(RP_SET_SHADING, look.shading),
    FIELD(RP_SET_LIGHT, look.light_x),
    FIELD(RP_SET_LIGHT, look.light_y),
    FIELD(RP_SET_RENDER, look.mode),
};

/* The presets: one per seed text, reproduced exactly, and the house style. */
static const struct preset {
    const char *name;
    rp_water_params water;
    rp_render_params look;
    enum rp_shape shape;
    enum rp_mode mode;
} presets[] = {
    [RP_PRESET_ROCKPOOL] = {"rockpool",
                            {.stencil = RP_STENCIL_ISO, .damping_shift = 7},
                            {RP_RENDER_OFFSET, 2, 1, -1, 4},
                            RP_SHAPE_COSINE,
                            RP_MODE_ADD},
    /* Elias: 4 neighbours, h -= h >> 5, offset render with shading = dx. */
    [RP_PRESET_ELIAS] = {"elias",
                         {.stencil = RP_STENCIL_4, .damping_shift = 5},
                         {RP_RENDER_OFFSET, 0, 1, 0, 1},
                         RP_SHAPE_DISC,
                         RP_MODE_ADD},
    /* The Java applet: lens refraction, no shading, square drops. */
    [RP_PRESET_APPLET] = {"applet",
                          {.stencil = RP_STENCIL_4, .damping_shift = 5},
                          {RP_RENDER_LENS, 0, 1, -1, 0},
                          RP_SHAPE_SQUARE,
                          RP_MODE_ADD},
    /* Silverlight: damping 0.94 = round(0.94 * 65536) / 65536, shading (dx - dy) / 2. */
    [RP_PRESET_SILVERLIGHT] = {"silverlight",
                               {.stencil = RP_STENCIL_4, .damping_q16 = 61604},
                               {RP_RENDER_OFFSET, 0, 1, -1, 2},
                               RP_SHAPE_SPLASH,
                               RP_MODE_ADD},
    /* CodeProject: 8 neighbours >> 2, offsets >> 3, cosine drops that replace. */
    [RP_PRESET_CODEPROJECT] = {"codeproject",
                               {.stencil = RP_STENCIL_8, .damping_shift = 5},
                               {RP_RENDER_OFFSET, 3, 1, -1, 0},
                               RP_SHAPE_COSINE,
                               RP_MODE_SET},
};

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
    s->water = p->water;
    s->water.boundary = RP_BOUNDARY_WALL;
    s->look = p->look;
}

void rp_settings_merge(rp_settings *dst, const rp_settings *src)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (src->set & fields[i].bit)
            memcpy((char *)dst + fields[i].offset, (const char *)src + fields[i].offset,
                   fields[i].size);
    dst->set |= src->set;
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
