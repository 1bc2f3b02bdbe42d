/* mux.h - private to the video backends: what output_video.c (the video stream and the
 * container) and audio_out.c (a background's sound carried into it) share. The video
 * encoder, and rp_averr for FFmpeg's error messages, are encode.h's. */
#ifndef RP_MUX_H
#define RP_MUX_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "output/output.h"

/** Send one frame to an encoder (NULL flushes it) and mux every packet it returns into st
 * of oc (written to path, for messages). audio only changes the messages: "audio encoder"
 * names the encoder, and every failed write is RP_ERR_IO, where for the video only ENOSPC
 * and EIO are (other write failures are RP_ERR_ENCODER). */
int rp_send_and_mux(AVFormatContext *oc, const char *path, AVCodecContext *enc, AVStream *st,
                    AVPacket *pkt, AVFrame *frame, int audio, rp_error *err);

/** A background's sound carried into a container (rp_output_spec.audio_path). */
typedef struct rp_audio_out rp_audio_out;

/** Open the audio input and add its stream to oc, before the header is written. RP_OK with
 * *a NULL when there is no sound to carry (no audio_path, or a file without audio). */
int rp_audio_out_open(rp_audio_out **a, AVFormatContext *oc, const rp_output_spec *opts,
                      rp_error *err);

/** Carry the sound up to output time until_num/until_den seconds (den 0: to the span's end,
 * flushing). A NULL a does nothing. */
int rp_audio_out_pump(rp_audio_out *a, int64_t until_num, int64_t until_den, rp_error *err);

void rp_audio_out_free(rp_audio_out **a);

#endif
