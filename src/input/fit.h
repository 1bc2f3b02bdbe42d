/* fit.h - how a background of one size is drawn at another (`fit stretch|cover|contain`,
 * rockpool-scene(5)): the geometry in exact integer arithmetic, and a libswscale helper
 * that converts a decoded picture into a packed RGB24 frame with it. Used by the video
 * background source (video_in.c), and the stills of backgrounds and the sky. */
#ifndef RP_FIT_H
#define RP_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "scene/settings.h"

/** A rectangle of pixels: columns x..x+w-1, rows y..y+h-1. */
typedef struct rp_rect {
    int x, y, w, h;
} rp_rect;

/** Largest numerator or denominator of a sample aspect ratio rp_fit_rects accepts. */
#define RP_FIT_MAX_SAR 65536

/** The part of a src_w x src_h source (*crop) that is drawn, and where in a dst_w x dst_h
 * frame it goes (*dst); the frame outside *dst is black. The source's pixels are
 * sar_num:sar_den wide:high (1:1 for square pixels; 0:0 is read as 1:1); the frame's are
 * square. Cover crops the source's longer side to the frame's aspect, contain shrinks the
 * frame's longer side to the source's; the kept length is rounded to the nearest pixel
 * (halves up), at least 1, and centred with the odd pixel of the margin after (right or
 * below). Equal aspects, and stretch, give the whole source in the whole frame. Returns
 * RP_ERR_INVALID for a size outside 1..RP_MAX_SIDE or a ratio term outside
 * 1..RP_FIT_MAX_SAR. */
int rp_fit_rects(enum rp_fit fit, int src_w, int src_h, int sar_num, int sar_den, int dst_w,
                 int dst_h, rp_rect *crop, rp_rect *dst);

/** A converter from one source picture layout to packed RGB24 at a frame size, with a fit
 * mode (bicubic, accurate rounding, bit-exact: the same pixels on every machine; limited-
 * range YUV is scaled to YUV 4:4:4 and its matrix applied in integers, fit.c). */
typedef struct rp_fit_scaler rp_fit_scaler;

/** Describe the source: its size, its FFmpeg pixel format (an enum AVPixelFormat), its
 * sample aspect ratio, and its colour matrix and range (AVColorSpace / AVColorRange values;
 * unspecified is read as BT.601, limited range, as the ffmpeg program does). For formats
 * with subsampled chroma the crop's left and top edges are moved left/up to a chroma
 * sample (at most one source pixel), so luma and chroma stay aligned. Returns RP_OK,
 * RP_ERR_INVALID (sizes, ratio), RP_ERR_FORMAT (a pixel format libswscale cannot read)
 * or RP_ERR_NOMEM, with a reason in err (bad_input but for RP_ERR_NOMEM). */
int rp_fit_scaler_new(rp_fit_scaler **scaler, enum rp_fit fit, int src_w, int src_h, int pix_fmt,
                      int sar_num, int sar_den, int colorspace, int color_range, int dst_w,
                      int dst_h, rp_error *err);

/** Read sws's source as its colour matrix and range say (colorspace and color_range as
 * AVColorSpace / AVColorRange; unspecified: BT.601, limited range, full for the yuvj
 * formats), for a YUV pix_fmt; RGB and grey sources, and a NULL sws, are left as they are. */
struct SwsContext;
void rp_fit_source_colors(struct SwsContext *sws, int pix_fmt, int colorspace, int color_range);

/** Convert one picture into rgb (dst_w * dst_h * 3 bytes, rows packed); a layout with
 * alpha is composited over black, round(c * a / amax), as image.c composites a still. The
 * source planes must be padded and aligned as av_frame_get_buffer()/av_image_alloc() make
 * them (libswscale reads a little past a row). Allocates nothing. Returns RP_OK or
 * RP_ERR_FORMAT when libswscale fails. */
int rp_fit_scaler_run(rp_fit_scaler *scaler, const uint8_t *const src[4], const int src_stride[4],
                      uint8_t *rgb);

/** The bytes a scaler for a dst_w x dst_h frame holds, besides libswscale's own tables. */
int64_t rp_fit_scaler_bytes(int dst_w, int dst_h);

/** Free; NULL and a NULL *scaler are no-ops. */
void rp_fit_scaler_free(rp_fit_scaler **scaler);

/** The still image at path drawn at w x h with fit, as a background or the sky is drawn
 * (image.h decodes it: bicubic, bit-exact): *rgb is malloc'd w * h * 3 bytes, black
 * outside the picture, and *drawn (unless NULL; untouched for stretch) where the picture
 * is. Errors as rp_image_load_rgb's, and RP_ERR_TOO_LARGE for a still that would have to
 * be scaled past twice RP_MAX_SIDE to cover the frame. */
int rp_fit_load_still(const char *path, enum rp_fit fit, int w, int h, uint8_t **rgb,
                      rp_rect *drawn, rp_error *err);

#endif
