/* pngdeflate.h - a deflate encoder made for filtered PNG rows (the PNG output's default).
 *
 * No LZ77 search: at each pixel one try for a match against the last pixel whose next
 * bytes hashed alike (found in a pass of their own where most tries match), and Huffman
 * codes built from each block's own counts. The stream is
 * a complete zlib stream (RFC 1950, 1951) that any inflater reads; its bytes depend on the
 * input alone (no machine, SIMD level or thread count changes them). */
#ifndef RP_PNGDEFLATE_H
#define RP_PNGDEFLATE_H

#include <stddef.h>
#include <stdint.h>

/** An encoder's work area (a hash table, the two-pass parse's candidates and a block's
 * tokens, about 850 KiB): one for each thread that compresses. */
typedef struct rp_pngz rp_pngz;

/** A new work area, or NULL when out of memory. */
rp_pngz *rp_pngz_new(void);

/** Free *z (nothing when NULL) and set it to NULL. */
void rp_pngz_free(rp_pngz **z);

/** The most bytes rp_pngz_compress() writes for n input bytes. */
size_t rp_pngz_bound(size_t n);

/** Compress `height` rows of `row_bytes` bytes each (a PNG's filtered image data: the filter
 * type byte, then pixels of `bpp` bytes, 1..8), stored one after the other at `rows`, into
 * a zlib stream at `out` (room for `cap` bytes). Each deflate block holds whole rows (or
 * part of one longer than 256 KiB), with codes of its own, or is stored when that is
 * smaller. Any row_bytes works; matches are tried where pixels start. Returns the stream's
 * length, or 0 when cap is less than rp_pngz_bound(row_bytes * height), bpp is out of
 * range or the input exceeds 4 GiB. Allocates nothing. */
size_t rp_pngz_compress(rp_pngz *z, const uint8_t *rows, size_t row_bytes, size_t height,
                        unsigned bpp, uint8_t *out, size_t cap);

#endif
