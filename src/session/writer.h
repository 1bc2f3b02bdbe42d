/* writer.h - the last stage of the frame pipeline: a thread that takes rendered frames in
 * timeline order and hands each to the session's sinks (sink.h), so encoding frame k
 * overlaps simulating and rendering frame k+1.
 *
 * The main thread acquires a free slot, renders into it, and submits it; a small ring of
 * slots bounds the memory. Frames are written in submission order by one thread, so the
 * output is the same as writing them inline. */
#ifndef RP_WRITER_H
#define RP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "session/sink.h"

typedef struct rp_writer rp_writer;

typedef struct rp_writer_opts {
    rp_sinks *sinks;    /* required, opened; not owned */
    rp_frame frame;     /* the frames' geometry (index, data and heights are filled in) */
    size_t frame_bytes; /* pixel bytes per frame */
    size_t cells;       /* heights per frame to keep with it, 0 = none */
    size_t aov_bytes[RP_AOV_KINDS]; /* bytes of each --aov pass with it, 0 = none */
    int slots;                      /* frames in flight, >= 1 */
} rp_writer_opts;

/** Start the writer thread. Returns RP_OK, RP_ERR_NOMEM or RP_ERR_INVALID. */
int rp_writer_new(rp_writer **out, const rp_writer_opts *opts);

/** A free slot to render the next frame into (frame_bytes of pixels), and, when the sinks
 * want heights or --aov passes, buffers for them in *heights and aov[kind] (else NULL).
 * Blocks while every slot is in flight. Returns NULL once the writer has failed (see
 * rp_writer_finish). */
uint8_t *rp_writer_acquire(rp_writer *w, int16_t **heights, uint16_t *aov[RP_AOV_KINDS]);

/** Number of frames in flight: the writer's slots (for memory estimates). */
#define RP_WRITER_SLOTS 3

/** Queue the slot last acquired as timeline frame k. */
void rp_writer_submit(rp_writer *w, int64_t k);

/** Wait for every queued frame, stop the thread, free. Returns RP_OK or the first sink's
 * error, described in *err. *w is NULL afterwards; a NULL *w is a no-op. */
int rp_writer_finish(rp_writer **w, rp_error *err);

#endif
