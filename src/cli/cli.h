/* cli.h - command-line options (getopt_long) -> what main() needs: the scene path, the
 * run handed to the library (settings that override the scene's, outputs, frame range,
 * limits) and the program's own switches (progress, --check, help). */
#ifndef RP_CLI_H
#define RP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "rockpool.h"

typedef struct rp_cli {
    const char *scene_path;   /* NULL: the built-in default scene; "-": stdin */
    rp_run run;               /* what the library is asked to do (threads 0 = online CPUs) */
    int progress_fd;          /* -1, or a descriptor for key=value progress blocks */
    int simd;                 /* --simd: cap the vector kernels (simd.h level), -1 = none */
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
