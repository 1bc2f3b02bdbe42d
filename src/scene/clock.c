/* clock.c - time and space of a run (see clock.h). */
#include "scene/clock.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/common.h"
#include "scene/scene.h"

typedef __int128 i128;

/* floor(a * b / c) for a, b >= 0, c > 0, without overflow. */
static int64_t muldiv(int64_t a, int64_t b, int64_t c)
{
    return (int64_t)((i128)a * b / c);
}

/* ---- where a setting came from ---------------------------------------------------------- */

/* The line of the scene statement that gave s the setting of bit b; 0 when the caller gave
 * it over the scene (an option), or it is the preset's. */
static int scene_line(const rp_settings *s, const rp_scene *scene, unsigned b)
{
    return scene && (s->set & b) && !(s->over & b) ? rp_scene_setting_at(scene, b, 0, NULL) : 0;
}

/* The option of rockpool(1) that gives the setting of bit b over the scene's (a library
 * caller gives settings, not options: rp_name_options). */
static const char *option_of(unsigned b)
{
    if (!rp_name_options())
        return "given over the scene";
    switch (b) {
    case RP_SET_FPS: return "-r";
    case RP_SET_SIZE:
    case RP_SET_OUTPUT_SIZE: return "-s";
    case RP_SET_PRESET: return "--preset";
    default: return "given over the scene"; /* not an option: the caller's settings */
    }
}

static int refuse(const rp_settings *s, const rp_scene *scene, unsigned b, int value, int code,
                  rp_error *err, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Refuse (bad input, code) with the message, placed at the scene statement that gave the
 * setting of bit b (the column of its keyword, or with value of its first value) when the
 * scene gave it, else without a place. Returns code. */
static int refuse(const rp_settings *s, const rp_scene *scene, unsigned b, int value, int code,
                  rp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rp_error_vset(err, code, 1, fmt, ap);
    va_end(ap);
    if (!b || !scene_line(s, scene, b))
        return code;
    rp_scene_setting_at(scene, b, value, &err->diag);
    snprintf(err->diag.msg, sizeof err->diag.msg, "%.500s", err->msg);
    return rp_error_diag(err, code);
}

/* Settings a and b given together where one sets the other ("A and B are both given: why"):
 * placed at the later of their statements, with the other's line, when the scene gave
 * both. */
static int refuse_both(const rp_settings *s, const rp_scene *scene, unsigned a, const char *an,
                       unsigned b, const char *bn, const char *why, rp_error *err)
{
    int la = scene_line(s, scene, a), lb = scene_line(s, scene, b);
    if (!la || !lb)
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s and %s are both given: %s", an, bn, why);
    if (la < lb)
        return refuse(s, scene, b, 0, RP_ERR_INVALID, err,
                      "%s and %s (on line %d) are both given: %s", bn, an, la, why);
    return refuse(s, scene, a, 0, RP_ERR_INVALID, err, "%s and %s (on line %d) are both given: %s",
                  an, bn, lb, why);
}

/* Where the setting of bit b came from, for a message placed elsewhere: " (on line N)", its
 * option (" (-r)"), or "" for the preset's. */
static const char *from_note(const rp_settings *s, const rp_scene *scene, unsigned b, char *buf,
                             size_t len)
{
    int line = scene_line(s, scene, b);
    if (line)
        snprintf(buf, len, " (on line %d)", line);
    else if (s->over & b)
        snprintf(buf, len, " (%s)", option_of(b));
    else
        buf[0] = '\0';
    return buf;
}

/* ---- space ------------------------------------------------------------------------------ */

/* The grid a scene of sw x sh gets when none is given: the scene's own size, or at most
 * RP_AUTO_GRID_WIDTH cells wide with the scene's aspect. */
static void auto_grid(int sw, int sh, int *gw, int *gh)
{
    *gw = sw;
    *gh = sh;
    if (sw > RP_AUTO_GRID_WIDTH) {
        *gw = RP_AUTO_GRID_WIDTH;
        *gh = (int)((2 * (int64_t)sh * RP_AUTO_GRID_WIDTH + sw) / (2 * (int64_t)sw));
        if (*gh < 1)
            *gh = 1;
    }
}

int rp_space_resolve(rp_settings *s, const rp_scene *scene, int image_w, int image_h, rp_error *err)
{
    int out_given = (s->set & RP_SET_OUTPUT_SIZE) != 0;
    int output_grid = !s->sim.auto_grid; /* seed presets: grid, scene and output are one */
    if (!(s->set & RP_SET_SIZE)) {
        if (out_given && output_grid) {
            s->width = s->out_width;
            s->height = s->out_height;
        } else if (image_w > 0) {
            s->width = image_w;
            s->height = image_h;
        } else if (out_given) { /* the output's aspect, RP_AUTO_GRID_WIDTH wide at most */
            auto_grid(s->out_width, s->out_height, &s->width, &s->height);
        }
    } else if (out_given && output_grid) {
        s->width = s->out_width; /* seed presets: -s is the size of everything */
        s->height = s->out_height;
    }
    if (!out_given) {
        s->out_width = s->width;
        s->out_height = s->height;
    }
    rp_sim_settings *sim = &s->sim;
    int gw, gh;
    if (sim->grid_w > 0) {
        gw = sim->grid_w;
        gh = sim->grid_h;
    } else if (sim->grid_pct > 0) {
        gw = (int)muldiv(s->width, sim->grid_pct, 100 * INT64_C(1000000));
        gh = (int)muldiv(s->height, sim->grid_pct, 100 * INT64_C(1000000));
    } else if (output_grid) {
        gw = s->out_width;
        gh = s->out_height;
    } else {
        auto_grid(s->width, s->height, &gw, &gh);
    }
    if ((s->set & RP_SET_GRID) && (gw < 16 || gh < 16 || gw > RP_MAX_SIDE || gh > RP_MAX_SIDE)) {
        char share[96] = "";
        if (!sim->grid_w) { /* a share of the scene's size: say which size, and where from */
            int64_t frac = sim->grid_pct % 1000000;
            int digits = 6, line = scene_line(s, scene, RP_SET_SIZE);
            for (; digits > 0 && frac % 10 == 0; digits--)
                frac /= 10;
            int n = snprintf(share, sizeof share, " (%" PRId64 "%s%.*" PRId64 "%% of %dx%d",
                             sim->grid_pct / 1000000, digits ? "." : "", digits, frac, s->width,
                             s->height);
            if (out_given && output_grid) /* the output's size is the scene's */
                snprintf(share + n, sizeof share - (size_t)n, "%s)",
                         (s->over & RP_SET_OUTPUT_SIZE) ? ", given by -s" : "");
            else if (line)
                snprintf(share + n, sizeof share - (size_t)n, ", the size on line %d)", line);
            else
                snprintf(share + n, sizeof share - (size_t)n, ")");
        }
        return refuse(s, scene, RP_SET_GRID, 1, RP_ERR_INVALID, err,
                      "the grid %dx%d%s is out of range (16..%d cells a side)", gw, gh, share,
                      RP_MAX_SIDE);
    }
    if (s->look.mode != RP_RENDER_LIGHT && (gw != s->out_width || gh != s->out_height)) {
        /* the render's statement (or the preset's that chose it) against the grid's (or the
         * size's the grid comes from): placed at the later, naming the other */
        unsigned render = (s->set & RP_SET_RENDER) ? RP_SET_RENDER : RP_SET_PRESET;
        unsigned grid = (s->set & RP_SET_GRID) ? RP_SET_GRID : RP_SET_SIZE;
        int render_line = scene_line(s, scene, render), grid_line = scene_line(s, scene, grid);
        int at_grid = grid_line > render_line;
        char render_note[64] = "", grid_note[48] = "";
        if (render == RP_SET_PRESET && (s->over & RP_SET_PRESET))
            snprintf(render_note, sizeof render_note,
                     rp_name_options() ? " (--preset %s)" : " (preset %s, given over the scene)",
                     rp_preset_name(s->preset));
        else if (render == RP_SET_PRESET && render_line && !at_grid)
            snprintf(render_note, sizeof render_note, " (preset %s)", rp_preset_name(s->preset));
        else if (render == RP_SET_PRESET && render_line)
            snprintf(render_note, sizeof render_note, " (preset %s, on line %d)",
                     rp_preset_name(s->preset), render_line);
        else if (render_line && at_grid)
            snprintf(render_note, sizeof render_note, " (on line %d)", render_line);
        if (grid_line && !at_grid)
            snprintf(grid_note, sizeof grid_note, " (%son line %d)",
                     grid == RP_SET_GRID ? "" : "from the size ", grid_line);
        return refuse(s, scene, at_grid ? grid : render, 0, RP_ERR_INVALID, err,
                      "a grid of %dx%d cells%s needs render light (render %s%s draws one cell a "
                      "pixel, so its grid is the output size %dx%d%s)",
                      gw, gh, grid_note, s->look.mode == RP_RENDER_LENS ? "lens" : "offset",
                      render_note, s->out_width, s->out_height,
                      (s->over & RP_SET_OUTPUT_SIZE) ? ", given by -s" : "");
    }
    s->water.width = gw;
    s->water.height = gh;
    return RP_OK;
}

int64_t rp_stencil_slowness_q16(enum rp_stencil stencil)
{
    /* Measured: the leading edge of the rings of a smooth drop of radius 8 cells (where
     * |h| passes 5% of the field's peak) moves 0.6848, 0.8323 and 0.5840 cells a step,
     * 3-5% below the long-wave speeds sqrt(1/2), sqrt(3/4), sqrt(3/8): the discrete waves
     * disperse. tests/cli/timespace.sh measures it again. */
    switch (stencil) {
    case RP_STENCIL_4: return 95703; /* 1 / 0.6848 */
    case RP_STENCIL_8: return 78742; /* 1 / 0.8323 */
    default: return 112218;          /* 1 / 0.5840 */
    }
}

/* (q / 65536)^n in Q62, rounded down at each product. */
static uint64_t pow_q62(int32_t q, int64_t n)
{
    unsigned __int128 r = (unsigned __int128)1 << 62, b = (unsigned __int128)q << 46;
    while (n > 0) {
        if (n & 1)
            r = (r * b) >> 62;
        b = (b * b) >> 62;
        n >>= 1;
    }
    return (uint64_t)r;
}

int32_t rp_half_life_q16(int64_t n)
{
    int32_t lo = 1, hi = 65535; /* the largest q with q^n <= 1/2 */
    const uint64_t half = (uint64_t)1 << 61;
    if (n < 1)
        n = 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (pow_q62(mid, n) <= half)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* lo or lo + 1, whichever power is nearer 1/2 */
    if (lo < 65535) {
        uint64_t a = half - pow_q62(lo, n), b = pow_q62(lo + 1, n) - half;
        if (b < a)
            lo++;
    }
    return lo;
}

/* The rate `speed` asks for on a grid `cells` wide: the speed in grid cells per second
 * times the stencil's slowness, rounded. */
static int64_t rate_of_speed_at(const rp_settings *s, int cells)
{
    const rp_sim_settings *sim = &s->sim;
    i128 slow = rp_stencil_slowness_q16(s->water.stencil);
    i128 num, den;
    if (sim->speed_pct) { /* millionths of a percent of the width per second */
        num = (i128)sim->speed * cells * slow;
        den = (i128)100000000 * 65536;
    } else { /* milli scene pixels per second */
        num = (i128)sim->speed * cells * slow;
        den = (i128)1000 * s->width * 65536;
    }
    return (int64_t)((2 * num + den) / (2 * den));
}

static int64_t rate_of_speed(const rp_settings *s)
{
    return rate_of_speed_at(s, s->water.width);
}

/* A grid too narrow for the default speed (a share of the width a second: 0 steps a
 * second on a grid 1 cell wide), where the grid is the scene's size: refused as the size,
 * as it was given (-s, the scene's size line, or the background's size), with the least
 * width that takes the speed. Returns 0 when that is not the case (the speed was given,
 * or the grid is not the size). */
static int refuse_narrow(const rp_settings *s, const rp_scene *scene, int64_t r, rp_error *err)
{
    const rp_sim_settings *sim = &s->sim;
    int least = s->water.width + 1;
    char size[400], pct[32];
    if ((s->set & RP_SET_SPEED) || !sim->speed_pct || r >= 1 || s->water.width != s->width)
        return 0;
    while (least < RP_MAX_SIDE && rate_of_speed_at(s, least) < 1)
        least++;
    int64_t frac = sim->speed % 1000000;
    int digits = 6;
    for (; digits > 0 && frac % 10 == 0; digits--)
        frac /= 10;
    snprintf(pct, sizeof pct, "%" PRId64 "%s%.*" PRId64 "%%/s", sim->speed / 1000000,
             digits ? "." : "", digits, frac);
    int line = scene_line(s, scene, RP_SET_SIZE);
    if (line)
        snprintf(size, sizeof size, "the size %dx%d", s->width, s->height);
    else if ((s->over & RP_SET_OUTPUT_SIZE) && rp_name_options())
        snprintf(size, sizeof size, "-s %dx%d", s->out_width, s->out_height);
    else if (s->over & (RP_SET_SIZE | RP_SET_OUTPUT_SIZE))
        snprintf(size, sizeof size, "the size %dx%d (given over the scene)", s->width, s->height);
    else if (s->background[0])
        snprintf(size, sizeof size, "the size %dx%d of the background '%.300s'", s->width,
                 s->height, s->background);
    else
        snprintf(size, sizeof size, "the size %dx%d", s->width, s->height);
    return refuse(s, scene, RP_SET_SIZE, 1, RP_ERR_INVALID, err,
                  "%s is too narrow: the water needs a width of at least %d at its default "
                  "speed, %s of the width (width %d makes %lld steps a second, outside 1..%d); "
                  "or give the scene a rate (rate N)",
                  size, least, pct, s->width, (long long)r, RP_RATE_MAX);
}

/* What makes the run step once a frame, for a message: `rate frame` or the preset, and
 * where it was given. */
static const char *one_step_source(const rp_settings *s, const rp_scene *scene, char *buf,
                                   size_t len)
{
    unsigned b = (s->set & RP_SET_RATE) ? RP_SET_RATE : RP_SET_PRESET;
    int line = scene_line(s, scene, b);
    char name[32];
    snprintf(name, sizeof name, "%s", rp_preset_name(s->preset));
    if (b == RP_SET_RATE)
        snprintf(name, sizeof name, "frame");
    if ((s->over & b) && b == RP_SET_PRESET && !rp_name_options())
        snprintf(buf, len, "preset %s (given over the scene)", name);
    else if (s->over & b)
        snprintf(buf, len, "%s %s", b == RP_SET_RATE ? "rate" : option_of(b), name);
    else if (line)
        snprintf(buf, len, "%s %s on line %d", b == RP_SET_RATE ? "rate" : "preset", name, line);
    else
        snprintf(buf, len, "%s %s", b == RP_SET_RATE ? "rate" : "preset", name);
    return buf;
}

int rp_clock_resolve(rp_settings *s, const rp_scene *scene, rp_clock *c, rp_error *err)
{
    rp_time_settings *t = &s->time;
    unsigned given = s->set;
    char note[48], what[96];
    if ((given & RP_SET_SPEED) && (given & RP_SET_RATE))
        return refuse_both(s, scene, RP_SET_SPEED, "speed", RP_SET_RATE, "rate",
                           "speed sets the rate, give one", err);
    if ((given & RP_SET_FADE) && (given & RP_SET_DAMPING))
        return refuse_both(s, scene, RP_SET_FADE, "fade", RP_SET_DAMPING, "damping",
                           "fade sets the damping, give one", err);
    if (!(given & RP_SET_RATE) && s->sim.speed > 0) {
        int64_t r = rate_of_speed(s);
        int ret = refuse_narrow(s, scene, r, err);
        if (ret)
            return ret;
        if (r < 1 || r > RP_RATE_MAX) {
            return refuse(
                s, scene, RP_SET_SPEED, 1, RP_ERR_INVALID, err,
                "the speed asks for %lld steps per second on a %d-cell-wide grid, outside "
                "1..%d: give a %s speed, a rate, or another grid (it is the scene's size, "
                "which -s sets where the scene gives none)",
                (long long)r, s->water.width, RP_RATE_MAX, r < 1 ? "higher" : "lower");
        }
        t->rate = (int)r;
    }
    if (t->rate == 0 && t->fps_den != 1) {
        /* placed at the scene's fps, the option's named */
        return refuse(s, scene, RP_SET_FPS, 1, RP_ERR_INVALID, err,
                      "the frame rate %d/%d%s is not whole: one step per frame (%s) needs a "
                      "whole frame rate; give the simulation a rate (rate N)",
                      t->fps, t->fps_den,
                      (s->over & RP_SET_FPS) ? from_note(s, scene, RP_SET_FPS, note, sizeof note)
                                             : "",
                      one_step_source(s, scene, what, sizeof what));
    }
    int64_t per_frame = t->rate ? ((int64_t)t->rate * t->fps_den + t->fps - 1) / t->fps : 1;
    if (per_frame > RP_STEPS_PER_FRAME_MAX) {
        /* the rate's statement (or the speed's it comes from) against the frame rate's:
         * placed at the later, naming the other */
        unsigned rate = (given & RP_SET_RATE) ? RP_SET_RATE : RP_SET_SPEED;
        int at_fps = scene_line(s, scene, RP_SET_FPS) > scene_line(s, scene, rate);
        char rate_note[64], fps_note[48];
        if (rate == RP_SET_SPEED)
            snprintf(rate_note, sizeof rate_note, " (the speed's%s)",
                     at_fps ? from_note(s, scene, rate, note, sizeof note) : "");
        else
            snprintf(rate_note, sizeof rate_note, "%s",
                     at_fps ? from_note(s, scene, rate, note, sizeof note) : "");
        from_note(s, scene, RP_SET_FPS, fps_note, sizeof fps_note);
        return refuse(
            s, scene, at_fps ? RP_SET_FPS : rate, 0, RP_ERR_INVALID, err,
            "rate %d%s at %d/%d frames per second%s is %lld steps a frame, over the limit of "
            "%d: lower the rate or the speed, or raise the frame rate",
            t->rate, rate_note, t->fps, t->fps_den, at_fps ? "" : fps_note, (long long)per_frame,
            RP_STEPS_PER_FRAME_MAX);
    }
    /* clock: steps per second as a ratio */
    int64_t cn = t->rate ? t->rate : t->fps, cd = t->rate ? 1 : t->fps_den;
    if (s->sim.fade_us > 0 && !(given & RP_SET_DAMPING)) {
        int64_t n = muldiv(s->sim.fade_us, cn, cd * INT64_C(1000000));
        s->water.damping_shift = 0;
        s->water.damping_q16 = rp_half_life_q16(n);
    }
    s->water.viscosity_q16 = 0;
    if (s->sim.viscosity > 0) {
        /* v = viscosity * W^2 / rate a step (Q16), at most 0.2 (the pass stays a convex mix
         * below 1/4; only grids over about 12000 cells wide at the usual speed reach it) */
        i128 num = (i128)s->sim.viscosity * s->water.width * s->water.width * 65536 * cd;
        i128 den = (i128)1000000000 * cn;
        int64_t v = (int64_t)((2 * num + den) / (2 * den));
        s->water.viscosity_q16 = (int32_t)(v > 13107 ? 13107 : v < 1 ? 1 : v);
    }
    c->rate = t->rate;
    c->fps = t->fps;
    c->fps_den = t->fps_den;
    c->preroll = t->preroll.is_frames ? t->preroll.value
                                      : muldiv(t->preroll.value, cn, cd * INT64_C(1000000));
    double work = (double)c->preroll * s->water.width * s->water.height;
    if (work > RP_PREROLL_MAX_WORK)
        return refuse(s, scene, RP_SET_PREROLL, 1, RP_ERR_TOO_LARGE, err,
                      "the preroll is %" PRId64 " steps of a %dx%d grid, about %.3g cell "
                      "steps before frame 0, over the limit of %.0e: a shorter preroll "
                      "or a smaller grid",
                      c->preroll, s->water.width, s->water.height, work, RP_PREROLL_MAX_WORK);
    return RP_OK;
}

int64_t rp_clock_steps(const rp_clock *c, int64_t k)
{
    if (c->rate == 0)
        return c->preroll + k + 1;
    return c->preroll + muldiv(k, c->rate * c->fps_den, c->fps);
}
