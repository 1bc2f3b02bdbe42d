/* output_video.c - the video backends (mp4, mkv, mov, webm, gif, webp): a libavformat muxer
 * chosen by format, holding one video stream from the encoder of encode.h and the
 * background's sound, if any (audio_out.c). The call sequence follows FFmpeg's
 * doc/examples/muxing.c (5.1): the encoder is flushed with a NULL frame and packets are
 * moved to the stream's time base with av_packet_rescale_ts, so the file holds exactly the
 * frames written at exactly fps. A GIF's first frames are held until its palette is made
 * from them (palette.h). The file is muxed under a temporary name in the target's
 * directory and renamed by close. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "base/common.h"
#include "output/encode.h"
#include "output/mux.h"
#include "output/output_backend.h"
#include "output/palette.h"

/* One video output: the container and its temporary file, the video stream with its
 * encoder, a GIF's palette and the frames held to make it, and the sound. */
typedef struct video_out {
    const rp_output_spec *opts;
    AVFormatContext *oc;
    AVStream *st;
    AVPacket *pkt;
    rp_encoder enc;
    rp_palette *palette; /* GIF: made from the first frames */
    uint8_t **held;      /* GIF: the first frames, until the palette is made */
    int nheld, maxheld, palette_made;
    char tmp[4096];
    int tmp_exists;
    int to_stdout;       /* -o -: the stream goes to standard output, nothing to rename */
    rp_audio_out *audio; /* NULL: no audio */
} video_out;

static int is_animation(enum rp_format f)
{
    return f == RP_FORMAT_GIF || f == RP_FORMAT_WEBP;
}

/* The video's frames and the re-encoded audio's both go through here (see mux.h). */
int rp_send_and_mux(AVFormatContext *oc, const char *path, AVCodecContext *enc, AVStream *st,
                    AVPacket *pkt, AVFrame *frame, int audio, rp_error *err)
{
    const char *what = audio ? "audio encoder" : "encoder";
    int ret = avcodec_send_frame(enc, frame);

    if (ret < 0)
        return rp_encoder_error(err, what, enc->codec->name, ret);
    for (;;) {
        ret = avcodec_receive_packet(enc, pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return RP_OK;
        if (ret < 0)
            return rp_encoder_error(err, what, enc->codec->name, ret);
        av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
        pkt->stream_index = st->index;
        /* Takes the packet's reference, leaving pkt blank. */
        ret = av_interleaved_write_frame(oc, pkt);
        if (ret < 0)
            return rp_averr(err,
                            audio || ret == AVERROR(ENOSPC) || ret == AVERROR(EIO) ? RP_ERR_IO
                                                                                   : RP_ERR_ENCODER,
                            "cannot write", path, ret);
    }
}

/* The libavformat muxer for a format. */
static const char *muxer_name(enum rp_format f)
{
    switch (f) {
    case RP_FORMAT_MP4: return "mp4";
    case RP_FORMAT_MKV: return "matroska";
    case RP_FORMAT_MOV: return "mov";
    case RP_FORMAT_WEBM: return "webm";
    case RP_FORMAT_GIF: return "gif";
    case RP_FORMAT_WEBP: return "webp";
    default: return NULL;
    }
}

/* The muxer of opts->format (*pofmt), and the encoder and pixel format for it
 * (rp_encoder_pick). RP_ERR_UNSUPPORTED when this FFmpeg has no such muxer. */
static int pick(const rp_output_spec *opts, const AVOutputFormat **pofmt, rp_encoder_choice *choice,
                char *warning, size_t wlen, rp_error *err)
{
    const char *muxer = muxer_name(opts->format);
    const AVOutputFormat *ofmt = av_guess_format(muxer, NULL, NULL);

    if (!ofmt) {
        return rp_error_set(err, RP_ERR_UNSUPPORTED, 0, "this FFmpeg has no %s muxer", muxer);
    }
    *pofmt = ofmt;
    return rp_encoder_pick(opts, ofmt, choice, warning, wlen, err);
}

/* Whether the muxer wants the codec's header apart from its packets. */
static int global_header(const AVOutputFormat *ofmt)
{
    return (ofmt->flags & AVFMT_GLOBALHEADER) != 0;
}

/* The muxer's options: MP4 and MOV with the metadata tags and (faststart, for the file
 * itself) the index at the front; GIF and WebP playing forever, the web's habit. */
static void mux_options(const rp_output_spec *opts, int faststart, AVDictionary **d)
{
    if (opts->format == RP_FORMAT_MP4 || opts->format == RP_FORMAT_MOV)
        av_dict_set(d, "movflags",
                    faststart ? "+faststart+use_metadata_tags" : "+use_metadata_tags", 0);
    if (is_animation(opts->format))
        av_dict_set(d, "loop", "0", 0);
}

/* A header in memory, read as a file. */
typedef struct mem_read {
    const uint8_t *p;
    size_t len, at;
} mem_read;

static int mem_read_packet(void *opaque, uint8_t *buf, int size)
{
    mem_read *m = opaque;
    size_t n = m->len - m->at < (size_t)size ? m->len - m->at : (size_t)size;
    if (n == 0)
        return AVERROR_EOF;
    memcpy(buf, m->p + m->at, n);
    m->at += n;
    return (int)n;
}

/* Whether FFmpeg reads the video track of a Matroska header back into a decoder it can open:
 * the muxer writes some tracks without what their decoder needs (qtrle's bits a pixel, so
 * "Unsupported colorspace: 0 bits/sample?" and a file nothing reads), and some as a track of
 * no codec FFmpeg can name (a64multi's). Another codec FFmpeg has no decoder for is not
 * looked at. RP_OK, RP_ERR_INVALID (err says so) or RP_ERR_NOMEM. */
static int read_back(const uint8_t *hdr, size_t len, enum rp_format format,
                     const AVOutputFormat *ofmt, const char *encoder, rp_error *err)
{
    mem_read m = {hdr, len, 0};
    enum { CHUNK = 4096 };
    uint8_t *chunk = av_malloc(CHUNK);
    AVIOContext *pb =
        chunk ? avio_alloc_context(chunk, CHUNK, 0, &m, mem_read_packet, NULL, NULL) : NULL;
    AVFormatContext *ic = pb ? avformat_alloc_context() : NULL;
    AVCodecContext *dec = NULL;
    int ret = AVERROR(ENOMEM);
    if (!pb)
        av_free(chunk);
    if (ic) {
        ic->pb = pb;
        ic->flags |= AVFMT_FLAG_CUSTOM_IO;
        ret = avformat_open_input(&ic, NULL, av_find_input_format("matroska"), NULL);
    }
    /* a track FFmpeg reads back as no codec at all (a64multi's: "Decoder (codec none) not
     * found"), which nothing can play either */
    int unnamed =
        ret >= 0 && ic->nb_streams == 1 && ic->streams[0]->codecpar->codec_id == AV_CODEC_ID_NONE;
    const AVCodec *codec = ret >= 0 && ic->nb_streams == 1
                               ? avcodec_find_decoder(ic->streams[0]->codecpar->codec_id)
                               : NULL;
    int opened = 0;
    if (codec && (dec = avcodec_alloc_context3(codec)) &&
        avcodec_parameters_to_context(dec, ic->streams[0]->codecpar) >= 0) {
        dec->thread_count = 1;
        opened = avcodec_open2(dec, codec, NULL);
        ret = opened < 0 ? opened : 0;
    }
    avcodec_free_context(&dec);
    avformat_close_input(&ic);
    if (pb)
        av_freep(&pb->buffer);
    avio_context_free(&pb);
    if (ret == AVERROR(ENOMEM))
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory reading back a trial header");
    if (unnamed)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the %s container cannot hold video from encoder %s: FFmpeg's %s "
                            "muxer writes it as a track that FFmpeg reads back as no known "
                            "codec, so nothing could play the file",
                            rp_output_format_name(format), encoder, ofmt->long_name);
    if (opened < 0 && codec) {
        char msg[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(opened, msg, sizeof msg);
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the %s container cannot hold %s video (encoder %s): FFmpeg's %s "
                            "muxer writes it without what its %s decoder needs to read it back "
                            "(%s): try another container, such as .mov",
                            rp_output_format_name(format), codec->name, encoder, ofmt->long_name,
                            codec->name, msg);
    }
    return RP_OK; /* a header FFmpeg cannot read at all is its own business */
}

/* Some muxers refuse a stream only once the file exists: Matroska, which holds what has a
 * Video for Windows tag (pick_encoder) below normal compliance, refuses the header for
 * flashsv2, roqvideo, xface, qoi, libjxl, wrapped_avframe, ...; MOV refuses AV1 and VP9
 * (MP4 takes them) and VP8. So the header is written into memory first, from the stream the
 * trial encoder opened, with the muxer's options but the index's place (faststart, which
 * moves it when the file is done). A Matroska header is then read back (read_back). */
static int trial_header(const AVOutputFormat *ofmt, const AVCodecParameters *par,
                        const char *encoder, const rp_output_spec *opts, rp_error *err)
{
    AVFormatContext *oc = NULL;
    AVStream *st;
    AVDictionary *mux_opts = NULL;
    uint8_t *buf = NULL;
    int len = 0, ret = avformat_alloc_output_context2(&oc, ofmt, NULL, NULL);

    if (ret >= 0 && (!(st = avformat_new_stream(oc, NULL)) ||
                     (ret = avcodec_parameters_copy(st->codecpar, par)) < 0 ||
                     (ret = avio_open_dyn_buf(&oc->pb)) < 0))
        ret = ret < 0 ? ret : AVERROR(ENOMEM);
    if (ret >= 0) {
        st->time_base = (AVRational){opts->fps_den > 0 ? opts->fps_den : 1, opts->fps};
        oc->flags |= AVFMT_FLAG_BITEXACT;
        mux_options(opts, 0, &mux_opts);
        ret = avformat_write_header(oc, &mux_opts);
        av_dict_free(&mux_opts);
        /* the demuxer reads the header up to the first cluster: an empty one ends it */
        static const uint8_t cluster[] = {0x1f, 0x43, 0xb6, 0x75, 0x80};
        const int matroska = opts->format == RP_FORMAT_MKV || opts->format == RP_FORMAT_WEBM;
        if (ret >= 0 && matroska)
            avio_write(oc->pb, cluster, sizeof cluster);
        len = avio_close_dyn_buf(oc->pb, &buf);
        oc->pb = NULL;
        if (ret < 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];
            av_strerror(ret, msg, sizeof msg);
            ret = rp_error_set(err, RP_ERR_INVALID, 1,
                               "the %s container cannot hold %s video (encoder %s): FFmpeg's %s "
                               "muxer refuses it (%s)",
                               rp_output_format_name(opts->format), avcodec_get_name(par->codec_id),
                               encoder, ofmt->long_name, msg);
        } else if (matroska) {
            ret = read_back(buf, len > 0 ? (size_t)len : 0, opts->format, ofmt, encoder, err);
        } else
            ret = RP_OK; /* 0, or 1 had the output been initialised apart */
        av_free(buf);
    } else
        ret = rp_averr(err, RP_ERR_NOMEM, "cannot set up a trial header for",
                       rp_output_format_name(opts->format), ret);
    avformat_free_context(oc);
    return ret < 0 ? RP_ERR_INVALID : ret;
}

/* The web formats' fastest rate: their delays are whole units (GIF centiseconds, WebP
 * milliseconds), and browsers (Chromium, Firefox) play a delay of 10 ms or less as 100 ms.
 * A delay is a step of k * unit / fps rounded, at least the step's whole part, so above
 * these rates (50 fps: 2 cs; 1000/11: 11 ms) some frames would play up to ten times too
 * long. RP_OK or RP_ERR_INVALID. */
static int web_rate(const rp_output_spec *opts, rp_error *err)
{
    static const struct {
        enum rp_format format;
        int64_t num, den; /* at most num / den fps */
        const char *name, *why, *most, *use;
    } limits[] = {
        {RP_FORMAT_GIF, 50, 1, "GIF", "centiseconds, and browsers play a delay under 2 as 10", "50",
         "50"},
        {RP_FORMAT_WEBP, 1000, 11, "WebP",
         "milliseconds, and browsers play a delay of 10 or less as 100", "90.9", "90"},
    };
    int64_t den = opts->fps_den > 0 ? opts->fps_den : 1;
    char rate[64]; /* the rate exactly: -r 50.004 is over 50, not "50" */
    rp_rate_text(opts->fps, den, rate, sizeof rate);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        if (opts->format == limits[i].format && opts->fps * limits[i].den > limits[i].num * den)
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "%s plays at most %s fps (its delays are whole %s), got %s fps: "
                                "use -r %s or less, or a video format",
                                limits[i].name, limits[i].most, limits[i].why, rate, limits[i].use);
    return RP_OK;
}

/* The muxer, the encoder and pixel format, and the encoder's trial open: what open would
 * refuse, found before anything is created. */
static int video_validate(const rp_output_spec *opts, rp_error *err)
{
    const AVOutputFormat *ofmt = NULL;
    rp_encoder_choice choice;
    int ret;

    /* The web formats' own limits, which their libraries report only as "Invalid
     * argument" once the file exists, or not at all: WebP's sides are 14-bit (at most
     * 16383), and their rates (web_rate). */
    if (opts->format == RP_FORMAT_WEBP && (opts->width > 16383 || opts->height > 16383)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "WebP's sides are at most 16383 pixels (got %dx%d): use a smaller -s",
                            opts->width, opts->height);
    }
    if ((ret = web_rate(opts, err)))
        return ret;
    rp_output_quiet_ffmpeg();
    if ((ret = pick(opts, &ofmt, &choice, NULL, 0, err)))
        return ret;
    AVCodecParameters *par = avcodec_parameters_alloc();
    if (!par)
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory setting up %s",
                            choice.codec->name);
    ret = rp_encoder_trial(&choice, opts, global_header(ofmt), par, err);
    if (!ret)
        ret = trial_header(ofmt, par, choice.codec->name, opts, err);
    avcodec_parameters_free(&par);
    return ret;
}

int rp_video_even_sides(const rp_output_spec *opts, char *what, size_t len)
{
    const AVOutputFormat *ofmt = NULL;
    rp_encoder_choice choice;
    rp_output_spec even = *opts;
    rp_error err;

    even.width = even.height = 4; /* a size every pixel format and FFV1 (3 rows up) take */
    rp_output_quiet_ffmpeg();
    if (pick(&even, &ofmt, &choice, NULL, 0, &err))
        return 0; /* refused by validate anyway */
    return rp_encoder_even_sides(&choice, what, len);
}

int rp_video_settings(const rp_output_spec *opts, rp_output_settings *st, rp_error *err)
{
    const AVOutputFormat *ofmt = NULL;
    rp_encoder_choice choice;
    int ret;

    /* what the render refuses, refused here too: the encoder's trial open (and its trial
     * frame, the MKV header), not only the choice */
    if ((ret = video_validate(opts, err)) || (ret = pick(opts, &ofmt, &choice, NULL, 0, err)))
        return ret;
    rp_encoder_settings(&choice, opts, st);
    return RP_OK;
}

/* GIF: how many frames its palette is made from, a second of them, at most 64 MiB. */
static int gif_held(const rp_output_spec *opts)
{
    size_t bytes = (size_t)opts->width * opts->height * 3;
    int64_t second = (opts->fps + opts->fps_den - 1) / (opts->fps_den > 0 ? opts->fps_den : 1);

    return (int)rp_clamp64((int64_t)((64u << 20) / bytes), 1, second > 1 ? second : 1);
}

/* Bytes an output pixel costs the --max-memory estimate: the frame converted for the
 * encoder and the packed frame (12), what the encoder holds (rp_encoder_memory), and for
 * GIF the frames held for its palette (hold_frames). */
static double video_cell_bytes(const rp_output_spec *opts, int threads)
{
    const AVOutputFormat *ofmt = NULL;
    rp_encoder_choice choice;
    double px = (double)opts->width * opts->height, bytes;
    rp_error err;

    (void)threads;
    if (px <= 0 || pick(opts, &ofmt, &choice, NULL, 0, &err))
        return 45; /* refused by validate anyway */
    bytes = 12 * px + rp_encoder_memory(&choice, opts);
    if (opts->format == RP_FORMAT_GIF)
        bytes += 3 * px * gif_held(opts);
    return bytes / px;
}

static void release(video_out *vo)
{
    if (vo->oc) {
        if (vo->oc->pb)
            avio_closep(&vo->oc->pb);
        avformat_free_context(vo->oc);
        vo->oc = NULL;
    }
    if (vo->tmp_exists) {
        rp_output_unlink_tmp(vo->tmp);
        vo->tmp_exists = 0;
    }
    rp_encoder_free(&vo->enc);
    av_packet_free(&vo->pkt);
    free(vo->palette);
    vo->palette = NULL;
    for (int i = 0; i < vo->nheld; i++)
        free(vo->held[i]);
    free(vo->held);
    vo->held = NULL;
    vo->nheld = 0;
    rp_audio_out_free(&vo->audio);
}

/* GIF: the palette and room for the frames it is made from (gif_held). */
static int hold_frames(video_out *vo, rp_error *err)
{
    vo->maxheld = gif_held(vo->opts);
    if (!(vo->palette = calloc(1, sizeof *vo->palette)) ||
        !(vo->held = calloc((size_t)vo->maxheld, sizeof *vo->held))) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    return RP_OK;
}

/* Describe the video stream from its open encoder. */
static int describe_stream(video_out *vo, rp_error *err)
{
    const AVCodecContext *enc = vo->enc.ctx;
    int ret = avcodec_parameters_from_context(vo->st->codecpar, enc);

    if (ret < 0)
        return rp_averr(err, RP_ERR_ENCODER, "cannot configure stream for", enc->codec->name, ret);
    vo->st->time_base = enc->time_base;
    vo->st->avg_frame_rate = enc->framerate;
    vo->st->r_frame_rate = enc->framerate;
    return RP_OK;
}

/* Create the temporary file in the target's directory (close renames it into place) and
 * open it for the muxer; tmp_exists tells release to remove it. */
static int open_temp_file(video_out *vo, rp_error *err)
{
    const rp_output_spec *opts = vo->opts;
    char url[4200];
    int ret, fd;

    if (rp_output_is_stdout(opts->path)) { /* Matroska or WebM down a pipe: no file */
        av_freep(&vo->oc->url);
        vo->oc->url = av_strdup("pipe:1");
        ret = vo->oc->url ? avio_open(&vo->oc->pb, "pipe:1", AVIO_FLAG_WRITE) : AVERROR(ENOMEM);
        if (ret < 0)
            return rp_averr(err, RP_ERR_IO, "cannot write", "standard output", ret);
        vo->to_stdout = 1;
        return RP_OK;
    }
    if (rp_output_temp_name(opts->path, vo->tmp, sizeof(vo->tmp))) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the output path '%.64s...' is too long",
                            opts->path);
    }
    ret = rp_output_temp_create(vo->tmp, sizeof vo->tmp, opts->path, &fd, err);
    if (ret)
        return ret;
    close(fd);
    vo->tmp_exists = 1;
    /* "file:" so that a ':' in the path is never read as a protocol. */
    snprintf(url, sizeof(url), "file:%s", vo->tmp);
    /* faststart reads the file back by its url to move the index to the front */
    av_freep(&vo->oc->url);
    vo->oc->url = av_strdup(url);
    ret = vo->oc->url ? avio_open(&vo->oc->pb, url, AVIO_FLAG_WRITE) : AVERROR(ENOMEM);
    if (ret < 0)
        return rp_averr(err, RP_ERR_IO, "cannot write", opts->path, ret);
    return RP_OK;
}

/* The container header, once every stream (video, and audio if any) exists. MP4 and MOV
 * with the index at the front (playable while downloading); no muxer version or date in the
 * file, so the same frames give the same bytes. */
static int write_header(video_out *vo, rp_error *err)
{
    const rp_output_spec *opts = vo->opts;
    AVDictionary *mux_opts = NULL;
    int ret;

    mux_options(opts, 1, &mux_opts);
    for (size_t i = 0; opts->metadata && opts->metadata[i] && opts->metadata[i + 1]; i += 2)
        av_dict_set(&vo->oc->metadata, opts->metadata[i], opts->metadata[i + 1], 0);
    vo->oc->flags |= AVFMT_FLAG_BITEXACT;
    ret = avformat_write_header(vo->oc, &mux_opts);
    av_dict_free(&mux_opts);
    if (ret < 0)
        return rp_averr(err, RP_ERR_ENCODER, "cannot write the header of", opts->path, ret);
    return RP_OK;
}

/* Set up muxer, stream, encoder and (GIF) palette; create the temporary file and write the
 * container header. */
static int video_open(void *priv, const rp_output_spec *opts, rp_error *err)
{
    video_out *vo = priv;
    const AVOutputFormat *ofmt = NULL;
    rp_encoder_choice choice;
    char warning[256];
    int ret;

    vo->opts = opts;
    rp_output_quiet_ffmpeg();
    ret = pick(opts, &ofmt, &choice, warning, sizeof(warning), err);
    if (ret)
        return ret;
    if (warning[0] && opts->warn)
        opts->warn(opts->warn_ctx, warning);

    ret = avformat_alloc_output_context2(&vo->oc, ofmt, NULL, NULL);
    if (ret < 0 || !vo->oc) {
        ret = rp_averr(err, RP_ERR_ENCODER, "cannot set up muxer", muxer_name(opts->format), ret);
        goto fail;
    }
    vo->st = avformat_new_stream(vo->oc, NULL);
    vo->pkt = av_packet_alloc();
    if (!vo->st || !vo->pkt) {
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory setting up %s", choice.codec->name);
        goto fail;
    }
    ret = rp_encoder_open(&vo->enc, &choice, opts, global_header(ofmt), err);
    if (ret)
        goto fail;
    if (choice.pix_fmt == AV_PIX_FMT_PAL8 && (ret = hold_frames(vo, err)))
        goto fail;
    ret = describe_stream(vo, err);
    if (ret)
        goto fail;
    ret = open_temp_file(vo, err);
    if (ret)
        goto fail;
    if (!is_animation(opts->format) && (ret = rp_audio_out_open(&vo->audio, vo->oc, vo->opts, err)))
        goto fail;
    ret = write_header(vo, err);
    if (ret)
        goto fail;
    return RP_OK;

fail:
    release(vo);
    return ret;
}

/* Convert one frame into the encoder's (a GIF's mapped to its palette), encode it and mux
 * its packets, then the sound up to the frame's end. */
static int encode_frame(video_out *vo, const uint8_t *rgb, rp_error *err)
{
    int ret = rp_encoder_convert(&vo->enc, rgb, vo->palette, err);

    if (ret)
        return ret;
    ret = rp_send_and_mux(vo->oc, vo->opts->path, vo->enc.ctx, vo->st, vo->pkt, vo->enc.frame, 0,
                          err);
    if (ret)
        return ret;
    return rp_audio_out_pump(vo->audio,
                             vo->enc.next_pts * (vo->opts->fps_den > 0 ? vo->opts->fps_den : 1),
                             vo->opts->fps, err);
}

/* GIF: the palette from the frames held, then those frames encoded. */
static int make_palette(video_out *vo, rp_error *err)
{
    int ret = RP_OK;
    vo->palette_made = 1;
    if (rp_palette_build(vo->palette, (const uint8_t *const *)vo->held, vo->nheld, vo->opts->width,
                         vo->opts->height)) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    for (int i = 0; i < vo->nheld && !ret; i++)
        ret = encode_frame(vo, vo->held[i], err);
    return ret;
}

/* A GIF's frames are held until the palette is made; every other frame is encoded now. */
static int video_write(void *priv, int64_t frame_index, const uint8_t *rgb, rp_error *err)
{
    video_out *vo = priv;
    (void)frame_index; /* pts count from the first written frame */
    if (vo->palette && !vo->palette_made) {
        size_t bytes = (size_t)vo->opts->width * vo->opts->height * 3;
        if (!(vo->held[vo->nheld] = malloc(bytes))) {
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        memcpy(vo->held[vo->nheld++], rgb, bytes);
        return vo->nheld < vo->maxheld ? RP_OK : make_palette(vo, err);
    }
    return encode_frame(vo, rgb, err);
}

/* Flush the encoder, write the trailer, close the file and rename it into place. On any
 * failure the temporary file is removed. */
static int video_close(void *priv, rp_error *err)
{
    video_out *vo = priv;
    int ret = RP_OK;

    if (vo->palette && !vo->palette_made && (ret = make_palette(vo, err)))
        goto fail;
    ret = rp_send_and_mux(vo->oc, vo->opts->path, vo->enc.ctx, vo->st, vo->pkt, NULL, 0, err);
    if (ret)
        goto fail;
    ret = rp_audio_out_pump(vo->audio, 0, 0, err);
    if (ret)
        goto fail;
    ret = av_write_trailer(vo->oc);
    if (ret < 0) {
        ret = rp_averr(err, RP_ERR_ENCODER, "cannot finish", vo->opts->path, ret);
        goto fail;
    }
    ret = avio_closep(&vo->oc->pb);
    if (ret < 0) {
        ret = rp_averr(err, RP_ERR_IO, "cannot write", vo->opts->path, ret);
        goto fail;
    }
    vo->tmp_exists = 0;
    if (!vo->to_stdout)
        ret = rp_output_commit(vo->tmp, vo->opts->path, vo->opts->overwrite, err);

fail:
    release(vo);
    return ret;
}

static void video_abort(void *priv)
{
    release(priv);
}

#define VIDEO_BACKEND(sym, fmt_name, exts, fmt, has_alpha)                                         \
    const rp_output_backend sym = {                                                                \
        .name = fmt_name,                                                                          \
        .extensions = exts,                                                                        \
        .format = fmt,                                                                             \
        .priv_size = sizeof(video_out),                                                            \
        .alpha = has_alpha,                                                                        \
        .cell_bytes = 1, /* the rest is video_cell_bytes */                                        \
        .run_cell_bytes = video_cell_bytes,                                                        \
        .validate = video_validate,                                                                \
        .open = video_open,                                                                        \
        .write = video_write,                                                                      \
        .close = video_close,                                                                      \
        .abort = video_abort,                                                                      \
    }

VIDEO_BACKEND(rp_output_mp4, "mp4", "mp4,m4v", RP_FORMAT_MP4, 0);
VIDEO_BACKEND(rp_output_mkv, "mkv", "mkv", RP_FORMAT_MKV, 1);
VIDEO_BACKEND(rp_output_mov, "mov", "mov", RP_FORMAT_MOV, 1);
VIDEO_BACKEND(rp_output_webm, "webm", "webm", RP_FORMAT_WEBM, 1);
VIDEO_BACKEND(rp_output_gif, "gif", "gif", RP_FORMAT_GIF, 0);
VIDEO_BACKEND(rp_output_webp, "webp", "webp", RP_FORMAT_WEBP, 1);
