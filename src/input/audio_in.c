/* audio_in.c - the first audio stream of a background's file, as packets or decoded
 * frames (audio_in.h). */
#include "input/audio_in.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/common.h"
#include "input/demux.h"

struct rp_audio_in {
    AVFormatContext *ic;
    const AVCodec *codec;
    AVStream *st;
    int index;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
};

void rp_audio_in_free(rp_audio_in **pa)
{
    rp_audio_in *a = *pa;
    if (!a)
        return;
    avformat_close_input(&a->ic);
    avcodec_free_context(&a->dec);
    av_packet_free(&a->pkt);
    av_frame_free(&a->frame);
    free(a);
    *pa = NULL;
}

int rp_audio_in_open(rp_audio_in **pa, const char *path, rp_error *err)
{
    rp_audio_in *a = calloc(1, sizeof *a);
    *pa = NULL;
    if (!a || !(a->pkt = av_packet_alloc()) || !(a->frame = av_frame_alloc())) {
        rp_audio_in_free(&a);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    int ret = rp_demux_open(&a->ic, path, rp_demux_media_formats, NULL);
    if (ret < 0 || avformat_find_stream_info(a->ic, NULL) < 0) {
        char msg[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(ret < 0 ? ret : AVERROR_INVALIDDATA, msg, sizeof msg);
        rp_audio_in_free(&a);
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot read the audio of %s: %s", path, msg);
    }
    a->index = av_find_best_stream(a->ic, AVMEDIA_TYPE_AUDIO, -1, -1, &a->codec, 0);
    if (a->index < 0) { /* no sound */
        rp_audio_in_free(&a);
        return RP_OK;
    }
    a->st = a->ic->streams[a->index];
    for (unsigned i = 0; i < a->ic->nb_streams; i++)
        if ((int)i != a->index)
            a->ic->streams[i]->discard = AVDISCARD_ALL;
    *pa = a;
    return RP_OK;
}

const AVStream *rp_audio_in_stream(const rp_audio_in *a)
{
    return a->st;
}

const AVCodec *rp_audio_in_codec(const rp_audio_in *a)
{
    return a->codec;
}

void rp_audio_in_seek(rp_audio_in *a, int64_t ts)
{
    avformat_seek_file(a->ic, a->index, INT64_MIN, ts, ts, 0);
}

int rp_audio_in_read(rp_audio_in *a, AVPacket **pkt, int64_t *ts)
{
    for (;;) {
        av_packet_unref(a->pkt);
        if (av_read_frame(a->ic, a->pkt) < 0)
            return 0;
        *ts = a->pkt->pts != AV_NOPTS_VALUE ? a->pkt->pts : a->pkt->dts;
        if (a->pkt->stream_index == a->index && *ts != AV_NOPTS_VALUE) {
            *pkt = a->pkt;
            return 1;
        }
    }
}

/* The largest packet end read from here to the file's end, in the stream's ticks
 * (AV_NOPTS_VALUE: no timestamped packet). */
static int64_t read_end(rp_audio_in *a)
{
    int64_t end = AV_NOPTS_VALUE, ts;
    AVPacket *pkt;
    while (rp_audio_in_read(a, &pkt, &ts)) {
        int64_t e = ts + (pkt->duration > 0 ? pkt->duration : 0);
        if (end == AV_NOPTS_VALUE || e > end)
            end = e;
    }
    return end;
}

int rp_audio_in_extent(rp_audio_in *a, int64_t *from_us, int64_t *to_us)
{
    const AVRational us = {1, 1000000};
    AVPacket *pkt;
    int64_t first, end = AV_NOPTS_VALUE, declared = AV_NOPTS_VALUE;

    if (!rp_audio_in_read(a, &pkt, &first))
        return -1;
    if (a->st->duration != AV_NOPTS_VALUE && a->st->duration > 0)
        declared =
            (a->st->start_time != AV_NOPTS_VALUE ? a->st->start_time : first) + a->st->duration;
    else if (a->ic->duration != AV_NOPTS_VALUE && a->ic->duration > 0)
        declared = first + av_rescale_q(a->ic->duration, AV_TIME_BASE_Q, a->st->time_base);
    /* from 4 s before the declared end (the packets there, whatever the seek's accuracy),
     * else, or when that finds none, from the first packet on */
    if (declared != AV_NOPTS_VALUE) {
        int64_t back = av_rescale_q(4 * AV_TIME_BASE, AV_TIME_BASE_Q, a->st->time_base);
        int64_t at = declared - back > first ? declared - back : first;
        if (avformat_seek_file(a->ic, a->index, INT64_MIN, at, at, 0) >= 0)
            end = read_end(a);
    }
    if (end == AV_NOPTS_VALUE || end <= first) {
        if (avformat_seek_file(a->ic, a->index, INT64_MIN, first, first, 0) < 0)
            return -1;
        end = read_end(a);
    }
    if (end == AV_NOPTS_VALUE || end <= first)
        return -1;
    *from_us = av_rescale_q(first, a->st->time_base, us);
    *to_us = av_rescale_q(end, a->st->time_base, us);
    return 0;
}

int rp_audio_in_open_decoder(rp_audio_in *a, const char *path, rp_error *err)
{
    int ret = rp_demux_open_decoder(&a->dec, a->ic, a->index, a->codec, &(rp_decoder_opts){0});
    if (ret < 0) {
        char msg[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(ret, msg, sizeof msg);
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot decode the audio of %s: %s", path, msg);
    }
    return RP_OK;
}

void rp_audio_in_layout(const rp_audio_in *a, AVChannelLayout *layout)
{
    if (a->dec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(layout, a->dec->ch_layout.nb_channels);
    else
        av_channel_layout_copy(layout, &a->dec->ch_layout);
}

int rp_audio_in_send(rp_audio_in *a, AVPacket *pkt)
{
    int ret = avcodec_send_packet(a->dec, pkt);
    if (pkt)
        av_packet_unref(pkt);
    return ret;
}

AVFrame *rp_audio_in_receive(rp_audio_in *a)
{
    av_frame_unref(a->frame);
    return avcodec_receive_frame(a->dec, a->frame) >= 0 ? a->frame : NULL;
}

double rp_audio_sample(const AVFrame *f, int ch, int i)
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
