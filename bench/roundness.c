/* roundness.c - how round are the ripples? One drop at the centre of a 401x401 grid,
 * 150 steps, then the leading wavefront radius in 360 directions: the largest radius
 * where |h| reaches a threshold (a share of the field's peak). Prints, per stencil, the
 * spread (max - min) / mean. Floating point here only measures; it decides no pixel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/water.h"

#define N 401
#define STEPS 150

static double sample(const int16_t *h, double x, double y)
{
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double fx = x - x0, fy = y - y0;
    if (x0 < 0 || y0 < 0 || x0 + 1 >= N || y0 + 1 >= N)
        return 0;
    const int16_t *p = h + y0 * N + x0;
    return (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[N] + fx * p[N + 1]);
}

/* Spread of the leading front, or -1 on failure. */
static double roundness(enum rp_stencil st, int shift, double *mean_out)
{
    rp_water *w = NULL;
    rp_water_params p = {N, N, st, RP_BOUNDARY_WALL, shift, 0, 0};
    if (rp_water_new(&w, &p))
        return -1;
    rp_drop d = {N / 2, N / 2, 3, 8000, RP_SHAPE_COSINE, RP_MODE_ADD};
    rp_water_drop(w, &d);
    for (int i = 0; i < STEPS; i++)
        rp_water_step(w, NULL);
    const int16_t *h = rp_water_heights(w);
    int peak = 0;
    for (int i = 0; i < N * N; i++)
        if (abs(h[i]) > peak)
            peak = abs(h[i]);
    double thr = 0.1 * peak, mn = 1e9, mx = 0, sum = 0;
    for (int a = 0; a < 360; a++) {
        double th = a * M_PI / 180.0, r;
        for (r = N / 2 - 2; r > 0; r -= 0.25)
            if (fabs(sample(h, N / 2 + r * cos(th), N / 2 + r * sin(th))) >= thr)
                break;
        mn = r < mn ? r : mn;
        mx = r > mx ? r : mx;
        sum += r;
    }
    rp_water_free(&w);
    *mean_out = sum / 360;
    return (mx - mn) / (sum / 360);
}

int main(int argc, char **argv)
{
    int shift = argc > 1 ? atoi(argv[1]) : 5;
    static const char *names[] = {"4", "8", "iso"};
    double s4 = 0;
    printf("ripple roundness: %dx%d, one cosine drop r=3 at the centre, %d steps, damping "
           "shift %d\n",
           N, N, STEPS, shift);
    printf("%-8s %12s %12s %10s\n", "stencil", "mean radius", "spread", "vs 4");
    for (int st = RP_STENCIL_4; st <= RP_STENCIL_ISO; st++) {
        double mean, s = roundness(st, shift, &mean);
        if (s < 0)
            return 1;
        if (st == RP_STENCIL_4)
            s4 = s;
        printf("%-8s %12.2f %12.4f %10.3f\n", names[st], mean, s, s / s4);
    }
    return 0;
}
