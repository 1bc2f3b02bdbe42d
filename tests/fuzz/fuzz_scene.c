/* fuzz_scene.c - libFuzzer target for the scene language: parses the input as a scene
 * and, when it parses, builds its timeline over a few frames and walks every frame,
 * checking the invariants the simulation relies on (items in frame order, drops with
 * sane radius/height, walls on the grid).
 *
 * With -DRP_FUZZ_MAIN it also has a main() that replays the files named on the command
 * line (a corpus replay without libFuzzer), so the corpus runs under plain builds,
 * valgrind or sanitizers:
 *   clang -g -fsanitize=fuzzer,address,undefined -Isrc -Iinclude tests/fuzz/fuzz_scene.c \
 *       CORE_SRCS -o build/fuzz_scene          (CORE_SRCS: the Makefile's, the core's .c files)
 *   cc -g -DRP_FUZZ_MAIN -Isrc -Iinclude tests/fuzz/fuzz_scene.c build/librpcore.a -pthread \
 *       -o build/fuzz_scene_replay
 *   build/fuzz_scene_replay tests/fuzz/corpus/scene/ */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "scene/timeline.h"

#define FUZZ_FRAMES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

static void walk(const rp_timeline *tl, const rp_settings *s)
{
    int64_t k, last = -1;
    size_t i, n, total = 0;
    const rp_item *items;
    rp_timeline_stats st;

    for (k = -1; k <= FUZZ_FRAMES; k++) {
        rp_timeline_frame(tl, k, &items, &n);
        check(k >= 0 && k < FUZZ_FRAMES ? 1 : n == 0);
        for (i = 0; i < n; i++) {
            const rp_item *it = &items[i];
            check(it->frame == k && it->frame >= last);
            last = it->frame;
            if (it->kind == RP_ITEM_DROP) {
                check(it->drop.x >= 0 && it->drop.x < s->width);
                check(it->drop.y >= 0 && it->drop.y < s->height);
                check(it->drop.radius >= 1 && it->drop.radius <= RP_RADIUS_MAX);
                check(it->drop.height >= INT16_MIN && it->drop.height <= INT16_MAX);
            } else if (it->kind == RP_ITEM_WALL_RECT) {
                check(it->x >= 0 && it->w >= 1 && it->x + it->w <= s->width);
                check(it->y >= 0 && it->h >= 1 && it->y + it->h <= s->height);
            } else if (it->kind == RP_ITEM_WALL_MASK) {
                check(it->mask_path != NULL);
            }
            total++;
        }
    }
    rp_timeline_stats_get(tl, &st);
    check(st.drops + st.walls == total);
    check(st.rain_drops + st.stroke_dabs <= st.drops);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rp_scene *sc = NULL;
    rp_timeline *tl = NULL;
    rp_error er;
    rp_settings final;
    int ret = rp_scene_parse(&sc, (const char *)data, size, "fuzz/in.scene", &er);

    if (ret != RP_OK) {
        check(sc == NULL);
        check(memchr(er.diag.msg, '\0', sizeof er.diag.msg) != NULL && er.diag.msg[0] != '\0');
        check(ret != RP_ERR_INVALID || (er.diag.line >= 1 && er.diag.col >= 1));
        return 0;
    }
    final = *rp_scene_settings(sc);
    /* At least 250 fps keeps dense rain over the few frames small (at most 3200 drops
     * per rain statement); the scene's own fps is tried when it is higher. */
    if (final.time.fps < 250)
        final.time.fps = 250;
    ret = rp_timeline_build(&tl, sc, &final, FUZZ_FRAMES, &er);
    if (ret == RP_OK)
        walk(tl, &final);
    else
        check(tl == NULL && (ret != RP_ERR_INVALID || (er.diag.line >= 1 && er.diag.col >= 1)));
    rp_timeline_free(&tl);
    rp_scene_free(&sc);
    return 0;
}

#ifdef RP_FUZZ_MAIN
#define RP_FUZZ_NAME "fuzz_scene"
static int verbose;
#include "replay_main.h"
#endif
