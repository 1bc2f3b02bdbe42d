/* params.h - the plain parameters a run's settings hold and the simulation (sim/water.h),
 * the light (look/light.h) and the seed presets' renders (look/render.h) take as they are,
 * so that scene/ depends on neither and both include these; and the rockpool preset's
 * light (rp_light_defaults, in settings.c with the other presets). Each field says its
 * range here; the code that uses it checks it (rp_water_new, rp_light_check). */
#ifndef RP_PARAMS_H
#define RP_PARAMS_H

#include <stdint.h>

/* The simulation (sim/water.h). */

enum rp_stencil {
    RP_STENCIL_4,   /* Elias: (N + S + E + W) >> 1 */
    RP_STENCIL_8,   /* CodeProject: (sum of 8 neighbours) >> 2 */
    RP_STENCIL_ISO, /* rockpool: isotropic 9-point, (4*sum4 + sumdiag + 12*c) >> 4 */
};

enum rp_boundary {
    RP_BOUNDARY_WALL, /* edge cells held at 0: waves reflect */
    RP_BOUNDARY_OPEN, /* edge cells follow a first-order absorbing (Mur) condition */
    RP_BOUNDARY_WRAP, /* periodic in x and y */
};

enum rp_shape {
    RP_SHAPE_DISC,   /* height on every cell with d2 <= r*r */
    RP_SHAPE_SQUARE, /* height on every cell with |dx|,|dy| <= r */
    RP_SHAPE_COSINE, /* height*cos(pi*d/r), d = floor(sqrt(d2)) (CodeProject) */
    RP_SHAPE_SPLASH, /* height*(255 - 512*(1 - d/r))/255 (Silverlight) */
    RP_SHAPE_SMOOTH, /* height*(1 - d2/r2)^2: smooth to zero at the rim (rockpool) */
};

enum rp_mode {
    RP_MODE_ADD, /* heights add, saturating */
    RP_MODE_SET, /* heights replace */
};

typedef struct rp_water_params {
    int width, height; /* 1..RP_MAX_SIDE */
    enum rp_stencil stencil;
    enum rp_boundary boundary;
    int damping_shift;   /* n -= n >> shift; 1..30; used when damping_q16 == 0 */
    int32_t damping_q16; /* n = n * q / 65536 (truncating); 1..65536, 0 = use shift */
    /* Short-wave damping (viscosity): after each step every interior cell becomes
     * h + round(v * (N + S + E + W - 4 h) / 65536), v = viscosity_q16 (0..16384, 0 = none):
     * a wave of wave number k (per cell) loses about v (k^2) of its height a step, so
     * the grid's own scale (k = pi) dies in a few steps and long waves keep theirs. */
    int32_t viscosity_q16;
} rp_water_params;

typedef struct rp_drop {
    int32_t x, y;   /* centre, cells (may lie off the grid: only covered cells change) */
    int32_t radius; /* >= 0 */
    int32_t height; /* -32768..32767 */
    enum rp_shape shape;
    enum rp_mode mode;
} rp_drop;

/* The light (look/light.h). */

/** Parameters; ranges are checked by rp_light_check(). Q8 fields: 256 = 1.0. */
typedef struct rp_light_params {
    int32_t azimuth_mdeg;   /* -360000..360000 millidegrees, clockwise from the top */
    int32_t elevation_mdeg; /* 0..90000 millidegrees (at 90 there is no glint: the flat
                             * surface faces the light) */
    int32_t height_scale;   /* 1..32767 height units per grid cell that make slope 1 */
    int32_t refraction_q8;  /* 0..64*256 grid cells per unit slope; 0 = refraction off */
    int32_t shade_q8;       /* 0..16*256 diffuse shading */
    int32_t caustics_q8;    /* 0..64*256 */
    int32_t specular_q8;    /* 0..64*256 glint strength */
    int32_t shininess;      /* 1..1024 Blinn-Phong exponent */
    int32_t sky_q8;         /* 0..16*256 multiplier on the Fresnel term; 0 = no sky */
    uint8_t light_rgb[3];   /* colour of glints and of light on the bed */
    uint8_t sky_rgb[3];
    /* The water model (RP_LIGHT_WATER; light.h "WATER"); the layer model ignores these. */
    int32_t model;         /* RP_LIGHT_LAYER or RP_LIGHT_WATER */
    int32_t depth_q8;      /* 1..256*256 grid cells of water over the picture */
    int32_t sun_size_mdeg; /* 100..20000 millidegrees: the sun's angular diameter */
    int32_t sky_flat;      /* 0: sky measured against flat water; 1: flat water's 2% too */
    uint8_t tint_rgb[3];   /* the colour a white bed takes under 64 cells (0xffffff: none) */
} rp_light_params;

/** Light models: the layer (bed light, sky, Blinn-Phong glint over the picture) and the
 * water model (the picture as a bed under water). */
enum { RP_LIGHT_LAYER = 0, RP_LIGHT_WATER = 1 };

/** Height units per grid cell that make slope 1 by default: the water model's realistic
 * slopes (a rain's 99th percentile about 0.12) and the layer model's steeper ones. */
#define RP_LIGHT_WATER_HEIGHT_SCALE 2048
#define RP_LIGHT_LAYER_HEIGHT_SCALE 256

/** The `rockpool` preset's look (tuned by eye on photos; see rockpool(1)); in settings.c
 * with the other presets' values. */
void rp_light_defaults(rp_light_params *p);

/* The seed presets' renders (look/render.h). */

enum rp_render_mode {
    RP_RENDER_OFFSET, /* texel at (x + (dx >> R), y + (dy >> R)) plus shading */
    RP_RENDER_LENS,   /* texel at ((x - W/2)*(1024 - h)/1024 + W/2, ...) */
    RP_RENDER_LIGHT,  /* the house look: heights interpolated to the output size and lit as water
                       * (light.h); not handled by rp_render_rows */
};

typedef struct rp_render_params {
    enum rp_render_mode mode;
    int refraction;       /* R, 0..15 (offset only) */
    int light_x, light_y; /* shading = (dx*light_x + dy*light_y) / shading (C division) */
    int shading;          /* divisor, 0 = no shading */
} rp_render_params;

#endif
