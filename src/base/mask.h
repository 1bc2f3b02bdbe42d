/* mask.h - the rule that makes a pixel of a wall mask a wall (rockpool-scene(5) `wall mask`),
 * shared by the image loader and the engine's `walls visible image`. */
#ifndef RP_MASK_H
#define RP_MASK_H

#include <stdint.h>

/** The wall rule of a mask's RGB pixel: its BT.601 luma in 8-bit fixed point,
 * (77 R + 150 G + 29 B + 128) >> 8, is at least 128. */
static inline int rp_mask_is_wall(const uint8_t *p)
{
    return ((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8) >= 128;
}

#endif
