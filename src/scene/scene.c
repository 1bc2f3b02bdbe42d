/* scene.c - the scene language's statements (rockpool-scene(5)): a line-by-line parser
 * from UTF-8 text to validated settings and events, with 1-based line/column
 * diagnostics. Words, numbers, times and coordinates are read by scene_lex.c; the
 * settings model and presets are settings.c; the timeline that expands the events into
 * per-frame items is events.c. */
#include "scene/scene.h"
#include "scene/scene_lex.h"
#include "base/common.h"
#include "base/diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_scene {
    rp_settings settings;
    rp_scene_stats stats;
    char *text; /* a copy of the scene text, NUL-terminated; events point in */
    size_t text_len;
    rp_event *events;
    size_t n_events, cap_events;
    size_t path_bytes;                     /* the events' mask paths */
    char name[512];                        /* for diagnostics: the path, "<stdin>" or "<scene>" */
    int is_file;                           /* name is a file's path */
    rp_diag outside_bg, outside_mask;      /* paths reaching outside its directory; line 0: none */
    rp_diag sky_at;                        /* where `sky PATH` names its image; line 0: none */
    rp_diag background_at;                 /* where `background PATH` names it; line 0: none */
    rp_diag render_at, look_at, preset_at; /* the last such statements; line 0: none */
    rp_path *paths;
    int n_paths, cap_paths;
    rp_keys keys[RP_KEY_KINDS]; /* n == 0: not keyed */
    rp_diag keys_at[RP_KEY_KINDS];
    /* where each setting is given, by RP_SET_ bit index (line 0: not given): its line (the
     * text's bytes from `at`, len long), the columns of its keyword and of its first value,
     * for errors found once a run's settings are resolved (rp_scene_setting_at) */
    struct {
        int line, col, value_col;
        size_t at, len;
    } set_at[RP_SET_BITS];
};

int rp_scene_find_path(const rp_scene *sc, const char *name, size_t n)
{
    for (int i = 0; i < sc->n_paths; i++)
        if (strlen(sc->paths[i].name) == n && !memcmp(sc->paths[i].name, name, n))
            return i + 1;
    return 0;
}

int rp_scene_add_path(rp_scene *sc, const rp_path *p)
{
    if (sc->n_paths >= RP_SCENE_PATHS_MAX)
        return RP_ERR_TOO_LARGE;
    if (sc->n_paths == sc->cap_paths) {
        int cap = sc->cap_paths ? 2 * sc->cap_paths : 4;
        cap = cap < RP_SCENE_PATHS_MAX ? cap : RP_SCENE_PATHS_MAX;
        rp_path *np = realloc(sc->paths, (size_t)cap * sizeof *np);
        if (!np)
            return RP_ERR_NOMEM;
        sc->paths = np;
        sc->cap_paths = cap;
    }
    sc->paths[sc->n_paths++] = *p;
    return RP_OK;
}

rp_keys *rp_scene_keys_slot(rp_scene *sc, enum rp_key_what what, rp_diag **at)
{
    *at = &sc->keys_at[what];
    return &sc->keys[what];
}

const rp_path *rp_scene_path(const rp_scene *scene, int i)
{
    return i >= 1 && i <= scene->n_paths ? &scene->paths[i - 1] : NULL;
}

const rp_keys *rp_scene_keys(const rp_scene *scene, enum rp_key_what what)
{
    return scene->keys[what].n ? &scene->keys[what] : NULL;
}

const rp_diag *rp_scene_keys_at(const rp_scene *scene, enum rp_key_what what)
{
    return &scene->keys_at[what];
}

static const char *const shape_names[] = {"disc", "square", "cosine", "splash", "smooth"};
static const enum rp_shape shape_values[] = {RP_SHAPE_DISC, RP_SHAPE_SQUARE, RP_SHAPE_COSINE,
                                             RP_SHAPE_SPLASH, RP_SHAPE_SMOOTH};

/* ---- settings ------------------------------------------------------------------------- */

static int set_size(parser *ps, tok kw)
{
    tok t;
    part w, h;
    char b[64];
    int64_t vw, vh;
    int ret = rp_lex_want_word(ps, "a size like 640x480", "size", &t);

    (void)kw;
    if (ret)
        return ret;
    if (!rp_lex_split(ps, rp_lex_whole(t), "x", &w, &h))
        return rp_lex_fail(ps, t.col, "expected a size like 640x480 after 'size', got '%s'",
                           SHOW(t, b));
    if ((ret = rp_lex_int_part(ps, w, "width", 1, RP_MAX_SIDE, &vw)) ||
        (ret = rp_lex_int_part(ps, h, "height", 1, RP_MAX_SIDE, &vh)))
        return ret;
    ps->given.width = (int)vw;
    ps->given.height = (int)vh;
    return rp_lex_want_end(ps, "the size");
}

static int set_fps(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret = rp_lex_want_word(ps, "a frame rate like 30, 30000/1001, 29.97 or ntsc", "fps", &t);

    (void)kw;
    if (ret)
        return ret;
    /* a scene's number may have a sign (rp_fps_parse, as -r reads a rate, takes none) */
    const int plus = t.n > 1 && t.s[0] == '+' && t.s[1] >= '0' && t.s[1] <= '9';
    int64_t whole;
    int bad =
        rp_fps_parse(t.s + plus, t.n - (size_t)plus, &ps->given.time.fps, &ps->given.time.fps_den);
    if (bad && rp_lex_decimal(t.s, t.n, 0, &whole) == NUM_OK && (whole < 1 || whole > RP_FPS_MAX))
        return rp_lex_fail(ps, t.col, "fps %s is out of range (above 0, at most %d)", SHOW(t, b),
                           RP_FPS_MAX);
    if (bad)
        return rp_lex_fail(ps, t.col,
                           "frame rate '%s' is not a rate above 0 and at most %d like 30, "
                           "30000/1001, 29.97, ntsc, pal or film",
                           SHOW(t, b), RP_FPS_MAX);
    return rp_lex_want_end(ps, "the frame rate");
}

/* A decimal word in lo..hi (in units of 10^-scale), named `what` in messages, which give
 * the range as `range` says. */
static int want_decimal(parser *ps, const char *after, const char *what, int scale, int64_t lo,
                        int64_t hi, const char *range, int64_t *out, tok *word)
{
    char b[64];
    int ret = rp_lex_want_word(ps, what, after, word);
    if (ret)
        return ret;
    int r = rp_lex_decimal(word->s, word->n, scale, out);
    if (r == NUM_SYNTAX)
        return rp_lex_fail(ps, word->col, "expected %s after '%s', got '%s'", what, after,
                           SHOW(*word, b));
    if (r == NUM_PRECISION)
        return rp_lex_fail(ps, word->col, "%s %s has more than %d decimals", what, SHOW(*word, b),
                           scale);
    if (r != NUM_OK || *out < lo || *out > hi)
        return rp_lex_fail(ps, word->col, "%s %s is out of range (%s)", what, SHOW(*word, b),
                           range);
    return RP_OK;
}

static int set_rate(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int64_t v;
    int ret = rp_lex_want_word(ps, "a whole number of steps per second or 'frame'", "rate", &t);

    (void)kw;
    if (ret)
        return ret;
    if (rp_lex_is(t, "frame")) {
        ps->given.time.rate = 0;
    } else {
        if (rp_lex_decimal(t.s, t.n, 0, &v) != NUM_OK || v < 1 || v > RP_RATE_MAX)
            return rp_lex_fail(ps, t.col,
                               "rate '%s' is not a whole number of steps per second in 1..%d "
                               "(or 'frame': one step per frame)",
                               SHOW(t, b), RP_RATE_MAX);
        ps->given.time.rate = (int)v;
    }
    return rp_lex_want_end(ps, "the rate");
}

static int set_grid(parser *ps, tok kw)
{
    tok t;
    part w, h;
    char b[64];
    int64_t vw, vh;
    int ret = rp_lex_want_word(ps, "a grid like 640x360 or 50%", "grid", &t);

    (void)kw;
    if (ret)
        return ret;
    rp_sim_settings *sim = &ps->given.sim;
    sim->grid_w = sim->grid_h = 0;
    sim->grid_pct = 0;
    if (t.n > 1 && t.s[t.n - 1] == '%') {
        int r = rp_lex_decimal(t.s, t.n - 1, 6, &sim->grid_pct);
        if (r != NUM_OK || sim->grid_pct <= 0 || sim->grid_pct > 100 * INT64_C(1000000))
            return rp_lex_fail(ps, t.col, "grid %s is not a percentage above 0 and at most 100",
                               SHOW(t, b));
    } else {
        if (!rp_lex_split(ps, rp_lex_whole(t), "x", &w, &h))
            return rp_lex_fail(ps, t.col,
                               "expected a grid like 640x360 or 50%% after 'grid', "
                               "got '%s'",
                               SHOW(t, b));
        if ((ret = rp_lex_int_part(ps, w, "grid width", 16, RP_MAX_SIDE, &vw)) ||
            (ret = rp_lex_int_part(ps, h, "grid height", 16, RP_MAX_SIDE, &vh)))
            return ret;
        sim->grid_w = (int)vw;
        sim->grid_h = (int)vh;
    }
    return rp_lex_want_end(ps, "the grid");
}

static int set_speed(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret = rp_lex_want_word(ps, "a speed like 120 (pixels per second) or 20%/s", "speed", &t);

    (void)kw;
    if (ret)
        return ret;
    rp_sim_settings *sim = &ps->given.sim;
    size_t n = t.n;
    sim->speed_pct = n > 3 && !memcmp(t.s + n - 3, "%/s", 3);
    if (sim->speed_pct)
        n -= 3;
    else if (n > 4 && !memcmp(t.s + n - 4, "px/s", 4))
        n -= 4;
    int r = rp_lex_decimal(t.s, n, sim->speed_pct ? 6 : 3, &sim->speed);
    int64_t max = sim->speed_pct ? 1000 * INT64_C(1000000) : 100000 * INT64_C(1000);
    if (r != NUM_OK || sim->speed <= 0 || sim->speed > max)
        return rp_lex_fail(ps, t.col,
                           "speed '%s' is not a speed above 0 like 120 (scene pixels per "
                           "second, at most 100000) or 20%%/s (of the width, at most 1000%%/s)",
                           SHOW(t, b));
    return rp_lex_want_end(ps, "the speed");
}

/* A time in seconds (not frames) above 0 for `what`. */
static int want_seconds(parser *ps, const char *what, int64_t *us)
{
    tok t;
    char b[64];
    rp_time v;
    int ret = rp_lex_want_word(ps, "a time like 1.5s or 800ms", what, &t);
    if (ret || (ret = rp_lex_time_part(ps, rp_lex_whole(t), &v)))
        return ret;
    if (v.is_frames || v.value <= 0)
        return rp_lex_fail(ps, t.col,
                           "%s %s must be a time above 0 in seconds, like 1.5s or "
                           "800ms",
                           what, SHOW(t, b));
    *us = v.value;
    return RP_OK;
}

static int set_fade(parser *ps, tok kw)
{
    int ret = want_seconds(ps, "fade", &ps->given.sim.fade_us);
    (void)kw;
    return ret ? ret : rp_lex_want_end(ps, "the fade");
}

static int set_preroll(parser *ps, tok kw)
{
    int64_t us = 0;
    int ret = want_seconds(ps, "preroll", &us);
    (void)kw;
    if (ret)
        return ret;
    ps->given.time.preroll.value = us;
    ps->given.time.preroll.is_frames = 0;
    return rp_lex_want_end(ps, "the preroll");
}

static int set_specular(parser *ps, tok kw)
{
    tok t;
    int64_t strength, shininess;
    int ret;

    (void)kw;
    if ((ret = want_decimal(ps, "specular", "specular strength", 3, 0, 64000, "0 to 64", &strength,
                            &t)) ||
        (ret = rp_lex_want_int(ps, "specular", "shininess", 1, 1024, &shininess)))
        return ret;
    ps->given.light.specular_q8 = (int32_t)(strength * 256 / 1000);
    ps->given.light.shininess = (int32_t)shininess;
    return rp_lex_want_end(ps, "the specular light");
}

static int set_caustics(parser *ps, tok kw)
{
    tok t;
    int64_t v;
    int ret = want_decimal(ps, "caustics", "caustics strength", 3, 0, 64000, "0 to 64", &v, &t);
    (void)kw;
    if (ret)
        return ret;
    ps->given.light.caustics_q8 = (int32_t)(v * 256 / 1000);
    return rp_lex_want_end(ps, "the caustics");
}

/* "0xRRGGBB" or "#RRGGBB" (a colour word, rp_lex_next) -> rgb; 0 on success. */
static int hex_colour(tok t, uint8_t rgb[3])
{
    int hash = t.n == 7 && t.s[0] == '#';
    if (!hash && (t.n != 8 || t.s[0] != '0' || (t.s[1] != 'x' && t.s[1] != 'X')))
        return -1;
    for (int i = 0; i < 6; i++) {
        char c = t.s[2 - hash + i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        rgb[i / 2] = (uint8_t)(i % 2 ? rgb[i / 2] * 16 + d : d);
    }
    return 0;
}

/* A decimal with up to `places` decimals in lo..hi (in units of 10^-places), with an error
 * that names the range in the unit (e.g. "depth 0 is out of range (0.004 to 256 cells)"). */
static int want_ranged(parser *ps, const char *after, const char *what, int places, int64_t lo,
                       int64_t hi, const char *range, int64_t *v)
{
    tok t;
    char b[64];
    int ret = want_decimal(ps, after, what, places, INT64_MIN, INT64_MAX, range, v, &t);
    if (ret)
        return ret;
    if (*v < lo || *v > hi)
        return rp_lex_fail(ps, t.col, "%s %s is out of range (%s)", what, SHOW(t, b), range);
    return RP_OK;
}

/* `strength X`: every drop's height times X (settings.h RP_STRENGTH_MAX). */
static int set_strength(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_ranged(ps, "strength", "strength", 3, 0, RP_STRENGTH_MAX, "0 to 4", &v);
    (void)kw;
    if (ret)
        return ret;
    ps->given.strength_milli = (int32_t)v;
    return rp_lex_want_end(ps, "the strength");
}

/* `depth D`: the water over the picture, in grid cells (render light, look water). */
static int set_depth(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_ranged(ps, "depth", "depth", 3, 4, 256000, "0.004 to 256 cells", &v);
    (void)kw;
    if (ret)
        return ret;
    ps->given.light.depth_q8 = (int32_t)((v * 256 + 500) / 1000);
    return rp_lex_want_end(ps, "the depth");
}

/* `sun D`: the sun's angular diameter in degrees (its direction is `light A E`). */
static int set_sun(parser *ps, tok kw)
{
    int64_t v;
    int ret = want_ranged(ps, "sun", "sun size", 3, 100, 20000, "0.1 to 20 degrees", &v);
    (void)kw;
    if (ret)
        return ret;
    ps->given.light.sun_size_mdeg = (int32_t)v;
    return rp_lex_want_end(ps, "the sun");
}

/* `tint 0xRRGGBB`: the colour a white bed takes under the water's depth. */
static int set_tint(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret = rp_lex_want_word(ps, "a colour like #c0e0f0 or 0xc0e0f0", "tint", &t);
    (void)kw;
    if (ret)
        return ret;
    if (hex_colour(t, ps->given.light.tint_rgb))
        return rp_lex_fail(ps, t.col,
                           "expected a colour like #c0e0f0 or 0xc0e0f0 after 'tint', got '%s'",
                           SHOW(t, b));
    return rp_lex_want_end(ps, "the tint");
}

/* `look water|layer`: render light's model (light.h). */
static int set_look(parser *ps, tok kw)
{
    static const char *const names[] = {"layer", "water"};
    int i, ret = rp_lex_want_choice(ps, "look", names, 2, "water or layer", &i);
    (void)kw;
    if (ret)
        return ret;
    ps->given.light.model = i ? RP_LIGHT_WATER : RP_LIGHT_LAYER;
    /* the layer model's slopes are eight times the water's for the same heights */
    ps->given.light.height_scale = i ? RP_LIGHT_WATER_HEIGHT_SCALE : RP_LIGHT_LAYER_HEIGHT_SCALE;
    rp_lex_note(ps, &ps->look_at, kw.col, "look");
    return rp_lex_want_end(ps, "the look");
}

/* `sky 0xRRGGBB [STRENGTH [flat]]` or `sky PATH [STRENGTH [flat]]`: a bare word starting with 0x is
 * a colour (so a mistyped colour is not taken for a file), anything else a path. */
static int set_sky(parser *ps, tok kw)
{
    tok t, s;
    char b[64];
    int64_t v = 1000;
    const char *at = ps->p;
    int col = ps->col, end_col = ps->end_col;
    int ret =
        rp_lex_want_word(ps, "a colour like #c8dcff or 0xc8dcff, or an image's path", "sky", &t);

    (void)kw;
    if (ret)
        return ret;
    ps->given.sky_image[0] = '\0';
    memset(&ps->sky_at, 0, sizeof ps->sky_at);
    if (t.s[0] == '#' || (t.n >= 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X'))) {
        if (hex_colour(t, ps->given.light.sky_rgb))
            return rp_lex_fail(ps, t.col,
                               "expected a colour like 0xc8dcff after 'sky', got '%s' (quote an "
                               "image's path that starts with 0x)",
                               SHOW(t, b));
    } else {
        /* read the word again as a path; remember where it is for errors in the image */
        ps->p = at;
        ps->col = col;
        ps->end_col = end_col;
        if ((ret = rp_lex_want_path(ps, "sky", ps->given.sky_image, sizeof ps->given.sky_image,
                                    NULL)))
            return ret;
        rp_lex_note(ps, &ps->sky_at, t.col, "sky image");
    }
    if ((ret = rp_lex_next(ps, &s)))
        return ret;
    ps->given.light.sky_flat = 0;
    if (s.s) { /* an optional strength: a multiplier of the Fresnel reflection */
        int r = rp_lex_decimal(s.s, s.n, 3, &v);
        if (r != NUM_OK || v < 0 || v > 16000)
            return rp_lex_fail(ps, s.col, "sky strength %s is out of range (0 to 16)", SHOW(s, b));
        /* then optionally `flat`: look water reflects flat water's own 2% too */
        const char *at2 = ps->p;
        int col2 = ps->col;
        if ((ret = rp_lex_next(ps, &s)))
            return ret;
        if (s.s && rp_lex_is(s, "flat")) {
            ps->given.light.sky_flat = 1;
        } else {
            ps->p = at2;
            ps->col = col2;
        }
    }
    ps->given.light.sky_q8 = (int32_t)(v * 256 / 1000);
    return rp_lex_want_end(ps, "the sky");
}

/* `duration TIME`, or `duration background [or TIME]`: a video background's length, else
 * TIME (default 10 s). */
static int set_duration(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret =
        rp_lex_want_word(ps, "a time like 10s, 2500ms or 300f, or background", "duration", &t);

    (void)kw;
    if (ret)
        return ret;
    ps->given.time.duration_background = rp_lex_is(t, "background");
    if (ps->given.time.duration_background) {
        ps->given.time.duration = (rp_time){10 * INT64_C(1000000), 0};
        if ((ret = rp_lex_next(ps, &t)) || !t.s)
            return ret;
        if (!rp_lex_is(t, "or"))
            return rp_lex_fail(ps, t.col,
                               "unexpected '%s' after 'duration background' (the length over a "
                               "still is written 'duration background or 4s')",
                               SHOW(t, b));
        if ((ret = rp_lex_want_word(ps, "a time like 4s", "or", &t)))
            return ret;
    }
    if ((ret = rp_lex_duration_part(ps, rp_lex_whole(t), &ps->given.time.duration)))
        return ret;
    if (ps->given.time.duration.value == 0)
        return rp_lex_fail(ps, t.col, "duration %s is empty (it must be above 0)", SHOW(t, b));
    /* in frames, the timeline's limit (rpcore.h, as -n and the setting "frames") */
    if (ps->given.time.duration.is_frames && ps->given.time.duration.value > RP_FRAMES_MAX)
        return rp_lex_fail(ps, t.col, "duration %s is out of range (1f..%" PRId64 "f, as -n)",
                           SHOW(t, b), RP_FRAMES_MAX);
    return rp_lex_want_end(ps, "the duration");
}

static int set_seed(parser *ps, tok kw)
{
    tok t;
    char b[64];
    uint64_t v = 0;
    size_t i = 0;
    int hex, digits = 0, ret = rp_lex_want_word(ps, "a number", "seed", &t);

    (void)kw;
    if (ret)
        return ret;
    i = t.n > 1 && t.s[0] == '+'; /* a sign, as every number of a scene may have */
    hex = t.n > i + 2 && t.s[i] == '0' && (t.s[i + 1] == 'x' || t.s[i + 1] == 'X');
    for (i += hex ? 2 : 0; i < t.n; i++) {
        char c = t.s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else if (c == '-' && i == 0)
            return rp_lex_fail(ps, t.col, "seed %s is out of range (0..18446744073709551615)",
                               SHOW(t, b));
        else
            return rp_lex_fail(ps, t.col, "expected a number after 'seed', got '%s'", SHOW(t, b));
        if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
            return rp_lex_fail(ps, t.col, "seed %s is out of range (0..18446744073709551615)",
                               SHOW(t, b));
        v = v * (hex ? 16 : 10) + d;
        digits++;
    }
    if (!digits)
        return rp_lex_fail(ps, t.col, "expected a number after 'seed', got '%s'", SHOW(t, b));
    ps->given.seed = v;
    return rp_lex_want_end(ps, "the seed");
}

static int set_preset(parser *ps, tok kw)
{
    tok t;
    char b[64];
    rp_settings d;
    int p, ret = rp_lex_want_word(ps, "a preset name", "preset", &t);

    (void)kw;
    if (ret)
        return ret;
    for (p = 0; p <= RP_PRESET_CODEPROJECT; p++)
        if (rp_lex_is(t, rp_preset_name((enum rp_preset)p)))
            break;
    if (p > RP_PRESET_CODEPROJECT)
        return rp_lex_fail(ps, t.col,
                           "unknown preset '%s' (expected elias, applet, silverlight, codeproject, "
                           "rockpool)",
                           SHOW(t, b));
    rp_settings_defaults(&d, (enum rp_preset)p);
    ps->given.preset = (enum rp_preset)p;
    ps->given.shape = d.shape;
    ps->given.mode = d.mode;
    rp_lex_note(ps, &ps->preset_at, kw.col, "preset");
    return rp_lex_want_end(ps, "the preset");
}

/* background PATH [hold|loop]: an image, or a video shown frame by frame; past a video's
 * end its last frame (hold, the default) or the video again (loop). */
static int set_background(parser *ps, tok kw)
{
    tok t;
    char b[64];
    const char *save = ps->p;
    int save_col = ps->col, ret = rp_lex_next(ps, &t);
    if (!ret && t.s)
        rp_lex_note(ps, &ps->background_at, t.col, "background");
    ps->p = save;
    ps->col = save_col;
    ret =
        rp_lex_want_path(ps, "background", ps->given.background, sizeof ps->given.background, NULL);
    (void)kw;
    if (ret || (ret = rp_lex_next(ps, &t)))
        return ret;
    ps->given.background_end = RP_VIDEO_HOLD;
    if (!t.s)
        return RP_OK;
    if (rp_lex_is(t, "loop"))
        ps->given.background_end = RP_VIDEO_LOOP;
    else if (!rp_lex_is(t, "hold"))
        return rp_lex_fail(ps, t.col,
                           "unexpected '%s' after the path (expected hold or loop; quote a path "
                           "with spaces or '#')",
                           SHOW(t, b));
    return rp_lex_want_end(ps, "the background's hold or loop");
}

/* Damping: "shift N" (1..30) or a factor f in (0, 1], Q16 = round(f * 65536) computed
 * exactly from the decimal digits (halves round up). Returns NUM_* like rp_lex_decimal(), or -1
 * when the factor is out of range (q16 is then left 0). */
static int damping_factor(const char *s, size_t n, int32_t *q16)
{
    int64_t v = 0;
    int r = rp_lex_decimal(s, n, 18, &v); /* f * 10^18 */
    unsigned __int128 q;

    if (r != NUM_OK)
        return r;
    if (v <= 0 || v > INT64_C(1000000000000000000))
        return -1;
    q = ((unsigned __int128)v * 131072u + UINT64_C(1000000000000000000)) /
        UINT64_C(2000000000000000000);
    *q16 = (int32_t)q;
    return NUM_OK;
}

static int set_damping(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int64_t shift;
    int32_t q = 0;
    rp_diag *at;
    int r, ret = rp_lex_want_word(ps, "'shift N' or a factor like 0.94", "damping", &t);

    if (ret)
        return ret;
    if (rp_scene_keys_slot(ps->sc, RP_KEY_FADE, &at)->n)
        return rp_lex_fail(ps, kw.col,
                           "damping and key fade (on line %d) are both given: fade sets the "
                           "damping, give one",
                           at->line);
    if (rp_lex_is(t, "shift")) {
        if ((ret = rp_lex_want_int(ps, "shift", "damping shift", 1, 30, &shift)))
            return ret;
        ps->given.water.damping_shift = (int)shift;
        ps->given.water.damping_q16 = 0;
        return rp_lex_want_end(ps, "the damping");
    }
    r = damping_factor(t.s, t.n, &q);
    if (r == NUM_SYNTAX)
        return rp_lex_fail(ps, t.col,
                           "expected 'shift N' or a factor like 0.94 after 'damping', got "
                           "'%s'",
                           SHOW(t, b));
    if (r == NUM_PRECISION)
        return rp_lex_fail(ps, t.col, "damping factor %s has more than 18 decimals", SHOW(t, b));
    if (r != NUM_OK)
        return rp_lex_fail(ps, t.col, "damping factor %s is out of range (above 0, at most 1%s)",
                           SHOW(t, b),
                           memchr(t.s, '.', t.n) ? "" : "; for a shift write 'shift N'");
    if (q == 0)
        return rp_lex_fail(
            ps, t.col, "damping factor %s rounds to 0 in Q16 (the smallest is 0.00000762939453125)",
            SHOW(t, b));
    ps->given.water.damping_q16 = q;
    ps->given.water.damping_shift = 0;
    return rp_lex_want_end(ps, "the damping");
}

static int set_stencil(parser *ps, tok kw)
{
    static const char *const names[] = {"4", "8", "iso"};
    static const enum rp_stencil values[] = {RP_STENCIL_4, RP_STENCIL_8, RP_STENCIL_ISO};
    int i, ret = rp_lex_want_choice(ps, "stencil", names, 3, "4, 8 or iso", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.water.stencil = values[i];
    return rp_lex_want_end(ps, "the stencil");
}

static int set_boundary(parser *ps, tok kw)
{
    static const char *const names[] = {"wall", "open", "wrap"};
    static const enum rp_boundary values[] = {RP_BOUNDARY_WALL, RP_BOUNDARY_OPEN, RP_BOUNDARY_WRAP};
    int i, ret = rp_lex_want_choice(ps, "boundary", names, 3, "wall, open or wrap", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.water.boundary = values[i];
    return rp_lex_want_end(ps, "the boundary");
}

static int set_refraction(parser *ps, tok kw)
{
    int64_t v;
    int ret;
    const char *save = ps->p;
    int save_col = ps->col;
    tok t;

    (void)kw;
    if ((ret = rp_lex_next(ps, &t)))
        return ret;
    if (t.s && rp_lex_is(t, "off")) { /* render `light`: light without displacement */
        ps->given.look.refraction = 0;
        ps->given.light.refraction_q8 = 0;
        ps->given.set |= RP_SET_REFRACT_OFF;
        return rp_lex_want_end(ps, "the refraction");
    }
    ps->p = save;
    ps->col = save_col;
    if ((ret = rp_lex_want_int(ps, "refraction", "refraction", 0, 15, &v)))
        return ret;
    ps->given.look.refraction = (int)v;
    ps->given.light.refraction_q8 = (int32_t)v * 256;
    return rp_lex_want_end(ps, "the refraction");
}

static int set_shading(parser *ps, tok kw)
{
    int64_t v;
    int ret = rp_lex_want_int(ps, "shading", "shading", 0, 1024, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.look.shading = (int)v;
    return rp_lex_want_end(ps, "the shading divisor");
}

/* `light A B`: the direction of the shading light (offset render: integers -16..16) or,
 * for render `light`, azimuth and elevation in degrees; which one is checked when the
 * scene's render mode is known (check_light). */
static int set_light(parser *ps, tok kw)
{
    tok a, e;
    int ret;

    (void)kw;
    if ((ret = rp_lex_want_word(ps, "a number", "light", &a)) ||
        (ret = rp_lex_want_word(ps, "a number", "light", &e)))
        return ret;
    ps->light_a = a;
    ps->light_e = e;
    ps->light_line = ps->line;
    ps->light_ls = ps->ls;
    ps->light_llen = ps->llen;
    return rp_lex_want_end(ps, "the light direction");
}

static int set_fit(parser *ps, tok kw)
{
    static const char *const names[] = {"stretch", "cover", "contain"};
    static const enum rp_fit values[] = {RP_FIT_STRETCH, RP_FIT_COVER, RP_FIT_CONTAIN};
    int i, ret = rp_lex_want_choice(ps, "fit", names, 3, "stretch, cover or contain", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.fit = values[i];
    return rp_lex_want_end(ps, "the fit");
}

/* `walls visible [0xRRGGBB]`, `walls visible image` or `walls hidden`. */
static int set_walls(parser *ps, tok kw)
{
    static const char *const names[] = {"hidden", "visible"};
    tok t;
    char b[64];
    int i, ret = rp_lex_want_choice(ps, "walls", names, 2, "visible or hidden", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.walls_visible = i ? RP_WALLS_COLOUR : RP_WALLS_HIDDEN;
    rp_settings d;
    rp_settings_defaults(&d, RP_PRESET_ROCKPOOL);
    memcpy(ps->given.wall_rgb, d.wall_rgb, 3);
    if ((ret = rp_lex_next(ps, &t)))
        return ret;
    const char *rest = ps->p, *end = ps->ls + ps->llen;
    if (!t.s && i && rest + 1 < end && *rest == '#' && strchr("0123456789abcdefABCDEF", rest[1]))
        return rp_lex_fail(ps, ps->col,
                           "a colour is written #rrggbb or 0xrrggbb, six hex digits (the rest "
                           "of this line would be a comment)");
    if (t.s && i && rp_lex_is(t, "image"))
        ps->given.walls_visible = RP_WALLS_IMAGE;
    else if (t.s && (!i || hex_colour(t, ps->given.wall_rgb)))
        return rp_lex_fail(ps, t.col,
                           i ? "expected a colour like #8a8578 or 0x8a8578, or 'image', after "
                               "'walls visible', got '%s'"
                             : "unexpected '%s' after 'walls hidden'",
                           SHOW(t, b));
    return rp_lex_want_end(ps, "the walls");
}

static int set_render(parser *ps, tok kw)
{
    static const char *const names[] = {"offset", "lens", "light"};
    static const enum rp_render_mode values[] = {RP_RENDER_OFFSET, RP_RENDER_LENS, RP_RENDER_LIGHT};
    int i, ret = rp_lex_want_choice(ps, "render", names, 3, "offset, lens or light", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.look.mode = values[i];
    rp_lex_note(ps, &ps->render_at, kw.col, "render");
    return rp_lex_want_end(ps, "the render mode");
}

static const struct setting {
    const char *name;
    unsigned bit;
    int (*parse)(parser *ps, tok kw);
} settings[] = {
    {"size", RP_SET_SIZE, set_size},
    {"fps", RP_SET_FPS, set_fps},
    {"duration", RP_SET_DURATION, set_duration},
    {"seed", RP_SET_SEED, set_seed},
    {"preset", RP_SET_PRESET, set_preset},
    {"background", RP_SET_BACKGROUND, set_background},
    {"damping", RP_SET_DAMPING, set_damping},
    {"stencil", RP_SET_STENCIL, set_stencil},
    {"boundary", RP_SET_BOUNDARY, set_boundary},
    {"refraction", RP_SET_REFRACTION, set_refraction},
    {"shading", RP_SET_SHADING, set_shading},
    {"light", RP_SET_LIGHT, set_light},
    {"render", RP_SET_RENDER, set_render},
    {"rate", RP_SET_RATE, set_rate},
    {"grid", RP_SET_GRID, set_grid},
    {"speed", RP_SET_SPEED, set_speed},
    {"fade", RP_SET_FADE, set_fade},
    {"preroll", RP_SET_PREROLL, set_preroll},
    {"specular", RP_SET_SPECULAR, set_specular},
    {"sky", RP_SET_SKY, set_sky},
    {"caustics", RP_SET_CAUSTICS, set_caustics},
    {"fit", RP_SET_FIT, set_fit},
    {"walls", RP_SET_WALLS, set_walls},
    {"depth", RP_SET_DEPTH, set_depth},
    {"sun", RP_SET_SUN, set_sun},
    {"tint", RP_SET_TINT, set_tint},
    {"look", RP_SET_LOOK, set_look},
    {"strength", RP_SET_STRENGTH, set_strength},
};

static int bit_index(unsigned bit)
{
    int i = 0;
    while (bit > 1) {
        bit >>= 1;
        i++;
    }
    return i;
}

/* ---- events --------------------------------------------------------------------------- */

/* A radius in percent of the scene width: "2%" or, when `range`, "0.5%..1.5%" (millionths
 * of a percent, above 0 and at most 100%). When the next word has no '%' nothing is read
 * and *pct stays 0. */
static int radius_percent(parser *ps, int range, int64_t *lo, int64_t *hi, int *pct, int col[2])
{
    const char *save = ps->p;
    int save_col = ps->col;
    tok t;
    part a, b;
    char buf[64];
    int ret = rp_lex_next(ps, &t);
    if (ret || !t.s || !memchr(t.s, '%', t.n)) {
        ps->p = save;
        ps->col = save_col;
        return ret;
    }
    *pct = 1;
    if (!range || !rp_lex_split(ps, rp_lex_whole(t), "..", &a, &b))
        a = b = rp_lex_whole(t);
    int64_t *v[2] = {lo, hi};
    part p[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (col)
            col[i] = p[i].col;
        if (p[i].n < 2 || p[i].s[p[i].n - 1] != '%' ||
            rp_lex_decimal(p[i].s, p[i].n - 1, 6, v[i]) != NUM_OK || *v[i] <= 0 ||
            *v[i] > 100 * INT64_C(1000000))
            return rp_lex_fail(ps, p[i].col,
                               "radius %s is not a percentage of the width above 0 and at most "
                               "100 (up to 6 decimals)",
                               rp_lex_show(p[i].s, p[i].n, buf));
    }
    if (*lo > *hi)
        return rp_lex_fail(ps, t.col, "reversed range '%s' (write the smaller value first)",
                           SHOW(t, buf));
    return RP_OK;
}

/* The options of drop, stroke and rain, in any order, each at most once: radius and
 * height (ranges for rain), shape, mode, and rain's rate. */
static int drop_opts(parser *ps, rp_event *ev, const char *usage)
{
    int rain = ev->kind == RP_EVENT_RAIN;
    int have_rate = 0, have_r = 0, have_h = 0, have_shape = 0, have_mode = 0;
    const char *expect =
        rain ? "rate, radius, height, shape or mode" : "radius, height, shape or mode";
    char b[64];
    int64_t lo, hi;
    tok t;
    int ret, i;

    for (;;) {
        int *have;
        if ((ret = rp_lex_next(ps, &t)))
            return ret;
        if (!t.s)
            break;
        have = rp_lex_is(t, "rate") && rain ? &have_rate
               : rp_lex_is(t, "radius")     ? &have_r
               : rp_lex_is(t, "height")     ? &have_h
               : rp_lex_is(t, "shape")      ? &have_shape
               : rp_lex_is(t, "mode")       ? &have_mode
                                            : NULL;
        if (!have)
            return rp_lex_fail(ps, t.col, "unexpected '%s' (expected %s)", SHOW(t, b), expect);
        if (*have)
            return rp_lex_fail(ps, t.col, "'%s' given twice", SHOW(t, b));
        *have = 1;
        if (have == &have_rate) {
            tok v;
            part num;
            int64_t rate = 0;
            int r;
            if ((ret = rp_lex_want_word(ps, "a rate like 6/s", "rate", &v)))
                return ret;
            num = rp_lex_whole(v);
            if (!rp_lex_ends_with(num, "/s"))
                return rp_lex_fail(ps, v.col, "expected a rate like 6/s after 'rate', got '%s'",
                                   SHOW(v, b));
            num.n -= 2;
            r = rp_lex_decimal(num.s, num.n, 3, &rate);
            if (r == NUM_SYNTAX)
                return rp_lex_fail(ps, v.col, "expected a rate like 6/s after 'rate', got '%s'",
                                   SHOW(v, b));
            if (r == NUM_PRECISION)
                return rp_lex_fail(ps, v.col, "rate %s is finer than 0.001/s", SHOW(v, b));
            if (r == NUM_RANGE || rate <= 0 || rate > RP_RATE_MAX_MILLI)
                return rp_lex_fail(ps, v.col, "rate %s is out of range (0.001/s..100000/s)",
                                   SHOW(v, b));
            ev->rate_milli = rate;
        } else if (have == &have_r) {
            int pct = 0;
            int col[2] = {0, 0};
            if ((ret = radius_percent(ps, rain, &lo, &hi, &pct, col)))
                return ret;
            ev->radius_col = col[0]; /* its pixels are checked once the width is known */
            ev->radius_hi_col = col[1];
            if (pct)
                ev->radius_pct = 1;
            else if (rain)
                ret = rp_lex_want_range(ps, "radius", 1, RP_RADIUS_MAX, &lo, &hi);
            else
                ret = rp_lex_want_int(ps, "radius", "radius", 1, RP_RADIUS_MAX, &lo);
            if (ret)
                return ret;
            ev->radius_lo = (int32_t)lo;
            ev->radius_hi = rain ? (int32_t)hi : (int32_t)lo;
        } else if (have == &have_h) {
            if (rain)
                ret = rp_lex_want_range(ps, "height", INT16_MIN, INT16_MAX, &lo, &hi);
            else
                ret = rp_lex_want_int(ps, "height", "height", INT16_MIN, INT16_MAX, &lo);
            if (ret)
                return ret;
            ev->height_lo = (int32_t)lo;
            ev->height_hi = rain ? (int32_t)hi : (int32_t)lo;
        } else if (have == &have_shape) {
            if ((ret = rp_lex_want_choice(ps, "shape", shape_names, 5,
                                          "disc, cosine, splash, square or smooth", &i)))
                return ret;
            ev->shape = (int)shape_values[i];
        } else {
            static const char *const modes[] = {"add", "set"};
            if ((ret = rp_lex_want_choice(ps, "mode", modes, 2, "add or set", &i)))
                return ret;
            ev->mode = i == 0 ? RP_MODE_ADD : RP_MODE_SET;
        }
    }
    if (rain && !have_rate)
        return rp_lex_fail(ps, t.col, "missing 'rate N/s' (expected %s)", usage);
    if (!have_r)
        return rp_lex_fail(ps, t.col, "missing 'radius' (expected %s)", usage);
    if (!have_h)
        return rp_lex_fail(ps, t.col, "missing 'height' (expected %s)", usage);
    return RP_OK;
}

static int event_drop(parser *ps, rp_event *ev)
{
    int ret;

    if ((ret = rp_lex_want_coord(ps, "drop", "x coordinate", 0, &ev->x)) ||
        (ret = rp_lex_want_coord(ps, "drop", "y coordinate", 0, &ev->y)))
        return ret;
    return drop_opts(ps, ev, "drop X Y radius R height H [shape S] [mode M]");
}

static int event_rain(parser *ps, rp_event *ev)
{
    return drop_opts(ps, ev, "rain rate N/s radius A..B height A..B [shape S] [mode M]");
}

static int event_stroke(parser *ps, rp_event *ev)
{
    tok t;
    char b[64];
    int ret;

    if ((ret = rp_scene_parse_along(ps, ev)))
        return ret;
    if (ev->along)
        return drop_opts(ps, ev, "stroke along PATH radius R height H [shape S] [mode M]");
    if ((ret = rp_lex_want_point(ps, "stroke", &ev->x, &ev->y)))
        return ret;
    if ((ret = rp_lex_want_word(ps, "'->'", "the start point", &t)))
        return ret;
    if (!rp_lex_is(t, "->"))
        return rp_lex_fail(ps, t.col, "expected '->' after the start point, got '%s'", SHOW(t, b));
    if ((ret = rp_lex_want_point(ps, "->", &ev->x2, &ev->y2)))
        return ret;
    return drop_opts(ps, ev, "stroke X,Y -> X,Y radius R height H [shape S] [mode M]");
}

static int event_wall(parser *ps, rp_event *ev)
{
    static const char *const kinds[] = {"rect", "circle", "mask"};
    char path[4096];
    int64_t r;
    int k, ret = rp_lex_want_choice(ps, "wall", kinds, 3, "rect, circle or mask", &k);

    if (ret)
        return ret;
    if (k < 2 && (ret = rp_scene_parse_along(ps, ev)))
        return ret;
    if (ev->along != 0) {
        ev->kind = k == 0 ? RP_EVENT_WALL_RECT : RP_EVENT_WALL_CIRCLE;
        if (k == 0 && ((ret = rp_lex_want_coord(ps, "rect", "wall width", 1, &ev->w)) ||
                       (ret = rp_lex_want_coord(ps, "rect", "wall height", 1, &ev->h))))
            return ret;
        if (k == 1) {
            int64_t hi;
            int is_pct = 0;
            if ((ret = radius_percent(ps, 0, &r, &hi, &is_pct, NULL)) ||
                (!is_pct &&
                 (ret = rp_lex_want_int(ps, "along", "wall radius", 1, RP_MAX_SIDE, &r))))
                return ret;
            ev->radius_pct = is_pct;
            ev->radius_lo = ev->radius_hi = (int32_t)r;
        }
        if ((ret = rp_scene_parse_push(ps, ev)))
            return ret;
        return rp_lex_want_end(ps, k == 0 ? "'wall rect along PATH W H [push P]'"
                                          : "'wall circle along PATH R [push P]'");
    }
    if (k == 0) {
        ev->kind = RP_EVENT_WALL_RECT;
        if ((ret = rp_lex_want_coord(ps, "rect", "x coordinate", 0, &ev->x)) ||
            (ret = rp_lex_want_coord(ps, "rect", "y coordinate", 0, &ev->y)) ||
            (ret = rp_lex_want_coord(ps, "rect", "wall width", 1, &ev->w)) ||
            (ret = rp_lex_want_coord(ps, "rect", "wall height", 1, &ev->h)))
            return ret;
        return rp_lex_want_end(ps, "'wall rect X Y W H'");
    }
    if (k == 1) {
        ev->kind = RP_EVENT_WALL_CIRCLE;
        if ((ret = rp_lex_want_coord(ps, "circle", "x coordinate", 0, &ev->x)) ||
            (ret = rp_lex_want_coord(ps, "circle", "y coordinate", 0, &ev->y)))
            return ret;
        int64_t hi;
        int is_pct = 0;
        if ((ret = radius_percent(ps, 0, &r, &hi, &is_pct, NULL)) ||
            (!is_pct &&
             (ret = rp_lex_want_int(ps, "circle", "wall radius", 0, 2 * RP_MAX_SIDE, &r))))
            return ret;
        ev->radius_pct = is_pct;
        ev->radius_lo = ev->radius_hi = (int32_t)r;
        return rp_lex_want_end(ps, "'wall circle X Y R'");
    }
    ev->kind = RP_EVENT_WALL_MASK;
    if ((ret = rp_scene_parse_along(ps, ev)))
        return ret;
    if (ev->along && ((ret = rp_lex_want_coord(ps, "mask", "wall width", 1, &ev->w)) ||
                      (ret = rp_lex_want_coord(ps, "mask", "wall height", 1, &ev->h))))
        return ret;
    if ((ret = rp_lex_want_path(ps, "mask", path, sizeof path, &ev->path_col)))
        return ret;
    {
        char *copy = strdup(path);
        if (!copy)
            return RP_ERR_NOMEM;
        ev->path = copy;
    }
    if (ev->along) {
        if ((ret = rp_scene_parse_push(ps, ev)))
            return ret;
        return rp_lex_want_end(ps, "'wall mask along PATH W H FILE [push P]'");
    }
    return rp_lex_want_end(ps, "the mask path (quote a path with spaces or '#')");
}

/* Append an event, within what the scene may take (ps->max_bytes: the text, the events
 * and the paths, as rp_scene_memory counts them; RP_ERR_TOO_LARGE at this line). */
static int push_event(parser *ps, const rp_event *ev)
{
    rp_scene *sc = ps->sc;
    size_t path = ev->path ? strlen(ev->path) + 1 : 0;
    double need = rp_scene_memory(sc) + (double)sizeof *ev + (double)path;
    if (ps->max_bytes > 0 && need > (double)ps->max_bytes) {
        char text[48], limit[48];
        rp_bytes_pair((double)sc->text_len, (double)ps->max_bytes, text, limit, sizeof text);
        rp_lex_fail(ps, 1,
                    "the scene's text (%s) and its first %zu statements need more memory than "
                    "the limit of %s (raise it with %s)",
                    text, sc->n_events + 1, limit, rp_name("--max-memory", "max_memory"));
        return RP_ERR_TOO_LARGE;
    }
    if (sc->n_events == sc->cap_events) {
        size_t cap = sc->cap_events ? 2 * sc->cap_events : 16;
        rp_event *e = realloc(sc->events, cap * sizeof *e);
        if (!e)
            return RP_ERR_NOMEM;
        sc->events = e;
        sc->cap_events = cap;
    }
    sc->events[sc->n_events++] = *ev;
    sc->path_bytes += path;
    return RP_OK;
}

/* `at TIME ACTION ...` / `at A..B ACTION ...`. */
static int parse_event(parser *ps)
{
    rp_event ev;
    tok t, a;
    char b[64];
    int ret;

    memset(&ev, 0, sizeof ev);
    ev.shape = -1;
    ev.mode = -1;
    ev.line = ps->line;
    ev.text = ps->ls;
    ev.text_len = ps->llen;
    if ((ret = rp_lex_want_word(ps, "a time like 1.5s, 250ms or 45f, or a span A..B", "at", &t)) ||
        (ret = rp_lex_time_or_span(ps, t, &ev)))
        return ret;
    if ((ret = rp_lex_want_word(ps, "an action (drop, rain, stroke, wall, emit)", "the time", &a)))
        return ret;
    ev.col = a.col;
    if (a.n >= 2 && a.s[0] == '.' && a.s[1] == '.')
        return rp_lex_fail(ps, a.col, "unexpected '%s': write a span without spaces, like 2s..8s",
                           SHOW(a, b));
    if (rp_lex_is(a, "drop") || rp_lex_is(a, "wall")) {
        if (ev.is_span && rp_lex_is(a, "drop"))
            return rp_lex_fail(ps, t.col, "drop takes a single time, not a span");
        if (rp_lex_is(a, "drop")) {
            ev.kind = RP_EVENT_DROP;
            ret = event_drop(ps, &ev);
            ps->sc->stats.drops++;
        } else {
            ret = event_wall(ps, &ev);
            ps->sc->stats.walls++;
            /* ret, not return: a wall mask's path is freed below */
            if (!ret && ev.is_span != (ev.along != 0))
                ret = rp_lex_fail(ps, t.col,
                                  ev.along ? "a wall along a path needs a span, like 'at "
                                             "0s..6s wall circle along P R'"
                                           : "wall takes a single time, not a span (a wall that "
                                             "moves goes along a path)");
        }
    } else if (rp_lex_is(a, "emit")) {
        if (!ev.is_span)
            return rp_lex_fail(ps, t.col, "emit needs a span, like 'at 0s..6s emit ...'");
        ret = rp_scene_parse_emit(ps, &ev);
        ps->sc->stats.emitters++;
    } else if (rp_lex_is(a, "rain") || rp_lex_is(a, "stroke")) {
        if (!ev.is_span)
            return rp_lex_fail(ps, t.col, "%s needs a span, like 'at 2s..8s %s ...'",
                               rp_lex_is(a, "rain") ? "rain" : "stroke",
                               rp_lex_is(a, "rain") ? "rain" : "stroke");
        if (rp_lex_is(a, "rain")) {
            ev.kind = RP_EVENT_RAIN;
            ev.rain_index = ps->sc->stats.rains++;
            ret = event_rain(ps, &ev);
        } else {
            ev.kind = RP_EVENT_STROKE;
            ret = event_stroke(ps, &ev);
            ps->sc->stats.strokes++;
        }
    } else {
        return rp_lex_fail(
            ps, a.col, "unknown action '%s' (expected drop, rain, stroke, wall, emit)", SHOW(a, b));
    }
    if (ret == RP_OK)
        ret = push_event(ps, &ev);
    if (ret)
        free((char *)ev.path);
    return ret;
}

static int parse_line(parser *ps)
{
    tok kw;
    char b[64];
    size_t i;
    int ret = rp_lex_next(ps, &kw);

    if (ret || !kw.s)
        return ret;
    if (rp_lex_is(kw, "at"))
        return parse_event(ps);
    if (rp_lex_is(kw, "path"))
        return rp_scene_parse_path(ps, kw);
    if (rp_lex_is(kw, "key"))
        return rp_scene_parse_key(ps, kw);
    for (i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        int bi = bit_index(settings[i].bit);
        if (!rp_lex_is(kw, settings[i].name))
            continue;
        if (ps->set_line[bi])
            return rp_lex_fail(ps, kw.col, "'%s' is already set on line %d", settings[i].name,
                               ps->set_line[bi]);
        /* the first value's column: the next word, read ahead and given back */
        const char *p = ps->p;
        int col = ps->col, end_col = ps->end_col;
        tok value;
        if (rp_lex_next(ps, &value))
            value.col = kw.col;
        ps->p = p;
        ps->col = col;
        ps->end_col = end_col;
        if ((ret = settings[i].parse(ps, kw)))
            return ret;
        ps->set_line[bi] = ps->line;
        ps->given.set |= settings[i].bit;
        ps->sc->set_at[bi].line = ps->line;
        ps->sc->set_at[bi].col = kw.col;
        ps->sc->set_at[bi].value_col = value.s ? value.col : kw.col;
        ps->sc->set_at[bi].at = (size_t)(ps->ls - ps->sc->text);
        ps->sc->set_at[bi].len = ps->llen;
        return RP_OK;
    }
    return rp_lex_fail(
        ps, kw.col,
        "unknown statement '%s' (expected 'at TIME ACTION ...', 'path', 'key' or a setting: "
        "size, fps, "
        "duration, seed, preset, background, damping, stencil, boundary, refraction, "
        "shading, light, render, rate, grid, speed, fade, preroll, specular, sky, caustics, fit, "
        "walls, depth, sun, tint, look, strength)",
        SHOW(kw, b));
}

/* `light A B` once the render mode is known: a direction of integers -16..16 for the
 * offset render, azimuth and elevation in degrees for render `light`. Errors point at the
 * light statement. */
static int check_light(parser *ps)
{
    rp_settings d;
    char b[64];
    int64_t a, e;
    if (!ps->light_line)
        return RP_OK;
    rp_settings_defaults(&d,
                         (ps->given.set & RP_SET_PRESET) ? ps->given.preset : RP_PRESET_ROCKPOOL);
    enum rp_render_mode mode = (ps->given.set & RP_SET_RENDER) ? ps->given.look.mode : d.look.mode;
    ps->line = ps->light_line;
    ps->ls = ps->light_ls;
    ps->llen = ps->light_llen;
    tok ta = ps->light_a, te = ps->light_e;
    if (mode == RP_RENDER_LIGHT) {
        int ra = rp_lex_decimal(ta.s, ta.n, 3, &a), re;
        /* what is wrong, said as it is: not a number, too fine, or out of range */
        if (ra == NUM_SYNTAX || ra == NUM_PRECISION)
            return rp_lex_fail(ps, ta.col,
                               "expected the light azimuth in degrees (a number, up to 3 "
                               "decimals, like 315 or 22.5), got '%s'",
                               SHOW(ta, b));
        if (ra != NUM_OK || a < -360000 || a > 360000)
            return rp_lex_fail(ps, ta.col,
                               "light azimuth %s is out of range (-360 to 360 "
                               "degrees)",
                               SHOW(ta, b));
        re = rp_lex_decimal(te.s, te.n, 3, &e);
        if (re == NUM_SYNTAX || re == NUM_PRECISION)
            return rp_lex_fail(ps, te.col,
                               "expected the light elevation in degrees (a number, up to 3 "
                               "decimals, like 40 or 12.5), got '%s'",
                               SHOW(te, b));
        if (re != NUM_OK || e < 0 || e > 90000)
            return rp_lex_fail(ps, te.col,
                               "light elevation %s is out of range (0 to 90 "
                               "degrees)",
                               SHOW(te, b));
        ps->given.light.azimuth_mdeg = (int32_t)a;
        ps->given.light.elevation_mdeg = (int32_t)e;
        return RP_OK;
    }
    int ret;
    if ((ret = rp_lex_int_part(ps, rp_lex_whole(ta), "light x", -16, 16, &a)) ||
        (ret = rp_lex_int_part(ps, rp_lex_whole(te), "light y", -16, 16, &e)))
        return ret;
    ps->given.look.light_x = (int)a;
    ps->given.look.light_y = (int)e;
    return RP_OK;
}

/* ---- public --------------------------------------------------------------------------- */

int rp_damping_parse(const char *text, int *shift, int32_t *q16)
{
    size_t n;
    int64_t v;
    int32_t q = 0;

    if (!text || !shift || !q16)
        return RP_ERR_INVALID;
    n = strlen(text);
    if (n > 6 && memcmp(text, "shift ", 6) == 0) {
        const char *s = text + 6;
        while (*s == ' ')
            s++;
        if (rp_lex_decimal(s, strlen(s), 0, &v) != NUM_OK || v < 1 || v > 30)
            return RP_ERR_INVALID;
        *shift = (int)v;
        *q16 = 0;
        return RP_OK;
    }
    if (damping_factor(text, n, &q) != NUM_OK || q == 0)
        return RP_ERR_INVALID;
    *shift = 0;
    *q16 = q;
    return RP_OK;
}

static int parse_owned(rp_scene **out, char *text, size_t len, const char *filename,
                       int64_t max_bytes, rp_diag *diag);

int rp_scene_parse(rp_scene **out, const char *text, size_t len, const char *filename,
                   rp_error *err)
{
    char *copy = (text || !len) && len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (copy && len)
        memcpy(copy, text, len);
    if (!copy && (text || !len)) {
        memset(&err->diag, 0, sizeof err->diag);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    return rp_scene_parse_owned(out, copy, len, filename, 0, err);
}

int rp_scene_parse_owned(rp_scene **out, char *text, size_t len, const char *filename,
                         int64_t max_bytes, rp_error *err)
{
    int r = parse_owned(out, text, len, filename, max_bytes, &err->diag);
    return r ? rp_error_diag(err, r) : RP_OK;
}

/* The parser: its diagnostic in *diag (file, line, column, message, the line's text). */
static int parse_owned(rp_scene **out, char *text, size_t len, const char *filename,
                       int64_t max_bytes, rp_diag *diag)
{
    parser ps;
    rp_scene *sc;
    const char *slash = NULL;
    size_t pos = 0;
    int ret = RP_OK;

    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s",
             !filename                    ? "<scene>"
             : strcmp(filename, "-") == 0 ? "<stdin>"
                                          : filename);
    if (!out || !text) {
        free(text);
        snprintf(diag->msg, sizeof diag->msg, "no scene text");
        return RP_ERR_INVALID;
    }
    *out = NULL;
    sc = calloc(1, sizeof *sc);
    if (!sc) {
        free(text);
        snprintf(diag->msg, sizeof diag->msg, "out of memory");
        return RP_ERR_NOMEM;
    }
    sc->text = text;
    sc->text[len] = '\0';
    sc->text_len = len;
    snprintf(sc->name, sizeof sc->name, "%s", diag->file);
    sc->is_file = filename && strcmp(filename, "-") && filename[0] != '<';

    memset(&ps, 0, sizeof ps);
    ps.sc = sc;
    ps.diag = diag;
    ps.max_bytes = max_bytes;
    rp_settings_defaults(&ps.given, RP_PRESET_ROCKPOOL);
    if (filename && strcmp(filename, "-") != 0)
        slash = strrchr(filename, '/');
    if (slash) {
        ps.dir = filename;
        ps.dir_len = (size_t)(slash - filename) + 1;
    }
    /* A UTF-8 byte order mark is tolerated and not counted in columns. */
    if (len >= 3 && memcmp(sc->text, "\xEF\xBB\xBF", 3) == 0)
        pos = 3;
    while (pos < len) {
        const char *nl = memchr(sc->text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - sc->text) : len;
        /* a CR not before the LF (old Mac line ends) ends a line too */
        const char *cr = memchr(sc->text + pos, '\r', end - pos);
        if (cr && (size_t)(cr - sc->text) + 1 < end)
            end = (size_t)(cr - sc->text);

        if (ps.line == INT32_MAX) {
            ret = rp_lex_fail(&ps, 0, "too many lines");
            break;
        }
        ps.line++;
        ps.ls = sc->text + pos;
        ps.llen = end - pos;
        if (ps.llen > 0 && ps.ls[ps.llen - 1] == '\r')
            ps.llen--; /* CRLF */
        ps.p = ps.ls;
        ps.col = 1;
        ps.end_col = 1;
        if ((ret = rp_lex_check_utf8(&ps)) || (ret = parse_line(&ps)))
            break;
        pos = end + 1;
    }
    if (!ret)
        ret = check_light(&ps);
    if (ret) {
        if (ret == RP_ERR_NOMEM)
            snprintf(diag->msg, sizeof diag->msg, "out of memory");
        rp_scene_free(&sc);
        return ret;
    }
    /* The defaults of the scene's preset, then what the scene set explicitly. */
    rp_settings_defaults(&sc->settings, ps.given.preset);
    rp_settings_merge(&sc->settings, &ps.given);
    sc->settings.set = ps.given.set;
    sc->outside_bg = ps.outside_bg;
    sc->outside_mask = ps.outside_mask;
    sc->sky_at = ps.sky_at;
    sc->background_at = ps.background_at;
    sc->render_at = ps.render_at;
    sc->look_at = ps.look_at;
    sc->preset_at = ps.preset_at;
    if (sc->cap_events > sc->n_events && sc->n_events) { /* give back the doubling's spare */
        rp_event *fit = realloc(sc->events, sc->n_events * sizeof *fit);
        sc->events = fit ? fit : sc->events;
        sc->cap_events = fit ? sc->n_events : sc->cap_events;
    }
    *out = sc;
    return RP_OK;
}

void rp_scene_free(rp_scene **scene)
{
    size_t i;
    rp_scene *sc;

    if (!scene || !*scene)
        return;
    sc = *scene;
    for (i = 0; i < sc->n_events; i++)
        free((char *)sc->events[i].path);
    free(sc->events);
    free(sc->paths);
    free(sc->text);
    free(sc);
    *scene = NULL;
}

const char *rp_scene_builtin(void)
{
    return "# rockpool's built-in scene: a few seconds of rain\n"
           "duration 6s\n"
           "at 0s..6s rain rate 5/s radius 4..10 height 300..900\n";
}

const char *rp_scene_name(const rp_scene *scene)
{
    return scene ? scene->name : "<scene>";
}

const char *rp_scene_file(const rp_scene *scene)
{
    return scene && scene->is_file ? scene->name : NULL;
}

const rp_diag *rp_scene_outside_path(const rp_scene *scene, int background)
{
    if (!scene)
        return NULL;
    const rp_diag *d = background ? &scene->outside_bg : &scene->outside_mask;
    return d->line ? d : NULL;
}

const rp_diag *rp_scene_background_at(const rp_scene *scene)
{
    return scene && scene->background_at.line ? &scene->background_at : NULL;
}

const rp_diag *rp_scene_sky_at(const rp_scene *scene)
{
    return scene && scene->sky_at.line ? &scene->sky_at : NULL;
}

int rp_scene_setting_at(const rp_scene *scene, unsigned bit, int value, rp_diag *at)
{
    int i = bit_index(bit);
    if (!bit || (bit & (bit - 1)) || i >= RP_SET_BITS || !scene->set_at[i].line)
        return 0;
    if (at) {
        memset(at, 0, sizeof *at);
        snprintf(at->file, sizeof at->file, "%s", scene->name);
        at->line = scene->set_at[i].line;
        at->col = value ? scene->set_at[i].value_col : scene->set_at[i].col;
        rp_lex_copy_line(at->source_line, sizeof at->source_line, scene->text + scene->set_at[i].at,
                         scene->set_at[i].len);
    }
    return scene->set_at[i].line;
}

int rp_scene_setting_place(const rp_scene *scene, const char *name, rp_diag *at)
{
    for (size_t i = 0; scene && name && i < sizeof settings / sizeof settings[0]; i++)
        if (!strcmp(settings[i].name, name))
            return rp_scene_setting_at(scene, settings[i].bit, 1, at);
    return 0;
}

const rp_diag *rp_scene_look_from(const rp_scene *scene, int model, int *by_preset)
{
    int ignored;
    by_preset = by_preset ? by_preset : &ignored;
    *by_preset = 0;
    if (!scene)
        return NULL;
    const rp_diag *d = model ? &scene->look_at : &scene->render_at;
    *by_preset = !d->line;
    d = d->line ? d : &scene->preset_at;
    return d->line ? d : NULL;
}

double rp_scene_memory(const rp_scene *scene)
{
    if (!scene)
        return 0;
    double bytes = (double)scene->text_len + 1 + (double)scene->n_events * sizeof(rp_event) +
                   (double)scene->n_paths * sizeof(rp_path);
    return bytes + (double)scene->path_bytes;
}

const char *rp_scene_text(const rp_scene *scene, size_t *len)
{
    if (len)
        *len = scene ? scene->text_len : 0;
    return scene ? scene->text : NULL;
}

const rp_settings *rp_scene_settings(const rp_scene *scene)
{
    return &scene->settings;
}

void rp_scene_stats_get(const rp_scene *scene, rp_scene_stats *stats)
{
    if (!stats)
        return;
    if (!scene) {
        *stats = (rp_scene_stats){0};
        return;
    }
    *stats = scene->stats;
    stats->paths = scene->n_paths;
    for (int k = 0; k < RP_KEY_KINDS; k++)
        stats->keys += scene->keys[k].n > 0;
    for (size_t i = 0; i < scene->n_events; i++) {
        enum rp_event_kind kind = scene->events[i].kind;
        stats->moving_walls +=
            scene->events[i].along && (kind == RP_EVENT_WALL_RECT || kind == RP_EVENT_WALL_CIRCLE ||
                                       kind == RP_EVENT_WALL_MASK);
    }
}

size_t rp_scene_event_count(const rp_scene *scene)
{
    return scene->n_events;
}

const rp_event *rp_scene_event(const rp_scene *scene, size_t i)
{
    return i < scene->n_events ? &scene->events[i] : NULL;
}

const char *rp_scene_next_mask_path(const rp_scene *scene, size_t *at)
{
    if (!scene || !at)
        return NULL;
    const rp_event *ev = rp_scene_next_mask(scene, at);
    return ev ? ev->path : NULL;
}

const rp_event *rp_scene_next_mask(const rp_scene *scene, size_t *i)
{
    for (; *i < scene->n_events; ++*i) {
        const rp_event *ev = &scene->events[*i];
        int seen = ev->kind != RP_EVENT_WALL_MASK || !ev->path;
        for (size_t j = 0; j < *i && !seen; j++) {
            const rp_event *e = &scene->events[j];
            seen = e->kind == RP_EVENT_WALL_MASK && e->path && !strcmp(e->path, ev->path);
        }
        if (!seen) {
            ++*i;
            return ev;
        }
    }
    return NULL;
}
