/* texture.c - the built-in background: pool tiles with grout lines, a soft light
 * gradient and a little grain. Straight grout lines show refraction well. Integer-only
 * (a hash, no libm), so the texture is the same on every machine. */
#include "look/texture.h"

#include <stddef.h>

#include "base/common.h"

static uint32_t hash2(uint32_t x, uint32_t y)
{
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

void rp_texture_default(uint8_t *rgb, int width, int height)
{
    /* About 16 tiles across whatever the size, never smaller than 12 pixels. */
    int tile = width / 16 > 12 ? width / 16 : 12;
    int grout = tile / 12 > 1 ? tile / 12 : 1;
    int64_t span = (int64_t)width + height;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            int tx = x / tile, ty = y / tile;
            int gx = x % tile, gy = y % tile;
            uint32_t h = hash2((uint32_t)tx, (uint32_t)ty);
            uint32_t g = hash2((uint32_t)x, (uint32_t)y);
            /* light falls from the top left: up to +40 there, 0 at the bottom right */
            int light = (int)(40 * (span - x - y) / (span ? span : 1));
            int grain = (int)(g & 7) - 3;
            int r, gr, b;
            if (gx < grout || gy < grout) {
                r = 200;
                gr = 214;
                b = 210; /* grout */
            } else {
                int v = (int)(h % 24) - 12; /* tile-to-tile variation */
                r = 22 + v / 2;
                gr = 120 + v;
                b = 160 + v;
                if ((h >> 8) % 11 == 0) { /* an occasional darker accent tile */
                    r -= 10;
                    gr -= 45;
                    b -= 40;
                }
            }
            uint8_t *p = rgb + ((size_t)y * width + x) * 3;
            p[0] = rp_sat8(r + light + grain);
            p[1] = rp_sat8(gr + light + grain);
            p[2] = rp_sat8(b + light + grain);
        }
    }
}
