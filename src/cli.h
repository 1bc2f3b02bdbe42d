/* cli.h - command-line options (getopt_long) -> what main() needs: the scene path,
 * explicit settings that override the scene's, output options and run switches. */
#ifndef RP_CLI_H
#define RP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "scene.h"

typedef struct rp_cli {
    const char *scene_path;   /* NULL: the built-in default scene; "-": stdin */
    rp_settings over;         /* settings given on the command line (over.set says which) */
    int64_t start, end;       /* frames to write: start..end-1; end -1 = the last frame */
    rp_output_opts out;
    int threads;              /* 0 = online CPUs */
    int hash;
    const char *dump_heights;
    const char *save_state;   /* write a checkpoint after the last simulated frame */
    const char *load_state;   /* start from a checkpoint instead of frame 0 */
    int progress_fd;          /* -1, or a descriptor for key=value progress blocks */
    int64_t max_memory;       /* refuse runs estimated to need more bytes than this */
    int quiet;
    int progress;             /* 1 forced on, 0 automatic */
    int check;
    int help, version;
} rp_cli;

/** Parse argv. Returns 0, or 2 with a one-line message in err (without the
 * "rockpool: error: " prefix) for bad usage. */
int rp_cli_parse(rp_cli *cli, int argc, char **argv, char *err, size_t errlen);

/** The --help text. */
void rp_cli_usage(FILE *f);

#endif
