/* main.c - the rockpool program: options in, a render session of librockpool run, its
 * errors turned into messages and exit statuses, progress drawn. Only the program prints
 * or exits.
 *
 * Exit status (rockpool(1) EXIT STATUS): 0 success, 1 runtime failure, 2 bad usage or
 * input (also no argument at all: a short usage), 3 a frame differs from the --verify
 * manifest, 128 + n after signal n (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 141 SIGPIPE).
 * Nothing is created before every input is validated. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "identity.h"
#include "rockpool.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_MISMATCH = 3, EXIT_SIGINT = 130, EXIT_SIGTERM = 143 };

static volatile sig_atomic_t stop_signal;

/* Set once the run may create files (rp_session_start): before, a signal ends the process
 * at once (reading and checking a large scene, manifest or timeline takes seconds, and
 * nothing exists to remove); after, it asks the session to stop and finish its outputs. */
static volatile sig_atomic_t files_may_exist;

/* A run that a signal cannot stop (a library call that does not return, such as an
 * encoder whose threads could not start) is ended by the watchdog once, for STOP_IDLE_S
 * seconds after the signal, its temporary files have not changed and the process has used
 * under STOP_BUSY_MS of CPU time a second: they are removed, and the exit status is
 * 128 + n. A run that is finishing its outputs keeps writing them, also when a library
 * works for long before it writes anything (libwebp's animation encoder writes the whole
 * file at its end: over 10 s at 4096x4096 on a busy machine). */
#define STOP_IDLE_S 3
#define STOP_BUSY_MS 20
static sem_t stop_sem;
static volatile sig_atomic_t watchdog_on;

static void on_signal(int sig)
{
    if (!files_may_exist)
        _exit(128 + sig);
    /* SIGINT and SIGTERM keep what was rendered; a hang-up or a broken pipe leaves
     * nothing, also when it comes while the outputs are being finished */
    if (sig != SIGINT && sig != SIGTERM)
        rp_abandon_outputs();
    stop_signal = sig;
    if (watchdog_on)
        sem_post(&stop_sem);
}

/* CPU time of the whole process (every thread), in milliseconds. */
static int64_t cpu_ms(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t))
        return 0;
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *watchdog(void *arg)
{
    static const char msg[] = "rockpool: error: the run did not stop after the signal (a "
                              "library call does not return): its temporary files are "
                              "removed\n";
    uint64_t seen, now;
    int64_t cpu_seen, cpu_now;
    int idle = 0;
    (void)arg;
    while (sem_wait(&stop_sem) != 0)
        ;
    seen = rp_temporary_files_activity();
    cpu_seen = cpu_ms();
    while (idle < STOP_IDLE_S) {
        sleep(1);
        now = rp_temporary_files_activity();
        cpu_now = cpu_ms();
        idle = now == seen && cpu_now - cpu_seen < STOP_BUSY_MS ? idle + 1 : 0;
        seen = now;
        cpu_seen = cpu_now;
    }
    rp_remove_temporary_files();
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
        _exit(128 + stop_signal);
    _exit(128 + stop_signal);
}

/* A crash (in a library: an encoder whose threads could not start) removes the temporary
 * files, then ends the process by the same signal. Under AddressSanitizer its own handler
 * reports the crash instead. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RP_ASAN 1
#endif

#ifndef RP_ASAN
static void on_crash(int sig)
{
    rp_remove_temporary_files();
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

static void catch_crashes(void)
{
#ifndef RP_ASAN
    static char alt[64 << 10]; /* a stack overflow's handler needs a stack of its own */
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    struct sigaction sa;
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
#endif
}

/* Start the watchdog, with the stop signals blocked in it (they go to the main thread). */
static void start_watchdog(void)
{
    sigset_t stop, old;
    pthread_t t;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGPIPE);
    if (sem_init(&stop_sem, 0, 0))
        return;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
        return;
    pthread_attr_setstacksize(&attr, 64 << 10); /* it waits and sleeps; room when memory is short */
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    if (!pthread_create(&t, &attr, watchdog, NULL)) {
        pthread_detach(t);
        watchdog_on = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

/* A text cut to its buffer (a long scene line, a quoted value) may end inside a UTF-8
 * character: its first bytes are dropped, so what is shown is UTF-8 where the input was. */
static void drop_cut_character(char *s)
{
    size_t n = strlen(s), i = n;
    while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0) {
        unsigned char c = (unsigned char)s[i - 1];
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (n - (i - 1) < need)
            s[i - 1] = '\0';
    }
}

/* A scene's line echoed under its message: control characters (terminal escapes) shown as
 * '?', so that it never drives the terminal; tabs stay, and the caret under it with them. */
static void clean(char *s)
{
    for (char *p = s; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
            *p = '?';
    drop_cut_character(s);
}

/* A message, or a path, for the terminal (s holds size bytes): a character that does not
 * show (a control such as an escape, a zero-width space, a direction mark) said as
 * <U+XXXX>, as placed diagnostics say it (rp_text_show), so that a path given on the
 * command line reads as one from a scene, and a message never drives the terminal. */
static void show(char *s, size_t size)
{
    char shown[4096];
    drop_cut_character(s);
    rp_text_show(s, strlen(s), shown, (size < sizeof shown ? size : sizeof shown) - 1);
    memcpy(s, shown, strlen(shown) + 1);
}

static void warn_cb(void *ctx, const char *msg)
{
    const rp_cli *cli = ctx;
    char text[sizeof((rp_error *)0)->msg];
    if (cli->again) /* the session made before with the same inputs said it */
        return;
    snprintf(text, sizeof text, "%s", msg);
    show(text, sizeof text);
    if (cli->loglevel >= RP_LOG_WARNING)
        fprintf(stderr, "rockpool: warning: %s\n", text);
}

/* SCENE '-' without -o writes the default file (rockpool.mkv for -f mkv), not standard
 * output: ffmpeg's '-f mkv -' is '-o -' here. When standard output is not a terminal (so
 * maybe a pipe waiting for the video), a warning line says where the video goes. */
static void note_default_output(const rp_cli *cli)
{
    const char *path = cli->run.out.path;
    if (cli->scene_path && !strcmp(cli->scene_path, "-") && !cli->output_given && path &&
        strcmp(path, "-") && !isatty(STDOUT_FILENO)) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "writing %.80s: SCENE '-' is the scene, read from standard input, not the "
                 "output (to write to standard output, give -o -)",
                 path);
        warn_cb((void *)cli, msg);
    }
}

/* A scene file without a statement (empty, blank lines and comments only) renders still
 * water for the default length: most likely the wrong file, so say so. A UTF-8 BOM at the
 * start is no statement. (A checkpoint must come from the same scene: its water is still
 * too.) */
static void warn_no_statements(rp_cli *cli, const rp_scene *scene)
{
    size_t len;
    const char *t = rp_scene_text(scene, &len), *end = t + len;
    char msg[sizeof((rp_error *)0)->msg];
    int comment = 0;
    if (!cli->scene_path)
        return;
    if (len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3))
        t += 3;
    for (; t < end; t++) {
        if (*t == '\n' || *t == '\r')
            comment = 0;
        else if (*t == '#')
            comment = 1;
        else if (!comment && *t != ' ' && *t != '\t' && *t != '\v' && *t != '\f')
            return; /* a statement */
    }
    snprintf(msg, sizeof msg,
             "%s: the scene has no statements (only blank lines or comments): still water",
             rp_scene_name(scene));
    warn_cb(cli, msg);
}

/* gcc-style diagnostic: "rockpool: FILE:LINE:COL: error: MSG", the line, a caret. */
static void print_diag(const rp_diag *d)
{
    if (d->line > 0 && d->col > 0)
        fprintf(stderr, "rockpool: %s:%d:%d: error: %s\n", d->file, d->line, d->col, d->msg);
    else if (d->line > 0)
        fprintf(stderr, "rockpool: %s:%d: error: %s\n", d->file, d->line, d->msg);
    else
        fprintf(stderr, "rockpool: %s: error: %s\n", d->file, d->msg);
    if (d->line > 0 && d->source_line[0]) {
        int width = fprintf(stderr, " %5d | ", d->line) - 2;
        fprintf(stderr, "%s\n", d->source_line);
        fprintf(stderr, "%*s| ", width, "");
        /* a space for each of the col - 1 characters before the column (which counts
         * characters: a UTF-8 character's continuation bytes take none), a tab for a tab */
        for (int i = 0, chars = 0; d->source_line[i]; i++) {
            if (((unsigned char)d->source_line[i] & 0xC0) == 0x80)
                continue;
            if (++chars >= d->col)
                break;
            fputc(d->source_line[i] == '\t' ? '\t' : ' ', stderr);
        }
        fputs("^\n", stderr);
    }
}

/* Print a library error; return the exit status it maps to. */
/* The command line, once parsed: messages name the range's frames as it wrote them. */
static const rp_cli *said_by;

static int fail(const rp_error *err)
{
    if (err->code == RP_ERR_INTERRUPTED || stop_signal)
        return stop_signal ? 128 + stop_signal : EXIT_SIGINT;
    static rp_error shown; /* a copy, made fit for the terminal */
    shown = *err;
    if (said_by && !shown.has_diag)
        rp_cli_said(said_by, shown.msg, sizeof shown.msg);
    show(shown.msg, sizeof shown.msg);
    show(shown.diag.file, sizeof shown.diag.file);
    show(shown.diag.msg, sizeof shown.diag.msg);
    clean(shown.diag.source_line);
    if (err->has_diag)
        print_diag(&shown.diag);
    else
        fprintf(stderr, "rockpool: error: %s\n", shown.msg);
    if (err->code == RP_ERR_MISMATCH)
        return EXIT_MISMATCH;
    return err->bad_input ? EXIT_USAGE : EXIT_RUNTIME;
}

/* A path for a message, shown (show) in buf. */
static const char *shown_path(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    show(buf, len);
    return buf;
}

static int usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_fail(const char *fmt, ...)
{
    char msg[sizeof((rp_error *)0)->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    show(msg, sizeof msg);
    fprintf(stderr, "rockpool: error: %s\n", msg);
    return EXIT_USAGE;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --check: what would be rendered. */
static void print_summary(const rp_summary *sum)
{
    rp_settings_info info, *s = &info;
    rp_settings_get_info(sum->settings, &info);
    double fps = (double)s->fps / s->fps_den;
    printf("size:       %dx%d (scene), %dx%d (output)\n", s->width, s->height, s->out_width,
           s->out_height);
    if (s->fps_den == 1)
        printf("fps:        %d\n", s->fps);
    else
        printf("fps:        %d/%d (%.3f)\n", s->fps, s->fps_den, fps);
    printf("frames:     %" PRId64 " (%.3f s)\n", sum->frames, sum->frames / fps);
    int64_t n = sum->end - sum->start;
    if ((sum->start > 0 || sum->end < sum->frames) && n == 1)
        printf("writes:     frame %" PRId64 " (1 frame, %.3f s from %.3f s)\n", sum->start, 1 / fps,
               sum->start / fps);
    else if (sum->start > 0 || sum->end < sum->frames)
        printf("writes:     frames %" PRId64 " to %" PRId64 " (%" PRId64 " frames, %.3f s from "
               "%.3f s)\n",
               sum->start, sum->end - 1, n, n / fps, sum->start / fps);
    printf("preset:     %s\n", s->preset);
    printf("grid:       %dx%d cells\n", s->grid_w, s->grid_h);
    if (s->rate)
        printf("rate:       %d steps/s (%.2f steps a frame), %" PRId64 " step%s in all\n", s->rate,
               s->rate / fps, sum->steps, sum->steps == 1 ? "" : "s");
    else
        printf("rate:       one step a frame\n");
    if (s->viscosity_q16)
        printf("viscosity:  %.4f a step (%d/65536)\n", s->viscosity_q16 / 65536.0,
               (int)s->viscosity_q16);
    printf("speed:      %.1f scene pixels/s (%.1f%% of the width a second)\n", sum->speed,
           100.0 * sum->speed / s->width);
    char path[4096];
    printf("background: %s\n",
           shown_path(s->background[0] ? s->background : "(built-in texture)", path, sizeof path));
    if (s->sky[0])
        printf("sky:        %s%s\n", shown_path(s->sky, path, sizeof path),
               s->light ? "" : " (not used: render light only)");
        /* counts with their nouns' number: 1 drop, 2 drops (rain is a mass noun: 2 rain) */
#define PL(n) ((n) == 1 ? "" : "s")
    const rp_scene_stats *sc = &sum->scene;
    printf("events:     %d drop%s, %d rain, %d stroke%s, %d wall%s (%d moving), %d emitter%s\n",
           sc->drops, PL(sc->drops), sc->rains, sc->strokes, PL(sc->strokes), sc->walls,
           PL(sc->walls), sc->moving_walls, sc->emitters, PL(sc->emitters));
    printf("motion:     %d path%s, %d key%s\n", sc->paths, PL(sc->paths), sc->keys, PL(sc->keys));
#undef PL
    printf("drops:      %zu in all (%zu from rain, %zu stroke dabs)\n", sum->timeline.drops,
           sum->timeline.rain_drops, sum->timeline.stroke_dabs);
    printf("threads:    %d\n", sum->threads);
    if (sum->timeline.after_end)
        printf("after end:  %zu items fall after the last frame and are left out\n",
               sum->timeline.after_end);
}

/* Progress for people (a line on a terminal) and for batch drivers (FFmpeg -progress
 * style key=value blocks on --progress-fd). */
typedef struct progress {
    int show;
    FILE *fd;
    int fps, fps_den;
    int64_t start, end, total; /* the run's frames start..end-1 of total */
    double t0, last_line, last_block;
} progress;

static void progress_block(progress *p, int64_t written, int end)
{
    if (!p->fd)
        return;
    double t = now_seconds();
    /* FFmpeg's keys count within the run; a farm's chunk also says where it is in the
     * whole clip: the last frame written (absolute, -1 before the first), its range and
     * the timeline's length. */
    fprintf(p->fd,
            "frame=%" PRId64 "\nfps=%.2f\nout_time_us=%" PRId64 "\ncurrent_frame=%" PRId64
            "\nfirst_frame=%" PRId64 "\nlast_frame=%" PRId64 "\ntotal_frames=%" PRId64
            "\nprogress=%s\n",
            written, written / (t - p->t0 + 1e-9), written * 1000000 * p->fps_den / p->fps,
            p->start + written - 1, p->start, p->end - 1, p->total, end ? "end" : "continue");
    fflush(p->fd);
    p->last_block = t;
}

static void progress_frame(progress *p, int64_t k)
{
    double t = now_seconds();
    if (p->fd && t - p->last_block >= 0.5)
        progress_block(p, k + 1 - p->start, 0);
    if (p->show && (t - p->last_line >= 0.25 || k + 1 == p->end)) {
        double fps = (double)(k + 1 - p->start) / (t - p->t0 > 1e-9 ? t - p->t0 : 1e-9);
        /* A range from a later frame also says how far into it the run is: frame 101/110 of
         * --start 100 --end 110 is the first of its 10, not nearly done. */
        char within[64] = "";
        if (p->start > 0)
            snprintf(within, sizeof within, " (%" PRId64 " of %" PRId64 ")", k + 1 - p->start,
                     p->end - p->start);
        fprintf(stderr, "\rframe %" PRId64 "/%" PRId64 "%s  %.1f fps  eta %.0f s   ", k + 1, p->end,
                within, fps, (double)(p->end - k - 1) / (fps > 0 ? fps : 1));
        p->last_line = t;
    }
}

/* Whether writing path writes into the file fd is open on, in place: a name in /dev or
 * /proc (/dev/stdout), a FIFO or a socket (a file of any other name is written under a
 * temporary name and moved over it; /dev/null and terminals take any number of writers). */
static int leads_to_fd(const char *path, int fd)
{
    struct stat a, b;
    return path && strcmp(path, "-") && !stat(path, &a) && !fstat(fd, &b) && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino && !S_ISCHR(b.st_mode) &&
           (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) || S_ISFIFO(a.st_mode) ||
            S_ISSOCK(a.st_mode));
}

/* Open --progress-fd and decide whether to draw the progress line. */
static int progress_open(progress *p, const rp_cli *cli, const rp_session *s, const rp_summary *sum)
{
    memset(p, 0, sizeof *p);
    p->show = cli->loglevel >= RP_LOG_INFO && (cli->progress || isatty(STDERR_FILENO));
    rp_settings_info info;
    rp_settings_get_info(sum->settings, &info);
    p->fps = info.fps;
    p->fps_den = info.fps_den;
    p->start = sum->start;
    p->end = sum->end;
    p->total = sum->frames;
    p->t0 = now_seconds();
    if (cli->progress_fd < 0)
        return 0;
    int stdout_taken = cli->run.hash || rp_output_uses_stdout(&cli->run.out);
    if (cli->progress_fd == STDOUT_FILENO && stdout_taken)
        return usage_fail("--progress-fd 1 would mix progress into the data on stdout");
    /* Nor into an output's file that the descriptor is open on (-o /dev/stdout with 1). */
    const char *const files[][2] = {{"-o", cli->run.out.path},
                                    {"--stats", cli->run.stats},
                                    {"--dump-heights", cli->run.dump_heights},
                                    {"--save-state", cli->run.save_state}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (leads_to_fd(files[i][1], cli->progress_fd))
            return usage_fail("--progress-fd %d would mix progress into %s '%s' (the same file)",
                              cli->progress_fd, files[i][0], files[i][1]);
    /* Nor into an input it is open on (3>>scene): appended, progress would damage it. */
    char what[64];
    rp_error err;
    snprintf(what, sizeof what, "--progress-fd %d", cli->progress_fd);
    if (rp_session_check_fd(s, cli->progress_fd, what, &err))
        return fail(&err);
    if (fcntl(cli->progress_fd, F_GETFD) == -1 || !(p->fd = fdopen(dup(cli->progress_fd), "w")))
        return usage_fail("--progress-fd %d: not an open descriptor", cli->progress_fd);
    return 0;
}

/* A hang-up or a broken pipe (or another stop that keeps nothing) has come. */
static int hung_up(void)
{
    return stop_signal && stop_signal != SIGINT && stop_signal != SIGTERM;
}

/* Render every frame of an opened session; returns the exit status. Everything printed
 * before the outputs are in place (the progress line's end, the last --progress-fd block)
 * comes before rp_session_close, so a broken pipe there leaves nothing, as any hang-up;
 * once they are in place the run is done, and a signal then (a closed stderr for the
 * "wrote" line) changes neither the status nor what is said. */
static int render(rp_session **s, const rp_cli *cli, progress *p)
{
    rp_error err;
    const rp_frame *frame;
    int64_t frames;
    int r;
    while (!(r = rp_session_next(*s, &frame, &err)) && frame)
        progress_frame(p, frame->index);
    if (p->show)
        fputc('\n', stderr);
    if (r) {
        rp_session_abort(s);
        return fail(&err);
    }
    int64_t written = rp_session_written(*s);
    if ((stop_signal == SIGINT || stop_signal == SIGTERM) && written == 0) { /* no video */
        rp_session_abort(s);
        if (cli->loglevel >= RP_LOG_INFO)
            fprintf(stderr, "rockpool: interrupted before the first frame: nothing written\n");
        return 128 + stop_signal;
    }
    if (!hung_up())
        progress_block(p, written, 1); /* (frames counts the output file's: none for --hash) */
    /* SIGINT and SIGTERM keep what was rendered (the video plays up to there); a hang-up,
     * a broken pipe or a file-size limit leave nothing. */
    if (hung_up()) {
        rp_session_abort(s);
        return 128 + stop_signal;
    }
    if ((r = rp_session_close(s, &frames, &err)))
        return fail(&err);
    /* In place: only a stop before this (SIGINT, SIGTERM; a hang-up would have failed the
     * close) cut the outputs short. */
    int stopped = hung_up() ? 0 : stop_signal;
    char path[4096];
    if (!stopped && cli->run.verify && cli->loglevel >= RP_LOG_INFO)
        fprintf(stderr, "rockpool: %" PRId64 " frame%s match%s %s\n", written,
                written == 1 ? "" : "s", written == 1 ? "es" : "",
                shown_path(cli->run.verify, path, sizeof path));
    /* Without -o the user did not name the file: say where it went. */
    if (!stopped && !cli->output_given && cli->run.out.path &&
        !rp_output_uses_stdout(&cli->run.out) && cli->loglevel >= RP_LOG_INFO)
        fprintf(stderr, "rockpool: wrote %s (%" PRId64 " frame%s)\n", cli->run.out.path, frames,
                frames == 1 ? "" : "s");
    if (!stopped)
        return 0;
    if (cli->run.out.path)
        fprintf(stderr, "rockpool: interrupted: %s holds %" PRId64 " frames\n",
                shown_path(cli->run.out.path, path, sizeof path), frames);
    else
        fprintf(stderr, "rockpool: interrupted after %" PRId64 " frames\n", written);
    return 128 + stopped;
}

/* --start/--end given as times: frame numbers at the run's final frame rate, known once a
 * session has resolved the settings; the session is then made again with them. */
static int resolve_times(rp_cli *cli, const rp_scene *scene, rp_session **s, rp_error *err)
{
    rp_summary sum;
    rp_settings_info info;
    rp_session_summary(*s, &sum);
    rp_settings_get_info(sum.settings, &info);
    rp_cli_resolve_times(cli, info.fps, info.fps_den, sum.frames);
    rp_session_free(s);
    cli->again = 1;
    int r = rp_session_new(s, scene, &cli->run, err);
    cli->again = 0;
    return r;
}

/* A range whose job line could not be worked out: its outputs go untagged, and why. */
static void warn_untagged(const rp_cli *cli, const rp_error *why)
{
    char text[sizeof why->msg + 128];
    const char *m = why->msg, *pre = "--job-id: ";
    if (!strncmp(m, pre, strlen(pre)))
        m += strlen(pre);
    snprintf(text, sizeof text,
             "this range's outputs are not tagged with its job line (%s): to tag them, give "
             "--job-id=LINE, the line --job-id prints with that input saved as a file",
             m);
    warn_cb((void *)cli, text);
}

/* A chunk (a range asked for) without --job-id=LINE is tagged with its own job line, as
 * --job-id would print it, so that rockpool-join refuses to join it with chunks of another
 * background, strength or other settings that its other tags do not name. The session is
 * made again with it (it keeps its own copy of the run). An input that cannot be read
 * leaves it untagged: the render itself then says what is wrong; an input that is not a
 * regular file (a pipe) too, and *untagged says why, for a warning once the render starts. */
static int tag_chunk(rp_cli *cli, const rp_scene *scene, rp_session **s, rp_summary *sum,
                     rp_error *untagged, rp_error *err)
{
    static char job[RP_JOB_LINE_LEN + 1];
    if (cli->run.job_id || !(cli->run.start != 0 || cli->run.end != -1 || cli->times))
        return 0;
    if (rp_identity_line(cli, scene, *s, sum, job, untagged))
        return 0;
    untagged->msg[0] = '\0';
    cli->run.job_id = job;
    rp_session_free(s);
    cli->again = 1;
    int r = rp_session_new(s, scene, &cli->run, err);
    cli->again = 0;
    if (r)
        return 1;
    rp_session_summary(*s, sum);
    return 0;
}

/* A SCENE that is a picture or a video (rockpool photo.jpg -o out.mp4: the photo meant as
 * the background) is said to be one, with what to type, rather than as the scene parser's
 * 'invalid UTF-8 byte' over a line of binary. Its first bytes name the format. Returns 1
 * with the message in err, or 0 (err as it was). */
static int not_a_scene(const char *path, rp_error *err)
{
    /* up to two byte strings, each at its offset (M: a literal and its length, NULs too) */
#define M(s) s, sizeof(s) - 1
    static const struct {
        size_t at;
        const char *magic;
        size_t n, at2;
        const char *magic2;
        size_t n2;
        const char *what;
    } kinds[] = {
        {0, M("\xff\xd8\xff"), 0, M(""), "a JPEG image"},
        {0, M("\x89PNG\r\n\x1a\n"), 0, M(""), "a PNG image"},
        {0, M("GIF8"), 0, M(""), "a GIF image"},
        {0, M("RIFF"), 8, M("WEBP"), "a WebP image"},
        {0, M("II*\0"), 0, M(""), "a TIFF image"},
        {0, M("MM\0*"), 0, M(""), "a TIFF image"},
        {0, M("BM"), 6, M("\0\0\0\0"), "a BMP image"},
        {0, M("\0"), 4, M("ftyp"), "an MP4, QuickTime or HEIF file"},
        {0, M("\x1a\x45\xdf\xa3"), 0, M(""), "a Matroska or WebM video"},
        {0, M("RIFF"), 8, M("AVI "), "an AVI video"},
        {0, M("OggS"), 0, M(""), "an Ogg file"},
        {0, M("FLV\x01"), 0, M(""), "an FLV video"},
        {0, M("YUV4MPEG2 "), 0, M(""), "a Y4M video"},
    };
#undef M
    unsigned char head[16];
    size_t got = 0;
    FILE *f = path && strcmp(path, "-") ? fopen(path, "rb") : NULL;
    if (f) {
        got = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (got < kinds[i].at + kinds[i].n || got < kinds[i].at2 + kinds[i].n2 ||
            memcmp(head + kinds[i].at, kinds[i].magic, kinds[i].n) ||
            memcmp(head + kinds[i].at2, kinds[i].magic2, kinds[i].n2))
            continue;
        memset(err, 0, sizeof *err);
        err->code = RP_ERR_INVALID;
        err->bad_input = 1;
        char word[1604]; /* the command, as a shell takes it */
        const char *w = rp_cli_shell_word(path, word, sizeof word);
        if (w)
            snprintf(err->msg, sizeof err->msg,
                     "%.400s is %s, not a scene (rockpool-scene(5)): to render water over it, "
                     "give it as the background: rockpool -i %s -o out.mp4",
                     path, kinds[i].what, w);
        else /* a name no command could show */
            snprintf(err->msg, sizeof err->msg,
                     "%.400s is %s, not a scene (rockpool-scene(5)): to render water over it, "
                     "give it as the background, with -i",
                     path, kinds[i].what);
        return 1;
    }
    return 0;
}

/* What was printed on stdout (--help, --version, --check) reached it: 0, or 1 with a
 * message (a full disk, a closed pipe, a closed stdout). */
static int stdout_done(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "rockpool: error: stdout: write failed: %s\n", strerror(errno));
    return EXIT_RUNTIME;
}

/* Closed standard descriptors: the next file opened would take their number, and --hash
 * lines, progress or messages would be written into an output. Each closed one is opened
 * onto /dev/null in the direction nothing uses (stdin write-only, stdout and stderr
 * read-only), so a write to it fails instead of vanishing. */
static int open_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got != fd) {
            if (got >= 0)
                close(got);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    rp_cli cli;
    rp_error err;
    rp_scene *scene = NULL;
    rp_session *session = NULL;
    rp_summary sum;
    rp_error untagged = {0}; /* why a range goes untagged (tag_chunk) */
    progress prog = {0};
    int status;

    if (open_std_fds())
        return EXIT_RUNTIME;
    rp_messages_name_options(1); /* "--crf 99 is out of range", not rp_run.out.crf */
    if (argc == 1) {             /* not a render into the current directory: what to type instead */
        rp_cli_short_usage(stderr);
        return EXIT_USAGE;
    }
    if (rp_cli_parse(&cli, argc, argv, &err)) {
        rp_cli_free(&cli);
        return err.bad_input ? usage_fail("%s", err.msg) : fail(&err);
    }
    said_by = &cli;
    if (cli.help || cli.version) {
        cli.help ? rp_cli_usage(stdout) : (void)printf("rockpool %s\n", RP_VERSION);
        rp_cli_free(&cli);
        return stdout_done();
    }
    /* Before the run may create files SIGINT/SIGTERM end it at once, with nothing created;
     * after, they only set a flag, and the outputs are finished properly and kept
     * (rockpool(1) SIGNALS). */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* A closed pipe: the write fails (EPIPE) instead of the signal killing the process, so
     * the run is aborted and leaves no temporary file; the exit status still says which
     * signal it was. A file size limit (SIGXFSZ) is ignored: the write fails with EFBIG,
     * a runtime failure like a full disk (exit 1, its message, no file left). */
    sigaction(SIGPIPE, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
    cli.run.stop = &stop_signal;
    cli.run.warn = warn_cb;
    cli.run.warn_ctx = &cli;

    if ((cli.check || cli.job_id_print) && !cli.output_given &&
        cli.run.out.format == RP_FORMAT_NONE)
        cli.run.out.path = NULL; /* --check alone names no video */
    /* SCENE '-' on a terminal waits for a scene typed in: say so, and what writes to
     * standard output instead (ffmpeg's '-f mkv -' is -o - here) */
    if (cli.scene_path && !strcmp(cli.scene_path, "-") && isatty(STDIN_FILENO))
        warn_cb(&cli, "reading the scene from standard input, a terminal: type it and end it "
                      "with Ctrl-D (SCENE '-'; to write to standard output, give -o -)");
    if (rp_scene_load_max(&scene, cli.scene_path, cli.run.max_memory, &err) && err.bad_input &&
        not_a_scene(cli.scene_path, &err)) {
        status = fail(&err);
    } else if (!scene || rp_session_new(&session, scene, &cli.run, &err) ||
               (cli.times && resolve_times(&cli, scene, &session, &err))) {
        status = fail(&err);
    } else if (warn_no_statements(&cli, scene), rp_session_summary(session, &sum),
               cli.job_id_print) {
        /* --job-id: the job's identity and resolved options; no output is checked (a
         * farm's join asks it over an output that exists) */
        status = rp_session_check(session, &err) ||
                         rp_identity_print(&cli, scene, session, &sum, stdout, &err)
                     ? fail(&err)
                     : stdout_done();
    } else if (cli.check) {
        /* the outputs too, as a render would check them: those it was given */
        status = rp_session_check(session, &err) || rp_session_check_outputs(session, &err) ||
                         rp_session_check_images(session, &err)
                     ? fail(&err)
                     : (print_summary(&sum), stdout_done());
    } else if (tag_chunk(&cli, scene, &session, &sum, &untagged, &err)) {
        status = fail(&err);
    } else if ((status = progress_open(&prog, &cli, session, &sum)) == 0) {
        note_default_output(&cli);
        start_watchdog();
        catch_crashes();
        files_may_exist = 1;
        if (rp_session_start(session, &err)) {
            status = fail(&err);
        } else {
            if (untagged.msg[0]) /* "--job-id: the background 'x' is not a regular file" */
                warn_untagged(&cli, &untagged);
            status = render(&session, &cli, &prog);
        }
    }
    if (prog.fd)
        fclose(prog.fd);
    rp_session_abort(&session);
    rp_scene_free(&scene);
    rp_cli_free(&cli);
    return status;
}
