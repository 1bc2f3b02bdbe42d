/* image.c - still images in (rockpool(1) -i, rockpool-scene(5) wall mask): the file is opened
 * with libavformat (the image2 and image-pipe demuxers cover PNG, JPEG, BMP, WebP, TIFF,
 * ...), the first frame decoded with libavcodec, and libswscale converts it to RGBA at
 * the requested size; alpha is then composited over black with integer maths. Decoder
 * and scaler run with their bit-exact flags, so a given file gives the same pixels on
 * every machine. FFmpeg's own log is silenced: errors come back as text in err.
 *
 * The files come from anywhere, so nothing is trusted: only regular files are opened (a FIFO
 * would block, and masks are read more than once), only still-image demuxers may parse
 * them, and an image whose header claims more than RP_MAX_SIDE per side, more than
 * IMAGE_MAX_PIXELS, or a decoded frame over IMAGE_MAX_FRAME_BYTES is refused before any
 * pixel memory exists: first from its header, read here for the common formats, then
 * again in the decoder's get_buffer2 callback for everything else. */
#include "base/diag.h"
#include "input/image.h"
#include "input/fit.h"
#include "base/mask.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <zlib.h>

#include "base/common.h"
#include "input/demux.h"

/* Limits on what one image may cost, whatever its file size: 2^26 pixels (8192x8192 or
 * 16384x4096, 67 megapixels), 512 MiB for the decoded frame (2^26 pixels of 16-bit RGBA),
 * and 512 MiB on disk (the image demuxers hold a whole file in memory). A 2 KB PNG can
 * claim 16384x16000 16-bit RGBA: without these it costs 2 GB and half a minute. */
#define IMAGE_MAX_PIXELS ((int64_t)1 << 26)
#define IMAGE_MAX_FRAME_BYTES ((int64_t)512 << 20)
#define IMAGE_MAX_FILE_BYTES ((int64_t)512 << 20)

/* Metadata never decides a pixel, but FFmpeg's PNG decoder inflates every iCCP, zTXt and
 * iTXt chunk whole into memory (in a buffer that doubles as it grows) and copies it again
 * into the frame's side data or metadata, and keeps eXIf and tEXt chunks too: a 1 MB chunk
 * of zeros inflates to 1 GB. So the chunks are walked and inflated here first, into a
 * small scratch buffer that is counted and thrown away, and a file whose metadata
 * inflates to more than IMAGE_MAX_META_BYTES in all is refused before FFmpeg sees it. */
#define IMAGE_MAX_META_BYTES ((int64_t)16 << 20)

/* What decoding costs besides the frame: each metadata byte held about three times
 * (growing buffer, copy), the file once (the image demuxers read it whole into a packet),
 * and a fixed allowance for the codec and scaler contexts. */
#define IMAGE_META_FACTOR 3
#define IMAGE_SLACK_BYTES ((int64_t)8 << 20)

/* Bytes of a file's head read to find the size in its header: enough for a JPEG's EXIF
 * and ICC segments before its SOF. */
#define HEAD_BYTES (256 * 1024)

/* What the decoder's get_buffer2 callback saw. */
typedef struct image_dims {
    int probe_only; /* stop at the first buffer request: the size is known */
    int seen;       /* width/height are set */
    int width, height;
    int refused;         /* get_buffer refused the frame: over a limit */
    int64_t frame_bytes; /* the refused frame's size */
    const char *pix_fmt; /* and its pixel format */
    int64_t bytes;       /* the decoded frame's size, set when seen */
    int64_t max_frame;   /* the budget left for the frame (0: only the fixed limits) */
    int64_t max_bytes;   /* the caller's budget for the whole load (0: none) */
    int64_t out_bytes;   /* what the load allocates after decoding (scaled copies) */
    /* the decoder's opaque: its jobs' first error (a block of the picture not decoded) */
    rp_decoder_hooks hooks;
} image_dims;

static const char *fmt_name(int format)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(format);
    return desc ? desc->name : "unknown";
}

/* Called by the decoder once the image header is parsed, before any pixel memory exists:
 * records the size, and refuses the buffer when a side is over RP_MAX_SIDE or the frame
 * over the pixel or byte limits, so oversized images are never decoded; when probing it
 * stops there (after the same checks, so probe and load agree). */
static int get_buffer(AVCodecContext *dec, AVFrame *frame, int flags)
{
    image_dims *d = rp_demux_opaque(dec);
    int bytes = av_image_get_buffer_size(frame->format, frame->width, frame->height, 1);
    int64_t pixels = (int64_t)frame->width * frame->height;

    d->seen = 1;
    d->width = frame->width;
    d->height = frame->height;
    d->bytes = bytes < 0 ? INT64_MAX : bytes;
    if (frame->width > RP_MAX_SIDE || frame->height > RP_MAX_SIDE || pixels > IMAGE_MAX_PIXELS ||
        bytes < 0 || bytes > IMAGE_MAX_FRAME_BYTES || (d->max_frame > 0 && bytes > d->max_frame)) {
        /* av_image_get_buffer_size fails past INT_MAX: count it as over the limit. */
        d->refused = 1;
        d->frame_bytes = d->bytes;
        d->pix_fmt = fmt_name(frame->format);
        return AVERROR(ERANGE);
    }
    d->pix_fmt = fmt_name(frame->format);
    if (d->probe_only)
        return AVERROR_EXIT;
    return avcodec_default_get_buffer2(dec, frame, flags);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static unsigned be16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static unsigned le16(const uint8_t *p)
{
    return (unsigned)p[1] << 8 | p[0];
}

/* The size a JPEG's first SOFn segment claims, walking the segments of head[0..n). */
static int jpeg_size(const uint8_t *head, size_t n, uint32_t *w, uint32_t *h)
{
    size_t pos = 2;

    while (pos + 4 <= n) {
        unsigned marker, len;
        if (head[pos] != 0xff)
            return 0;
        if (head[pos + 1] == 0xff) { /* fill byte */
            pos++;
            continue;
        }
        marker = head[pos + 1];
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { /* no length */
            pos += 2;
            continue;
        }
        if (marker == 0xd9 || marker == 0xda) /* end of image, start of scan */
            return 0;
        len = be16(head + pos + 2);
        if (len < 2)
            return 0;
        if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
            marker != 0xcc) {
            if (pos + 9 > n)
                return 0;
            *h = be16(head + pos + 5);
            *w = be16(head + pos + 7);
            return 1;
        }
        pos += 2 + (size_t)len;
    }
    return 0;
}

/* The size an image's header claims, for the formats whose header fits in a few bytes
 * (PNG, JPEG, GIF, BMP, WebP, QOI). Returns 1 and sets *w, *h when the header says. */
static int header_size(const uint8_t *head, size_t n, uint32_t *w, uint32_t *h)
{
    if (n >= 24 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8) && !memcmp(head + 12, "IHDR", 4)) {
        *w = be32(head + 16);
        *h = be32(head + 20);
        return 1;
    }
    if (n >= 4 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
        return jpeg_size(head, n, w, h);
    if (n >= 10 && (!memcmp(head, "GIF87a", 6) || !memcmp(head, "GIF89a", 6))) {
        *w = le16(head + 6);
        *h = le16(head + 8);
        return 1;
    }
    if (n >= 26 && head[0] == 'B' && head[1] == 'M') {
        if (le32(head + 14) == 12) { /* OS/2 BITMAPCOREHEADER */
            *w = le16(head + 18);
            *h = le16(head + 20);
        } else {
            int32_t sh = (int32_t)le32(head + 22); /* negative: top-down rows */
            *w = le32(head + 18);
            *h = sh < 0 ? (uint32_t)0 - (uint32_t)sh : (uint32_t)sh;
        }
        return 1;
    }
    if (n >= 30 && !memcmp(head, "RIFF", 4) && !memcmp(head + 8, "WEBPVP8X", 8)) {
        /* 24-bit canvas width and height minus one, little-endian */
        *w = 1 + ((uint32_t)head[26] << 16 | le16(head + 24));
        *h = 1 + ((uint32_t)head[29] << 16 | le16(head + 27));
        return 1;
    }
    if (n >= 12 && !memcmp(head, "qoif", 4)) {
        *w = be32(head + 4);
        *h = be32(head + 8);
        return 1;
    }
    return 0;
}

/* Bytes a zlib stream of n bytes at offset pos of fd inflates to, counted in a scratch
 * buffer and stopped once past limit (then limit + 1 is returned). A damaged stream counts
 * what inflated before the damage (FFmpeg stops there too). Returns -1 on a read error. */
static int64_t inflated_size(int fd, off_t pos, uint32_t n, int64_t limit)
{
    uint8_t in[16384], out[65536];
    z_stream z;
    int64_t total = 0;
    int zr = Z_OK;

    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return -1;
    while (n > 0 && zr != Z_STREAM_END && total <= limit) {
        ssize_t got = pread(fd, in, n < sizeof in ? n : sizeof in, pos);
        if (got <= 0) {
            inflateEnd(&z);
            return got < 0 ? -1 : total;
        }
        pos += got;
        n -= (uint32_t)got;
        z.next_in = in;
        z.avail_in = (uInt)got;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            zr = inflate(&z, Z_NO_FLUSH);
            total += (int64_t)(sizeof out - z.avail_out);
        } while (zr == Z_OK && z.avail_out == 0 && total <= limit);
        if (zr != Z_OK && zr != Z_BUF_ERROR)
            break;
    }
    inflateEnd(&z);
    return total > limit ? limit + 1 : total;
}

/* Length of the NUL-terminated prefix of p[0..n), or n when there is no NUL. */
static size_t field_len(const uint8_t *p, size_t n)
{
    const uint8_t *z = memchr(p, 0, n);
    return z ? (size_t)(z - p) : n;
}

/* Walk a PNG's chunks and add up what its metadata chunks cost decoded: iCCP, zTXt and
 * compressed iTXt inflated, tEXt, uncompressed iTXt and eXIf as stored. Refuses more than
 * IMAGE_MAX_META_BYTES with the chunk that passes it; *meta is the total. */
static int png_meta(int fd, int64_t size, const char *path, int64_t *meta, rp_error *err)
{
    int64_t pos = 8, total = 0;

    while (pos + 12 <= size) {
        uint8_t h[8], lead[160];
        uint32_t len;
        char type[5];
        int64_t add = 0;

        if (pread(fd, h, 8, pos) != 8)
            break;
        len = be32(h);
        memcpy(type, h + 4, 4);
        type[4] = '\0';
        if (len > size - pos - 12)
            break; /* truncated: the decoder says so */
        if (!strcmp(type, "IEND"))
            break;
        if (!strcmp(type, "iCCP") || !strcmp(type, "zTXt") || !strcmp(type, "iTXt")) {
            size_t n = len < sizeof lead ? len : sizeof lead, skip, k;
            ssize_t got = pread(fd, lead, n, pos + 8);
            int compressed = 1;

            if (got != (ssize_t)n)
                break;
            skip = field_len(lead, n) + 1; /* profile name or keyword, NUL */
            if (!strcmp(type, "iTXt")) {
                compressed = skip < n && lead[skip] != 0;
                skip += 2;                              /* compression flag and method */
                for (int f = 0; f < 2 && skip < n; f++) /* language, translated keyword */
                    skip += field_len(lead + skip, n - skip) + 1;
            } else {
                skip += 1; /* compression method */
            }
            if (skip > len)
                skip = len;
            k = len - skip;
            add = compressed ? inflated_size(fd, (off_t)(pos + 8 + (int64_t)skip), (uint32_t)k,
                                             IMAGE_MAX_META_BYTES - total)
                             : (int64_t)k;
            if (add < 0) {
                return rp_error_set(err, RP_ERR_IO, 1, "cannot read image '%s': %s", path,
                                    strerror(errno));
            }
        } else if (!strcmp(type, "tEXt") || !strcmp(type, "eXIf")) {
            add = len;
        }
        total += add;
        if (total > IMAGE_MAX_META_BYTES) {
            return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                                "image '%s' holds more than %" PRId64
                                " MiB of metadata (its %s chunk at "
                                "byte %" PRId64 " inflates past the limit): a decompression bomb?",
                                path, IMAGE_MAX_META_BYTES >> 20, type, pos);
        }
        pos += 12 + (int64_t)len;
    }
    *meta = total;
    return RP_OK;
}

/* The message for an image over a limit; returns RP_ERR_TOO_LARGE. */
static int too_large(const char *path, int64_t w, int64_t h, rp_error *err)
{
    if (w > RP_MAX_SIDE || h > RP_MAX_SIDE)
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "image '%s' is %" PRId64 "x%" PRId64
                            ": at most %d pixels per side are accepted",
                            path, w, h, RP_MAX_SIDE);
    return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                        "image '%s' is %" PRId64 "x%" PRId64 " (%" PRId64
                        " pixels): at most %" PRId64 " (2^26, 8192x8192) are accepted",
                        path, w, h, w * h, (int64_t)IMAGE_MAX_PIXELS);
}

/* Refuse anything that is not a readable, non-empty regular file of at most
 * IMAGE_MAX_FILE_BYTES before FFmpeg sees it (a FIFO would block, and a mask is read more
 * than once; a directory or device makes no sense), and an image whose header claims a size
 * over the limits. The file is opened non-blocking and checked through its descriptor, so
 * a FIFO is never waited on. */
typedef struct image_cost {
    int64_t file; /* bytes on disk */
    int64_t meta; /* metadata bytes once decoded (PNG) */
} image_cost;

static int check_file(const char *path, image_cost *cost, rp_error *err)
{
    struct stat st;
    uint8_t *head = NULL;
    ssize_t n;
    uint32_t w, h;
    int fd, ret = RP_OK;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return rp_error_set(err, RP_ERR_IO, 1, "cannot open image '%s': %s", path,
                            errno == EISDIR ? "it is a directory" : strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        ret = rp_error_set(err, RP_ERR_IO, 1, "cannot open image '%s': %s", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        ret = rp_error_set(err, RP_ERR_IO, 1, "cannot open image '%s': it is a directory", path);
    } else if (!S_ISREG(st.st_mode)) {
        ret = rp_error_set(
            err, RP_ERR_IO, 1, "cannot open image '%s': not a regular file (%s)", path,
            S_ISFIFO(st.st_mode) ? "a FIFO: images are read more than once" : "a device");
    } else if (st.st_size == 0) {
        ret =
            rp_error_set(err, RP_ERR_FORMAT, 1, "cannot read image '%s': the file is empty", path);
    } else if (st.st_size > IMAGE_MAX_FILE_BYTES) {
        ret = rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                           "image '%s' is %" PRId64 " MiB: at most %" PRId64 " MiB are accepted",
                           path, (int64_t)st.st_size >> 20, IMAGE_MAX_FILE_BYTES >> 20);
    } else if (!(head = malloc(HEAD_BYTES))) {
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory reading '%s'", path);
    } else if ((n = pread(fd, head, HEAD_BYTES, 0)) < 0) {
        ret = rp_error_set(err, RP_ERR_IO, 1, "cannot read image '%s': %s", path, strerror(errno));
    } else if (header_size(head, (size_t)n, &w, &h) &&
               (w > RP_MAX_SIDE || h > RP_MAX_SIDE || (int64_t)w * h > IMAGE_MAX_PIXELS)) {
        ret = too_large(path, w, h, err);
    } else {
        cost->file = st.st_size;
        cost->meta = 0;
        if (n >= 8 && !memcmp(head, "\x89PNG\r\n\x1a\n", 8))
            ret = png_meta(fd, st.st_size, path, &cost->meta, err);
    }
    free(head);
    close(fd);
    return ret;
}

/* Open path, decode its first frame into *frame (unless dims->probe_only, which stops as
 * soon as the size is known). Returns RP_ERR_IO, RP_ERR_FORMAT, RP_ERR_TOO_LARGE or
 * RP_ERR_NOMEM with a reason in err. */
/* The file's own checks, and under --max-memory what is left for the decoded frame once
 * the file, its metadata and the scaled copies are counted. */
static int image_budget(const char *path, image_dims *dims, image_cost *cost, rp_error *err)
{
    int ret = check_file(path, cost, err);
    if (ret || dims->max_bytes <= 0)
        return ret;
    int64_t fixed =
        cost->file + IMAGE_META_FACTOR * cost->meta + dims->out_bytes + IMAGE_SLACK_BYTES;
    dims->max_frame = dims->max_bytes - fixed;
    if (dims->max_frame < 1) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "image '%s' needs %" PRId64 " MiB before its pixels are decoded (file, "
                            "metadata, scaled copies), over the %" PRId64 " MiB left of %s",
                            path, fixed >> 20, dims->max_bytes >> 20,
                            rp_name("--max-memory", "max_memory"));
    }
    return RP_OK;
}

/* An animation that is no still image: "an animated WebP" (VP8X with its animation flag),
 * which FFmpeg's WebP decoder cannot decode, or "an animated PNG (APNG)" (.apng, read by a
 * demuxer of animations) where an acTL chunk comes before the first IDAT; else NULL. Reads
 * the file's first 4 KiB. */
static const char *animation_of(const char *path)
{
    uint8_t b[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    ssize_t n = pread(fd, b, sizeof b, 0);
    close(fd);
    if (n >= 21 && !memcmp(b, "RIFF", 4) && !memcmp(b + 8, "WEBPVP8X", 8) && (b[20] & 0x02))
        return "an animated WebP";
    if (n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8)) {
        for (size_t p = 8; p + 8 <= (size_t)n;) {
            uint32_t len = be32(b + p);
            if (!memcmp(b + p + 4, "acTL", 4))
                return "an animated PNG (APNG)";
            if (!memcmp(b + p + 4, "IDAT", 4) || len > (size_t)n)
                break;
            p += 12 + (size_t)len;
        }
    }
    return NULL;
}

/* The error for an animation where a still image is read (see animation_of), or RP_OK. */
static int animation_failure(const char *path, rp_error *err)
{
    const char *anim = animation_of(path);
    if (!anim)
        return RP_OK;
    if (!strcmp(anim, "an animated WebP"))
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "'%s' is an animated WebP, which FFmpeg here cannot decode: give a "
                            "still image (or, as a background, a video)",
                            path);
    return rp_error_set(err, RP_ERR_FORMAT, 1,
                        "'%s' is %s, which rockpool does not read: give a still image (or, as a "
                        "background, a video: ffmpeg -i IN.apng -pix_fmt yuv420p clip.mp4)",
                        path, anim);
}

/* Whether path opens as a video (a whole one, where a still image was asked for). */
static int video_opens(const char *path)
{
    AVFormatContext *fc = NULL;
    AVDictionary *fopts = NULL;
    char *formats = rp_demux_formats(1);
    if (!formats)
        return 0;
    av_dict_set(&fopts, "probesize", "1048576", 0);
    int ret = rp_demux_open(&fc, path, formats, &fopts);
    av_dict_free(&fopts);
    av_free(formats);
    if (ret >= 0)
        avformat_close_input(&fc);
    return ret >= 0;
}

/* Open path as a still image and find its picture stream: *pfc, *index and *codec, or an
 * error (nothing left open). */
static int open_image(const char *path, AVFormatContext **pfc, int *index, const AVCodec **codec,
                      rp_error *err)
{
    AVFormatContext *fc = NULL;
    AVDictionary *fopts = NULL;
    char *formats = rp_demux_formats(0);
    if (!formats) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory reading '%s'", path);
    }
    /* pattern_type none: a '%' in the name is not a sequence pattern. */
    av_dict_set(&fopts, "pattern_type", "none", 0);
    av_dict_set(&fopts, "probesize", "1048576", 0);
    int ret = rp_demux_open(&fc, path, formats, &fopts);
    av_dict_free(&fopts);
    av_free(formats);
    if (ret < 0) {
        /* A video no demuxer opens (an MP4 cut before its index) is not called an image. */
        int indexed = 0;
        const char *video = ret == AVERROR(ENOMEM) ? NULL : rp_demux_guess_media(path, &indexed);
        if (video && video_opens(path))
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "'%s' is a video (%s): a still image is needed here", path, video);
        /* Only a container read through an index (MP4's moov) fails to open when cut
         * short past its header; others (Y4M) open from the header alone, so it is the
         * header that FFmpeg refuses. */
        if (video && indexed)
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "'%s' is a truncated or damaged video: FFmpeg recognises it as %s "
                                "but cannot open it (cut short before its index, or damaged)",
                                path, video);
        if (video)
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "'%s' is a damaged video: FFmpeg recognises it as %s but cannot "
                                "open it (its header is cut short or damaged, or gives a picture "
                                "FFmpeg does not take, such as a size over its limit)",
                                path, video);
        if (ret != AVERROR(ENOMEM) && animation_failure(path, err))
            return err->code;
        return rp_error_set(err, ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT,
                            ret != AVERROR(ENOMEM), "'%s' is not a still image FFmpeg can read",
                            path);
    }
    if (!rp_demux_is_image(fc->iformat->name)) {
        rp_error_set(err, RP_ERR_FORMAT, 1, "'%s' is not a still image (FFmpeg reads it as %s)",
                     path, fc->iformat->long_name ? fc->iformat->long_name : fc->iformat->name);
        avformat_close_input(&fc);
        return RP_ERR_FORMAT;
    }
    *index = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, codec, 0);
    if (*index < 0 || !*codec) {
        rp_error_set(err, RP_ERR_FORMAT, 1, "'%s' holds no image FFmpeg can decode", path);
        avformat_close_input(&fc);
        return RP_ERR_FORMAT;
    }
    *pfc = fc;
    return RP_OK;
}

/* A decoder for the stream whose buffers go through get_buffer (which sizes and refuses
 * them against dims) and whose jobs go through job_execute2: an FFmpeg error code, or 0. */
static int open_decoder(AVCodecContext **dec, const AVCodec *codec, const AVFormatContext *fc,
                        int index, image_dims *dims)
{
    const rp_decoder_opts o = {.threads = 1, /* get_buffer runs on this thread */
                               .bitexact = 1,
                               /* damage is an error, not concealed: a JPEG cut short
                                * decoded, grey below the cut, with exit 0 */
                               .explode = 1,
                               .get_buffer2 = get_buffer,
                               .opaque = dims,
                               .max_pixels = IMAGE_MAX_PIXELS,
                               .hooks = &dims->hooks};
    return rp_demux_open_decoder(dec, fc, index, codec, &o);
}

/* Feed packets of stream index until the first frame comes out (or, probing, until
 * get_buffer has seen its size): 0, or an FFmpeg error code. */
static int receive_first(AVFormatContext *fc, AVCodecContext *dec, int index, AVPacket *pkt,
                         AVFrame *frame, const image_dims *dims)
{
    int flushing = 0;
    for (;;) {
        int ret = avcodec_receive_frame(dec, frame);
        if (ret >= 0)
            return 0;
        if (ret != AVERROR(EAGAIN))
            return ret;
        if (dims->seen && dims->probe_only)
            return 0;
        if (flushing)
            return AVERROR_INVALIDDATA;
        ret = av_read_frame(fc, pkt);
        if (ret == AVERROR_EOF) {
            flushing = 1;
            ret = avcodec_send_packet(dec, NULL);
        } else if (ret < 0) {
            return ret;
        } else {
            if (pkt->stream_index == index)
                ret = avcodec_send_packet(dec, pkt);
            av_packet_unref(pkt);
        }
        if (ret < 0 && ret != AVERROR(EAGAIN))
            return ret;
    }
}

/* The error for a decode that failed with FFmpeg's ret: a size or memory refusal of
 * get_buffer's said as such, else FFmpeg's reason. RP_OK when only probing and the size
 * was seen. */
static int decode_failure(const char *path, const AVCodec *codec, const image_dims *dims, int ret,
                          rp_error *err)
{
    char msg[AV_ERROR_MAX_STRING_SIZE];
    if (dims->refused && (dims->width > RP_MAX_SIDE || dims->height > RP_MAX_SIDE ||
                          (int64_t)dims->width * dims->height > IMAGE_MAX_PIXELS))
        return too_large(path, dims->width, dims->height, err);
    if (dims->refused && dims->frame_bytes <= IMAGE_MAX_FRAME_BYTES) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "image '%s' is %dx%d %s: decoding it takes %" PRId64
                            " MiB, over the %" PRId64
                            " MiB left of %s (raise it, or use a smaller image)",
                            path, dims->width, dims->height, dims->pix_fmt, dims->frame_bytes >> 20,
                            dims->max_frame >> 20, rp_name("--max-memory", "max_memory"));
    }
    if (dims->refused) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "image '%s' is %dx%d %s: decoding it takes %" PRId64
                            " MiB, over the %" PRId64 " MiB limit",
                            path, dims->width, dims->height, dims->pix_fmt, dims->frame_bytes >> 20,
                            IMAGE_MAX_FRAME_BYTES >> 20);
    }
    if (dims->seen && dims->probe_only)
        return RP_OK;
    if (ret != AVERROR(ENOMEM) && animation_failure(path, err))
        return err->code;
    av_strerror(ret, msg, sizeof(msg));
    /* FFmpeg refuses sizes past about 16k x 16k while parsing the header, before our
     * get_buffer sees them. */
    return rp_error_set(err, ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT,
                        ret != AVERROR(ENOMEM), "cannot decode image '%s' (%s): %s%s", path,
                        codec->name, msg,
                        !dims->seen ? " (corrupt, truncated, or over 16384 pixels per side?)"
                        : ret == AVERROR_INVALIDDATA ? " (damaged, or cut short)"
                                                     : "");
}

/* Decoders that hide a file cut short, each checked here by what its format ends with, after
 * the decode (a background, a wall mask, a sky image, --check):
 *   - QOI ends with its end marker, seven 0x00 bytes and a 0x01; FFmpeg's QOI decoder
 *     repeats the last pixel where the data stops (the picture smeared below the cut), and
 *     where the data before a whole end marker gives too few pixels (qoi_pixels), it leaves
 *     the rest of the picture as it was;
 *   - JPEG-LS ends with the JPEG end marker FF D9 (which its scan data cannot hold);
 *     FFmpeg's JPEG-LS decoder reads past the end of a cut scan as zeros;
 *   - a Sun raster's header gives the length of its data (0 in the oldest files: then
 *     height rows of width*depth bits, each padded to 16 bits), after the colour map;
 *     FFmpeg's decoder leaves the rows past a cut as they were.
 * Each decoded with exit 0; a file that lacks its end is refused as cut short. */
/* The pixels a QOI's ops give between its 14-byte header and its end marker (the last 8 of
 * size bytes), walked as qoiformat.org's specification reads them: QOI_OP_RGB (0xfe) is 4
 * bytes, QOI_OP_RGBA (0xff) 5, QOI_OP_INDEX and QOI_OP_DIFF 1, QOI_OP_LUMA 2, all one pixel;
 * QOI_OP_RUN 1 byte, (b & 0x3f) + 1 pixels. An op cut by the end marker gives none. Stops at
 * want pixels (FFmpeg's decoder reads no further), where the last op may be one of several
 * bytes. -1 when the file cannot be read. */
static int64_t qoi_pixels(int fd, int64_t size, int64_t want)
{
    enum { BUF = 1 << 16 };
    uint8_t *buf = malloc(BUF);
    int64_t pixels = 0, at = 14, end = size - 8;
    int skip = 0, last = 0;

    if (!buf)
        return -1; /* (errno: ENOMEM) */
    while (at < end && pixels < want) {
        size_t n = (size_t)(end - at < BUF ? end - at : BUF);
        ssize_t got = pread(fd, buf, n, at);
        if (got <= 0) {
            int e = got == 0 ? EIO : errno; /* (0: shorter than fstat said, changed while read) */
            free(buf);
            errno = e;
            return -1;
        }
        ssize_t i = 0;
        for (; i < got && pixels < want; i++) {
            uint8_t b = buf[i];
            if (skip) {
                skip--;
                continue;
            }
            last = 1;
            if (b == 0xfe)
                skip = 3;
            else if (b == 0xff)
                skip = 4;
            else if (b >> 6 == 2)
                skip = 1;
            else if (b >> 6 == 3)
                last = (b & 0x3f) + 1;
            pixels += last;
        }
        at += i; /* the bytes read: every one, or up to the op that gave the last pixel */
    }
    free(buf);
    /* an op whose bytes run into the end marker gives no pixel; one whose bytes are all
     * there before it does, though the walk stopped at its first */
    return skip && at + skip > end ? pixels - last : pixels;
}

static int check_cut_short(const char *path, const AVCodec *codec, rp_error *err)
{
    static const uint8_t qoi_end[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    uint8_t head[32], tail[8];
    struct stat st;
    int qoi = !strcmp(codec->name, "qoi"), jpegls = !strcmp(codec->name, "jpegls"),
        sun = !strcmp(codec->name, "sunrast");
    int read_ok = 0;

    if (!qoi && !jpegls && !sun)
        return RP_OK;
    int64_t pixels = 0, want = 0;
    int read_errno = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
        read_ok = fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof head &&
                  pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
                  pread(fd, tail, sizeof tail, st.st_size - 8) == 8;
        /* a QOI with its end marker: its ops must give every pixel its header gives (FFmpeg's
         * decoder leaves the rest of the picture as it was, without an error) */
        if (qoi && read_ok && !memcmp(tail, qoi_end, 8)) {
            want = (int64_t)be32(head + 4) * be32(head + 8);
            pixels = qoi_pixels(fd, (int64_t)st.st_size, want);
            read_errno = errno;
        }
        close(fd);
    }
    if (qoi && !(read_ok && !memcmp(tail, qoi_end, 8)))
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "cannot decode image '%s' (qoi): it does not end with the QOI end "
                            "marker (cut short, or damaged)",
                            path);
    if (qoi && pixels < 0 && read_errno == ENOMEM)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "reading image '%s': out of memory", path);
    if (qoi && pixels < 0)
        return rp_error_set(err, RP_ERR_IO, 1, "cannot read image '%s': %s", path,
                            strerror(read_errno));
    if (qoi && pixels < want)
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "cannot decode image '%s' (qoi): its data gives %" PRId64
                            " pixels before the end marker, and its header %" PRIu32 "x%" PRIu32
                            " = %" PRId64 " (cut short, or damaged)",
                            path, pixels, be32(head + 4), be32(head + 8), want);
    if (jpegls && !(read_ok && tail[6] == 0xff && tail[7] == 0xd9))
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "cannot decode image '%s' (jpegls): it does not end with the JPEG end "
                            "marker FF D9 (cut short, or damaged)",
                            path);
    if (sun) {
        int64_t width = be32(head + 4), height = be32(head + 8), depth = be32(head + 12);
        int64_t data = be32(head + 16), map = be32(head + 28);
        if (data == 0)
            data = height * ((width * depth + 15) / 16 * 2);
        if (!read_ok || (int64_t)st.st_size < 32 + map + data)
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "cannot decode image '%s' (sunrast): it holds %lld bytes after "
                                "its header, which gives %lld (cut short, or damaged)",
                                path, read_ok ? (long long)st.st_size - 32 : 0LL,
                                (long long)(map + data));
    }
    return RP_OK;
}

/* A picture to be shown rotated or mirrored (a JPEG's EXIF orientation, which FFmpeg gives
 * as the frame's display matrix: a phone's portrait photo is stored on its side) is
 * refused, as a rotated video is, never drawn on its side. */
static int check_orientation(const char *path, const AVFrame *frame, rp_error *err)
{
    const AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX);
    const int32_t *m;
    double angle;

    if (!sd || sd->size < 9 * sizeof(int32_t))
        return RP_OK;
    m = (const int32_t *)sd->data;
    angle = av_display_rotation_get(m);
    /* Identity: a = d = 1.0 (16.16), b = c = 0 */
    if (m[0] == 1 << 16 && m[1] == 0 && m[3] == 0 && m[4] == 1 << 16)
        return RP_OK;
    if ((int64_t)m[0] * m[4] - (int64_t)m[1] * m[3] < 0)
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "image '%s' is stored mirrored (its EXIF orientation): rockpool does "
                            "not flip pictures; make an upright copy first (ffmpeg -i IN OUT.png "
                            "turns it upright)",
                            path);
    return rp_error_set(err, RP_ERR_FORMAT, 1,
                        "image '%s' is to be shown rotated by %.0f degrees (its EXIF "
                        "orientation): rockpool does not rotate pictures; make an upright copy "
                        "first (ffmpeg -i IN OUT.png turns it upright)",
                        path, angle < 0 ? -angle : angle);
}

static int decode_first(const char *path, image_dims *dims, image_cost *cost, AVFrame **pframe,
                        rp_error *err)
{
    AVFormatContext *fc = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *pkt = NULL;
    AVFrame *frame = NULL;
    const AVCodec *codec = NULL;
    int ret, index = -1;

    av_log_set_level(AV_LOG_QUIET);
    if ((ret = image_budget(path, dims, cost, err)) ||
        (ret = open_image(path, &fc, &index, &codec, err)))
        return ret;
    pkt = av_packet_alloc();
    frame = av_frame_alloc();
    if (!pkt || !frame) {
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory reading '%s'", path);
        goto done;
    }
    if ((ret = open_decoder(&dec, codec, fc, index, dims)) < 0 ||
        (ret = receive_first(fc, dec, index, pkt, frame, dims)) < 0 ||
        (dims->hooks.job_error && !dims->probe_only && (ret = dims->hooks.job_error) < 0)) {
        ret = decode_failure(path, codec, dims, ret, err);
        goto done;
    }
    if (dims->probe_only) {
        ret = RP_OK;
        goto done;
    }
    if (frame->width < 1 || frame->height < 1 || frame->width > RP_MAX_SIDE ||
        frame->height > RP_MAX_SIDE || !frame->data[0]) {
        dims->width = frame->width;
        dims->height = frame->height;
        ret = decode_failure(path, codec, dims, AVERROR_INVALIDDATA, err);
        goto done;
    }
    if ((ret = check_orientation(path, frame, err)) || (ret = check_cut_short(path, codec, err)))
        goto done;
    *pframe = frame;
    frame = NULL;
    ret = RP_OK;
done:
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fc);
    return ret;
}

int rp_image_probe(const char *path, int *width, int *height, rp_error *err)
{
    image_dims dims = {.probe_only = 1};
    image_cost cost;
    int ret = decode_first(path, &dims, &cost, NULL, err);

    if (ret)
        return ret;
    if (!dims.seen || dims.width < 1 || dims.height < 1) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot read the size of image '%s'", path);
    }
    if (dims.width > RP_MAX_SIDE || dims.height > RP_MAX_SIDE) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "image '%s' is %dx%d: at most %d pixels per side are accepted", path,
                            dims.width, dims.height, RP_MAX_SIDE);
    }
    *width = dims.width;
    *height = dims.height;
    return RP_OK;
}

/* Bytes load_rgb allocates after decoding a frame for a width x height result: the RGBA
 * scaler output (rows padded to 64 bytes) and the RGB copy, plus the mask for masks. */
static int64_t out_bytes(int width, int height, int mask)
{
    return ((int64_t)width * 4 + 64) * height + (int64_t)width * height * (3 + mask);
}

int rp_image_cost(const char *path, int width, int height, int mask, int64_t *bytes, rp_error *err)
{
    image_dims dims = {.probe_only = 1};
    image_cost cost;
    int ret = decode_first(path, &dims, &cost, NULL, err);

    if (ret)
        return ret;
    if (!dims.seen) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot read the size of image '%s'", path);
    }
    *bytes = cost.file + IMAGE_META_FACTOR * cost.meta + dims.bytes +
             out_bytes(width, height, mask) + IMAGE_SLACK_BYTES;
    return RP_OK;
}

/* Decode path and produce width x height RGB24 in a new buffer: libswscale to RGBA at the
 * target size (bicubic, bit-exact), then each channel composited over black as
 * (c * a + 127) / 255; or with rgba, the RGBA samples as they are. At most max_bytes (when
 * > 0) are spent on it, mask included. */
static int load_rgb(const char *path, int width, int height, int64_t max_bytes, int mask,
                    int rgba_out, uint8_t **prgb, rp_error *err)
{
    image_dims dims = {0};
    image_cost cost;
    AVFrame *frame = NULL;
    struct SwsContext *sws = NULL;
    uint8_t *rgba[4] = {NULL}, *rgb = NULL;
    int rgba_stride[4];
    size_t pixels = (size_t)width * (size_t)height;
    int ret;

    *prgb = NULL;
    if (width < 1 || height < 1 || width > RP_MAX_SIDE || height > RP_MAX_SIDE) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "cannot scale image '%s' to %dx%d", path, width,
                            height);
    }
    dims.max_bytes = max_bytes;
    dims.out_bytes = out_bytes(width, height, mask);
    ret = decode_first(path, &dims, &cost, &frame, err);
    if (ret)
        return ret;
    sws = sws_getContext(frame->width, frame->height, frame->format, width, height, AV_PIX_FMT_RGBA,
                         SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    /* A YUV still's own matrix and range: a CMYK JPEG decodes to full-range yuva444p, which
     * was read as limited (shadows crushed, colours 29 dB from FFmpeg's). */
    rp_fit_source_colors(sws, frame->format, frame->colorspace, frame->color_range);
    /* Aligned and padded: libswscale's SIMD writers store past a row's end. */
    if (av_image_alloc(rgba, rgba_stride, width, height, AV_PIX_FMT_RGBA, 64) < 0)
        rgba[0] = NULL;
    rgb = malloc(pixels * (rgba_out ? 4 : 3));
    if (!sws && sws_isSupportedInput(frame->format)) {
        /* a layout libswscale reads, so the scale itself is what it refuses (a side
         * shrunk or grown by thousands of times, as a 1x4096 picture to 64x36) */
        ret = rp_error_set(err, RP_ERR_FORMAT, 1,
                           "cannot scale image '%s' from %dx%d to %dx%d (libswscale refuses "
                           "so far a scale): use a picture nearer that shape",
                           path, frame->width, frame->height, width, height);
        goto fail;
    }
    if (!sws || !rgba[0] || !rgb) {
        ret = rp_error_set(err, sws ? RP_ERR_NOMEM : RP_ERR_FORMAT, !sws,
                           sws ? "out of memory reading image '%s'"
                               : "cannot convert image '%s' (unsupported pixel layout)",
                           path);
        goto fail;
    }
    /* A failed scale would leave rgba unwritten, and the texture would differ from run
     * to run. */
    if (sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, rgba,
                  rgba_stride) != height) {
        ret = rp_error_set(err, RP_ERR_FORMAT, 1, "cannot convert image '%s' to %dx%d", path, width,
                           height);
        goto fail;
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *src = rgba[0] + (size_t)y * rgba_stride[0];
        uint8_t *dst = rgb + (size_t)y * width * (rgba_out ? 4 : 3);

        if (rgba_out) {
            memcpy(dst, src, (size_t)width * 4);
            continue;
        }
        for (int x = 0; x < width; x++, src += 4, dst += 3) {
            unsigned a = src[3];

            for (int c = 0; c < 3; c++)
                dst[c] = (uint8_t)((src[c] * a + 127) / 255);
        }
    }
    *prgb = rgb;
    rgb = NULL;
    ret = RP_OK;

fail:
    free(rgb);
    av_freep(&rgba[0]);
    sws_freeContext(sws);
    av_frame_free(&frame);
    return ret;
}

int rp_image_load_rgb(const char *path, int width, int height, uint8_t **rgb, rp_error *err)
{
    return load_rgb(path, width, height, 0, 0, 0, rgb, err);
}

int rp_image_load_rgba(const char *path, int width, int height, uint8_t **rgba, rp_error *err)
{
    return load_rgb(path, width, height, 0, 0, 1, rgba, err);
}

int rp_image_load_rgb_max(const char *path, int width, int height, int64_t max_bytes, uint8_t **rgb,
                          rp_error *err)
{
    return load_rgb(path, width, height, max_bytes, 0, 0, rgb, err);
}

/* Walls by rp_mask_is_wall (image.h). */
int rp_image_load_mask(const char *path, int width, int height, uint8_t **mask, rp_error *err)
{
    return rp_image_load_mask_max(path, width, height, 0, mask, err);
}

int rp_image_load_mask_rgb_max(const char *path, int width, int height, int64_t max_bytes,
                               uint8_t **rgb, rp_error *err)
{
    return load_rgb(path, width, height, max_bytes, 1, 0, rgb, err);
}

int rp_image_load_mask_max(const char *path, int width, int height, int64_t max_bytes,
                           uint8_t **mask, rp_error *err)
{
    uint8_t *rgb, *cells;
    size_t pixels = (size_t)width * (size_t)height;
    int ret;

    *mask = NULL;
    ret = load_rgb(path, width, height, max_bytes, 1, 0, &rgb, err);
    if (ret)
        return ret;
    cells = malloc(pixels);
    if (!cells) {
        free(rgb);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory reading mask '%s'", path);
    }
    for (size_t i = 0; i < pixels; i++)
        cells[i] = (uint8_t)rp_mask_is_wall(rgb + 3 * i);
    free(rgb);
    *mask = cells;
    return RP_OK;
}
