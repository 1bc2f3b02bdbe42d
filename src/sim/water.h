/* water.h - the ripple simulation: two int16 height buffers stepped by an integer
 * filter (Hugo Elias, "2D Water"; seeds 000/001), with the stencils, damping,
 * boundaries, wall cells and drop shapes of rockpool(1) FRAME LOOP, rockpool-scene(5).
 *
 * No I/O and no allocation after rp_water_new(). All arithmetic is integer, so the
 * same parameters and drops give the same heights on every machine. */
#ifndef RP_WATER_H
#define RP_WATER_H

#include <stdint.h>

#include "base/common.h"
#include "scene/params.h" /* rp_water_params, rp_drop */

typedef struct rp_pool rp_pool;

typedef struct rp_water rp_water;

/** Allocate a still (all-zero) water surface. Returns RP_ERR_INVALID for bad parameters,
 * RP_ERR_TOO_LARGE if width*height does not fit, RP_ERR_NOMEM. *out is NULL on failure. */
int rp_water_new(rp_water **out, const rp_water_params *params);

/** Free and null the handle; rp_water_free(NULL) and a NULL *w are no-ops. */
void rp_water_free(rp_water **w);

const rp_water_params *rp_water_params_of(const rp_water *w);

/** Heights after the last step (the buffer to render), width*height, row-major. */
const int16_t *rp_water_heights(const rp_water *w);

/** Per row of rp_water_heights, 1 when every cell of the row is 0 (0: not known to be):
 * valid until the water next changes. */
const uint8_t *rp_water_still_rows(const rp_water *w);

/** The previous state (frame before), for checkpoints. */
const int16_t *rp_water_prev(const rp_water *w);

/** Replace both buffers (checkpoint restore). Wall cells are re-zeroed. */
void rp_water_load(rp_water *w, const int16_t *cur, const int16_t *prev);

/** Apply one drop to the current buffer, saturating; wall cells stay 0. */
void rp_water_drop(rp_water *w, const rp_drop *drop);

/** Allocate the wall bookkeeping (5 bytes a cell) now, so adding walls later allocates
 * nothing; call at set-up when walls will come. RP_OK or RP_ERR_NOMEM. Without it the
 * first wall allocates, and walls are silently not added if that fails. */
int rp_water_reserve_walls(rp_water *w);

/** Mark cells as wall (held at 0 from now on). The mask is width*height bytes,
 * nonzero = wall. Walls accumulate: earlier walls stay. */
void rp_water_add_walls(rp_water *w, const uint8_t *mask);

/** Moving walls: rp_water_move_release frees every cell they held; rp_water_move_hold then
 * holds cell (x, y) at 0 from now on (unless it is a wall or held already), giving its
 * current height in *cur (0 if it was held) so the caller can move that water. Held cells
 * carry bit 1 (value 2) in rp_water_walls; the walls' own cells bit 0. */
void rp_water_move_release(rp_water *w);
int rp_water_move_hold(rp_water *w, int x, int y, int32_t *cur);

/** Whether cell (x, y) is held at 0 (a wall, a moving wall's cell, or a held edge). */
int rp_water_is_held(const rp_water *w, int x, int y);

/** Add v to the current height of cell (x, y), saturating; held and off-grid cells stay. */
void rp_water_add(rp_water *w, int x, int y, int32_t v);

/** The wall cells (width*height bytes, bit 0 = wall, bit 1 = a moving wall's), or NULL when
 * no wall was added. */
const uint8_t *rp_water_walls(const rp_water *w);

/** Set the damping to a Q16 factor (1..65536) from the next step on (keyed fade). */
void rp_water_set_damping_q16(rp_water *w, int32_t q16);

/** Wall shapes (cells of the rectangle / disc d2 <= r*r, clipped to the grid). */
void rp_water_add_wall_rect(rp_water *w, int x, int y, int width, int height);
void rp_water_add_wall_circle(rp_water *w, int cx, int cy, int r);

/** One time step: for each cell n = S(cur) - prev, damped, saturated into prev; then the
 * buffers swap. pool may be NULL (single thread); the result never depends on it. */
void rp_water_step(rp_water *w, rp_pool *pool);

/** n steps (n >= 0), exactly as n calls of rp_water_step; rows are advanced several steps
 * while they are in cache where the grid allows it (see water.c). The first such call
 * allocates a few rows a thread of scratch (when that fails, it steps one at a time). */
void rp_water_steps(rp_water *w, rp_pool *pool, int n);

/** Grids of fewer than this many cells step on the calling thread alone, the pool unused
 * (default 32768; a negative value restores it). Process-wide: tests set 0 so their small
 * grids exercise the threads. */
void rp_water_set_share_cells(int cells);

/** The profile value a drop gives a cell at squared distance d2 from its centre
 * (the caller has checked the cell is covered). Exposed for tests. */
int32_t rp_drop_value(const rp_drop *drop, int64_t d2);

#endif
