/* files.c - the file handling every output shares (rockpool(1) OUTPUT FILES): temporary
 * names beside the final path and the atomic rename that puts a finished file in place,
 * byte streams and side files written that way, PNG patterns and their frame names, and
 * the checks on paths made before anything is created (a missing directory, a file that
 * would be replaced, two uses of one file). No encoding happens here. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include "base/diag.h"
#include "base/common.h"
#include "output/output.h"
#include "output/output_backend.h"

/* Split path into its directory ("." when none; "/" for "/x") in dir. */
static int dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t n;

    if (!slash) {
        snprintf(dir, len, ".");
        return RP_OK;
    }
    n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= len)
        return RP_ERR_TOO_LARGE;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return RP_OK;
}

/* The directory text as an absolute path: realpath of its longest existing part, then the
 * rest with "." and empty components dropped and ".." taking one back, so that "n/./x",
 * "n//x" and "n/y/../x" name one directory before any of them exists. */
static void canon_dir(const char *text, char *out, size_t len)
{
    char head[4096];
    const char *slash = strrchr(text, '/');
    char *real = realpath(text, NULL);

    if (real || !*text) {
        snprintf(out, len, "%s", real ? real : "/");
        free(real);
        return;
    }
    if (!slash)
        snprintf(head, sizeof head, ".");
    else if (slash == text)
        snprintf(head, sizeof head, "/");
    else
        snprintf(head, sizeof head, "%.*s", (int)(slash - text), text);
    const char *last = slash ? slash + 1 : text;
    canon_dir(head, out, len);
    if (!strcmp(last, "..")) {
        char *up = strrchr(out, '/');
        if (up && up != out)
            *up = '\0';
        else
            snprintf(out, len, "/");
    } else if (*last && strcmp(last, ".")) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s", n > 1 ? "/" : "", last);
    }
}

/* Whether path names something in /dev or /proc, itself or through a symbolic link
 * (/dev/stdout, /dev/fd/1, /proc/self/fd/1 all stand for a descriptor's file, which may
 * well be a regular file). */
static int in_dev_or_proc(const char *path)
{
    char dir[4096], link[64];
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n > 0) {
        link[n] = '\0';
        if (!strncmp(link, "/dev/", 5) || !strncmp(link, "/proc/", 6))
            return 1;
    }
    if (dir_of(path, dir, sizeof dir))
        return 0;
    char *real = realpath(dir, NULL);
    int in = real && (!strcmp(real, "/dev") || !strncmp(real, "/dev/", 5) ||
                      !strcmp(real, "/proc") || !strncmp(real, "/proc/", 6));
    free(real);
    return in;
}

/* An existing file that is neither regular nor a directory (a device such as /dev/null,
 * a FIFO), or any existing name in /dev or /proc: written in place (through the name),
 * never renamed over or removed. */
int rp_path_is_special(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
        return 0;
    return !S_ISREG(st.st_mode) || in_dev_or_proc(path);
}

#ifdef __linux__
/* The kernel's own file systems, mounted at /proc and /sys and below them: their names are
 * the kernel's interface, and no output file can be made there (proc refuses a new name,
 * sysfs every write that is not an attribute's value). */
static const char *kernel_fs_name(const struct statfs *fs)
{
    static const struct {
        uint32_t magic;
        const char *name;
    } kernel[] = {{PROC_SUPER_MAGIC, "proc"},       {SYSFS_MAGIC, "sysfs"},
                  {CGROUP_SUPER_MAGIC, "cgroup"},   {CGROUP2_SUPER_MAGIC, "cgroup2"},
                  {DEBUGFS_MAGIC, "debugfs"},       {TRACEFS_MAGIC, "tracefs"},
                  {SECURITYFS_MAGIC, "securityfs"}, {BPF_FS_MAGIC, "bpf"},
                  {PSTOREFS_MAGIC, "pstore"},       {EFIVARFS_MAGIC, "efivarfs"},
                  {BINFMTFS_MAGIC, "binfmt_misc"}};
    for (size_t i = 0; i < sizeof kernel / sizeof kernel[0]; i++)
        if ((uint32_t)fs->f_type == kernel[i].magic)
            return kernel[i].name;
    return NULL;
}
#endif

int rp_path_kernel_fs(const char *path, char *place, size_t len)
{
#ifdef __linux__
    char at[4096], up[4096];
    struct statfs fs;
    /* the file when it exists (statfs follows links: /proc/self/fd/1 is its file's, a pipe's
     * or a terminal's), else its nearest directory that does */
    snprintf(at, sizeof at, "%s", path);
    while (statfs(at, &fs) != 0) {
        if ((errno != ENOENT && errno != ENOTDIR) || dir_of(at, up, sizeof up) || !strcmp(up, at))
            return 0;
        snprintf(at, sizeof at, "%s", up);
    }
    const char *name = kernel_fs_name(&fs);
    if (!name)
        return 0;
    char *real = realpath(at, NULL);
    snprintf(place, len, "on the kernel's %s file system (%s), which takes no output files", name,
             real ? real : at);
    free(real);
    return 1;
#else
    (void)path;
    (void)place;
    (void)len;
    return 0;
#endif
}

static void temps_forget(const char *tmp);

void rp_output_unlink_tmp(const char *tmp)
{
    struct stat st;
    temps_forget(tmp);
    if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
        unlink(tmp);
}

/* ".BASENAME.TAG-PID" in path's directory (".rockpool-HASH.TAG-PID" for a name near the
 * file-name limit); a device or FIFO is its own. */
static int side_name(const char *path, const char *tag, char *tmp, size_t len)
{
    if (rp_path_is_special(path)) {
        int n = snprintf(tmp, len, "%s", path);
        return n < 0 || (size_t)n >= len ? RP_ERR_TOO_LARGE : RP_OK;
    }
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    int n =
        snprintf(tmp, len, "%.*s.%s.%s-%ld", (int)dirlen, path, path + dirlen, tag, (long)getpid());

    if (n >= 0 && (size_t)n < len && (size_t)n - dirlen > NAME_MAX) {
        /* A name near the file-name limit: ".rockpool-HASH.TAG-PID" instead, HASH the
         * name's 64-bit FNV-1a, so that every output of the run still has its own. */
        uint64_t h = 14695981039346656037u;
        for (const char *c = path + dirlen; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211u;
        n = snprintf(tmp, len, "%.*s.rockpool-%016" PRIx64 ".%s-%ld", (int)dirlen, path, h, tag,
                     (long)getpid());
    }
    return n < 0 || (size_t)n >= len ? RP_ERR_TOO_LARGE : RP_OK;
}

int rp_output_temp_name(const char *path, char *tmp, size_t len)
{
    return side_name(path, "tmp", tmp, len);
}

int rp_output_aside_name(const char *path, char *name, size_t len)
{
    return side_name(path, "old", name, len);
}

/* The temporary files that exist now, for rp_remove_temporary_files: registered when
 * created, forgotten when removed or moved into place. Past TEMPS_MAX at once (PNG frames
 * in flight are far fewer) a file is not registered. */
#define TEMPS_MAX 256
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;
static char *temps[TEMPS_MAX];
static uint64_t temps_changes;

/* Register tmp; temps_lock held. */
static void temps_add_locked(const char *tmp)
{
    for (int i = 0; i < TEMPS_MAX; i++)
        if (!temps[i]) {
            temps[i] = strdup(tmp);
            temps_changes++;
            break;
        }
}

/* Whether tmp is a temporary file of this process that exists now; temps_lock held. */
static int temps_live_locked(const char *tmp)
{
    for (int i = 0; i < TEMPS_MAX; i++)
        if (temps[i] && !strcmp(temps[i], tmp))
            return 1;
    return 0;
}

static void temps_forget(const char *tmp)
{
    pthread_mutex_lock(&temps_lock);
    for (int i = 0; i < TEMPS_MAX; i++)
        if (temps[i] && !strcmp(temps[i], tmp)) {
            free(temps[i]);
            temps[i] = NULL;
            temps_changes++;
            break;
        }
    pthread_mutex_unlock(&temps_lock);
}

/* No lock and no free: a signal handler may call it (the entries stay until the process
 * ends, which it is about to). */
void rp_remove_temporary_files(void)
{
    for (int i = 0; i < TEMPS_MAX; i++) {
        char *t = temps[i];
        struct stat st;
        if (t && lstat(t, &st) == 0 && S_ISREG(st.st_mode))
            unlink(t);
    }
}

uint64_t rp_temporary_files_activity(void)
{
    uint64_t sum;
    pthread_mutex_lock(&temps_lock);
    sum = temps_changes;
    for (int i = 0; i < TEMPS_MAX; i++) {
        struct stat st;
        if (temps[i] && !stat(temps[i], &st))
            sum += (uint64_t)st.st_size;
    }
    pthread_mutex_unlock(&temps_lock);
    return sum;
}

int rp_output_temp_create(char *tmp, size_t len, const char *path, int *fd, rp_error *err)
{
    static unsigned next; /* the "-N" of a second writer of one output (under temps_lock) */
    struct stat st;
    int e = 0;

    if (strcmp(tmp, path) == 0) { /* a device or FIFO, see rp_output_temp_name */
        *fd = open(tmp, O_WRONLY | O_CLOEXEC);
        if (*fd < 0)
            return rp_error_set(err, RP_ERR_IO, 0, "cannot create '%s': %s", path, strerror(errno));
        return RP_OK;
    }
    /* Created and registered under the lock: a file another session of this process has
     * just created is never taken for a stale one. */
    pthread_mutex_lock(&temps_lock);
    *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (*fd < 0 && errno == EEXIST && !temps_live_locked(tmp)) {
        /* Left by a killed run that had our pid: it is ours to replace. */
        if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
            unlink(tmp);
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    /* Another session of this process writes the same output now: a name of its own (each
     * session's file is whole, and the last moved into place stays, as between processes). */
    size_t n = strlen(tmp);
    for (int tries = 0; *fd < 0 && errno == EEXIST && tries < 64; tries++) {
        int w = snprintf(tmp + n, len - n, "-%u", ++next);
        if (w < 0 || (size_t)w >= len - n) {
            tmp[n] = '\0';
            errno = ENAMETOOLONG;
            break;
        }
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    e = errno;
    if (*fd >= 0)
        temps_add_locked(tmp);
    pthread_mutex_unlock(&temps_lock);
    if (*fd < 0)
        return rp_error_set(err, RP_ERR_IO, 0, "cannot create '%s': %s", path, strerror(e));
    return RP_OK;
}

/* rp_abandon_outputs: set from a signal handler, read before every move into place. */
static volatile sig_atomic_t abandoned;

void rp_abandon_outputs(void)
{
    abandoned = 1;
}

/* Move tmp onto path. Without overwrite, link() + unlink() refuses atomically to replace
 * a file that appeared since validation; file systems without hard links fall back to a
 * check then rename(). After rp_abandon_outputs, nothing is moved: tmp goes. */
int rp_output_commit(const char *tmp, const char *path, int overwrite, rp_error *err)
{
    if (strcmp(tmp, path) == 0) /* written in place */
        return RP_OK;
    if (abandoned) {
        rp_output_unlink_tmp(tmp);
        return rp_error_set(err, RP_ERR_INTERRUPTED, 0, "interrupted: '%s' is not kept", path);
    }
    if (!overwrite) {
        if (link(tmp, path) == 0) {
            rp_output_unlink_tmp(tmp);
            return RP_OK;
        }
        if (errno == EEXIST || access(path, F_OK) == 0) {
            rp_output_unlink_tmp(tmp);
            return rp_error_set(err, RP_ERR_EXISTS, 1, "'%s' already exists (use -y to overwrite)",
                                path);
        }
    }
    if (rename(tmp, path) != 0) {
        int e = errno;

        rp_output_unlink_tmp(tmp);
        return rp_error_set(err, RP_ERR_IO, 0, "cannot rename the finished output to '%s': %s",
                            path, strerror(e));
    }
    temps_forget(tmp);
    return RP_OK;
}

static int check_target(const char *path, int overwrite, rp_error *err);
static int check_parent(const char *path, int must_exist, rp_error *err);

int rp_output_stream_open(rp_output_stream *s, const rp_output_spec *opts, rp_error *err)
{
    memset(s, 0, sizeof *s);
    s->opts = opts;
    s->fd = -1;
    s->to_stdout = rp_output_is_stdout(opts->path);
    if (s->to_stdout) {
        s->fd = STDOUT_FILENO;
        return RP_OK;
    }
    if (rp_output_temp_name(opts->path, s->tmp, sizeof s->tmp)) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the output path '%.64s...' is too long",
                            opts->path);
    }
    int ret = rp_output_temp_create(s->tmp, sizeof s->tmp, opts->path, &s->fd, err);
    if (ret)
        return ret;
    s->tmp_exists = 1;
    s->fd_open = 1;
    return RP_OK;
}

int rp_output_stream_put(rp_output_stream *s, const void *data, size_t len, rp_error *err)
{
    int e = rp_output_write_all(s->fd, data, len);

    if (e) {
        return rp_error_set(err, RP_ERR_IO, 0, "cannot write '%s': %s",
                            s->to_stdout ? "stdout" : s->opts->path, strerror(e));
    }
    return RP_OK;
}

int rp_output_stream_finish(rp_output_stream *s, rp_error *err)
{
    int ret;

    if (!s->fd_open)
        return RP_OK;
    s->fd_open = 0;
    ret = rp_output_close_fd(s->fd, s->opts->path, err);
    if (ret) {
        rp_output_unlink_tmp(s->tmp);
        s->tmp_exists = 0;
    }
    return ret;
}

int rp_output_stream_commit(rp_output_stream *s, rp_error *err)
{
    if (!s->tmp_exists)
        return RP_OK;
    s->tmp_exists = 0;
    return rp_output_commit(s->tmp, s->opts->path, s->opts->overwrite, err);
}

int rp_output_stream_close(rp_output_stream *s, rp_error *err)
{
    int ret = rp_output_stream_finish(s, err);
    return ret ? ret : rp_output_stream_commit(s, err);
}

void rp_output_stream_abort(rp_output_stream *s)
{
    if (s->fd_open)
        close(s->fd);
    s->fd_open = 0;
    if (s->tmp_exists)
        rp_output_unlink_tmp(s->tmp);
    s->tmp_exists = 0;
}

/* ---- side files (--dump-heights, --save-state) -------------------------------------- */

struct rp_output_file {
    rp_output_spec opts;
    rp_output_stream stream;
    char path[];
};

/* A side file that was checked before the run (rp_output_file_check) and fails while it
 * is written: a runtime failure, whatever the code. */
static int runtime(rp_error *err, int code)
{
    if (code)
        err->bad_input = 0;
    return code;
}

int rp_output_file_check(const char *path, int overwrite, rp_error *err)
{
    int ret;

    if (!*path) /* would be written whole, then fail to be renamed to "" */
        return rp_error_set(err, RP_ERR_INVALID, 1, "no output path");
    if (rp_output_is_stdout(path)) {
        return rp_error_set(err, RP_ERR_INVALID, 1, "'%s': this output needs a file name", path);
    }
    ret = check_parent(path, 1, err);
    if (!ret)
        ret = check_target(path, overwrite, err);
    if (ret)
        err->bad_input = 1; /* the path given cannot be written */
    return ret;
}

int rp_output_file_open(rp_output_file **out, const char *path, int overwrite, rp_error *err)
{
    size_t n = strlen(path) + 1;
    rp_output_file *f;
    int ret;

    *out = NULL;
    if ((ret = rp_output_file_check(path, overwrite, err)))
        return runtime(err, ret);
    if (!(f = calloc(1, sizeof *f + n))) {
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    memcpy(f->path, path, n);
    rp_output_spec_init(&f->opts);
    f->opts.path = f->path;
    f->opts.overwrite = overwrite;
    if ((ret = rp_output_stream_open(&f->stream, &f->opts, err))) {
        free(f);
        return runtime(err, ret);
    }
    *out = f;
    return RP_OK;
}

int rp_output_file_write(rp_output_file *f, const void *data, size_t len, rp_error *err)
{
    return runtime(err, rp_output_stream_put(&f->stream, data, len, err));
}

int rp_output_file_finish(rp_output_file *f, rp_error *err)
{
    return f ? runtime(err, rp_output_stream_finish(&f->stream, err)) : RP_OK;
}

int rp_output_file_commit(rp_output_file **pf, rp_error *err)
{
    rp_output_file *f = *pf;
    int ret;

    if (!f)
        return RP_OK;
    ret = rp_output_stream_close(&f->stream, err);
    rp_output_stream_abort(&f->stream);
    free(f);
    *pf = NULL;
    return runtime(err, ret);
}

void rp_output_file_abort(rp_output_file **pf)
{
    if (!pf || !*pf)
        return;
    rp_output_stream_abort(&(*pf)->stream);
    free(*pf);
    *pf = NULL;
}

int rp_output_write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int rp_output_close_fd(int fd, const char *path, rp_error *err)
{
    if (close(fd) != 0 && errno != EINTR) {
        return rp_error_set(err, RP_ERR_IO, 0, "cannot write '%s': %s", path, strerror(errno));
    }
    return RP_OK;
}

/* Turn a PNG pattern into a printf format taking one int64_t, checking that it has at
 * most one frame number, %d or %0Nd (N from 1 to 99: zero-padded to N digits, as FFmpeg's
 * image2 reads it), that it sits in the last path component, and that every other '%' is
 * "%%". Other printf conversions are refused: flags make names with spaces or signs
 * ("%-3d", "%+d", "% d", "%5d" pads with spaces where FFmpeg reads zeros), and %i, %u or a
 * precision name the frames in spellings FFmpeg does not read back. A name without a
 * conversion is one still (a run of one frame, checked by rp_output_validate);
 * *conversions (if not NULL) is set to 0 or 1. */
static int pattern_format(const char *pattern, char *fmt, size_t fmtlen, int *conversions_out,
                          rp_error *err)
{
    const char *base = strrchr(pattern, '/');
    size_t o = 0;
    int conversions = 0;

    base = base ? base + 1 : pattern;
    for (const char *p = pattern; *p; p++) {
        const char *spec = p;

        if (o + 8 >= fmtlen)
            goto too_long;
        if (*p != '%') {
            fmt[o++] = *p;
            continue;
        }
        if (p[1] == '%') {
            fmt[o++] = '%';
            fmt[o++] = '%';
            p++;
            continue;
        }
        p++;
        if (p[0] == '0' && p[1] >= '1' && p[1] <= '9')
            p += p[2] >= '0' && p[2] <= '9' ? 3 : 2;
        if (*p != 'd') {
            /* the conversion as far as printf would read it, to name it */
            p += strspn(p, "-+ #'0123456789.hlLqjzt");
            int n = *p ? (int)(p - spec) + 1 : (int)(p - spec);

            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "the PNG pattern '%s' has an unsupported conversion '%.*s': number "
                                "the frames with %%d, or %%0Nd for N digits with leading zeros "
                                "like %%05d (and %%%% for a literal %%)",
                                pattern, n, spec);
        }
        if (++conversions > 1) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "the PNG pattern '%s' has more than one conversion: use exactly "
                                "one, like %%05d",
                                pattern);
        }
        if (spec < base) {
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "the PNG pattern '%s' has its conversion in a directory name: put "
                                "it in the file name",
                                pattern);
        }
        if (o + (size_t)(p - spec) + sizeof(PRId64) >= fmtlen)
            goto too_long;
        memcpy(fmt + o, spec, (size_t)(p - spec));
        o += (size_t)(p - spec);
        memcpy(fmt + o, PRId64, strlen(PRId64));
        o += strlen(PRId64);
    }
    fmt[o] = '\0';
    if (conversions_out)
        *conversions_out = conversions;
    return RP_OK;

too_long:
    return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the PNG pattern '%.64s...' is too long",
                        pattern);
}

int rp_output_is_still(const char *path)
{
    if (!path)
        return 0;
    /* a pattern's other conversions are pattern_format's to check */
    for (const char *p = strchr(path, '%'); p; p = strchr(p + 2, '%'))
        if (p[1] != '%')
            return 0;
    return 1;
}

int rp_output_pattern_name(const char *pattern, int64_t index, char *name, size_t len,
                           rp_error *err)
{
    char fmt[4096];
    int ret, n;

    ret = pattern_format(pattern, fmt, sizeof(fmt), NULL, err);
    if (ret)
        return ret;
    n = snprintf(name, len, fmt, index);
    if (n < 0 || (size_t)n >= len) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the file name made from '%.64s' is too long",
                            pattern);
    }
    return RP_OK;
}

/* An existing output without overwrite is RP_ERR_EXISTS; an existing directory is always
 * an error. */
static int check_target(const char *path, int overwrite, rp_error *err)
{
    struct stat st;
    const char *base = strrchr(path, '/');
    char tmp[4096];

    base = base ? base + 1 : path;
    if (!rp_path_is_special(path) &&
        (strlen(base) > NAME_MAX || rp_output_temp_name(path, tmp, sizeof tmp))) {
        return rp_error_set(
            err, RP_ERR_INVALID, 1,
            "cannot write '%.64s...': its file name is %zu bytes, over the %d-byte limit", path,
            strlen(base), NAME_MAX);
    }
    if (stat(path, &st) != 0) {
        /* A dangling symbolic link exists too: the rename would replace it. */
        if (!overwrite && lstat(path, &st) == 0) {
            return rp_error_set(err, RP_ERR_EXISTS, 1,
                                "'%s' already exists (a dangling symbolic link; use -y to "
                                "overwrite)",
                                path);
        }
        return RP_OK;
    }
    if (S_ISDIR(st.st_mode)) {
        return rp_error_set(err, RP_ERR_IO, 0, "'%s' is a directory", path);
    }
    /* A device or FIFO (/dev/null, a named pipe) is written in place: nothing is lost. */
    if (!overwrite && S_ISREG(st.st_mode)) {
        return rp_error_set(err, RP_ERR_EXISTS, 1, "'%s' already exists (use -y to overwrite)",
                            path);
    }
    return RP_OK;
}

/* The parent directory of path must exist (required) or at least not be a file (PNG,
 * whose directory rp_output_open creates). */
static int check_parent(const char *path, int must_exist, rp_error *err)
{
    char dir[4096], place[4200];
    struct stat st;

    if (rp_path_kernel_fs(path, place, sizeof place))
        return rp_error_set(err, RP_ERR_INVALID, 1, "cannot write '%s': it would be %s", path,
                            place);
    if (dir_of(path, dir, sizeof(dir))) {
        return rp_error_set(err, RP_ERR_TOO_LARGE, 0, "the output path '%.64s...' is too long",
                            path);
    }
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT && !must_exist)
            return RP_OK;
        return rp_error_set(err, RP_ERR_IO, 0, "cannot write '%s': directory '%s': %s", path, dir,
                            strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return rp_error_set(err, RP_ERR_IO, 0, "cannot write '%s': '%s' is not a directory", path,
                            dir);
    }
    return RP_OK;
}

/* Where a path leads: the file's identity when it exists, else its directory's real path
 * and its name. Special files (devices, FIFOs) have no identity: writing one twice loses
 * nothing a rename would. */
typedef struct path_id {
    int exists, special;
    dev_t dev;
    ino_t ino;
    char canon[16384];
} path_id;

static void path_identify(const char *path, path_id *id)
{
    struct stat st;
    char dir[4096], real[4096];
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->special = !S_ISREG(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    char target[4096], joined[8192];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) { /* a dangling link: where it leads */
        target[n] = '\0';
        if (target[0] != '/' && !dir_of(path, dir, sizeof dir))
            snprintf(joined, sizeof joined, "%s/%s", dir, target);
        else
            snprintf(joined, sizeof joined, "%s", target);
        path = joined;
    }
    const char *slash = strrchr(path, '/');
    if (dir_of(path, dir, sizeof dir)) {
        snprintf(id->canon, sizeof id->canon, "%s", path);
        return;
    }
    canon_dir(dir, real, sizeof real);
    snprintf(id->canon, sizeof id->canon, "%s/%s", real, slash ? slash + 1 : path);
}

static int same_file(const path_id *a, const path_id *b)
{
    if (a->special || b->special || a->exists != b->exists)
        return 0;
    return a->exists ? a->dev == b->dev && a->ino == b->ino : !strcmp(a->canon, b->canon);
}

static int64_t pattern_index(const char *fmt, const char *entry);

/* path split into its directory, real when it exists (the file's own real path when it
 * exists, so a link is judged by where it leads), and its last name. */
static void split_real(const char *path, int follow, char *dir, char *name, size_t len)
{
    char text[4096];
    char *real = follow ? realpath(path, NULL) : NULL;
    const char *p = real ? real : path, *slash = strrchr(p, '/');
    snprintf(name, len, "%s", slash ? slash + 1 : p);
    if (dir_of(p, text, sizeof text) != RP_OK)
        snprintf(text, sizeof text, ".");
    canon_dir(text, dir, len);
    free(real);
}

/* Whether an existing file the PNG pattern names (a frame of any number) is the file id
 * (a hard or symbolic link to an input under a frame's name). */
static int pattern_has_file(const char *pattern, const path_id *id)
{
    char fmt[4096], dir[4096], full[8192];
    rp_error err; /* not told */
    const char *slash;
    struct dirent *e;
    struct stat st;
    DIR *d;
    int found = 0;

    if (!id->exists || id->special || pattern_format(pattern, fmt, sizeof fmt, NULL, &err) ||
        dir_of(fmt, dir, sizeof dir) || !(d = opendir(dir)))
        return 0;
    slash = strrchr(fmt, '/');
    while (!found && (e = readdir(d))) {
        if (pattern_index(slash ? slash + 1 : fmt, e->d_name) < 0)
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        found = !stat(full, &st) && st.st_dev == id->dev && st.st_ino == id->ino;
    }
    closedir(d);
    return found;
}

/* Whether the PNG pattern names the file path (other_pattern 0) or a file the pattern
 * other_pattern also names (1; tried at a few frame numbers of different widths). */
static int pattern_overlaps(const char *pattern, const char *path, int other_pattern)
{
    char fmt[4096], ofmt[4096], dir[4096], name[4096], odir[4096], oname[4096];
    rp_error err; /* not told */
    if (pattern_format(pattern, fmt, sizeof fmt, NULL, &err) ||
        (other_pattern && pattern_format(path, ofmt, sizeof ofmt, NULL, &err)))
        return 0;
    split_real(fmt, 0, dir, name, sizeof dir);
    split_real(other_pattern ? ofmt : path, !other_pattern, odir, oname, sizeof odir);
    if (strcmp(dir, odir))
        return 0;
    if (!other_pattern)
        return pattern_index(name, oname) >= 0;
    static const int64_t tries[] = {0, 1, 7, 42, 123, 1234, 12345, 123456, 1234567};
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        char frame[4096];
        snprintf(frame, sizeof frame, oname, tries[i]);
        if (pattern_index(name, frame) >= 0)
            return 1;
    }
    return 0;
}

/* The PNG patterns the sessions of this process write now (rp_output_pattern_claim). */
typedef struct pattern_claim {
    const void *owner;
    char *pattern;
    struct pattern_claim *next;
} pattern_claim;
static pthread_mutex_t claims_lock = PTHREAD_MUTEX_INITIALIZER;
static pattern_claim *claims;

/* Whether patterns a and b (PNG patterns, or stills: names without a conversion) name a
 * file in common. */
static int patterns_meet(const char *a, const char *b)
{
    char fa[4096], fb[4096];
    int ca = 1, cb = 1;
    rp_error err; /* not told */
    if (pattern_format(a, fa, sizeof fa, &ca, &err) || pattern_format(b, fb, sizeof fb, &cb, &err))
        return 0;
    if (!ca || !cb) { /* a still: the file it names, against the other's names */
        char still[4096], other[4096];
        if (rp_output_pattern_name(ca ? b : a, 0, still, sizeof still, &err))
            return 0;
        if (ca || cb)
            return pattern_overlaps(ca ? a : b, still, 0);
        if (rp_output_pattern_name(a, 0, other, sizeof other, &err))
            return 0;
        static path_id ids[2]; /* (claims_lock held) */
        path_identify(still, &ids[0]);
        path_identify(other, &ids[1]);
        return same_file(&ids[0], &ids[1]);
    }
    return pattern_overlaps(a, b, 1) || pattern_overlaps(b, a, 1);
}

int rp_output_pattern_claim(const void *owner, const char *pattern, const char *what, rp_error *err)
{
    int ret = RP_OK;
    pthread_mutex_lock(&claims_lock);
    for (pattern_claim *c = claims; c && !ret; c = c->next)
        if (c->owner != owner && patterns_meet(pattern, c->pattern))
            ret = rp_error_set(err, RP_ERR_INVALID, 1,
                               "%s '%s' names files of PNG output '%s', which another session of "
                               "this process is writing: their frames would mix",
                               what, pattern, c->pattern);
    pattern_claim *c = ret ? NULL : malloc(sizeof *c);
    if (!ret && (!c || !(c->pattern = strdup(pattern)))) {
        free(c);
        ret = rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    } else if (!ret) {
        c->owner = owner;
        c->next = claims;
        claims = c;
    }
    pthread_mutex_unlock(&claims_lock);
    return ret;
}

void rp_output_pattern_release(const void *owner)
{
    if (!owner)
        return;
    pthread_mutex_lock(&claims_lock);
    for (pattern_claim **p = &claims; *p;) {
        pattern_claim *c = *p;
        if (c->owner == owner) {
            *p = c->next;
            free(c->pattern);
            free(c);
        } else {
            p = &c->next;
        }
    }
    pthread_mutex_unlock(&claims_lock);
}

/* Whether path leads to what stdout is (/dev/stdout, /dev/fd/1, a link to either), unless
 * that is /dev/null (where mixing loses nothing). */
static int is_stdout_file(const char *path)
{
    struct stat a, b, null;
    if (rp_output_is_stdout(path) || stat(path, &a) || fstat(STDOUT_FILENO, &b) ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return 0;
    return stat("/dev/null", &null) || null.st_rdev != b.st_rdev || !S_ISCHR(b.st_mode);
}

int rp_output_leads_to_stdout(const char *path)
{
    return rp_output_is_stdout(path) || is_stdout_file(path);
}

int rp_fd_check(int fd, const char *what, const rp_path_use *uses, int n, rp_error *err)
{
    struct stat out, in;
    if (fstat(fd, &out) != 0 || !S_ISREG(out.st_mode))
        return RP_OK;
    for (int i = 0; i < n; i++) {
        if (uses[i].is_output || !uses[i].path)
            continue;
        int got =
            rp_output_is_stdout(uses[i].path) ? fstat(STDIN_FILENO, &in) : stat(uses[i].path, &in);
        if (got == 0 && S_ISREG(in.st_mode) && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "%s is open on %s '%s', an input of this run: writing there "
                                "would damage it",
                                what, uses[i].what, uses[i].path);
    }
    return RP_OK;
}

int rp_paths_check(const rp_path_use *uses, int n, rp_error *err)
{
    path_id *ids = calloc((size_t)(n ? n : 1), sizeof *ids);
    int *kind = calloc((size_t)(n ? n : 1), sizeof *kind);
    int ret = RP_OK;
    if (!ids || !kind) {
        free(ids);
        free(kind);
        return rp_error_set(err, RP_ERR_NOMEM, 0, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        char fmt[4096];
        rp_error e; /* not told: a pattern that fails stays kind 2 */
        int conversions = 1;
        if (!rp_output_is_stdout(uses[i].path))
            path_identify(uses[i].path, &ids[i]);
        /* A PNG output without a conversion is one file (a still): it is checked as one,
         * by what it leads to, like every other output. */
        kind[i] = uses[i].is_output;
        if (kind[i] == 2 && !pattern_format(uses[i].path, fmt, sizeof fmt, &conversions, &e) &&
            !conversions)
            kind[i] = 1;
    }
    for (int i = 0; i < n && !ret; i++) {
        /* Two patterns (PNG sequences) of one name would write the same files; a pattern
         * may name an input, or the file of another output. */
        for (int j = 0; kind[i] == 2 && j < n && !ret; j++) {
            if (j == i || rp_output_is_stdout(uses[j].path) || (kind[j] == 2 && j > i))
                continue;
            if (!pattern_overlaps(uses[i].path, uses[j].path, kind[j] == 2) &&
                (kind[j] || !pattern_has_file(uses[i].path, &ids[j])))
                continue;
            if (kind[j])
                ret =
                    rp_error_set(err, RP_ERR_INVALID, 1, "%s '%s' and %s '%s' name the same files",
                                 uses[j].what, uses[j].path, uses[i].what, uses[i].path);
            else
                ret = rp_error_set(err, RP_ERR_INVALID, 1,
                                   "%s '%s' would overwrite %s of this run ('%s')", uses[i].what,
                                   uses[i].path, uses[j].what, uses[j].path);
        }
        /* An output to stdout must not write into an input stdout is open on. */
        if (kind[i] && rp_output_is_stdout(uses[i].path)) {
            char what[256];
            snprintf(what, sizeof what, "standard output (%s -)", uses[i].what);
            ret = rp_fd_check(STDOUT_FILENO, what, uses, n, err);
        }
        /* An output to stdout and another output leading there would mix. */
        for (int j = 0; kind[i] && rp_output_is_stdout(uses[i].path) && j < n && !ret; j++) {
            if (j != i && kind[j] && is_stdout_file(uses[j].path)) {
                ret = rp_error_set(err, RP_ERR_INVALID, 1,
                                   "%s '%s' is stdout, which %s '-' already writes", uses[j].what,
                                   uses[j].path, uses[i].what);
            }
        }
        if (!kind[i] || kind[i] == 2 || rp_output_is_stdout(uses[i].path))
            continue;
        for (int j = 0; j < n && !ret; j++) {
            if (j == i || rp_output_is_stdout(uses[j].path) || !same_file(&ids[i], &ids[j]))
                continue;
            if (kind[j] && j < i)
                ret = rp_error_set(err, RP_ERR_INVALID, 1, "%s '%s' and %s '%s' name the same file",
                                   uses[j].what, uses[j].path, uses[i].what, uses[i].path);
            else if (!kind[j])
                ret = rp_error_set(err, RP_ERR_INVALID, 1, "%s '%s' would overwrite %s of this run",
                                   uses[i].what, uses[i].path, uses[j].what);
        }
    }
    free(ids);
    free(kind);
    return ret;
}

/* The frame index whose name under pattern would be entry, or -1: the pattern's literal
 * prefix and suffix (from fmt, "%%" unescaped) around a number, formatted back and
 * compared. */
static int64_t pattern_index(const char *fmt, const char *entry)
{
    char pre[4096], suf[4096], again[4096];
    size_t np = 0, ns = 0, n = strlen(entry);
    const char *p = fmt;
    int64_t v;
    char *end;

    for (; *p && !(p[0] == '%' && p[1] != '%'); p++) {
        pre[np++] = *p;
        if (*p == '%')
            p++;
    }
    if (!*p)
        return -1;
    p += strcspn(p, "diu") + 1; /* past the conversion (PRId64 ends in d or i) */
    for (; *p; p++) {
        suf[ns++] = *p;
        if (*p == '%')
            p++;
    }
    if (n < np + ns || memcmp(entry, pre, np) || memcmp(entry + n - ns, suf, ns))
        return -1;
    errno = 0;
    v = strtoll(entry + np, &end, 10);
    if (end == entry + np || errno || v < 0)
        return -1;
    snprintf(again, sizeof again, fmt, v);
    return strcmp(again, entry) ? -1 : v;
}

/* Check every existing entry of a PNG pattern's directory that a frame of this run would
 * replace (see rp_output_validate). */
static int check_pattern_dir(const rp_output_spec *opts, rp_error *err)
{
    char fmt[4096], dir[4096], base_fmt[4096], full[8192];
    const char *slash;
    DIR *d;
    struct dirent *e;
    int ret;

    if ((ret = pattern_format(opts->path, fmt, sizeof fmt, NULL, err)))
        return ret;
    slash = strrchr(fmt, '/');
    snprintf(base_fmt, sizeof base_fmt, "%s", slash ? slash + 1 : fmt);
    if (dir_of(opts->path, dir, sizeof dir) || !(d = opendir(dir)))
        return RP_OK; /* no directory yet: nothing to replace */
    while (!ret && (e = readdir(d))) {
        int64_t k = pattern_index(base_fmt, e->d_name);
        if (k < opts->first_frame || k >= opts->first_frame + opts->frame_count)
            continue;
        snprintf(full, sizeof full, "%s%s%s", slash ? dir : "", slash ? "/" : "", e->d_name);
        ret = check_target(full, opts->overwrite, err);
    }
    closedir(d);
    return ret;
}

/* Check the files an output would write: the parent directory exists, and without
 * overwrite no file is replaced, for a PNG pattern every frame's name (see
 * rp_output_validate). Nothing for stdout. */
int rp_output_check_files(const rp_output_spec *opts, enum rp_format format, rp_error *err)
{
    int ret;
    if (rp_output_is_stdout(opts->path))
        return RP_OK;
    if (format == RP_FORMAT_PNG) {
        char name[4096];
        int conversions = 1;

        ret = pattern_format(opts->path, name, sizeof name, &conversions, err);
        struct stat dst;
        size_t plen = strlen(opts->path);
        if (!ret && !conversions &&
            ((plen && opts->path[plen - 1] == '/') ||
             (stat(opts->path, &dst) == 0 && S_ISDIR(dst.st_mode)))) {
            /* a directory named for the frames: say where they would go */
            return rp_error_set(err, RP_ERR_INVALID, 1,
                                "'%s' names a directory, not a file: give the frames' names "
                                "in it, like %s%sf_%%05d.png",
                                opts->path, opts->path,
                                plen && opts->path[plen - 1] == '/' ? "" : "/");
        }
        if (!ret && !conversions && opts->frame_count > 1) {
            return rp_error_set(
                err, RP_ERR_INVALID, 1,
                "'%s' names one PNG (a still), but this run writes %" PRId64 " frames: "
                "a sequence needs a file name pattern with one integer conversion, like "
                "frames/f_%%05d.png (or give %s N alone for one still)",
                opts->path, opts->frame_count, rp_name("--start", "rp_run.start"));
        }
        if (!ret)
            ret = rp_output_pattern_name(opts->path, opts->first_frame, name, sizeof(name), err);
        if (!ret)
            ret = check_parent(name, 0, err);
        if (!ret)
            ret = check_target(name, opts->overwrite, err);
        /* Every frame's name, so a run does not stop half-way on an old frame (without -y)
         * or on a directory (with -y): the directory is read once and each entry that
         * one of the frames would be named is checked, so a long pattern costs no more
         * than the directory's size. */
        if (!ret)
            ret = check_pattern_dir(opts, err);
        return ret;
    }
    ret = check_parent(opts->path, 1, err);
    if (!ret)
        ret = check_target(opts->path, opts->overwrite, err);
    /* MP4 and MOV write their index at the end, into the header's place: a pipe, FIFO,
     * socket or terminal cannot take it (only /dev/null among devices) */
    struct stat st, null;
    if (!ret && (format == RP_FORMAT_MP4 || format == RP_FORMAT_MOV) && !stat(opts->path, &st) &&
        (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
         (S_ISCHR(st.st_mode) && (stat("/dev/null", &null) || null.st_rdev != st.st_rdev))))
        return rp_error_set(err, RP_ERR_INVALID, 1,
                            "'%s' is a pipe or device that cannot be written out of order, as "
                            "%s writes its index at the end: use a file name, or -f mkv or "
                            "-f y4m for a pipe",
                            opts->path, format == RP_FORMAT_MP4 ? "mp4" : "mov");
    return ret;
}
