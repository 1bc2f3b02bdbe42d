/* obstacle.h - walls that move along paths (rockpool-scene(5) MOVING WALLS), in the water
 * and in the picture.
 *
 * In the water: on each step every obstacle in the water holds the cells it covers at 0
 * (as a wall does); the water a cell held when the obstacle arrives (its height) is spread
 * evenly over the free cells of the rim ahead of it (of the whole rim on the step it
 * appears or while it stands still), and a cell it leaves is water again,
 * at height 0. Moving, it pushes: each free cell of its rim rises by push * v * cos(a) * s,
 * v the cells it moved this step, a the angle between its motion and the cell's direction
 * from its centre, and s = sin(pi * e / rim) for a cell e out from its edge (the rim:
 * max(4 cells, its radius or half its smaller side)): up ahead (the bow wave), down behind
 * (the trough of the wake), by equal amounts on mirror cells, so what it adds ahead it
 * takes behind to within each cell's rounding (toward zero).
 *
 * In the picture (`walls visible`): drawn where it is at the frame's instant, at its exact
 * position in 1/256 of a cell, its edge anti-aliased over one output pixel (coverage a =
 * clamp(1/2 - e / p, 0, 1), e the edge's distance outside the pixel's centre, p one output
 * pixel), lit by the sun on a rounded rim 3 pixels wide (its colour times 1 + 1/2 w (g .
 * s), g the edge's outward direction, s the sun's along the water, w from 0 at the rim's
 * inner side to 1 at the edge), over a contact line that darkens the water by 40% x
 * clamp(1 - e / 1.5p, 0, 1) where e > -p/2. A mask moves
 * the same way: its shape is its signed distance field (rp_obstacles_shape), which says
 * inside or out and how far at any point. */
#ifndef RP_OBSTACLE_H
#define RP_OBSTACLE_H

#include <signal.h>
#include <stdint.h>

#include "scene/timeline.h"
#include "sim/water.h"

typedef struct rp_obstacles rp_obstacles;

/** Blend an opaque colour wc covering a (0..65536) of pixel p: RGB24 (bpp 3) in place; RGBA
 * with straight alpha (bpp 4, the --alpha layer) as wc over the layer: alpha a + A (1 - a),
 * colour (wc a + C A (1 - a)) / that alpha, rounded. */
static inline void rp_blend_px(uint8_t *p, int bpp, const uint8_t *wc, int32_t a)
{
    if (bpp == 3) {
        for (int c = 0; c < 3; c++)
            p[c] = (uint8_t)((p[c] * (65536 - a) + wc[c] * a + 32768) >> 16);
        return;
    }
    int64_t under = (int64_t)p[3] * (65536 - a), den = (int64_t)a * 255 + under;
    for (int c = 0; c < 3 && den > 0; c++)
        p[c] = (uint8_t)(((int64_t)wc[c] * a * 255 + p[c] * under + den / 2) / den);
    p[3] = (uint8_t)((den + 32768) >> 16);
}

/** State for the obstacles of n events (item ids 0..n-1). */
int rp_obstacles_new(rp_obstacles **o, size_t n);
/** The bytes rp_obstacles_new() allocates for n events. */
double rp_obstacles_bytes(size_t n);
void rp_obstacles_free(rp_obstacles **o);

/** Make the shape of the mask obstacle of item it (it->mask_path set; it->w x it->h in
 * 1/256 cell) from mask, the mask's image stretched to the gw x gh grid (1 = wall) as a
 * still wall mask is: the image is sampled about once a cell over the obstacle's size, and
 * its signed distance field (a chamfer distance, 1/256 cell) kept, bordered by its rim, so
 * the obstacle covers, pushes and is drawn as a circle or rectangle is. Once per obstacle;
 * items of a mask obstacle whose shape was never made are ignored. */
int rp_obstacles_shape(rp_obstacles *o, const rp_item *it, const uint8_t *mask, int gw, int gh);

/** The memory of a w x h (1/256 cell) mask obstacle's shape while it is made. */
int64_t rp_obstacle_mask_bytes(int64_t w, int64_t h);

/** Take an RP_ITEM_OBSTACLE item of this step (its place, motion, or its leaving). */
void rp_obstacles_item(rp_obstacles *o, const rp_item *it);

/** After a step's items: hold the covered cells and (push nonzero) move the water of the
 * cells entered and push the rims. Returns 1 if any obstacle changed this step, 0 if none
 * did, or -1 when *stop (may be NULL) was set part-way (checked every row of cells: the
 * water is then not a step's, and the run ends). */
int rp_obstacles_apply(rp_obstacles *o, rp_water *w, int push, volatile sig_atomic_t *stop);

/** Draw the obstacles in the water over rows y0..y1-1 of a frame (ow x oh, bpp 3: RGB24, 4:
 * the RGBA layer) of a gw x gh grid, in colour rgb, each where it is at the frame's
 * instant: lead_num / lead_den steps of its last step's motion past the place the water
 * holds (rp_obstacles_lead), so the picture moves smoothly when a frame falls between
 * steps. */
void rp_obstacles_draw(const rp_obstacles *o, int64_t lead_num, int64_t lead_den, int gw, int gh,
                       int ow, int oh, const uint8_t rgb[3], int32_t sun_x, int32_t sun_y,
                       uint8_t *frame, int bpp, int y0, int y1);

/** The direction towards the sun along the water (Q15; x right, y down the frame; length
 * cos(elevation)) for rp_obstacles_draw, from the light's azimuth and elevation (mdeg), as
 * the light's own vector (light.c). */
void rp_obstacles_sun(int32_t azimuth_mdeg, int32_t elevation_mdeg, int32_t *sx, int32_t *sy);

/** The lead of frame k for rp_obstacles_draw, num / den steps. With rate R steps a second
 * and fps N/D, frame k is at step P + k R D / N (P the preroll) and shows the water after
 * n = P + floor(k R D / N) steps, whose last place was sampled at step n - 1: the lead is
 * 1 + (k R D mod N) / N. With one step per frame (rate 0), frame k is at its last sample:
 * 0. Exact integers, so every frame rate draws a wall at the same place at a shared instant. */
void rp_obstacles_lead(int64_t k, int64_t rate, int fps, int fps_den, int64_t *num, int64_t *den);

/** Whether any obstacle is in the water. */
int rp_obstacles_any(const rp_obstacles *o);

#endif
