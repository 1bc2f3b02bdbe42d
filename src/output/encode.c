/* encode.c - the video encoder of the video backends (encode.h): libx264 / libvpx-vp9 by
 * default (ProRes 4444 for MOV with alpha, FFmpeg's gif, libwebp), or -c NAME, with the
 * pixel format, rate control, logging and colour tags rockpool decides, all tried on a
 * throwaway context in validation before anything is created. RGB24 is converted to the
 * encoder's pixel format by rockpool's own BT.601/BT.709 converter (yuv.h) for yuv420p and
 * yuv444p (bench/run measures it against libswscale), or by libswscale for any other; GIF frames
 * are mapped to the palette output_video.c makes. Frames get pts 0, 1, 2, ... in a 1/fps
 * time base, as in FFmpeg's doc/examples/encode_video.c (5.1). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "base/diag.h"
#include "base/common.h"
#include "output/encode.h"
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
/* The web's animations: GIF (FFmpeg's encoder, fed palette frames from palette.h) and
 * animated WebP (libwebp, fed RGB: see webp_rgb). Neither carries sound. */
static const char *const gif_encoders[] = {"gif", NULL};
static const char *const webp_encoders[] = {"libwebp_anim", "libwebp", NULL};

/* The pixel format an encoder gets alpha frames in, unless --pix-fmt says otherwise. */
static enum AVPixelFormat alpha_pix_fmt(const AVCodec *codec)
{
    static const struct {
        const char *encoder;
        enum AVPixelFormat fmt;
    } preferred[] = {
        {"libvpx-vp9", AV_PIX_FMT_YUVA420P},  {"libvpx", AV_PIX_FMT_YUVA420P},
        {"prores_ks", AV_PIX_FMT_YUVA444P10}, {"qtrle", AV_PIX_FMT_ARGB},
        {"libwebp_anim", AV_PIX_FMT_RGB32},   {"libwebp", AV_PIX_FMT_RGB32},
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
/* The run's settings in messages (rp_name). */
#define CRF rp_name("--crf", "rp_run.out.crf")
#define BITRATE rp_name("-b/--bitrate", "rp_run.out.bitrate")
#define PRESET rp_name("--encoder-preset", "rp_run.out.encoder_preset")
#define PIX_FMT rp_name("--pix-fmt", "rp_run.out.pix_fmt")
#define ALPHA rp_name("--alpha", "rp_run.alpha")

#define ALPHA_WORKS                                                                                \
    "a PNG pattern like f_%%05d.png (RGBA), .webm (VP9 yuva420p), .webp, .mov (ProRes 4444, or "   \
    "%s qtrle), or .mkv with %s libvpx-vp9"
#define CODEC rp_name("-c", "rp_run.out.codec")

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

/* Whether the encoder is libwebp fed RGB (FFmpeg's AV_PIX_FMT_RGB32, bgra here), opaque
 * frames with alpha 255: libwebp converts to its own 4:2:0 itself, at any size (fed
 * yuv420p, an odd width or height was refused), always with BT.601, which every WebP
 * decoder assumes (rockpool's BT.709 from 1280x720 decoded 7 levels off on average), and a
 * little closer to the frames (examples/harbour.scene, 10 frames at 640x360: 4.9 levels
 * from the PNG frames on average, against 5.8 fed yuv420p). */
static int webp_rgb(const AVCodec *codec)
{
    return !strncmp(codec->name, "libwebp", 7) && supports_pix_fmt(codec, AV_PIX_FMT_RGB32);
}

/* The encoder's "preset" option, or NULL. */
static const AVOption *preset_option(const AVCodec *codec)
{
    return codec->priv_class
               ? av_opt_find((void *)&codec->priv_class, "preset", NULL, 0, AV_OPT_SEARCH_FAKE_OBJ)
               : NULL;
}

/* Whether the preset is a number to the encoder (libsvtav1's -1 to 13; libwebp's -1 to 5,
 * named none, default, picture, photo, ...), not a name. */
static int preset_is_number(const AVOption *o)
{
    return o && (o->type == AV_OPT_TYPE_INT || o->type == AV_OPT_TYPE_INT64);
}

/* The named value after c (NULL: the first) of a number preset's option o, or NULL. */
static const AVOption *next_preset_name(const AVCodec *codec, const AVOption *o, const AVOption *c)
{
    while (o->unit && (c = av_opt_next(&codec->priv_class, c)))
        if (c->type == AV_OPT_TYPE_CONST && c->unit && !strcmp(c->unit, o->unit))
            return c;
    return NULL;
}

/* A number preset as the encoder reads it: one of its named values ("photo" is libwebp's
 * 2), or decimal digits with an optional sign ("4", "04" and "+4" are 4), within the
 * option's range. FFmpeg would also evaluate "2*2" and round "4.5" to 4; rockpool takes
 * the whole number written, so that --job-id compares the value the encoder gets.
 * codec: whose option o is. 0 and *n, or -1. */
static int preset_number(const AVCodec *codec, const AVOption *o, const char *text, long long *n)
{
    const char *p = text + (text[0] == '+' || text[0] == '-');
    const AVOption *c = NULL;

    while ((c = next_preset_name(codec, o, c)))
        if (!strcmp(c->name, text)) {
            *n = c->default_val.i64;
            return 0;
        }
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 12)
        return -1;
    *n = strtoll(text, NULL, 10);
    return *n < o->min || *n > o->max ? -1 : 0;
}

/* x264 prints its own message to stderr on an unknown preset, so rockpool checks the name
 * first (x264's x264_preset_names, unchanged since 2010); a number preset is checked as
 * preset_number reads it. Encoders without a "preset" option refuse one. */
static int check_preset(const AVCodec *codec, const char *preset, rp_error *err)
{
    static const char x264_presets[] =
        ",ultrafast,superfast,veryfast,faster,fast,medium,slow,slower,veryslow,placebo,";
    const AVOption *o = preset_option(codec);
    char key[64];
    long long n;

    if (!o) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "encoder %s has no presets (got %s %s)",
                            codec->name, PRESET, preset);
    }
    if (preset_is_number(o) && preset_number(codec, o, preset, &n)) {
        char names[256] = "";
        size_t len = 0;
        for (const AVOption *c = NULL; (c = next_preset_name(codec, o, c)) && len < sizeof names;)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    len ? ", " : ", or their names: ", c->name);
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s rejects %s %s (its presets are the whole numbers %.0f "
                            "to %.0f%s)",
                            codec->name, PRESET, preset, o->min, o->max, names);
    }
    snprintf(key, sizeof(key), ",%s,", preset);
    if (!strncmp(codec->name, "libx264", 7) &&
        (strlen(preset) > 20 || strchr(preset, ',') || !strstr(x264_presets, key))) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "unknown %s preset '%s' (one of %s)",
                            codec->name, preset,
                            "ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, "
                            "veryslow, placebo");
    }
    return RP_OK;
}

/* Encoders thread over every CPU by default; past this many, they are given this many, so
 * that their memory (frames held per thread) stays within what rp_encoder_memory counts. */
#define ENCODER_MAX_THREADS 16

static int encoder_cpus(void)
{
    int n = rp_online_cpus();
    return n > ENCODER_MAX_THREADS ? ENCODER_MAX_THREADS : n;
}

/* What an encoder holds while it runs (frames in its lookahead and references, analysis,
 * per-thread frames): bytes a pixel at its default preset, bytes a pixel more for each CPU
 * it threads over, and MiB whatever the size. From peak resident memory past the
 * lookahead (60-110 frames), at 640x360 and 1920x1080 on 1 and 2 CPUs, less a PNG run's,
 * plus 15-25%. The last row is for encoders not measured, sized above the hungriest. */
typedef struct encoder_memory {
    const char *name; /* prefix of the encoder's name; "" matches any */
    int px, px_cpu, mib;
} encoder_memory;

static const encoder_memory encoder_memories[] = {
    {"libx264", 140, 45, 24},    {"libx265", 155, 25, 52},
    {"libvpx-vp9", 100, 12, 48}, {"libvpx", 45, 12, 16},
    {"ffv1", 150, 8, 8},         {"mpeg4", 26, 8, 10},
    {"libopenh264", 60, 12, 16}, {"prores", 60, 25, 8},
    {"qtrle", 30, 4, 8},         {"gif", 8, 0, 4},
    {"libwebp", 14, 0, 8},       {"libsvtav1", 180, 30, 64},
    {"", 260, 40, 96},
};

/* x264's and x265's slower presets hold more frames (lookahead, references, B-frames):
 * percent of the default preset's bytes a pixel, measured at 640x360. */
static int preset_percent(const char *encoder, const char *preset)
{
    static const struct {
        const char *preset;
        int x264, x265;
    } scale[] = {{"ultrafast", 40, 100}, {"superfast", 60, 100}, {"veryfast", 100, 100},
                 {"faster", 100, 100},   {"fast", 100, 100},     {"medium", 100, 100},
                 {"slow", 160, 190},     {"slower", 190, 220},   {"veryslow", 260, 220},
                 {"placebo", 460, 270}};
    int x264 = !strncmp(encoder, "libx264", 7);

    if (!preset || (!x264 && strcmp(encoder, "libx265")))
        return 100;
    for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
        if (!strcmp(preset, scale[i].preset))
            return x264 ? scale[i].x264 : scale[i].x265;
    return 100;
}

double rp_encoder_memory(const rp_encoder_choice *choice, const rp_output_spec *opts)
{
    const encoder_memory *m = encoder_memories;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(choice->pix_fmt);
    double px = (double)opts->width * opts->height, per_px;
    int bits = desc ? av_get_bits_per_pixel(desc) : 32;

    while (*m->name && strncmp(choice->codec->name, m->name, strlen(m->name)))
        m++;
    per_px = m->px * preset_percent(choice->codec->name, opts->encoder_preset) / 100.0 +
             (double)m->px_cpu * encoder_cpus();
    /* a deeper --pix-fmt than 4:2:0 8-bit makes every frame held larger (the rows were
     * measured at the default formats, ProRes with alpha at its yuva444p10) */
    if (opts->pix_fmt && bits > 12 && strncmp(choice->codec->name, "prores", 6))
        per_px *= bits / 12.0;
    /* libwebp's animation encoder keeps every encoded frame until its end, and FFmpeg
     * then the assembled file and its packet: resident memory grew by 0.31 bytes a pixel
     * and frame (300 frames of examples/photo-rain.scene over elias.png at 640x360: 44
     * MiB for 1 frame, 64 MiB for 300, a 7.2 MB file), counted as 0.4 */
    if (!strcmp(choice->codec->name, "libwebp_anim") && opts->frame_count > 1)
        per_px += 0.4 * (double)opts->frame_count;
    /* VP8/VP9 with alpha run a second encoder for the alpha plane */
    if (!strncmp(choice->codec->name, "libvpx", 6) && opts->pixfmt == RP_PIX_RGBA)
        return 2 * (px * per_px + m->mib * 1048576.0);
    return px * per_px + m->mib * 1048576.0;
}

/* The video encoder: -c NAME, which the container must be able to hold (libavformat says
 * so, or the codec is the container's own when libavformat cannot say), else the first
 * installed of the container's defaults; a fallback from the preferred one is described in
 * warning (when given). RP_ERR_INVALID for a bad -c, RP_ERR_UNSUPPORTED when no default
 * encoder is installed. */
static int pick_encoder(const rp_output_spec *opts, const AVOutputFormat *ofmt,
                        const AVCodec **pcodec, char *warning, size_t wlen, rp_error *err)
{
    const int alpha = opts->pixfmt == RP_PIX_RGBA;
    const char *const *defaults = opts->format == RP_FORMAT_WEBM           ? webm_encoders
                                  : opts->format == RP_FORMAT_GIF          ? gif_encoders
                                  : opts->format == RP_FORMAT_WEBP         ? webp_encoders
                                  : alpha && opts->format == RP_FORMAT_MOV ? mov_alpha_encoders
                                                                           : h264_encoders;
    const AVCodec *codec = NULL;

    if (opts->codec) {
        codec = avcodec_find_encoder_by_name(opts->codec);
        if (!codec || codec->type != AVMEDIA_TYPE_VIDEO) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "unknown video encoder '%s' (see ffmpeg -encoders)", opts->codec);
        }
        /* libavformat says no, or cannot say: the gif and webp muxers list no codecs; they
         * take their own alone and refuse any other only when the header is written (a
         * run's "Invalid argument", after the render has begun) */
        /* Matroska also holds what has a Video for Windows tag (V_MS/VFW/FOURCC: utvideo,
         * huffyuv, ...), as FFmpeg's muxer writes them; libavformat says so only below
         * normal compliance */
        int holds = avformat_query_codec(ofmt, codec->id,
                                         opts->format == RP_FORMAT_MKV ? FF_COMPLIANCE_UNOFFICIAL
                                                                       : FF_COMPLIANCE_NORMAL);
        if (holds == 0 || (holds < 0 && codec->id != ofmt->video_codec)) {
            return rp_error_set(
                err, RP_ERR_INVALID, 1, "the %s container cannot hold %s video (encoder %s)",
                rp_output_format_name(opts->format), codec_label(codec), codec->name);
        }
    } else {
        for (int i = 0; defaults[i] && !codec; i++)
            codec = avcodec_find_encoder_by_name(defaults[i]);
        if (!codec) {
            return rp_error_set(err, RP_ERR_UNSUPPORTED, 0,
                                "no %s encoder is installed (tried %s%s%s); install one or use -c",
                                opts->format == RP_FORMAT_WEBM   ? "VP9/VP8"
                                : defaults == mov_alpha_encoders ? "ProRes/QuickTime Animation"
                                : defaults == webp_encoders ? "WebP (FFmpeg built with libwebp)"
                                : defaults == gif_encoders  ? "GIF"
                                                            : "H.264/MPEG-4",
                                defaults[0], defaults[1] ? ", " : "",
                                defaults[1] ? defaults[1] : "");
        }
        if (strcmp(codec->name, defaults[0]) != 0 && warning)
            snprintf(warning, wlen, "encoder %s is not available; using %s (%s) instead",
                     defaults[0], codec->name, codec_label(codec));
    }
    *pcodec = codec;
    return RP_OK;
}

/* Whether a YUV or grey format is written full range: the yuvj formats are by definition
 * (JPEG's), and grey as FFmpeg writes and reads it (ffmpeg tags it full range, and its
 * decoders and libswscale read 10- and 16-bit grey as full range whatever the tag says);
 * every other one limited, as rp_yuv*_rows_m write them. */
static int full_range(enum AVPixelFormat fmt)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    return fmt == AV_PIX_FMT_YUVJ420P || fmt == AV_PIX_FMT_YUVJ422P || fmt == AV_PIX_FMT_YUVJ444P ||
           fmt == AV_PIX_FMT_YUVJ440P || fmt == AV_PIX_FMT_YUVJ411P ||
           (d && d->nb_components <= 2 &&
            !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)));
}

/* Chroma subsampling halves the chroma planes, so a subsampled pixel format needs even
 * sides: RP_ERR_INVALID naming the nearest even size (and yuv444p when the encoder has it).
 * pix_name is the format as the user spelled it, for the message. */
static int check_chroma_size(const AVCodec *codec, enum AVPixelFormat fmt, const char *pix_name,
                             int w, int h, rp_error *err)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(fmt);

    if (((w & 1) && desc->log2_chroma_w) || ((h & 1) && desc->log2_chroma_h)) {
        int ew = w & 1 ? (w > 1 ? w - 1 : 2) : w, eh = h & 1 ? (h > 1 ? h - 1 : 2) : h;
        /* FFV1 damages frames under 3 rows (check_ffv1_rows): 4, not 2, from 3 */
        if (!strcmp(codec->name, "ffv1") && eh < 3)
            eh = 4;
        /* with an alpha plane (--alpha), the full-chroma format must keep it: yuv444p was
         * offered to VP9's yuva420p, and then refused as having no alpha plane */
        int alpha = (desc->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
        /* and a yuvj format's full-range kin: mjpeg lists yuv444p but refuses it ("Non
         * full-range YUV is non-standard") */
        enum AVPixelFormat full = alpha             ? AV_PIX_FMT_YUVA444P
                                  : full_range(fmt) ? AV_PIX_FMT_YUVJ444P
                                                    : AV_PIX_FMT_YUV444P;
        char also[64] = "";
        if (supports_pix_fmt(codec, full))
            snprintf(also, sizeof also, " or %s %s", rp_name("--pix-fmt", "rp_run.out.pix_fmt"),
                     av_get_pix_fmt_name(full));
        else if (webp_rgb(codec)) /* its default, RGB, takes any size */
            snprintf(also, sizeof also, " or no %s", rp_name("--pix-fmt", "rp_run.out.pix_fmt"));

        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s with %s needs an even width and height (got %dx%d): use %s %dx%d%s",
                            codec_label(codec), pix_name, w, h, rp_name("-s", "size"), ew, eh,
                            also);
    }
    return RP_OK;
}

int rp_encoder_even_sides(const rp_encoder_choice *choice, char *what, size_t len)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(choice->pix_fmt);

    if (!desc || (!desc->log2_chroma_w && !desc->log2_chroma_h))
        return 0;
    snprintf(what, len, "%s with %s", codec_label(choice->codec),
             av_get_pix_fmt_name(choice->pix_fmt));
    return 1;
}

/* Whether QuickTime has a tag for raw video of layout fmt (FFmpeg's movenc.c). */
static int mov_raw_ok(enum AVPixelFormat fmt)
{
    static const enum AVPixelFormat ok[] = {
        AV_PIX_FMT_YUYV422,  AV_PIX_FMT_UYVY422,  AV_PIX_FMT_RGB555BE, AV_PIX_FMT_RGB555LE,
        AV_PIX_FMT_RGB565BE, AV_PIX_FMT_RGB565LE, AV_PIX_FMT_RGB24,    AV_PIX_FMT_BGR24,
        AV_PIX_FMT_ARGB,     AV_PIX_FMT_BGRA,     AV_PIX_FMT_RGBA,     AV_PIX_FMT_ABGR,
        AV_PIX_FMT_RGB48BE,  AV_PIX_FMT_GRAY8,    AV_PIX_FMT_GRAY16BE, AV_PIX_FMT_MONOWHITE,
        AV_PIX_FMT_PAL8};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (ok[i] == fmt)
            return 1;
    return 0;
}

/* The pixel format for codec: --pix-fmt, else the encoder's alpha format with --alpha, else
 * yuv420p. It must have an alpha plane exactly when the frames do (but libwebp's own RGB32,
 * see webp_rgb), the encoder must take it and the frame size must suit its subsampling:
 * RP_ERR_INVALID saying what would work. */
/* The pixel format of opaque frames without --pix-fmt: GIF's palette; libwebp's RGB32
 * (webp_rgb); raw video in QuickTime as RGB24, the frames as they are (its yuv420p has no
 * QuickTime tag); for an encoder without yuv420p (prores_ks, qtrle, libx264rgb), as FFmpeg
 * picks it, its format that keeps the most of RGB frames, among those without alpha, but
 * dnxhd's default profile takes 4:2:2 only (the best of its list, gbrp10le, is DNxHR 444's
 * alone); else yuv420p. */
static const char *opaque_pix_name(const rp_output_spec *opts, const AVCodec *codec)
{
    if (opts->format == RP_FORMAT_GIF)
        return "pal8";
    if (webp_rgb(codec))
        return av_get_pix_fmt_name(AV_PIX_FMT_RGB32);
    if (codec->id == AV_CODEC_ID_RAWVIDEO && opts->format == RP_FORMAT_MOV)
        return "rgb24";
    /* JPEG's own full range: FFmpeg's MJPEG and lossless JPEG encoders list yuv420p but
     * refuse its limited range unless told to write a non-standard file */
    if ((codec->id == AV_CODEC_ID_MJPEG || codec->id == AV_CODEC_ID_LJPEG) &&
        supports_pix_fmt(codec, AV_PIX_FMT_YUVJ420P))
        return "yuvj420p";
    if (!codec->pix_fmts || supports_pix_fmt(codec, AV_PIX_FMT_YUV420P))
        return "yuv420p";
    if (codec->id == AV_CODEC_ID_DNXHD)
        return "yuv422p";
    enum AVPixelFormat list[64];
    int n = 0;
    for (const enum AVPixelFormat *p = codec->pix_fmts; *p != AV_PIX_FMT_NONE && n < 63; p++)
        if (!(av_pix_fmt_desc_get(*p)->flags & AV_PIX_FMT_FLAG_ALPHA) && *p != AV_PIX_FMT_PAL8)
            list[n++] = *p;
    list[n] = AV_PIX_FMT_NONE;
    return n ? av_get_pix_fmt_name(
                   avcodec_find_best_pix_fmt_of_list(list, AV_PIX_FMT_RGB24, 0, NULL))
             : "yuv420p";
}

static int pick_pix_fmt(const rp_output_spec *opts, const AVCodec *codec, enum AVPixelFormat *pfmt,
                        rp_error *err)
{
    const int alpha = opts->pixfmt == RP_PIX_RGBA;
    const char *pix_name = opts->pix_fmt ? opts->pix_fmt : opaque_pix_name(opts, codec);
    enum AVPixelFormat fmt;
    int fmt_alpha, ret;

    if (alpha && !opts->pix_fmt) {
        fmt = alpha_pix_fmt(codec);
        if (fmt == AV_PIX_FMT_NONE) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "%s (encoder %s) cannot carry alpha (%s): use " ALPHA_WORKS,
                                codec_label(codec), codec->name, ALPHA, CODEC, CODEC);
        }
        pix_name = av_get_pix_fmt_name(fmt);
    }
    fmt = av_get_pix_fmt(pix_name);
    fmt_alpha = fmt != AV_PIX_FMT_NONE && fmt != AV_PIX_FMT_PAL8 &&
                (av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
    /* (but libwebp's RGB32, its default, which takes opaque frames as alpha 255) */
    if (fmt != AV_PIX_FMT_NONE && fmt_alpha && !alpha &&
        !(webp_rgb(codec) && fmt == AV_PIX_FMT_RGB32)) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %s has an alpha plane, but the frames are opaque: add %s for "
                            "the water's light as a layer with real alpha",
                            PIX_FMT, pix_name, ALPHA);
    }
    if (fmt != AV_PIX_FMT_NONE && !fmt_alpha && alpha) {
        enum AVPixelFormat a = alpha_pix_fmt(codec);
        return rp_error_set(err, RP_ERR_INVALID, 1, "%s %s has no alpha plane for %s%s%s%s",
                            PIX_FMT, pix_name, ALPHA, a != AV_PIX_FMT_NONE ? " (try " : "",
                            a != AV_PIX_FMT_NONE ? av_get_pix_fmt_name(a) : "",
                            a != AV_PIX_FMT_NONE ? ")" : "");
    }
    if (fmt == AV_PIX_FMT_NONE) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "unknown pixel format '%s' (see ffmpeg -pix_fmts)", pix_name);
    }
    /* Raw video in QuickTime: only the layouts it has a tag for (FFmpeg's mov muxer writes
     * any other with a warning, as a file nothing decodes). */
    if (codec->id == AV_CODEC_ID_RAWVIDEO && opts->format == RP_FORMAT_MOV && !mov_raw_ok(fmt))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "the mov container cannot hold rawvideo as %s (nothing would decode "
                            "it): use %s %s, uyvy422 or yuyv422, or an .mkv",
                            pix_name, PIX_FMT, alpha ? "argb" : "rgb24");
    if (!supports_pix_fmt(codec, fmt)) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "encoder %s cannot encode pixel format %s%s",
                            codec->name, pix_name,
                            supports_pix_fmt(codec, AV_PIX_FMT_YUV420P) ? " (try yuv420p)" : "");
    }
    ret = check_chroma_size(codec, fmt, pix_name, opts->width, opts->height, err);
    if (ret)
        return ret;
    *pfmt = fmt;
    return RP_OK;
}

/* FFV1 (FFmpeg 5.1) cuts a frame into slices at least one chroma column wide, and with no
 * slice count asked for, into at least 2 across once the frame has two chroma rows: a
 * frame one chroma column wide (2 pixels in 4:2:0) had none that fit, and FFmpeg's refusal
 * named its -slices option. Asked for one slice, it takes one up to 352x288 (past that it
 * wants 2 rows of slices, and then 2 across). 1: ask for one slice; 0: as FFmpeg picks. */
static int ffv1_one_slice(const AVCodec *codec, enum AVPixelFormat fmt, int w, int h)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    return !strcmp(codec->name, "ffv1") && d && AV_CEIL_RSHIFT(w, d->log2_chroma_w) == 1 &&
           AV_CEIL_RSHIFT(h, d->log2_chroma_h) > 1;
}

/* What ffv1_one_slice cannot help: a frame one chroma column wide past 288 rows. */
static int check_ffv1_size(const AVCodec *codec, enum AVPixelFormat fmt, const char *pix_name,
                           int w, int h, rp_error *err)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);

    /* (not --pix-fmt yuv444p at that width: check_ffv1_columns refuses it) */
    if (!ffv1_one_slice(codec, fmt, w, h) || h <= 288)
        return RP_OK;
    return rp_error_set(err, RP_ERR_INVALID, 1,
                        "encoder ffv1 cannot encode %dx%d %s: a frame %d wide is one slice, which "
                        "FFV1 takes up to 288 high; use %s %dx288 or a width of %d or more",
                        w, h, pix_name, w, rp_name("-s", "size"), w, (1 << d->log2_chroma_w) + 2);
}

/* The same encoder damages frames under 3 columns in a pixel format without subsampled
 * chroma (2x100 gray, yuv444p, bgr0 decode to other pixels, with no error from either
 * side); one chroma column of 4:2:0 or 4:2:2 is right (ffv1_one_slice). Refused. */
static int check_ffv1_columns(const AVCodec *codec, enum AVPixelFormat fmt, const char *pix_name,
                              int w, int h, rp_error *err)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);

    if (strcmp(codec->name, "ffv1") || w >= 3 || d->log2_chroma_w)
        return RP_OK;
    return rp_error_set(err, RP_ERR_INVALID, 1,
                        "encoder ffv1 cannot encode %dx%d %s: FFmpeg's FFV1 encoder damages "
                        "frames under 3 columns without subsampled chroma; use a width of 3 or "
                        "more, or another codec, such as a PNG pattern like f_%%05d.png",
                        w, h, pix_name);
}

/* FFmpeg 5.1's FFV1 encoder at version 3 (which rockpool writes for its slice CRCs; see
 * configure) damages frames under 3 rows, in every pixel format: at 640x2 yuv444p row 0
 * decoded as zeros, with no error from either side. Refused, the size of the advice taking
 * every pixel format (even sides, for 4:2:0). */
static int check_ffv1_rows(const AVCodec *codec, int w, int h, rp_error *err)
{
    if (strcmp(codec->name, "ffv1") || h >= 3)
        return RP_OK;
    return rp_error_set(err, RP_ERR_INVALID, 1,
                        "encoder ffv1 cannot encode %dx%d: FFmpeg's FFV1 encoder damages frames "
                        "under 3 rows; use a height of 3 or more (%s %dx4), or another codec, "
                        "such as a PNG pattern like f_%%05d.png or %s libx264 %s 0",
                        w, h, rp_name("-s", "size"), w + (w & 1), CODEC, CRF);
}

static int check_rate(const AVCodec *codec, const rp_output_spec *opts, rp_error *err);

/* The choice for validation and for open (see encode.h): the encoder, its
 * --encoder-preset, the pixel format, FFV1's slices at that size, then --crf and -b. */
int rp_encoder_pick(const rp_output_spec *opts, const AVOutputFormat *ofmt,
                    rp_encoder_choice *choice, char *warning, size_t wlen, rp_error *err)
{
    const AVCodec *codec = NULL;
    enum AVPixelFormat fmt = AV_PIX_FMT_NONE;
    int ret;

    if (warning && wlen)
        warning[0] = '\0';
    ret = pick_encoder(opts, ofmt, &codec, warning, wlen, err);
    if (ret)
        return ret;
    if (opts->encoder_preset) {
        ret = check_preset(codec, opts->encoder_preset, err);
        if (ret)
            return ret;
    }
    ret = check_ffv1_rows(codec, opts->width, opts->height, err);
    if (ret)
        return ret;
    ret = pick_pix_fmt(opts, codec, &fmt, err);
    if (ret)
        return ret;
    ret = check_ffv1_size(codec, fmt, av_get_pix_fmt_name(fmt), opts->width, opts->height, err);
    if (ret)
        return ret;
    ret = check_ffv1_columns(codec, fmt, av_get_pix_fmt_name(fmt), opts->width, opts->height, err);
    if (ret)
        return ret;
    ret = check_rate(codec, opts, err);
    if (ret)
        return ret;
    choice->codec = codec;
    choice->pix_fmt = fmt;
    return RP_OK;
}

/* HD and larger (1280 wide or 720 high and up) is converted and tagged BT.709, as
 * players and editors assume for HD; smaller frames BT.601 (SMPTE 170M). WebP is BT.601 at
 * every size: its decoders read it so, whatever a tag says (an asked-for yuv420p at 1280x720
 * converted with BT.709 decoded 7 levels too red). */
static int is_hd(const rp_output_spec *opts)
{
    return opts->format != RP_FORMAT_WEBP && (opts->width >= 1280 || opts->height >= 720);
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

/* GIF is lossless over its palette; WebP keeps libwebp's own quality (75). */
static int keeps_own_quality(const AVCodec *codec)
{
    return codec->id == AV_CODEC_ID_GIF || !strncmp(codec->name, "libwebp", 7);
}

/* Whether codec has a constant rate factor (a "crf" option). */
static int has_crf(const AVCodec *codec)
{
    return codec->priv_class &&
           av_opt_find((void *)&codec->priv_class, "crf", NULL, 0, AV_OPT_SEARCH_FAKE_OBJ);
}

/* The rate control an encoder gets for opts, the refusals aside (check_rate makes them):
 * a bit rate (> 0), a CRF (>= 0) where the encoder has a crf option, else a fixed
 * quantiser (> 0), or none of them (GIF and WebP keep their own; opts->crf < 0). */
typedef struct rate_choice {
    int64_t bitrate;
    int crf, qscale;
} rate_choice;

/* vc2 rates by bit rate alone: given none (0) it refuses every frame, so without -b it
 * keeps FFmpeg's default for it (600 Mb/s in FFmpeg 5.1, as the ffmpeg program gives). */
static int needs_bitrate(const AVCodec *codec)
{
    return !strcmp(codec->name, "vc2");
}

/* The bit rate FFmpeg gives an encoder's context by default (its own defaults, else 0). */
static int64_t own_bitrate(const AVCodec *codec)
{
    AVCodecContext *c = avcodec_alloc_context3(codec);
    int64_t b = c ? c->bit_rate : 0;
    avcodec_free_context(&c);
    return b;
}

static rate_choice choose_rate(const AVCodec *codec, const rp_output_spec *opts)
{
    rate_choice r = {0, -1, 0};
    if (keeps_own_quality(codec))
        return r;
    if (opts->bitrate > 0 || needs_bitrate(codec)) {
        r.bitrate = opts->bitrate > 0 ? opts->bitrate : own_bitrate(codec);
        return r;
    }
    if (opts->crf < 0)
        return r;
    int crf = opts->crf_given ? opts->crf : default_crf(codec, opts->crf);
    if (has_crf(codec))
        r.crf = crf;
    else
        r.qscale = rp_clampi((crf + 3) / 6, 1, 31);
    return r;
}

/* Encoders that take no bit rate: FFmpeg opens them with one and encodes the same packets
 * (a rate of their own, such as ProRes's profile or DV's fixed rate, or a fixed
 * quantiser). Found by encoding 60 frames at 320x240 of a photo through rockpool, and
 * FFmpeg's testsrc2 and mandelbrot through ffmpeg, at -b 50k and -b 20M (FFmpeg 5.1).
 * Not dnxhd (its bit rate picks the DNxHD profile), snow nor the MPEG family. */
static int ignores_bitrate(const AVCodec *codec)
{
    static const char *const names[] = {
        "a64multi", "a64multi5", "asv1",      "asv2",     "cfhd",   "cinepak",     "cljr",
        "dvvideo",  "exr",       "hap",       "jpeg2000", "jpegls", "libopenjpeg", "msvideo1",
        "prores",   "prores_aw", "prores_ks", "rpza",     "smc",    "svq1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(codec->name, names[i]))
            return 1;
    return 0;
}

/* The refusals of rate control, before any encoder is opened: a --crf or -b the encoder
 * does not take (GIF and WebP keep their own quality, a lossless encoder has no rate, some
 * encoders ignore a bit rate, most have no CRF), both at once, or a CRF past its range.
 * Options are named "--crf N" and "-b/--bitrate N", which the CLI says as typed. */
static int check_rate(const AVCodec *codec, const rp_output_spec *opts, rp_error *err)
{
    const AVCodecDescriptor *desc = avcodec_descriptor_get(codec->id);
    const int lossless = desc && (desc->props & AV_CODEC_PROP_LOSSLESS) &&
                         !(desc->props & AV_CODEC_PROP_LOSSY) && !keeps_own_quality(codec);
    const char *why = keeps_own_quality(codec)
                          ? (codec->id == AV_CODEC_ID_GIF ? "GIF is lossless over its palette"
                                                          : "it keeps libwebp's own quality")
                      : lossless               ? "it is lossless"
                      : ignores_bitrate(codec) ? "it sets its own rate"
                                               : NULL;

    if (why && opts->crf_given)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s has no constant rate factor (%s %d): %s, and takes no bit "
                            "rate either",
                            codec->name, CRF, opts->crf, why);
    if (why && opts->bitrate > 0 && lossless)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s is lossless: it takes no bit rate (%s %" PRId64 ")",
                            codec->name, BITRATE, opts->bitrate);
    if (why && opts->bitrate > 0)
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s takes no bit rate (%s %" PRId64 "): %s, and takes no %s "
                            "either",
                            codec->name, BITRATE, opts->bitrate, why, CRF);
    if (opts->bitrate > 0 && opts->crf_given) {
        /* one of the two would be dropped without a word (the bit rate won, while FFmpeg's
         * libx264 lets the crf win) */
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "%s %d and %s %" PRId64 " both set the quality of encoder %s: give one",
                            CRF, opts->crf, BITRATE, opts->bitrate, codec->name);
    }
    if (opts->crf_given && !has_crf(codec))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s has no constant rate factor (%s %d): use %s, or an "
                            "encoder with one (libx264, libx265, libvpx-vp9, libaom-av1)",
                            codec->name, CRF, opts->crf, BITRATE);
    rate_choice rc = choose_rate(codec, opts);
    if (rc.crf > crf_max(codec))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "encoder %s rejects %s %d (its range is 0 to %d)", codec->name, CRF,
                            opts->crf, crf_max(codec));
    return RP_OK;
}

/* Rate control, for a choice rp_encoder_pick made (its check_rate has refused what does
 * not apply): CRF when the encoder has it, unless a bitrate is given; without a crf option
 * the default (crf 23, not asked for) is a fixed quantiser of about the same quality
 * (MPEG-4 part 2: qscale ~ crf/6, 23 -> 4). */
static int set_rate_control(AVCodecContext *enc, const AVCodec *codec, const rp_output_spec *opts,
                            rp_error *err)
{
    char value[32];
    int ret;
    rate_choice rc = choose_rate(codec, opts);

    if (rc.bitrate > 0) {
        enc->bit_rate = rc.bitrate;
        return RP_OK;
    }
    if (rc.crf < 0 && !rc.qscale)
        return RP_OK;
    enc->bit_rate = 0;
    if (rc.crf >= 0) {
        snprintf(value, sizeof(value), "%d", rc.crf);
        ret = av_opt_set(enc, "crf", value, AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];

            av_strerror(ret, msg, sizeof msg);
            return rp_error_set(err, RP_ERR_INVALID, 1, "encoder %s rejects %s %d: %s", codec->name,
                                CRF, opts->crf, msg);
        }
    } else {
        enc->flags |= AV_CODEC_FLAG_QSCALE;
        enc->global_quality = FF_QP2LAMBDA * rc.qscale;
    }
    return RP_OK;
}

/* The preset an encoder runs when none is given: FFmpeg's default for its "preset" option
 * (libx264's "medium", libsvtav1's -1), or the encoder's own where FFmpeg leaves it unset
 * (x265's x265_param_default is its medium preset); "" where neither is known. */
static void preset_text(const AVCodec *codec, const char *given, char *buf, size_t len)
{
    const AVOption *o = preset_option(codec);
    long long n;

    if (preset_is_number(o)) {
        if (!given || preset_number(codec, o, given, &n))
            n = o->default_val.i64;
        snprintf(buf, len, "%lld", n);
    } else if (given)
        snprintf(buf, len, "%s", given);
    else if (o && o->type == AV_OPT_TYPE_STRING && o->default_val.str)
        snprintf(buf, len, "%s", o->default_val.str);
    else
        snprintf(buf, len, "%s", !strcmp(codec->name, "libx265") ? "medium" : "");
}

void rp_encoder_settings(const rp_encoder_choice *choice, const rp_output_spec *opts,
                         rp_output_settings *st)
{
    const AVCodec *codec = choice->codec;

    snprintf(st->codec, sizeof st->codec, "%s", codec->name);
    snprintf(st->pix_fmt, sizeof st->pix_fmt, "%s", av_get_pix_fmt_name(choice->pix_fmt));
    preset_text(codec, opts->encoder_preset, st->encoder_preset, sizeof st->encoder_preset);
    /* set_rate_control's choice, its refusals aside */
    rate_choice rc = choose_rate(codec, opts);
    st->crf = rc.crf;
    st->qscale = rc.qscale;
    st->bitrate = rc.bitrate;
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
static int set_encoder_logging(AVCodecContext *enc, const AVCodec *codec, int quiet, rp_error *err)
{
    if (!strcmp(codec->name, "libx265")) {
        int ret = av_opt_set(enc, "x265-params", quiet ? "log-level=none" : "log-level=error",
                             AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            return rp_error_set(err, RP_ERR_UNSUPPORTED, 0, "encoder %s rejects x265-params",
                                codec->name);
        }
    } else if (!strcmp(codec->name, "libsvtav1")) {
        svt_log_level(quiet ? "0" : "1");
    }
    return RP_OK;
}

/* Tell enc everything rockpool decides: size, rate, pixel format, colours, rate control,
 * preset, the encoder's own logging. An option the encoder lacks or refuses is
 * RP_ERR_INVALID naming the encoder and the option. trial: a throwaway context of
 * rp_encoder_trial (quiet always). */
static int configure(AVCodecContext *enc, const AVCodec *codec, enum AVPixelFormat fmt,
                     const rp_output_spec *opts, int global_header, int trial, rp_error *err)
{
    int ret;

    enc->codec_id = codec->id;
    enc->width = opts->width;
    enc->height = opts->height;
    enc->time_base = (AVRational){opts->fps_den > 0 ? opts->fps_den : 1, opts->fps};
    enc->framerate = (AVRational){opts->fps, opts->fps_den > 0 ? opts->fps_den : 1};
    enc->sample_aspect_ratio = (AVRational){1, 1};
    enc->pix_fmt = fmt;
    /* the CPUs rp_encoder_memory counts: auto where libavutil counts as many (it counts the
     * affinity mask, not a cgroup's CPU quota), else that many (a quota, or past
     * ENCODER_MAX_THREADS); the decoded frames do not depend on it */
    int cpus = encoder_cpus();
    enc->thread_count = cpus == av_cpu_count() ? 0 : cpus;
    if (!(av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_RGB)) {
        /* What rp_yuv*_rows_m and the libswscale converter produce (is_hd). */
        int hd = is_hd(opts);
        enc->color_range = full_range(fmt) ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
        enc->colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
        enc->color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M;
        enc->color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M;
    }
    if (global_header)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = set_rate_control(enc, codec, opts, err);
    if (ret)
        return ret;
    if (!strcmp(codec->name, "ffv1")) {
        /* FFV1 version 3 with a CRC in every slice: a decoder then reports bytes damaged in
         * storage or transfer (rockpool-join refuses such a chunk), which version 1 decodes
         * silently into other pixels. The same frames; the slices are fixed by the size,
         * not the thread count. */
        enc->level = 3;
        if (ffv1_one_slice(codec, fmt, opts->width, opts->height))
            enc->slices = 1;
        if (av_opt_set_int(enc->priv_data, "slicecrc", 1, 0) < 0) {
            return rp_error_set(err, RP_ERR_UNSUPPORTED, 0, "encoder %s rejects slicecrc",
                                codec->name);
        }
    }
    if (opts->encoder_preset) {
        const char *preset = opts->encoder_preset;
        char number[32]; /* a number preset as check_preset read it ("04" is 4) */
        if (preset_is_number(preset_option(codec))) {
            preset_text(codec, preset, number, sizeof number);
            preset = number;
        }
        ret = av_opt_set(enc, "preset", preset, AV_OPT_SEARCH_CHILDREN);
        if (ret < 0) {
            return rp_error_set(err, RP_ERR_INVALID, 1, "encoder %s rejects %s %s", codec->name,
                                PRESET, opts->encoder_preset);
        }
    }
    return set_encoder_logging(enc, codec, trial || opts->quiet, err);
}

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
        for (size_t i = 0; i < n; i++) /* a reason over two lines (h261's sizes) is one */
            if (line[i] == '\n' || line[i] == '\r')
                line[i] = ' ';
        if (n)
            snprintf(trial_log, trial_log_len, "%s", line);
        return;
    }
    av_log_default_callback(avcl, level, fmt, vl);
}

/* A blank frame (every byte 0) of the encoder's size and pixel format at pts 0, or NULL
 * when memory is short. */
static AVFrame *blank_frame(const AVCodecContext *enc)
{
    AVFrame *f = av_frame_alloc();

    if (f) {
        f->format = enc->pix_fmt;
        f->width = enc->width;
        f->height = enc->height;
        if (av_frame_get_buffer(f, 0) < 0) {
            av_frame_free(&f);
            return NULL;
        }
        for (int i = 0; i < AV_NUM_DATA_POINTERS && f->buf[i]; i++)
            memset(f->buf[i]->data, 0, f->buf[i]->size);
        f->pts = 0;
    }
    return f;
}

/* The end of the stream asked for (first, whatever memory is left: SVT-AV1 waits for it
 * when closed) and every packet up to it dropped: 0, or the error. */
static int drain(AVCodecContext *enc)
{
    int ret = avcodec_send_frame(enc, NULL);
    AVPacket *pkt = ret >= 0 ? av_packet_alloc() : NULL;

    if (ret >= 0 && !pkt)
        ret = AVERROR(ENOMEM);
    while (ret >= 0 && (ret = avcodec_receive_packet(enc, pkt)) >= 0)
        av_packet_unref(pkt);
    av_packet_free(&pkt);
    return ret == AVERROR_EOF ? 0 : ret;
}

/* FFmpeg's log, while an encoder is tried, goes to reason (its first error, not printed). */
static void log_to(char *reason, size_t len)
{
    reason[0] = '\0';
    trial_log = reason;
    trial_log_len = len;
    av_log_set_callback(trial_log_cb);
}

static void log_back(void)
{
    av_log_set_callback(av_log_default_callback);
    trial_log = NULL;
}

/* End the stream before closing libsvtav1: SVT-AV1 1.4's svt_av1_enc_deinit waits for the
 * end-of-stream packet, forever if none was asked for, and a stream of no frames never
 * gives one, so a blank frame goes first when none was sent. Other encoders close as
 * they are. */
static void svt_drain(AVCodecContext *enc, int64_t frames_sent)
{
    if (!enc || !avcodec_is_open(enc) || strcmp(enc->codec->name, "libsvtav1") != 0)
        return;
    if (!frames_sent) {
        AVFrame *f = blank_frame(enc);

        if (f)
            avcodec_send_frame(enc, f);
        av_frame_free(&f);
    }
    drain(enc);
}

/* avcodec_open2 with the encoder's first logged error kept in reason (not printed). */
static int open_logged(AVCodecContext *enc, const AVCodec *codec, char *reason, size_t len)
{
    log_to(reason, len);
    int ret = avcodec_open2(enc, codec, NULL);
    log_back();
    return ret;
}

/* vc2's trial frame: one blank frame and the end of the stream, with its first logged error
 * kept in reason. vc2 refuses a bit rate too low for the frame's slices only there (EINVAL,
 * nothing logged; 2M at 1920x1080 and 30 fps, 20k at 64x48). Its frames stand alone, so
 * the first is as good a test as any. Other encoders refuse what they refuse at open; a
 * frame of each would cost seconds at 4K for some (jpeg2000). Returns 0 or the error. */
static int trial_frame(AVCodecContext *enc, char *reason, size_t len)
{
    if (!needs_bitrate(enc->codec))
        return 0;
    AVFrame *f = blank_frame(enc);
    if (!f)
        return AVERROR(ENOMEM);
    log_to(reason, len);
    int ret = avcodec_send_frame(enc, f);
    if (ret >= 0)
        ret = drain(enc);
    log_back();
    av_frame_free(&f);
    return ret;
}

/* Whether an encoder that failed to open ran out of memory: ENOMEM, EAGAIN (its threads
 * could not start), or a logged reason that says so ("malloc of size N failed", "Memory
 * allocation error"); then err says so, and the status is RP_ERR_NOMEM (a runtime
 * failure, not a refusal of the settings). */
static int open_oom(int ret, const char *reason, const AVCodec *codec, rp_error *err)
{
    int says = strstr(reason, "alloc") || strstr(reason, "Alloc") || strstr(reason, "memory");
    if (ret != AVERROR(ENOMEM) && ret != AVERROR(EAGAIN) && !says) {
        /* x264 prints "malloc of size N failed" itself and FFmpeg says only "Generic error
         * in an external library", libvpx's alpha encoder "Failed to initialize alpha
         * encoder: Success": with 16 MiB not to be had either, that was memory. */
        if (!rp_memory_short((size_t)16 << 20))
            return 0;
    }
    rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory opening encoder %s%s%s%s: %s", codec->name,
                 says ? " (" : "", says ? reason : "", says ? ")" : "", rp_oom_hint());
    return 1;
}

/* The trial open (see encode.h): one thread, so it costs little memory, and quiet, with
 * the encoder's first logged error kept for the message. */
int rp_encoder_trial(const rp_encoder_choice *choice, const rp_output_spec *opts, int global_header,
                     AVCodecParameters *par, rp_error *err)
{
    const AVCodec *codec = choice->codec;
    enum AVPixelFormat fmt = choice->pix_fmt;
    AVCodecContext *enc = avcodec_alloc_context3(codec);
    char reason[256] = "";
    int ret;

    if (!enc) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory setting up %s", codec->name);
    }
    ret = configure(enc, codec, fmt, opts, global_header, 1, err);
    if (ret == RP_OK) {
        enc->thread_count = 1;
        ret = open_logged(enc, codec, reason, sizeof reason);
        int framed = 0; /* the error is the trial frame's, not the open's */
        if (ret >= 0 && (ret = trial_frame(enc, reason, sizeof reason)) < 0)
            framed = 1;
        if (ret < 0 && open_oom(ret, reason, codec, err)) {
            ret = RP_ERR_NOMEM;
        } else if (ret < 0 && framed && opts->bitrate > 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];

            av_strerror(ret, msg, sizeof msg);
            ret = rp_error_set(err, RP_ERR_INVALID, 1,
                               "encoder %s refuses to encode a %dx%d frame at %s %" PRId64
                               ": %s%s%s (is the bit rate too low for the frame?)",
                               codec->name, opts->width, opts->height, BITRATE, opts->bitrate,
                               reason[0] ? reason : msg, reason[0] ? " - " : "",
                               reason[0] ? msg : "");
        } else if (ret < 0) {
            char msg[AV_ERROR_MAX_STRING_SIZE];

            av_strerror(ret, msg, sizeof msg);
            ret = rp_error_set(
                err, RP_ERR_INVALID, 1, "encoder %s refuses %dx%d %s at %d/%d fps%s%s%s: %s%s%s",
                codec->name, opts->width, opts->height, av_get_pix_fmt_name(fmt), opts->fps,
                opts->fps_den > 0 ? opts->fps_den : 1, opts->encoder_preset ? " with preset '" : "",
                opts->encoder_preset ? opts->encoder_preset : "", opts->encoder_preset ? "'" : "",
                reason[0] ? reason : msg, reason[0] ? " - " : "", reason[0] ? msg : "");
        } else {
            ret =
                par && avcodec_parameters_from_context(par, enc) < 0
                    ? rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory setting up %s", codec->name)
                    : RP_OK;
            svt_drain(enc, 0);
        }
    }
    avcodec_free_context(&enc);
    return ret;
}

/* libswscale, with its spare row, for what yuv.h does not convert: RGBA frames and pixel
 * formats other than yuv420p and yuv444p. Other pixel formats go through libswscale with
 * the ffmpeg program's default (bicubic, its SIMD paths): the frames that decide pixels are
 * the RGB ones (hashed by --hash and framemd5); encoded video is not byte-reproducible
 * across encoder thread counts anyway. RGBA frames (--alpha) always do: premultiplied
 * colour, converted as is (the decoder's RGB is premultiplied again). pal8 needs none
 * (rp_encoder_convert maps to the palette), but has no alpha: RP_ERR_INVALID for RGBA frames. */
static int open_converter(rp_encoder *e, const AVCodec *codec, enum AVPixelFormat fmt,
                          rp_error *err)
{
    const rp_output_spec *opts = e->opts;
    enum AVPixelFormat in = opts->pixfmt == RP_PIX_RGBA ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24;

    if (opts->pixfmt != RP_PIX_RGBA && (fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUV444P))
        return RP_OK;
    if (fmt == AV_PIX_FMT_PAL8) {
        if (opts->pixfmt == RP_PIX_RGBA) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "GIF has no alpha channel (%s): use " ALPHA_WORKS, ALPHA, CODEC,
                                CODEC);
        }
        return RP_OK;
    }
    e->spare_row = av_mallocz((size_t)opts->width * 4 + 64);
    e->sws = sws_getContext(opts->width, opts->height, in, opts->width, opts->height, fmt,
                            SWS_BICUBIC, NULL, NULL, NULL);
    if (!e->spare_row || !e->sws) {
        return rp_error_set(err, e->spare_row ? RP_ERR_UNSUPPORTED : RP_ERR_NOMEM, 0,
                            "cannot convert %s to %s for %s", av_get_pix_fmt_name(in),
                            av_get_pix_fmt_name(fmt), codec->name);
    }
    if (!(av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_RGB)) {
        /* the matrix and the range configure() tags: libswscale's own choice left grey full
         * range below 1280x720 (tagged limited), and BT.709's call made the yuvj formats
         * limited from 1280x720 (tagged full) */
        const int *rgb = sws_getCoefficients(SWS_CS_DEFAULT);
        const int *yuv = sws_getCoefficients(is_hd(opts) ? SWS_CS_ITU709 : SWS_CS_DEFAULT);
        sws_setColorspaceDetails(e->sws, rgb, 1, yuv, full_range(fmt), 0, 1 << 16, 1 << 16);
    }
    return RP_OK;
}

/* The encoder configured as rockpool decides (configure), opened, and its frame allocated
 * (see encode.h). */
int rp_encoder_open(rp_encoder *e, const rp_encoder_choice *choice, const rp_output_spec *opts,
                    int global_header, rp_error *err)
{
    const AVCodec *codec = choice->codec;
    enum AVPixelFormat fmt = choice->pix_fmt;
    int ret;

    e->opts = opts;
    e->ctx = avcodec_alloc_context3(codec);
    e->frame = av_frame_alloc();
    ret = open_converter(e, codec, fmt, err);
    if (ret)
        return ret;
    if (!e->ctx || !e->frame) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory setting up %s", codec->name);
    }
    ret = configure(e->ctx, codec, fmt, opts, global_header, 0, err);
    if (ret)
        return ret;
    char reason[256];
    ret = open_logged(e->ctx, codec, reason, sizeof reason);
    if (ret < 0 && open_oom(ret, reason, codec, err))
        return RP_ERR_NOMEM;
    if (ret < 0) {
        ret = rp_averr(err, RP_ERR_ENCODER, "cannot open encoder", codec->name, ret);
        if (opts->encoder_preset) {
            size_t n = strlen(err->msg);
            snprintf(err->msg + n, sizeof err->msg - n, " (is '%s' one of its presets?)",
                     opts->encoder_preset);
        }
        return ret;
    }
    e->frame->format = fmt;
    e->frame->width = opts->width;
    e->frame->height = opts->height;
    ret = av_frame_get_buffer(e->frame, 0);
    if (ret < 0)
        return rp_averr(err, RP_ERR_NOMEM, "cannot allocate a frame for", codec->name, ret);
    return RP_OK;
}

int rp_encoder_convert(rp_encoder *e, const uint8_t *px, const rp_palette *palette, rp_error *err)
{
    const rp_output_spec *opts = e->opts;
    int ret;

    /* The encoder may still hold a reference to the previous frame. */
    ret = av_frame_make_writable(e->frame);
    if (ret < 0)
        return rp_averr(err, RP_ERR_NOMEM, "cannot get a frame for", e->ctx->codec->name, ret);
    if (palette) {
        rp_palette_map(palette, px, opts->width, opts->height, e->frame->data[0],
                       e->frame->linesize[0]);
        memcpy(e->frame->data[1], palette->argb, sizeof palette->argb);
    } else if (e->sws)
        rp_output_scale_px(e->sws, px, opts->width, opts->height, rp_pixfmt_bytes(opts->pixfmt),
                           e->spare_row, e->frame->data, e->frame->linesize);
    else if (e->ctx->pix_fmt == AV_PIX_FMT_YUV420P)
        rp_yuv420_rows_m(is_hd(opts) ? &rp_yuv_bt709 : &rp_yuv_bt601, px, opts->width,
                         e->frame->data, e->frame->linesize, 0, opts->height);
    else if (e->ctx->pix_fmt == AV_PIX_FMT_YUV444P)
        rp_yuv444_rows_m(is_hd(opts) ? &rp_yuv_bt709 : &rp_yuv_bt601, px, opts->width,
                         e->frame->data, e->frame->linesize, 0, opts->height);
    e->frame->pts = e->next_pts++;
    return RP_OK;
}

void rp_encoder_free(rp_encoder *e)
{
    svt_drain(e->ctx, e->next_pts);
    avcodec_free_context(&e->ctx);
    av_frame_free(&e->frame);
    sws_freeContext(e->sws);
    e->sws = NULL;
    av_freep(&e->spare_row);
}

int rp_averr(rp_error *err, int code, const char *what, const char *name, int ret)
{
    char msg[AV_ERROR_MAX_STRING_SIZE];

    if (ret == AVERROR(ENOMEM)) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "%s %s: out of memory (%s)", what, name,
                            rp_oom_hint());
    }
    av_strerror(ret, msg, sizeof(msg));
    return rp_error_set(err, code, code == RP_ERR_INVALID, "%s %s: %s", what, name, msg);
}

/* Libraries such as x264 report a failed allocation as FFmpeg's "Generic error in an
 * external library" (after logging "malloc of size N failed"), libvpx's alpha encoder as
 * invalid data: an error while 16 MiB cannot be allocated is reported as out of memory,
 * and "Generic error" says what it likely means. */
int rp_encoder_error(rp_error *err, const char *what, const char *name, int ret)
{
    /* ENOMEM, or an encoder's failure while 16 MiB are not to be had */
    if (ret == AVERROR(ENOMEM) || rp_memory_short((size_t)16 << 20)) {
        return rp_error_set(err, RP_ERR_NOMEM, 0,
                            "%s %s: out of memory (lower the size or -j, or raise the memory "
                            "limit)",
                            what, name);
    }
    rp_averr(err, RP_ERR_ENCODER, what, name, ret);
    if (ret == AVERROR_EXTERNAL) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n,
                 " (its library failed; if it logged a failed malloc just "
                 "above, it ran out of memory: lower the size or -j, or "
                 "raise the memory limit)");
    }
    return RP_ERR_ENCODER;
}
