/* output_png.c - PNG sequence backend (SPEC.md section 5): one 8-bit RGB PNG per frame,
 * written with libpng under a temporary name and renamed when complete. Only IHDR, pHYs
 * (1:1), IDAT and IEND are written - no tIME or text chunk - so the same frame always
 * gives the same bytes. The number in each name is the frame's timeline index. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "common.h"
#include "output_backend.h"

/* Used when png_level is -1: zlib level 3 with the Paeth filter. Measured on 20 ripple
 * frames (1280x720, rp_texture_default refracted by offset rendering): FFmpeg's PNG
 * encoder default (zlib 6, no filter) gives 15.1 MB in ~4 s single-threaded. Every filter
 * at levels 1 and 2 came out larger (16.1-17.6 MB); at level 3 (still zlib's fast
 * deflate) None gave 15.6 MB, Sub 14.8, Up 14.3, Paeth 13.9 MB, all in ~1.1-1.8 s, within
 * timing noise of each other; levels 4-6 are slower and no smaller. Paeth/3 is the
 * fastest setting below FFmpeg's size with the widest margin (also on smoother textures:
 * 20.8 vs 34.6 MB). */
#define PNG_DEFAULT_LEVEL 3
#define PNG_DEFAULT_FILTERS PNG_FILTER_PAETH

typedef struct png_out {
    const rp_output_opts *opts;
    int level, filters;
    char name[4096];
    char tmp[4096];
    int tmp_exists; /* tmp names a file of ours not yet renamed */
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

/* Encode one width x height RGB24 frame into sink->file. Returns RP_ERR_IO (write failed,
 * sink->io_errno set), RP_ERR_ENCODER (libpng failed, sink->msg set) or RP_ERR_NOMEM. */
static int encode(png_sink *sink, const uint8_t *rgb, int width, int height, int level, int filters)
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
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    /* Bigger IDAT chunks: fewer chunk headers and CRC passes. */
    png_set_compression_buffer_size(png, 1 << 17);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, rgb + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return RP_OK;
}

/* mkdir -p of the directory part of path. */
static int make_parents(const char *path, char *err, size_t errlen)
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
        if (mkdir(dir, 0777) != 0 &&
            (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            rp_output_errf(err, errlen, "cannot create directory '%s': %s", dir,
                           errno == EEXIST ? "not a directory" : strerror(errno));
            return RP_ERR_IO;
        }
        if (last)
            break;
        *p = '/';
    }
    return RP_OK;
}

static int png_open(void *priv, const rp_output_opts *opts, char *err, size_t errlen)
{
    png_out *po = priv;
    int ret;

    po->opts = opts;
    po->level = opts->png_level < 0 ? PNG_DEFAULT_LEVEL : opts->png_level;
    po->filters = PNG_DEFAULT_FILTERS;
    if (opts->png_level == 0)
        po->filters = PNG_FILTER_NONE; /* stored: filtering cannot help */
    ret = rp_output_pattern_name(opts->path, opts->first_frame, po->name, sizeof(po->name), err,
                                 errlen);
    if (ret)
        return ret;
    return make_parents(po->name, err, errlen);
}

/* Write one frame to a temporary file, then rename it to the pattern's name for
 * frame_index. On failure the temporary file is removed. */
static int png_write(void *priv, int64_t frame_index, const uint8_t *rgb, char *err, size_t errlen)
{
    png_out *po = priv;
    png_sink sink = {0};
    int fd, ret;

    ret = rp_output_pattern_name(po->opts->path, frame_index, po->name, sizeof(po->name), err,
                                 errlen);
    if (ret)
        return ret;
    if (rp_output_temp_name(po->name, po->tmp, sizeof(po->tmp))) {
        rp_output_errf(err, errlen, "the file name '%.64s...' is too long", po->name);
        return RP_ERR_TOO_LARGE;
    }
    ret = rp_output_temp_create(po->tmp, po->name, &fd, err, errlen);
    if (ret)
        return ret;
    po->tmp_exists = 1;
    sink.file = fdopen(fd, "wb");
    if (!sink.file) {
        rp_output_errf(err, errlen, "cannot write '%s': %s", po->name, strerror(errno));
        close(fd);
        ret = RP_ERR_IO;
        goto fail;
    }
    ret = encode(&sink, rgb, po->opts->width, po->opts->height, po->level, po->filters);
    if (fclose(sink.file) != 0 && !ret) {
        sink.io_errno = errno;
        ret = RP_ERR_IO;
    }
    if (ret == RP_ERR_IO)
        rp_output_errf(err, errlen, "cannot write '%s': %s", po->name, strerror(sink.io_errno));
    else if (ret == RP_ERR_ENCODER)
        rp_output_errf(err, errlen, "libpng failed on '%s': %s", po->name, sink.msg);
    else if (ret)
        rp_output_errf(err, errlen, "out of memory writing '%s'", po->name);
    if (ret)
        goto fail;
    po->tmp_exists = 0; /* the commit consumes it either way */
    return rp_output_commit(po->tmp, po->name, po->opts->overwrite, err, errlen);

fail:
    rp_output_unlink_tmp(po->tmp);
    po->tmp_exists = 0;
    return ret;
}

static int png_close(void *priv, char *err, size_t errlen)
{
    (void)priv;
    (void)err;
    (void)errlen;
    return RP_OK;
}

/* Frames already renamed are complete files and stay; only a frame in progress goes. */
static void png_abort(void *priv)
{
    png_out *po = priv;

    if (po->tmp_exists)
        rp_output_unlink_tmp(po->tmp);
    po->tmp_exists = 0;
}

const rp_output_backend rp_output_png = {
    .name = "png",
    .extensions = "png",
    .format = RP_FORMAT_PNG,
    .priv_size = sizeof(png_out),
    .open = png_open,
    .write = png_write,
    .close = png_close,
    .abort = png_abort,
};
