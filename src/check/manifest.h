/* manifest.h - verification manifests for --verify: the frame hashes a render must
 * reproduce, read from
 *  - a framemd5 or framehash file as FFmpeg's muxers write it (libavformat/hashenc.c,
 *    framehash.c; with or without the #software line), or rockpool's own -f framemd5 /
 *    -f framehash output:
 *        #format: frame checksums        (optional, as are all '#' lines)
 *        #version: 2
 *        #hash: MD5                      (absent: MD5, as old framemd5 files)
 *        #tb 0: 1/30
 *        #media_type 0: video
 *        #codec_id 0: rawvideo
 *        #dimensions 0: 640x360
 *        #stream#, dts,        pts, duration,     size, hash
 *        0,          0,          0,        1,   691200, 4ed4b2fd77c44813f5b6bde2bcb7cb22
 *    Frame lines are "stream, dts, pts, duration, size, hash"; a line's frame is its pts
 *    in the time base (rp_manifest_check() turns it into a frame index at the run's rate);
 *    size is the bytes hashed (width*height*3 for rgb24).
 *  - --hash lines, "FRAME HASH" (a timeline frame index and a hex hash), one per line.
 *    The hash may carry an algorithm prefix, "FRAME ALGO:HASH" (e.g. "12 crc32:3cab2033",
 *    the algorithm as hash.h names it), and a "#hash: ALGO" line may name it for the
 *    whole file; without either the algorithm is --hash-algo's, else md5. Other '#'
 *    lines and blank lines are ignored.
 * Hex digits are case-insensitive and stored lowercase. Frames must be strictly
 * increasing. Errors name the 1-based line (and column) in an rp_diag. */
#ifndef RP_MANIFEST_H
#define RP_MANIFEST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "check/hash.h"
#include "scene/scene.h"

enum rp_manifest_kind {
    RP_MANIFEST_FRAMEHASH = 1, /* framemd5 / framehash lines */
    RP_MANIFEST_HASH_LINES,    /* "FRAME HASH" lines */
};

typedef struct rp_manifest_frame {
    int64_t frame;    /* pts as read; a timeline frame index after rp_manifest_check() */
    int line;         /* 1-based line it was read from */
    const char *hash; /* hex_len lowercase hex digits, in the manifest's hash table */
} rp_manifest_frame;

typedef struct rp_manifest {
    enum rp_manifest_kind kind;
    const char *algo;    /* canonical algorithm name ("MD5", "CRC32", "XXH3"), static */
    int algo_line;       /* line that named it (#hash or a prefix), 0 if implied */
    int hex_len;         /* hex digits of one hash */
    int width, height;   /* from #dimensions, 0 if absent */
    int tb_num, tb_den;  /* from #tb, 0/0 if absent */
    char media_type[32]; /* from #media_type, "" if absent */
    char codec[32];      /* from #codec_id, "" if absent */
    int64_t frame_size;  /* the size column (the same on every line), -1 if absent */
    size_t count;        /* frames, >= 1 */
    rp_manifest_frame *frames;
    char *hashes; /* every frame's hash, hex_len + 1 bytes each, in frame order */
} rp_manifest;

/* The longest line a manifest may hold: a frame line of five 64-bit numbers padded as
 * FFmpeg pads them and a SHA-512 hash is under 300 bytes, header lines are shorter. A
 * longer line (a binary file, /dev/zero) is refused once read, before any more is. */
#define RP_MANIFEST_LINE_MAX 4096

/** Bytes that reading and holding a manifest file of file_size bytes may take at most
 * (rp_manifest_load's buffers, and a frame for every line that could be one): a memory
 * figure known before the file is read. */
int64_t rp_manifest_memory(int64_t file_size);

/** Parse a manifest held in text (len bytes; NUL bytes make it "not a manifest").
 * default_algo names the algorithm of --hash lines that do not name one (NULL: md5); a
 * framehash file without #hash is MD5. filename is the diagnostic's file.
 * Errors (RP_ERR_FORMAT, err's diagnostic at the line; RP_ERR_NOMEM): not a manifest, a
 * truncated line, bad hex, a hash whose length does not match the algorithm, an unknown
 * algorithm, frames out of order or duplicated, header lines that make no sense, a
 * stream other than rawvideo video (ffmpeg -c copy hashes packets), no frames at all.
 * *out is NULL on failure. */
int rp_manifest_parse(rp_manifest **out, const char *text, size_t len, const char *filename,
                      const char *default_algo, rp_error *err);

/** Read a file (a pipe or a device too) and parse it line by line, holding one line and
 * the frames read. max_bytes (0: no limit) bounds what that takes: a regular file whose
 * rp_manifest_memory() is over it is refused before it is read, and any other stops
 * being read when its frames reach it (RP_ERR_TOO_LARGE, err says so). A line longer
 * than RP_MANIFEST_LINE_MAX is RP_ERR_FORMAT. When *stop (may be NULL) becomes non-zero
 * the read stops within a few thousand lines (RP_ERR_INTERRUPTED). RP_ERR_IO (err names
 * the file and the reason) if it cannot be read. Every error is bad input but
 * RP_ERR_NOMEM. */
int rp_manifest_load(rp_manifest **out, const char *path, const char *default_algo,
                     int64_t max_bytes, volatile sig_atomic_t *stop, rp_error *err);

/** Free a manifest and null *m; NULL and a NULL *m are no-ops. */
void rp_manifest_free(rp_manifest **m);

/** The settings of a run to verify. */
typedef struct rp_manifest_run {
    int width, height;     /* output frame size */
    int fps_num, fps_den;  /* frame rate */
    int64_t first_frame;   /* timeline index of the first frame rendered */
    int64_t frame_count;   /* frames rendered */
    const char *pix_fmt;   /* the pixel format hashed: NULL or "rgb24" */
    const char *hash_algo; /* --hash-algo as given, NULL when not given */
    int part;              /* the run writes part of the timeline (--start, --end): the
                            * manifest may hold more frames than it renders */
} rp_manifest_run;

/** Check a manifest against the run and turn every frame's pts into a timeline frame
 * index (pts * tb * fps, which must be a whole frame). The manifest must describe these
 * frames exactly: the same algorithm (when hash_algo is given), size (#dimensions and
 * the size column, rgb24 or rgba bytes), and frames first_frame ..
 * first_frame+frame_count-1, each once (with part, a manifest holding more frames around
 * them, e.g. of the whole clip, is fine). On mismatch RP_ERR_INVALID with a one-line
 * reason in err (its diagnostic's line is the manifest line concerned, 0 for the file as a
 * whole; no file): the CLI's exit 2. */
int rp_manifest_check(rp_manifest *m, const rp_manifest_run *run, rp_error *err);

/** A manifest error about the whole file (diag.line 0, diag.file set): its msg says the
 * file ("PATH: cannot open: ..."), as rp_error's msg stands alone without a place. The
 * functions above do it; for a caller that sets diag.file afterwards. */
void rp_manifest_error_file(rp_error *err);

/** The manifest's hash of a timeline frame index after rp_manifest_check(), or NULL if
 * it has none. Binary search. */
const rp_manifest_frame *rp_manifest_find(const rp_manifest *m, int64_t frame);

#endif
