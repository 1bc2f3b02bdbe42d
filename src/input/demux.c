/* demux.c - restricted opening of input files (see demux.h). */
#include "input/demux.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/avstring.h>

/* Containers of audio and video that hold their streams in the one file. Left out on
 * purpose: playlists and lists of other files (hls, dash, concat, ffmetadata), image
 * sequences (image2 reads patterns), text read as pictures (tty), and formats that need
 * options to be read at all (rawvideo). */
const char rp_demux_media_formats[] =
    "mov,matroska,avi,mpegts,mpeg,mpegvideo,flv,ogg,yuv4mpegpipe,nut,ivf,asf,mxf,dv,h264,"
    "hevc,m4v,obu,av1,wav,flac,mp3,aac,ac3,eac3,truehd,w64,aiff,caf,wv,ape,tta,dts,amr";

int rp_demux_is_image(const char *name)
{
    size_t n = strlen(name);

    /* image2 and the image pipes, and the still formats FFmpeg reads with a demuxer of
     * their own (Alias PIX, FITS; FFmpeg 5.1 names them so) */
    return strcmp(name, "image2") == 0 || strcmp(name, "gif") == 0 ||
           strcmp(name, "alias_pix") == 0 || strcmp(name, "fits") == 0 ||
           (n > 5 && strcmp(name + n - 5, "_pipe") == 0);
}

/* Append name to the comma-separated *list of *len bytes; -1 when out of memory (the list
 * freed). */
static int append(char **list, size_t *len, const char *name)
{
    size_t n = strlen(name);
    char *more = av_realloc(*list, *len + n + 2);
    if (!more) {
        av_freep(list);
        return -1;
    }
    *list = more;
    if (*len)
        more[(*len)++] = ',';
    memcpy(more + *len, name, n + 1);
    *len += n;
    return 0;
}

char *rp_demux_formats(int media)
{
    const AVInputFormat *f;
    void *it = NULL;
    char *list = NULL;
    size_t len = 0;

    if (media && append(&list, &len, rp_demux_media_formats))
        return NULL;
    while ((f = av_demuxer_iterate(&it)))
        if (rp_demux_is_image(f->name) && !strchr(f->name, ',') && append(&list, &len, f->name))
            return NULL;
    return list;
}

typedef int (*io_open_fn)(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                          AVDictionary **options);

static io_open_fn default_io_open;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void find_default_io_open(void)
{
    AVFormatContext *fc = avformat_alloc_context();
    if (fc)
        default_io_open = fc->io_open;
    avformat_free_context(fc);
}

/* The file itself is opened while the context has no I/O yet; anything a demuxer opens
 * later (it has one by then) is refused. */
static int io_open_once(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                        AVDictionary **options)
{
    if (s->pb || !default_io_open)
        return AVERROR(EPERM);
    return default_io_open(s, pb, url, flags, options);
}

int rp_demux_open(AVFormatContext **fc, const char *path, const char *formats, AVDictionary **opts)
{
    AVDictionary *o = NULL;
    size_t n = strlen(path) + 6;
    char *url = malloc(n);
    int ret;

    pthread_once(&default_once, find_default_io_open);
    *fc = avformat_alloc_context();
    if (!url || !*fc) {
        free(url);
        avformat_free_context(*fc);
        *fc = NULL;
        return AVERROR(ENOMEM);
    }
    snprintf(url, n, "file:%s", path);
    (*fc)->io_open = io_open_once;
    if (opts)
        av_dict_copy(&o, *opts, 0);
    av_dict_set(&o, "protocol_whitelist", "file", 0);
    av_dict_set(&o, "format_whitelist", formats, 0);
    ret = avformat_open_input(fc, url, NULL, &o); /* frees *fc on failure */
    av_dict_free(&o);
    free(url);
    return ret;
}

const char *rp_demux_guess_media(const char *path, int *indexed)
{
    AVIOContext *pb = NULL;
    const AVInputFormat *fmt = NULL;
    size_t n = strlen(path) + 6;
    char *url = malloc(n);
    const char *name = NULL;

    if (!url)
        return NULL;
    snprintf(url, n, "file:%s", path);
    if (avio_open(&pb, url, AVIO_FLAG_READ) >= 0 &&
        av_probe_input_buffer2(pb, &fmt, url, NULL, 0, 1 << 20) >= 0 && fmt &&
        av_match_list(fmt->name, rp_demux_media_formats, ',') > 0)
        name = fmt->long_name ? fmt->long_name : fmt->name;
    if (indexed)
        *indexed = name && !strcmp(fmt->name, "mov,mp4,m4a,3gp,3g2,mj2");
    avio_closep(&pb);
    free(url);
    return name;
}

void rp_demux_set_explode(AVCodecContext *dec, int on)
{
    /* Never for TIFF: its decoder under AV_EF_EXPLODE refuses every tag it does not know,
     * ResolutionUnit and Software among them, which nearly every TIFF carries (FFmpeg's
     * own TIFF encoder writes ResolutionUnit), so no TIFF would decode at all. A TIFF cut
     * short is still refused without it (its strips or its directory lie past the end). */
    if (on && dec->codec_id != AV_CODEC_ID_TIFF)
        dec->err_recognition |= AV_EF_EXPLODE;
    else
        dec->err_recognition &= ~AV_EF_EXPLODE;
}

/* A job of a decoder's (a block or a slice of a picture) run by job_execute2: the
 * decoder's function and argument, and the hooks whose job_error a failure sets. */
typedef struct decoder_job {
    int (*func)(AVCodecContext *c, void *arg, int jobnr, int threadnr);
    void *arg;
    rp_decoder_hooks *hooks;
} decoder_job;

static int job_run(AVCodecContext *c, void *arg, int jobnr, int threadnr)
{
    const decoder_job *job = arg;
    int r = job->func(c, job->arg, jobnr, threadnr);
    if (r < 0 && !job->hooks->job_error)
        job->hooks->job_error = r;
    return r;
}

/* Every job of the decoder's through job_run, in libavcodec's own execute2
 * (rp_decoder_hooks). */
static int job_execute2(AVCodecContext *c,
                        int (*func)(AVCodecContext *c2, void *arg, int jobnr, int threadnr),
                        void *arg, int *ret, int count)
{
    rp_decoder_hooks *h = c->opaque;
    decoder_job job = {func, arg, h};
    return h->execute2(c, job_run, &job, ret, count);
}

int rp_demux_open_decoder(AVCodecContext **dec, const AVFormatContext *fc, int index,
                          const AVCodec *codec, const rp_decoder_opts *opts)
{
    const AVStream *st = fc->streams[index];
    if (!(*dec = avcodec_alloc_context3(codec)))
        return AVERROR(ENOMEM);
    int ret = avcodec_parameters_to_context(*dec, st->codecpar);
    if (ret < 0)
        return ret;
    (*dec)->pkt_timebase = st->time_base;
    if (opts->threads > 0)
        (*dec)->thread_count = opts->threads;
    if (opts->bitexact)
        (*dec)->flags |= AV_CODEC_FLAG_BITEXACT;
    rp_demux_set_explode(*dec, opts->explode);
    if (opts->hooks) {
        *opts->hooks = (rp_decoder_hooks){.opaque = opts->opaque};
        (*dec)->opaque = opts->hooks;
    }
    if (opts->get_buffer2 && !opts->hooks) /* its opaque is read through the hooks */
        return AVERROR(EINVAL);
    if (opts->get_buffer2)
        (*dec)->get_buffer2 = opts->get_buffer2;
    if (opts->max_pixels > 0)
        (*dec)->max_pixels = opts->max_pixels;
    ret = avcodec_open2(*dec, codec, NULL);
    /* one thread: a job's error belongs to the picture being decoded */
    if (ret >= 0 && opts->hooks && (*dec)->thread_count <= 1 && (*dec)->execute2) {
        opts->hooks->execute2 = (*dec)->execute2;
        (*dec)->execute2 = job_execute2;
    }
    return ret;
}

void *rp_demux_opaque(const AVCodecContext *dec)
{
    return ((const rp_decoder_hooks *)dec->opaque)->opaque;
}
