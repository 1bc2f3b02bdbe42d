/* output_video.c - video backends (mp4, mkv, mov, webm): a libavformat muxer chosen by
 * format, a libavcodec encoder (libx264 / libvpx-vp9 by default, or -c NAME), and RGB24
 * converted to the encoder's pixel format by rockpool's own BT.601 converter (yuv.h) for
 * yuv420p and yuv444p, ten times faster than libswscale, or by libswscale for any other.
 * The call sequence follows FFmpeg's doc/examples/muxing.c and encode_video.c (5.1):
 * frames get pts 0, 1, 2, ... in a 1/fps time base, the encoder is flushed with a NULL
 * frame and packets are moved to the stream's time base with av_packet_rescale_ts, so the
 * file holds exactly the frames written at exactly fps. The file is muxed under a
 * temporary name in the target's directory and renamed by close. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "base/common.h"
#include "input/demux.h"
#include "output/output_backend.h"
#include "output/yuv.h"

/* Default encoders per container, best first. Only software encoders: hardware ones are
 * often listed but fail to open without the device. */
static const char *const h264_encoders[] = {"libx264", "libopenh264", "mpeg4", NULL};
static const char *const webm_encoders[] = {"libvpx-vp9", "libvpx", NULL};
/* With alpha (RP_PIX_RGBA frames, --alpha): WebM keeps VP9 (its alpha plane as Matroska
 * BlockAdditional data, which FFmpeg's libvpx decoder reads back); MOV takes ProRes 4444,
 * the editors' layer format, or QuickTime Animation (lossless 8-bit ARGB) with -c qtrle.
 * MP4 is refused in output.c; Matroska needs -c with an encoder that has alpha. */
static const char *const mov_alpha_encoders[] = {"prores_ks", "qtrle", NULL};

/* The pixel format an encoder gets alpha frames in, unless --pix-fmt says otherwise. */
static enum AVPixelFormat alpha_pix_fmt(const AVCodec *codec)
{
    static const struct {
        const char *encoder;
        enum AVPixelFormat fmt;
    } preferred[] = {
        {"libvpx-vp9", AV_PIX_FMT_YUVA420P},
        {"libvpx", AV_PIX_FMT_YUVA420P},
        {"prores_ks", AV_PIX_FMT_YUVA444P10},
        {"qtrle", AV_PIX_FMT_ARGB},
    };
    for (size_t i = 0; i < sizeof preferred / sizeof preferred[0]; i++)
        if (!strcmp(codec->name, preferred[i].encoder))
            return preferred[i].fmt;
    for (const enum AVPixelFormat *p = codec->pix_fmts; p && *p != AV_PIX_FMT_NONE; p++)
        if (av_pix_fmt_desc_get(*p)->flags & AV_PIX_FMT_FLAG_ALPHA)
            return *p;
    return AV_PIX_FMT_NONE;
}

/* What carries alpha, for messages. */
#define ALPHA_WORKS                                                                                \
    "a PNG pattern like f_%%05d.png (RGBA), .webm (VP9 yuva420p), .mov (ProRes 4444, or -c "       \
    "qtrle), or .mkv with -c libvpx-vp9"

typedef struct video_out {
    const rp_output_spec *opts;
    AVFormatContext *oc;
    AVCodecContext *enc;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws; /* NULL when yuv.h converts */
    uint8_t *spare_row;     /* see rp_output_scale_px */
    int64_t next_pts;
    char tmp[4096];
    int tmp_exists;
    struct audio_in *audio; /* NULL: no audio */
} video_out;

/* ---- audio carried from another file (rp_output_spec.audio_path) ----
 * The first audio stream of the file, from audio_offset for audio_length seconds, placed
 * at the output's time 0: its packets copied (those that start inside the span, so the
 * length is right within one audio frame) when the container takes the codec, else decoded
 * and re-encoded sample-exactly (AAC for MP4/MOV, Opus, or Vorbis when Opus cannot take the
 * sample rate, for WebM/Matroska). Sample formats are converted here (no libswresample);
 * sample rates are never changed. Packets are written as the video advances, so nothing
 * accumulates in the interleaver. */
static int averr(char *err, size_t errlen, int code, const char *what, const char *name, int ret);

typedef struct audio_in {
    AVFormatContext *ic;
    AVStream *ist, *ost;
    int index, copy, done, flushed;
    int64_t start_ts, end_ts;   /* copy: the span in the input's time base */
    int64_t start_smp, end_smp; /* encode: the span in samples */
    int64_t taken, next;        /* samples into the FIFO, and out to the encoder */
    AVCodecContext *dec, *enc;
    AVPacket *pkt;
    AVFrame *frame, *eframe;
    AVAudioFifo *fifo;
    uint8_t **conv; /* converted samples of one decoded frame */
    int conv_cap;
} audio_in;

static void audio_free(audio_in **pa)
{
    audio_in *a = *pa;

    if (!a)
        return;
    avformat_close_input(&a->ic);
    avcodec_free_context(&a->dec);
    avcodec_free_context(&a->enc);
    av_packet_free(&a->pkt);
    av_frame_free(&a->frame);
    av_frame_free(&a->eframe);
    if (a->fifo)
        av_audio_fifo_free(a->fifo);
    if (a->conv)
        av_freep(&a->conv[0]);
    av_freep(&a->conv);
    free(a);
    *pa = NULL;
}

/* One sample of a decoded frame as a double in -1..1. */
static double sample_get(const AVFrame *f, int ch, int i)
{
    enum AVSampleFormat fmt = f->format;
    int planar = av_sample_fmt_is_planar(fmt), nch = f->ch_layout.nb_channels;
    const uint8_t *p = f->extended_data[planar ? ch : 0];
    int k = planar ? i : i * nch + ch;

    switch (av_get_packed_sample_fmt(fmt)) {
    case AV_SAMPLE_FMT_U8: return (p[k] - 128) / 128.0;
    case AV_SAMPLE_FMT_S16: return ((const int16_t *)p)[k] / 32768.0;
    case AV_SAMPLE_FMT_S32: return ((const int32_t *)p)[k] / 2147483648.0;
    case AV_SAMPLE_FMT_S64: return (double)((const int64_t *)p)[k] / 9223372036854775808.0;
    case AV_SAMPLE_FMT_FLT: return ((const float *)p)[k];
    case AV_SAMPLE_FMT_DBL: return ((const double *)p)[k];
    default: return 0;
    }
}

static void sample_put(uint8_t **data, enum AVSampleFormat fmt, int nch, int ch, int i, double v)
{
    int planar = av_sample_fmt_is_planar(fmt);
    uint8_t *p = data[planar ? ch : 0];
    int k = planar ? i : i * nch + ch;

    v = v > 1 ? 1 : v < -1 ? -1 : v;
    if (av_get_packed_sample_fmt(fmt) == AV_SAMPLE_FMT_S16)
        ((int16_t *)p)[k] = (int16_t)lrint(v * 32767);
    else
        ((float *)p)[k] = (float)v;
}

/* The first of the formats this file converts to that the encoder takes. */
static enum AVSampleFormat pick_sample_fmt(const AVCodec *c)
{
    static const enum AVSampleFormat ok[] = {AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT,
                                             AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P};

    if (!c->sample_fmts)
        return AV_SAMPLE_FMT_FLTP;
    for (const enum AVSampleFormat *f = c->sample_fmts; *f != AV_SAMPLE_FMT_NONE; f++)
        for (int i = 0; i < 4; i++)
            if (*f == ok[i])
                return *f;
    return AV_SAMPLE_FMT_NONE;
}

static int takes_rate(const AVCodec *c, int rate)
{
    if (!c->supported_samplerates)
        return 1;
    for (const int *r = c->supported_samplerates; *r; r++)
        if (*r == rate)
            return 1;
    return 0;
}

/* Seconds num/den (den 0: 0) in ticks of tb, rounded down. */
static int64_t to_ticks(int64_t num, int64_t den, AVRational tb)
{
    if (den <= 0 || num <= 0)
        return 0;
    return av_rescale_rnd(num, tb.den, den * tb.num, AV_ROUND_DOWN);
}

/* The span of audio carried, audio_offset for audio_length seconds (no length: to the
 * file's end, INT64_MAX), in ticks of tb: the copy path picks packets in the input's time
 * base, the re-encode path samples in the encoder's. */
static void audio_span(const rp_output_spec *opts, AVRational tb, int64_t *start, int64_t *end)
{
    *start = to_ticks(opts->audio_offset_num, opts->audio_offset_den, tb);
    *end = opts->audio_length_den > 0
               ? *start + to_ticks(opts->audio_length_num, opts->audio_length_den, tb)
               : INT64_MAX;
}

/* Send one frame to an encoder (NULL flushes it) and mux every packet it returns into its
 * stream: the video's frames and the re-encoded audio's both go through here. audio only
 * changes the messages: "audio encoder" names the encoder, and every failed write is
 * RP_ERR_IO, where for the video only ENOSPC and EIO are (other write failures are
 * RP_ERR_ENCODER). */
static int send_and_mux(video_out *vo, AVCodecContext *enc, AVStream *st, AVPacket *pkt,
                        AVFrame *frame, int audio, char *err, size_t errlen)
{
    const char *what = audio ? "audio encoder" : "encoder";
    int ret = avcodec_send_frame(enc, frame);

    if (ret < 0)
        return averr(err, errlen, RP_ERR_ENCODER, what, enc->codec->name, ret);
    for (;;) {
        ret = avcodec_receive_packet(enc, pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return RP_OK;
        if (ret < 0)
            return averr(err, errlen, RP_ERR_ENCODER, what, enc->codec->name, ret);
        av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
        pkt->stream_index = st->index;
        /* Takes the packet's reference, leaving pkt blank. */
        ret = av_interleaved_write_frame(vo->oc, pkt);
        if (ret < 0)
            return averr(err, errlen,
                         audio || ret == AVERROR(ENOSPC) || ret == AVERROR(EIO) ? RP_ERR_IO
                                                                                : RP_ERR_ENCODER,
                         "cannot write", vo->opts->path, ret);
    }
}

/* Open the audio file and find its first audio stream and that stream's decoder; the other
 * streams are discarded so that reading skips them. a->index < 0 when the file has no audio
 * stream. */
static int audio_input_open(audio_in *a, const char *path, const AVCodec **dcodec, char *err,
                            size_t errlen)
{
    int ret = rp_demux_open(&a->ic, path, rp_demux_media_formats, NULL);
    if (ret < 0 || avformat_find_stream_info(a->ic, NULL) < 0)
        return averr(err, errlen, RP_ERR_FORMAT, "cannot read the audio of", path,
                     ret < 0 ? ret : AVERROR_INVALIDDATA);
    a->index = av_find_best_stream(a->ic, AVMEDIA_TYPE_AUDIO, -1, -1, dcodec, 0);
    if (a->index < 0)
        return RP_OK;
    a->ist = a->ic->streams[a->index];
    for (unsigned i = 0; i < a->ic->nb_streams; i++)
        if ((int)i != a->index)
            a->ic->streams[i]->discard = AVDISCARD_ALL;
    return RP_OK;
}

/* The copy path's output stream: the input's parameters and time base as they are, and the
 * span in that time base (packets are picked by their timestamps). */
static int audio_setup_copy(audio_in *a, const rp_output_spec *opts, char *err, size_t errlen)
{
    int ret = avcodec_parameters_copy(a->ost->codecpar, a->ist->codecpar);

    if (ret < 0)
        return averr(err, errlen, RP_ERR_NOMEM, "cannot copy the audio of", opts->audio_path, ret);
    a->ost->codecpar->codec_tag = 0;
    a->ost->time_base = a->ist->time_base;
    audio_span(opts, a->ist->time_base, &a->start_ts, &a->end_ts);
    return RP_OK;
}

/* The re-encode path's encoder and sample format: AAC for MP4/MOV; Opus, or Vorbis when Opus
 * cannot take the sample rate, for WebM/Matroska. Kept apart from the set-up so that every
 * reason to refuse (no decoder, no encoder for the rate, no sample format this file converts
 * to) is found before anything is allocated: RP_ERR_UNSUPPORTED saying which. */
static int audio_pick_encoder(const audio_in *a, const rp_output_spec *opts, const AVCodec *dcodec,
                              const AVCodec **pcodec, enum AVSampleFormat *psfmt, char *err,
                              size_t errlen)
{
    const char *names[3] = {"aac", NULL, NULL};
    const AVCodec *ecodec = NULL;
    int rate = a->ist->codecpar->sample_rate;
    enum AVSampleFormat sfmt;

    if (opts->format == RP_FORMAT_WEBM || opts->format == RP_FORMAT_MKV) {
        names[0] = "libopus";
        names[1] = "libvorbis";
    }
    for (int i = 0; i < 3 && names[i] && !ecodec; i++) {
        ecodec = avcodec_find_encoder_by_name(names[i]);
        if (ecodec && !takes_rate(ecodec, rate))
            ecodec = NULL;
    }
    if (!dcodec) {
        rp_errf(err, errlen, "no decoder for the %s audio of '%s'",
                avcodec_get_name(a->ist->codecpar->codec_id), opts->audio_path);
        return RP_ERR_UNSUPPORTED;
    }
    if (!ecodec || (sfmt = pick_sample_fmt(ecodec)) == AV_SAMPLE_FMT_NONE) {
        rp_errf(err, errlen,
                "the %s container cannot hold the %s audio of '%s', and no %s encoder "
                "takes its %d Hz (use --no-audio)",
                rp_output_format_name(opts->format), avcodec_get_name(a->ist->codecpar->codec_id),
                opts->audio_path, names[1] ? "Opus/Vorbis" : "AAC", rate);
        return RP_ERR_UNSUPPORTED;
    }
    *pcodec = ecodec;
    *psfmt = sfmt;
    return RP_OK;
}

/* The re-encode path: the decoder, the encoder at the input's sample rate and channels (the
 * rate is never converted), the FIFO that cuts decoded samples into encoder frames, and the
 * span in samples. */
static int audio_setup_encode(video_out *vo, const AVCodec *dcodec, char *err, size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    audio_in *a = vo->audio;
    int rate = a->ist->codecpar->sample_rate;
    const AVCodec *ecodec;
    enum AVSampleFormat sfmt;
    int ret = audio_pick_encoder(a, opts, dcodec, &ecodec, &sfmt, err, errlen);

    if (ret)
        return ret;
    a->enc = avcodec_alloc_context3(ecodec);
    a->frame = av_frame_alloc();
    a->eframe = av_frame_alloc();
    if (!a->enc || !a->frame || !a->eframe) {
        rp_errf(err, errlen, "out of memory");
        return RP_ERR_NOMEM;
    }
    ret = rp_demux_open_decoder(&a->dec, a->ic, a->index, dcodec, &(rp_decoder_opts){0});
    if (ret < 0)
        return averr(err, errlen, RP_ERR_FORMAT, "cannot decode the audio of", opts->audio_path,
                     ret);
    a->enc->sample_rate = rate;
    a->enc->sample_fmt = sfmt;
    if (a->dec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&a->enc->ch_layout, a->dec->ch_layout.nb_channels);
    else
        av_channel_layout_copy(&a->enc->ch_layout, &a->dec->ch_layout);
    a->enc->time_base = (AVRational){1, rate};
    a->enc->bit_rate = ecodec->id == AV_CODEC_ID_OPUS ? 128000 : 160000;
    if (vo->oc->oformat->flags & AVFMT_GLOBALHEADER)
        a->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = avcodec_open2(a->enc, ecodec, NULL);
    if (ret >= 0)
        ret = avcodec_parameters_from_context(a->ost->codecpar, a->enc);
    if (ret < 0)
        return averr(err, errlen, RP_ERR_ENCODER, "cannot open audio encoder", ecodec->name, ret);
    a->ost->time_base = a->enc->time_base;
    a->fifo = av_audio_fifo_alloc(sfmt, a->enc->ch_layout.nb_channels, 4096);
    if (!a->fifo) {
        rp_errf(err, errlen, "out of memory");
        return RP_ERR_NOMEM;
    }
    audio_span(opts, a->enc->time_base, &a->start_smp, &a->end_smp);
    a->start_ts = av_rescale_q(a->start_smp, a->enc->time_base, a->ist->time_base);
    return RP_OK;
}

/* Open the audio input and add its output stream (before the header is written). No
 * audio stream in the file: RP_OK and no audio. */
static int audio_open(video_out *vo, char *err, size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    const AVCodec *dcodec = NULL;
    audio_in *a;
    int ret;

    if (!opts->audio_path)
        return RP_OK;
    a = calloc(1, sizeof(*a));
    if (!a) {
        rp_errf(err, errlen, "out of memory");
        return RP_ERR_NOMEM;
    }
    vo->audio = a;
    ret = audio_input_open(a, opts->audio_path, &dcodec, err, errlen);
    if (ret)
        return ret;
    if (a->index < 0) { /* nothing to carry */
        audio_free(&vo->audio);
        return RP_OK;
    }
    a->pkt = av_packet_alloc();
    a->ost = avformat_new_stream(vo->oc, NULL);
    if (!a->pkt || !a->ost) {
        rp_errf(err, errlen, "out of memory");
        return RP_ERR_NOMEM;
    }
    a->copy = avformat_query_codec(vo->oc->oformat, a->ist->codecpar->codec_id,
                                   FF_COMPLIANCE_NORMAL) == 1;
    ret = a->copy ? audio_setup_copy(a, opts, err, errlen)
                  : audio_setup_encode(vo, dcodec, err, errlen);
    if (ret)
        return ret;
    /* Start near the span: the packet before it (seeking is to a packet boundary). */
    if (a->start_ts > 0)
        avformat_seek_file(a->ic, a->index, INT64_MIN, a->start_ts, a->start_ts, 0);
    return RP_OK;
}

/* Encode whole frames from the FIFO (all of it when flushing, then the encoder). */
static int audio_encode(video_out *vo, int flush, char *err, size_t errlen)
{
    audio_in *a = vo->audio;
    int fs = a->enc->frame_size > 0 ? a->enc->frame_size : 1024, ret;

    while (av_audio_fifo_size(a->fifo) >= fs || (flush && av_audio_fifo_size(a->fifo) > 0)) {
        int n = av_audio_fifo_size(a->fifo) < fs ? av_audio_fifo_size(a->fifo) : fs;

        av_frame_unref(a->eframe);
        a->eframe->nb_samples = n;
        a->eframe->format = a->enc->sample_fmt;
        a->eframe->sample_rate = a->enc->sample_rate;
        ret = av_channel_layout_copy(&a->eframe->ch_layout, &a->enc->ch_layout);
        if (ret >= 0)
            ret = av_frame_get_buffer(a->eframe, 0);
        if (ret < 0)
            return averr(err, errlen, RP_ERR_NOMEM, "audio for", vo->opts->path, ret);
        av_audio_fifo_read(a->fifo, (void **)a->eframe->extended_data, n);
        a->eframe->pts = a->next;
        a->next += n;
        ret = send_and_mux(vo, a->enc, a->ost, a->pkt, a->eframe, 1, err, errlen);
        if (ret)
            return ret;
    }
    if (flush && !a->flushed) {
        a->flushed = 1;
        return send_and_mux(vo, a->enc, a->ost, a->pkt, NULL, 1, err, errlen);
    }
    return RP_OK;
}

/* The samples of a decoded frame inside the span, converted, into the FIFO. */
static int audio_take_frame(video_out *vo, char *err, size_t errlen)
{
    audio_in *a = vo->audio;
    AVFrame *f = a->frame;
    int nch = a->enc->ch_layout.nb_channels, n = f->nb_samples, from = 0, to = n;
    int64_t pts = f->best_effort_timestamp;
    int64_t s0;

    if (pts == AV_NOPTS_VALUE)
        pts = av_rescale_q(a->start_smp + a->taken, a->enc->time_base, a->ist->time_base);
    s0 = av_rescale_q(pts, a->ist->time_base, a->enc->time_base);
    if (s0 + n <= a->start_smp + a->taken) /* before the span, or already taken */
        return RP_OK;
    if (s0 < a->start_smp + a->taken)
        from = (int)(a->start_smp + a->taken - s0);
    if (s0 + to > a->end_smp) {
        to = s0 >= a->end_smp ? from : (int)(a->end_smp - s0);
        a->done = 1;
    }
    if (to <= from || f->ch_layout.nb_channels != nch)
        return RP_OK;
    if (to - from > a->conv_cap) {
        if (a->conv)
            av_freep(&a->conv[0]);
        av_freep(&a->conv);
        if (av_samples_alloc_array_and_samples(&a->conv, NULL, nch, to - from, a->enc->sample_fmt,
                                               0) < 0) {
            rp_errf(err, errlen, "out of memory");
            return RP_ERR_NOMEM;
        }
        a->conv_cap = to - from;
    }
    for (int ch = 0; ch < nch; ch++)
        for (int i = from; i < to; i++)
            sample_put(a->conv, a->enc->sample_fmt, nch, ch, i - from, sample_get(f, ch, i));
    if (av_audio_fifo_write(a->fifo, (void **)a->conv, to - from) < to - from) {
        rp_errf(err, errlen, "out of memory");
        return RP_ERR_NOMEM;
    }
    a->taken += to - from;
    return audio_encode(vo, 0, err, errlen);
}

/* Carry the audio up to output time until_num/until_den seconds (den 0: to the span's end,
 * flushing). */
static int audio_pump(video_out *vo, int64_t until_num, int64_t until_den, char *err, size_t errlen)
{
    audio_in *a = vo->audio;
    int ret;

    if (!a)
        return RP_OK;
    while (!a->done) {
        int64_t until_ts = until_den > 0
                               ? a->start_ts + to_ticks(until_num, until_den, a->ist->time_base)
                               : INT64_MAX;
        int64_t ts;

        ret = av_read_frame(a->ic, a->pkt);
        if (ret < 0) { /* the file's end (or damage: the audio stops there) */
            a->done = 1;
            if (!a->copy) {
                avcodec_send_packet(a->dec, NULL);
                while (avcodec_receive_frame(a->dec, a->frame) >= 0 && !ret)
                    ret = audio_take_frame(vo, err, errlen) ? -1 : 0;
                a->done = 1;
            }
            break;
        }
        ts = a->pkt->pts != AV_NOPTS_VALUE ? a->pkt->pts : a->pkt->dts;
        if (a->pkt->stream_index != a->index || ts == AV_NOPTS_VALUE) {
            av_packet_unref(a->pkt);
            continue;
        }
        if (a->copy) {
            if (ts >= a->end_ts) {
                a->done = 1;
                av_packet_unref(a->pkt);
                break;
            }
            if (ts < a->start_ts) {
                av_packet_unref(a->pkt);
                continue;
            }
            a->pkt->pts = ts - a->start_ts;
            a->pkt->dts = a->pkt->dts != AV_NOPTS_VALUE ? a->pkt->dts - a->start_ts : a->pkt->pts;
            av_packet_rescale_ts(a->pkt, a->ist->time_base, a->ost->time_base);
            a->pkt->stream_index = a->ost->index;
            a->pkt->pos = -1;
            ret = av_interleaved_write_frame(vo->oc, a->pkt);
            if (ret < 0)
                return averr(err, errlen, RP_ERR_IO, "cannot write", vo->opts->path, ret);
        } else {
            ret = avcodec_send_packet(a->dec, a->pkt);
            av_packet_unref(a->pkt);
            if (ret < 0 && ret != AVERROR(EAGAIN))
                return averr(err, errlen, RP_ERR_FORMAT, "cannot decode the audio of",
                             vo->opts->audio_path, ret);
            while (!a->done && avcodec_receive_frame(a->dec, a->frame) >= 0) {
                ret = audio_take_frame(vo, err, errlen);
                av_frame_unref(a->frame);
                if (ret)
                    return ret;
            }
        }
        if (ts >= until_ts)
            break;
    }
    if (a->done && !a->copy && until_den <= 0)
        return audio_encode(vo, 1, err, errlen);
    return RP_OK;
}

/* The libavformat muxer for a format. */
static const char *muxer_name(enum rp_format f)
{
    switch (f) {
    case RP_FORMAT_MP4: return "mp4";
    case RP_FORMAT_MKV: return "matroska";
    case RP_FORMAT_MOV: return "mov";
    case RP_FORMAT_WEBM: return "webm";
    default: return NULL;
    }
}

static const char *codec_label(const AVCodec *codec)
{
    switch (codec->id) {
    case AV_CODEC_ID_H264: return "H.264";
    case AV_CODEC_ID_HEVC: return "H.265";
    case AV_CODEC_ID_MPEG4: return "MPEG-4";
    case AV_CODEC_ID_VP8: return "VP8";
    case AV_CODEC_ID_VP9: return "VP9";
    case AV_CODEC_ID_AV1: return "AV1";
    default: return codec->name;
    }
}

static int supports_pix_fmt(const AVCodec *codec, enum AVPixelFormat fmt)
{
    if (!codec->pix_fmts)
        return 1;
    for (const enum AVPixelFormat *p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == fmt)
            return 1;
    return 0;
}

/* x264 prints its own message to stderr on an unknown preset, so rockpool checks the name
 * first (x264's x264_preset_names, unchanged since 2010). Encoders without a "preset"
 * option refuse one. */
static int check_preset(const AVCodec *codec, const char *preset, char *err, size_t errlen)
{
    static const char x264_presets[] =
        ",ultrafast,superfast,veryfast,faster,fast,medium,slow,slower,veryslow,placebo,";
    char key[64];

    if (!codec->priv_class ||
        !av_opt_find((void *)&codec->priv_class, "preset", NULL, 0, AV_OPT_SEARCH_FAKE_OBJ)) {
        rp_errf(err, errlen, "encoder %s has no presets (got --encoder-preset %s)", codec->name,
                preset);
        return RP_ERR_INVALID;
    }
    snprintf(key, sizeof(key), ",%s,", preset);
    if (!strncmp(codec->name, "libx264", 7) &&
        (strlen(preset) > 20 || strchr(preset, ',') || !strstr(x264_presets, key))) {
        rp_errf(err, errlen, "unknown %s preset '%s' (one of %s)", codec->name, preset,
                "ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, "
                "veryslow, placebo");
        return RP_ERR_INVALID;
    }
    return RP_OK;
}

/* The video encoder: -c NAME, which the container must be able to hold, else the first
 * installed of the container's defaults; a fallback from the preferred one is described in
 * warning (when given). RP_ERR_INVALID for a bad -c, RP_ERR_UNSUPPORTED when no default
 * encoder is installed. */
static int pick_encoder(const rp_output_spec *opts, const AVOutputFormat *ofmt,
                        const AVCodec **pcodec, char *warning, size_t wlen, char *err,
                        size_t errlen)
{
    const int alpha = opts->pixfmt == RP_PIX_RGBA;
    const char *const *defaults = opts->format == RP_FORMAT_WEBM           ? webm_encoders
                                  : alpha && opts->format == RP_FORMAT_MOV ? mov_alpha_encoders
                                                                           : h264_encoders;
    const AVCodec *codec = NULL;

    if (opts->codec) {
        codec = avcodec_find_encoder_by_name(opts->codec);
        if (!codec || codec->type != AVMEDIA_TYPE_VIDEO) {
            rp_errf(err, errlen, "unknown video encoder '%s' (see ffmpeg -encoders)", opts->codec);
            return RP_ERR_INVALID;
        }
        if (avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_NORMAL) == 0) {
            rp_errf(err, errlen, "the %s container cannot hold %s video (encoder %s)",
                    rp_output_format_name(opts->format), codec_label(codec), codec->name);
            return RP_ERR_INVALID;
        }
    } else {
        for (int i = 0; defaults[i] && !codec; i++)
            codec = avcodec_find_encoder_by_name(defaults[i]);
        if (!codec) {
            rp_errf(err, errlen, "no %s encoder is installed (tried %s%s%s); install one or use -c",
                    opts->format == RP_FORMAT_WEBM   ? "VP9/VP8"
                    : defaults == mov_alpha_encoders ? "ProRes/QuickTime Animation"
                                                     : "H.264/MPEG-4",
                    defaults[0], defaults[1] ? ", " : "", defaults[1] ? defaults[1] : "");
            return RP_ERR_UNSUPPORTED;
        }
        if (strcmp(codec->name, defaults[0]) != 0 && warning)
            snprintf(warning, wlen, "encoder %s is not available; using %s (%s) instead",
                     defaults[0], codec->name, codec_label(codec));
    }
    *pcodec = codec;
    return RP_OK;
}

/* Chroma subsampling halves the chroma planes, so a subsampled pixel format needs even
 * sides: RP_ERR_INVALID naming the nearest even size (and yuv444p when the encoder has it).
 * pix_name is the format as the user spelled it, for the message. */
static int check_chroma_size(const AVCodec *codec, enum AVPixelFormat fmt, const char *pix_name,
                             int w, int h, char *err, size_t errlen)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(fmt);

    if (((w & 1) && desc->log2_chroma_w) || ((h & 1) && desc->log2_chroma_h)) {
        int ew = w & 1 ? (w > 1 ? w - 1 : 2) : w, eh = h & 1 ? (h > 1 ? h - 1 : 2) : h;
        int has444 = supports_pix_fmt(codec, AV_PIX_FMT_YUV444P);

        rp_errf(err, errlen,
                "%s with %s needs an even width and height (got %dx%d): use -s %dx%d%s",
                codec_label(codec), pix_name, w, h, ew, eh, has444 ? " or --pix-fmt yuv444p" : "");
        return RP_ERR_INVALID;
    }
    return RP_OK;
}

/* The pixel format for codec: --pix-fmt, else the encoder's alpha format with --alpha, else
 * yuv420p. It must have an alpha plane exactly when the frames do, the encoder must take it
 * and the frame size must suit its subsampling: RP_ERR_INVALID saying what would work. */
static int pick_pix_fmt(const rp_output_spec *opts, const AVCodec *codec, enum AVPixelFormat *pfmt,
                        char *err, size_t errlen)
{
    const int alpha = opts->pixfmt == RP_PIX_RGBA;
    const char *pix_name = opts->pix_fmt ? opts->pix_fmt : "yuv420p";
    enum AVPixelFormat fmt;
    int fmt_alpha, ret;

    if (alpha && !opts->pix_fmt) {
        fmt = alpha_pix_fmt(codec);
        if (fmt == AV_PIX_FMT_NONE) {
            rp_errf(err, errlen, "%s (encoder %s) cannot carry alpha (--alpha): use " ALPHA_WORKS,
                    codec_label(codec), codec->name);
            return RP_ERR_INVALID;
        }
        pix_name = av_get_pix_fmt_name(fmt);
    }
    fmt = av_get_pix_fmt(pix_name);
    fmt_alpha =
        fmt != AV_PIX_FMT_NONE && (av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
    if (fmt != AV_PIX_FMT_NONE && fmt_alpha && !alpha) {
        rp_errf(err, errlen,
                "--pix-fmt %s has an alpha plane, but the frames are opaque: add --alpha for "
                "the water's light as a layer with real alpha",
                pix_name);
        return RP_ERR_INVALID;
    }
    if (fmt != AV_PIX_FMT_NONE && !fmt_alpha && alpha) {
        enum AVPixelFormat a = alpha_pix_fmt(codec);
        rp_errf(err, errlen, "--pix-fmt %s has no alpha plane for --alpha%s%s%s", pix_name,
                a != AV_PIX_FMT_NONE ? " (try " : "",
                a != AV_PIX_FMT_NONE ? av_get_pix_fmt_name(a) : "",
                a != AV_PIX_FMT_NONE ? ")" : "");
        return RP_ERR_INVALID;
    }
    if (fmt == AV_PIX_FMT_NONE) {
        rp_errf(err, errlen, "unknown pixel format '%s' (see ffmpeg -pix_fmts)", pix_name);
        return RP_ERR_INVALID;
    }
    if (!supports_pix_fmt(codec, fmt)) {
        rp_errf(err, errlen, "encoder %s cannot encode pixel format %s%s", codec->name, pix_name,
                supports_pix_fmt(codec, AV_PIX_FMT_YUV420P) ? " (try yuv420p)" : "");
        return RP_ERR_INVALID;
    }
    ret = check_chroma_size(codec, fmt, pix_name, opts->width, opts->height, err, errlen);
    if (ret)
        return ret;
    *pfmt = fmt;
    return RP_OK;
}

/* Choose the encoder and pixel format for opts and check the frame size against the
 * pixel format's chroma subsampling. A fallback from the container's preferred encoder
 * is described in warning (empty otherwise). RP_ERR_INVALID for a bad -c, --pix-fmt or
 * size, RP_ERR_UNSUPPORTED when no default encoder is installed. */
static int pick(const rp_output_spec *opts, const AVCodec **pcodec, enum AVPixelFormat *pfmt,
                char *warning, size_t wlen, char *err, size_t errlen)
{
    const char *muxer = muxer_name(opts->format);
    const AVOutputFormat *ofmt = av_guess_format(muxer, NULL, NULL);
    const AVCodec *codec;
    enum AVPixelFormat fmt;
    int ret;

    if (warning && wlen)
        warning[0] = '\0';
    if (!ofmt) {
        rp_errf(err, errlen, "this FFmpeg has no %s muxer", muxer);
        return RP_ERR_UNSUPPORTED;
    }
    ret = pick_encoder(opts, ofmt, &codec, warning, wlen, err, errlen);
    if (ret)
        return ret;
    if (opts->encoder_preset) {
        ret = check_preset(codec, opts->encoder_preset, err, errlen);
        if (ret)
            return ret;
    }
    ret = pick_pix_fmt(opts, codec, &fmt, err, errlen);
    if (ret)
        return ret;
    *pcodec = codec;
    *pfmt = fmt;
    return RP_OK;
}

/* HD and larger (1280 wide or 720 high and up) is converted and tagged BT.709, as
 * players and editors assume for HD; smaller frames BT.601 (SMPTE 170M). */
static int is_hd(const rp_output_spec *opts)
{
    return opts->width >= 1280 || opts->height >= 720;
}

static int configure(AVCodecContext *enc, const AVCodec *codec, enum AVPixelFormat fmt,
                     const rp_output_spec *opts, int global_header, int trial, char *err,
                     size_t errlen);

/* The first error line FFmpeg logs on this thread while a trial open runs (the encoder's
 * own reason, such as "[libx264] ... width not divisible by 2"), else NULL. FFmpeg has no
 * getter for the log callback, so the default one is put back afterwards. */
static _Thread_local char *trial_log;
static _Thread_local size_t trial_log_len;

static void trial_log_cb(void *avcl, int level, const char *fmt, va_list vl)
{
    if (trial_log && level <= AV_LOG_ERROR && !trial_log[0]) {
        char line[512];
        size_t n;

        vsnprintf(line, sizeof line, fmt, vl);
        n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == '.'))
            line[--n] = '\0';
        if (n)
            snprintf(trial_log, trial_log_len, "%s", line);
        return;
    }
    av_log_default_callback(avcl, level, fmt, vl);
}

/* End the stream before closing libsvtav1: SVT-AV1 1.4's svt_av1_enc_deinit waits for the
 * end-of-stream packet, forever if none was asked for, and a stream of no frames never
 * gives one, so a blank frame goes first when none was sent. Other encoders close as
 * they are. */
static void svt_drain(AVCodecContext *enc, int64_t frames_sent)
{
    AVPacket *pkt;

    if (!enc || !avcodec_is_open(enc) || strcmp(enc->codec->name, "libsvtav1") != 0)
        return;
    pkt = av_packet_alloc();
    if (!frames_sent) {
        AVFrame *f = av_frame_alloc();

        if (f) {
            f->format = enc->pix_fmt;
            f->width = enc->width;
            f->height = enc->height;
            if (av_frame_get_buffer(f, 0) >= 0) {
                for (int i = 0; i < 4 && f->buf[i]; i++)
                    memset(f->buf[i]->data, 0, f->buf[i]->size);
                f->pts = 0;
                avcodec_send_frame(enc, f);
            }
        }
        av_frame_free(&f);
    }
    if (pkt && avcodec_send_frame(enc, NULL) >= 0)
        while (avcodec_receive_packet(enc, pkt) >= 0)
            av_packet_unref(pkt);
    av_packet_free(&pkt);
}

/* Everything the encoder would be told, tried on a throwaway context before anything is
 * created: an option it lacks (--crf for mpeg4, --encoder-preset for ffv1), a value it
 * refuses, or settings it cannot open with (size, pixel format, rate) are RP_ERR_INVALID
 * with the encoder's reason. One thread, so the trial costs little memory. */
static int trial_open(const AVCodec *codec, enum AVPixelFormat fmt, const rp_output_spec *opts,
                      char *err, size_t errlen)
{
    const AVOutputFormat *ofmt = av_guess_format(muxer_name(opts->format), NULL, NULL);
    AVCodecContext *enc = avcodec_alloc_context3(codec);
    char reason[256] = "";
    int ret;

    if (!enc) {
        rp_errf(err, errlen, "out of memory setting up %s", codec->name);
        return RP_ERR_NOMEM;
    }
    ret = configure(enc, codec, fmt, opts, ofmt && (ofmt->flags & AVFMT_GLOBALHEADER), 1, err,
                    errlen);
    if (ret == RP_OK) {
        enc->thread_count = 1;
        trial_log = reason;
        trial_log_len = sizeof reason;
        av_log_set_callback(trial_log_cb);
        ret = avcodec_open2(enc, codec, NULL);
        av_log_set_callback(av_log_default_callback);
        trial_log = NULL;
        if (ret < 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];

            av_strerror(ret, msg, sizeof msg);
            rp_errf(
                err, errlen, "encoder %s refuses %dx%d %s at %d/%d fps%s%s%s: %s%s%s", codec->name,
                opts->width, opts->height, av_get_pix_fmt_name(fmt), opts->fps,
                opts->fps_den > 0 ? opts->fps_den : 1, opts->encoder_preset ? " with preset '" : "",
                opts->encoder_preset ? opts->encoder_preset : "", opts->encoder_preset ? "'" : "",
                reason[0] ? reason : msg, reason[0] ? " - " : "", reason[0] ? msg : "");
            ret = RP_ERR_INVALID;
        } else {
            ret = RP_OK;
            svt_drain(enc, 0);
        }
    }
    avcodec_free_context(&enc);
    return ret;
}

static int video_validate(const rp_output_spec *opts, char *err, size_t errlen)
{
    const AVCodec *codec;
    enum AVPixelFormat fmt;
    int ret;

    rp_output_quiet_ffmpeg();
    ret = pick(opts, &codec, &fmt, NULL, 0, err, errlen);
    return ret ? ret : trial_open(codec, fmt, opts, err, errlen);
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
    svt_drain(vo->enc, vo->next_pts);
    avcodec_free_context(&vo->enc);
    av_frame_free(&vo->frame);
    av_packet_free(&vo->pkt);
    sws_freeContext(vo->sws);
    vo->sws = NULL;
    av_freep(&vo->spare_row);
    audio_free(&vo->audio);
}

static int averr(char *err, size_t errlen, int code, const char *what, const char *name, int ret)
{
    char msg[AV_ERROR_MAX_STRING_SIZE];

    av_strerror(ret, msg, sizeof(msg));
    rp_errf(err, errlen, "%s %s: %s", what, name, msg);
    return code;
}

/* The highest --crf an encoder takes where FFmpeg's option range does not say (x264 and
 * x265 clamp larger values silently: their documented range is 0..51). */
static int crf_max(const AVCodec *codec)
{
    if (!strcmp(codec->name, "libx264") || !strcmp(codec->name, "libx264rgb") ||
        !strcmp(codec->name, "libx265"))
        return 51;
    return 63;
}

/* The CRF used when none is asked for: FFmpeg's own defaults, x264's 23 and x265's 28,
 * and for VP9, which has none of its own in FFmpeg (a 256 kbit/s target instead), the 31
 * FFmpeg's VP9 guide gives for HD. Others take opts->crf (23). */
static int default_crf(const AVCodec *codec, int crf)
{
    if (!strcmp(codec->name, "libx265"))
        return 28;
    if (!strcmp(codec->name, "libvpx-vp9"))
        return 31;
    return crf;
}

/* Rate control: CRF when the encoder has it, unless a bitrate is given. Without a crf
 * option, --crf is refused; the default (crf 23, not asked for) becomes a fixed quantiser
 * of about the same quality (MPEG-4 part 2: qscale ~ crf/6, 23 -> 4). */
static int set_rate_control(AVCodecContext *enc, const AVCodec *codec, const rp_output_spec *opts,
                            char *err, size_t errlen)
{
    char value[32];
    int ret;

    if (opts->bitrate > 0) {
        enc->bit_rate = opts->bitrate;
        return RP_OK;
    }
    if (opts->crf < 0)
        return RP_OK;
    int crf = opts->crf_given ? opts->crf : default_crf(codec, opts->crf);
    enc->bit_rate = 0;
    if (av_opt_find(enc, "crf", NULL, 0, AV_OPT_SEARCH_CHILDREN)) {
        if (crf > crf_max(codec)) {
            rp_errf(err, errlen, "encoder %s rejects --crf %d (its range is 0 to %d)", codec->name,
                    opts->crf, crf_max(codec));
            return RP_ERR_INVALID;
        }
        snprintf(value, sizeof(value), "%d", crf);
        ret = av_opt_set(enc, "crf", value, AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];

            av_strerror(ret, msg, sizeof msg);
            rp_errf(err, errlen, "encoder %s rejects --crf %d: %s", codec->name, opts->crf, msg);
            return RP_ERR_INVALID;
        }
    } else if (opts->crf_given) {
        rp_errf(err, errlen,
                "encoder %s has no constant rate factor (--crf %d): use -b/--bitrate, or an "
                "encoder with one (libx264, libx265, libvpx-vp9, libaom-av1)",
                codec->name, opts->crf);
        return RP_ERR_INVALID;
    } else {
        enc->flags |= AV_CODEC_FLAG_QSCALE;
        enc->global_quality = FF_QP2LAMBDA * rp_clampi((crf + 3) / 6, 1, 31);
    }
    return RP_OK;
}

/* SVT-AV1 reads its log level from the environment (SVT_LOG, 0 = fatal errors only) when
 * an encoder is created; a level the user set is left alone. */
static void svt_log_level(const char *level)
{
    static int user_set = -1;

    if (user_set < 0)
        user_set = getenv("SVT_LOG") != NULL;
    if (!user_set)
        setenv("SVT_LOG", level, 1);
}

/* Encoders that print to stderr themselves, past FFmpeg's log: libx265 (x265's own
 * logger, set through x265-params) and libsvtav1. Quiet (-q, and every trial open): none;
 * otherwise their errors, not their banners and notes. */
static int set_encoder_logging(AVCodecContext *enc, const AVCodec *codec, int quiet, char *err,
                               size_t errlen)
{
    if (!strcmp(codec->name, "libx265")) {
        int ret = av_opt_set(enc, "x265-params", quiet ? "log-level=none" : "log-level=error",
                             AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            rp_errf(err, errlen, "encoder %s rejects x265-params", codec->name);
            return RP_ERR_UNSUPPORTED;
        }
    } else if (!strcmp(codec->name, "libsvtav1")) {
        svt_log_level(quiet ? "0" : "1");
    }
    return RP_OK;
}

/* Tell enc everything rockpool decides: size, rate, pixel format, colours, rate control,
 * preset, the encoder's own logging. An option the encoder lacks or refuses is
 * RP_ERR_INVALID naming the encoder and the option. trial: a throwaway context of
 * trial_open (quiet always). */
static int configure(AVCodecContext *enc, const AVCodec *codec, enum AVPixelFormat fmt,
                     const rp_output_spec *opts, int global_header, int trial, char *err,
                     size_t errlen)
{
    int ret;

    enc->codec_id = codec->id;
    enc->width = opts->width;
    enc->height = opts->height;
    enc->time_base = (AVRational){opts->fps_den > 0 ? opts->fps_den : 1, opts->fps};
    enc->framerate = (AVRational){opts->fps, opts->fps_den > 0 ? opts->fps_den : 1};
    enc->sample_aspect_ratio = (AVRational){1, 1};
    enc->pix_fmt = fmt;
    enc->thread_count = 0; /* auto; the decoded frames do not depend on it */
    if (!(av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_RGB)) {
        /* What rp_yuv*_rows_m and the libswscale converter produce (is_hd). */
        int hd = is_hd(opts);
        enc->color_range = AVCOL_RANGE_MPEG;
        enc->colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
        enc->color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M;
        enc->color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M;
    }
    if (global_header)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = set_rate_control(enc, codec, opts, err, errlen);
    if (ret)
        return ret;
    if (opts->encoder_preset) {
        ret = av_opt_set(enc, "preset", opts->encoder_preset, AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            rp_errf(err, errlen, "encoder %s rejects --encoder-preset %s", codec->name,
                    opts->encoder_preset);
            return RP_ERR_INVALID;
        }
    }
    return set_encoder_logging(enc, codec, trial || opts->quiet, err, errlen);
}

/* libswscale, with its spare row, for what yuv.h does not convert: RGBA frames and pixel
 * formats other than yuv420p and yuv444p. Other pixel formats go through libswscale with
 * the ffmpeg program's default (bicubic, its SIMD paths): the frames that decide pixels are
 * the RGB ones (hashed by --hash and framemd5); encoded video is not byte-reproducible
 * across encoder thread counts anyway. RGBA frames (--alpha) always do: straight alpha,
 * converted as is. */
static int open_converter(video_out *vo, const AVCodec *codec, enum AVPixelFormat fmt, char *err,
                          size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    enum AVPixelFormat in = opts->pixfmt == RP_PIX_RGBA ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24;

    if (opts->pixfmt != RP_PIX_RGBA && (fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUV444P))
        return RP_OK;
    vo->spare_row = av_mallocz((size_t)opts->width * 4 + 64);
    vo->sws = sws_getContext(opts->width, opts->height, in, opts->width, opts->height, fmt,
                             SWS_BICUBIC, NULL, NULL, NULL);
    if (!vo->spare_row || !vo->sws) {
        rp_errf(err, errlen, "cannot convert %s to %s for %s", av_get_pix_fmt_name(in),
                av_get_pix_fmt_name(fmt), codec->name);
        return vo->spare_row ? RP_ERR_UNSUPPORTED : RP_ERR_NOMEM;
    }
    if (is_hd(opts) && !(av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_RGB)) {
        const int *rgb = sws_getCoefficients(SWS_CS_DEFAULT);
        const int *yuv = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(vo->sws, rgb, 1, yuv, 0, 0, 1 << 16, 1 << 16);
    }
    return RP_OK;
}

/* Configure and open the encoder, describe its stream from it, and allocate the frame that
 * video_write fills. */
static int open_encoder(video_out *vo, const AVCodec *codec, enum AVPixelFormat fmt, char *err,
                        size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    int ret;

    ret = configure(vo->enc, codec, fmt, opts, (vo->oc->oformat->flags & AVFMT_GLOBALHEADER) != 0,
                    0, err, errlen);
    if (ret)
        return ret;
    ret = avcodec_open2(vo->enc, codec, NULL);
    if (ret < 0) {
        ret = averr(err, errlen, RP_ERR_ENCODER, "cannot open encoder", codec->name, ret);
        if (opts->encoder_preset)
            rp_errf(err + strlen(err), errlen - strlen(err), " (is '%s' one of its presets?)",
                    opts->encoder_preset);
        return ret;
    }
    ret = avcodec_parameters_from_context(vo->st->codecpar, vo->enc);
    if (ret < 0)
        return averr(err, errlen, RP_ERR_ENCODER, "cannot configure stream for", codec->name, ret);
    vo->st->time_base = vo->enc->time_base;
    vo->st->avg_frame_rate = vo->enc->framerate;
    vo->st->r_frame_rate = vo->enc->framerate;

    vo->frame->format = fmt;
    vo->frame->width = opts->width;
    vo->frame->height = opts->height;
    ret = av_frame_get_buffer(vo->frame, 0);
    if (ret < 0)
        return averr(err, errlen, RP_ERR_NOMEM, "cannot allocate a frame for", codec->name, ret);
    return RP_OK;
}

/* Create the temporary file in the target's directory (close renames it into place) and
 * open it for the muxer; tmp_exists tells release to remove it. */
static int open_temp_file(video_out *vo, char *err, size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    char url[4200];
    int ret, fd;

    if (rp_output_temp_name(opts->path, vo->tmp, sizeof(vo->tmp))) {
        rp_errf(err, errlen, "the output path '%.64s...' is too long", opts->path);
        return RP_ERR_TOO_LARGE;
    }
    ret = rp_output_temp_create(vo->tmp, opts->path, &fd, err, errlen);
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
        return averr(err, errlen, RP_ERR_IO, "cannot write", opts->path, ret);
    return RP_OK;
}

/* The container header, once every stream (video, and audio if any) exists. MP4 and MOV
 * with the index at the front (playable while downloading); no muxer version or date in the
 * file, so the same frames give the same bytes. */
static int write_header(video_out *vo, char *err, size_t errlen)
{
    const rp_output_spec *opts = vo->opts;
    AVDictionary *mux_opts = NULL;
    int ret;

    if (opts->format == RP_FORMAT_MP4 || opts->format == RP_FORMAT_MOV)
        av_dict_set(&mux_opts, "movflags", "+faststart+use_metadata_tags", 0);
    for (size_t i = 0; opts->metadata && opts->metadata[i] && opts->metadata[i + 1]; i += 2)
        av_dict_set(&vo->oc->metadata, opts->metadata[i], opts->metadata[i + 1], 0);
    vo->oc->flags |= AVFMT_FLAG_BITEXACT;
    ret = avformat_write_header(vo->oc, &mux_opts);
    av_dict_free(&mux_opts);
    if (ret < 0)
        return averr(err, errlen, RP_ERR_ENCODER, "cannot write the header of", opts->path, ret);
    return RP_OK;
}

/* Set up muxer, stream, encoder, converter and frame; create the temporary file and write
 * the container header. */
static int video_open(void *priv, const rp_output_spec *opts, char *err, size_t errlen)
{
    video_out *vo = priv;
    const AVCodec *codec;
    enum AVPixelFormat fmt;
    char warning[256];
    int ret;

    vo->opts = opts;
    rp_output_quiet_ffmpeg();
    ret = pick(opts, &codec, &fmt, warning, sizeof(warning), err, errlen);
    if (ret)
        return ret;
    if (warning[0] && opts->warn)
        opts->warn(opts->warn_ctx, warning);

    ret = avformat_alloc_output_context2(&vo->oc, NULL, muxer_name(opts->format), NULL);
    if (ret < 0 || !vo->oc) {
        ret = averr(err, errlen, RP_ERR_ENCODER, "cannot set up muxer", muxer_name(opts->format),
                    ret);
        goto fail;
    }
    vo->st = avformat_new_stream(vo->oc, NULL);
    vo->enc = avcodec_alloc_context3(codec);
    vo->frame = av_frame_alloc();
    vo->pkt = av_packet_alloc();
    ret = open_converter(vo, codec, fmt, err, errlen);
    if (ret)
        goto fail;
    if (!vo->st || !vo->enc || !vo->frame || !vo->pkt) {
        rp_errf(err, errlen, "out of memory setting up %s", codec->name);
        ret = RP_ERR_NOMEM;
        goto fail;
    }
    ret = open_encoder(vo, codec, fmt, err, errlen);
    if (ret)
        goto fail;
    ret = open_temp_file(vo, err, errlen);
    if (ret)
        goto fail;
    ret = audio_open(vo, err, errlen);
    if (ret)
        goto fail;
    ret = write_header(vo, err, errlen);
    if (ret)
        goto fail;
    return RP_OK;

fail:
    release(vo);
    return ret;
}

static int video_write(void *priv, int64_t frame_index, const uint8_t *rgb, char *err,
                       size_t errlen)
{
    video_out *vo = priv;
    int ret;

    (void)frame_index; /* pts count from the first written frame */
    /* The encoder may still hold a reference to the previous frame. */
    ret = av_frame_make_writable(vo->frame);
    if (ret < 0)
        return averr(err, errlen, RP_ERR_NOMEM, "cannot get a frame for", vo->enc->codec->name,
                     ret);
    if (vo->sws)
        rp_output_scale_px(vo->sws, rgb, vo->opts->width, vo->opts->height,
                           rp_pixfmt_bytes(vo->opts->pixfmt), vo->spare_row, vo->frame->data,
                           vo->frame->linesize);
    else if (vo->enc->pix_fmt == AV_PIX_FMT_YUV420P)
        rp_yuv420_rows_m(is_hd(vo->opts) ? &rp_yuv_bt709 : &rp_yuv_bt601, rgb, vo->opts->width,
                         vo->frame->data, vo->frame->linesize, 0, vo->opts->height);
    else if (vo->enc->pix_fmt == AV_PIX_FMT_YUV444P)
        rp_yuv444_rows_m(is_hd(vo->opts) ? &rp_yuv_bt709 : &rp_yuv_bt601, rgb, vo->opts->width,
                         vo->frame->data, vo->frame->linesize, 0, vo->opts->height);
    vo->frame->pts = vo->next_pts++;
    ret = send_and_mux(vo, vo->enc, vo->st, vo->pkt, vo->frame, 0, err, errlen);
    if (ret)
        return ret;
    /* The audio up to the end of this frame. */
    return audio_pump(vo, vo->next_pts * (vo->opts->fps_den > 0 ? vo->opts->fps_den : 1),
                      vo->opts->fps, err, errlen);
}

/* Flush the encoder, write the trailer, close the file and rename it into place. On any
 * failure the temporary file is removed. */
static int video_close(void *priv, char *err, size_t errlen)
{
    video_out *vo = priv;
    int ret;

    ret = send_and_mux(vo, vo->enc, vo->st, vo->pkt, NULL, 0, err, errlen);
    if (ret)
        goto fail;
    ret = audio_pump(vo, 0, 0, err, errlen);
    if (ret)
        goto fail;
    ret = av_write_trailer(vo->oc);
    if (ret < 0) {
        ret = averr(err, errlen, RP_ERR_ENCODER, "cannot finish", vo->opts->path, ret);
        goto fail;
    }
    ret = avio_closep(&vo->oc->pb);
    if (ret < 0) {
        ret = averr(err, errlen, RP_ERR_IO, "cannot write", vo->opts->path, ret);
        goto fail;
    }
    vo->tmp_exists = 0;
    ret = rp_output_commit(vo->tmp, vo->opts->path, vo->opts->overwrite, err, errlen);

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
        .cell_bytes = 45, /* x264's lookahead dominates */                                         \
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
