/* source.h - the background a session renders over, as a source that yields the picture
 * of frame k at the render size: the built-in texture, a still image (decoded once), or a
 * video (video_in.h: decoded on a worker thread, frame k showing the input frame whose
 * timestamp is the last one at or before k/fps; rockpool-scene(5) `background`). */
#ifndef RP_SOURCE_H
#define RP_SOURCE_H

#include <stdint.h>

#include "rockpool.h"
#include "input/video_in.h"

typedef struct rp_source rp_source;

/** What a background file is, read from its headers (and, for a video, its first frame and
 * its last packets) before a run is resolved. */
typedef struct rp_source_info {
    int is_video;
    int width, height; /* the picture's size; a video's with its pixels made square */
    int64_t duration_num, duration_den; /* a video's length in seconds; 0/1 for an image */
    const char *hdr;    /* a video's HDR transfer by name (rp_video_in_hdr), else NULL */
    const char *fields; /* an interlaced video's field order (rp_video_in_fields), else NULL */
} rp_source_info;

/** Probe the background at path (not ""). Errors (bad_input, RP_ERR_NOMEM runtime): the
 * image's or the video's own, and RP_ERR_TOO_LARGE for an image past RP_MAX_SIDE per side
 * or a video whose header size needs more than max_memory (0 = no limit) to decode. A
 * video's display size (info->width, its pixels made square) may be over RP_MAX_SIDE: it
 * matters only where it becomes the run's size (rp_source_size_usable). */
int rp_source_probe(const char *path, int64_t max_memory, rp_source_info *info, rp_error *err);

/** Whether the probed size can be the run's size (no size given): RP_ERR_TOO_LARGE
 * (bad_input) past RP_MAX_SIDE per side, naming path and the option that gives a size. */
int rp_source_size_usable(const char *path, const rp_source_info *info, rp_error *err);

/** Open the background at path ("" = the built-in texture) for width x height RGB24
 * frames, drawn with `fit` (enum rp_fit: stretch, cover, contain) when the aspects differ;
 * a video is shown past its end as `end` says (enum rp_video_end: hold, loop); max_memory
 * as for rp_source_probe. Errors: the
 * image's or video's own (bad_input), RP_ERR_NOMEM (runtime). */
int rp_source_open(rp_source **src, const char *path, int width, int height, int fit, int end,
                   int64_t max_memory, rp_error *err);

/** The picture of frame k at fps / fps_den frames per second: *rgb points at
 * width*height*3 bytes, valid until the next call or rp_source_free. Frames should not go
 * backwards from call to call (a video seeks when they do). Errors: a video frame that
 * cannot be read or decoded (RP_ERR_FORMAT, bad_input, the message names frame k), the
 * video cut or changed while being read (RP_ERR_IO, runtime), and RP_ERR_NOMEM
 * (runtime); after an error every call fails. */
int rp_source_frame(rp_source *src, int64_t k, int fps, int fps_den, const uint8_t **rgb,
                    rp_error *err);

/** Where the picture is drawn in the frame: columns x..x+w-1, rows y..y+h-1; the whole
 * frame but for fit contain, whose bars outside it are black and are not water. */
void rp_source_drawn(const rp_source *src, int *x, int *y, int *w, int *h);

/** Bytes a video source holds besides the picture a still source holds (its frame queue,
 * decoder pictures, converter); 0 for the others. Does not grow with the video's length. */
int64_t rp_source_memory(const rp_source *src);

/** The video a source decodes (for its origin and audio), or NULL for a still. */
const rp_video_in *rp_source_video(const rp_source *src);

/** Free and null the handle; NULL and a NULL *src are no-ops. */
void rp_source_free(rp_source **src);

#endif
