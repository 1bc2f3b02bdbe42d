/* identity.h - --job-id: what a farm's chunk is made of, as digests (rockpool(1) --job-id).
 *
 * A job's identity is four SHA-256 digests: the scene's bytes; the content of every file
 * the scene or the command line names (the background, the sky image, each wall mask,
 * --load-state), each read once, streamed; every resolved option that reaches the frames
 * or the encoder (sizes, rate, frames, preset, seed, fit, format, and the encoder, crf,
 * encoder preset, bitrate and pixel format as the render resolves them, so that one given
 * as the value it takes anyway reads as left out: rp_session_output_settings), but not the
 * frame range, which differs from chunk
 * to chunk; and the build (the version and the program's own bytes). The job line names
 * each by its first 16 hex digits ("scene=...,inputs=...,options=...,build=..."), short
 * enough for a container tag, and the job id is the SHA-256 of that line. */
#ifndef RP_CLI_IDENTITY_H
#define RP_CLI_IDENTITY_H

#include <stdio.h>

#include "cli.h"
#include "rockpool.h"

/** Print the identity of the run cli describes (its scene loaded, its session resolved
 * as sum says; an output setting the session refuses: bad input in err) to out: job-id, job, the
 * four digests, frames, the range asked for, the per-run side outputs and one "option:" line per
 * resolved option. Returns 0, or 1 with a message in err (an input that cannot be read: bad input).
 */
int rp_identity_print(const rp_cli *cli, const rp_scene *scene, const rp_session *session,
                      const rp_summary *sum, FILE *out, rp_error *err);

/** The job line alone (what --job-id prints as job:) into job. Returns 0, or 1 with a
 * message in err (an input that cannot be read, no memory). */
int rp_identity_line(const rp_cli *cli, const rp_scene *scene, const rp_session *session,
                     const rp_summary *sum, char job[RP_JOB_LINE_LEN + 1], rp_error *err);

#endif
