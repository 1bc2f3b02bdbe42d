/* video_in.c - video backgrounds (see video_in.h). The call sequence is that of FFmpeg's
 * doc/examples/demux_decode.c (5.1): avformat_open_input, avformat_find_stream_info,
 * av_find_best_stream, avcodec_parameters_to_context, then av_read_frame /
 * avcodec_send_packet / avcodec_receive_frame, flushed with a NULL packet at the end.
 *
 * Time. Every frame's best-effort timestamp, minus the first frame's (the origin), is an
 * integer count of the stream's time base; a request at num/den seconds becomes
 * floor(num * tb.den / (den * tb.num)) ticks with av_rescale_rnd (exact, 128-bit), and the
 * frame shown is the last one whose tick is at or below it. In loop mode the ticks are
 * "virtual": lap * duration + tick, so the queue runs on across the wrap.
 *
 * Threads. One worker owns the demuxer, decoder and converter while it runs; it fills a
 * ring of RGB frames (queue_frames ahead, plus the one the caller holds) under a mutex.
 * The caller only reads the ring. To jump (first call, a late start, a big skip) the
 * caller stops and joins the worker and starts a new one at the target.
 *
 * Seeking. The worker seeks to the keyframe before the target, discards frames until a
 * keyframe comes out of the decoder, and checks that keyframe's timestamp is at or before
 * the target (MP4 indexes decode times, which B-frames put before presentation times); if
 * not, it seeks further back. Frames after a keyframe do not depend on anything before it,
 * so they equal the frames of a run from the start. */
#include "base/diag.h"
#include "input/video_in.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/pixdesc.h>

#include "base/common.h"
#include "input/demux.h"

/* A request this many seconds past the frame in hand seeks instead of decoding forward. */
#define JUMP_SECONDS 5

typedef struct slot {
    uint8_t *rgb;
    int64_t vpts; /* virtual ticks */
} slot;

struct rp_video_in {
    char *path;
    int width, height;
    rp_video_in_opts opts;

    AVFormatContext *fc;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame, *pending;
    int index;
    AVRational tb;
    int64_t origin;   /* the first frame's pts */
    int64_t duration; /* ticks from origin to the end of the last frame, >= 1 */
    int64_t last_pts; /* the last frame's ticks from origin, as found at open */
    off_t size;       /* the file's size and time at open, and its identity */
    struct timespec mtime;
    dev_t dev;
    ino_t ino;
    /* A stream without timestamps (raw H.264/HEVC): frames are timed one frame_ticks apart
     * in the order the decoder gives them, from 0 (as ffmpeg does). */
    int timeless;
    int64_t frame_ticks, frames_out;
    /* A stream timed by decode times (dts_only): an AVI whose first packet has a decode time
     * alone (H.264, or MPEG-4 part 2 with its B-frames packed with the frame before), or an
     * ASF whose packets after the first have none (ASF keeps one time a packet, which
     * FFmpeg reads as a decode time; libavformat makes the first packet's a presentation
     * time too, so MPEG-2's first frame showed at 0 and the next at 66 ms, a frame late).
     * The decoder times a frame by the packet that lets it out, its reorder delay after the
     * frame's own: an ASF's every frame is timed so (dts_frames, the first one too).
     * first_dts: the file's first video packet's decode time; the end is the last packet's
     * decode time plus that delay (scan_end). */
    int dts_only, dts_frames;
    int64_t first_dts;
    /* After the decoder was told the stream ended (draining): a frame let out then without
     * a time (MPEG-2 in m2v, mpg or ASF, an AVI's or ASF's B-frames) falls on the frame
     * rate's next instant after the last one (rates), else follows it by the step between the
     * last two (last_step; frame_ticks before there are two), as ffmpeg times them; stepped: the
     * frame just timed so, which the stream's end (found at open) must still hold, else it is
     * refused rather than dropped. */
    int draining, stepped;
    int64_t last_step;
    AVRational rates[2]; /* the stream's r_frame_rate and avg_frame_rate ({0, 0}: none) */
    /* The stream's size as its header gives it: the decoder gets no picture larger than
     * that (give or take its coded padding, GROW_SLACK), so a stream that grows mid-way
     * (new parameter sets) stops there, not at a memory the estimate never counted.
     * grew_w x grew_h: the size it refused (set from decoder threads); grew_pts: that
     * picture's timestamp (its packet's, AV_NOPTS_VALUE without one); pictures: the pictures
     * the decoder was given buffers for since the start (or the last seek), grew_at: their
     * count when it refused (a stream without timestamps is timed by it). */
    int head_w, head_h;
    int grew_w, grew_h;
    int64_t grew_pts, pictures, grew_at;
    /* the decoder's opaque: on a one-thread decoder, its jobs' first error since the last
     * frame out */
    rp_decoder_hooks hooks;

    rp_fit_scaler *scaler;
    int src_w, src_h, src_fmt, sar_num, sar_den, colorspace, range;
    int trc;    /* the first frame's transfer (AVColorTransferCharacteristic), or the stream's */
    int fields; /* the first frame's fields: 0 progressive, 1 top first, 2 bottom first */

    /* decoder state (worker, or open before any worker) */
    int need_key; /* after a seek: drop frames until a keyframe */
    /* Read from the start: video packets before the first one flagged a keyframe are not
     * decoded (a stream cut mid-GOP, as an MPEG-TS recording is: they refer to pictures
     * before the cut), as ffmpeg shows such a stream from its first keyframe. keyless: no
     * packet is flagged, so none is skipped. */
    int key_seen, keyless;
    /* After a seek or from the start, the keyframe decoding starts at: its presentation
     * time (key_pts, or AV_NOPTS_VALUE before it is read) and whether its GOP is still
     * being read (first_gop; a file trimmed with ffmpeg -ss T -c copy starts in an open
     * GOP as a seek does). An open GOP (H.264 with open-gop, as broadcast and some cameras write
     * it) refers past that keyframe: its leading pictures (shown before it, stored after
     * it) to pictures before it, and the next pictures' reference marking (MMCO) to
     * pictures the decoder never saw. Those are not damage: until the next keyframe the
     * decoder reports them without stopping (no AV_EF_EXPLODE), and a leading picture that
     * cannot be decoded is dropped, as need_key drops every picture before the keyframe;
     * damaged pictures still come out flagged and are refused. The sequential decode of the
     * same pictures gives the same frames (a range equals the whole run's end). */
    int64_t key_pts;
    int first_gop;
    int64_t last_rel;  /* last accepted frame's ticks from origin */
    int64_t pkt_count; /* video packets since the start of the file; -1 after a seek */
    int first_sent;    /* of them, those the decoder got, up to 3 (first_packets) */

    /* the ring */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    slot *slots;
    int nslots, head, count;
    int running, stop, eof;
    int werr; /* worker error, message in wmsg */
    char wmsg[512];
    pthread_t thread;
    int64_t start_v; /* the worker's first target, virtual ticks */

    /* the caller's side */
    int failed;
    char fmsg[512];
};

void rp_video_in_opts_init(rp_video_in_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->fit = RP_FIT_COVER;
    opts->end = RP_VIDEO_HOLD;
    opts->queue_frames = 4;
    opts->threads = 1;
}

/* Open the container: only regular files, "file:" so ':' is never a protocol, no other
 * protocol reachable from inside the file. */
static int open_input(AVFormatContext **fc, const char *path, struct stat *pst, rp_error *err)
{
    struct stat st;
    int ret;

    if (stat(path, &st) != 0) {
        return rp_error_set(err, RP_ERR_IO, 1, "cannot open video '%s': %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return rp_error_set(err, RP_ERR_IO, 1, "cannot open video '%s': not a regular file", path);
    }
    if (st.st_size == 0) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot read video '%s': the file is empty",
                            path);
    }
    if (pst)
        *pst = st;
    char *formats = rp_demux_formats(1);
    ret = formats ? rp_demux_open(fc, path, formats, NULL) : AVERROR(ENOMEM);
    av_free(formats);
    if (ret < 0) {
        char msg[AV_ERROR_MAX_STRING_SIZE];

        av_strerror(ret, msg, sizeof(msg));
        return rp_error_set(err, ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT,
                            ret != AVERROR(ENOMEM), "'%s' is not a video FFmpeg can read (%s)",
                            path, msg);
    }
    return RP_OK;
}

int rp_video_in_is_video(const char *path)
{
    AVFormatContext *fc = NULL;
    int video;

    av_log_set_level(AV_LOG_QUIET);
    rp_error unused;
    if (open_input(&fc, path, NULL, &unused))
        return 0;
    video = !rp_demux_is_image(fc->iformat->name);
    avformat_close_input(&fc);
    return video;
}

int rp_video_in_is_animated_still(const char *path)
{
    AVFormatContext *fc = NULL;
    AVPacket *pkt;
    int n = 0;

    av_log_set_level(AV_LOG_QUIET);
    rp_error unused;
    if (open_input(&fc, path, NULL, &unused))
        return 0;
    if (!strcmp(fc->iformat->name, "gif") && (pkt = av_packet_alloc())) {
        while (n < 2 && av_read_frame(fc, pkt) >= 0) {
            n++;
            av_packet_unref(pkt);
        }
        av_packet_free(&pkt);
    }
    avformat_close_input(&fc);
    return n >= 2;
}

static double seconds(const rp_video_in *v, int64_t ticks)
{
    return (double)ticks * v->tb.num / v->tb.den;
}

/* Decode error message: the frame by its number in the file when decoding ran from the
 * start, and by its time. */
static int frame_error(rp_video_in *v, int64_t pts, int ret, const char *what, rp_error *err)
{
    char msg[AV_ERROR_MAX_STRING_SIZE], num[48] = "";
    int gw = __atomic_load_n(&v->grew_w, __ATOMIC_RELAXED),
        gh = __atomic_load_n(&v->grew_h, __ATOMIC_RELAXED);

    if (gw > 0) {
        /* The time the first larger picture is shown: its own timestamp (a stream changes
         * size at a keyframe that starts a closed GOP, so every picture before it in the
         * file is shown before it too), or in a stream without timestamps the count of
         * pictures before it. The last frame given out (last_rel) is earlier by the
         * decoder's reorder delay: frames decoded but not yet shown. */
        int64_t at = __atomic_load_n(&v->grew_pts, __ATOMIC_RELAXED),
                n = __atomic_load_n(&v->grew_at, __ATOMIC_RELAXED);
        if (at != AV_NOPTS_VALUE)
            at -= v->origin;
        else if (v->timeless && v->frame_ticks > 0 && n >= 0)
            at = n * v->frame_ticks;
        if (at != AV_NOPTS_VALUE && at >= 0)
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "video '%s' grows from %dx%d to %dx%d at %.3f s: a background "
                                "keeps at most the size it starts with",
                                v->path, v->head_w, v->head_h, gw, gh, seconds(v, at));
        return rp_error_set(
            err, RP_ERR_FORMAT, 1,
            "video '%s' grows from %dx%d to %dx%d after %.3f s: a background keeps at most "
            "the size it starts with",
            v->path, v->head_w, v->head_h, gw, gh, seconds(v, v->last_rel > 0 ? v->last_rel : 0));
    }
    av_strerror(ret, msg, sizeof(msg));
    if (v->pkt_count >= 0)
        snprintf(num, sizeof(num), " (video packet %" PRId64 " of the file)", v->pkt_count);
    int code = ret == AVERROR(ENOMEM) ? RP_ERR_NOMEM : RP_ERR_FORMAT;
    if (pts != AV_NOPTS_VALUE)
        return rp_error_set(err, code, code != RP_ERR_NOMEM,
                            "cannot %s the video frame at %.3f s%s of '%s': %s", what,
                            seconds(v, pts - v->origin), num, v->path, msg);
    return rp_error_set(err, code, code != RP_ERR_NOMEM, "cannot %s a video frame%s of '%s': %s",
                        what, num, v->path, msg);
}

/* Whether a picture of presentation time pts is a leading picture of the GOP decoding
 * restarted at after a seek: shown before its keyframe (v->key_pts). */
static int leading(const rp_video_in *v, int64_t pts)
{
    return v->first_gop && v->key_pts != AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE &&
           pts < v->key_pts;
}

/* Read every GOP strictly (AV_EF_EXPLODE: damage is an error), or the first GOP (after a
 * seek, or the file's first) leniently (first_gop). The decoder has one thread (opts.threads 1),
 * which reads err_recognition as each packet is decoded. */
static void set_first_gop(rp_video_in *v, int first_gop)
{
    v->first_gop = first_gop && v->dec->thread_count <= 1;
    v->key_pts = AV_NOPTS_VALUE;
    rp_demux_set_explode(v->dec, !v->first_gop);
}

/* A frame let out while draining without a time, from the origin: the frame rate's next
 * instant after the last frame's, rounded to the time base as an output frame's instant is
 * (ASF's milliseconds put 60 fps frames 16 or 17 apart: the last step, added again, put the
 * last frame a millisecond past its instant, shown a frame late); without a rate, or where
 * that does not come after the last frame, the last frame's time and the step before it. */
static int64_t drained_time(const rp_video_in *v)
{
    /* the rate the last step keeps to, within an eighth (a tick at least): r_frame_rate
     * first (an ASF's avg_frame_rate, from its milliseconds, says 62.5 for 60), and neither
     * where a field rate, twice the frames', would put a frame half a step early */
    for (int i = 0; i < 2 && v->last_step > 0 && v->last_rel < INT64_MAX / 4; i++) {
        AVRational r = v->rates[i];
        if (r.num <= 0 || r.den <= 0)
            continue;
        AVRational frame = av_inv_q(r);
        int64_t ticks = av_rescale_q(1, frame, v->tb), slack = v->last_step / 8;
        if (llabs(ticks - v->last_step) > (slack > 1 ? slack : 1))
            continue;
        int64_t next = av_rescale_q(av_rescale_q(v->last_rel, v->tb, frame) + 1, frame, v->tb);
        if (next > v->last_rel)
            return next;
    }
    return v->last_rel + (v->last_step > 0 ? v->last_step : v->frame_ticks);
}

/* A decoded frame's time: its best-effort timestamp; a timeless stream's frames numbered at
 * its frame rate; an ASF timed by decode times (dts_frames), the decode time of the packet
 * that let it out; while draining, a frame without a time after the last one by the step
 * between the last two (v->stepped). AV_NOPTS_VALUE: none. */
static int64_t frame_time(rp_video_in *v, const AVFrame *f)
{
    int64_t pts = f->best_effort_timestamp;

    v->stepped = 0;
    if (v->timeless || (pts == AV_NOPTS_VALUE && v->last_rel == INT64_MIN && v->frame_ticks > 0)) {
        v->timeless = 1;
        return v->frames_out++ * v->frame_ticks;
    }
    if (v->dts_frames && f->pkt_dts != AV_NOPTS_VALUE)
        return f->pkt_dts;
    if (pts == AV_NOPTS_VALUE && v->draining && v->last_rel >= 0 &&
        (v->last_step > 0 || v->frame_ticks > 0)) {
        v->stepped = 1;
        return v->origin + drained_time(v);
    }
    return pts;
}

/* A video packet the decoder gets: the file's first two (from its first keyframe: packets
 * before it are not decoded; first_sent counts them, -1 after a seek) tell its first decode
 * time (first_dts) and whether the stream is timed by decode times (dts_only, dts_frames).
 * (From the file's very first packet, an MPEG-PS cut inside a GOP took its reorder delay
 * as several frames, and its end found at open lay frames past its last.) */
static void first_packets(rp_video_in *v, const AVPacket *pkt)
{
    const char *name = v->fc->iformat->name;

    if (v->first_sent < 0)
        return;
    if (v->first_sent++ >= 2 || v->last_rel != INT64_MIN)
        return;
    if (v->first_sent == 1) {
        v->first_dts = pkt->dts;
        v->dts_only = v->dts_frames = 0;
        if (pkt->pts == AV_NOPTS_VALUE && !strcmp(name, "avi"))
            v->dts_only = 1;
    }
    if (pkt->pts == AV_NOPTS_VALUE && pkt->dts != AV_NOPTS_VALUE && !strcmp(name, "asf"))
        v->dts_only = v->dts_frames = 1;
}

/* The next frame the rules accept into *frame: 0, AVERROR_EOF at the stream's end, or an
 * rp_err with the message in err. Accepted: after a seek, from the first keyframe on;
 * timestamps from the origin, strictly increasing, below the duration (when known). A
 * stream whose first frame has no timestamp is timeless (v->timeless): its frames are
 * numbered as they come out of the decoder and timed at the stream's frame rate. */
static int read_frame(rp_video_in *v, AVFrame *frame, rp_error *err)
{
    int64_t pkt_pts = AV_NOPTS_VALUE;
    int ret;

    for (;;) {
        ret = avcodec_receive_frame(v->dec, frame);
        if (ret >= 0) {
            int64_t pts = frame_time(v, frame), rel;
            int job_error = v->hooks.job_error;
            v->hooks.job_error = 0;

            frame->best_effort_timestamp = pts;
            /* (a frame timed by the step that the end found at open does not hold: not
             * dropped as past the end, which would hold the frame before in its place) */
            if (pts == AV_NOPTS_VALUE ||
                (v->stepped && v->duration > 0 && pts - v->origin >= v->duration)) {
                av_frame_unref(frame);
                return rp_error_set(err, RP_ERR_FORMAT, 1,
                                    "video frame after %.3f s of '%s' has no timestamp",
                                    seconds(v, v->last_rel > 0 ? v->last_rel : 0), v->path);
            }
            if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags || job_error) {
                av_frame_unref(frame);
                if (leading(v, pts))
                    continue;
                return frame_error(v, pts, AVERROR_INVALIDDATA, "decode", err);
            }
            rel = pts - v->origin;
            if ((v->need_key && !frame->key_frame) || rel <= v->last_rel ||
                (v->duration > 0 && rel >= v->duration)) {
                av_frame_unref(frame);
                continue;
            }
            v->need_key = 0;
            v->last_step = v->last_rel >= 0 ? rel - v->last_rel : 0;
            v->last_rel = rel;
            return 0;
        }
        if (ret == AVERROR_EOF)
            return AVERROR_EOF;
        if (ret != AVERROR(EAGAIN))
            return frame_error(v, pkt_pts, ret, "decode", err);
        ret = av_read_frame(v->fc, v->pkt);
        if (ret == AVERROR_EOF || (ret < 0 && avio_feof(v->fc->pb) && !v->fc->pb->error)) {
            ret = avcodec_send_packet(v->dec, NULL);
            v->draining = 1;
            if (ret < 0 && ret != AVERROR_EOF)
                return frame_error(v, AV_NOPTS_VALUE, ret, "decode", err);
            continue;
        }
        if (ret < 0) {
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "cannot read '%s' after %.3f s: the file is truncated or corrupt",
                                v->path, seconds(v, v->last_rel > 0 ? v->last_rel : 0));
        }
        if (v->pkt->stream_index == v->index) {
            pkt_pts = v->pkt->pts != AV_NOPTS_VALUE ? v->pkt->pts : v->pkt->dts;
            if (v->pkt_count >= 0)
                v->pkt_count++;
            if (!v->key_seen && !v->keyless && !(v->pkt->flags & AV_PKT_FLAG_KEY)) {
                av_packet_unref(v->pkt);
                continue;
            }
            v->key_seen = 1;
            first_packets(v, v->pkt);
            if (v->first_gop && (v->pkt->flags & AV_PKT_FLAG_KEY)) {
                if (v->key_pts == AV_NOPTS_VALUE) {
                    v->key_pts = pkt_pts;
                } else { /* the next GOP: strict again */
                    v->first_gop = 0;
                    rp_demux_set_explode(v->dec, 1);
                }
            }
            if (v->pkt->flags & AV_PKT_FLAG_CORRUPT) {
                av_packet_unref(v->pkt);
                ret = frame_error(v, pkt_pts, AVERROR_INVALIDDATA, "read", err);
                /* MPEG-TS flags a packet whose continuity counter skips: packets lost, or
                 * two files joined with cat (which ffmpeg plays on) */
                if (!strcmp(v->fc->iformat->name, "mpegts")) {
                    size_t at = strlen(err->msg);
                    snprintf(err->msg + at, sizeof err->msg - at,
                             " (the MPEG-TS packets' continuity breaks there: packets lost, or "
                             "files joined with cat, which 'ffmpeg -i FILE -c copy out.mkv' "
                             "makes one)");
                }
                return ret;
            }
            ret = avcodec_send_packet(v->dec, v->pkt);
            av_packet_unref(v->pkt);
            /* EAGAIN cannot happen: every frame is received before the next packet. */
            if (ret < 0 && ret != AVERROR(ENOMEM) && leading(v, pkt_pts))
                continue;
            if (ret < 0)
                return frame_error(v, pkt_pts, ret, "decode", err);
        } else {
            av_packet_unref(v->pkt);
        }
    }
}

/* Whether the file changed since it was opened: the same file (FFmpeg reads it through a
 * descriptor of its own, so a file renamed over it does not count), now shorter or written
 * to. */
static int file_changed(const rp_video_in *v, struct stat *now)
{
    return v->size > 0 && stat(v->path, now) == 0 && now->st_dev == v->dev &&
           now->st_ino == v->ino &&
           (now->st_size < v->size || now->st_mtim.tv_sec != v->mtime.tv_sec ||
            now->st_mtim.tv_nsec != v->mtime.tv_nsec);
}

/* read_frame, and when the stream ends or fails, whether that is because the file was cut
 * or rewritten while being read (by another program): then RP_ERR_IO, a runtime failure,
 * not a bad file, and the frames after the cut are never held in place of the real ones. */
static int next_frame(rp_video_in *v, AVFrame *frame, rp_error *err)
{
    int ret = read_frame(v, frame, err);
    struct stat now;

    /* A clean end of a file only touched (a new time, all there) is no failure: the worker
     * still checks that the frames reached the last one found at open. */
    if (ret && ret != RP_ERR_NOMEM && file_changed(v, &now) &&
        (ret != AVERROR_EOF || now.st_size < v->size)) {
        double at = seconds(v, v->last_rel > 0 ? v->last_rel : 0);
        if (now.st_size < v->size)
            return rp_error_set(err, RP_ERR_IO, 1,
                                "the background video '%s' was cut while being read: %lld bytes "
                                "when opened, %lld now (at %.3f s of the video)",
                                v->path, (long long)v->size, (long long)now.st_size, at);
        return rp_error_set(err, RP_ERR_IO, 1,
                            "the background video '%s' was changed while being read (at %.3f s of "
                            "the video)",
                            v->path, at);
    }
    return ret;
}

/* The decode time the stream starts at: its first packet's (first_dts), else the stream's
 * start; AV_NOPTS_VALUE when neither is known. */
static int64_t decode_start(const rp_video_in *v)
{
    return v->first_dts != AV_NOPTS_VALUE ? v->first_dts : v->fc->streams[v->index]->start_time;
}

/* Seek so that decoding restarts at the first packet, by every means the demuxer has. */
static int rewind_input(rp_video_in *v)
{
    /* MPEG-TS seeks by timestamp to the packet whose DTS passes it: with B-frames the first
     * keyframe's DTS is before the first frame's time (the origin), so a seek to the origin
     * lands past it. Its start is byte 0. So is MPEG-PS's: its seek by time landed on the
     * first P-frame's packet (its DTS the origin), and the frames showed from the next
     * keyframe, 0.4 s in (an mpg of MPEG-2 with B-frames drew frame 12 for frames 0 to 12). */
    /* Timed by decode times (dts_only), the first frame shows the reorder delay after the
     * first packet: the seek goes to that packet's time. An AVI cut before its index (none
     * to seek by but what reading made) landed on the packet at the origin's time, no
     * keyframe, and showed no frame. */
    int64_t start = decode_start(v);
    int64_t to = v->dts_only && start != AV_NOPTS_VALUE && start < v->origin ? start : v->origin;
    const char *name = v->fc->iformat->name;
    int ret = strcmp(name, "mpegts") && strcmp(name, "mpeg")
                  ? avformat_seek_file(v->fc, v->index, INT64_MIN, to, to, 0)
                  : av_seek_frame(v->fc, -1, 0, AVSEEK_FLAG_BYTE);

    if (ret < 0)
        ret = av_seek_frame(v->fc, v->index, v->origin, AVSEEK_FLAG_BACKWARD);
    if (ret < 0)
        ret = av_seek_frame(v->fc, -1, 0, AVSEEK_FLAG_BYTE);
    avcodec_flush_buffers(v->dec);
    v->draining = 0;
    v->need_key = 0;
    v->key_seen = 0;
    set_first_gop(v, 1);
    v->last_rel = -1;
    v->pkt_count = 0;
    v->first_sent = 0;
    v->frames_out = 0;
    __atomic_store_n(&v->pictures, 0, __ATOMIC_RELAXED);
    return ret;
}

/* Put the decoder at the last frame at or before rel ticks from the origin, that frame in
 * v->pending. 0, AVERROR_EOF (no frame at all), or an rp_err. */
static int position(rp_video_in *v, int64_t rel, rp_error *err)
{
    int64_t target = v->origin + rel, back = 1;
    int ret;
    /* MPEG-TS lands mid-GOP after a seek by time (its index is the packets' DTS): it is
     * read from its start, and the frames before rel are skipped by the reader. So is a
     * stream without timestamps, which has nothing to seek by. */
    if (!strcmp(v->fc->iformat->name, "mpegts") || v->timeless)
        target = v->origin;

    av_frame_unref(v->pending);
    for (;;) {
        if (target <= v->origin) {
            if (rewind_input(v) < 0) {
                return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot seek back to the start of '%s'",
                                    v->path);
            }
            return next_frame(v, v->pending, err);
        }
        ret = avformat_seek_file(v->fc, v->index, INT64_MIN, target, target, 0);
        if (ret < 0) {
            target = v->origin;
            continue;
        }
        avcodec_flush_buffers(v->dec);
        v->draining = 0;
        v->need_key = 1;
        v->key_seen = 1; /* the seek lands on a keyframe's packet; need_key checks it */
        set_first_gop(v, 1);
        v->last_rel = -1;
        v->pkt_count = -1;
        v->first_sent = -1;
        __atomic_store_n(&v->pictures, INT64_MIN / 2, __ATOMIC_RELAXED); /* (not from 0) */
        ret = next_frame(v, v->pending, err);
        if (ret == AVERROR_EOF) {
            target -= back;
            back *= 2;
            continue;
        }
        if (ret)
            return ret;
        if (v->last_rel <= rel)
            break;
        /* The keyframe found shows later than the target: try before it. */
        if (v->pending->pkt_dts != AV_NOPTS_VALUE && v->pending->pkt_dts < target)
            target = v->pending->pkt_dts;
        target -= back;
        back *= 2;
        av_frame_unref(v->pending);
    }
    return 0;
}

/* A frame's fields (rp_video_in_fields), from its own flags, else the stream's order. */
static int frame_fields(const AVFrame *f, enum AVFieldOrder order)
{
#ifdef AV_FRAME_FLAG_INTERLACED
    int interlaced = !!(f->flags & AV_FRAME_FLAG_INTERLACED);
    int tff = !!(f->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST);
#else
    int interlaced = f->interlaced_frame, tff = f->top_field_first;
#endif
    if (interlaced)
        return tff ? 1 : 2;
    switch (order) {
    case AV_FIELD_TT:
    case AV_FIELD_TB: return 1;
    case AV_FIELD_BB:
    case AV_FIELD_BT: return 2;
    default: return 0;
    }
}

/* (Re)build the converter for frame's layout when it differs from the current one. */
static int ensure_scaler(rp_video_in *v, const AVFrame *f, rp_error *err)
{
    AVRational sar = av_guess_sample_aspect_ratio(v->fc, v->fc->streams[v->index], (AVFrame *)f);
    int ret;

    if (sar.num <= 0 || sar.den <= 0)
        sar = (AVRational){1, 1};
    av_reduce(&sar.num, &sar.den, sar.num, sar.den, RP_FIT_MAX_SAR);
    if (v->scaler && f->width == v->src_w && f->height == v->src_h && f->format == v->src_fmt &&
        sar.num == v->sar_num && sar.den == v->sar_den && (int)f->colorspace == v->colorspace &&
        (int)f->color_range == v->range)
        return RP_OK;
    if (f->width < 1 || f->height < 1 || f->width > RP_MAX_SIDE || f->height > RP_MAX_SIDE) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "video '%s' is %dx%d: at most %d pixels per side are accepted", v->path,
                            f->width, f->height, RP_MAX_SIDE);
    }
    rp_fit_scaler_free(&v->scaler);
    ret = rp_fit_scaler_new(&v->scaler, v->opts.fit, f->width, f->height, f->format, sar.num,
                            sar.den, f->colorspace, f->color_range, v->width, v->height, err);
    if (ret && err->bad_input) { /* the scaler's reason, with the file it is about */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return rp_error_set(err, ret, 1, "video '%s': %s", v->path, why);
    }
    if (ret)
        return ret;
    v->src_w = f->width;
    v->src_h = f->height;
    v->src_fmt = f->format;
    v->sar_num = sar.num;
    v->sar_den = sar.den;
    v->colorspace = f->colorspace;
    v->range = f->color_range;
    if (!v->trc)
        v->trc = f->color_trc != AVCOL_TRC_UNSPECIFIED
                     ? (int)f->color_trc
                     : (int)v->fc->streams[v->index]->codecpar->color_trc;
    if (!v->fields)
        v->fields = frame_fields(f, v->fc->streams[v->index]->codecpar->field_order);
    return RP_OK;
}

/* ---- the worker ---- */

static void worker_fail(rp_video_in *v, int code, const char *msg)
{
    pthread_mutex_lock(&v->lock);
    v->werr = code;
    snprintf(v->wmsg, sizeof(v->wmsg), "%.511s", msg);
    pthread_cond_broadcast(&v->cond);
    pthread_mutex_unlock(&v->lock);
}

/* Convert v->pending into the ring at virtual time vpts, waiting for room. 1 when asked to
 * stop, 0 when queued, or an rp_err. */
static int push(rp_video_in *v, int64_t vpts, rp_error *err)
{
    slot *s;
    int ret;

    pthread_mutex_lock(&v->lock);
    while (v->count == v->nslots && !v->stop)
        pthread_cond_wait(&v->cond, &v->lock);
    if (v->stop) {
        pthread_mutex_unlock(&v->lock);
        return 1;
    }
    s = &v->slots[(v->head + v->count) % v->nslots];
    pthread_mutex_unlock(&v->lock);

    /* The slot is not in the ring yet: nobody else reads it. */
    ret = ensure_scaler(v, v->pending, err);
    if (ret)
        return ret;
    if (rp_fit_scaler_run(v->scaler, (const uint8_t *const *)v->pending->data, v->pending->linesize,
                          s->rgb)) {
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "cannot convert video frame at %.3f s of '%s' to RGB",
                            seconds(v, v->pending->best_effort_timestamp - v->origin), v->path);
    }
    s->vpts = vpts;
    pthread_mutex_lock(&v->lock);
    v->count++;
    pthread_cond_broadcast(&v->cond);
    pthread_mutex_unlock(&v->lock);
    return 0;
}

static void *worker(void *arg)
{
    rp_video_in *v = arg;
    rp_error e;
    int64_t lap = 0, rel = v->start_v, pending_rel;
    int ret;

    if (v->opts.end == RP_VIDEO_LOOP) {
        lap = v->start_v / v->duration;
        rel = v->start_v % v->duration;
    }
    ret = position(v, rel, &e);
    for (;;) {
        if (ret == AVERROR_EOF) {
            ret = rp_error_set(&e, RP_ERR_FORMAT, 1, "video '%s' has no frame to show", v->path);
        }
        if (ret) {
            worker_fail(v, ret, e.msg);
            return NULL;
        }
        pending_rel = v->last_rel;
        ret = next_frame(v, v->frame, &e);
        if (ret && ret != AVERROR_EOF) {
            worker_fail(v, ret, e.msg);
            return NULL;
        }
        /* Skip converting frames that the first request already passed. */
        if (ret == AVERROR_EOF || lap * v->duration + v->last_rel > v->start_v) {
            int p = push(v, lap * v->duration + pending_rel, &e);

            if (p == 1)
                return NULL;
            if (p) {
                worker_fail(v, p, e.msg);
                return NULL;
            }
        }
        av_frame_unref(v->pending);
        /* The frames stopped before the last one found at open: the file changed under us
         * (cut and written again, or overwritten in place), or, when it did not, its last
         * frames do not decode (an MPEG-PS cut inside a GOP, whose end found at open from
         * its decode times lay past them): bad input, not a runtime failure. */
        if (ret == AVERROR_EOF && !v->timeless && pending_rel < v->last_pts) {
            struct stat now;
            int io = file_changed(v, &now);
            rp_error_set(&e, io ? RP_ERR_IO : RP_ERR_FORMAT, !io,
                         io ? "the background video '%s' ended at %.3f s while being read, before "
                              "its last frame at %.3f s: it was cut or changed while being read"
                            : "the background video '%s' ended at %.3f s, before its last frame "
                              "at %.3f s found when it was opened: it is damaged",
                         v->path, seconds(v, pending_rel), seconds(v, v->last_pts));
            worker_fail(v, e.code, e.msg);
            return NULL;
        }
        if (ret == AVERROR_EOF) {
            if (v->opts.end != RP_VIDEO_LOOP) {
                pthread_mutex_lock(&v->lock);
                v->eof = 1;
                pthread_cond_broadcast(&v->cond);
                pthread_mutex_unlock(&v->lock);
                return NULL;
            }
            lap++;
            ret = position(v, 0, &e);
            continue;
        }
        av_frame_move_ref(v->pending, v->frame);
        ret = 0;
    }
}

static void stop_worker(rp_video_in *v)
{
    if (!v->running)
        return;
    pthread_mutex_lock(&v->lock);
    v->stop = 1;
    pthread_cond_broadcast(&v->cond);
    pthread_mutex_unlock(&v->lock);
    pthread_join(v->thread, NULL);
    v->running = 0;
}

static int start_worker(rp_video_in *v, int64_t vtarget, rp_error *err)
{
    stop_worker(v);
    if (!v->slots) {
        v->slots = calloc((size_t)v->nslots, sizeof(*v->slots));
        if (!v->slots)
            goto nomem;
        for (int i = 0; i < v->nslots; i++) {
            v->slots[i].rgb = malloc((size_t)v->width * v->height * 3);
            if (!v->slots[i].rgb)
                goto nomem;
        }
    }
    v->head = v->count = 0;
    v->stop = v->eof = 0;
    v->start_v = vtarget;
    if (pthread_create(&v->thread, NULL, worker, v) != 0) {
        return rp_error_set(err, RP_ERR_NOMEM, 0,
                            "out of memory starting the decoding thread for '%s': %s", v->path,
                            rp_oom_hint());
    }
    v->running = 1;
    return RP_OK;
nomem:
    return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory for the frame queue of '%s': %s",
                        v->path, rp_oom_hint());
}

/* ---- opening ---- */

/* The end of the video stream, in ticks: the largest packet timestamp plus its duration
 * (or the step from the one before), read from the packets after a seek near the declared
 * end, or from every packet when the container declares no end or the seek finds none.
 * Also the largest end over all streams, in AV_TIME_BASE, to tell a truncated file, and the
 * last frame's timestamp (*vlast). A timeless stream is read from its start and its video
 * packets counted, a frame each. */
static int scan_end_read(rp_video_in *v, int64_t *vend, int64_t *vlast, int64_t *all_end,
                         rp_error *err);

/* scan_end_read with the subtitle streams read too (else discarded): a Matroska header's
 * length is every track's, and a subtitle shown past the last frame is no cut (one to 1.3 s
 * over 1 s of video was refused as truncated once the check wanted three frames). */
static int scan_end(rp_video_in *v, int64_t *vend, int64_t *vlast, int64_t *all_end, rp_error *err)
{
    for (unsigned i = 0; i < v->fc->nb_streams; i++)
        if (v->fc->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE)
            v->fc->streams[i]->discard = AVDISCARD_DEFAULT;
    int ret = scan_end_read(v, vend, vlast, all_end, err);
    for (unsigned i = 0; i < v->fc->nb_streams; i++)
        if (v->fc->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE)
            v->fc->streams[i]->discard = AVDISCARD_ALL;
    return ret;
}

/* The last frame's time, from the largest packet time (max) and, for a stream whose last
 * packets have a decode time alone, from the largest decode time (max_dts; AV_NOPTS_VALUE:
 * none): the frames those packets hold are let out the decoder's reorder delay after the
 * last packet, which the first frame's time (the origin) tells against the first packet's
 * decode time, in whole steps between frames (step; ASF's milliseconds put 30 fps frames
 * 33 or 34 apart, and frames let out at the end follow by the last step). The last frames
 * of MPEG-2 (m2v, mpg, ASF) and of an ASF's or AVI's B-frames come out so: the end at the
 * largest time cut the last frame (a P-frame stored before the two B-frames shown before
 * it). */
static int64_t decode_time_end(const rp_video_in *v, int64_t max, int64_t max_dts, int64_t step)
{
    int64_t start = decode_start(v), delay;

    if (max_dts == AV_NOPTS_VALUE || start == AV_NOPTS_VALUE || v->origin <= start ||
        v->origin - start >= INT64_MAX / 4 - max_dts)
        return max;
    delay = v->origin - start;
    if (step > 0 && delay + step / 2 >= step)
        delay = (delay + step / 2) / step * step;
    return max_dts + delay > max ? max_dts + delay : max;
}

/* The end the headers give, in the stream's ticks (the stream's, else the file's);
 * AV_NOPTS_VALUE: none. */
static int64_t declared_end(const rp_video_in *v)
{
    const AVStream *st = v->fc->streams[v->index];

    if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
        return (st->start_time != AV_NOPTS_VALUE ? st->start_time : v->origin) + st->duration;
    if (v->fc->duration != AV_NOPTS_VALUE && v->fc->duration > 0)
        return av_rescale_q(v->fc->duration +
                                (v->fc->start_time != AV_NOPTS_VALUE ? v->fc->start_time : 0),
                            AV_TIME_BASE_Q, v->tb);
    return AV_NOPTS_VALUE;
}

static int scan_end_read(rp_video_in *v, int64_t *vend, int64_t *vlast, int64_t *all_end,
                         rp_error *err)
{
    int64_t declared = declared_end(v);
    int from_start = v->timeless;
    /* Start reading 2 s before the declared end: with B-frames the frame that shows last is
     * stored before others (MPEG-TS seeks by those packets' DTS), and would be missed. */
    int64_t back = av_rescale_q(2 * AV_TIME_BASE, AV_TIME_BASE_Q, v->tb);

    for (;;) {
        int64_t max = AV_NOPTS_VALUE, prev = AV_NOPTS_VALUE, dur = 0, packets = 0;
        int64_t max_dts = AV_NOPTS_VALUE; /* and whether some video packet has no pts: */
        int dts_alone = 0;
        int64_t cut = AV_NOPTS_VALUE; /* the last video packet's time when read short */
        int ret;

        if (declared == AV_NOPTS_VALUE || from_start) {
            if (rewind_input(v) < 0) {
                return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot seek in '%s'", v->path);
            }
        } else if (avformat_seek_file(v->fc, v->index, INT64_MIN, declared - back, declared - back,
                                      0) < 0) {
            from_start = 1;
            continue;
        }
        *all_end = AV_NOPTS_VALUE;
        while ((ret = av_read_frame(v->fc, v->pkt)) >= 0) {
            AVPacket *p = v->pkt;
            AVStream *ps = v->fc->streams[p->stream_index];
            int64_t ts = p->pts != AV_NOPTS_VALUE ? p->pts : p->dts;

            if (ts != AV_NOPTS_VALUE) {
                int64_t e = av_rescale_q(ts + (p->duration > 0 ? p->duration : 0), ps->time_base,
                                         AV_TIME_BASE_Q);
                if (*all_end == AV_NOPTS_VALUE || e > *all_end)
                    *all_end = e;
            }
            packets += p->stream_index == v->index;
            if (p->stream_index == v->index)
                cut = p->flags & AV_PKT_FLAG_CORRUPT ? (ts != AV_NOPTS_VALUE ? ts : v->origin)
                                                     : AV_NOPTS_VALUE;
            if (p->stream_index == v->index && p->dts != AV_NOPTS_VALUE) {
                dts_alone |= p->pts == AV_NOPTS_VALUE;
                if (max_dts == AV_NOPTS_VALUE || p->dts > max_dts)
                    max_dts = p->dts;
            }
            if (p->stream_index == v->index && ts != AV_NOPTS_VALUE) {
                if (max == AV_NOPTS_VALUE || ts > max) {
                    prev = max;
                    max = ts;
                    dur = p->duration;
                } else if (prev == AV_NOPTS_VALUE || ts > prev) {
                    prev = ts;
                }
            }
            av_packet_unref(p);
        }
        if (ret != AVERROR_EOF && !(avio_feof(v->fc->pb) && !v->fc->pb->error)) {
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "cannot read '%s' to its end: the file is truncated or corrupt",
                                v->path);
        }
        /* The file ends inside the last frame's data (an AVI or an MP4 cut short: the
         * demuxer reads it short): not a frame to decode. */
        if (cut != AV_NOPTS_VALUE) {
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "video '%s' is truncated: the file ends inside the data of its "
                                "frame at %.3f s",
                                v->path, seconds(v, cut - v->origin));
        }
        if (v->timeless) {
            if (packets < 1 || packets > INT64_MAX / 4 / v->frame_ticks) {
                return rp_error_set(err, RP_ERR_FORMAT, 1, "video '%s' has no frames to count",
                                    v->path);
            }
            *all_end = AV_NOPTS_VALUE;
            *vlast = (packets - 1) * v->frame_ticks;
            *vend = packets * v->frame_ticks;
            return RP_OK;
        }
        if (max == AV_NOPTS_VALUE) {
            if (from_start) {
                return rp_error_set(err, RP_ERR_FORMAT, 1, "video '%s' has no timestamped frames",
                                    v->path);
            }
            from_start = 1;
            continue;
        }
        if (dur <= 0)
            dur = prev != AV_NOPTS_VALUE && max > prev ? max - prev : 1;
        if (dts_alone || v->dts_only)
            max = decode_time_end(v, max, max_dts, dur);
        *vlast = max;
        *vend = max + dur;
        return RP_OK;
    }
}

/* Rotation and mirroring from the display matrix: refused, never drawn wrong. */
static int check_display_matrix(rp_video_in *v, rp_error *err)
{
    const int32_t *m = (const int32_t *)av_stream_get_side_data(v->fc->streams[v->index],
                                                                AV_PKT_DATA_DISPLAYMATRIX, NULL);
    double angle;

    if (!m)
        return RP_OK;
    /* Identity: a = d = 1.0 (16.16), b = c = 0 */
    if (m[0] == 1 << 16 && m[1] == 0 && m[3] == 0 && m[4] == 1 << 16)
        return RP_OK;
    angle = av_display_rotation_get(m);
    if ((int64_t)m[0] * m[4] - (int64_t)m[1] * m[3] < 0)
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "video '%s' is stored mirrored (display matrix): rockpool does not "
                            "flip video; make an upright copy first (ffmpeg -i IN -c:a copy OUT)",
                            v->path);
    return rp_error_set(err, RP_ERR_FORMAT, 1,
                        "video '%s' is to be shown rotated by %.0f degrees (display matrix): "
                        "rockpool does not rotate video; make an upright copy first (ffmpeg -i IN "
                        "-c:a copy OUT rotates it)",
                        v->path, angle);
}

/* A handle with its options settled and nothing opened; NULL when out of memory. */
static rp_video_in *video_alloc(const char *path, int width, int height,
                                const rp_video_in_opts *opts)
{
    rp_video_in *v = calloc(1, sizeof(*v));
    if (!v || !(v->path = strdup(path))) {
        free(v);
        return NULL;
    }
    v->width = width;
    v->height = height;
    if (opts)
        v->opts = *opts;
    else
        rp_video_in_opts_init(&v->opts);
    if (v->opts.queue_frames == 0)
        v->opts.queue_frames = 4;
    if (v->opts.threads < 1)
        v->opts.threads = 1;
    v->opts.queue_frames = rp_clampi(v->opts.queue_frames, 2, 64);
    v->nslots = v->opts.queue_frames + 1;
    v->first_dts = AV_NOPTS_VALUE;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->cond, NULL);
    return v;
}

/* The pictures a decoder holds (rp_video_in_memory), at least a byte a pixel each. */
static int64_t decoder_floor(const rp_video_in *v, int64_t w, int64_t h)
{
    return (16 + v->opts.threads + 2) * w * h;
}

/* The video streams' sizes as the container's header gives them, before any frame is
 * decoded (reading the streams decodes one): over RP_MAX_SIDE, or needing more than
 * --max-memory to decode, is refused here. */
static int check_header_sizes(const rp_video_in *v, rp_error *err)
{
    for (unsigned i = 0; i < v->fc->nb_streams; i++) {
        const AVCodecParameters *par = v->fc->streams[i]->codecpar;
        int64_t need;

        if (par->codec_type != AVMEDIA_TYPE_VIDEO || par->width <= 0 || par->height <= 0)
            continue;
        if (par->width > RP_MAX_SIDE || par->height > RP_MAX_SIDE) {
            return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                                "video '%s' is %dx%d: at most %d pixels per side are accepted",
                                v->path, par->width, par->height, RP_MAX_SIDE);
        }
        need = decoder_floor(v, par->width, par->height);
        if (v->opts.max_memory > 0 && need > v->opts.max_memory) {
            return rp_error_set(
                err, RP_ERR_TOO_LARGE, 1,
                "video '%s' is %dx%d: decoding it needs at least %.1f MiB, over the limit of "
                "%.1f MiB (raise it with %s)",
                v->path, par->width, par->height, (double)need / (1 << 20),
                (double)v->opts.max_memory / (1 << 20), rp_name("--max-memory", "max_memory"));
        }
    }
    return RP_OK;
}

/* The container's video stream (v->index, v->tb) and its decoder, checked for what
 * rockpool can draw: not a still, a time base, a size, upright. */
static int find_video_stream(rp_video_in *v, const AVCodec **codec, rp_error *err)
{
    const char *path = v->path;
    if (rp_demux_is_image(v->fc->iformat->name)) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "'%s' is a still image, not a video", path);
    }
    int ret = check_header_sizes(v, err);
    if (ret)
        return ret;
    if (avformat_find_stream_info(v->fc, NULL) < 0) {
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "cannot read the streams of '%s' (corrupt or truncated?)", path);
    }
    v->index = av_find_best_stream(v->fc, AVMEDIA_TYPE_VIDEO, -1, -1, codec, 0);
    if (v->index == AVERROR_STREAM_NOT_FOUND ||
        (v->index >= 0 && (v->fc->streams[v->index]->disposition & AV_DISPOSITION_ATTACHED_PIC))) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "'%s' has no video stream", path);
    }
    if (v->index < 0 || !*codec) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "'%s': no decoder for its video (%s)", path,
                            v->index >= 0
                                ? avcodec_get_name(v->fc->streams[v->index]->codecpar->codec_id)
                                : "unknown codec");
    }
    AVStream *st = v->fc->streams[v->index];
    /* VP8 and VP9 keep alpha in a second stream of Matroska's block additions (WebM's
     * alpha_mode 1), which only libvpx's decoders read: FFmpeg's own would drop it. */
    const AVDictionaryEntry *am = av_dict_get(st->metadata, "alpha_mode", NULL, 0);
    enum AVCodecID id = st->codecpar->codec_id;
    if (am && !strcmp(am->value, "1") && (id == AV_CODEC_ID_VP8 || id == AV_CODEC_ID_VP9)) {
        const char *name = id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx";
        const AVCodec *vpx = avcodec_find_decoder_by_name(name);
        if (!vpx) {
            return rp_error_set(err, RP_ERR_FORMAT, 1,
                                "'%s': its %s video has alpha, which only the %s decoder reads, "
                                "and this FFmpeg has none",
                                path, avcodec_get_name(id), name);
        }
        *codec = vpx;
    }
    v->tb = st->time_base;
    if (v->tb.num <= 0 || v->tb.den <= 0) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "video '%s' has no time base", path);
    }
    if (st->codecpar->width > RP_MAX_SIDE || st->codecpar->height > RP_MAX_SIDE) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 1,
                            "video '%s' is %dx%d: at most %d pixels per side are accepted", path,
                            st->codecpar->width, st->codecpar->height, RP_MAX_SIDE);
    }
    if ((ret = check_display_matrix(v, err)))
        return ret;
    /* A frame's length, for a stream whose frames have no timestamps (raw H.264/HEVC). */
    AVRational rate = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0 ? st->avg_frame_rate
                                                                               : st->r_frame_rate;
    if (rate.num > 0 && rate.den > 0)
        v->frame_ticks = av_rescale_q(1, av_inv_q(rate), v->tb);
    v->rates[0] = st->r_frame_rate;
    v->rates[1] = st->avg_frame_rate;
    /* Only this stream's packets matter to the decoder. */
    for (unsigned i = 0; i < v->fc->nb_streams; i++)
        if ((int)i != v->index && v->fc->streams[i]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO)
            v->fc->streams[i]->discard = AVDISCARD_ALL;
    return RP_OK;
}

/* Picture buffers up to the header's size (head_w x head_h, and the padding of coded
 * sizes to whole macroblocks or superblocks); a larger one is refused and noted. */
#define GROW_SLACK 128
static int bounded_get_buffer(AVCodecContext *dec, AVFrame *frame, int flags)
{
    rp_video_in *v = rp_demux_opaque(dec);

    if (frame->width > v->head_w + GROW_SLACK || frame->height > v->head_h + GROW_SLACK) {
        __atomic_store_n(&v->grew_pts, frame->pts != AV_NOPTS_VALUE ? frame->pts : frame->pkt_dts,
                         __ATOMIC_RELAXED);
        __atomic_store_n(&v->grew_at, __atomic_load_n(&v->pictures, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&v->grew_h, frame->height, __ATOMIC_RELAXED);
        __atomic_store_n(&v->grew_w, frame->width, __ATOMIC_RELAXED);
        return AVERROR(EINVAL);
    }
    __atomic_add_fetch(&v->pictures, 1, __ATOMIC_RELAXED);
    return avcodec_default_get_buffer2(dec, frame, flags);
}

/* The decoder, bit-exact, reporting damaged data instead of concealing it. */
static int open_video_decoder(rp_video_in *v, const AVCodec *codec, rp_error *err)
{
    v->pkt = av_packet_alloc();
    v->frame = av_frame_alloc();
    v->pending = av_frame_alloc();
    if (!v->pkt || !v->frame || !v->pending) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory opening '%s'", v->path);
    }
    const AVCodecParameters *par = v->fc->streams[v->index]->codecpar;
    v->head_w = par->width;
    v->head_h = par->height;
    const rp_decoder_opts o = {.threads = v->opts.threads,
                               .bitexact = 1,
                               .explode = 1,
                               .get_buffer2 =
                                   par->width > 0 && par->height > 0 ? bounded_get_buffer : NULL,
                               .opaque = v,
                               .hooks = &v->hooks};
    int ret = rp_demux_open_decoder(&v->dec, v->fc, v->index, codec, &o);
    if (ret == AVERROR(ENOMEM) && !v->dec) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory opening '%s'", v->path);
    }
    if (ret < 0) {
        char msg[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(ret, msg, sizeof(msg));
        return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot open the %s decoder for '%s': %s",
                            codec->name, v->path, msg);
    }
    return RP_OK;
}

/* The first frame (the origin, and proof that the stream decodes) and the clip's length
 * (v->duration), refusing a file whose frames stop well before its header says. */
static int first_frame_and_length(rp_video_in *v, rp_error *err)
{
    const char *path = v->path;
    int64_t vend = 0, vlast = 0, all_end = 0; /* set by scan_end unless it fails */
    v->last_rel = INT64_MIN;
    v->origin = 0;
    v->pkt_count = 0;
    v->first_sent = 0;
    v->key_seen = 0;
    set_first_gop(v, 1);
    int ret = next_frame(v, v->pending, err);
    if (ret == AVERROR_EOF && !v->keyless) { /* no packet flagged a keyframe: decode them all */
        v->keyless = 1;
        if (rewind_input(v) < 0) {
            return rp_error_set(err, RP_ERR_FORMAT, 1, "cannot seek back to the start of '%s'",
                                path);
        }
        v->last_rel = INT64_MIN;
        ret = next_frame(v, v->pending, err);
    }
    if (ret == AVERROR_EOF) {
        return rp_error_set(err, RP_ERR_FORMAT, 1, "video '%s' has no decodable frame", path);
    }
    if (ret)
        return ret;
    v->origin = v->pending->best_effort_timestamp;
    if ((ret = ensure_scaler(v, v->pending, err)))
        return ret;
    av_frame_unref(v->pending);
    if ((ret = scan_end(v, &vend, &vlast, &all_end, err)))
        return ret;
    v->duration = vend - v->origin;
    v->last_pts = vlast - v->origin;
    if (v->duration <= 0) {
        return rp_error_set(err, RP_ERR_FORMAT, 1,
                            "video '%s' has no duration (its timestamps end where they start)",
                            path);
    }
    /* A file cut short still has its declared length in the header (Matroska, MPEG-TS):
     * its packets stop more than three frames (0.1 to 0.5 s) before it. Where that length
     * ends: the video stream's own start and duration when it has them (MP4's media duration); else
     * the container's duration (Matroska's, MP4's movie header), which ends at its last
     * timestamp, counted from 0: a clip whose timestamps start at 5 s (-copyts,
     * -output_ts_offset) was refused as truncated, its start counted twice. FFmpeg's
     * estimate from the timestamps is read from the file's own last packets, so it never
     * tells a cut; it counts from the start time for MPEG-TS but from 0 for NUT (whose
     * index gives it): the start is not added to it either (a whole NUT clip starting at
     * 5 s was refused, 'its header says 8.967 s' for 4 s). */
    if (v->fc->duration != AV_NOPTS_VALUE && v->fc->duration > 0 && all_end != AV_NOPTS_VALUE &&
        v->fc->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE) {
        const AVStream *st = v->fc->streams[v->index];
        const int64_t start = v->fc->start_time != AV_NOPTS_VALUE ? v->fc->start_time : 0;
        int64_t declared_end = v->fc->duration;
        if (st->start_time != AV_NOPTS_VALUE && st->duration != AV_NOPTS_VALUE && st->duration > 0)
            declared_end =
                av_rescale_q(st->start_time + st->duration, st->time_base, AV_TIME_BASE_Q);
        AVRational rate = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0
                              ? st->avg_frame_rate
                              : (AVRational){1, 1};
        /* Headers are exact to a frame or so (Matroska's to the millisecond): more than
         * three frames missing (at least 0.1 s, at most 0.5 s) is a cut. Half a second
         * always let a 1 s clip cut to 60% through (frames 17 to 29 shown as frame 16). */
        int64_t slack = av_rescale_q(3, av_inv_q(rate), AV_TIME_BASE_Q);
        slack = slack < AV_TIME_BASE / 10  ? AV_TIME_BASE / 10
                : slack > AV_TIME_BASE / 2 ? AV_TIME_BASE / 2
                                           : slack;
        if (all_end + slack < declared_end) {
            return rp_error_set(
                err, RP_ERR_FORMAT, 1,
                "video '%s' is truncated: its header says %.3f s, but its frames stop at "
                "%.3f s (frame %" PRId64 " and later are missing)",
                path, (double)(declared_end - start) / AV_TIME_BASE, seconds(v, v->duration),
                av_rescale_q(v->duration, v->tb, av_inv_q(rate)));
        }
    }
    return RP_OK;
}

int rp_video_in_open(rp_video_in **pv, const char *path, int width, int height,
                     const rp_video_in_opts *opts, rp_error *err)
{
    const AVCodec *codec = NULL;
    int ret;

    *pv = NULL;
    if (width < 1 || height < 1 || width > RP_MAX_SIDE || height > RP_MAX_SIDE) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "cannot draw video '%s' at %dx%d", path, width,
                            height);
    }
    av_log_set_level(AV_LOG_QUIET);
    rp_video_in *v = video_alloc(path, width, height, opts);
    if (!v) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory opening '%s'", path);
    }
    struct stat st;
    memset(&st, 0, sizeof st); /* filled when open_input succeeds (gcc -O3 cannot tell) */
    if (!(ret = open_input(&v->fc, path, &st, err))) {
        v->size = st.st_size;
        v->mtime = st.st_mtim;
        v->dev = st.st_dev;
        v->ino = st.st_ino;
    }
    if (ret || (ret = find_video_stream(v, &codec, err)) ||
        (ret = open_video_decoder(v, codec, err)) || (ret = first_frame_and_length(v, err))) {
        rp_video_in_close(&v);
        return ret;
    }
    *pv = v;
    return RP_OK;
}

int64_t rp_video_in_memory(const rp_video_in *v)
{
    int64_t frame = (int64_t)v->width * v->height * 3;
    int picture = av_image_get_buffer_size((enum AVPixelFormat)v->src_fmt, v->src_w, v->src_h, 64);
    /* Decoder pictures: up to 16 references (H.264/H.265), one being decoded per thread,
     * the frame in hand and the one ahead. */
    int64_t pictures = 16 + v->opts.threads + 2;

    if (picture < 0)
        picture = v->src_w * v->src_h * 8;
    return frame * v->nslots + pictures * (picture + 4096) +
           rp_fit_scaler_bytes(v->width, v->height) +
           (8 << 20); /* demuxer buffers, decoder tables, libswscale's filters */
}

static void reduce(int64_t *num, int64_t *den)
{
    int64_t a = *num < 0 ? -*num : *num, b = *den;

    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    if (a > 1) {
        *num /= a;
        *den /= a;
    }
}

void rp_video_in_duration(const rp_video_in *v, int64_t *num, int64_t *den)
{
    *num = v->duration * v->tb.num;
    *den = v->tb.den;
    reduce(num, den);
}

void rp_video_in_origin(const rp_video_in *v, int64_t *num, int64_t *den)
{
    *num = v->origin * v->tb.num;
    *den = v->tb.den;
    reduce(num, den);
}

void rp_video_in_info(const rp_video_in *v, int *width, int *height, int *sar_num, int *sar_den)
{
    *width = v->src_w;
    *height = v->src_h;
    *sar_num = v->sar_num;
    *sar_den = v->sar_den;
}

const char *rp_video_in_hdr(const rp_video_in *v)
{
    switch (v->trc) {
    case AVCOL_TRC_SMPTE2084: return "PQ (SMPTE ST 2084)";
    case AVCOL_TRC_ARIB_STD_B67: return "HLG (ARIB STD-B67)";
    default: return NULL;
    }
}

const char *rp_video_in_fields(const rp_video_in *v)
{
    return v->fields == 1 ? "top field first" : v->fields == 2 ? "bottom field first" : NULL;
}

/* A failure while frames are read: kept (v->failed, v->fmsg) and told again on every later
 * call. A file cut or changed while being read (RP_ERR_IO) is, like memory, no fault of
 * the input as it was given. */
static int caller_fail(rp_video_in *v, int code, const char *msg, rp_error *err)
{
    v->failed = code;
    snprintf(v->fmsg, sizeof(v->fmsg), "%.511s", msg);
    return rp_error_set(err, code, code != RP_ERR_NOMEM && code != RP_ERR_IO, "%s", v->fmsg);
}

int rp_video_in_frame_at(rp_video_in *v, int64_t num, int64_t den, const uint8_t **rgb,
                         rp_error *err)
{
    int64_t t, vt, jump;
    int ret;

    if (v->failed)
        return rp_error_set(err, v->failed, v->failed != RP_ERR_NOMEM && v->failed != RP_ERR_IO,
                            "%s", v->fmsg);
    if (num < 0 || den < 1 || den > INT32_MAX) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "bad video time %" PRId64 "/%" PRId64, num,
                            den);
    }
    /* t / tb to the nearest tick (halves up), exactly: containers store times rounded to
     * their ticks (Matroska's milliseconds put frame 2 of 30 fps at 67 ms, after 2/30 s),
     * so a frame within half a tick after the instant is the instant's frame. */
    t = av_rescale_rnd(num, v->tb.den, den * v->tb.num, AV_ROUND_NEAR_INF);
    if (t < 0 || t > INT64_MAX / 4) {
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "video time %" PRId64 "/%" PRId64 " is out of range", num, den);
    }
    vt = v->opts.end == RP_VIDEO_LOOP ? t : (t < v->duration ? t : v->duration - 1);

    jump = av_rescale(JUMP_SECONDS, v->tb.den, v->tb.num);
    pthread_mutex_lock(&v->lock);
    if (!v->running || (v->count > 0 && vt < v->slots[v->head].vpts) ||
        (v->count > 0 && vt - v->slots[(v->head + v->count - 1) % v->nslots].vpts > jump)) {
        rp_error e;

        pthread_mutex_unlock(&v->lock);
        ret = start_worker(v, vt, &e);
        if (ret)
            return caller_fail(v, ret, e.msg, err);
        pthread_mutex_lock(&v->lock);
    }
    for (;;) {
        while (v->count < 2 && !v->eof && !v->werr)
            pthread_cond_wait(&v->cond, &v->lock);
        if (v->count >= 2 && v->slots[(v->head + 1) % v->nslots].vpts <= vt) {
            v->head = (v->head + 1) % v->nslots;
            v->count--;
            pthread_cond_broadcast(&v->cond);
            continue;
        }
        if (v->count >= 2 || (v->count == 1 && v->eof))
            break;
        /* The worker failed (the frame after the head, whose time is unknown, or before). */
        pthread_mutex_unlock(&v->lock);
        return caller_fail(v, v->werr ? v->werr : RP_ERR_FORMAT,
                           v->werr ? v->wmsg : "video ended without a frame", err);
    }
    *rgb = v->slots[v->head].rgb;
    pthread_mutex_unlock(&v->lock);
    return RP_OK;
}

void rp_video_in_close(rp_video_in **pv)
{
    rp_video_in *v;

    if (!pv || !*pv)
        return;
    v = *pv;
    stop_worker(v);
    if (v->slots)
        for (int i = 0; i < v->nslots; i++)
            free(v->slots[i].rgb);
    free(v->slots);
    rp_fit_scaler_free(&v->scaler);
    av_frame_free(&v->frame);
    av_frame_free(&v->pending);
    av_packet_free(&v->pkt);
    avcodec_free_context(&v->dec);
    avformat_close_input(&v->fc);
    pthread_mutex_destroy(&v->lock);
    pthread_cond_destroy(&v->cond);
    free(v->path);
    free(v);
    *pv = NULL;
}
