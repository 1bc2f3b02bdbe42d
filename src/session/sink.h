/* sink.h - where a session's frames go: a list of sinks fed through one interface, each
 * from a const table of kinds (the encoded output, --hash lines, --dump-heights), in the
 * manner of dav1d's tools/output/output.c. A new per-frame output is one kind here.
 *
 * Life of a list: add every sink, rp_sinks_open() (temporary files appear), one
 * rp_sinks_write() per frame in timeline order (from the writer thread), then
 * rp_sinks_close(): every sink is finished first and only then are files moved into
 * place, so a failure in any sink leaves nothing that looks complete; or rp_sinks_abort().
 * Paths are validated before any sink opens (rp_sinks_check). */
#ifndef RP_SINK_H
#define RP_SINK_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/output.h"
#include "rockpool.h"

/** What a sink is opened with; each kind reads the fields it needs. */
typedef struct rp_sink_cfg {
    const char *path; /* file the sink writes (NULL for a stream) */
    int overwrite;
    /* the output stream (size, pixel layout, threads; for output also the encoder and
     * container): every sink's memory figure reads it */
    const rp_output_spec *out;
    FILE *stream;           /* hash: where the lines go */
    size_t cells;           /* heights: cells per frame */
    const char *const *aov; /* aov: RP_AOV_KINDS patterns, NULL where not wanted; the
                             * PNG settings (first frame, count, -y, level) from out */
    const char *hash_algo;  /* hash, verify: hash.h's name (NULL: md5 / the manifest's) */
    int threads;            /* hash, verify: hashing threads (rp_hasher) */
    const char *dir;        /* verify: where the differing frame goes (NULL: the manifest's) */
    int part;               /* verify: --start/--end: the manifest may hold more frames */
    const char *ref;        /* verify: expected frames, a PNG pattern, or NULL */
    /* verify: room (2 * RP_VERIFY_NAME_MAX bytes, or NULL) where paths puts the PNG patterns
     * of what a difference writes, STEM.actual-FRAME.png and STEM.diff-FRAME.png, so that
     * they are checked against the run's inputs and outputs before anything is rendered */
    char *names;
    /* verify: bytes of --max-memory the run's estimate leaves over (set before the checks;
     * the manifest may take them and its own figure) and the stop flag, looked at while
     * the manifest is read */
    int64_t memory_left;
    volatile sig_atomic_t *stop;
    /* stats: drops started in a timeline frame (called on the writer thread). */
    size_t (*drops)(const void *ctx, int64_t frame);
    const void *drops_ctx;
} rp_sink_cfg;

typedef struct rp_sink_kind {
    const char *name;  /* in messages: "--dump-heights", ... */
    size_t priv_size;  /* zeroed private state handed to every callback */
    int wants_heights; /* frames must carry heights */
    /* Checks that touch nothing (paths, settings); may be NULL. */
    int (*check)(const rp_sink_cfg *cfg, rp_error *err);
    int (*open)(void *priv, const rp_sink_cfg *cfg, rp_error *err);
    int (*write)(void *priv, const rp_frame *frame, rp_error *err);
    /* Flush and close; files stay under their temporary names. */
    int (*finish)(void *priv, rp_error *err);
    /* Move the files into place; release everything whatever the result. */
    int (*commit)(void *priv, rp_error *err);
    /* Remove temporary files, release everything. */
    void (*abort)(void *priv);
    /* Frames written (output sink only; may be NULL). */
    int64_t (*frames)(const void *priv);
    /* Bytes the sink holds while the run lasts (frame copies, encoders), for the
     * session's memory estimate; NULL: little. */
    double (*memory)(const rp_sink_cfg *cfg);
    /* The files the sink writes or reads, for rp_paths_check: at most RP_SINK_PATHS
     * appended to uses, their count returned; NULL: none (a stream). */
    int (*paths)(const rp_sink_cfg *cfg, rp_path_use *uses);
} rp_sink_kind;

#define RP_SINK_PATHS 4

extern const rp_sink_kind rp_sink_output; /* the encoded output (video, PNG, Y4M, framemd5) */
/* "FRAME HASH" lines of the RGB24 bytes ("FRAME ALGO:HASH" for an algorithm other than
 * MD5, ALGO lowercase as hash.h names it), hashed on cfg->threads threads, in frame order */
extern const rp_sink_kind rp_sink_hash;
/* The hash sink's memory figure, which --verify's shares. */
double rp_sink_hash_memory(const rp_sink_cfg *cfg);
extern const rp_sink_kind rp_sink_heights; /* int16 LE heights, grid_w*grid_h a frame */
extern const rp_sink_kind rp_sink_aov;     /* --aov: 16-bit PNG sequences (sink_aov.c) */

/** How messages name the --aov output of a kind (rp_name): "--aov height", or
 * "rp_run.aov[RP_AOV_HEIGHT]" (a kind out of range: "--aov", "rp_run.aov"). */
const char *rp_aov_option(int kind);
/* --verify (sink_verify.c): each frame's hash against a manifest (cfg->path); the first
 * difference fails with RP_ERR_MISMATCH after writing the frame as PNG */
extern const rp_sink_kind rp_sink_verify;
/* --stats (sink_stats.c): a CSV line per frame, "frame,time,energy,peak,drops" */
extern const rp_sink_kind rp_sink_stats;

#define RP_SINKS_MAX 8
#define RP_VERIFY_NAME_MAX 8200

typedef struct rp_sinks {
    int n;
    int opened;
    const rp_sink_kind *kind[RP_SINKS_MAX];
    rp_sink_cfg cfg[RP_SINKS_MAX];
    void *priv[RP_SINKS_MAX];
} rp_sinks;

/** Append a sink (cfg is copied; the strings it points at must outlive the list).
 * RP_ERR_TOO_LARGE past RP_SINKS_MAX. */
int rp_sinks_add(rp_sinks *l, const rp_sink_kind *kind, const rp_sink_cfg *cfg);

/** Run every sink's check. */
int rp_sinks_check(const rp_sinks *l, rp_error *err);

/** The sum of the sinks' memory figures, in bytes. */
double rp_sinks_memory(const rp_sinks *l);

/** Every sink's files (RP_SINK_PATHS * RP_SINKS_MAX uses at most), in the list's order,
 * appended to uses; returns their count. */
int rp_sinks_paths(const rp_sinks *l, rp_path_use *uses);

/** Whether any sink wants heights with its frames. */
int rp_sinks_want_heights(const rp_sinks *l);

/** Open every sink in order; on failure the ones opened are aborted. */
int rp_sinks_open(rp_sinks *l, rp_error *err);

/** Hand one frame to every sink in order; the first failure stops the list. */
int rp_sinks_write(rp_sinks *l, const rp_frame *frame, rp_error *err);

/** Finish every sink (the last added first), then commit every sink; on the first failure the rest
 * are aborted. *frames (may be NULL) gets the output sink's frame count. The list is empty after.
 */
int rp_sinks_close(rp_sinks *l, int64_t *frames, rp_error *err);

/** Abort every opened sink and free the list's state. Safe to call twice. */
void rp_sinks_abort(rp_sinks *l);

#endif
