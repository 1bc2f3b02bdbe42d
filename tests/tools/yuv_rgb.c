/* yuv_rgb.c - the tests' transcription of how rockpool makes RGB of limited-range YUV
 * (src/input/fit.c): raw 8-bit YUV 4:4:4 planar frames (ffmpeg -pix_fmt yuv444p, scaled
 * with rockpool's libswscale flags) on stdin, RGB24 frames on stdout.
 *
 *   yuv_rgb W H KR KB     (KR, KB: the matrix's Kr and Kb times 10000, e.g. 2990 1140)
 *
 * R = Y' + 2 (1 - Kr) V', G = Y' - 2 Kb (1 - Kb) / Kg U' - 2 Kr (1 - Kr) / Kg V',
 * B = Y' + 2 (1 - Kb) U', Y' = (Y - 16) 255 / 219, U' and V' = (C - 128) 255 / 224: each
 * term's factor rounded once to 1/65536, the sum rounded to the nearest level and held to
 * 0..255. test_fit holds the library's to the same arithmetic in doubles (within a level)
 * and to hand-worked levels. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t q16(int64_t num, int64_t den)
{
    return (2 * num * 65536 + den) / (2 * den);
}

static uint8_t level(int64_t v)
{
    v >>= 16;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: yuv_rgb W H KR KB\n");
        return 2;
    }
    long w = atol(argv[1]), h = atol(argv[2]);
    int64_t kr = atol(argv[3]), kb = atol(argv[4]), kg = 10000 - kr - kb;
    if (w < 1 || h < 1 || w > 16384 || h > 16384 || kr < 1 || kb < 1 || kg < 1) {
        fprintf(stderr, "yuv_rgb: bad size or matrix\n");
        return 2;
    }
    int64_t cy = q16(255, 219), crv = q16(2 * (10000 - kr) * 255, 10000 * 224),
            cbu = q16(2 * (10000 - kb) * 255, 10000 * 224),
            cgu = q16(2 * kb * (10000 - kb) * 255, 10000 * kg * 224),
            cgv = q16(2 * kr * (10000 - kr) * 255, 10000 * kg * 224);
    size_t n = (size_t)w * (size_t)h;
    uint8_t *in = malloc(3 * n), *out = malloc(3 * n);
    if (!in || !out)
        return 1;
    while (fread(in, 1, 3 * n, stdin) == 3 * n) {
        for (size_t i = 0; i < n; i++) {
            int64_t l = (in[i] - 16) * cy + 32768, u = in[n + i] - 128, v = in[2 * n + i] - 128;
            out[3 * i] = level(l + crv * v);
            out[3 * i + 1] = level(l - cgu * u - cgv * v);
            out[3 * i + 2] = level(l + cbu * u);
        }
        if (fwrite(out, 1, 3 * n, stdout) != 3 * n)
            return 1;
    }
    free(in);
    free(out);
    return 0;
}
