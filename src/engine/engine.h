/* engine.h - the core of a run, with no files and no FFmpeg: the settings resolved in
 * time and space (clock.h), the timeline, the simulation stepped to each frame's instant,
 * and the frame rendered over a background (render.h for the seed presets' modes,
 * upscale.h + light.h for render `light`). The session (session.c) adds inputs, sinks and
 * the writer thread around it; the core API (src/core/rpcore.c) and the frei0r plugin
 * drive it alone. */
#ifndef RP_ENGINE_H
#define RP_ENGINE_H

#include <signal.h>
#include <stdint.h>

#include "scene/clock.h"
#include "base/diag.h"
#include "scene/scene.h"
#include "scene/timeline.h"
#include "look/light.h"
#include "sim/water.h"

typedef struct rp_pool rp_pool;
typedef struct rp_engine rp_engine;

/** The pixels of the wall mask at path (grid-sized, 1 = wall), for RP_ITEM_WALL_MASK
 * items; with `walls visible image` also *rgb, the mask's image at the output size (RGB24,
 * stretched as the mask is), else *rgb = NULL. Both stay valid while the engine lives. */
typedef const uint8_t *(*rp_mask_fn)(void *ctx, const char *path, const uint8_t **rgb);

/** Resolve `merged` (a preset's defaults with the scene's and the caller's settings
 * merged over them) in space and time, given the background's size (0x0 when unknown),
 * check the timeline's cost against max_memory and the work limit (rp_timeline_check),
 * and build it over every frame. Creates nothing else. Errors are bad input (a scene
 * diagnostic when it has a place), or RP_ERR_INTERRUPTED once *stop (may be NULL) is set. */
int rp_engine_new(rp_engine **e, const rp_scene *scene, const rp_settings *merged, int image_w,
                  int image_h, int64_t max_memory, volatile sig_atomic_t *stop, rp_error *err);

/** Allocate the simulation and the renderer. pool (may be NULL) must outlive the engine;
 * masks is asked for the pixels of each wall mask when its item comes. */
int rp_engine_start(rp_engine *e, rp_pool *pool, rp_mask_fn masks, void *mask_ctx, rp_error *err);

/** Make the shapes of the wall masks moving along paths (obstacle.h rp_obstacles_shape)
 * from their masks, once the masks can be had (rp_mask_fn); before the first frame. */
int rp_engine_shapes(rp_engine *e, rp_error *err);

/** Render `light` reflects rgb (output-sized RGB24, not copied: it must outlive the
 * engine) as its sky (light.h) instead of the sky colour. After rp_engine_start; a no-op
 * for the other renders. The engine reads no files: the session decodes the picture. */
void rp_engine_set_sky(rp_engine *e, const uint8_t *rgb);

/** The resolved settings, the clock, the timeline and their lengths. */
const rp_settings *rp_engine_settings(const rp_engine *e);
const rp_clock *rp_engine_clock(const rp_engine *e);
const rp_timeline *rp_engine_timeline(const rp_engine *e);
int64_t rp_engine_frames(const rp_engine *e);       /* frames of the timeline */
int64_t rp_engine_items_length(const rp_engine *e); /* item indices the timeline holds */

/** The simulation (after rp_engine_start), for checkpoints, and the steps done. */
rp_water *rp_engine_water(rp_engine *e);
int64_t rp_engine_steps(const rp_engine *e);

/** After a checkpoint of `steps` steps was loaded into the water: replay the walls of
 * those steps and carry on from there. */
void rp_engine_resume(rp_engine *e, int64_t steps);

/** Whole-state checkpoints in memory (the frei0r plugin's; a core API may build on them):
 * the water's two height buffers and the steps done, exactly what --save-state's file holds
 * (state.h). Everything else a step changes (walls, masks, moving walls and their shapes,
 * the keyed damping) is a function of the timeline's items before that step, so loading
 * puts the engine back as rp_engine_start left it, loads the heights and replays the
 * walls of the steps done (rp_engine_resume), as --load-state does on a new engine: an
 * engine that loads a checkpoint of step n, from before or after where it is, then
 * renders frame k gives the bytes a new engine simulating straight to frame k gives.
 * checkpoint_bytes is the size of buf (2 x grid cells int16); load returns RP_OK or
 * RP_ERR_NOMEM (the engine is then as it was, or at step 0 when a wall mask's shape
 * could not be remade). The settings, timeline and light are kept. */
size_t rp_engine_checkpoint_bytes(const rp_engine *e);
void rp_engine_checkpoint_save(const rp_engine *e, int16_t *buf, int64_t *steps);
int rp_engine_checkpoint_load(rp_engine *e, const int16_t *buf, int64_t steps, rp_error *err);

/** A light setting (what: RP_KEY_AZIMUTH, _ELEVATION, _SUN, _DEPTH, _CAUSTICS or _SKY)
 * that overrides the scene's and its keys from the next frame rendered on (set nonzero;
 * value in rp_light_params' units, in its range), or (set 0) gives it back to them. Only
 * the light is remade (as keys remake it); the simulation is untouched. Render `light`
 * only; a no-op for other whats. */
void rp_engine_light_override(rp_engine *e, enum rp_key_what what, int set, int32_t value);

/** Simulate until `target` steps are done. Returns 1 (stopping early) when *stop becomes
 * nonzero (stop may be NULL), checked between steps and between a step's drops and walls;
 * once a step was stopped halfway, every later call returns 1 at once. Else 0. */
int rp_engine_advance(rp_engine *e, int64_t target, volatile sig_atomic_t *stop);

/** Frame k: simulate to its instant, then render it over bg (output-sized RGB24) into
 * pixels. Returns 1 if *stop interrupted the simulation (nothing rendered), else 0. */
int rp_engine_frame(rp_engine *e, int64_t k, const uint8_t *bg, uint8_t *pixels,
                    volatile sig_atomic_t *stop);

/** Frame k as the light layer alone (--alpha): simulate to its instant, then write the
 * layer (C, A) of light.h as RGBA, output-sized, no background, the walls in it: with
 * premultiplied nonzero each colour is round(C * A / 255) (rp_light_premultiply; --alpha's
 * files), else straight (the frei0r plugin's). Its composite over a background with
 * FFmpeg's `overlay` (alpha=premultiplied or straight to match) is render `light` with
 * refraction off. Returns 1 if *stop interrupted the simulation, 0 when rendered,
 * RP_ERR_INVALID (nothing done) unless the render is `light` and the engine started. */
int rp_engine_frame_layer(rp_engine *e, int64_t k, uint8_t *rgba, int premultiplied,
                          volatile sig_atomic_t *stop);

/** The heights of the last step (grid-sized). */
const int16_t *rp_engine_heights(const rp_engine *e);

/** Render light: the heights of the last frame rendered interpolated to the output size
 * (Q8, the light's own: rp_upscale), and their geometry for rp_light_rows_surface; NULL
 * for the other renders. */
const int32_t *rp_engine_heights_q8(const rp_engine *e, rp_light_geom *geom);

/** Free and null the handle; NULL and a NULL *e are no-ops. */
void rp_engine_free(rp_engine **e);

#endif
