/* settings_set.c - settings given one by one by name, as rockpool(1)'s options give them
 * (rpcore.h rp_settings_set, after x264_param_parse), times read as the options read them,
 * and the values settings hold for a display (rp_settings_get_info). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/diag.h"
#include "scene/clock.h"
#include "scene/scene.h"
#include "scene/scene_lex.h"
#include "scene/settings.h"

int rp_settings_new(rp_settings **settings, rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!settings)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "rp_settings_new: the settings pointer is NULL");
    if (!(*settings = malloc(sizeof **settings)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    rp_settings_defaults(*settings, RP_PRESET_ROCKPOOL);
    (*settings)->set = 0;
    return RP_OK;
}

static int invalid(rp_error *err, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int invalid(rp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rp_error_vset(err, RP_ERR_INVALID, 1, fmt, ap);
    va_end(ap);
    return RP_ERR_INVALID;
}

/* A decimal number as the options write one: digits, and with scale > 0 a point followed by
 * digits, at most `scale` of them before any trailing zeros (as a scene writes one: 1.0000
 * is 1), no sign, times 10^scale into *v. 0 when text is not one. */
static int unsigned_decimal(const char *text, size_t n, int scale, int64_t *v)
{
    const char *point = memchr(text, '.', n);
    size_t m = n;
    if (point)
        while (m > (size_t)(point - text) + 2 && text[m - 1] == '0')
            m--;
    int digits_around = n && text[0] >= '0' && text[0] <= '9' &&
                        (!point || (scale > 0 && point + 1 < text + n && point[1] >= '0' &&
                                    point[1] <= '9' && text + m - (point + 1) <= scale));
    return digits_around && rp_lex_decimal(text, m, scale, v) == NUM_OK;
}

/* A whole number as the options write one: digits (with signs, after an optional '-' or
 * '+'), at most INT64_MAX in size, into *v. 0 when text is not one. */
static int whole_number(const char *text, size_t n, int signs, int64_t *v)
{
    size_t i = signs && n && (text[0] == '-' || text[0] == '+');
    uint64_t m = 0;
    if (i == n)
        return 0;
    for (size_t k = i; k < n; k++) {
        if (text[k] < '0' || text[k] > '9' ||
            m > ((uint64_t)INT64_MAX - (uint64_t)(text[k] - '0')) / 10)
            return 0;
        m = m * 10 + (uint64_t)(text[k] - '0');
    }
    *v = i && text[0] == '-' ? -(int64_t)m : (int64_t)m;
    return 1;
}

/* "640x480": each side 1..RP_MAX_SIDE. */
static int set_size(rp_settings *s, const char *text, rp_error *err)
{
    const char *x = strpbrk(text, "xX");
    int64_t a = 0, b = 0;
    if (!x || !whole_number(text, (size_t)(x - text), 0, &a) ||
        !whole_number(x + 1, strlen(x + 1), 0, &b))
        return invalid(err, "'%s' is not WIDTHxHEIGHT", text);
    if (a < 1 || b < 1 || a > RP_MAX_SIDE || b > RP_MAX_SIDE)
        return invalid(err, "%s is out of range (1..%d per side)", text, RP_MAX_SIDE);
    s->out_width = (int)a;
    s->out_height = (int)b;
    s->set |= RP_SET_OUTPUT_SIZE;
    return RP_OK;
}

/* 0..2^64-1: decimal digits, or hexadecimal ones after 0x or 0X, as the scene's seed line
 * takes them (an optional '+' first), unsigned. */
static int set_seed(rp_settings *s, const char *text, rp_error *err)
{
    const char *p = text + (text[0] == '+');
    const int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    const unsigned base = hex ? 16 : 10;
    uint64_t v = 0;
    int bad = !*(p += hex ? 2 : 0);
    for (; !bad && *p; p++) {
        unsigned d = *p >= '0' && *p <= '9'          ? (unsigned)(*p - '0')
                     : hex && *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10)
                     : hex && *p >= 'A' && *p <= 'F' ? (unsigned)(*p - 'A' + 10)
                                                     : 16;
        bad = d >= base || v > (UINT64_MAX - d) / base;
        if (!bad)
            v = v * base + d;
    }
    if (bad)
        return invalid(
            err, "'%s' is not a whole number 0..%" PRIu64 " (decimal, or hexadecimal after 0x)",
            text, UINT64_MAX);
    s->seed = v;
    s->set |= RP_SET_SEED;
    return RP_OK;
}

static int set_fps(rp_settings *s, const char *text, rp_error *err)
{
    int64_t v;
    if (!rp_fps_parse(text, strlen(text), &s->time.fps, &s->time.fps_den)) {
        s->set |= RP_SET_FPS;
        return RP_OK;
    }
    /* a whole number first, as rockpool(1) has always read one */
    if (!whole_number(text, strlen(text), 1, &v))
        return invalid(err,
                       "'%s' is not a frame rate above 0 and at most %d like 30, 30000/1001, "
                       "29.97, ntsc, pal or film",
                       text, RP_FPS_MAX);
    if (v < 1 || v > RP_FPS_MAX)
        return invalid(err, "%s is out of range (above 0, at most %d)", text, RP_FPS_MAX);
    return invalid(err,
                   "'%s' is not a frame rate above 0 and at most %d like 30, 30000/1001, 29.97, "
                   "ntsc, pal or film",
                   text, RP_FPS_MAX);
}

static int set_duration(rp_settings *s, const char *name, const char *text, rp_error *err)
{
    int64_t v;
    int frames;
    if (!strcmp(name, "frames")) {
        if (!whole_number(text, strlen(text), 1, &v)) /* as -n reads it: not "1.0" */
            return invalid(err, "'%s' is not a whole number", text);
        if (v < 1 || v > RP_FRAMES_MAX) /* 0 frames is no timeline */
            return invalid(err, "%s is out of range (1..%" PRId64 ")", text, RP_FRAMES_MAX);
        frames = 1;
    } else if (rp_time_parse(text, 0, &v, &frames, err)) {
        return RP_ERR_INVALID;
    } else if (frames ? v > RP_FRAMES_MAX : v > RP_DURATION_MAX_US) {
        /* a time as the scene's `duration` takes it, frames as "frames" (-n) does */
        if (frames)
            return invalid(err, "%s is out of range (1f..%" PRId64 "f)", text, RP_FRAMES_MAX);
        return invalid(err, "%s is out of range (1us..%" PRId64 "s)", text,
                       RP_DURATION_MAX_US / 1000000);
    }
    s->time.duration = (rp_time){v, frames};
    s->set |= RP_SET_DURATION;
    return RP_OK;
}

int rp_settings_set(rp_settings *s, const char *name, const char *value, rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!s || !name || !value)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_settings_set: %s is NULL",
                            !s      ? "the settings"
                            : !name ? "the name"
                                    : "the value");
    if (!strcmp(name, "input")) {
        if (strlen(value) >= sizeof s->background)
            return invalid(err, "path too long");
        strcpy(s->background, value);
        s->set |= RP_SET_BACKGROUND;
    } else if (!strcmp(name, "size")) {
        return set_size(s, value, err);
    } else if (!strcmp(name, "preset")) {
        int p = rp_preset_from_name(value);
        if (p < 0)
            return invalid(err,
                           "unknown preset '%s' (expected rockpool, elias, applet, silverlight, "
                           "codeproject)",
                           value);
        /* The preset bit brings the preset's drop shape and mode (rp_settings_merge). */
        rp_settings d;
        rp_settings_defaults(&d, (enum rp_preset)p);
        s->preset = d.preset;
        s->shape = d.shape;
        s->mode = d.mode;
        s->set |= RP_SET_PRESET;
    } else if (!strcmp(name, "seed")) {
        return set_seed(s, value, err);
    } else if (!strcmp(name, "strength")) {
        int64_t v;
        if (!unsigned_decimal(value, strlen(value), 3, &v) || v > RP_STRENGTH_MAX)
            return invalid(err,
                           "'%s' is not a strength 0 to 4 with at most 3 decimals (1: the "
                           "heights as written)",
                           value);
        s->strength_milli = (int32_t)v;
        s->set |= RP_SET_STRENGTH;
    } else if (!strcmp(name, "fit")) {
        enum rp_fit fit;
        if (rp_fit_from_name(value, &fit))
            return invalid(err, "unknown fit '%s' (expected stretch, cover, contain)", value);
        s->fit = fit;
        s->set |= RP_SET_FIT;
    } else if (!strcmp(name, "fps")) {
        return set_fps(s, value, err);
    } else if (!strcmp(name, "frames") || !strcmp(name, "duration")) {
        return set_duration(s, name, value, err);
    } else {
        return invalid(err, "no setting is named '%s'", name);
    }
    return RP_OK;
}

int rp_time_parse(const char *text, int bare_frames, int64_t *value, int *is_frames, rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!text || !value || !is_frames)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_time_parse: %s is NULL",
                            !text    ? "the text"
                            : !value ? "the value"
                                     : "is_frames");
    const char *p = text;
    int64_t whole = 0, frac = 0, frac_scale = 1, clock = 0;
    int digits = 0, decimals = 0, colons = 0;
    /* FFmpeg's [HH:]MM:SS[.m...], a time also where a bare number is a frame: minutes 0..59
     * after hours */
    for (const char *c = text; (c = strchr(c, ':')); c++) {
        int64_t v = 0;
        if (p == c || ++colons > 2)
            goto bad;
        for (; p < c; p++) {
            if (*p < '0' || *p > '9' || v > 1000000)
                goto bad;
            v = v * 10 + (*p - '0');
        }
        if (colons == 2 && v > 59)
            goto bad;
        clock = (clock + v) * 60;
        p = c + 1;
    }
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (whole > (INT64_MAX - 9) / 10)
            goto bad;
        whole = whole * 10 + (*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, decimals++, digits++) {
            if (decimals >= 6)
                goto bad;
            frac = frac * 10 + (*p - '0');
            frac_scale *= 10;
        }
    if (!digits)
        goto bad;
    int64_t unit; /* microseconds per unit; 0: frames */
    if (colons && (*p || whole > 59))
        goto bad;
    if (!*p)
        unit = bare_frames && !colons ? 0 : 1000000;
    else if (!strcmp(p, "s"))
        unit = 1000000;
    else if (!strcmp(p, "ms"))
        unit = 1000;
    else if (!strcmp(p, "us"))
        unit = 1;
    else if (!strcmp(p, "f"))
        unit = 0;
    else
        goto bad;
    if (!unit) {
        if (decimals)
            return invalid(err, "'%s': a frame number is a whole number", text);
        *value = whole;
        *is_frames = 1;
        return RP_OK;
    }
    if (frac * unit % frac_scale)
        return invalid(err, "'%s' is finer than a microsecond", text);
    whole += clock;
    if (whole > INT64_MAX / 1000000 / 1000)
        goto bad;
    *value = whole * unit + frac * unit / frac_scale;
    *is_frames = 0;
    return RP_OK;
bad:
    return invalid(err, "'%s' is not a %s like 2s, 1.5s or 500ms (or HH:MM:SS)", text,
                   bare_frames ? "whole number or a time" : "time");
}

void rp_settings_get_info(const rp_settings *s, rp_settings_info *info)
{
    rp_settings defaults;
    if (!info)
        return;
    if (!s) { /* nothing given: the rockpool preset's defaults, as for settings unresolved */
        rp_settings_defaults(&defaults, RP_PRESET_ROCKPOOL);
        defaults.set = 0;
        s = &defaults;
    }
    memset(info, 0, sizeof *info);
    info->width = s->width;
    info->height = s->height;
    info->out_width = s->out_width;
    info->out_height = s->out_height;
    info->fps = s->time.fps;
    info->fps_den = s->time.fps_den;
    info->preset = rp_preset_name(s->preset);
    info->seed = s->seed;
    info->grid_w = s->water.width;
    info->grid_h = s->water.height;
    info->rate = s->time.rate;
    info->viscosity_q16 = s->water.viscosity_q16;
    info->background = s->background;
    info->sky = s->sky_image;
    info->light = s->look.mode == RP_RENDER_LIGHT;
    info->fit = s->fit;
    info->strength_milli = s->strength_milli;
    info->background_end = s->background_end;
    info->duration_background = s->time.duration_background;
    info->look_water = s->light.model == RP_LIGHT_WATER;
    info->walls_visible = s->walls_visible == RP_WALLS_IMAGE    ? 2
                          : s->walls_visible == RP_WALLS_HIDDEN ? 0
                                                                : 1;
    /* steps a second / slowness, in cells, scaled to scene pixels */
    if (s->water.width > 0) {
        double steps_per_s = s->time.rate ? s->time.rate : (double)s->time.fps / s->time.fps_den;
        info->speed = steps_per_s * 65536.0 / (double)rp_stencil_slowness_q16(s->water.stencil) *
                      s->width / s->water.width;
    }
}

int rp_settings_given(const rp_settings *s, const char *name)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {
        {"input", RP_SET_BACKGROUND},
        {"background", RP_SET_BACKGROUND},
        {"size", RP_SET_SIZE | RP_SET_OUTPUT_SIZE},
        {"preset", RP_SET_PRESET},
        {"seed", RP_SET_SEED},
        {"strength", RP_SET_STRENGTH},
        {"fit", RP_SET_FIT},
        {"fps", RP_SET_FPS},
        {"frames", RP_SET_DURATION},
        {"duration", RP_SET_DURATION},
        {"render", RP_SET_RENDER},
        {"look", RP_SET_LOOK},
    };
    for (size_t i = 0; s && name && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name))
            return (s->set & names[i].bits) != 0;
    return 0;
}

int rp_settings_copy(rp_settings **copy, const rp_settings *s, rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!copy || !s)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_settings_copy: %s is NULL",
                            !copy ? "the copy pointer" : "the settings");
    if (!(*copy = malloc(sizeof **copy)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    **copy = *s;
    return RP_OK;
}

int rp_settings_merged(rp_settings **merged, const rp_scene *scene, const rp_settings *over,
                       rp_error *err)
{
    rp_error scratch;
    err = err ? err : &scratch;
    if (!merged || !scene)
        return rp_error_set(err, RP_ERR_INVALID, 1, "rp_settings_merged: %s is NULL",
                            !merged ? "the settings pointer" : "the scene");
    if (!(*merged = malloc(sizeof **merged)))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    rp_settings_resolve(*merged, rp_scene_settings(scene), over);
    return RP_OK;
}
