/* texture.h - the built-in procedural background (no file needed): integer-only, so
 * it is the same on every machine. */
#ifndef RP_TEXTURE_H
#define RP_TEXTURE_H

#include <stdint.h>

/** Fill width x height RGB24 with the default pool-bed texture. */
void rp_texture_default(uint8_t *rgb, int width, int height);

#endif
