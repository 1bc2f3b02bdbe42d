/* encode.h - private to the video backends: the video encoder of a container. Choosing it
 * and its pixel format from the container and the user's options, trying them before
 * anything is created, opening it, converting frames into its frame, and the messages for
 * FFmpeg's errors. Muxing its packets is output_video.c's (mux.h). */
#ifndef RP_ENCODE_H
#define RP_ENCODE_H

#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "output/output.h"
#include "output/palette.h"

/** An encoder and pixel format chosen for a container by rp_encoder_pick. */
typedef struct rp_encoder_choice {
    const AVCodec *codec;
    enum AVPixelFormat pix_fmt;
} rp_encoder_choice;

/** An open encoder with its frame and the converter that fills it. A zeroed struct is
 * closed; rp_encoder_free makes it so again. */
typedef struct rp_encoder {
    const rp_output_spec *opts;
    AVCodecContext *ctx;
    AVFrame *frame;         /* filled by rp_encoder_convert */
    struct SwsContext *sws; /* NULL when yuv.h converts, and for pal8 */
    uint8_t *spare_row;     /* see rp_output_scale_px */
    int64_t next_pts;       /* frames converted so far: 0, 1, 2, ... in a 1/fps time base */
} rp_encoder;

/** Choose the encoder and pixel format for opts in the container ofmt: -c NAME, which ofmt
 * must be able to hold, else the first installed of the container's defaults; --pix-fmt,
 * else the encoder's alpha format with --alpha, else yuv420p (pal8 for GIF). The frame
 * size is checked against the pixel format's chroma subsampling (and FFV1's slices), and
 * --crf and -b against what the encoder takes. A fallback from the container's preferred
 * encoder is described in warning (when given; empty otherwise). RP_ERR_INVALID for a bad
 * -c, --encoder-preset, --pix-fmt, size, --crf or -b, RP_ERR_UNSUPPORTED when no default
 * encoder is installed. */
int rp_encoder_pick(const rp_output_spec *opts, const AVOutputFormat *ofmt,
                    rp_encoder_choice *choice, char *warning, size_t wlen, rp_error *err);

/** Whether the choice's pixel format halves the chroma, so that the frame needs even sides:
 * 1 with what needs them ("H.264 with yuv420p") in what, else 0. */
int rp_encoder_even_sides(const rp_encoder_choice *choice, char *what, size_t len);

/** What the chosen encoder is told for opts, as rp_encoder_open tells it (its refusals
 * aside): the encoder's and the pixel format's names, the preset (given, else the encoder's
 * own default where known), the CRF, the quantiser or the bit rate (rockpool.h's
 * rp_output_settings; its format and hash_algo are left as they were). */
void rp_encoder_settings(const rp_encoder_choice *choice, const rp_output_spec *opts,
                         rp_output_settings *st);

/** The bytes the chosen encoder holds while it encodes opts (frames in its lookahead and
 * references, per-thread frames, its own tables), for the --max-memory estimate: measured
 * per encoder, scaled by the preset (x264, x265), the pixel format's depth and the CPUs
 * it threads over; generous for encoders not measured. */
double rp_encoder_memory(const rp_encoder_choice *choice, const rp_output_spec *opts);

/** Everything the encoder would be told, tried on a throwaway context before anything is
 * created: an option it lacks (--crf for mpeg4, --encoder-preset for ffv1), a value it
 * refuses, or settings it cannot open with (size, pixel format, rate) are RP_ERR_INVALID
 * with the encoder's reason. global_header: the container wants the codec's header apart
 * (AVFMT_GLOBALHEADER). par: when not NULL, the stream's parameters as the encoder opened
 * (its header, for a trial of the muxer's). */
int rp_encoder_trial(const rp_encoder_choice *choice, const rp_output_spec *opts, int global_header,
                     AVCodecParameters *par, rp_error *err);

/** Configure and open the chosen encoder for opts (which must outlive e), its frame and its
 * converter. RP_ERR_INVALID for what rp_encoder_trial refuses, RP_ERR_ENCODER when it
 * fails to open, RP_ERR_NOMEM, RP_ERR_UNSUPPORTED when libswscale cannot convert to the
 * pixel format; on failure, rp_encoder_free releases what was made. */
int rp_encoder_open(rp_encoder *e, const rp_encoder_choice *choice, const rp_output_spec *opts,
                    int global_header, rp_error *err);

/** Fill e->frame from one packed frame of opts (RGB24, or RGBA with --alpha) and give it the
 * next pts. palette: for pal8, the GIF's palette the pixels are mapped to; NULL otherwise.
 * RP_ERR_NOMEM when the frame the encoder still holds cannot be replaced. */
int rp_encoder_convert(rp_encoder *e, const uint8_t *px, const rp_palette *palette, rp_error *err);

/** Close the encoder (libsvtav1 after ending its stream, which its close waits for) and free
 * its frame and converter; a closed e is left alone. */
void rp_encoder_free(rp_encoder *e);

/** "WHAT NAME: FFmpeg's message for ret" into err; returns code (for ENOMEM "WHAT NAME:
 * out of memory (what to lower)" and RP_ERR_NOMEM). */
int rp_averr(rp_error *err, int code, const char *what, const char *name, int ret);

/** An encoder's failure (ret from avcodec_send_frame or avcodec_receive_packet) as "WHAT
 * NAME: ...": RP_ERR_NOMEM for AVERROR(ENOMEM), with what to lower; otherwise
 * RP_ERR_ENCODER, saying that an external library's failure is likely a failed allocation. */
int rp_encoder_error(rp_error *err, const char *what, const char *name, int ret);

#endif
