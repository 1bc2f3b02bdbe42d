/* clock.h - time and space of a run (rockpool(1) TIME AND SPACE): the scene's size, the
 * output size and the simulation grid; the simulation's clock (a rate of its own, or one
 * step per frame) derived from `speed`, the damping derived from `fade`, the preroll; and
 * which step each frame shows. Integer arithmetic only, so every machine agrees.
 *
 * With a rate R steps per second and fps N/D, frame k shows the state after
 * P + floor(k * R * D / N) steps (P = floor(preroll * R)); item s of the timeline is
 * applied before step s. With one step per frame (the seed presets), frame k shows
 * P + k + 1 steps: events of frame k, then its step, as the seeds do. */
#ifndef RP_CLOCK_H
#define RP_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "rpcore.h" /* rp_scene */
#include "scene/settings.h"

typedef struct rp_clock {
    int64_t rate; /* steps per second; 0 = one step per frame */
    int fps, fps_den;
    int64_t preroll; /* steps simulated before frame 0 */
} rp_clock;

/** Sizes: the scene's size (given, else the background's image_w x image_h when known,
 * else from -s, else 640x480), the output size (-s, else the scene's; for presets whose
 * grid is the output (seed presets) -s is the scene's size too), and the
 * grid (water.width x water.height): `grid WxH` or `N%` of the scene, else derived from
 * the scene size alone (rockpool) or the output size (seed presets). RP_ERR_INVALID with
 * a message when the grid is out of range (16 cells a side .. the output's limits) or a
 * render mode other than `light` is asked for a grid that is not the output size: placed
 * at the scene statement it is about (the later of two, naming the other's line) when the
 * setting is scene's (scene may be NULL: no places), naming the option when s->over says
 * the caller gave it. */
int rp_space_resolve(rp_settings *s, const rp_scene *scene, int image_w, int image_h,
                     rp_error *err);

/** The clock, from the resolved sizes: the rate (`rate`, or derived from `speed` and the
 * stencil's propagation speed), checked against RP_RATE_MAX and RP_STEPS_PER_FRAME_MAX;
 * the damping from `fade`; the preroll in steps. Writes s->time.rate and s->water's
 * damping. RP_ERR_INVALID with a message (speed together with rate, fade with damping,
 * rates out of range), RP_ERR_TOO_LARGE for a preroll over RP_PREROLL_MAX_WORK; placed as
 * rp_space_resolve places its errors. */
int rp_clock_resolve(rp_settings *s, const rp_scene *scene, rp_clock *c, rp_error *err);

/** Steps simulated when frame k (k >= 0) is shown. */
int64_t rp_clock_steps(const rp_clock *c, int64_t k);

/** 1 / (the stencil's propagation speed in cells per step), Q16: the measured speed of a
 * ring's leading edge, a little below the long-wave speed of the discrete wave equation
 * each stencil is (sqrt(1/2), sqrt(3/4) and sqrt(3/8) cells per step for 4, 8 and iso). */
int64_t rp_stencil_slowness_q16(enum rp_stencil stencil);

/** The Q16 damping factor whose n-th power is closest to 1/2 from above: an amplitude
 * half-life of n steps (n >= 1). Integer-only. */
int32_t rp_half_life_q16(int64_t n);

#endif
