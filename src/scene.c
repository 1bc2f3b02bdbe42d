/* scene.c - the scene language's statements (rockpool-scene(5)): a line-by-line parser
 * from UTF-8 text to validated settings and events, with 1-based line/column
 * diagnostics. Words, numbers, times and coordinates are read by scene_lex.c; the
 * settings model and presets are settings.c; the timeline that expands the events into
 * per-frame items is events.c. */
#include "scene.h"
#include "scene_lex.h"

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
    char name[512]; /* for diagnostics: the path, "<stdin>" or "<scene>" */
    int is_file;    /* name is a file's path */
    rp_diag outside_bg, outside_mask; /* paths reaching outside its directory; line 0: none */
};

static const char *const shape_names[] = {"disc", "square", "cosine", "splash"};
static const enum rp_shape shape_values[] = {RP_SHAPE_DISC, RP_SHAPE_SQUARE, RP_SHAPE_COSINE,
                                             RP_SHAPE_SPLASH};

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
    int64_t v;
    int ret = rp_lex_want_int(ps, "fps", "fps", 1, RP_FPS_MAX, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.time.fps = (int)v;
    return rp_lex_want_end(ps, "the frame rate");
}

static int set_duration(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int ret = rp_lex_want_word(ps, "a time like 10s, 2500ms or 300f", "duration", &t);

    (void)kw;
    if (ret)
        return ret;
    if ((ret = rp_lex_time_part(ps, rp_lex_whole(t), &ps->given.time.duration)))
        return ret;
    if (ps->given.time.duration.value == 0)
        return rp_lex_fail(ps, t.col, "duration %s is empty (it must be above 0)", SHOW(t, b));
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
    hex = t.n > 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X');
    for (i = hex ? 2 : 0; i < t.n; i++) {
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
    return rp_lex_want_end(ps, "the preset");
}

static int set_background(parser *ps, tok kw)
{
    int ret = rp_lex_want_path(ps, "background", ps->given.background, sizeof ps->given.background);

    (void)kw;
    if (ret)
        return ret;
    return rp_lex_want_end(ps, "the path (quote a path with spaces or '#')");
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
    int r, ret = rp_lex_want_word(ps, "'shift N' or a factor like 0.94", "damping", &t);

    (void)kw;
    if (ret)
        return ret;
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
    int ret = rp_lex_want_int(ps, "refraction", "refraction", 0, 15, &v);

    (void)kw;
    if (ret)
        return ret;
    ps->given.look.refraction = (int)v;
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

static int set_light(parser *ps, tok kw)
{
    int64_t x, y;
    int ret;

    (void)kw;
    if ((ret = rp_lex_want_int(ps, "light", "light x", -16, 16, &x)) ||
        (ret = rp_lex_want_int(ps, "light", "light y", -16, 16, &y)))
        return ret;
    ps->given.look.light_x = (int)x;
    ps->given.look.light_y = (int)y;
    return rp_lex_want_end(ps, "the light direction");
}

static int set_render(parser *ps, tok kw)
{
    static const char *const names[] = {"offset", "lens"};
    static const enum rp_render_mode values[] = {RP_RENDER_OFFSET, RP_RENDER_LENS};
    int i, ret = rp_lex_want_choice(ps, "render", names, 2, "offset or lens", &i);

    (void)kw;
    if (ret)
        return ret;
    ps->given.look.mode = values[i];
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
            if (rain)
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
            if ((ret = rp_lex_want_choice(ps, "shape", shape_names, 4,
                                          "disc, cosine, splash or square", &i)))
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
            (ret = rp_lex_want_coord(ps, "circle", "y coordinate", 0, &ev->y)) ||
            (ret = rp_lex_want_int(ps, "circle", "wall radius", 0, 2 * RP_MAX_SIDE, &r)))
            return ret;
        ev->radius_lo = ev->radius_hi = (int32_t)r;
        return rp_lex_want_end(ps, "'wall circle X Y R'");
    }
    ev->kind = RP_EVENT_WALL_MASK;
    if ((ret = rp_lex_want_path(ps, "mask", path, sizeof path)))
        return ret;
    {
        char *copy = strdup(path);
        if (!copy)
            return RP_ERR_NOMEM;
        ev->path = copy;
    }
    return rp_lex_want_end(ps, "the mask path (quote a path with spaces or '#')");
}

static int push_event(rp_scene *sc, const rp_event *ev)
{
    if (sc->n_events == sc->cap_events) {
        size_t cap = sc->cap_events ? 2 * sc->cap_events : 16;
        rp_event *e = realloc(sc->events, cap * sizeof *e);
        if (!e)
            return RP_ERR_NOMEM;
        sc->events = e;
        sc->cap_events = cap;
    }
    sc->events[sc->n_events++] = *ev;
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
    if ((ret = rp_lex_want_word(ps, "an action (drop, rain, stroke, wall)", "the time", &a)))
        return ret;
    ev.col = a.col;
    if (a.n >= 2 && a.s[0] == '.' && a.s[1] == '.')
        return rp_lex_fail(ps, a.col, "unexpected '%s': write a span without spaces, like 2s..8s",
                           SHOW(a, b));
    if (rp_lex_is(a, "drop") || rp_lex_is(a, "wall")) {
        if (ev.is_span)
            return rp_lex_fail(ps, t.col, "%s takes a single time, not a span",
                               rp_lex_is(a, "drop") ? "drop" : "wall");
        if (rp_lex_is(a, "drop")) {
            ev.kind = RP_EVENT_DROP;
            ret = event_drop(ps, &ev);
            ps->sc->stats.drops++;
        } else {
            ret = event_wall(ps, &ev);
            ps->sc->stats.walls++;
        }
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
        return rp_lex_fail(ps, a.col, "unknown action '%s' (expected drop, rain, stroke, wall)",
                           SHOW(a, b));
    }
    if (ret == RP_OK)
        ret = push_event(ps->sc, &ev);
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
    for (i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        int bi = bit_index(settings[i].bit);
        if (!rp_lex_is(kw, settings[i].name))
            continue;
        if (ps->set_line[bi])
            return rp_lex_fail(ps, kw.col, "'%s' is already set on line %d", settings[i].name,
                               ps->set_line[bi]);
        if ((ret = settings[i].parse(ps, kw)))
            return ret;
        ps->set_line[bi] = ps->line;
        ps->given.set |= settings[i].bit;
        return RP_OK;
    }
    return rp_lex_fail(
        ps, kw.col,
        "unknown statement '%s' (expected 'at TIME ACTION ...' or a setting: size, fps, "
        "duration, seed, preset, background, damping, stencil, boundary, refraction, "
        "shading, light, render)",
        SHOW(kw, b));
}

/* Check the line's bytes are UTF-8 without NUL; report the first bad byte. */
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

int rp_scene_parse(rp_scene **out, const char *text, size_t len, const char *filename,
                   rp_diag *diag)
{
    rp_diag local;
    parser ps;
    rp_scene *sc;
    const char *slash = NULL;
    size_t pos = 0;
    int ret = RP_OK;

    if (!diag)
        diag = &local;
    memset(diag, 0, sizeof *diag);
    snprintf(diag->file, sizeof diag->file, "%s",
             !filename                    ? "<scene>"
             : strcmp(filename, "-") == 0 ? "<stdin>"
                                          : filename);
    if (!out || (!text && len > 0)) {
        snprintf(diag->msg, sizeof diag->msg, "no scene text");
        return RP_ERR_INVALID;
    }
    *out = NULL;
    sc = calloc(1, sizeof *sc);
    if (!sc)
        return RP_ERR_NOMEM;
    sc->text = malloc(len + 1);
    if (!sc->text) {
        free(sc);
        return RP_ERR_NOMEM;
    }
    if (len)
        memcpy(sc->text, text, len);
    sc->text[len] = '\0';
    sc->text_len = len;
    snprintf(sc->name, sizeof sc->name, "%s", diag->file);
    sc->is_file = filename && strcmp(filename, "-") && filename[0] != '<';

    memset(&ps, 0, sizeof ps);
    ps.sc = sc;
    ps.diag = diag;
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
    free(sc->text);
    free(sc);
    *scene = NULL;
}

const char *rp_scene_name(const rp_scene *scene)
{
    return scene->name;
}

const char *rp_scene_file(const rp_scene *scene)
{
    return scene->is_file ? scene->name : NULL;
}

const rp_diag *rp_scene_outside_path(const rp_scene *scene, int background)
{
    const rp_diag *d = background ? &scene->outside_bg : &scene->outside_mask;
    return d->line ? d : NULL;
}

const char *rp_scene_text(const rp_scene *scene, size_t *len)
{
    *len = scene->text_len;
    return scene->text;
}

const rp_settings *rp_scene_settings(const rp_scene *scene)
{
    return &scene->settings;
}

void rp_scene_stats_get(const rp_scene *scene, rp_scene_stats *stats)
{
    *stats = scene->stats;
}

size_t rp_scene_event_count(const rp_scene *scene)
{
    return scene->n_events;
}

const rp_event *rp_scene_event(const rp_scene *scene, size_t i)
{
    return i < scene->n_events ? &scene->events[i] : NULL;
}
