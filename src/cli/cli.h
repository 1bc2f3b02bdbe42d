/* cli.h - command-line options (getopt_long) -> what main() needs: the scene path, the
 * run handed to the library (settings that override the scene's, outputs, frame range,
 * limits) and the program's own switches (progress, --check, help). */
#ifndef RP_CLI_H
#define RP_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "rockpool.h"

/* -v / -loglevel levels, FFmpeg's numbers (libavutil/log.h). */
enum { RP_LOG_QUIET = -8, RP_LOG_ERROR = 16, RP_LOG_WARNING = 24, RP_LOG_INFO = 32 };

/* A time on the command line: microseconds, or a frame number when is_frames. */
typedef struct rp_cli_time {
    int64_t value;
    int is_frames;
} rp_cli_time;

typedef struct rp_cli {
    const char *scene_path; /* NULL: the built-in default scene; "-": stdin */
    rp_run run;             /* what the library is asked to do (threads 0 = usable CPUs) */
    rp_settings *over;      /* the options' settings, over the scene's (run.over): owned */
    int progress_fd;        /* -1, or a descriptor for key=value progress blocks */
    int loglevel;           /* RP_LOG_*: errors always; warnings from WARNING; progress
                             * and "N frames match" from INFO (the default) */
    int quiet;              /* loglevel < RP_LOG_WARNING (-q, -v error, -v quiet) */
    int progress;           /* 1 forced on, 0 automatic */
    int check;
    int output_given;  /* -o was given */
    const char *input; /* -i's FILE, once given (a second, other one is refused) */
    int help, version;
    int job_id_print; /* --job-id without a value: print the job's identity (identity.h) */
    /* --start/--end given as times (2s, 500ms): resolved by rp_cli_resolve_times() once
     * the frame rate is known (is_frames: a frame number, already in run.start/end). */
    rp_cli_time start_at, end_at;
    /* The option and argument that set run.start and run.end as written ("--start 2s",
     * "-to 11", "--frame-range 5-10"), for messages that name a frame the user did not
     * write; empty for --start N and --end N (frame numbers, as messages name them). */
    char start_said[64], end_said[64];
    /* the bit rate's and the crf's option and value as typed ("-b:v 4M", "-crf 20") */
    char bitrate_said[64], crf_said[64];
    int times; /* either is a time, or an end below is to be worked out */
    int again; /* a session is being made again (times, a chunk's tag): its warnings were said */
    /* FFmpeg's spellings: -ss given (then -t is a span from it, in span; value -1: none),
     * -t given, and -frames:v N (vframes, -1: none), resolved with the times. */
    int ss_given, t_given, to_given;
    rp_cli_time span;
    /* -n and -t, the last given: the timeline's length (with -ss, -t's is a span, and
     * the timeline's is -n's, in n_frames, when n_given) */
    rp_cli_time duration;
    int duration_given;
    rp_cli_time t_time; /* -t's, when t_given */
    int64_t n_frames;   /* -n's, when n_given */
    int n_given;
    int64_t vframes;
    int overwrite_opts; /* 1: -y given, 2: -n (--no-overwrite) given */
} rp_cli;

/** Parse argv. FFmpeg's single-dash spellings (-pix_fmt, -vcodec, -ss, -frames:v, ...)
 * and "-NAME" for --NAME are rewritten in argv (pointers only) first; ffmpeg options
 * rockpool has not (-vf, -map, ...) are usage errors saying how to pipe into ffmpeg.
 * Returns 0, or 2 for bad usage with err filled (RP_ERR_INVALID, bad input) and a one-line
 * message (without the "rockpool: error: " prefix). */
int rp_cli_parse(rp_cli *cli, int argc, char **argv, rp_error *err);

/** Fill err (cleared first) with code, bad_input and a message; the arguments may point
 * into err->msg. */
void rp_cli_verror(rp_error *err, int code, int bad_input, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/** Free what rp_cli_parse allocated (the settings); safe after a failed parse. */
void rp_cli_free(rp_cli *cli);

/** Turn --start/--end times into frame numbers at fps (the frame a time falls in), and
 * end the run after -frames:v N frames or -ss S -t T, at most at the timeline's end
 * (frames long). */
void rp_cli_resolve_times(rp_cli *cli, int fps, int fps_den, int64_t frames);

/** A message that names the range's frames as --start N or --end N where the command
 * line wrote them otherwise (--start 2s, -to 11, --frame-range 5-10) names them as
 * written too: "--start 2s (frame 60) is past the last frame ...", "--frame-range 5-10
 * (--end 11) is past ..."; the bit rate in bits a second ("-b/--bitrate 4000000", the
 * library's) is named as typed ("-b 4M", "-b:v 4M"), and the crf too ("-crf 20").
 * Rewrites msg (size bytes) in place. */
void rp_cli_said(const rp_cli *cli, char *msg, size_t size);

/** word as one shell word, for a command a message suggests: itself when it is made of
 * characters no POSIX shell treats specially (letters, digits and _ @ % + = : , . / -),
 * else in single quotes, a single quote inside written '\'' . Returns buf (size bytes, at
 * least 4 x 400 + 3 to hold any) or word; NULL for a word no command could show: over 400
 * bytes (messages cut it), or with a character messages show as <U+XXXX> (a control, a
 * zero-width space: rp_text_show) or an invalid byte (shown as '?'). */
const char *rp_cli_shell_word(const char *word, char *buf, size_t size);

/** The --help text. */
void rp_cli_usage(FILE *f);

/** The few lines printed when rockpool is run without any argument. */
void rp_cli_short_usage(FILE *f);

#endif
