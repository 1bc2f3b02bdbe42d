/* light.h - the house look (rockpool(1), "light"): a height field at output size
 * (Q8, from rp_upscale) lit as water over a background photo. Fixed point and tables
 * built by integer code, so every machine, thread count and row split gives the same bytes.
 *
 * THE LAYER MODEL. Light never depends on the background pixel: per pixel it is a colour C
 * with a straight alpha A (8 bits each), and the render is
 *
 *     out = round((bg' * (255 - A) + C * A) / 255)
 *
 * where bg' is the background refracted (sampled at a sub-pixel offset, bilinear), or the
 * background itself with refraction off. rp_light_rows_rgba() writes (C, A) as RGBA:
 * FFmpeg's `overlay` of it onto the background (straight alpha, rgb) reproduces
 * rp_light_rows_rgb() with refraction off up to FFmpeg's own rounding of the division by
 * 255 (1 level). The --alpha files carry the same layer premultiplied
 * (rp_light_premultiply: C * A / 255 rounded, A unchanged), for `overlay=alpha=premultiplied`
 * (one rounding more: 1 level); the frei0r plugin's light layer stays straight.
 *
 * The surface (per grid cell, so the picture does not depend on the output size):
 *   slope   s = grad(h) / height_scale, h in height units, grad per grid cell: the central
 *           difference over output pixels times the scale (output pixels per cell);
 *   normal  n = (-s_x, -s_y, 1) / sqrt(1 + |s|^2);
 *   light   L = (cos e sin a, -cos e cos a, sin e): azimuth a clockwise from the top of the
 *           frame (0 = light from the top, 90 = from the right), elevation e above the
 *           horizon; the viewer looks straight down, V = (0, 0, 1); H = (L + V) / |L + V|.
 * The layer is three sub-layers composited with Porter-Duff `over`, bottom to top:
 *   bed     b = shade * (n.L - L_z) + caustics * c, c = -laplacian(h) / height_scale (per
 *           cell^2, over +-2 cells: convex crests focus light on the bed, troughs spread
 *           it). b > 0: the light colour with alpha b / (1 + b); b < 0: black with alpha
 *           |b| / (1 + |b|). Flat water: b = 0.
 *   sky     the sky colour with alpha min(1, sky * F), F Schlick's Fresnel term
 *           F0 + (1 - F0)(1 - n_z)^5 with F0 = 0.02 (water): sky = 1 is physical water,
 *           which tints even flat water by 2%. With a sky image (rp_light_set_sky) the
 *           colour is the image's, reflected: sampled bilinearly at (x + k * s_x *
 *           scale_x, y + k * s_y * scale_y) output pixels, k = RP_LIGHT_SKY_REFLECT grid
 *           cells per unit slope (the opposite way to refraction), in 1/256 pixel,
 *           clamped to the frame; flat water reflects the image unshifted. Only C
 *           changes: A, and so the layer's independence of the background, is the same.
 *   glint   the light colour with alpha q / (1 + q), q = specular * max(0, (n.H)^k - H_z^k)
 *           (Blinn-Phong, shininess k, less its flat-water value so still water shows none).
 *           q / (1 + q) is a soft shoulder: alpha approaches 1 only as q grows without
 *           bound, so a highlight keeps its shape instead of saturating to a flat disc.
 *   A = 1 - (1 - a_bed)(1 - a_sky)(1 - a_glint); C = premultiplied sum / A.
 * Refraction: bg' at (x - r * s_x * scale_x, y - r * s_y * scale_y) output pixels, r =
 * `refraction` (grid cells of displacement per unit slope), in 1/256 pixel, bilinear,
 * clamped to the frame.
 * Edges: heights beyond the frame read the nearest edge pixel.
 *
 * WATER (model RP_LIGHT_WATER, the rockpool preset's): the picture is the bed under water
 * `depth` grid cells deep, seen from straight above. Heights beyond the frame are mirrored
 * about its edge pixels (the water's walls), so the edges show no slope of their own.
 *   slope   s as above (central differences, 2 pixels);
 *   bed     the view ray (0, 0, -1) refracts by Snell's law (eta = 3/4, water's index 4/3)
 *           through the normal: cos i = n_z, cos t = sqrt(1 - eta^2 (1 - n_z^2)), T = eta
 *           I + (eta cos i - cos t) n. It meets the bed depth * T_xy / |T_z| = depth * g *
 *           s cells away, g = A n_z / (eta + A n_z), A = cos t - eta cos i (g = 1/4 for
 *           small slopes); the picture is sampled there (bilinear, Q8 pixels, mirrored
 *           at the edges). The s here (and its n_z) is the slope over the footprint,
 *           depth / RP_LIGHT_FOOTPRINT cells (f pixels, at least 1) either side: the Sobel
 *           sum 2 (h(x+f, y) - h(x-f, y)) + the same at y -+ f, over 8 f pixels (and so
 *           in y), the surface's mean slope there, as an aperture averages the surface its
 *           rays cross. Its derivative is at most the change of slope across the footprint
 *           over 2 f, so the map x -> bed point (Jacobian I + depth g Hess) folds only where
 *           the slope changes by more than 2 f / (depth g) >= 4/3 across it: a fresh drop's
 *           crater and ring crests no longer mirror the bed into radial streaks (the
 *           pixel's own slope, as before, folded them wherever depth g Hess < -1).
 *   caustics the bed's irradiance where the sun's rays through this pixel land: E = 1 /
 *           det(I + a Hess(h)), Hess in slope units per cell over +-3 cells (which also
 *           averages out the grid's height noise), a = depth * (1 - eta sin e / cos t_s) /
 *           cos^2 t_s the cells a sun ray at elevation e moves on the bed per unit slope
 *           (cos t_s = sqrt(1 - eta^2 cos^2 e)); each a * Hess term within +-16, det at
 *           least 1/16 and E at least 1/4. Rays that converge light the bed more and those
 *           that spread light it less; the bed's mean irradiance over its area is
 *           conserved to first order in the slopes. gain = 1 + caustics * (E - 1),
 *           0..16. The bed pixel t becomes t * gain where that darkens; light it gains
 *           is at most L = room / 3 (room = 255 - t; room^2 / 144 within 48 levels of
 *           white), taken linearly up to L / 2 and from there as L - L^2 / (4 x), so
 *           caustics do not burn bright parts to white.
 *           Then each channel is multiplied by (tint / 255)^(depth / 64) (tint is the
 *           colour a white bed takes under 64 cells, absorbed as Beer-Lambert has it;
 *           white: none).
 *   sky     alpha min(1, sky * (F(n_z) - F(1))), F the unpolarised Fresnel reflectance
 *           (rs^2 + rp^2) / 2 of air to water, so still water reflects nothing and the
 *           picture stays as it is; with sky_flat, F(n_z) itself (flat water: 2.04%).
 *           The colour or image as above.
 *   glint   the sun, of angular diameter `sun`, mirrored: the light colour with alpha
 *           min(1, specular * (exp(-u) - exp(-u0))), u = |s - m|^2 / sigma^2 (0 for u >= 16),
 *           m = -H_xy / H_z the slope whose normal mirrors the sun into the eye, sigma =
 *           sun / 4 (radians) / H_z^2, u0 flat water's u: a sharp spot on the slopes that
 *           face the sun, none on still water. The glint is over the sky (as above).
 * Composite: out = round((bed * (255 - A) + C * A) / 255), (C, A) the sky and glint layer
 * (rp_light_rows_rgba writes it). With no slope anywhere the output is the picture (with
 * the tint), byte for byte. */
#ifndef RP_LIGHT_H
#define RP_LIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "scene/params.h" /* rp_light_params */

/** How far a sky image is displaced by the surface's slope, in grid cells per unit slope
 * (light.h "sky": the reflection moves the other way from the refraction). */
#define RP_LIGHT_SKY_REFLECT 8

/** The refraction's footprint in look water: the slope that moves the bed is the surface's
 * mean slope over depth / RP_LIGHT_FOOTPRINT cells either side (light.h "WATER"). */
#define RP_LIGHT_FOOTPRINT 6

/** Check ranges. RP_OK, or RP_ERR_INVALID with a message naming the parameter, its value
 * and the range that works (e.g. "light elevation 95 is out of range (0 to 90 degrees)"). */
int rp_light_check(const rp_light_params *p, rp_error *err);

typedef struct rp_light rp_light;

/** Check the parameters and build the tables (about 40 KiB). RP_OK, RP_ERR_INVALID (with
 * a message, as rp_light_check), RP_ERR_NOMEM. *out is NULL on failure. */
int rp_light_new(rp_light **out, const rp_light_params *p, rp_error *err);

/** Free and null the handle; NULL is a no-op. */
void rp_light_free(rp_light **l);

/** Reflect rgb, a width x height RGB24 picture, as the sky instead of the sky colour
 * (rgb NULL: the colour again). Not copied: it must stay valid and unchanged while rows
 * are rendered. Used only for frames of its size (rp_light_geom); other frames keep the
 * colour. Set it before rendering, not while rows are being rendered. */
void rp_light_set_sky(rp_light *l, const uint8_t *rgb, int width, int height);

/** The frame: its size and how many output pixels one grid cell spans, per axis, Q16
 * (rp_upscale_ratio_q16(grid, out); 1024..256*65536, clamped to that). */
typedef struct rp_light_geom {
    int width, height;
    int32_t scale_x_q16, scale_y_q16;
    int64_t peak_q8; /* 0, or a bound on every |height| of the fields (rp_upscale_peak_q8):
                      * the vector kernels trust it instead of checking the rows they read,
                      * so a smaller value than the real heights gives wrong pixels */
    /* NULL, or where the heights are not 0: for each row, RP_LIGHT_BLOCK_WORDS(width) words
     * of rp_light_nonzero_blocks. rp_light_rows_rgb then copies the background where every
     * height the light reads is 0 and still water shows the picture as it is (look water
     * with no tint and no layer on still water): the same bytes, without the work. A block
     * marked still that is not gives wrong pixels. */
    const uint64_t *nonzero;
} rp_light_geom;

/* Blocks of 64 pixels, one bit each, in 64-bit words: the words a row of width w takes. */
#define RP_LIGHT_BLOCK_WORDS(w) (((w) + 64 * 64 - 1) / (64 * 64))

/** Which blocks of 64 pixels of a row of w heights hold a height other than 0: bit b % 64
 * of mask[b / 64] for pixels 64 b..64 b + 63 (RP_LIGHT_BLOCK_WORDS(w) words written). */
void rp_light_nonzero_blocks(const int32_t *row, int w, uint64_t *mask);

/** Rows y0..y1-1 of the composited render: heights is the whole width x height Q8 field,
 * bg and rgb whole RGB24 frames (rgb must not alias bg). Rows are independent of each
 * other and of how a frame is split; allocates nothing. */
void rp_light_rows_rgb(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                       const uint8_t *bg, uint8_t *rgb, int y0, int y1);

/** Rows y0..y1-1 of the light layer alone as RGBA (straight alpha; C = 0 where A = 0),
 * the same (C, A) rp_light_rows_rgb composites. */
void rp_light_rows_rgba(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                        uint8_t *rgba, int y0, int y1);

/** Premultiply n RGBA pixels in place: each colour sample C becomes round(C * A / 255)
 * (exact: C * A / 255 is never halfway between integers), A is kept. The --alpha layer
 * (straight from rp_light_rows_rgba, walls blended over it) is written this way. */
void rp_light_premultiply(uint8_t *rgba, size_t n);

/** The surface at one output pixel as the light sees it (for --aov normal, displacement
 * and caustics): the slope (Q12, 4096 = 1; x to the right, y down the frame), the
 * refraction displacement (Q8 output pixels: rp_light_rows_rgb samples the background at
 * (x + dx/256, y + dy/256), clamped to the frame; 0 with refraction off) and the caustics'
 * gain of the bed's light there (Q12; look water only, else 4096). */
typedef struct rp_light_surface {
    int32_t sx, sy;
    int32_t dx, dy;
    int32_t gain;
} rp_light_surface;

/** Rows y0..y1-1 of the surface; row y goes to out + (y - y0) * width. Rows are
 * independent; allocates nothing. */
void rp_light_rows_surface(const rp_light *l, const rp_light_geom *g, const int32_t *heights,
                           rp_light_surface *out, int y0, int y1);

/** The caustics pass at output pixel (x, y) of a w x h frame over bg (RGB24), s its
 * surface: per channel the gain, Q12 (4096 = 1), by which look water's bed multiplies the
 * refracted picture t there (the background at the displacement, as rp_light_rows_rgb
 * samples it): bed = t * gain / 4096 within rounding, with the caustics' light, its ease
 * near white and the tint in it (the tint alone where t = 0), at most 65535. */
void rp_light_caustics(const rp_light *l, const uint8_t *bg, int w, int h, int x, int y,
                       const rp_light_surface *s, uint16_t gain[3]);

#endif
