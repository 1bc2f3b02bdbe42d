/* motion.h - the arithmetic of motion in a scene (rockpool-scene(5) PATHS, EMITTERS, KEYS),
 * integer-only so that every machine, thread count and frame rate agrees:
 * - a path: points in Q8 units (1/256 of a scene pixel) with a time for each, sampled at a
 *   time as a polyline or a uniform Catmull-Rom curve through the points;
 * - an oscillator: sin(2 pi * phase) for a phase in Q32 of a turn, from a table built with
 *   integer arithmetic;
 * - keys: values at times, interpolated linearly or smoothly (smoothstep) at a time given
 *   as an exact fraction, so two frame rates agree at the instants they share. */
#ifndef RP_MOTION_H
#define RP_MOTION_H

#include <stdint.h>

#define RP_PATH_POINTS_MAX 64
/** Named paths a scene may define (`path NAME ...` lines). */
#define RP_SCENE_PATHS_MAX 4096

/** A path resolved for one event: n points (2..RP_PATH_POINTS_MAX) in Q8 units and their
 * times t[i] (strictly increasing, in any unit, the same as the sample times'). */
typedef struct rp_path_geo {
    int n;
    int smooth; /* 1: Catmull-Rom through the points; 0: straight segments */
    int64_t x[RP_PATH_POINTS_MAX], y[RP_PATH_POINTS_MAX];
    int64_t t[RP_PATH_POINTS_MAX];
} rp_path_geo;

/** The length of segment i (i + 1 < n) in Q8 units: the chord for a polyline, the sum of
 * 16 chords for a curve (chords rounded down). */
int64_t rp_path_segment_length(const rp_path_geo *p, int i);

/** Give every point a time for constant speed from t0 to t1 (t1 > t0): t[i] = t0 +
 * floor((t1 - t0) * L_i / L), L_i the length up to point i, L the whole (a path of length
 * 0 spreads its points evenly in time). */
void rp_path_constant_speed(rp_path_geo *p, int64_t t0, int64_t t1);

/** The position at time t, in Q8 units: before t[0] the first point, after t[n-1] the
 * last; in between on segment i at u = (t - t[i]) / (t[i+1] - t[i]) (in Q16, rounded down),
 * u along the chord for a polyline, and the Catmull-Rom point for a curve (end points
 * repeated), rounded to nearest. */
void rp_path_at(const rp_path_geo *p, int64_t t, int64_t *x, int64_t *y);

/** sin(2 pi * phase / 2^32) in Q15 (-32767..32767). */
int32_t rp_sin_q15(uint32_t phase);

/** Keys: n (1..RP_KEYS_MAX) values v at strictly increasing times t (microseconds). */
#define RP_KEYS_MAX 64
typedef struct rp_keys {
    int n;
    int smooth;
    int64_t t[RP_KEYS_MAX];
    int64_t v[RP_KEYS_MAX];
} rp_keys;

/** The value at time num / den microseconds (den > 0): before the first key its value,
 * after the last its value, in between v0 + (v1 - v0) * s rounded down, s = u (linear) or
 * 3u^2 - 2u^3 (smooth), u = (t - t0) / (t1 - t0) taken to Q32 (rounded down) first. */
int64_t rp_keys_at(const rp_keys *k, int64_t num, int64_t den);

#endif
