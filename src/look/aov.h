/* aov.h - the surface's passes as 16-bit pictures: the values of --aov (rockpool(1)
 * "ALPHA AND AOVS"; session/sink_aov.c writes them as PNG) and of rpcore.h's RP_PASS_HEIGHT,
 * RP_PASS_NORMAL, RP_PASS_DISPLACEMENT and RP_PASS_CAUSTICS. Integers only. */
#ifndef RP_AOV_H
#define RP_AOV_H

#include <stddef.h>
#include <stdint.h>

#include "look/light.h"

/** Rows of the surface computed at a time: the band rp_aov_surface takes holds
 * g->width * RP_AOV_BAND entries. */
#define RP_AOV_BAND 16

/** n heights as --aov height's grey samples, h + 32768: from the Q8 heights hq8 (rounded)
 * when it is not NULL, else from the grid's h. */
void rp_aov_height(const int32_t *hq8, const int16_t *h, size_t n, uint16_t *out);

/** The normal, displacement and caustics passes (each NULL when not wanted; RGB48,
 * g->width x g->height, rows packed) of the Q8 heights hq8 as light l sees them, the
 * caustics over bg (RGB24, the frame's background). band: scratch, RP_AOV_BAND rows. */
void rp_aov_surface(const rp_light *l, const rp_light_geom *g, const int32_t *hq8,
                    const uint8_t *bg, rp_light_surface *band, uint16_t *nrm, uint16_t *st,
                    uint16_t *caus);

/** rp_aov_surface of rows y0..y1-1 alone (the same values: rows are independent), so that
 * threads can share a frame, each with its own band. */
void rp_aov_surface_rows(const rp_light *l, const rp_light_geom *g, const int32_t *hq8,
                         const uint8_t *bg, rp_light_surface *band, uint16_t *nrm, uint16_t *st,
                         uint16_t *caus, int y0, int y1);

#endif
