/* audio_in.h - the sound of a background (rockpool(1) VIDEO BACKGROUNDS): the first audio
 * stream of a file, read through demux.h's restrictions, as packets (for a container that
 * takes them as they are) or decoded frames (for one that needs them re-encoded). The
 * output side (output/audio_out.c) decides which, cuts the span and muxes it. */
#ifndef RP_AUDIO_IN_H
#define RP_AUDIO_IN_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "base/diag.h"

typedef struct rp_audio_in rp_audio_in;

/** Open path and find its first audio stream and that stream's decoder (other streams are
 * discarded, so reading skips them). RP_OK with *a NULL when the file has no audio
 * stream; else an rp_err in err (RP_ERR_FORMAT: not a readable media file, bad input). */
int rp_audio_in_open(rp_audio_in **a, const char *path, rp_error *err);

void rp_audio_in_free(rp_audio_in **a);

/** The stream: its parameters, time base, and decoder (NULL when FFmpeg has none). */
const AVStream *rp_audio_in_stream(const rp_audio_in *a);
const AVCodec *rp_audio_in_codec(const rp_audio_in *a);

/** Seek to the packet at or before ts (in the stream's time base). */
void rp_audio_in_seek(rp_audio_in *a, int64_t ts);

/** The next packet of the stream that has a timestamp: 1 with *pkt (the reader's own
 * packet, valid until the next call; the caller may take its reference) and *ts (its pts,
 * else its dts), or 0 at the file's end (or at damage: the sound stops there). */
int rp_audio_in_read(rp_audio_in *a, AVPacket **pkt, int64_t *ts);

/** Where the sound lies (the farm's join tells a chunk that lost its sound by it): the
 * first timestamped packet's time and the largest packet end, in microseconds of the
 * stream's times, found from the start and from the last seconds the headers declare
 * (every packet when they declare no end). 0, or -1 when there is no timestamped packet.
 * Moves the reader: for a reader opened for this alone. */
int rp_audio_in_extent(rp_audio_in *a, int64_t *from_us, int64_t *to_us);

/** Open the decoder, for decoded frames: RP_OK, or RP_ERR_FORMAT with a message naming path
 * (the file's name in messages). */
int rp_audio_in_open_decoder(rp_audio_in *a, const char *path, rp_error *err);

/** The decoded channel layout (the default one for its channel count when the file has
 * none), into layout (av_channel_layout_copy; after rp_audio_in_open_decoder). */
void rp_audio_in_layout(const rp_audio_in *a, AVChannelLayout *layout);

/** Give the decoder a packet (its reference is dropped) or NULL (the end), then take its
 * frames one by one: rp_audio_in_receive returns the reader's frame (valid until the
 * next call), or NULL when the decoder needs more or has ended. send returns 0 or an
 * FFmpeg error code. */
int rp_audio_in_send(rp_audio_in *a, AVPacket *pkt);
AVFrame *rp_audio_in_receive(rp_audio_in *a);

/** Sample i of channel ch of a decoded frame as a double in -1..1 (any sample format). */
double rp_audio_sample(const AVFrame *f, int ch, int i);

#endif
