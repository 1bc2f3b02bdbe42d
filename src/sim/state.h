/* state.h - simulation checkpoints (--save-state / --load-state): a versioned binary
 * file that lets a chunk of a render start at frame k without simulating from 0.
 *
 * Layout, all little-endian:
 *   magic "RPSTATE\0" (8 bytes), u32 version (2), u32 width, u32 height, u32 reserved 0,
 *   u64 frame (the next frame to simulate), u64 key (rp_state_key of the run),
 *   u64 inputs (rp_state_inputs: the content of the scene text, masks, background and sky image),
 *   int16 cur[width*height], int16 prev[width*height],
 *   u64 checksum (FNV-1a 64 of every byte before it). */
#ifndef RP_STATE_H
#define RP_STATE_H

#include <stdint.h>
#include <stdio.h>

#include "scene/scene.h"
#include "scene/timeline.h"
#include "sim/water.h"

#define RP_STATE_VERSION 2

/** A 64-bit key of everything that decides the state at frame k: the simulation
 * settings (size, stencil, boundary, damping) and every timeline item of frames 0..k-1.
 * Two runs with equal keys have equal states at frame k. */
uint64_t rp_state_key(const rp_settings *s, const rp_timeline *tl, int64_t k);

/** A 64-bit digest of the content of every input a checkpoint depends on: the scene's
 * text, each wall mask file the timeline names (once per path), the background image file
 * and the sky image file (background and sky may be NULL or empty; without a sky image
 * the digest is what it was before sky images existed). Files are read whole; RP_ERR_IO
 * with a reason when one cannot be read. */
int rp_state_inputs(const rp_scene *scene, const rp_timeline *tl, const char *background,
                    const char *sky, uint64_t *digest, rp_error *err);

/** Encode the water's buffers as the state at frame k into a malloc'd buffer (*buf, *len).
 * Returns RP_OK or RP_ERR_NOMEM. */
int rp_state_encode(const rp_water *w, int64_t k, uint64_t key, uint64_t inputs, uint8_t **buf,
                    size_t *len);

/** Read a checkpoint header and buffers. Checks magic, version, size against the water, a
 * frame index >= 0, and the checksum; *frame, *key and *inputs are what the file says (the
 * caller compares them). A file of an older format is refused with a message saying so.
 * On success the buffers are loaded into w. Errors: RP_ERR_FORMAT (bad input) with a reason,
 * RP_ERR_NOMEM. */
int rp_state_read(FILE *f, rp_water *w, int64_t *frame, uint64_t *key, uint64_t *inputs,
                  rp_error *err);

#endif
