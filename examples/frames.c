/* frames.c - render a few frames into memory through librockpool's public API, in the
 * spirit of FFmpeg's doc/examples: parse a scene, open a session with no encoded output,
 * take the frames one by one, close. Prints "INDEX MD5" for each frame (the same lines
 * as `rockpool --hash`) and the frame's brightest pixel.
 *
 *     make build/examples/frames && build/examples/frames [PRESET]
 */
#include <stdio.h>
#include <string.h>

#include "rockpool.h"

static const char scene_text[] = "size 96x64\n"
                                 "fps 30\n"
                                 "duration 12f\n"
                                 "at 0f drop 48 32 radius 6 height 2000\n"
                                 "at 5f drop 20 20 radius 3 height -1500\n";

int main(int argc, char **argv)
{
    rp_scene *scene = NULL;
    rp_session *session = NULL;
    rp_error err;
    rp_run run;
    rp_settings *over = NULL;
    const rp_frame *frame;
    int r;

    if (rp_scene_from_text(&scene, scene_text, strlen(scene_text), "<example>", &err)) {
        fprintf(stderr, "%s:%d:%d: %s\n", err.diag.file, err.diag.line, err.diag.col, err.msg);
        return 2;
    }
    rp_run_init(&run);
    run.out.path = NULL; /* no file: the frames stay in memory */
    if (argc > 1) {
        /* Settings are written as scene lines: "preset elias", "fade 2s", ... */
        char line[64];
        snprintf(line, sizeof line, "preset %s\n", argv[1]);
        if (rp_settings_parse(&over, line, "<argv>", &err)) {
            fprintf(stderr, "%s\n", err.msg);
            rp_scene_free(&scene);
            return 2;
        }
        run.over = over;
    }
    if ((r = rp_session_new(&session, scene, &run, &err)) || (r = rp_session_start(session, &err)))
        goto fail;
    /* Each frame is valid until the next call: read it, do not keep it. */
    while (!(r = rp_session_next(session, &frame, &err)) && frame) {
        char hex[33];
        int brightest = 0;
        for (int y = 0; y < frame->height; y++) {
            const uint8_t *row = frame->data + (size_t)y * frame->stride;
            for (int x = 0; x < frame->width * 3; x++)
                brightest = row[x] > brightest ? row[x] : brightest;
        }
        rp_md5_hex(frame->data, frame->stride * (size_t)frame->height, hex);
        printf("%lld %s  (brightest channel %d)\n", (long long)frame->index, hex, brightest);
    }
    if (r || (r = rp_session_close(&session, NULL, &err)))
        goto fail;
    rp_settings_free(&over);
    rp_scene_free(&scene);
    return 0;
fail:
    fprintf(stderr, "error: %s\n", err.msg);
    rp_session_abort(&session);
    rp_settings_free(&over);
    rp_scene_free(&scene);
    return err.bad_input ? 2 : 1;
}
