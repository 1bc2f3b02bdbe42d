/* fuzz_image.c - libFuzzer target for the still-image loader (src/input/image.c), which reads
 * backgrounds (-i, `background`) and wall masks (`wall mask`) from files rockpool did not
 * make. The input is written to a temporary file (the loader takes a path, and FFmpeg
 * probes it by content: the name has no extension), then probed and loaded as RGB and as
 * a mask at a small size, checking the loader's contract: on success the sizes are sane
 * and the buffers are fully written; on failure nothing is returned and the reason is a
 * non-empty string.
 *
 * With -DRP_FUZZ_MAIN it also has a main() that replays the files named on the command
 * line, or every file of every directory named (a corpus replay without libFuzzer), so
 * the corpus runs under plain builds, valgrind or sanitizers:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -Iinclude tests/fuzz/fuzz_image.c \
 *       src/input/image.c src/input/demux.c src/base/common.c $(pkg-config --cflags --libs \
 *       zlib libavformat libavcodec libswscale libavutil) -o build/fuzz_image
 *   cc -g -DRP_FUZZ_MAIN -Isrc -Iinclude tests/fuzz/fuzz_image.c build/librockpool.a \
 *       $(pkg-config --libs libpng libavformat libavcodec libswscale libavutil) -lm \
 *       -o build/fuzz_image_replay
 *   build/fuzz_image_replay tests/fuzz/corpus/image/ */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "input/image.h"

/* Small and odd on both sides, so the scaler's edge handling is exercised. */
#define FUZZ_W 17
#define FUZZ_H 11

/* The replay main sets this from RP_FUZZ_VERBOSE: one line per call on stderr. */
static int verbose;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

/* The loader's failure contract: a code, no buffer, a reason. */
static void check_failure(int ret, const uint8_t *buf, const char *err)
{
    check(ret != RP_OK);
    check(buf == NULL);
    check(memchr(err, '\0', 1024) != NULL && err[0] != '\0');
}

/* Write the bytes to a fresh temporary file; returns its descriptor, name in path. */
static int write_temp(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, pathlen, "%s/rp-fuzz-image-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    rp_error e;
    uint8_t *rgb = NULL, *mask = NULL;
    int w = -1, h = -1, ret, fd;
    size_t i;

    fd = write_temp(data, size, path, sizeof path);
    if (fd < 0)
        return 0; /* the machine's problem, not the loader's */

    memset(&e, 0, sizeof e);
    ret = rp_image_probe(path, &w, &h, &e);
    if (ret == RP_OK)
        check(w >= 1 && h >= 1 && w <= RP_MAX_SIDE && h <= RP_MAX_SIDE);
    else
        check(e.msg[0] != '\0' && memchr(e.msg, '\0', sizeof e.msg) != NULL && e.code == ret &&
              e.bad_input == (ret != RP_ERR_NOMEM));
    if (verbose)
        fprintf(stderr, "  probe: %s %dx%d %s\n", ret ? "fail" : "ok", w, h, ret ? e.msg : "");

    memset(&e, 0, sizeof e);
    ret = rp_image_load_rgb(path, FUZZ_W, FUZZ_H, &rgb, &e);
    if (ret == RP_OK) {
        unsigned sum = 0;
        check(rgb != NULL);
        /* Touch every byte: ASan/MSan/valgrind see a short or uninitialised buffer. */
        for (i = 0; i < (size_t)FUZZ_W * FUZZ_H * 3; i++)
            sum += rgb[i];
        check(sum != UINT32_MAX);
    } else {
        check_failure(ret, rgb, e.msg);
    }
    if (verbose)
        fprintf(stderr, "  rgb:   %s %s\n", ret ? "fail" : "ok", ret ? e.msg : "");
    free(rgb);

    memset(&e, 0, sizeof e);
    ret = rp_image_load_mask(path, FUZZ_W, FUZZ_H, &mask, &e);
    if (ret == RP_OK) {
        check(mask != NULL);
        for (i = 0; i < (size_t)FUZZ_W * FUZZ_H; i++)
            check(mask[i] <= 1);
    } else {
        check_failure(ret, mask, e.msg);
    }
    free(mask);

    close(fd);
    unlink(path);
    return 0;
}

#ifdef RP_FUZZ_MAIN
#define RP_FUZZ_NAME "fuzz_image"
#include "replay_main.h"
#endif
