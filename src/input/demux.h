/* demux.h - every input file goes through here to libavformat and libavcodec: one regular file,
 * read with the "file" protocol only (a ':' in its name is never a protocol), by one of the
 * demuxers the caller names, and no other file opened on its behalf (a playlist's
 * segments, a concat list's entries, a reference in a container): a scene's inputs cannot
 * pull in files from elsewhere, nor block on a FIFO named inside them. Their decoders are
 * opened here too. */
#ifndef RP_DEMUX_H
#define RP_DEMUX_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

/** The demuxers a video background or an audio track may be read with (container formats
 * holding their own streams), for rp_demux_open's formats. */
extern const char rp_demux_media_formats[];

/** Still-image demuxers: image2 (by extension) and the content-probed image pipes
 * (png_pipe, jpeg_pipe, webp_pipe, ...), plus GIF's first frame. 1 or 0. */
int rp_demux_is_image(const char *name);

/** The names of every still-image demuxer of this FFmpeg, and with media those of
 * rp_demux_media_formats before them, comma-separated, for rp_demux_open: a file probed
 * as anything else is refused before its demuxer reads a byte of header. Returns an
 * av_malloc'd string, or NULL when out of memory. */
char *rp_demux_formats(int media);

/** Open path with avformat_open_input, restricted as above: formats is a comma-separated
 * format_whitelist (demuxer names, each matching any name of a demuxer's list), opts more
 * demuxer options (may be NULL; the caller frees it). Returns 0 or an FFmpeg error code:
 * AVERROR(EINVAL) also for a file of another format, AVERROR(EPERM) for a demuxer that
 * asked for another file. */
int rp_demux_open(AVFormatContext **fc, const char *path, const char *formats, AVDictionary **opts);

/** The long name of the media container (one of rp_demux_media_formats) that FFmpeg's
 * probe finds in path's first bytes, or NULL (not one, unreadable, out of memory): for
 * saying what a file that no demuxer opens was meant to be (a video cut short before its
 * index). *indexed (may be NULL) is set to 1 when the container cannot be opened without
 * an index that may lie at its end (MP4, QuickTime: the moov box), else 0 (Y4M, Matroska,
 * AVI, ... open from their header). Opens nothing but path, with the "file" protocol. */
const char *rp_demux_guess_media(const char *path, int *indexed);

/** What a decoder opened with hooks points its opaque to (the caller's to keep while the
 * decoder lives). Some decoders split a picture into jobs run through execute2 and drop a
 * job's error (FFmpeg's OpenEXR decoder with a block past the end of a file cut short: the
 * block left black, no error): on a decoder of one thread, every job goes through
 * rockpool's execute2, which keeps the first error in job_error for the caller to refuse
 * the picture as damaged (and to reset); the jobs still run in libavcodec's own. */
typedef struct rp_decoder_hooks {
    void *opaque;  /* the caller's (rp_demux_opaque), for its get_buffer2 */
    int job_error; /* the first error a job returned since the caller reset it, or 0 */
    int (*execute2)(struct AVCodecContext *c,
                    int (*func)(struct AVCodecContext *c2, void *arg, int jobnr, int threadnr),
                    void *arg, int *ret, int count); /* libavcodec's own */
} rp_decoder_hooks;

/** How a decoder is set up beyond its stream's parameters. */
typedef struct rp_decoder_opts {
    int threads;  /* thread_count; 0 leaves libavcodec's default (1) */
    int bitexact; /* AV_CODEC_FLAG_BITEXACT: the same pixels on every machine */
    int explode;  /* AV_EF_EXPLODE: report damaged data instead of concealing it */
    /* Frame buffers through get_buffer2 (which reads opaque with rp_demux_opaque), and a
     * size limit; NULL/0: FFmpeg's */
    int (*get_buffer2)(struct AVCodecContext *dec, AVFrame *frame, int flags);
    void *opaque;
    int64_t max_pixels;
    /* NULL, or the hooks (rp_decoder_hooks) the decoder's opaque points to: needed with
     * get_buffer2, and for keeping the jobs' errors */
    rp_decoder_hooks *hooks;
} rp_decoder_opts;

/** The caller's opaque (rp_decoder_opts.opaque) of a decoder opened with hooks. */
void *rp_demux_opaque(const struct AVCodecContext *dec);

/** Turn AV_EF_EXPLODE (damaged data is an error, not concealed) on or off for dec, whose
 * decoder reads it as each packet is decoded; never on for a decoder that would refuse
 * undamaged files with it (TIFF, for every tag it does not know). */
void rp_demux_set_explode(struct AVCodecContext *dec, int on);

/** The one way a decoder is opened (stills, video backgrounds, background audio): a
 * context for stream index of fc with codec, from the stream's parameters and time base,
 * set up as opts says, then opened. Returns 0 or an FFmpeg error code; *dec is set either
 * way (NULL when it could not be allocated) and is the caller's to free. */
int rp_demux_open_decoder(AVCodecContext **dec, const AVFormatContext *fc, int index,
                          const AVCodec *codec, const rp_decoder_opts *opts);

#endif
