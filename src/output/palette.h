/* palette.h - 256 colours for a GIF (rockpool(1) OUTPUT FILES): a palette by median cut of
 * the colours of the clip's first second (at most 64 MiB of frames), and frames mapped to
 * it with an 8x8 ordered (Bayer) dither, which stays still from frame to frame where error
 * diffusion would crawl. Integers only: the same frames give the same bytes everywhere. */
#ifndef RP_PALETTE_H
#define RP_PALETTE_H

#include <stdint.h>

typedef struct rp_palette {
    int n;                /* colours, 1..256 */
    uint32_t argb[256];   /* 0xAARRGGBB, alpha 0xff (FFmpeg's PAL8 layout) */
    uint8_t lut[1 << 15]; /* for each 5-bit-per-channel colour, the nearest entry */
} rp_palette;

/** The palette of n RGB24 frames (each w x h, rows packed, frames[i]): boxes of their
 * colours (5 bits a channel) split at the median of their longest side, the box with the
 * largest pixels x side^2 first, until 256; each colour is its box's mean. 0, or -1 when
 * out of memory. */
int rp_palette_build(rp_palette *p, const uint8_t *const *frames, int n, int w, int h);

/** Map an RGB24 frame to palette indices (out rows of stride bytes), dithered. */
void rp_palette_map(const rp_palette *p, const uint8_t *rgb, int w, int h, uint8_t *out,
                    int stride);

#endif
