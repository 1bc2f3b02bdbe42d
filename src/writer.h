/* writer.h - the last stage of the frame pipeline: a thread that takes rendered frames in
 * timeline order and hands each to the output backend, the --hash lines and the
 * --dump-heights file, so encoding frame k overlaps simulating and rendering frame k+1.
 *
 * The main thread acquires a free slot, renders into it, and submits it; a small ring of
 * slots bounds the memory. Frames are written in submission order by one thread, so the
 * output is the same as writing them inline. */
#ifndef RP_WRITER_H
#define RP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

typedef struct rp_writer rp_writer;

typedef struct rp_writer_opts {
    rp_output *out;      /* required; not owned */
    size_t frame_bytes;  /* RGB24 bytes per frame */
    size_t cells;        /* heights per frame (for dump) */
    FILE *hash;          /* print "INDEX MD5" lines here, or NULL */
    rp_output_file *dump; /* write int16 LE heights here, or NULL; not owned */
    int slots;           /* frames in flight, >= 1 */
} rp_writer_opts;

/** Start the writer thread. Returns RP_OK, RP_ERR_NOMEM or RP_ERR_INVALID. */
int rp_writer_new(rp_writer **out, const rp_writer_opts *opts);

/** A free slot to render the next frame into (frame_bytes of RGB), and, when dumping, a
 * buffer for a copy of its heights in *heights (else NULL). Blocks while every slot is in
 * flight. Returns NULL once the writer has failed (see rp_writer_finish). */
uint8_t *rp_writer_acquire(rp_writer *w, int16_t **heights);

/** Number of frames in flight: the writer's slots (for memory estimates). */
#define RP_WRITER_SLOTS 3

/** Queue the slot last acquired as timeline frame k. */
void rp_writer_submit(rp_writer *w, int64_t k);

/** Wait for every queued frame, stop the thread, free. Returns RP_OK or the first error
 * with its message in err. *w is NULL afterwards. */
int rp_writer_finish(rp_writer **w, char *err, size_t errlen);

#endif
