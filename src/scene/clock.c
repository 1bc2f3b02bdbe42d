/* clock.c - time and space of a run (see clock.h). */
#include "scene/clock.h"

#include <inttypes.h>

#include "base/common.h"

typedef __int128 i128;

/* floor(a * b / c) for a, b >= 0, c > 0, without overflow. */
static int64_t muldiv(int64_t a, int64_t b, int64_t c)
{
    return (int64_t)((i128)a * b / c);
}

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

int rp_space_resolve(rp_settings *s, int image_w, int image_h, rp_error *err)
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
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the grid %dx%d is out of range (16..%d cells a side)", gw, gh,
                            RP_MAX_SIDE);
    }
    if (s->look.mode != RP_RENDER_LIGHT && (gw != s->out_width || gh != s->out_height)) {
        return rp_error_set(
            err, RP_ERR_INVALID, 1,
            "a grid of %dx%d cells needs render light (render %s draws one cell a pixel, "
            "so its grid is the output size %dx%d)",
            gw, gh, s->look.mode == RP_RENDER_LENS ? "lens" : "offset", s->out_width,
            s->out_height);
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

/* The rate `speed` asks for: the speed in grid cells per second times the stencil's
 * slowness, rounded. */
static int64_t rate_of_speed(const rp_settings *s)
{
    const rp_sim_settings *sim = &s->sim;
    i128 slow = rp_stencil_slowness_q16(s->water.stencil);
    i128 num, den;
    if (sim->speed_pct) { /* millionths of a percent of the width per second */
        num = (i128)sim->speed * s->water.width * slow;
        den = (i128)100000000 * 65536;
    } else { /* milli scene pixels per second */
        num = (i128)sim->speed * s->water.width * slow;
        den = (i128)1000 * s->width * 65536;
    }
    return (int64_t)((2 * num + den) / (2 * den));
}

int rp_clock_resolve(rp_settings *s, rp_clock *c, rp_error *err)
{
    rp_time_settings *t = &s->time;
    unsigned given = s->set;
    if ((given & RP_SET_SPEED) && (given & RP_SET_RATE)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "speed and rate are both given: speed sets the rate, give one");
    }
    if ((given & RP_SET_FADE) && (given & RP_SET_DAMPING)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "fade and damping are both given: fade sets the damping, give one");
    }
    if (!(given & RP_SET_RATE) && s->sim.speed > 0) {
        int64_t r = rate_of_speed(s);
        if (r < 1 || r > RP_RATE_MAX) {
            return rp_error_set(
                err, RP_ERR_INVALID, 1,
                "the speed asks for %lld steps per second on a %d-cell-wide grid, outside "
                "1..%d: give a %s speed or another grid",
                (long long)r, s->water.width, RP_RATE_MAX, r < 1 ? "higher" : "lower");
        }
        t->rate = (int)r;
    }
    if (t->rate == 0 && t->fps_den != 1) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the frame rate %d/%d is not whole: one step per frame needs a "
                            "whole frame rate; give the simulation a rate (rate N)",
                            t->fps, t->fps_den);
    }
    int64_t per_frame = t->rate ? ((int64_t)t->rate * t->fps_den + t->fps - 1) / t->fps : 1;
    if (per_frame > RP_STEPS_PER_FRAME_MAX) {
        return rp_error_set(
            err, RP_ERR_INVALID, 1,
            "rate %d at %d/%d frames per second is %lld steps a frame, over the limit of "
            "%d: lower the rate or the speed, or raise the frame rate",
            t->rate, t->fps, t->fps_den, (long long)per_frame, RP_STEPS_PER_FRAME_MAX);
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
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
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
