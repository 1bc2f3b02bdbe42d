/* audio_out.c - a background's sound carried into a video output (rp_output_spec.audio_path):
 * the first audio stream of the file (input/audio_in.h), from audio_offset for audio_length
 * seconds, placed at the output's time 0 (a sound that starts later in the span starts as
 * late in the output): its packets copied with their timestamps (those that start inside
 * the span, so the length is right within one audio frame) when the container takes the
 * codec, else decoded and re-encoded sample-exactly, after silence up to the sound's first
 * sample (AAC for MP4/MOV, Opus, or Vorbis when Opus cannot take the sample rate, for
 * WebM/Matroska). Sample formats are converted here (no libswresample); sample rates are
 * never changed. Packets are written as the video advances, so nothing accumulates in the
 * interleaver (but the video before a late sound's first packet). */
#include <math.h>
#include <stdlib.h>

#include <libavutil/audio_fifo.h>

#include "base/diag.h"
#include "base/common.h"
#include "input/audio_in.h"
#include "output/encode.h"
#include "output/mux.h"

struct rp_audio_out {
    rp_audio_in *in;
    const rp_output_spec *opts;
    AVFormatContext *oc;
    AVStream *ost;
    int copy, done, flushed;
    int64_t start_ts, end_ts;   /* copy: the span in the input's time base */
    int64_t start_smp, end_smp; /* encode: the span in samples */
    int64_t taken, next;        /* samples into the FIFO, and out to the encoder */
    AVCodecContext *enc;
    AVPacket *pkt;
    AVFrame *eframe;
    AVAudioFifo *fifo;
    uint8_t **conv; /* converted samples of one decoded frame */
    int conv_cap;
};

void rp_audio_out_free(rp_audio_out **pa)
{
    rp_audio_out *a = *pa;

    if (!a)
        return;
    rp_audio_in_free(&a->in);
    avcodec_free_context(&a->enc);
    av_packet_free(&a->pkt);
    av_frame_free(&a->eframe);
    if (a->fifo)
        av_audio_fifo_free(a->fifo);
    if (a->conv)
        av_freep(&a->conv[0]);
    av_freep(&a->conv);
    free(a);
    *pa = NULL;
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

/* The channel layout the encoder is given for the input's: the input's own when the
 * encoder takes it (or lists none), else the encoder's first of as many channels (5.1
 * with side channels becomes 5.1 with back ones, as a label: samples are never mixed).
 * An input of unknown order counts as the default layout of its channel count. 0, or -1
 * when the encoder takes no layout of that many channels. */
static int pick_layout(const AVCodec *c, const AVChannelLayout *in, AVChannelLayout *out)
{
    AVChannelLayout want = {0};

    if (in->order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&want, in->nb_channels);
    else if (av_channel_layout_copy(&want, in) < 0)
        return -1;
    if (c->ch_layouts) {
        const AVChannelLayout *same = NULL;
        for (const AVChannelLayout *l = c->ch_layouts; l->nb_channels; l++) {
            if (!av_channel_layout_compare(l, &want)) {
                same = l;
                break;
            }
            if (!same && l->nb_channels == want.nb_channels)
                same = l;
        }
        av_channel_layout_uninit(&want);
        if (!same || av_channel_layout_copy(&want, same) < 0)
            return -1;
    }
    if (out)
        *out = want;
    else
        av_channel_layout_uninit(&want);
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

/* The copy path's output stream: the input's parameters and time base as they are, and the
 * span in that time base (packets are picked by their timestamps). */
static int audio_setup_copy(rp_audio_out *a, const rp_output_spec *opts, rp_error *err)
{
    const AVStream *ist = rp_audio_in_stream(a->in);
    int ret = avcodec_parameters_copy(a->ost->codecpar, ist->codecpar);

    if (ret < 0)
        return rp_averr(err, RP_ERR_NOMEM, "cannot copy the audio of", opts->audio_path, ret);
    a->ost->codecpar->codec_tag = 0;
    a->ost->time_base = ist->time_base;
    audio_span(opts, ist->time_base, &a->start_ts, &a->end_ts);
    return RP_OK;
}

/* The re-encode path's encoder and sample format: AAC for MP4/MOV; Opus, or Vorbis when Opus
 * cannot take the sample rate or the channels, for WebM/Matroska. Kept apart from the
 * set-up so that every reason to refuse (no decoder, no encoder for the rate and channels,
 * no sample format this file converts to) is found before anything is allocated:
 * RP_ERR_UNSUPPORTED saying which. */
static int audio_pick_encoder(const rp_audio_out *a, const rp_output_spec *opts,
                              const AVCodec *dcodec, const AVCodec **pcodec,
                              enum AVSampleFormat *psfmt, rp_error *err)
{
    const char *names[3] = {"aac", NULL, NULL};
    const AVCodec *ecodec = NULL;
    const AVStream *ist = rp_audio_in_stream(a->in);
    int rate = ist->codecpar->sample_rate;
    enum AVSampleFormat sfmt;

    if (opts->format == RP_FORMAT_WEBM || opts->format == RP_FORMAT_MKV) {
        names[0] = "libopus";
        names[1] = "libvorbis";
    }
    for (int i = 0; i < 3 && names[i] && !ecodec; i++) {
        ecodec = avcodec_find_encoder_by_name(names[i]);
        if (ecodec &&
            (!takes_rate(ecodec, rate) || pick_layout(ecodec, &ist->codecpar->ch_layout, NULL) < 0))
            ecodec = NULL;
    }
    if (!dcodec) {
        return rp_error_set(err, RP_ERR_UNSUPPORTED, 0, "no decoder for the %s audio of '%s'",
                            avcodec_get_name(ist->codecpar->codec_id), opts->audio_path);
    }
    if (!ecodec || (sfmt = pick_sample_fmt(ecodec)) == AV_SAMPLE_FMT_NONE) {
        return rp_error_set(
            err, RP_ERR_UNSUPPORTED, 0,
            "the %s container cannot hold the %s audio of '%s', and no %s encoder "
            "takes its %d Hz and %d channels (use %s)",
            rp_output_format_name(opts->format), avcodec_get_name(ist->codecpar->codec_id),
            opts->audio_path, names[1] ? "Opus/Vorbis" : "AAC", rate,
            ist->codecpar->ch_layout.nb_channels, rp_name("--no-audio", "rp_run.no_audio"));
    }
    *pcodec = ecodec;
    *psfmt = sfmt;
    return RP_OK;
}

/* The re-encode path: the decoder, the encoder at the input's sample rate and channels (the
 * rate is never converted), the FIFO that cuts decoded samples into encoder frames, and the
 * span in samples. */
static int audio_setup_encode(rp_audio_out *a, const AVCodec *dcodec, rp_error *err)
{
    const rp_output_spec *opts = a->opts;
    const AVStream *ist = rp_audio_in_stream(a->in);
    int rate = ist->codecpar->sample_rate;
    const AVCodec *ecodec = NULL;
    enum AVSampleFormat sfmt = AV_SAMPLE_FMT_NONE;
    int ret = audio_pick_encoder(a, opts, dcodec, &ecodec, &sfmt, err);

    if (ret)
        return ret;
    a->enc = avcodec_alloc_context3(ecodec);
    a->eframe = av_frame_alloc();
    if (!a->enc || !a->eframe) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    if ((ret = rp_audio_in_open_decoder(a->in, opts->audio_path, err)))
        return ret;
    a->enc->sample_rate = rate;
    a->enc->sample_fmt = sfmt;
    AVChannelLayout in_layout = {0};
    rp_audio_in_layout(a->in, &in_layout);
    ret = pick_layout(ecodec, &in_layout, &a->enc->ch_layout);
    av_channel_layout_uninit(&in_layout);
    if (ret < 0) {
        return rp_error_set(err, RP_ERR_UNSUPPORTED, 0,
                            "no channel layout of %s for the audio of '%s'", ecodec->name,
                            opts->audio_path);
    }
    a->enc->time_base = (AVRational){1, rate};
    /* Vorbis at a fixed bit rate refuses rates and channel counts its tables lack (96 kHz
     * mono, 7.1 at 160 kb/s): it gets quality 3, ffmpeg's default, as a bit rate of 0. */
    a->enc->bit_rate = ecodec->id == AV_CODEC_ID_OPUS     ? 128000
                       : ecodec->id == AV_CODEC_ID_VORBIS ? 0
                                                          : 160000;
    if (a->oc->oformat->flags & AVFMT_GLOBALHEADER)
        a->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int n = a->enc->ch_layout.nb_channels; /* a failed open clears the layout */
    ret = avcodec_open2(a->enc, ecodec, NULL);
    /* libopus lists no layouts but takes more than two channels only in the Vorbis order of
     * their count (5.1 with back channels, not side ones): relabelled, as pick_layout does. */
    static const uint64_t vorbis_order[8] = {AV_CH_LAYOUT_MONO,         AV_CH_LAYOUT_STEREO,
                                             AV_CH_LAYOUT_SURROUND,     AV_CH_LAYOUT_QUAD,
                                             AV_CH_LAYOUT_5POINT0_BACK, AV_CH_LAYOUT_5POINT1_BACK,
                                             AV_CH_LAYOUT_6POINT1,      AV_CH_LAYOUT_7POINT1};
    if (ret == AVERROR(EINVAL) && !ecodec->ch_layouts && n > 2 && n <= 8) {
        AVCodecContext *again = avcodec_alloc_context3(ecodec);
        if (!again) {
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        again->sample_rate = a->enc->sample_rate;
        again->sample_fmt = a->enc->sample_fmt;
        again->time_base = a->enc->time_base;
        again->bit_rate = a->enc->bit_rate;
        again->flags = a->enc->flags;
        av_channel_layout_from_mask(&again->ch_layout, vorbis_order[n - 1]);
        avcodec_free_context(&a->enc);
        a->enc = again;
        ret = avcodec_open2(a->enc, ecodec, NULL);
    }
    if (ret >= 0)
        ret = avcodec_parameters_from_context(a->ost->codecpar, a->enc);
    if (ret < 0)
        return rp_averr(err, RP_ERR_ENCODER, "cannot open audio encoder", ecodec->name, ret);
    a->ost->time_base = a->enc->time_base;
    a->fifo = av_audio_fifo_alloc(sfmt, a->enc->ch_layout.nb_channels, 4096);
    if (!a->fifo) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    audio_span(opts, a->enc->time_base, &a->start_smp, &a->end_smp);
    a->start_ts = av_rescale_q(a->start_smp, a->enc->time_base, ist->time_base);
    return RP_OK;
}

/* Whether the container takes the codec's packets as they are. libavformat says yes to
 * FLAC and Opus in MP4 and MOV but then refuses the header (experimental, or not
 * supported): those are re-encoded to AAC like any codec the container does not take. */
static int takes_as_is(const AVFormatContext *oc, enum rp_format format, enum AVCodecID id)
{
    if (format == RP_FORMAT_MP4 || format == RP_FORMAT_MOV) {
        static const enum AVCodecID mp4[] = {AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3,
                                             AV_CODEC_ID_EAC3, AV_CODEC_ID_ALAC};
        int ok = 0;
        for (size_t i = 0; i < sizeof mp4 / sizeof mp4[0]; i++)
            ok |= id == mp4[i];
        if (!ok)
            return 0;
    }
    return avformat_query_codec(oc->oformat, id, FF_COMPLIANCE_NORMAL) == 1;
}

/* Open the audio input and add its output stream (before the header is written). No
 * audio stream in the file: RP_OK and no audio. */
int rp_audio_out_open(rp_audio_out **pa, AVFormatContext *oc, const rp_output_spec *opts,
                      rp_error *err)
{
    rp_audio_out *a;
    int ret;

    *pa = NULL;
    if (!opts->audio_path)
        return RP_OK;
    a = calloc(1, sizeof(*a));
    if (!a) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    *pa = a; /* the caller frees it, also on failure */
    a->opts = opts;
    a->oc = oc;
    ret = rp_audio_in_open(&a->in, opts->audio_path, err);
    if (ret)
        return ret;
    if (!a->in) { /* nothing to carry */
        rp_audio_out_free(pa);
        return RP_OK;
    }
    const AVStream *ist = rp_audio_in_stream(a->in);
    a->pkt = av_packet_alloc();
    a->ost = avformat_new_stream(oc, NULL);
    if (!a->pkt || !a->ost) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    a->copy = takes_as_is(oc, opts->format, ist->codecpar->codec_id);
    ret = a->copy ? audio_setup_copy(a, opts, err)
                  : audio_setup_encode(a, rp_audio_in_codec(a->in), err);
    if (ret)
        return ret;
    /* Start near the span: the packet before it (seeking is to a packet boundary). */
    if (a->start_ts > 0)
        rp_audio_in_seek(a->in, a->start_ts);
    return RP_OK;
}

/* Encode whole frames from the FIFO (all of it when flushing, then the encoder). */
static int audio_encode(rp_audio_out *a, int flush, rp_error *err)
{
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
            return rp_averr(err, RP_ERR_NOMEM, "audio for", a->opts->path, ret);
        av_audio_fifo_read(a->fifo, (void **)a->eframe->extended_data, n);
        a->eframe->pts = a->next;
        a->next += n;
        ret = rp_send_and_mux(a->oc, a->opts->path, a->enc, a->ost, a->pkt, a->eframe, 1, err);
        if (ret)
            return ret;
    }
    if (flush && !a->flushed) {
        a->flushed = 1;
        return rp_send_and_mux(a->oc, a->opts->path, a->enc, a->ost, a->pkt, NULL, 1, err);
    }
    return RP_OK;
}

/* Room for n converted samples in a->conv (grown only when a frame is longer than any
 * before): 0 or RP_ERR_NOMEM. */
static int conv_reserve(rp_audio_out *a, int n, rp_error *err)
{
    if (n <= a->conv_cap)
        return RP_OK;
    if (a->conv)
        av_freep(&a->conv[0]);
    av_freep(&a->conv);
    a->conv_cap = 0;
    if (av_samples_alloc_array_and_samples(&a->conv, NULL, a->enc->ch_layout.nb_channels, n,
                                           a->enc->sample_fmt, 0) < 0) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    a->conv_cap = n;
    return RP_OK;
}

/* A gap in the sound's times longer than 1/GAP_S s is filled with silence. */
#define GAP_S 50

/* n samples of silence into the FIFO, encoded a frame at a time as it fills (a sound that
 * starts seconds after the picture does not pile up in the FIFO). */
static int audio_pad(rp_audio_out *a, int64_t n, rp_error *err)
{
    int nch = a->enc->ch_layout.nb_channels, ret;

    while (n > 0) {
        int k = n < 4096 ? (int)n : 4096;
        if ((ret = conv_reserve(a, k, err)))
            return ret;
        av_samples_set_silence(a->conv, 0, k, nch, a->enc->sample_fmt);
        if (av_audio_fifo_write(a->fifo, (void **)a->conv, k) < k) {
            return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
        }
        a->taken += k;
        n -= k;
        if ((ret = audio_encode(a, 0, err)))
            return ret;
    }
    return RP_OK;
}

/* The samples of a decoded frame inside the span, converted, into the FIFO. The encoder's
 * samples are counted from the output's time 0, so a sound that starts inside the span
 * (after the picture, or after a chunk's first frame) is preceded by silence up to its
 * first sample, and a gap in its times is filled: its place is kept in samples, the same
 * in every container. */
static int audio_take_frame(rp_audio_out *a, const AVFrame *f, rp_error *err)
{
    const AVStream *ist = rp_audio_in_stream(a->in);
    int nch = a->enc->ch_layout.nb_channels, n = f->nb_samples, from = 0, to = n, ret;
    int64_t pts = f->best_effort_timestamp;
    int64_t s0;

    s0 = pts == AV_NOPTS_VALUE ? a->start_smp + a->taken /* where the last one ended */
                               : av_rescale_q(pts, ist->time_base, a->enc->time_base);
    /* Silence up to the frame's first sample: before the first one taken, any; later, a
     * gap in the sound's times past GAP_S (a dropout in a recording), as a player waits
     * for it, where a step within it is the times' rounding (a Matroska millisecond) */
    int64_t at = a->start_smp + a->taken, gap = (s0 < a->end_smp ? s0 : a->end_smp) - at;
    if (gap > 0 && (!a->taken || gap > a->enc->sample_rate / GAP_S)) {
        if ((ret = audio_pad(a, gap, err)))
            return ret;
    }
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
    if ((ret = conv_reserve(a, to - from, err)))
        return ret;
    for (int ch = 0; ch < nch; ch++)
        for (int i = from; i < to; i++)
            sample_put(a->conv, a->enc->sample_fmt, nch, ch, i - from, rp_audio_sample(f, ch, i));
    if (av_audio_fifo_write(a->fifo, (void **)a->conv, to - from) < to - from) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    a->taken += to - from;
    return audio_encode(a, 0, err);
}

/* The copy path: a packet of the span, moved to output time and muxed as it is. */
static int audio_copy_packet(rp_audio_out *a, AVPacket *pkt, int64_t ts, rp_error *err)
{
    const AVStream *ist = rp_audio_in_stream(a->in);
    pkt->pts = ts - a->start_ts;
    pkt->dts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts - a->start_ts : pkt->pts;
    av_packet_rescale_ts(pkt, ist->time_base, a->ost->time_base);
    pkt->stream_index = a->ost->index;
    pkt->pos = -1;
    int ret = av_interleaved_write_frame(a->oc, pkt);
    if (ret < 0)
        return rp_averr(err, RP_ERR_IO, "cannot write", a->opts->path, ret);
    return RP_OK;
}

/* The re-encode path: a packet decoded, its frames' samples of the span taken. */
static int audio_decode_packet(rp_audio_out *a, AVPacket *pkt, rp_error *err)
{
    const AVFrame *f;
    int ret = rp_audio_in_send(a->in, pkt);
    if (ret < 0 && ret != AVERROR(EAGAIN))
        return rp_averr(err, RP_ERR_FORMAT, "cannot decode the audio of", a->opts->audio_path, ret);
    while (!a->done && (f = rp_audio_in_receive(a->in)))
        if ((ret = audio_take_frame(a, f, err)))
            return ret;
    return RP_OK;
}

int rp_audio_out_pump(rp_audio_out *a, int64_t until_num, int64_t until_den, rp_error *err)
{
    int ret;

    if (!a)
        return RP_OK;
    while (!a->done) {
        const AVStream *ist = rp_audio_in_stream(a->in);
        int64_t until_ts = until_den > 0
                               ? a->start_ts + to_ticks(until_num, until_den, ist->time_base)
                               : INT64_MAX;
        AVPacket *pkt;
        int64_t ts;

        if (!rp_audio_in_read(a->in, &pkt, &ts)) { /* the file's end (or damage) */
            a->done = 1;
            if (!a->copy) {
                const AVFrame *f;
                rp_audio_in_send(a->in, NULL);
                while ((f = rp_audio_in_receive(a->in)) && !audio_take_frame(a, f, err))
                    ;
            }
            break;
        }
        if (a->copy) {
            if (ts >= a->end_ts) {
                a->done = 1;
                break;
            }
            if (ts < a->start_ts)
                continue;
            ret = audio_copy_packet(a, pkt, ts, err);
        } else {
            ret = audio_decode_packet(a, pkt, err);
        }
        if (ret)
            return ret;
        if (ts >= until_ts)
            break;
    }
    if (a->done && !a->copy && until_den <= 0)
        return audio_encode(a, 1, err);
    return RP_OK;
}
