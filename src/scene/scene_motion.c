/* scene_motion.c - the scene language's statements of motion (rockpool-scene(5) PATHS,
 * MOVING WALLS, EMITTERS, KEYS): `path`, `key`, `stroke along`, `wall ... along` and
 * `emit`. Words are read by scene_lex.c; the paths and keys are kept by scene.c; the
 * timeline (events.c) samples them on the simulation's steps. */
#include "scene/scene_lex.h"

#include <stdio.h>
#include <string.h>

/* Read the next word without consuming it when it is not `word`: 1 when it was. */
static int take_word(parser *ps, const char *word, tok *t)
{
    const char *save = ps->p;
    int save_col = ps->col;
    if (rp_lex_next(ps, t) || !t->s || !rp_lex_is(*t, word)) {
        ps->p = save;
        ps->col = save_col;
        return 0;
    }
    return 1;
}

static int is_name(tok t)
{
    if (t.n == 0 || t.n >= 64 || (t.s[0] >= '0' && t.s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < t.n; i++) {
        char c = t.s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* `path NAME [smooth|linear] X,Y X,Y ... [times T T ...]` */
int rp_scene_parse_path(parser *ps, tok kw)
{
    rp_path p;
    tok t;
    char b[64];
    int ret;
    memset(&p, 0, sizeof p);
    p.line = ps->line;
    p.col = kw.col;
    p.text = ps->ls;
    p.text_len = ps->llen;
    if ((ret = rp_lex_want_word(ps, "a name", "path", &t)))
        return ret;
    if (!is_name(t))
        return rp_lex_fail(ps, t.col,
                           "path name '%s' must be letters, digits, '-' or '_' (not starting "
                           "with a digit, at most 63 bytes)",
                           SHOW(t, b));
    if (rp_scene_find_path(ps->sc, t.s, t.n))
        return rp_lex_fail(ps, t.col, "path '%s' is already defined", SHOW(t, b));
    memcpy(p.name, t.s, t.n);
    tok w;
    if (take_word(ps, "smooth", &w))
        p.smooth = 1;
    else
        (void)take_word(ps, "linear", &w);
    int times_col = 0;
    for (;;) {
        const char *save = ps->p;
        int save_col = ps->col;
        if ((ret = rp_lex_next(ps, &t)))
            return ret;
        if (!t.s)
            break;
        if (rp_lex_is(t, "times")) {
            times_col = t.col;
            break;
        }
        if (p.n == RP_PATH_POINTS_MAX)
            return rp_lex_fail(ps, t.col, "a path has at most %d points", RP_PATH_POINTS_MAX);
        ps->p = save;
        ps->col = save_col;
        if ((ret =
                 rp_lex_want_point(ps, p.n ? "the previous point" : p.name, &p.x[p.n], &p.y[p.n])))
            return ret;
        p.n++;
    }
    if (p.n < 2)
        return rp_lex_fail(ps, t.col,
                           "a path needs at least two points X,Y (it has %d): 'path NAME "
                           "[smooth] X,Y X,Y ... [times T T ...]'",
                           p.n);
    if (times_col) {
        p.has_times = 1;
        for (int i = 0; i < p.n; i++) {
            if ((ret = rp_lex_want_word(ps, "a time like 1.5s for each point", "times", &t)) ||
                (ret = rp_lex_time_part(ps, rp_lex_whole(t), &p.t[i])))
                return ret;
            if (p.t[i].is_frames)
                return rp_lex_fail(ps, t.col,
                                   "path times are in seconds or milliseconds, not "
                                   "frames");
            if (i > 0 && p.t[i].value <= p.t[i - 1].value)
                return rp_lex_fail(ps, t.col,
                                   "path time %s is not after the one before: times must "
                                   "increase",
                                   SHOW(t, b));
        }
        if ((ret = rp_lex_want_end(ps, "one time per point")))
            return ret;
    }
    ret = rp_scene_add_path(ps->sc, &p);
    if (ret == RP_ERR_TOO_LARGE)
        return rp_lex_fail(ps, p.col, "a scene has at most %d paths", RP_SCENE_PATHS_MAX);
    return ret;
}

static const char *const key_names[RP_KEY_KINDS] = {
    "azimuth", "elevation", "sun",  "depth",     "caustics",
    "sky",     "amplitude", "rain", "rain-rate", "fade",
};

/* A key's value: decimal places, range, and the factor to the stored unit. */
static const struct key_unit {
    int places;
    int64_t lo, hi; /* in units of 10^-places */
    const char *range;
    int64_t mul, div; /* stored = value * mul / div */
} key_units[RP_KEY_KINDS] = {
    {3, -360000, 360000, "-360 to 360 degrees", 1, 1},
    {3, 0, 90000, "0 to 90 degrees", 1, 1},
    {3, 100, 20000, "0.1 to 20 degrees", 1, 1},
    {3, 4, 256000, "0.004 to 256 cells", 256, 1000},
    {3, 0, 64000, "0 to 64", 256, 1000},
    {3, 0, 16000, "0 to 16", 256, 1000},
    {1, 0, 10000, "0% to 1000%", 1, 1},
    {1, 0, 10000, "0% to 1000%", 1, 1},
    {1, 0, 1000, "0% to 100%", 1, 1},
    {6, 1000, INT64_C(1000000000), "0.001 to 1000 seconds", 1, 1},
};

/* `key NAME [smooth|linear] T V T V ...` */
int rp_scene_parse_key(parser *ps, tok kw)
{
    tok t;
    char b[64];
    int what, ret = rp_lex_want_choice(ps, "key", key_names, RP_KEY_KINDS,
                                       "azimuth, elevation, sun, depth, caustics, sky, amplitude, "
                                       "rain, rain-rate or fade",
                                       &what);
    if (ret)
        return ret;
    rp_diag *at;
    rp_keys *k = rp_scene_keys_slot(ps->sc, (enum rp_key_what)what, &at);
    if (k->n)
        return rp_lex_fail(ps, kw.col, "'%s' already has keys (on line %d)", key_names[what],
                           at->line);
    if (what == RP_KEY_FADE && (ps->given.set & RP_SET_DAMPING))
        return rp_lex_fail(ps, kw.col,
                           "key fade and damping are both given: fade sets the damping, give "
                           "one");
    rp_keys keys;
    memset(&keys, 0, sizeof keys);
    tok w;
    if (take_word(ps, "smooth", &w))
        keys.smooth = 1;
    else
        (void)take_word(ps, "linear", &w);
    const struct key_unit *u = &key_units[what];
    for (;;) {
        rp_time tm;
        int64_t v;
        if ((ret = rp_lex_next(ps, &t)))
            return ret;
        if (!t.s)
            break;
        if (keys.n == RP_KEYS_MAX)
            return rp_lex_fail(ps, t.col, "at most %d keys", RP_KEYS_MAX);
        if ((ret = rp_lex_time_part(ps, rp_lex_whole(t), &tm)))
            return ret;
        if (tm.is_frames)
            return rp_lex_fail(ps, t.col, "key times are in seconds or milliseconds, not frames");
        if (keys.n && tm.value <= keys.t[keys.n - 1])
            return rp_lex_fail(ps, t.col,
                               "key time %s is not after the one before: keys must be in "
                               "order of time",
                               SHOW(t, b));
        if ((ret = rp_lex_want_word(ps, "a value", "the key's time", &t)))
            return ret;
        part num = rp_lex_whole(t);
        int pct = what == RP_KEY_AMPLITUDE || what == RP_KEY_RAIN || what == RP_KEY_RAIN_RATE;
        if (pct && !rp_lex_ends_with(num, "%"))
            return rp_lex_fail(ps, t.col, "the %s key takes a percentage, like 50%%",
                               key_names[what]);
        num.n -= pct;
        int r = rp_lex_decimal(num.s, num.n, u->places, &v);
        if (r != NUM_OK || v < u->lo || v > u->hi)
            return rp_lex_fail(ps, t.col, "%s key %s is %s (%s)", key_names[what], SHOW(t, b),
                               r == NUM_PRECISION ? "too precise" : "out of range", u->range);
        keys.t[keys.n] = tm.value;
        keys.v[keys.n++] = v * u->mul / u->div;
    }
    if (keys.n == 0)
        return rp_lex_fail(ps, t.col, "expected keys 'TIME VALUE ...' after '%s'", key_names[what]);
    *k = keys;
    rp_lex_note(ps, at, kw.col, "key %s", key_names[what]);
    return RP_OK;
}

/* `along NAME`, after stroke or wall circle/rect, when the next word is `along`. */
int rp_scene_parse_along(parser *ps, rp_event *ev)
{
    tok t;
    char b[64];
    if (!take_word(ps, "along", &t))
        return RP_OK;
    int ret = rp_lex_want_word(ps, "a path's name", "along", &t);
    if (ret)
        return ret;
    ev->along = rp_scene_find_path(ps->sc, t.s, t.n);
    ev->along_col = t.col;
    if (!ev->along)
        return rp_lex_fail(ps, t.col,
                           "unknown path '%s' (define it with 'path %s X,Y X,Y ...' "
                           "on a line before this one)",
                           SHOW(t, b), SHOW(t, b));
    return RP_OK;
}

/* A moving wall's optional `push P` (default 100). */
int rp_scene_parse_push(parser *ps, rp_event *ev)
{
    tok t;
    int64_t v = 100;
    if (take_word(ps, "push", &t)) {
        int ret = rp_lex_want_int(ps, "push", "push", 0, 8192, &v);
        if (ret)
            return ret;
    }
    ev->push = (int32_t)v;
    return RP_OK;
}

/* `emit point X Y ...` / `emit line X,Y -> X,Y ...`, then `freq F[hz] amplitude A radius R
 * [fade T]` in any order. */
int rp_scene_parse_emit(parser *ps, rp_event *ev)
{
    static const char *const kinds[] = {"point", "line"};
    tok t;
    char b[64];
    int k, ret = rp_lex_want_choice(ps, "emit", kinds, 2, "point or line", &k);
    if (ret)
        return ret;
    if (k == 0) {
        ev->kind = RP_EVENT_EMIT_POINT;
        if ((ret = rp_lex_want_coord(ps, "point", "x coordinate", 0, &ev->x)) ||
            (ret = rp_lex_want_coord(ps, "point", "y coordinate", 0, &ev->y)))
            return ret;
    } else {
        ev->kind = RP_EVENT_EMIT_LINE;
        if ((ret = rp_lex_want_point(ps, "line", &ev->x, &ev->y)) ||
            (ret = rp_lex_want_word(ps, "'->'", "the start point", &t)))
            return ret;
        if (!rp_lex_is(t, "->"))
            return rp_lex_fail(ps, t.col, "expected '->' after the start point, got '%s'",
                               SHOW(t, b));
        if ((ret = rp_lex_want_point(ps, "->", &ev->x2, &ev->y2)))
            return ret;
    }
    int have_f = 0, have_a = 0, have_r = 0, have_fade = 0;
    const char *usage = "freq F, amplitude A, radius R or fade T";
    for (;;) {
        if ((ret = rp_lex_next(ps, &t)))
            return ret;
        if (!t.s)
            break;
        int *have = rp_lex_is(t, "freq")        ? &have_f
                    : rp_lex_is(t, "amplitude") ? &have_a
                    : rp_lex_is(t, "radius")    ? &have_r
                    : rp_lex_is(t, "fade")      ? &have_fade
                                                : NULL;
        if (!have)
            return rp_lex_fail(ps, t.col, "unexpected '%s' (expected %s)", SHOW(t, b), usage);
        if (*have)
            return rp_lex_fail(ps, t.col, "'%s' given twice", SHOW(t, b));
        *have = 1;
        int64_t v;
        if (have == &have_f) {
            tok f;
            if ((ret = rp_lex_want_word(ps, "a frequency like 2hz", "freq", &f)))
                return ret;
            part num = rp_lex_whole(f);
            if (rp_lex_ends_with(num, "hz") || rp_lex_ends_with(num, "Hz"))
                num.n -= 2;
            int r = rp_lex_decimal(num.s, num.n, 3, &v);
            if (r != NUM_OK || v <= 0 || v > INT64_C(1000000000))
                return rp_lex_fail(ps, f.col,
                                   "frequency %s is not a number of Hz above 0 (up to 3 "
                                   "decimals), like 2hz",
                                   SHOW(f, b));
            ev->freq_milli = v;
            ev->freq_col = f.col;
        } else if (have == &have_a) {
            if ((ret = rp_lex_want_int(ps, "amplitude", "amplitude", 1, INT16_MAX, &v)))
                return ret;
            ev->amplitude = (int32_t)v;
        } else if (have == &have_r) {
            if ((ret = rp_lex_want_int(ps, "radius", "radius", 1, RP_RADIUS_MAX, &v)))
                return ret;
            ev->radius_lo = ev->radius_hi = (int32_t)v;
        } else {
            tok f;
            rp_time tm;
            if ((ret = rp_lex_want_word(ps, "a time like 0.5s", "fade", &f)) ||
                (ret = rp_lex_time_part(ps, rp_lex_whole(f), &tm)))
                return ret;
            if (tm.is_frames)
                return rp_lex_fail(ps, f.col, "fade is in seconds or milliseconds, not frames");
            ev->fade_us = tm.value;
        }
    }
    if (!have_f || !have_a || !have_r)
        return rp_lex_fail(ps, t.col, "missing '%s' (emit needs freq, amplitude and radius)",
                           !have_f   ? "freq F"
                           : !have_a ? "amplitude A"
                                     : "radius R");
    return RP_OK;
}
