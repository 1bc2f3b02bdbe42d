/* output_png.c - PNG sequence backend (rockpool(1) OUTPUT FILES): one PNG per frame, 8-bit
 * RGB (colour type 2), 8-bit RGBA for --alpha (colour type 6; premultiplied colour, which
 * PNG has no flag for: rockpool(1) ALPHA AND AOVS says so), or 16-bit grey or RGB for the
 * AOVs (colour types 0 and 2, samples big-endian as PNG stores them), written under a
 * temporary name and renamed when complete. Only IHDR, pHYs (1:1), tEXt (provenance), IDAT
 * and IEND are written - no tIME or text chunk - so the same frame always gives the same
 * bytes. The number in each name is the frame's timeline index.
 *
 * With opts->threads > 1, frames are filtered into a ring of jobs and each job is
 * compressed and written by one of that many worker threads, whole frames in parallel;
 * each file is renamed into place in frame order, so the files appear as they would from
 * one thread, and every file's bytes are the same. */
#include <stdlib.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include "base/common.h"
#include "base/oqueue.h"
#include "output/output_backend.h"
#include "output/pngdeflate.h"
#include "output/pngfilter.h"

/* How the file is made. The rows are Paeth-filtered (pngfilter.h, SSE2 or AVX2; None at
 * --png-level 0, where stored data cannot gain from a filter) into one buffer per frame,
 * which one call compresses into a complete zlib stream (header, deflate data, Adler-32);
 * the chunks around it, with their CRC-32 (libdeflate's), are written here. Deflate is
 * nearly all of the time of a PNG frame.
 *
 * The default (--png-level unset) is rockpool's own deflate for filtered rows
 * (pngdeflate.h): a match tried at each pixel against the last pixel with the same next 7
 * bytes, no search, Huffman codes per block of rows. On rendered water it writes smaller
 * files than libdeflate's fastest level, in less time (make bench measures both against
 * FFmpeg's PNG encoder). --png-level N keeps zlib's scale (0 stored, 1 fastest .. 9
 * smallest) and maps onto libdeflate's levels: N for 0..8, 12 (its slowest, smallest) for 9.
 * Paeth on every row: choosing a filter per row (the least sum of absolute differences)
 * gave larger files of rendered water and cost more. */
#define PNG_DEFAULT_DEFLATE (-1) /* rockpool's own deflate */

/* Deflated bytes per IDAT chunk. */
#define IDAT_BYTES (1 << 17)

#define PNG_MAX_WORKERS 16

/* One frame in flight: its filtered rows, and where it goes. */
typedef struct png_job {
    uint8_t *rows;
    int64_t index;
    int has_tmp; /* worked on: tmp holds the encoded file, to be renamed to name */
    char name[4096];
    char tmp[4096];
    rp_error err; /* why encoding or renaming it failed */
} png_job;

/* One encoder's compressor (libdeflate's, or rockpool's own for the default) and output
 * buffer, made once and reused for every frame. */
typedef struct png_coder {
    struct libdeflate_compressor *z;
    rp_pngz *pz;
    uint8_t *zbuf;
    size_t zcap;
} png_coder;

typedef struct png_out {
    const rp_output_spec *opts;
    int level;        /* libdeflate's level, or -1: rockpool's own deflate */
    int bpp;          /* bytes per pixel (rp_pixfmt_bytes) */
    size_t raw_bytes; /* filtered frame: height * (1 + bpp * width) */
    uint8_t *zeros;   /* the row "above" the first one */
    uint8_t *be[2];   /* 16-bit layouts: the current and previous row, big-endian */
    png_coder coder;  /* for frames encoded on the calling thread */
    uint8_t *rows;    /* their filtered rows */
    char name[4096];
    char tmp[4096];
    /* Worker threads (nworkers > 1 only), fed through an ordered queue (base/oqueue.h):
     * each job is encoded into a temporary file by a worker and renamed into place in
     * frame order on the writing thread. */
    int nworkers, njobs;
    png_coder coders[PNG_MAX_WORKERS];
    png_job *jobs;
    void **job_ptrs;
    rp_oqueue *queue;
    char *made;      /* the directories open created, in order, each ended by a NUL */
    size_t made_len; /* bytes of made used (0 = none) */
    /* The frames this run has put in place, by index - first_frame: 0 not (yet), PLACED_NEW
     * where no file was, PLACED_OVER over one (-y), which waits under its aside name
     * (rp_output_aside_name) until the run ends: removed when it succeeds or is stopped,
     * put back when it fails, so that a failed run leaves every file it found as it was. */
    uint8_t *placed;
    int64_t placed_cap;
} png_out;

enum { PLACED_NEW = 1, PLACED_OVER = 2 };

/* libdeflate's level for --png-level (-1: the default). See above. */
static int deflate_level(int png_level)
{
    if (png_level < 0)
        return PNG_DEFAULT_DEFLATE;
    return png_level == 9 ? 12 : png_level;
}

static void coder_free(png_coder *c)
{
    if (c->z)
        libdeflate_free_compressor(c->z);
    rp_pngz_free(&c->pz);
    free(c->zbuf);
    memset(c, 0, sizeof(*c));
}

/* A compressor at `level` (-1: rockpool's own) and room for the worst case of raw_bytes. */
static int coder_init(png_coder *c, size_t raw_bytes, int level)
{
    memset(c, 0, sizeof(*c));
    if (level < 0)
        c->pz = rp_pngz_new();
    else
        c->z = libdeflate_alloc_compressor(level);
    if (!c->z && !c->pz)
        return RP_ERR_NOMEM;
    c->zcap = c->pz ? rp_pngz_bound(raw_bytes) : libdeflate_zlib_compress_bound(c->z, raw_bytes);
    c->zbuf = malloc(c->zcap);
    if (!c->zbuf) {
        coder_free(c);
        return RP_ERR_NOMEM;
    }
    return RP_OK;
}

/* Each row of a width x height frame as PNG stores it in the image data: the filter type
 * byte, then the filtered row (Paeth; None at level 0). 16-bit samples (machine order) are
 * put in PNG's big-endian order first, in po->be. */
static void filter_frame(png_out *po, uint8_t *dst, const uint8_t *px)
{
    const int width = po->opts->width, height = po->opts->height, bpp = po->bpp;
    const int wide = po->opts->pixfmt == RP_PIX_GRAY16 || po->opts->pixfmt == RP_PIX_RGB48;
    size_t stride = (size_t)width * (size_t)bpp;
    const rp_png_dsp *dsp = rp_png_dsp_get();
    for (int y = 0; y < height; y++) {
        const uint8_t *cur = px + (size_t)y * stride;
        const uint8_t *prev = y ? cur - stride : po->zeros;
        uint8_t *row = dst + (size_t)y * (stride + 1);
        if (wide) {
            const uint16_t *s = (const uint16_t *)(const void *)cur;
            uint8_t *be = po->be[y & 1];
            for (size_t i = 0; i < stride / 2; i++) {
                be[2 * i] = (uint8_t)(s[i] >> 8);
                be[2 * i + 1] = (uint8_t)s[i];
            }
            cur = be;
            prev = y ? po->be[(y - 1) & 1] : po->zeros;
        }
        if (po->level == 0) {
            row[0] = 0; /* None */
            memcpy(row + 1, cur, stride);
        } else {
            row[0] = 4; /* Paeth */
            rp_png_paeth_row_dsp(dsp, row + 1, cur, prev, stride, bpp);
        }
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Write one chunk (length, type, data, CRC-32 of type and data); 0 or an errno value. */
static int write_chunk(int fd, const char *type, const uint8_t *data, size_t len)
{
    uint8_t head[8], crc[4];
    uint32_t sum;
    int e;
    put32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    sum = libdeflate_crc32(0, head + 4, 4);
    if (len) /* libdeflate_crc32 with a NULL buffer returns the initial value, not sum */
        sum = libdeflate_crc32(sum, data, len);
    put32(crc, sum);
    if ((e = rp_output_write_all(fd, head, 8)) != 0)
        return e;
    if (len && (e = rp_output_write_all(fd, data, len)) != 0)
        return e;
    return rp_output_write_all(fd, crc, 4);
}

/* Compress the filtered rows of one width x height frame and write the whole file to fd.
 * Returns 0, an errno value of a failed write, or -1 if the compressor failed. */
static int encode(int fd, png_coder *c, const uint8_t *rows, size_t raw_bytes, int width,
                  int height, enum rp_pixfmt pixfmt, const char *const *metadata)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13], phys[9];
    size_t n = c->pz ? rp_pngz_compress(c->pz, rows, raw_bytes / (size_t)height, (size_t)height,
                                        (unsigned)rp_pixfmt_bytes(pixfmt), c->zbuf, c->zcap)
                     : libdeflate_zlib_compress(c->z, rows, raw_bytes, c->zbuf, c->zcap);
    int e;

    if (n == 0)
        return -1;
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = pixfmt == RP_PIX_GRAY16 || pixfmt == RP_PIX_RGB48 ? 16 : 8;  /* bit depth */
    ihdr[9] = pixfmt == RP_PIX_RGBA ? 6 : pixfmt == RP_PIX_GRAY16 ? 0 : 2; /* RGBA, grey, RGB */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method: adaptive (per-row type byte) */
    ihdr[12] = 0; /* no interlace */
    /* Square pixels (aspect ratio only, unit 0), as FFmpeg's PNG encoder says: FFmpeg then
     * reads sar 1/1, so framemd5 headers match. */
    put32(phys, 1);
    put32(phys + 4, 1);
    phys[8] = 0;
    if ((e = rp_output_write_all(fd, signature, 8)) != 0 ||
        (e = write_chunk(fd, "IHDR", ihdr, sizeof ihdr)) != 0 ||
        (e = write_chunk(fd, "pHYs", phys, sizeof phys)) != 0)
        return e;
    /* Provenance as tEXt chunks: keyword, NUL, text (Latin-1; ours are ASCII). */
    for (size_t i = 0; metadata && metadata[i] && metadata[i + 1]; i += 2) {
        uint8_t text[256];
        size_t kl = strlen(metadata[i]), vl = strlen(metadata[i + 1]);
        if (kl + 1 + vl > sizeof text)
            continue;
        memcpy(text, metadata[i], kl + 1);
        memcpy(text + kl + 1, metadata[i + 1], vl);
        if ((e = write_chunk(fd, "tEXt", text, kl + 1 + vl)) != 0)
            return e;
    }
    for (size_t off = 0; off < n; off += IDAT_BYTES)
        if ((e = write_chunk(fd, "IDAT", c->zbuf + off,
                             n - off < IDAT_BYTES ? n - off : IDAT_BYTES)) != 0)
            return e;
    return write_chunk(fd, "IEND", NULL, 0);
}

/* Append dir to the list of directories po created. */
static int note_made(png_out *po, const char *dir)
{
    size_t n = strlen(dir) + 1;
    char *more = realloc(po->made, po->made_len + n);
    if (!more)
        return RP_ERR_NOMEM;
    memcpy(more + po->made_len, dir, n);
    po->made = more;
    po->made_len += n;
    return RP_OK;
}

/* mkdir -p of the directory part of path; every directory it creates is noted in po->made
 * (however the path spells it: zz/../f_%d.png creates zz, which is noted). */
static int make_parents(png_out *po, const char *path, rp_error *err)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    struct stat st;

    if (n == 0)
        return RP_OK;
    if (n >= sizeof(dir))
        return RP_ERR_TOO_LARGE;
    memcpy(dir, path, n);
    dir[n] = '\0';
    for (char *p = dir + 1;; p++) {
        int last = *p == '\0';

        if (*p != '/' && !last)
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) == 0) {
            if (note_made(po, dir)) {
                rmdir(dir);
                return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
            }
        } else if (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            return rp_error_set(err, RP_ERR_IO, 0, "cannot create directory '%s': %s", dir,
                                errno == EEXIST ? "not a directory" : strerror(errno));
        }
        if (last)
            break;
        *p = '/';
    }
    return RP_OK;
}

static int start_workers(png_out *po, rp_error *err);
static void remove_made(png_out *po);

/* Free what png_open allocated for frames encoded inline, and the zero row. */
static void release(png_out *po)
{
    coder_free(&po->coder);
    free(po->rows);
    free(po->zeros);
    free(po->be[0]);
    free(po->be[1]);
    po->rows = po->zeros = po->be[0] = po->be[1] = NULL;
}

static int png_open(void *priv, const rp_output_spec *opts, rp_error *err)
{
    png_out *po = priv;
    int ret;

    po->opts = opts;
    po->level = deflate_level(opts->png_level);
    po->bpp = rp_pixfmt_bytes(opts->pixfmt);
    po->raw_bytes = (size_t)opts->height * ((size_t)opts->width * (size_t)po->bpp + 1);
    ret = rp_output_pattern_name(opts->path, opts->first_frame, po->name, sizeof(po->name), err);
    if (ret)
        return ret;
    /* frames are moved into place one by one: no other session of the process may write
     * them meanwhile (theirs would mix with ours, and a failure would take the other's) */
    ret = rp_output_pattern_claim(po, opts->path, "PNG output", err);
    if (ret)
        return ret;
    ret = make_parents(po, po->name, err);
    if (ret) {
        remove_made(po);
        rp_output_pattern_release(po);
        return ret;
    }
    po->zeros = calloc((size_t)opts->width * (size_t)po->bpp, 1);
    po->be[0] = malloc((size_t)opts->width * (size_t)po->bpp);
    po->be[1] = malloc((size_t)opts->width * (size_t)po->bpp);
    if (!po->zeros || !po->be[0] || !po->be[1]) {
        release(po);
        remove_made(po);
        rp_output_pattern_release(po);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for the PNG encoder");
    }
    ret = start_workers(po, err);
    if (ret) {
        release(po);
        remove_made(po);
        rp_output_pattern_release(po);
    }
    if (ret || po->nworkers > 1)
        return ret;
    po->rows = malloc(po->raw_bytes);
    if (!po->rows || coder_init(&po->coder, po->raw_bytes, po->level)) {
        release(po);
        remove_made(po);
        rp_output_pattern_release(po);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for the PNG encoder");
    }
    return RP_OK;
}

/* Encode one frame (its filtered rows) into a new temporary file beside its final name. On
 * success *name and *tmp say where it is; on failure the temporary file is gone.
 * Thread-safe. */
static int encode_to_temp(const png_out *po, png_coder *coder, int64_t frame_index,
                          const uint8_t *rows, char *name, char *tmp, size_t len, rp_error *err)
{
    int fd, ret, e;

    ret = rp_output_pattern_name(po->opts->path, frame_index, name, len, err);
    if (ret)
        return ret;
    /* A name without a conversion is a still: a second frame would replace the first. */
    if (frame_index != po->opts->first_frame && rp_output_is_still(po->opts->path)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "'%s' is one still: it holds one frame, not frame %" PRId64,
                            po->opts->path, frame_index);
    }
    if (rp_output_temp_name(name, tmp, len)) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the file name '%.64s...' is too long", name);
    }
    ret = rp_output_temp_create(tmp, len, name, &fd, err);
    if (ret)
        return ret;
    e = encode(fd, coder, rows, po->raw_bytes, po->opts->width, po->opts->height, po->opts->pixfmt,
               po->opts->metadata);
    if (e < 0) {
        ret = rp_error_set(err, RP_ERR_ENCODER, 0,
                           "PNG encoding failed on '%s': the compressor failed", name);
        close(fd);
    } else if (e > 0) {
        ret = rp_error_set(err, RP_ERR_IO, 0, "cannot write '%s': %s", name, strerror(e));
        close(fd);
    } else {
        ret = rp_output_close_fd(fd, name, err);
    }
    if (ret)
        rp_output_unlink_tmp(tmp);
    return ret;
}

/* The queue's work: encode one job into a temporary file with worker `worker`'s coder. */
static int png_work(void *ctx, int worker, void *const *jobs, int n)
{
    png_out *po = ctx;
    png_job *job = jobs[0];
    int r;

    (void)n;
    r = encode_to_temp(po, &po->coders[worker], job->index, job->rows, job->name, job->tmp,
                       sizeof job->tmp, &job->err);
    job->has_tmp = !r;
    return r;
}

/* Remove an aside name this run made (a file or a symbolic link, never a directory). */
static void drop_aside(const char *aside)
{
    struct stat st;
    if (lstat(aside, &st) == 0 && !S_ISDIR(st.st_mode))
        unlink(aside);
}

/* Rename frame `index`'s encoded file tmp to its name; a file there (with -y) is first
 * kept aside (a hard link, else a rename), to be put back if the run fails. On failure tmp
 * is gone and the name holds what it held. A frame written in place (a name in /dev: tmp
 * is the name) has no aside and is never removed. */
static int place_frame(png_out *po, int64_t index, const char *tmp, const char *name, rp_error *err)
{
    int64_t k = index - po->opts->first_frame;
    char aside[4096];
    struct stat st;
    enum { NONE, LINKED, MOVED } how = NONE;

    if (k < 0 || !strcmp(tmp, name)) /* (k < 0 never: frames come from first_frame on) */
        return rp_output_commit(tmp, name, po->opts->overwrite, err);
    if (k >= po->placed_cap) {
        int64_t cap = po->placed_cap ? 2 * po->placed_cap : 1024;
        while (cap <= k)
            cap *= 2;
        uint8_t *p = realloc(po->placed, (size_t)cap);
        if (!p) {
            rp_output_unlink_tmp(tmp);
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for the PNG frames' list");
        }
        memset(p + po->placed_cap, 0, (size_t)(cap - po->placed_cap));
        po->placed = p;
        po->placed_cap = cap;
    }
    if (po->opts->overwrite && lstat(name, &st) == 0 && !S_ISDIR(st.st_mode)) {
        if (rp_output_aside_name(name, aside, sizeof aside) || !strcmp(aside, name)) {
            rp_output_unlink_tmp(tmp);
            return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the PNG name '%.64s...' is too long",
                                name);
        }
        how = link(name, aside) == 0 ? LINKED : NONE;
        if (how == NONE && errno == EEXIST) { /* left by a killed run that had our pid */
            drop_aside(aside);
            how = link(name, aside) == 0 ? LINKED : NONE;
        }
        if (how == NONE) { /* no hard links here: moved aside */
            if (rename(name, aside) != 0) {
                int e = errno;
                rp_output_unlink_tmp(tmp);
                return rp_error_set(err, RP_ERR_IO, 0,
                                    "cannot keep '%s' aside while it is replaced: %s", name,
                                    strerror(e));
            }
            how = MOVED;
        }
    }
    int r = rp_output_commit(tmp, name, po->opts->overwrite, err);
    if (r) {
        if (how == LINKED) /* the name still holds the file: the link goes */
            drop_aside(aside);
        else if (how == MOVED)
            rename(aside, name);
        return r;
    }
    po->placed[k] = how != NONE ? PLACED_OVER : PLACED_NEW;
    return RP_OK;
}

/* The queue's delivery, in frame order: the encoded file renamed into place. */
static int png_done(void *ctx, void *job_ptr)
{
    png_out *po = ctx;
    png_job *job = job_ptr;

    job->has_tmp = 0;
    return place_frame(po, job->index, job->tmp, job->name, &job->err);
}

/* A job not renamed (a frame failed, or the run stops): its temporary file goes. */
static void png_drop(void *ctx, void *job_ptr)
{
    png_job *job = job_ptr;

    (void)ctx;
    if (job->has_tmp)
        rp_output_unlink_tmp(job->tmp);
    job->has_tmp = 0;
}

/* The message of the queue's first failure. */
static int queue_error(png_out *po, int r, rp_error *err)
{
    png_job *job = rp_oqueue_failed_job(po->queue);

    if (r)
        rp_error_set(err, r, 0, "%s", job ? job->err.msg : "PNG encoding failed");
    return r;
}

/* Stop the workers after the queued frames (all of them renamed, unless one failed) and
 * free the jobs; returns the first error. Nothing to do when frames are encoded inline. */
static int stop_workers(png_out *po, rp_error *err)
{
    int r = RP_OK;

    if (!po->nworkers)
        return RP_OK;
    if (po->queue)
        r = queue_error(po, rp_oqueue_flush(po->queue), err);
    rp_oqueue_free(&po->queue);
    for (int i = 0; po->jobs && i < po->njobs; i++)
        free(po->jobs[i].rows);
    for (int i = 0; i < po->nworkers; i++)
        coder_free(&po->coders[i]);
    free(po->jobs);
    free(po->job_ptrs);
    po->jobs = NULL;
    po->job_ptrs = NULL;
    po->nworkers = 0;
    return r;
}

/* Start opts->threads encoders with three jobs each (one encoding, one queued, one done
 * and waiting for an earlier frame to be renamed first). */
static int start_workers(png_out *po, rp_error *err)
{
    int n = po->opts->threads > PNG_MAX_WORKERS ? PNG_MAX_WORKERS : po->opts->threads;
    if (n <= 1)
        return RP_OK;
    po->nworkers = n;
    po->njobs = 3 * n;
    po->jobs = calloc((size_t)po->njobs, sizeof *po->jobs);
    po->job_ptrs = calloc((size_t)po->njobs, sizeof *po->job_ptrs);
    if (!po->jobs || !po->job_ptrs)
        goto nomem;
    for (int i = 0; i < po->njobs; i++) {
        po->job_ptrs[i] = &po->jobs[i];
        if (!(po->jobs[i].rows = malloc(po->raw_bytes)))
            goto nomem;
    }
    for (int i = 0; i < n; i++)
        if (coder_init(&po->coders[i], po->raw_bytes, po->level))
            goto nomem;
    rp_oqueue_cfg q = {.jobs = po->job_ptrs,
                       .njobs = (size_t)po->njobs,
                       .workers = n,
                       .batch = 1,
                       .work = png_work,
                       .done = png_done,
                       .drop = png_drop,
                       .ctx = po};
    int r = rp_oqueue_new(&po->queue, &q);
    if (r) {
        stop_workers(po, err);
        if (r == RP_ERR_NOMEM)
            return rp_error_set(err, r, 0, "out of memory for PNG encoder threads: %s",
                                rp_oom_hint());
        return rp_error_set(err, r, 0, "cannot start PNG encoder threads");
    }
    return RP_OK;
nomem:
    stop_workers(po, err);
    return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for PNG encoder buffers: %s",
                        rp_oom_hint());
}

/* Write one frame: filter its rows here, then encode them inline with one thread, else hand
 * them to the workers in a free job (an earlier worker's failure is reported by the next
 * write or by close). */
static int png_write(void *priv, int64_t frame_index, const uint8_t *rgb, rp_error *err)
{
    png_out *po = priv;
    int ret;

    if (po->nworkers > 1) {
        png_job *job = rp_oqueue_acquire(po->queue, &ret);
        if (!job)
            return queue_error(po, ret, err);
        filter_frame(po, job->rows, rgb);
        job->index = frame_index;
        job->has_tmp = 0;
        return queue_error(po, rp_oqueue_submit(po->queue), err);
    }

    filter_frame(po, po->rows, rgb);
    ret = encode_to_temp(po, &po->coder, frame_index, po->rows, po->name, po->tmp, sizeof po->tmp,
                         err);
    if (ret)
        return ret;
    return place_frame(po, frame_index, po->tmp, po->name, err);
}

/* The files the frames replaced, kept aside: put back (restore) or removed. */
static void settle_aside(png_out *po, int restore)
{
    char name[4096], aside[4096];
    rp_error err; /* not told */
    for (int64_t k = 0; k < po->placed_cap; k++)
        if (po->placed[k] == PLACED_OVER &&
            !rp_output_pattern_name(po->opts->path, po->opts->first_frame + k, name, sizeof name,
                                    &err) &&
            !rp_output_aside_name(name, aside, sizeof aside)) {
            if (restore)
                rename(aside, name);
            else
                drop_aside(aside);
            po->placed[k] = PLACED_NEW;
        }
}

/* After a failure (not a stop: a stopped run's frames are finished and kept) the frames this
 * run wrote go, so nothing that looks complete is left, and the files they replaced come
 * back; then the directories it created, innermost first (rmdir leaves one not empty). */
static void remove_made(png_out *po)
{
    char name[4096];
    rp_error err; /* not told */
    for (int64_t k = 0; k < po->placed_cap; k++)
        if (po->placed[k] == PLACED_NEW &&
            !rp_output_pattern_name(po->opts->path, po->opts->first_frame + k, name, sizeof name,
                                    &err))
            rp_output_unlink_tmp(name);
    settle_aside(po, 1);
    free(po->placed);
    po->placed = NULL;
    po->placed_cap = 0;
    /* the last created first: each is inside the ones created before it */
    for (size_t end = po->made_len; end > 0;) {
        size_t start = end - 1;
        while (start > 0 && po->made[start - 1])
            start--;
        rmdir(po->made + start);
        end = start;
    }
    free(po->made);
    po->made = NULL;
    po->made_len = 0;
}

/* A run that ends before its last frame (stopped by SIGINT or SIGTERM) with -y: the files
 * of its later frames, which it was told to replace, go too, so an older sequence's frames
 * do not follow its own as if it had finished (directories, devices and FIFOs stay). */
static void drop_unreached(png_out *po)
{
    char name[4096];
    rp_error err; /* not told */
    struct stat st;
    for (int64_t k = 0; k < po->opts->frame_count; k++)
        if ((k >= po->placed_cap || !po->placed[k]) &&
            !rp_output_pattern_name(po->opts->path, po->opts->first_frame + k, name, sizeof name,
                                    &err) &&
            lstat(name, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            unlink(name);
}

static int png_close(void *priv, rp_error *err)
{
    png_out *po = priv;
    int ret = stop_workers(po, err);
    release(po);
    if (ret) /* a frame failed while finishing: as png_abort */
        remove_made(po);
    else if (po->opts->overwrite && po->placed)
        drop_unreached(po);
    settle_aside(po, 0); /* the run's frames stand: the files they replaced go */
    free(po->placed);
    po->placed = NULL;
    po->placed_cap = 0;
    free(po->made);
    po->made = NULL;
    po->made_len = 0;
    rp_output_pattern_release(po);
    return ret;
}

/* A failed run: frames in progress and frames written go (remove_made). */
static void png_abort(void *priv)
{
    png_out *po = priv;
    rp_error err;

    if (po->nworkers > 1) {
        /* Frames not yet renamed are dropped, their temporary files removed. */
        rp_oqueue_free(&po->queue);
        stop_workers(po, &err);
    }
    release(po);
    remove_made(po);
    rp_output_pattern_release(po);
}

const rp_output_backend rp_output_png = {
    .name = "png",
    .extensions = "png",
    .format = RP_FORMAT_PNG,
    .priv_size = sizeof(png_out),
    .alpha = 1,
    .thread_cell_bytes = 4 * 3, /* three filtered frames and a compressed one a thread */
    .open = png_open,
    .write = png_write,
    .close = png_close,
    .abort = png_abort,
};
