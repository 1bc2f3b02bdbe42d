/* video_in.h - a video file as a moving background (rockpool(1) -i, rockpool-scene(5)
 * `background`): decoded through libavformat/libavcodec on a worker thread a few frames
 * ahead of the renderer, each frame converted to RGB24 at the render size with the fit mode
 * (fit.h). Frame times are exact: the frame shown at time t is the input frame whose
 * presentation timestamp is the last one at or before t, t counted from the first frame. */
#ifndef RP_VIDEO_IN_H
#define RP_VIDEO_IN_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "input/fit.h"

typedef struct rp_video_in_opts {
    enum rp_fit fit;       /* default RP_FIT_COVER */
    enum rp_video_end end; /* default RP_VIDEO_HOLD */
    int queue_frames;      /* converted frames decoded ahead, 2..64; 0 = 4 */
    int threads;           /* decoder threads (frames do not depend on it); 0 = 1 */
    int64_t max_memory;    /* --max-memory: a stream whose header size alone would need
                            * more to decode is refused before a frame is; 0 = none */
} rp_video_in_opts;

typedef struct rp_video_in rp_video_in;

void rp_video_in_opts_init(rp_video_in_opts *opts);

/** Whether path is a video for rp_video_in_open rather than a still image for image.h: a
 * regular file whose container FFmpeg recognises and that is not one of the still-image
 * formats (PNG, JPEG, GIF, ...). Reads the file's head only. 1 or 0; never fails. */
int rp_video_in_is_video(const char *path);

/** Whether path is a still image of more than one frame (an animated GIF, which ffmpeg
 * plays as a video but rockpool reads as its first frame alone): 1 or 0; never fails.
 * Reads the file's first two frames' packets. */
int rp_video_in_is_animated_still(const char *path);

/** Open path, read its headers, decode its first frame and find its exact duration (from
 * the packets at its end); start no thread and allocate no frame queue yet. Errors, with a
 * reason naming the file in err: RP_ERR_IO (cannot open, not a regular file),
 * RP_ERR_FORMAT (not a container FFmpeg reads, a still image, no video stream, no decoder,
 * first frame undecodable, truncated file, rotation metadata), RP_ERR_TOO_LARGE (over
 * RP_MAX_SIDE per side), RP_ERR_INVALID (width/height), RP_ERR_NOMEM; bad_input but for
 * RP_ERR_NOMEM (a file cut while opened is too: it is the file given). Records the file's
 * size, time and identity to tell a cut while the frames are read. */
int rp_video_in_open(rp_video_in **v, const char *path, int width, int height,
                     const rp_video_in_opts *opts, rp_error *err);

/** An upper bound of the bytes this source holds while frames are fetched: the queue of
 * RGB frames, the decoder's reference pictures, the converter. Constant for the clip: it
 * does not grow with its length. Check it against --max-memory before the first frame. */
int64_t rp_video_in_memory(const rp_video_in *v);

/** The clip's duration in seconds as *num / *den (reduced, den > 0): from its first frame's
 * timestamp to the end of its last frame. The timeline length when no duration is given. */
void rp_video_in_duration(const rp_video_in *v, int64_t *num, int64_t *den);

/** The file time (seconds, *num / *den) of the first frame: time 0 of frame_at. What
 * rp_output_spec.audio_offset adds to the first written frame's time. */
void rp_video_in_origin(const rp_video_in *v, int64_t *num, int64_t *den);

/** The source's coded size and sample aspect ratio, for messages. */
void rp_video_in_info(const rp_video_in *v, int *width, int *height, int *sar_num, int *sar_den);

/** The name of the first frame's HDR transfer, "PQ (SMPTE ST 2084)" or "HLG (ARIB
 * STD-B67)", whose coded values are drawn as they are (no tone mapping); NULL for others. */
const char *rp_video_in_hdr(const rp_video_in *v);

/** "top field first" or "bottom field first" when the first frame is interlaced (its own
 * flags, else the stream's field order), drawn as a whole frame; NULL when progressive. */
const char *rp_video_in_fields(const rp_video_in *v);

/** The frame to show at time num/den seconds (num >= 0, 1 <= den <= INT32_MAX): *rgb points
 * at width*height*3 bytes, valid until the next call or rp_video_in_close. Times should not
 * decrease from call to call; the first call may be at any time (the source seeks to the
 * keyframe before it and decodes forward: the same pixels as decoding from the start), and
 * so may a jump more than a few seconds ahead. Past the end: the last frame (hold) or
 * time modulo the duration (loop). Errors: RP_ERR_FORMAT when a frame cannot be read or
 * decoded (the message names the frame), RP_ERR_IO when the file was cut or written to
 * since it was opened (smaller, a new modification time, or its frames ending before the
 * last one found at open: "was cut while being read"), RP_ERR_NOMEM, RP_ERR_INVALID
 * (time); bad_input but for RP_ERR_NOMEM and RP_ERR_IO (the file as given was readable);
 * after an error every call fails the same way. A stream without timestamps (raw
 * H.264/HEVC) has its frames timed one frame of its frame rate apart, from 0. */
int rp_video_in_frame_at(rp_video_in *v, int64_t num, int64_t den, const uint8_t **rgb,
                         rp_error *err);

/** Stop the worker and free everything; NULL and a NULL *v are no-ops. */
void rp_video_in_close(rp_video_in **v);

#endif
