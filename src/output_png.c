/* output_png.c - PNG sequence backend (rockpool(1) OUTPUT FILES): one 8-bit RGB PNG per frame,
 * written with libpng under a temporary name and renamed when complete. Only IHDR, pHYs
 * (1:1), IDAT and IEND are written - no tIME or text chunk - so the same frame always
 * gives the same bytes. The number in each name is the frame's timeline index.
 *
 * With opts->threads > 1, frames are copied into a ring of jobs and encoded by that many
 * worker threads at once; each is renamed into place in frame order, so the files appear
 * as they would from one thread, and every file's bytes are the same. */
#include <pthread.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>
#include <zlib.h>

#include "common.h"
#include "output_backend.h"
#include "pngfilter.h"

/* How the image data (IDAT) is made. libpng writes the signature, IHDR, pHYs and IEND and
 * frames each IDAT chunk (png_write_chunk); the rows are filtered here (Paeth; pngfilter.h,
 * SSE2) and deflated with zlib directly, because libpng filters rows one byte at a time
 * and has no way to tune zlib's match search. Zlib takes nine tenths of the time of a
 * PNG frame, so both matter.
 *
 * The default: zlib level 3 (its fast deflate) with the hash chains cut from 32 to 24 links
 * (deflateTune). Measured on 60 frames of examples/rain.scene at 1920x1080, per frame on
 * one thread: FFmpeg's PNG encoder default (zlib 6, no filter) 1.577 MB; libpng at level
 * 3 with Up, rockpool's earlier default, 1.553 MB in 113-130 ms; Paeth at level 3 1.501
 * MB in 110 ms of deflate; with 24 links 1.530 MB in 97 ms; with 20 links 1.550 MB in
 * 91 ms. Levels 1 and 2 are larger than FFmpeg's with every filter (1.76-1.84 MB). So the
 * default stays 3% under FFmpeg's size while deflate does 15-25% less work. An explicit
 * --png-level N is zlib's level N as zlib defines it, with Paeth (None at 0: stored data
 * cannot gain from a filter). */
#define PNG_DEFAULT_LEVEL 3
#define PNG_DEFAULT_CHAIN 24

/* Deflated bytes per IDAT chunk. */
#define IDAT_BYTES (1 << 17)

#define PNG_MAX_WORKERS 16

/* One frame in flight: its pixels, and where it goes. */
typedef struct png_job {
    uint8_t *rgb;
    int64_t index;
    uint64_t seq;   /* submission order */
    int state;      /* JOB_FREE, JOB_QUEUED, JOB_BUSY */
} png_job;

enum { JOB_FREE, JOB_QUEUED, JOB_BUSY };

/* One encoder's zlib stream and buffers, made once and reused for every frame. */
typedef struct png_coder {
    z_stream z;
    int z_ready;
    uint8_t *row;   /* the filter type byte, then the filtered row */
    uint8_t *zeros; /* the row "above" the first one */
    uint8_t *idat;  /* IDAT_BYTES of deflated data */
} png_coder;

typedef struct png_out {
    const rp_output_opts *opts;
    int level, tuned; /* zlib level; tuned: the default, with PNG_DEFAULT_CHAIN */
    png_coder coder;  /* for frames encoded on the calling thread */
    char name[4096];
    char tmp[4096];
    /* Worker threads (nworkers > 1 only). */
    int nworkers, njobs;
    pthread_t threads[PNG_MAX_WORKERS];
    png_job *jobs;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t submitted, committed;
    int status;     /* first error; later frames are dropped */
    int stopping;
    char err[1024];
    char made[4096];    /* the outermost directory open created ("" = none) */
    int64_t last_frame; /* the last frame index handed to png_write, -1 = none */
} png_out;

/* What libpng's callbacks report back. */
typedef struct png_sink {
    FILE *file;
    int io_errno; /* errno of a failed write, 0 if the failure was libpng's */
    char msg[256];
} png_sink;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_sink *sink = png_get_error_ptr(png);

    snprintf(sink->msg, sizeof(sink->msg), "%s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void on_png_write(png_structp png, png_bytep data, size_t len)
{
    png_sink *sink = png_get_io_ptr(png);

    if (fwrite(data, 1, len, sink->file) != len) {
        sink->io_errno = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void on_png_flush(png_structp png)
{
    (void)png;
}

static void coder_free(png_coder *c)
{
    if (c->z_ready)
        deflateEnd(&c->z);
    free(c->row);
    free(c->zeros);
    free(c->idat);
    memset(c, 0, sizeof(*c));
}

/* Buffers for rows of `width` pixels and a zlib stream at `level`. */
static int coder_init(png_coder *c, int width, int level)
{
    size_t stride = (size_t)width * 3;
    memset(c, 0, sizeof(*c));
    c->row = malloc(stride + 1);
    c->zeros = calloc(stride, 1);
    c->idat = malloc(IDAT_BYTES);
    if (!c->row || !c->zeros || !c->idat ||
        deflateInit2(&c->z, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        coder_free(c);
        return RP_ERR_NOMEM;
    }
    c->z_ready = 1;
    return RP_OK;
}

/* Deflate the n bytes at in (finishing the stream if last), writing each full buffer of
 * output as an IDAT chunk, and the rest when the stream ends. */
static void deflate_rows(png_structp png, png_coder *c, const uint8_t *in, size_t n, int last)
{
    int flush = last ? Z_FINISH : Z_NO_FLUSH, r;
    c->z.next_in = (Bytef *)(uintptr_t)in;
    c->z.avail_in = (uInt)n;
    do {
        r = deflate(&c->z, flush);
        if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
            png_error(png, c->z.msg ? c->z.msg : "zlib's deflate failed");
        size_t have = IDAT_BYTES - c->z.avail_out;
        if (c->z.avail_out == 0 || (r == Z_STREAM_END && have > 0)) {
            png_write_chunk(png, (png_const_bytep) "IDAT", c->idat, have);
            c->z.next_out = c->idat;
            c->z.avail_out = IDAT_BYTES;
        }
    } while (last ? r != Z_STREAM_END : c->z.avail_in > 0);
}

/* Encode one width x height RGB24 frame into sink->file. Returns RP_ERR_IO (write failed,
 * sink->io_errno set), RP_ERR_ENCODER (libpng or zlib failed, sink->msg set) or
 * RP_ERR_NOMEM. */
static int encode(png_sink *sink, png_coder *c, const uint8_t *rgb, int width, int height,
                  int level, int tuned)
{
    png_structp png;
    png_infop info;
    size_t stride = (size_t)width * 3;

    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, on_png_error, on_png_warning);
    if (!png)
        return RP_ERR_NOMEM;
    info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return RP_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return sink->io_errno ? RP_ERR_IO : RP_ERR_ENCODER;
    }
    png_set_write_fn(png, sink, on_png_write, on_png_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    /* Square pixels, as FFmpeg's PNG encoder says: FFmpeg then reads sar 1/1, so
     * framemd5 headers match. */
    png_set_pHYs(png, info, 1, 1, PNG_RESOLUTION_UNKNOWN);
    png_write_info(png, info);

    if (deflateReset(&c->z) != Z_OK)
        png_error(png, "zlib's deflateReset failed");
#ifndef ZLIBNG_VERSION
    if (tuned) {
        /* Stock zlib's level 3 (good 4, lazy 6, nice 32) with a shorter chain search. The
         * reset above reloads the level's table, so this is done for every frame. zlib-ng
         * (and its zlib-compatible build) has its own, faster tables: left alone there. */
        deflateTune(&c->z, 4, 6, 32, PNG_DEFAULT_CHAIN);
    }
#else
    (void)tuned;
#endif
    c->z.next_out = c->idat;
    c->z.avail_out = IDAT_BYTES;
    for (int y = 0; y < height; y++) {
        const uint8_t *cur = rgb + (size_t)y * stride;
        if (level == 0) {
            c->row[0] = 0; /* None */
            memcpy(c->row + 1, cur, stride);
        } else {
            c->row[0] = 4; /* Paeth */
            rp_png_paeth_row(c->row + 1, cur, y ? cur - stride : c->zeros, stride, 3);
        }
        deflate_rows(png, c, c->row, stride + 1, y == height - 1);
    }
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
    png_destroy_write_struct(&png, &info);
    return RP_OK;
}

/* mkdir -p of the directory part of path; the outermost directory it creates is copied
 * into made (made[0] stays '\0' when every directory existed). */
static int make_parents(const char *path, char *made, char *err, size_t errlen)
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
            if (!made[0])
                memcpy(made, dir, strlen(dir) + 1);
        } else if (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rp_errf(err, errlen, "cannot create directory '%s': %s", dir,
                           errno == EEXIST ? "not a directory" : strerror(errno));
            return RP_ERR_IO;
        }
        if (last)
            break;
        *p = '/';
    }
    return RP_OK;
}

static int start_workers(png_out *po, char *err, size_t errlen);

static int png_open(void *priv, const rp_output_opts *opts, char *err, size_t errlen)
{
    png_out *po = priv;
    int ret;

    po->opts = opts;
    po->level = opts->png_level < 0 ? PNG_DEFAULT_LEVEL : opts->png_level;
    po->tuned = opts->png_level < 0;
    ret = rp_output_pattern_name(opts->path, opts->first_frame, po->name, sizeof(po->name), err,
                                 errlen);
    if (ret)
        return ret;
    po->last_frame = -1;
    ret = make_parents(po->name, po->made, err, errlen);
    if (ret)
        return ret;
    ret = start_workers(po, err, errlen);
    if (ret || po->nworkers > 1)
        return ret;
    if (coder_init(&po->coder, opts->width, po->level)) {
        rp_errf(err, errlen, "out of memory for the PNG encoder");
        return RP_ERR_NOMEM;
    }
    return RP_OK;
}

/* Encode one frame into a new temporary file beside its final name. On success *name and
 * *tmp say where it is; on failure the temporary file is gone. Thread-safe. */
static int encode_to_temp(const png_out *po, png_coder *coder, int64_t frame_index,
                          const uint8_t *rgb, char *name, char *tmp, size_t len, char *err,
                          size_t errlen)
{
    png_sink sink = {0};
    int fd, ret;

    ret = rp_output_pattern_name(po->opts->path, frame_index, name, len, err, errlen);
    if (ret)
        return ret;
    if (rp_output_temp_name(name, tmp, len)) {
        rp_errf(err, errlen, "the file name '%.64s...' is too long", name);
        return RP_ERR_TOO_LARGE;
    }
    ret = rp_output_temp_create(tmp, name, &fd, err, errlen);
    if (ret)
        return ret;
    sink.file = fdopen(fd, "wb");
    if (!sink.file) {
        rp_errf(err, errlen, "cannot write '%s': %s", name, strerror(errno));
        close(fd);
        rp_output_unlink_tmp(tmp);
        return RP_ERR_IO;
    }
    ret = encode(&sink, coder, rgb, po->opts->width, po->opts->height, po->level, po->tuned);
    if (fclose(sink.file) != 0 && !ret) {
        sink.io_errno = errno;
        ret = RP_ERR_IO;
    }
    if (ret == RP_ERR_IO)
        rp_errf(err, errlen, "cannot write '%s': %s", name, strerror(sink.io_errno));
    else if (ret == RP_ERR_ENCODER)
        rp_errf(err, errlen, "PNG encoding failed on '%s': %s", name, sink.msg);
    else if (ret)
        rp_errf(err, errlen, "out of memory writing '%s'", name);
    if (ret)
        rp_output_unlink_tmp(tmp);
    return ret;
}

/* Worker: take the oldest queued job, encode it, then wait for its turn and rename it
 * into place (or drop it once anything has failed), so files appear in frame order. */
static void *png_worker(void *arg)
{
    png_out *po = arg;
    char name[4096], tmp[4096], err[1024];
    png_coder coder;
    int coder_failed = coder_init(&coder, po->opts->width, po->level) != RP_OK;

    pthread_mutex_lock(&po->lock);
    if (coder_failed && po->status == RP_OK) {
        po->status = RP_ERR_NOMEM;
        snprintf(po->err, sizeof po->err, "out of memory for a PNG encoder");
    }
    for (;;) {
        png_job *job = NULL;
        for (uint64_t q = po->committed; q < po->submitted; q++) {
            png_job *j = &po->jobs[q % (uint64_t)po->njobs];
            if (j->state == JOB_QUEUED) {
                job = j;
                break;
            }
        }
        if (!job) {
            if (po->stopping)
                break;
            pthread_cond_wait(&po->changed, &po->lock);
            continue;
        }
        job->state = JOB_BUSY;
        int skip = po->status != RP_OK;
        pthread_mutex_unlock(&po->lock);

        int r = skip ? RP_OK
                     : encode_to_temp(po, &coder, job->index, job->rgb, name, tmp, sizeof tmp,
                                      err, sizeof err);

        pthread_mutex_lock(&po->lock);
        if (r && po->status == RP_OK) {
            po->status = r;
            snprintf(po->err, sizeof po->err, "%s", err);
        }
        while (po->committed != job->seq)
            pthread_cond_wait(&po->changed, &po->lock);
        if (!skip && !r) {
            if (po->status != RP_OK) {
                rp_output_unlink_tmp(tmp);
            } else {
                pthread_mutex_unlock(&po->lock);
                r = rp_output_commit(tmp, name, po->opts->overwrite, err, sizeof err);
                pthread_mutex_lock(&po->lock);
                if (r && po->status == RP_OK) {
                    po->status = r;
                    snprintf(po->err, sizeof po->err, "%s", err);
                }
            }
        }
        job->state = JOB_FREE;
        po->committed++;
        pthread_cond_broadcast(&po->changed);
    }
    pthread_mutex_unlock(&po->lock);
    if (!coder_failed)
        coder_free(&coder);
    return NULL;
}

/* Stop the workers (the nworkers started) after the queued frames and free their jobs;
 * returns the first error. Nothing to do when frames are encoded inline (no jobs). */
static int stop_workers(png_out *po, char *err, size_t errlen)
{
    int r;
    if (!po->jobs)
        return RP_OK;
    pthread_mutex_lock(&po->lock);
    po->stopping = 1;
    pthread_cond_broadcast(&po->changed);
    pthread_mutex_unlock(&po->lock);
    for (int i = 0; i < po->nworkers; i++)
        pthread_join(po->threads[i], NULL);
    r = po->status;
    if (r)
        rp_errf(err, errlen, "%s", po->err);
    for (int i = 0; i < po->njobs; i++)
        free(po->jobs[i].rgb);
    free(po->jobs);
    po->jobs = NULL;
    pthread_mutex_destroy(&po->lock);
    pthread_cond_destroy(&po->changed);
    po->nworkers = 0;
    return r;
}

/* Start opts->threads encoders with two jobs each (one encoding, one queued). */
static int start_workers(png_out *po, char *err, size_t errlen)
{
    int n = po->opts->threads > PNG_MAX_WORKERS ? PNG_MAX_WORKERS : po->opts->threads;
    size_t bytes = (size_t)po->opts->width * (size_t)po->opts->height * 3;
    if (n <= 1)
        return RP_OK;
    po->njobs = 2 * n;
    po->jobs = calloc((size_t)po->njobs, sizeof *po->jobs);
    if (!po->jobs)
        goto nomem;
    for (int i = 0; i < po->njobs; i++)
        if (!(po->jobs[i].rgb = malloc(bytes)))
            goto nomem;
    pthread_mutex_init(&po->lock, NULL);
    pthread_cond_init(&po->changed, NULL);
    for (int i = 0; i < n; i++) {
        if (pthread_create(&po->threads[i], NULL, png_worker, po) != 0) {
            po->nworkers = i;
            stop_workers(po, err, errlen);
            rp_errf(err, errlen, "cannot start PNG encoder threads");
            return RP_ERR_NOMEM;
        }
        po->nworkers = i + 1;
    }
    return RP_OK;
nomem:
    if (po->jobs)
        for (int i = 0; i < po->njobs; i++)
            free(po->jobs[i].rgb);
    free(po->jobs);
    po->jobs = NULL;
    rp_errf(err, errlen, "out of memory for PNG encoder buffers");
    return RP_ERR_NOMEM;
}

/* Write one frame: inline with one thread, else hand a copy to the workers (an earlier
 * worker's failure is reported by the next write or by close). */
static int png_write(void *priv, int64_t frame_index, const uint8_t *rgb, char *err, size_t errlen)
{
    png_out *po = priv;
    int ret;

    po->last_frame = frame_index;
    if (po->nworkers > 1) {
        pthread_mutex_lock(&po->lock);
        png_job *job = &po->jobs[po->submitted % (uint64_t)po->njobs];
        while (job->state != JOB_FREE && po->status == RP_OK)
            pthread_cond_wait(&po->changed, &po->lock);
        ret = po->status;
        if (ret) {
            rp_errf(err, errlen, "%s", po->err);
        } else {
            pthread_mutex_unlock(&po->lock);
            memcpy(job->rgb, rgb, (size_t)po->opts->width * po->opts->height * 3);
            pthread_mutex_lock(&po->lock);
            job->index = frame_index;
            job->seq = po->submitted++;
            job->state = JOB_QUEUED;
            pthread_cond_broadcast(&po->changed);
        }
        pthread_mutex_unlock(&po->lock);
        return ret;
    }

    ret = encode_to_temp(po, &po->coder, frame_index, rgb, po->name, po->tmp, sizeof po->tmp, err,
                         errlen);
    if (ret)
        return ret;
    return rp_output_commit(po->tmp, po->name, po->opts->overwrite, err, errlen);
}

static int png_close(void *priv, char *err, size_t errlen)
{
    png_out *po = priv;
    int ret = stop_workers(po, err, errlen);
    coder_free(&po->coder);
    return ret;
}

/* Frames already renamed are complete files and stay; frames in progress go. */
static void png_abort(void *priv)
{
    png_out *po = priv;
    char err[16];

    if (po->nworkers > 1) {
        /* Frames still queued are dropped: each worker sees the failure and removes its
         * temporary file instead of renaming it. */
        pthread_mutex_lock(&po->lock);
        if (po->status == RP_OK)
            po->status = RP_ERR_INTERRUPTED;
        pthread_mutex_unlock(&po->lock);
        stop_workers(po, err, sizeof err);
    }
    coder_free(&po->coder);
    /* A directory this run created holds nothing of anyone else's: its frames go, then the
     * directories themselves, innermost first (rmdir leaves one that is not empty). */
    if (po->made[0]) {
        char name[4096];
        size_t n = strlen(po->made);
        for (int64_t k = po->opts->first_frame; k <= po->last_frame; k++)
            if (!rp_output_pattern_name(po->opts->path, k, name, sizeof name, err, sizeof err))
                rp_output_unlink_tmp(name);
        rp_output_pattern_name(po->opts->path, po->opts->first_frame, name, sizeof name, err,
                               sizeof err);
        for (char *slash = strrchr(name, '/'); slash && (size_t)(slash - name) >= n;
             slash = strrchr(name, '/')) {
            *slash = '\0';
            if (rmdir(name) != 0)
                break;
        }
    }
}

const rp_output_backend rp_output_png = {
    .name = "png",
    .extensions = "png",
    .format = RP_FORMAT_PNG,
    .priv_size = sizeof(png_out),
    .thread_cell_bytes = 2 * 3, /* two RGB frames per encoder thread */
    .open = png_open,
    .write = png_write,
    .close = png_close,
    .abort = png_abort,
};
