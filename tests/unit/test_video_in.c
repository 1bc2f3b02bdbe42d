/* test_video_in.c - video backgrounds (video_in.c) and the audio they carry into video
 * outputs (output_video.c). Test clips are made at test time by the real ffmpeg program in
 * a temporary directory. The oracles are FFmpeg's own tools: ffprobe lists each clip's frame
 * timestamps (the frame a time must show is worked out here from them, in plain integer
 * arithmetic), ffmpeg decodes each clip to raw RGB24 (the pixels each shown frame must
 * match, PSNR > 35 dB and closer than any other frame), and ffprobe measures the audio
 * stream of a written file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "output/output.h"
#include "input/video_in.h"

static char dir[64];

/* ---- helpers ---- */

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

static const char *file(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];

    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* What ffprobe and ffmpeg say about a clip's video. */
typedef struct clip {
    int64_t tb_num, tb_den;
    int64_t pts[512];
    int n;
    uint8_t *rgb; /* n frames of w x h RGB24, as ffmpeg decodes them */
    int w, h;
} clip;

/* tests/tools/yuv_rgb, the tests' transcription of how rockpool makes RGB of limited-range
 * YUV (fit.c), beside this program's directory: build/tests/.. (make builds it first). */
static const char *yuv_rgb_tool(void)
{
    static char path[4096];
    char self[4000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    assert_non_null(slash);
    *slash = '\0';
    snprintf(path, sizeof path, "%s/../yuv_rgb", self);
    assert_int_equal(access(path, X_OK), 0);
    return path;
}

static void probe(const char *name, int w, int h, clip *c)
{
    char out[300];
    uint8_t *text;
    size_t len;
    char *line, *save;

    memset(c, 0, sizeof(*c));
    c->w = w;
    c->h = h;
    snprintf(out, sizeof(out), "%s.tb", file(name));
    assert_int_equal(run("ffprobe -v error -select_streams v:0 -show_entries stream=time_base "
                         "-of csv=p=0 '%s' > '%s'",
                         file(name), out),
                     0);
    text = slurp(out, &len);
    assert_int_equal(sscanf((char *)text, "%" SCNd64 "/%" SCNd64, &c->tb_num, &c->tb_den), 2);
    free(text);
    snprintf(out, sizeof(out), "%s.pts", file(name));
    assert_int_equal(run("ffprobe -v error -select_streams v:0 -show_entries "
                         "frame=best_effort_timestamp -of csv=p=0 '%s' > '%s'",
                         file(name), out),
                     0);
    text = slurp(out, &len);
    for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        assert_true(c->n < 512);
        c->pts[c->n++] = strtoll(line, NULL, 10);
    }
    free(text);
    snprintf(out, sizeof(out), "%s.rgb", file(name));
    /* BT.601: the clips name no matrix */
    assert_int_equal(run("ffmpeg -v error -y -i '%s' -map 0:v:0 -fps_mode passthrough -s %dx%d "
                         "-sws_flags bicubic+accurate_rnd+bitexact -f rawvideo -pix_fmt yuv444p - "
                         "| '%s' %d %d 2990 1140 > '%s'",
                         file(name), w, h, yuv_rgb_tool(), w, h, out),
                     0);
    c->rgb = slurp(out, &len);
    assert_int_equal(len, (size_t)c->n * w * h * 3);
}

/* The timestamp rule, transcribed: the last frame i with (pts_i - pts_0) * tb <= num/den. */
static int expected(const clip *c, int64_t num, int64_t den)
{
    int best = 0;

    for (int i = 0; i < c->n; i++)
        if ((c->pts[i] - c->pts[0]) * c->tb_num * den <= num * c->tb_den)
            best = i;
    return best;
}

static double psnr(const uint8_t *a, const uint8_t *b, size_t n)
{
    double se = 0;

    for (size_t i = 0; i < n; i++)
        se += (double)(a[i] - b[i]) * (a[i] - b[i]);
    return se == 0 ? 99 : 10 * log10(255.0 * 255.0 * (double)n / se);
}

/* The shown frame must be within 35 dB of frame i, and closer to it than to any other. */
static void assert_shows(const clip *c, const uint8_t *rgb, int i, int64_t k)
{
    size_t fb = (size_t)c->w * c->h * 3;
    double want = psnr(rgb, c->rgb + (size_t)i * fb, fb);

    if (want < 35)
        fail_msg("output frame %" PRId64 ": %.1f dB from input frame %d", k, want, i);
    for (int j = 0; j < c->n; j++)
        if (j != i && memcmp(c->rgb + (size_t)j * fb, c->rgb + (size_t)i * fb, fb) &&
            psnr(rgb, c->rgb + (size_t)j * fb, fb) >= want)
            fail_msg("output frame %" PRId64 " looks like input frame %d, not %d", k, j, i);
}

static rp_video_in *open_clip(const char *name, int w, int h, enum rp_video_end end)
{
    rp_video_in_opts o;
    rp_video_in *v;
    rp_error err;
    int ret;

    rp_video_in_opts_init(&o);
    o.end = end;
    ret = rp_video_in_open(&v, file(name), w, h, &o, &err);
    if (ret)
        fail_msg("open %s: %s", name, err.msg);
    return v;
}

static const uint8_t *frame_at(rp_video_in *v, int64_t num, int64_t den)
{
    const uint8_t *rgb = NULL;
    rp_error err;

    if (rp_video_in_frame_at(v, num, den, &rgb, &err))
        fail_msg("frame at %" PRId64 "/%" PRId64 ": %s", num, den, err.msg);
    return rgb;
}

/* Render frames first..last at fps_num/fps_den and check each against the rule. */
static void check_rate(const char *name, int64_t fps_num, int64_t fps_den, int64_t first,
                       int64_t last, enum rp_video_end end, int64_t dur_num, int64_t dur_den)
{
    clip *c = malloc(sizeof(*c));
    rp_video_in *v;

    assert_non_null(c);
    probe(name, 160, 90, c);
    v = open_clip(name, 160, 90, end);
    for (int64_t k = first; k <= last; k++) {
        int64_t num = k * fps_den, den = fps_num;
        int i;

        if (end == RP_VIDEO_LOOP) { /* t mod D, D = dur_num / dur_den */
            num = (num * dur_den) % (dur_num * den);
            den *= dur_den;
        }
        i = expected(c, num, den);
        assert_shows(c, frame_at(v, k * fps_den, fps_num), i, k);
    }
    rp_video_in_close(&v);
    free(c->rgb);
    free(c);
}

/* ---- fixtures ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/rp-test-video-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    /* 2 s, 25 fps, B-frames, with a 440 Hz sine track */
    if (run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=25 -f lavfi "
            "-i sine=frequency=440:duration=2 -t 2 -c:v libx264 -pix_fmt yuv420p -c:a aac "
            "c25.mp4",
            dir) ||
        /* 30 fps */
        run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30 -t 2 "
            "-c:v libx264 c30.mp4",
            dir) ||
        /* 10 s, a keyframe every second, for seeking, in both containers */
        run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=25 -t 10 "
            "-c:v libx264 -g 25 c10.mp4 && ffmpeg -v error -i c10.mp4 -c copy c10.mkv",
            dir) ||
        /* variable frame rate: frames 0, 1, 5, 6, 10, 11, 15, 16, 17, 20, ... of 25 fps */
        run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=25 -t 2 -vf "
            "\"select='lt(mod(n\\,5)\\,2)+eq(n\\,17)'\" -fps_mode vfr -c:v libx264 vfr.mkv",
            dir) ||
        /* odd size, lossless */
        run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=25 -t 1 "
            "-vf scale=161:91,setsar=1 -c:v ffv1 -pix_fmt yuv420p odd.mkv",
            dir) ||
        run("cd %s && ffmpeg -v error -f lavfi -i sine=duration=1 sine.wav", dir) ||
        run("cd %s && ffmpeg -v error -f lavfi -i sine=duration=1:sample_rate=48000 s48.wav",
            dir) ||
        run("cd %s && ffmpeg -v error -f lavfi -i testsrc2=size=32x32 -frames:v 1 still.png",
            dir) ||
        run("cd %s && ffmpeg -v error -i c25.mp4 -c copy -metadata:s:v rotate=90 rot.mp4", dir) ||
        run("cd %s && ffmpeg -v error -i c10.mp4 -c copy -an c10v.mkv && "
            "head -c $(( $(stat -c %%s c10v.mkv) * 6 / 10 )) c10v.mkv > cut.mkv",
            dir))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* ---- frame choice ---- */

static void test_25_at_25(void **state)
{
    (void)state;
    check_rate("c25.mp4", 25, 1, 0, 49, RP_VIDEO_HOLD, 0, 1);
}

static void test_25_at_50(void **state)
{
    clip *c = malloc(sizeof(*c));

    (void)state;
    assert_non_null(c);
    probe("c25.mp4", 160, 90, c);
    assert_int_equal(c->n, 50);
    /* frames 2k and 2k + 1 both show input frame k */
    for (int k = 0; k < 100; k++)
        assert_int_equal(expected(c, k, 50), k / 2);
    free(c->rgb);
    free(c);
    check_rate("c25.mp4", 50, 1, 0, 99, RP_VIDEO_HOLD, 0, 1);
}

static void test_30_at_24(void **state)
{
    clip *c = malloc(sizeof(*c));

    (void)state;
    assert_non_null(c);
    probe("c30.mp4", 160, 90, c);
    assert_int_equal(c->n, 60);
    for (int k = 0; k < 48; k++) /* k / 24 s -> input frame floor(30 k / 24) */
        assert_int_equal(expected(c, k, 24), 30 * k / 24);
    free(c->rgb);
    free(c);
    check_rate("c30.mp4", 24, 1, 0, 47, RP_VIDEO_HOLD, 0, 1);
    check_rate("c30.mp4", 30000, 1001, 0, 59, RP_VIDEO_HOLD, 0, 1);
}

static void test_vfr(void **state)
{
    (void)state;
    check_rate("vfr.mkv", 25, 1, 0, 49, RP_VIDEO_HOLD, 0, 1);
    check_rate("vfr.mkv", 60, 1, 0, 119, RP_VIDEO_HOLD, 0, 1);
}

static void test_hold_and_loop(void **state)
{
    rp_video_in *v = open_clip("c25.mp4", 160, 90, RP_VIDEO_HOLD);
    int64_t num, den;

    (void)state;
    rp_video_in_duration(v, &num, &den);
    assert_int_equal(num, 2);
    assert_int_equal(den, 1);
    rp_video_in_close(&v);
    check_rate("c25.mp4", 25, 1, 40, 90, RP_VIDEO_HOLD, 0, 1); /* past the end: frame 49 */
    check_rate("c25.mp4", 25, 1, 0, 160, RP_VIDEO_LOOP, 2, 1);
    check_rate("c25.mp4", 30, 1, 0, 130, RP_VIDEO_LOOP, 2, 1);
    /* the VFR clip's last frame (input 46 at 1.84 s) lasts 40 ms: 1.88 s */
    v = open_clip("vfr.mkv", 160, 90, RP_VIDEO_HOLD);
    rp_video_in_duration(v, &num, &den);
    assert_int_equal(num, 47);
    assert_int_equal(den, 25);
    rp_video_in_close(&v);
    check_rate("vfr.mkv", 25, 1, 0, 120, RP_VIDEO_LOOP, 47, 25);
    check_rate("vfr.mkv", 30, 1, 0, 120, RP_VIDEO_LOOP, 47, 25);
}

/* A first call at a late time seeks; its frames equal those of a run from the start, byte
 * for byte, in both containers, and in loop mode past the end. */
static void seek_case(const char *name, enum rp_video_end end, int64_t first, int64_t last)
{
    size_t fb = 160 * 90 * 3;
    int64_t n = last + 1;
    uint8_t *seq = malloc((size_t)n * fb);
    rp_video_in *v = open_clip(name, 160, 90, end);

    assert_non_null(seq);
    for (int64_t k = 0; k < n; k++)
        memcpy(seq + (size_t)k * fb, frame_at(v, k, 25), fb);
    rp_video_in_close(&v);
    for (int64_t start = first; start <= last; start += 7) {
        v = open_clip(name, 160, 90, end);
        for (int64_t k = start; k <= last && k < start + 30; k++)
            if (memcmp(frame_at(v, k, 25), seq + (size_t)k * fb, fb))
                fail_msg("%s: frame %" PRId64 " of a run starting at %" PRId64
                         " differs from the full run",
                         name, k, start);
        rp_video_in_close(&v);
    }
    free(seq);
}

static void test_seek_equals_sequential(void **state)
{
    (void)state;
    seek_case("c10.mp4", RP_VIDEO_HOLD, 30, 249);
    seek_case("c10.mkv", RP_VIDEO_HOLD, 100, 260);
    seek_case("c25.mp4", RP_VIDEO_LOOP, 37, 200);
}

/* A jump far ahead in one run (the source seeks) gives the rule's frame too. */
static void test_jump(void **state)
{
    clip *c = malloc(sizeof(*c));
    rp_video_in *v;

    (void)state;
    assert_non_null(c);
    probe("c10.mp4", 160, 90, c);
    v = open_clip("c10.mp4", 160, 90, RP_VIDEO_HOLD);
    assert_shows(c, frame_at(v, 3, 25), 3, 3);
    assert_shows(c, frame_at(v, 201, 25), 201, 201);
    assert_shows(c, frame_at(v, 202, 25), 202, 202);
    rp_video_in_close(&v);
    free(c->rgb);
    free(c);
}

static void test_odd_size(void **state)
{
    clip *c = malloc(sizeof(*c));
    rp_video_in_opts o;
    rp_video_in *v;
    rp_error err;
    int w, h, sn, sd;

    (void)state;
    assert_non_null(c);
    probe("odd.mkv", 161, 91, c);
    rp_video_in_opts_init(&o);
    assert_int_equal(rp_video_in_open(&v, file("odd.mkv"), 161, 91, &o, &err), RP_OK);
    rp_video_in_info(v, &w, &h, &sn, &sd);
    assert_int_equal(w, 161);
    assert_int_equal(h, 91);
    for (int k = 0; k < 25; k++)
        assert_shows(c, frame_at(v, k, 25), k, k);
    rp_video_in_close(&v);
    /* to another odd size, each fit mode: runs, and is deterministic */
    for (int f = 0; f < 3; f++) {
        const uint8_t *rgb;
        uint8_t *first = malloc(77 * 45 * 3);

        o.fit = (enum rp_fit)f;
        assert_int_equal(rp_video_in_open(&v, file("odd.mkv"), 77, 45, &o, &err), RP_OK);
        memcpy(first, frame_at(v, 3, 25), 77 * 45 * 3);
        rp_video_in_close(&v);
        assert_int_equal(rp_video_in_open(&v, file("odd.mkv"), 77, 45, &o, &err), RP_OK);
        rgb = frame_at(v, 3, 25);
        assert_memory_equal(rgb, first, 77 * 45 * 3);
        rp_video_in_close(&v);
        free(first);
    }
    free(c->rgb);
    free(c);
}

/* ---- refusals ---- */

static void expect_open_error(const char *name, int code, const char *phrase)
{
    rp_video_in_opts o;
    rp_video_in *v = (rp_video_in *)1;
    rp_error err = {0};
    int ret;

    rp_video_in_opts_init(&o);
    ret = rp_video_in_open(&v, file(name), 160, 90, &o, &err);
    if (ret != code || !strstr(err.msg, phrase))
        fail_msg("%s: got %d '%s', want %d with '%s'", name, ret, err.msg, code, phrase);
    assert_null(v);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_open_error("sine.wav", RP_ERR_FORMAT, "no video stream");
    expect_open_error("still.png", RP_ERR_FORMAT, "still image");
    expect_open_error("rot.mp4", RP_ERR_FORMAT, "rotated by 90 degrees (display");
    expect_open_error("cut.mkv", RP_ERR_FORMAT, "truncated");
    expect_open_error("missing.mp4", RP_ERR_IO, "cannot open");
    expect_open_error("", RP_ERR_IO, "not a regular file"); /* the directory */
    assert_true(rp_video_in_is_video(file("c25.mp4")));
    assert_true(rp_video_in_is_video(file("vfr.mkv")));
    assert_false(rp_video_in_is_video(file("still.png")));
    assert_false(rp_video_in_is_video(file("missing.mp4")));
}

/* Damage in the middle of the stream: an error naming the frame, from that frame on. */
static void test_corrupt_midway(void **state)
{
    rp_video_in *v;
    const uint8_t *rgb;
    rp_error err = {0};
    int64_t k;
    int ret = RP_OK;

    (void)state;
    assert_int_equal(run("cd %s && cp c10.mp4 bad.mp4 && size=$(stat -c %%s bad.mp4) && "
                         "head -c 3000 /dev/urandom | dd of=bad.mp4 bs=1 seek=$((size / 2)) "
                         "conv=notrunc status=none",
                         dir),
                     0);
    v = open_clip("bad.mp4", 160, 90, RP_VIDEO_HOLD);
    for (k = 0; k < 250 && !ret; k++)
        ret = rp_video_in_frame_at(v, k, 25, &rgb, &err);
    assert_int_equal(ret, RP_ERR_FORMAT);
    if (!strstr(err.msg, "video frame") || !strstr(err.msg, "bad.mp4"))
        fail_msg("message: %s", err.msg);
    assert_true(k > 50 && k < 250);
    /* and it stays failed */
    assert_int_equal(rp_video_in_frame_at(v, k, 25, &rgb, &err), RP_ERR_FORMAT);
    rp_video_in_close(&v);
}

/* ---- memory ---- */

static void test_memory_bounded(void **state)
{
    rp_video_in *a = open_clip("c25.mp4", 640, 360, RP_VIDEO_HOLD);
    rp_video_in *b = open_clip("c10.mp4", 640, 360, RP_VIDEO_HOLD);
    int64_t ma = rp_video_in_memory(a);

    (void)state;
    /* the same for a 2 s and a 10 s clip; at least the queue of 5 RGB frames */
    assert_int_equal(ma, rp_video_in_memory(b));
    assert_true(ma >= 5 * 640 * 360 * 3);
    assert_true(ma < 64 << 20);
    rp_video_in_close(&a);
    rp_video_in_close(&b);
}

/* ---- audio carried into a video output ---- */

static void write_with_audio(const char *name, const char *audio, int64_t first, int64_t count)
{
    rp_output_spec o;
    rp_output *out;
    uint8_t *rgb = calloc(160 * 90 * 3, 1);
    rp_error err;

    rp_output_spec_init(&o);
    o.path = file(name);
    o.width = 160;
    o.height = 90;
    o.fps = 25;
    o.first_frame = first;
    o.frame_count = count;
    o.overwrite = 1;
    o.audio_path = audio ? file(audio) : NULL;
    o.audio_offset_num = first;
    o.audio_offset_den = 25;
    o.audio_length_num = count;
    o.audio_length_den = 25;
    if (rp_output_open(&out, &o, &err))
        fail_msg("open %s: %s", name, err.msg);
    for (int64_t k = 0; k < count; k++)
        if (rp_output_write(out, first + k, rgb, &err))
            fail_msg("write %s: %s", name, err.msg);
    if (rp_output_close(&out, &err))
        fail_msg("close %s: %s", name, err.msg);
    free(rgb);
}

/* The audio stream's span from its packets: the end of the last minus the first's start
 * (Matroska files carry no stream duration). */
static double audio_seconds(const char *name)
{
    char out[300];
    uint8_t *text;
    size_t len;
    char *line, *save;
    double first = 1e9, end = -1e9, d;

    /* MP4/MOV: the stream's duration, which its edit list makes exclude encoder priming */
    snprintf(out, sizeof(out), "%s.dur", file(name));
    assert_int_equal(run("ffprobe -v error -select_streams a:0 -show_entries stream=duration "
                         "-of csv=p=0 '%s' > '%s'",
                         file(name), out),
                     0);
    text = slurp(out, &len);
    if (sscanf((char *)text, "%lf", &d) == 1) {
        free(text);
        return d;
    }
    free(text);
    snprintf(out, sizeof(out), "%s.pkts", file(name));
    assert_int_equal(run("ffprobe -v error -select_streams a:0 -show_entries "
                         "packet=pts_time,duration_time -of csv=p=0 '%s' > '%s'",
                         file(name), out),
                     0);
    text = slurp(out, &len);
    for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double pts, dur;

        if (sscanf(line, "%lf,%lf", &pts, &dur) != 2)
            fail_msg("%s: packet line '%s'", name, line);
        first = pts < first ? pts : first;
        end = pts + dur > end ? pts + dur : end;
    }
    free(text);
    return end - first;
}

static void assert_audio(const char *name, const char *codec, double seconds, double frame)
{
    char cmd[600], out[300];
    uint8_t *text;
    size_t len;
    double got = audio_seconds(name);

    if (fabs(got - seconds) > frame)
        fail_msg("%s: audio lasts %.4f s, want %.4f within %.4f", name, got, seconds, frame);
    snprintf(out, sizeof(out), "%s.codec", file(name));
    snprintf(cmd, sizeof(cmd),
             "ffprobe -v error -select_streams a:0 -show_entries stream=codec_name -of csv=p=0 "
             "'%s' > '%s'",
             file(name), out);
    assert_int_equal(run("%s", cmd), 0);
    text = slurp(out, &len);
    if (!strstr((char *)text, codec))
        fail_msg("%s: audio codec %s, want %s", name, text, codec);
    free(text);
}

static void test_audio(void **state)
{
    (void)state;
    /* AAC into MP4 and MKV: copied; into WebM: re-encoded (44.1 kHz: Vorbis, Opus takes
     * 48 kHz and its fractions only) */
    write_with_audio("a.mp4", "c25.mp4", 0, 50);
    assert_audio("a.mp4", "aac", 2.0, 1024.0 / 44100);
    write_with_audio("a.mkv", "c25.mp4", 0, 50);
    assert_audio("a.mkv", "aac", 2.0, 1024.0 / 44100);
    write_with_audio("a.webm", "c25.mp4", 0, 50);
    assert_audio("a.webm", "vorbis", 2.0, 1024.0 / 44100);
    /* PCM from WAV into MP4: re-encoded to AAC */
    write_with_audio("w.mp4", "sine.wav", 0, 25);
    assert_audio("w.mp4", "aac", 1.0, 1024.0 / 44100);
    write_with_audio("o.webm", "s48.wav", 0, 25);
    /* WebM packet times include Opus's 312-sample pre-skip, which is not audio */
    assert_audio("o.webm", "opus", 1.0, (960.0 + 312) / 48000);
    /* a chunk: 0.8 s from 0.6 s */
    write_with_audio("chunk.mp4", "c25.mp4", 15, 20);
    assert_audio("chunk.mp4", "aac", 0.8, 1024.0 / 44100);
    /* a file without audio, or none asked: no audio stream */
    write_with_audio("n.mp4", "c10.mp4", 0, 10);
    assert_int_equal(run("test -z \"$(ffprobe -v error -select_streams a -show_entries "
                         "stream=index -of csv=p=0 '%s')\"",
                         file("n.mp4")),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_25_at_25),       cmocka_unit_test(test_25_at_50),
        cmocka_unit_test(test_30_at_24),       cmocka_unit_test(test_vfr),
        cmocka_unit_test(test_hold_and_loop),  cmocka_unit_test(test_seek_equals_sequential),
        cmocka_unit_test(test_jump),           cmocka_unit_test(test_odd_size),
        cmocka_unit_test(test_bad_inputs),     cmocka_unit_test(test_corrupt_midway),
        cmocka_unit_test(test_memory_bounded), cmocka_unit_test(test_audio),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
