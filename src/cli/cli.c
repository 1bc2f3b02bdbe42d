/* cli.c - the program's getopt_long parsing in the style of dav1d's tools/dav1d_cli_parse.c: one
 * short_opts string, one long_opts table, numbers read with an end-pointer check that
 * names the option. rockpool prints its own messages, never getopt's. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "identity.h"

enum {
    ARG_START = 256,
    ARG_END,
    ARG_FRAME_RANGE,
    ARG_PRESET,
    ARG_SEED,
    ARG_CRF,
    ARG_ENCODER_PRESET,
    ARG_PIX_FMT,
    ARG_PNG_LEVEL,
    ARG_HASH,
    ARG_DUMP_HEIGHTS,
    ARG_PROGRESS,
    ARG_CHECK,
    ARG_SAVE_STATE,
    ARG_LOAD_STATE,
    ARG_PROGRESS_FD,
    ARG_MAX_MEMORY,
    ARG_FIT,
    ARG_SIMD,
    ARG_NO_AUDIO,
    ARG_ALLOW_OUTSIDE_PATHS,
    ARG_ALPHA,
    ARG_AOV,
    ARG_HASH_ALGO,
    ARG_VERIFY,
    ARG_VERIFY_DIR,
    ARG_STATS,
    ARG_SS,
    ARG_TO,
    ARG_VFRAMES,
    ARG_NO_OVERWRITE,
    ARG_IGNORED,
    ARG_FF_THREADS,
    ARG_VERIFY_REF,
    ARG_STRENGTH,
    ARG_JOB_ID, /* --job-id (identity.h) */
};

static const char short_opts[] = ":o:f:i:s:n:t:r:c:b:j:v:yqhV";

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"input", required_argument, NULL, 'i'},
    {"size", required_argument, NULL, 's'},
    {"frames", required_argument, NULL, 'n'},
    {"duration", required_argument, NULL, 't'},
    {"fps", required_argument, NULL, 'r'},
    {"start", required_argument, NULL, ARG_START},
    {"end", required_argument, NULL, ARG_END},
    {"frame-range", required_argument, NULL, ARG_FRAME_RANGE},
    {"preset", required_argument, NULL, ARG_PRESET},
    {"seed", required_argument, NULL, ARG_SEED},
    {"codec", required_argument, NULL, 'c'},
    {"crf", required_argument, NULL, ARG_CRF},
    {"encoder-preset", required_argument, NULL, ARG_ENCODER_PRESET},
    {"bitrate", required_argument, NULL, 'b'},
    {"pix-fmt", required_argument, NULL, ARG_PIX_FMT},
    {"png-level", required_argument, NULL, ARG_PNG_LEVEL},
    {"threads", required_argument, NULL, 'j'},
    {"hash", no_argument, NULL, ARG_HASH},
    {"hash-algo", required_argument, NULL, ARG_HASH_ALGO},
    {"verify", required_argument, NULL, ARG_VERIFY},
    {"verify-dir", required_argument, NULL, ARG_VERIFY_DIR},
    {"verify-ref", required_argument, NULL, ARG_VERIFY_REF},
    {"stats", required_argument, NULL, ARG_STATS},
    {"dump-heights", required_argument, NULL, ARG_DUMP_HEIGHTS},
    {"overwrite", no_argument, NULL, 'y'},
    {"quiet", no_argument, NULL, 'q'},
    {"loglevel", required_argument, NULL, 'v'},
    {"progress", no_argument, NULL, ARG_PROGRESS},
    {"check", no_argument, NULL, ARG_CHECK},
    {"job-id", optional_argument, NULL, ARG_JOB_ID},
    {"save-state", required_argument, NULL, ARG_SAVE_STATE},
    {"load-state", required_argument, NULL, ARG_LOAD_STATE},
    {"progress-fd", required_argument, NULL, ARG_PROGRESS_FD},
    {"max-memory", required_argument, NULL, ARG_MAX_MEMORY},
    {"fit", required_argument, NULL, ARG_FIT},
    {"strength", required_argument, NULL, ARG_STRENGTH},
    {"simd", required_argument, NULL, ARG_SIMD},
    {"no-audio", no_argument, NULL, ARG_NO_AUDIO},
    {"allow-outside-paths", no_argument, NULL, ARG_ALLOW_OUTSIDE_PATHS},
    {"alpha", no_argument, NULL, ARG_ALPHA},
    {"aov", required_argument, NULL, ARG_AOV},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    /* FFmpeg's spellings (rewrite_ffmpeg) */
    {"ss", required_argument, NULL, ARG_SS},
    {"to", required_argument, NULL, ARG_TO},
    {"vframes", required_argument, NULL, ARG_VFRAMES},
    {"ffmpeg-threads", required_argument, NULL, ARG_FF_THREADS},
    {"no-overwrite", no_argument, NULL, ARG_NO_OVERWRITE},
    {"hide_banner", no_argument, NULL, ARG_IGNORED},
    {"nostdin", no_argument, NULL, ARG_IGNORED},
    {NULL, 0, NULL, 0},
};

void rp_cli_usage(FILE *f)
{
    fputs("Usage: rockpool [OPTION]... [SCENE]    (-h, --help: this; -V, --version)\n"
          "Render water ripples from a scene script (SCENE, '-' for stdin, none for a\n"
          "built-in rain) to a video, a PNG sequence, a Y4M pipe or frame hashes.\n"
          "\n"
          "  -o, --output PATH      out.mp4|mkv|mov|webm|gif|webp, f_%05d.png, still.png,\n"
          "                         - (stdout: Y4M, -f mkv|webm). Default rockpool.mp4 (-f\n"
          "                         FMT: rockpool.FMT; png: rockpool_%05d.png; hashes: -);\n"
          "                         no video with --hash, --verify, --stats, --dump-heights\n"
          "  -f, --format NAME      mp4 mkv mov webm gif webp png y4m framemd5 framehash\n"
          "  -i, --input FILE       background image or video (default: built-in texture)\n"
          "      --fit MODE         cover (rockpool), stretch (seed presets) or contain\n"
          "  -s, --size WxH         default: scene's, or -i's <= 4K (even for 4:2:0 video)\n"
          "  -n, --frames N         timeline length in frames; -t TIME in time (10s, 500ms)\n"
          "  -r, --fps RATE         frame rate: 30, 30000/1001, 29.97, ntsc (default 30)\n"
          "      --start A --end B  frames A..B-1 (or times: 2s); --frame-range A-B: A..B\n"
          "      --preset NAME      rockpool elias applet silverlight codeproject\n"
          "      --strength X       every drop's height times X (rain, strokes), 0 to 4\n"
          "      --seed N           rain generator's seed; --png-level 0..9 PNG compression\n"
          "  -c, --codec NAME       video encoder (default libx264; libvpx-vp9 for webm)\n"
          "      --crf N            quality, lower is better (default 23; 28 x265, 31 vp9)\n"
          "      --encoder-preset P encoder speed preset (e.g. veryfast; default medium)\n"
          "  -b, --bitrate RATE     bit rate, e.g. 4M (not --crf); --pix-fmt NAME\n"

          "  -j, --threads N        worker threads (default: usable CPUs); output unchanged\n"
          "      --hash             'FRAME HASH' lines; --hash-algo md5, xxh3, sha256, ...\n"
          "      --verify MANIFEST  compare frames with a framemd5/framehash file or --hash\n"
          "                         lines: exit 3, PNGs in . (--verify-dir, --verify-ref)\n"
          "      --stats FILE.csv   per frame: frame,time,energy,peak,drops\n"
          "      --dump-heights F   also write heights: int16 LE, the grid's cells a frame\n"
          "      --simd LEVEL       kernels up to c|sse2|avx2|avx512|avx512icl: same output\n"
          "      --alpha            light alone as RGBA; --no-audio: drop a video's sound\n"
          "      --aov KIND PATH    16-bit PNGs: height, normal, displacement, caustics\n"
          "  -y, --overwrite        replace existing files   --check  validate, print, exit\n"
          "      --job-id[=LINE]    print the farm job's identity, exit; =LINE tags outputs\n"
          "  -q, --quiet            errors only; -v, --loglevel quiet|error|info --progress\n"
          "      --save-state F     checkpoint at the end; --load-state F; --progress-fd N\n"
          "      --max-memory SIZE  refuse runs that need more memory (default 4G)\n"
          "      --allow-outside-paths  let the scene name files outside its directory\n"
          "FFmpeg's -ss -to -frames:v -c:v -crf -preset -b:v -pix_fmt -threads -an -n work.\n"
          "Exit status: 0 ok, 1 runtime failure, 2 bad usage or input, 3 a frame differs\n"
          "from the --verify manifest, 130 interrupted. See rockpool(1), rockpool-scene(5).\n",
          f);
}

void rp_cli_short_usage(FILE *f)
{
    fputs("Usage: rockpool [OPTION]... [SCENE]    (-h, --help: this; -V, --version)\n"
          "Render water ripples from a scene script, e.g.\n"
          "  rockpool examples/rain.scene -o rain.mp4\n"
          "Use 'rockpool --help' for the options, man rockpool for the details.\n",
          f);
}

/* A usage error (bad input, RP_ERR_INVALID) with its message in err; returns 2, the exit
 * status. */
static int usage_error(rp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(rp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rp_cli_verror(err, RP_ERR_INVALID, 1, fmt, ap);
    va_end(ap);
    return 2;
}

void rp_cli_verror(rp_error *err, int code, int bad_input, const char *fmt, va_list ap)
{
    char msg[sizeof err->msg]; /* the arguments may point into err->msg */
    vsnprintf(msg, sizeof msg, fmt, ap);
    memset(err, 0, sizeof *err);
    err->code = code;
    err->bad_input = bad_input;
    memcpy(err->msg, msg, sizeof msg);
}

/* A library's refusal of an option's value (its message names no option): the option
 * named before it. Returns 2. */
static int option_error(rp_error *err, const char *opt)
{
    return usage_error(err, "%s: %s", opt, err->msg);
}

/* Numbers on the command line follow the scene's rules (rockpool-scene(5)): decimal only,
 * an optional sign, leading zeros allowed, no blanks, no hexadecimal. Reads one from text
 * into *v and points *end past it; returns 0 when there is none (no digits) or it passes
 * INT64_MAX in magnitude (then *end is text). signs: whether a sign may lead. */
static int whole(const char *text, int signs, int64_t *v, const char **end)
{
    const char *p = text;
    int neg = 0;
    uint64_t m = 0;
    *end = text;
    if (signs && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (m > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return 0;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (m > (uint64_t)INT64_MAX)
        return 0;
    *v = neg ? -(int64_t)m : (int64_t)m;
    *end = p;
    return 1;
}

const char *rp_cli_shell_word(const char *word, char *buf, size_t size)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_@%+=:,./-";
    size_t len = strnlen(word, 401), n = 0;
    int quote = len == 0;
    char shown[401];
    if (len > 400)
        return NULL;
    /* a character messages show as <U+XXXX> (a control, a zero-width space) or '?' (an
     * invalid byte): no command they print could name it */
    if (rp_text_show(word, len, shown, sizeof shown - 1) < len || strcmp(shown, word))
        return NULL;
    for (size_t i = 0; i < len; i++)
        quote |= !strchr(plain, word[i]);
    if (!quote)
        return word;
    /* 'it'\''s': a quote closes, is written escaped, and opens again */
    if (n + 1 < size)
        buf[n++] = '\'';
    for (size_t i = 0; i < len; i++) {
        const char *put = word[i] == '\'' ? "'\\''" : NULL;
        size_t k = put ? 4 : 1;
        if (n + k + 1 >= size)
            break;
        if (put)
            memcpy(buf + n, put, k);
        else
            buf[n] = word[i];
        n += k;
    }
    if (n + 1 < size)
        buf[n++] = '\'';
    buf[n < size ? n : size - 1] = '\0';
    return buf;
}

/* A whole number in lo..hi, named by its option in errors. */
static int parse_int(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out,
                     rp_error *err)
{
    const char *end;
    int64_t v = 0;
    if (!whole(text, 1, &v, &end) || *end)
        return usage_error(err, "%s: '%s' is not a whole number", opt, text);
    if (v < lo || v > hi)
        return usage_error(err, "%s: %s is out of range (%" PRId64 "..%" PRId64 ")", opt, text, lo,
                           hi);
    *out = v;
    return 0;
}

/* "4G", "512M", "100000k", "123456" -> bytes (binary multiples). */
static int parse_bytes(const char *opt, const char *text, int64_t *out, rp_error *err)
{
    const char *end;
    int64_t v = 0;
    int shift = 0;
    whole(text, 0, &v, &end);
    switch (end != text ? *end : 0) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    }
    if (end == text || *end || v < 1 || v > (INT64_MAX >> shift))
        return usage_error(err, "%s: '%s' is not a size like 4G or 512M", opt, text);
    *out = (int64_t)v << shift;
    return 0;
}

/* "4M", "2500k", "800000" -> bits per second; opt: the option as typed (-b, -b:v). */
static int parse_bitrate(const char *opt, const char *text, int64_t *out, rp_error *err)
{
    const char *end;
    int64_t v = 0, frac = 0, scale = 1; /* the decimals, frac / scale */
    int64_t mul = 1;
    int past = 0; /* a nonzero decimal past the ninth: below a bit a second at any suffix */
    whole(text, 0, &v, &end);
    /* decimals before a suffix, as FFmpeg takes them: 1.5M, 2.5k (1.5000000000M too) */
    if (end != text && *end == '.') {
        for (end++; *end >= '0' && *end <= '9'; end++) {
            if (scale < 1000000000)
                frac = frac * 10 + (*end - '0'), scale *= 10;
            else if (*end != '0')
                past = 1;
        }
    }
    if (end != text && (*end == 'k' || *end == 'K'))
        mul = 1000, end++;
    else if (end != text && (*end == 'm' || *end == 'M'))
        mul = 1000000, end++;
    else if (end != text && (*end == 'g' || *end == 'G'))
        mul = 1000000000, end++;
    /* at most 10^18 bits a second, whatever the suffix (a plain 2000000000 is 2G) */
    if (end == text || *end || past || v > 1000000000000000000 / mul || (frac * mul) % scale ||
        v * mul + frac * mul / scale < 1)
        return usage_error(err, "%s: '%s' is not a rate like 4M, 1.5M or 2500k", opt, text);
    *out = v * mul + frac * mul / scale;
    return 0;
}

/* A time (rp_time_parse): a bare number is seconds when bare_frames is 0 (-t, as FFmpeg
 * reads it), a frame number otherwise (--start, --end). */
static int parse_time(const char *opt, const char *text, int bare_frames, rp_cli_time *out,
                      rp_error *err)
{
    if (rp_time_parse(text, bare_frames, &out->value, &out->is_frames, err))
        return option_error(err, opt);
    return 0;
}

/* -v / -loglevel: FFmpeg's names (and numbers); quiet, panic, fatal and error are -q. */
static int parse_loglevel(const char *text, int *level, rp_error *err)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"quiet", RP_LOG_QUIET},
                  {"panic", 0},
                  {"fatal", 8},
                  {"error", RP_LOG_ERROR},
                  {"warning", RP_LOG_WARNING},
                  {"info", RP_LOG_INFO},
                  {"verbose", 40},
                  {"debug", 48},
                  {"trace", 56}};
    char *end;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (!strcmp(text, levels[i].name)) {
            *level = levels[i].level;
            return 0;
        }
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end != text && !*end && errno != ERANGE && v >= -8 && v <= 56) {
        *level = (int)v;
        return 0;
    }
    return usage_error(err,
                       "--loglevel: unknown level '%s' (expected quiet, panic, fatal, "
                       "error, warning, info, verbose, debug, trace or -8..56)",
                       text);
}

/* Levenshtein distance of a and b (the first 63 bytes of each), for "did you mean". */
static int distance(const char *a, const char *b)
{
    int row[64], n = (int)strnlen(b, 63);
    for (int j = 0; j <= n; j++)
        row[j] = j;
    for (int i = 1; a[i - 1] && i < 64; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= n; j++) {
            int up = row[j];
            int sub = diag + (a[i - 1] != b[j - 1]);
            row[j] = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            if (sub < row[j])
                row[j] = sub;
            diag = up;
        }
    }
    return row[n];
}

/* The long option nearest to name (without dashes, up to '='), if it is close: at most 2
 * edits, and fewer than half its letters. NULL otherwise. */
static const char *nearest_option(const char *name)
{
    char key[64];
    size_t n = strcspn(name, "=");
    const char *best = NULL;
    int best_d = 3;
    if (n >= sizeof key)
        return NULL;
    memcpy(key, name, n);
    key[n] = '\0';
    /* other tools' words for rockpool's options, which no spelling distance finds */
    static const char *const synonyms[][2] = {
        {"resolution", "size"}, {"width", "size"},       {"framerate", "fps"},
        {"frame-rate", "fps"},  {"background", "input"}, {"bg", "input"},
        {"image", "input"},     {"photo", "input"},      {"video", "input"},
        {"quality", "crf"},     {"length", "duration"},  {"time", "duration"},
        {"vcodec", "codec"},    {"pixfmt", "pix-fmt"},
    };
    for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
        if (!strcmp(key, synonyms[i][0]))
            return synonyms[i][1];
    for (const struct option *o = long_opts; o->name; o++) {
        int d = distance(key, o->name);
        if (d < best_d && 2 * d < (int)strlen(o->name)) {
            best = o->name;
            best_d = d;
        }
    }
    return best;
}

/* What getopt_long refused in arg, a long option ("--NAME" or "--NAME=VALUE", NAME whole
 * or an abbreviation) that it found, but given a value it takes none of, or that
 * abbreviates several; refused is optopt as getopt_long left it (the option's value, or
 * 0). A usage error (2) with that said, or 0 when arg is neither (an unknown option). */
static int long_option_error(const char *arg, int refused, rp_error *err)
{
    char names[512] = "";
    size_t n, used = 0;
    int matches = 0;
    const struct option *found = NULL;

    if (arg[0] != '-' || arg[1] != '-')
        return 0;
    arg += 2;
    n = strcspn(arg, "=");
    for (const struct option *o = long_opts; o->name; o++) {
        if (strncmp(o->name, arg, n))
            continue;
        if (strlen(o->name) == n) { /* exact: no other counts */
            found = o;
            matches = 1;
            break;
        }
        if (!found || found->val != o->val) /* aliases of one option are one */
            matches++;
        found = o;
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s--%s", used ? ", " : "",
                                     o->name);
    }
    if (matches == 1 && arg[n] == '=' && found->has_arg == no_argument &&
        (refused == 0 || refused == found->val))
        return usage_error(err, "option '--%s' takes no value (got '--%s')", found->name, arg);
    if (matches > 1 && refused == 0)
        return usage_error(err, "option '--%.*s' is ambiguous: it abbreviates %s", (int)n, arg,
                           names);
    return 0;
}

/* FFmpeg's options that rockpool has not: how to get the same with a pipe into ffmpeg
 * or a re-mux (each message has two %s: the option). */
static int ffmpeg_only(const char *a, rp_error *err)
{
    static const char pipe[] = "%s is an ffmpeg option rockpool does not have: pipe the frames "
                               "into ffmpeg (Y4M on the pipe): rockpool SCENE -o - | ffmpeg "
                               "-i - %s ... out.mp4";
    static const char remux[] = "%s: rockpool copies a video background's sound or re-encodes "
                                "it (rockpool(1) VIDEO BACKGROUNDS); for another audio codec, "
                                "re-mux: ffmpeg -i out.mp4 -c:v copy %s ... out2.mp4";
    static const struct {
        const char *name, *msg;
    } table[] = {{"-vf", pipe},       {"-filter:v", pipe}, {"-filter_complex", pipe},
                 {"-lavfi", pipe},    {"-map", pipe},      {"-af", pipe},
                 {"-filter:a", pipe}, {"-c:a", remux},     {"-acodec", remux},
                 {"-b:a", remux},     {"-ar", remux},      {"-ac", remux}};
    for (size_t j = 0; j < sizeof table / sizeof table[0]; j++)
        if (!strcmp(a, table[j].name)) {
            /* one of the two messages above, not user text */
            return usage_error(err, table[j].msg == pipe ? pipe : remux, a, a);
        }
    if (!strcmp(a, "-framerate"))
        return usage_error(err, "unknown option '-framerate' (did you mean -r?)");
    /* read as -s 'n' and -v 'n' (a bad size, a bad log level) */
    if (!strcmp(a, "-sn"))
        return usage_error(err, "unknown option '-sn' (rockpool writes no subtitles: leave "
                                "it out)");
    if (!strcmp(a, "-vn"))
        return usage_error(err, "unknown option '-vn' (rockpool writes video: see rockpool "
                                "--help)");
    return 0;
}

/* A single-dash word that is no option of rockpool's (nor a cluster of them): a usage
 * error naming it whole, with the long option it is near where there is one. Returns 2. */
static int unknown_word(const char *word, rp_error *err)
{
    if (nearest_option(word + 1))
        return usage_error(err, "unknown option '%s' (did you mean --%s?)", word,
                           nearest_option(word + 1));
    return usage_error(err, "unknown option '%s' (see rockpool --help)", word);
}

/* FFmpeg's single-dash spellings and the long options they are (rewrite_ffmpeg). */
static const char *const aliases[][2] = {{"-pix_fmt", "--pix-fmt"},
                                         {"-vcodec", "--codec"},
                                         {"-c:v", "--codec"},
                                         {"-codec:v", "--codec"},
                                         {"-loglevel", "--loglevel"},
                                         {"-ss", "--ss"},
                                         {"-to", "--to"},
                                         {"-frames:v", "--vframes"},
                                         {"-frames", "--vframes"},
                                         {"-vframes", "--vframes"},
                                         {"-crf", "--crf"},
                                         {"-preset", "--encoder-preset"},
                                         {"-b:v", "--bitrate"},
                                         {"-threads", "--ffmpeg-threads"},
                                         {"-an", "--no-audio"},
                                         {"-hide_banner", "--hide_banner"},
                                         {"-nostdin", "--nostdin"}};
#define N_ALIASES (sizeof aliases / sizeof aliases[0])
/* The words rewrite_ffmpeg puts in argv: alias_word[j] is aliases[j][1] in a copy of its
 * own, dashed[k] "--NAME" for "-NAME" (long_opts[k]), so that the word getopt_long read
 * tells how the option was spelled (typed_name). */
static char alias_word[N_ALIASES][24];
static char dashed[sizeof long_opts / sizeof long_opts[0]][24];

/* FFmpeg's single-dash spellings (rockpool(1) FFMPEG SPELLINGS), rewritten before
 * getopt_long sees them, which would read -ss as -s s: only in option positions, not as
 * the argument of an option, nor after "--". -n is FFmpeg's "never overwrite" unless a
 * number follows (then it is rockpool's -n FRAMES). "-NAME" for a long option --NAME is
 * that option. Returns 0, or 2 with a message for FFmpeg options rockpool has not. */
static int rewrite_ffmpeg(int argc, char **argv, rp_error *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (!strcmp(a, "--"))
            return 0;
        for (size_t j = 0; j < N_ALIASES; j++)
            if (!strcmp(a, aliases[j][0])) {
                snprintf(alias_word[j], sizeof alias_word[j], "%s", aliases[j][1]);
                argv[i] = alias_word[j];
                a = argv[i];
            }
        if (!strcmp(a, "-n")) {
            const char *next = i + 1 < argc ? argv[i + 1] : "";
            if ((next[0] < '0' || next[0] > '9') &&
                ((next[0] != '+' && next[0] != '-') || next[1] < '0' || next[1] > '9'))
                argv[i] = (char *)"--no-overwrite";
            a = argv[i];
        }
        if ((r = ffmpeg_only(a, err)))
            return r;
        if (a[0] == '-' && a[1] != '-' && a[1] && a[2])
            for (size_t k = 0; long_opts[k].name; k++)
                if (!strcmp(a + 1, long_opts[k].name) && strlen(a) + 2 <= sizeof dashed[k]) {
                    snprintf(dashed[k], sizeof dashed[k], "-%s", a);
                    argv[i] = dashed[k];
                    a = argv[i];
                    break;
                }
        /* Skip the separate argument of an option that takes one, and --aov's PATH, the
         * word after its KIND (--aov KIND PATH, --aov=KIND PATH). */
        if (!strncmp(a, "--aov=", 6)) {
            i++;
        } else if (a[0] == '-' && a[1] == '-' && a[2] && !strchr(a, '=')) {
            for (const struct option *o = long_opts; o->name; o++)
                if (!strcmp(a + 2, o->name) && o->has_arg == required_argument)
                    i += o->val == ARG_AOV ? 2 : 1;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            /* A cluster of short options: the first taking an argument ends it. A letter
             * that is no option in it makes the word unknown, named whole: '-movflags',
             * '-q:v', '-x265-params' (they were named '-m', '-:', '-x'). */
            for (const char *c = a + 1; *c; c++) {
                const char *def = *c != ':' ? strchr(short_opts + 1, *c) : NULL;
                if (!def && a[2])
                    return unknown_word(a, err);
                if (def && def[1] == ':') {
                    i += !c[1];
                    break;
                }
            }
        }
    }
    return 0;
}

/* The option getopt_long has just returned (o, with optarg), as the command line spelled
 * it, for messages: FFmpeg's spelling (-b:v, -vframes, -frames) or -NAME as typed, -X for
 * a short option when shorts (else its long name, as rockpool's messages name its own
 * options), --NAME for a long one (whole, also when it was abbreviated). buf holds size
 * bytes. */
static const char *typed_name(int o, char **argv, int shorts, char *buf, size_t size)
{
    const char *word = argv[optind - 1];
    if (optarg && optarg == word && optind >= 2) /* the value was a word of its own */
        word = argv[optind - 2];
    for (size_t j = 0; j < N_ALIASES; j++)
        if (word == alias_word[j])
            return aliases[j][0];
    for (size_t k = 0; long_opts[k].name; k++)
        if (word == dashed[k])
            return dashed[k] + 1;
    if ((word[0] == '-' && word[1] == '-') || !shorts)
        for (const struct option *l = long_opts; l->name; l++)
            if (l->val == o) {
                snprintf(buf, size, "--%s", l->name);
                return buf;
            }
    snprintf(buf, size, "-%c", o > 0 && o < 256 ? o : '?');
    return buf;
}

/* The frame a time falls in at fps / fps_den frames per second, exactly. */
static int64_t frame_at(rp_cli_time t, int fps, int fps_den)
{
    return (int64_t)((__int128)t.value * fps / ((__int128)fps_den * 1000000));
}

/* The frames a time of us microseconds covers: ceil(us x fps), exactly (-t T's frames). */
static int64_t frames_before(int64_t us, int fps, int fps_den)
{
    const __int128 den = (__int128)fps_den * 1000000;
    return (int64_t)(((__int128)us * fps + den - 1) / den);
}

void rp_cli_resolve_times(rp_cli *cli, int fps, int fps_den, int64_t frames)
{
    int64_t end = -1;
    if (!cli->start_at.is_frames)
        cli->run.start = frame_at(cli->start_at, fps, fps_den);
    if (!cli->end_at.is_frames)
        cli->run.end = frame_at(cli->end_at, fps, fps_den);
    /* -ss S -t T and -frames:v N end the run as ffmpeg does: T's ceil(T x fps) frames from
     * the frame S falls in (as many as -t T alone covers, so -ss 0 -t T writes -t T's frames
     * and a span shorter than a frame one frame), after N frames, or at the timeline's end if
     * that comes first. A start at or past the timeline's end gets no end from them: the
     * session says the start is past the last frame, not past an --end the timeline's
     * length made ('-ss 1 -t 0.5' on 3 frames was "-ss 1 (frame 30) is past --end 3"). */
    if (cli->span.value >= 0)
        end = cli->run.start + frames_before(cli->span.value, fps, fps_den);
    if (cli->vframes >= 0 && (end < 0 || cli->run.start + cli->vframes < end))
        end = cli->run.start + cli->vframes;
    if (end >= 0 && (cli->run.end < 0 || end < cli->run.end) && cli->run.start < frames)
        cli->run.end = end < frames ? end : frames;
}

/* Keeps how the start (start 1) or the end (0) was written, when it is not the frame
 * number messages name it by (--start N): the option and its argument, for rp_cli_said. */
static void said(rp_cli *cli, int start, const char *opt, const char *arg, int other)
{
    char *to = start ? cli->start_said : cli->end_said;
    size_t n = start ? sizeof cli->start_said : sizeof cli->end_said;
    if (other)
        snprintf(to, n, "%s %.40s%s", opt, arg, strlen(arg) > 40 ? "..." : "");
    else
        to[0] = '\0';
}

/* In msg, each "OPT N" (the whole number, not a prefix of another) becomes "SAID (WHAT N)",
 * or "SAID" when what is NULL. */
static void name_as_said(char *msg, size_t size, const char *opt, int64_t n, const char *said,
                         const char *what)
{
    char token[48], with[160], out[sizeof(((rp_error *)0)->msg)];
    snprintf(token, sizeof token, "%s %" PRId64, opt, n);
    if (what)
        snprintf(with, sizeof with, "%s (%s %" PRId64 ")", said, what, n);
    else
        snprintf(with, sizeof with, "%s", said);
    size_t tlen = strlen(token), o = 0;
    const char *p = msg;
    if (!said[0] || size > sizeof out)
        return;
    while (*p && o + 1 < size) {
        const char *hit = strstr(p, token);
        int whole = hit && !isdigit((unsigned char)hit[tlen]) &&
                    (hit == msg || hit[-1] == ' ' || hit[-1] == '(');
        size_t keep = hit ? (size_t)(hit - p) + (whole ? 0 : tlen) : strlen(p);
        o += (size_t)snprintf(out + o, size - o, "%.*s", (int)keep, p);
        p += keep;
        if (hit && whole && o + 1 < size) {
            o += (size_t)snprintf(out + o, size - o, "%s", with);
            p += tlen;
        }
        if (!hit || o >= size)
            break;
    }
    if (o >= size)
        o = size - 1;
    out[o] = '\0';
    memcpy(msg, out, o + 1);
}

void rp_cli_said(const rp_cli *cli, char *msg, size_t size)
{
    name_as_said(msg, size, "--start", cli->run.start, cli->start_said, "frame");
    name_as_said(msg, size, "--end", cli->run.end, cli->end_said, "--end");
    name_as_said(msg, size, "-b/--bitrate", cli->run.out.bitrate, cli->bitrate_said, NULL);
    name_as_said(msg, size, "--crf", cli->run.out.crf, cli->crf_said, NULL);
}

/* The run's start (start 1) or end (0) as the last --start, -ss, --end or -to gives it: its
 * frame number, or, for a time (resolved later, rp_cli_resolve_times), the default (0, or -1
 * for the end) and not an earlier option's number: the session made before the times are
 * resolved would refuse a range that is not the run's ('--start 3 -ss 0 --end 3' was
 * 'the range has no frames'). */
static void set_frame(rp_cli *cli, int start, rp_cli_time t)
{
    int64_t *to = start ? &cli->run.start : &cli->run.end;
    *to = t.is_frames ? t.value : start ? 0 : -1;
}

/* Options of time: the timeline's length and rate, and the frames to write (rockpool's own
 * spellings and FFmpeg's; name: the option as typed). Returns 0, a usage error (2, message in err),
 * or -1 when o is not one of them. */
static int time_option(rp_cli *cli, int o, const char *name, const char *arg, rp_error *err)
{
    int64_t v;
    int r = 0;
    switch (o) {
    case 'n':
        r = parse_int("--frames", arg, 1, RP_FRAMES_MAX, &v, err); /* 0: no timeline */
        cli->duration = (rp_cli_time){v, 1};
        cli->duration_given = 1;
        cli->n_frames = v;
        cli->n_given = 1;
        break;
    case 't':
        r = parse_time("-t", arg, 0, &cli->duration, err);
        /* the range of the setting "duration" (rpcore.h), also for -ss S -t T's span */
        if (!r && cli->duration.is_frames && cli->duration.value > RP_FRAMES_MAX)
            return usage_error(err, "-t: %s is out of range (1f..%" PRId64 "f)", arg,
                               RP_FRAMES_MAX);
        if (!r && !cli->duration.is_frames && cli->duration.value > RP_DURATION_MAX_US)
            return usage_error(err, "-t: %s is out of range (1us..%" PRId64 "s)", arg,
                               RP_DURATION_MAX_US / 1000000);
        cli->duration_given = 1;
        cli->t_given = 1;
        cli->t_time = cli->duration;
        break;
    case 'r':
        if (rp_settings_set(cli->over, "fps", arg, err)) /* its message, the scene's word */
            return usage_error(err,
                               "--fps: '%s' is not a frame rate above 0 and at most 1000 like "
                               "30, 12.5, 29.97, 30000/1001, ntsc, pal or film",
                               arg);
        break;
    case ARG_START:
    case ARG_END: {
        rp_cli_time *t = o == ARG_START ? &cli->start_at : &cli->end_at;
        r = parse_time(o == ARG_START ? "--start" : "--end", arg, 1, t, err);
        set_frame(cli, o == ARG_START, *t);
        cli->times |= !t->is_frames;
        said(cli, o == ARG_START, o == ARG_START ? "--start" : "--end", arg, !r && !t->is_frames);
        break;
    }
    case ARG_FRAME_RANGE: { /* "A-B" inclusive, or "A" alone: --start A --end B+1 */
        int64_t a, b = -1;
        const char *end;
        int good = whole(arg, 0, &a, &end);
        if (good && *end == '-')
            good = whole(end + 1, 0, &b, &end);
        else
            b = a;
        if (!good || *end || b < a || b == INT64_MAX)
            return usage_error(err,
                               "--frame-range: '%s' is not a range of frame numbers FIRST-LAST "
                               "like 0-99 (both included, FIRST <= LAST)",
                               arg);
        cli->run.start = a;
        cli->run.end = b + 1;
        cli->start_at = (rp_cli_time){a, 1};
        cli->end_at = (rp_cli_time){b + 1, 1};
        said(cli, 1, "--frame-range", arg, 1);
        said(cli, 0, "--frame-range", arg, 1);
        break;
    }
    case ARG_SS:
    case ARG_TO: /* FFmpeg's: a bare number is seconds */
        r = parse_time(o == ARG_SS ? "-ss" : "-to", arg, 0,
                       o == ARG_SS ? &cli->start_at : &cli->end_at, err);
        /* a frame number (-ss 45f) is --start 45 (--end for -to), as for --start 45f */
        set_frame(cli, o == ARG_SS, o == ARG_SS ? cli->start_at : cli->end_at);
        cli->ss_given |= o == ARG_SS;
        cli->to_given |= o == ARG_TO;
        cli->times = 1;
        said(cli, o == ARG_SS, o == ARG_SS ? "-ss" : "-to", arg, 1);
        break;
    case ARG_VFRAMES:
        /* 0 frames is no range: said as the option written (-frames:v, -vframes, -frames,
         * --vframes), not as --start and --end */
        r = parse_int(name, arg, 1, RP_FRAMES_MAX, &cli->vframes, err);
        cli->times = 1;
        break;
    default: return -1;
    }
    return r;
}

/* Options that override the scene's settings (rp_run.over). Returns 0, a usage error (2, message in
 * err), or -1 when o is not one of them. */
static int setting_option(rp_cli *cli, int o, const char *typed, const char *arg, rp_error *err)
{
    const char *name, *opt;
    switch (o) {
    case 'i':
        /* ffmpeg -i A -i B reads two inputs; rockpool has one background, and took B
         * without a word */
        if (cli->input && strcmp(cli->input, arg))
            return usage_error(err,
                               "-i is given twice ('%s', then '%s'): rockpool reads one "
                               "background; give one -i",
                               cli->input, arg);
        cli->input = arg;
        name = "input", opt = "--input";
        break;
    case 's': name = "size", opt = "--size"; break; /* the scene's too for the seed presets */
    case ARG_PRESET: name = "preset", opt = "--preset"; break;
    case ARG_SEED: name = "seed", opt = "--seed"; break;
    case ARG_STRENGTH: name = "strength", opt = "--strength"; break;
    case ARG_FIT: name = "fit", opt = "--fit"; break;
    default: return time_option(cli, o, typed, arg, err);
    }
    if (!rp_settings_set(cli->over, name, arg, err))
        return 0;
    /* FFmpeg's names of sizes (-s hd720) are not read: the size to give instead */
    static const char *const sizes[][2] = {
        {"hd480", "852x480"},     {"hd720", "1280x720"}, {"hd1080", "1920x1080"},
        {"uhd2160", "3840x2160"}, {"2k", "2048x1080"},   {"4k", "4096x2160"},
        {"nhd", "640x360"},       {"qhd", "960x540"},    {"vga", "640x480"},
        {"qvga", "320x240"},      {"svga", "800x600"},   {"xga", "1024x768"},
        {"ntsc", "720x480"},      {"pal", "720x576"},    {"cif", "352x288"},
        {"qcif", "176x144"}};
    for (size_t i = 0; o == 's' && i < sizeof sizes / sizeof sizes[0]; i++)
        if (!strcmp(arg, sizes[i][0]))
            return usage_error(err,
                               "--size: '%s' is not WIDTHxHEIGHT (FFmpeg's %s is %s: give -s %s)",
                               arg, sizes[i][0], sizes[i][1], sizes[i][1]);
    return option_error(err, opt);
}

/* The option o getopt_long has just returned and its value arg as typed ("-b:v 4M", "-crf
 * 20"), into to (64 bytes: cli.h's bitrate_said, crf_said), for rp_cli_said. */
static void said_as_typed(char to[64], int o, char **argv, const char *arg)
{
    char typed[64];
    snprintf(to, 64, "%.19s %.40s%s", typed_name(o, argv, 1, typed, sizeof typed), arg,
             strlen(arg) > 40 ? "..." : "");
}

/* A file option given once: ffmpeg -o A -o B would write both; rockpool writes one, and took
 * the last without a word. The same value again is the same request. */
static int one_file(const char **slot, const char *opt, const char *arg, rp_error *err)
{
    if (*slot && strcmp(*slot, arg))
        return usage_error(err,
                           "%s is given twice ('%s', then '%s'): rockpool writes one; give one %s",
                           opt, *slot, arg, opt);
    *slot = arg;
    return 0;
}

/* Options of the encoded output and the other files written. Returns 0, a usage error (2, message
 * in err), or -1 when o is not one of them. */
static int output_option(rp_cli *cli, int o, const char *name, const char *arg, int argc,
                         char **argv, rp_error *err)
{
    int64_t v;
    int r = 0;
    switch (o) {
    case 'o':
        if (!cli->output_given)
            cli->run.out.path = NULL; /* (the default) */
        r = one_file(&cli->run.out.path, "-o", arg, err);
        cli->output_given = 1;
        break;
    case 'f':
        cli->run.out.format = rp_output_format_from_name(arg);
        if (cli->run.out.format == RP_FORMAT_NONE)
            return usage_error(
                err,
                "--format: unknown format '%s' (expected mp4, mkv, mov, webm, gif, webp, "
                "png, y4m, framemd5, framehash)",
                arg);
        break;
    case 'c': cli->run.out.codec = arg; break;
    case ARG_CRF:
        r = parse_int(name, arg, 0, 63, &v, err);
        cli->run.out.crf = (int)v;
        cli->run.out.crf_given = 1;
        said_as_typed(cli->crf_said, o, argv, arg);
        break;
    case ARG_ENCODER_PRESET: cli->run.out.encoder_preset = arg; break;
    case 'b':
        r = parse_bitrate(name, arg, &cli->run.out.bitrate, err);
        /* as typed, for the messages that name it (rp_cli_said): -b 4M, not 4000000 */
        said_as_typed(cli->bitrate_said, o, argv, arg);
        break;
    case ARG_PIX_FMT: cli->run.out.pix_fmt = arg; break;
    case ARG_PNG_LEVEL:
        r = parse_int("--png-level", arg, 0, 9, &v, err);
        cli->run.out.png_level = (int)v;
        break;
    case ARG_HASH_ALGO:
        if (rp_hash_lookup(arg, NULL, NULL)) {
            char names[512];
            rp_hash_list(names, sizeof names);
            return usage_error(err, "--hash-algo: unknown algorithm '%s' (expected %s)", arg,
                               names);
        }
        cli->run.hash_algo = cli->run.out.hash_algo = arg;
        break;
    case 'y':
        cli->run.out.overwrite = 1;
        cli->overwrite_opts |= 1;
        break;
    case ARG_NO_OVERWRITE:
        cli->run.out.overwrite = 0;
        cli->overwrite_opts |= 2;
        break;
    case ARG_ALPHA: cli->run.alpha = 1; break;
    case ARG_AOV: {
        /* --aov KIND PATH: the path is the next word */
        int kind = rp_aov_from_name(arg);
        if (kind < 0)
            return usage_error(err,
                               "--aov: unknown kind '%s' (expected height, normal, "
                               "displacement, caustics)",
                               arg);
        if (optind >= argc)
            return usage_error(err, "--aov %s needs a PATH, a PNG pattern like %s_%%05d.png", arg,
                               arg);
        if (cli->run.aov[kind])
            return usage_error(err, "--aov %s is given twice (one PATH per kind)", arg);
        cli->run.aov[kind] = argv[optind++];
        break;
    }
    default: return -1;
    }
    (void)v;
    return r;
}

/* Options of the run and of the program. Returns 0, a usage error (2, message in err), or -1 when o
 * is not one of them. */
static int run_option(rp_cli *cli, int o, const char *arg, rp_error *err)
{
    int64_t v;
    int r = 0;
    switch (o) {
    case 'j':
        r = parse_int("--threads", arg, 1, 256, &v, err);
        cli->run.threads = (int)v;
        break;
    case ARG_FF_THREADS: /* ffmpeg's -threads: 0 is automatic, the usable CPUs */
        r = parse_int("-threads", arg, 0, 256, &v, err);
        cli->run.threads = (int)v;
        break;
    case ARG_HASH: cli->run.hash = 1; break;
    case ARG_VERIFY: cli->run.verify = arg; break;
    case ARG_VERIFY_DIR: cli->run.verify_dir = arg; break;
    case ARG_VERIFY_REF: cli->run.verify_ref = arg; break;
    case ARG_STATS: r = one_file(&cli->run.stats, "--stats", arg, err); break;
    case 'v': r = parse_loglevel(arg, &cli->loglevel, err); break;
    case ARG_DUMP_HEIGHTS: r = one_file(&cli->run.dump_heights, "--dump-heights", arg, err); break;
    case 'q': cli->loglevel = RP_LOG_ERROR; break;
    case ARG_PROGRESS: cli->progress = 1; break;
    case ARG_CHECK: cli->check = 1; break;
    case ARG_JOB_ID:
        /* --job-id: print the identity and exit; --job-id=LINE: tag the outputs with it */
        if (!arg) {
            cli->job_id_print = 1;
        } else if (!rp_job_line_valid(arg)) {
            return usage_error(err,
                               "--job-id: '%s' is not a job line as --job-id prints it "
                               "(scene=HEX16,inputs=HEX16,options=HEX16,build=HEX16)",
                               arg);
        } else {
            cli->run.job_id = arg;
        }
        break;
    case ARG_SAVE_STATE: r = one_file(&cli->run.save_state, "--save-state", arg, err); break;
    case ARG_LOAD_STATE: cli->run.load_state = arg; break;
    case ARG_SIMD: /* the output never changes; tests compare every level */
        if (rp_simd_cap(arg))
            return usage_error(
                err, "--simd: unknown level '%s' (expected c, sse2, avx2, avx512, avx512icl)", arg);
        break;
    case ARG_NO_AUDIO: cli->run.no_audio = 1; break;
    case ARG_MAX_MEMORY: r = parse_bytes("--max-memory", arg, &cli->run.max_memory, err); break;
    case ARG_ALLOW_OUTSIDE_PATHS: cli->run.allow_outside_paths = 1; break;
    case ARG_PROGRESS_FD:
        r = parse_int("--progress-fd", arg, 0, 1 << 20, &v, err);
        cli->progress_fd = (int)v;
        break;
    case ARG_IGNORED: break;
    case 'h': cli->help = 1; break;
    case 'V': cli->version = 1; break;
    default: return -1;
    }
    (void)v;
    return r;
}

void rp_cli_free(rp_cli *cli)
{
    rp_settings_free(&cli->over);
    cli->run.over = NULL;
}

/* An empty argument where a path or a name is wanted (an unset shell variable, -i "$BG")
 * is refused: taken as it is, "" gives -i's built-in texture, --hash-algo's and
 * --encoder-preset's defaults without a word, or fails only after the render (--stats).
 * 2 with the message, or 0. */
static int empty_argument(int o, const char *arg, rp_error *err)
{
    static const struct {
        int code;
        const char *name, *what;
    } wanted[] = {{'i', "--input", "path (without -i the background is the built-in texture)"},
                  {ARG_STATS, "--stats", "path"},
                  {ARG_DUMP_HEIGHTS, "--dump-heights", "path"},
                  {ARG_SAVE_STATE, "--save-state", "path"},
                  {ARG_LOAD_STATE, "--load-state", "path"},
                  {ARG_VERIFY, "--verify", "path"},
                  {ARG_VERIFY_DIR, "--verify-dir", "path"},
                  {ARG_VERIFY_REF, "--verify-ref", "path"},
                  {ARG_HASH_ALGO, "--hash-algo", "name (without it, md5)"},
                  {ARG_ENCODER_PRESET, "--encoder-preset", "name (without it, the encoder's)"}};
    if (!arg || *arg)
        return 0;
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (wanted[i].code == o)
            return usage_error(err, "%s: the %s is empty", wanted[i].name, wanted[i].what);
    return 0;
}

/* Whether w, an option's argument, is one of rockpool's options as a command line writes
 * them (-s, --size, --size=..., -stats, FFmpeg's -ss, -frames:v): then the option's value
 * was left out, and the next option taken for it. */
static int is_option_word(const char *w)
{
    if (w[0] != '-' || !w[1])
        return 0;
    if (!w[2])
        return w[1] != ':' && w[1] != '-' && strchr(short_opts + 1, w[1]);
    const char *name = w + 1 + (w[1] == '-');
    size_t n = strcspn(name, "=");
    for (const struct option *o = long_opts; o->name; o++)
        if (strlen(o->name) == n && !strncmp(o->name, name, n))
            return 1;
    for (size_t j = 0; j < N_ALIASES; j++)
        if (!strcmp(w, aliases[j][0]))
            return 1;
    return 0;
}

/* One option getopt_long returned (o, with optarg): into cli, or an error naming it
 * (an unknown one, with the nearest long option where there is one). */
static int take_option(rp_cli *cli, int o, int argc, char **argv, rp_error *err)
{
    int r;
    char buf[64];
    if (o == ':')
        return usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
    if ((r = empty_argument(o, optarg, err)))
        return r;
    /* '-i -s 64x48' (the background left out): not a background named '-s' */
    if (optarg && optarg == argv[optind - 1] && is_option_word(optarg))
        return usage_error(err, "option '%s' needs an argument, not the option '%s' after it",
                           typed_name(o, argv, 1, buf, sizeof buf), optarg);
    const char *name = o == '?' ? "?" : typed_name(o, argv, 0, buf, sizeof buf);
    r = setting_option(cli, o, name, optarg, err);
    if (r < 0)
        r = output_option(cli, o, name, optarg, argc, argv, err);
    if (r < 0)
        r = run_option(cli, o, optarg, err);
    /* A word getopt read as a short option and its value glued to it ('-resolution' as -r
     * 'esolution') whose value is refused: when the word is near a long option, that is
     * what was meant ("did you mean --size?"), not a bad frame rate; so is a word of
     * letters after an option whose values are not names ('-tune', '-vsync', '-fflags',
     * FFmpeg's: not "-t: 'une' is not a time"), and a word read as short options and the
     * last one's value of letters ('-qscale:v' as -q -s 'cale:v': not a bad size). A
     * value of digits after a cluster is the value's own error ('-qs64x4x': '64x4x' is
     * not a size, as with '-q -s64x4x'), as '-qs64x48' is a size. */
    const char *word = argv[optind - 1];
    if (r > 0 && optarg && word[0] == '-' && word[1] != '-' &&
        ((optarg == word + 2 &&
          (nearest_option(word + 1) ||
           (word[3] && isalpha((unsigned char)optarg[0]) && !strchr("ioc", word[1])))) ||
         (optarg > word + 2 && optarg <= word + strlen(word) && isalpha((unsigned char)optarg[0]))))
        return unknown_word(word, err);
    if (r >= 0)
        return r;
    if ((r = long_option_error(argv[optind - 1], optopt, err)))
        return r;
    if (optopt > 0 && optopt < 256)
        return usage_error(err, "unknown option '-%c' (see rockpool --help)", optopt);
    const char *arg = argv[optind - 1];
    if (arg[0] == '-' && arg[1] == '-' && nearest_option(arg + 2))
        return usage_error(err, "unknown option '%s' (did you mean --%s?)", arg,
                           nearest_option(arg + 2));
    return usage_error(err, "unknown option '%s' (see rockpool --help)", arg);
}

/* The operands after the options: SCENE, and nothing more (an output name there, as
 * ffmpeg takes it, is answered with the -o command that writes it). */
static int take_operands(rp_cli *cli, int argc, char **argv, rp_error *err)
{
    if (optind < argc)
        cli->scene_path = argv[optind++];
    if (optind < argc && !cli->output_given &&
        rp_output_format_from_path(argv[optind]) != RP_FORMAT_NONE) { /* ffmpeg's habit */
        char scene[1604], out[1604]; /* the command, as a shell takes it */
        const char *ws = rp_cli_shell_word(cli->scene_path, scene, sizeof scene),
                   *wo = rp_cli_shell_word(argv[optind], out, sizeof out);
        if (!ws || !wo) /* a name no command could show */
            return usage_error(err,
                               "unexpected argument '%s' (only one SCENE is read): to write to "
                               "it, give it with -o",
                               argv[optind]);
        return usage_error(err,
                           "unexpected argument '%s' (only one SCENE is read): to write to it, "
                           "give it with -o, as in rockpool %s -o %s",
                           argv[optind], ws, wo);
    }
    if (optind < argc)
        return usage_error(err, "unexpected argument '%s' (only one SCENE is read)", argv[optind]);
    return 0;
}

/* The output without -o: framemd5/framehash to stdout, as `ffmpeg -f framemd5 -` does; no
 * video for a run that asks only for hashes, a check or side files; with -f, the default
 * name in that format. */
static void default_output(rp_cli *cli)
{
    enum rp_format format = cli->run.out.format;
    if (!cli->output_given && (format == RP_FORMAT_FRAMEMD5 || format == RP_FORMAT_FRAMEHASH))
        cli->run.out.path = "-";
    else if (!cli->output_given && format == RP_FORMAT_NONE &&
             (cli->run.hash || cli->run.verify || cli->run.stats || cli->run.dump_heights))
        cli->run.out.path = NULL;
    else if (!cli->output_given && format != RP_FORMAT_NONE) {
        /* -f without -o: the default name in that format (rockpool.gif, not a GIF named
         * rockpool.mp4); PNG frames as a sequence, rockpool_00000.png, ... */
        static char name[32];
        snprintf(name, sizeof name, format == RP_FORMAT_PNG ? "rockpool_%%05d.%s" : "rockpool.%s",
                 rp_output_format_name(format));
        cli->run.out.path = name;
    }
}

int rp_cli_parse(rp_cli *cli, int argc, char **argv, rp_error *err)
{
    int o, r;

    memset(cli, 0, sizeof *cli);
    rp_run_init(&cli->run);
    if (rp_settings_new(&cli->over, err))
        return 1;
    cli->run.over = cli->over;
    cli->run.threads = 0;
    cli->progress_fd = -1;
    cli->loglevel = RP_LOG_INFO;
    cli->start_at = cli->end_at = (rp_cli_time){0, 1};
    cli->span = (rp_cli_time){-1, 0};
    cli->vframes = -1;
    opterr = 0;
    optind = 1;
    if ((r = rewrite_ffmpeg(argc, argv, err)))
        return r;

    while ((o = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1)
        if ((r = take_option(cli, o, argc, argv, err)))
            return r;
    if ((r = take_operands(cli, argc, argv, err)))
        return r;
    if (cli->overwrite_opts == 3) /* as FFmpeg refuses them: which one was meant? */
        return usage_error(err,
                           "-y (--overwrite) and -n (--no-overwrite) are both given: give one");
    /* ffmpeg takes -t over -to ("-t and -to cannot be used together; using -t"); rockpool
     * ended at the earlier of the two, and -t without -ss is its timeline: which was meant? */
    if (cli->t_given && cli->to_given)
        return usage_error(err, "-t and -to are both given (ffmpeg would use -t and ignore -to): "
                                "give one");
    /* ffmpeg -ss S -t T: T seconds from S, not a timeline of T; the timeline is then -n's
     * (in either order), or the scene's */
    if (cli->ss_given && cli->t_given) {
        rp_cli_time t = cli->t_time;
        if (t.value == 0)
            return usage_error(err, "-ss with -t 0 writes no frame (-ss S -t T writes T from S: "
                                    "give T above 0)");
        if (!t.is_frames)
            cli->span = t;
        else if (cli->vframes < 0 || t.value < cli->vframes)
            cli->vframes = t.value;
        cli->duration_given = cli->n_given;
        cli->duration = (rp_cli_time){cli->n_frames, 1};
    }
    if (cli->duration_given) {
        /* as a time ("45f" too), in the range checked above */
        char text[48];
        int64_t v = cli->duration.value;
        if (cli->duration.is_frames)
            snprintf(text, sizeof text, "%" PRId64 "f", v);
        else
            snprintf(text, sizeof text, "%" PRId64 ".%06" PRId64 "s", v / 1000000, v % 1000000);
        if (rp_settings_set(cli->over, "duration", text, err))
            return 1; /* a value already checked (not refused) */
    }
    cli->quiet = cli->loglevel < RP_LOG_WARNING;
    cli->run.out.quiet = cli->quiet;
    default_output(cli);
    enum rp_format format = cli->run.out.format;
    /* -o NAME.png without a conversion is one still: the frame at --start (or 0) alone,
     * unless the run asks for a range (--end, -to, -frames:v, or -ss S -t T's span), which
     * is refused when it holds more than one frame */
    const char *path = cli->run.out.path;
    size_t plen = path ? strlen(path) : 0;
    if (cli->output_given && plen > 4 && rp_output_is_still(path) &&
        (format == RP_FORMAT_PNG || format == RP_FORMAT_NONE) &&
        !strcasecmp(path + plen - 4, ".png") && cli->run.end < 0 && cli->end_at.is_frames &&
        cli->vframes < 0 && cli->span.value < 0) {
        cli->vframes = 1;
        cli->times = 1;
    }
    if (cli->run.verify_dir && !cli->run.verify)
        return usage_error(err, "--verify-dir needs --verify");
    if (cli->run.verify_ref && !cli->run.verify)
        return usage_error(err, "--verify-ref needs --verify");
    if (!cli->times && cli->run.end >= 0 && cli->run.end < cli->run.start)
        return usage_error(err, "--end %" PRId64 " is before --start %" PRId64, cli->run.end,
                           cli->run.start);
    return 0;
}
