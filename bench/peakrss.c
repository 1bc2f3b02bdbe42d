/* peakrss.c - run a command and report its wall time and peak memory, for bench/run.
 *
 *     peakrss REPORT COMMAND [ARG]...
 *
 * Runs COMMAND (searched in PATH), waits for it with wait4() and writes one line to the
 * file REPORT: "SECONDS MAXRSS_KIB STATUS CPU_SECONDS" - wall-clock seconds
 * (CLOCK_MONOTONIC), the child's ru_maxrss (peak resident set size, KiB on Linux), its exit
 * status (128+N if killed by signal N) and its CPU time (user + system, all threads). Exits with the same status. Needs nothing installed, unlike
 * /usr/bin/time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    struct rusage ru;
    int wstatus, status;
    pid_t pid;

    if (argc < 3) {
        fprintf(stderr, "usage: peakrss REPORT COMMAND [ARG]...\n");
        return 2;
    }
    double t0 = now();
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "peakrss: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "peakrss: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    while (wait4(pid, &wstatus, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "peakrss: wait4: %s\n", strerror(errno));
            return 1;
        }
    }
    double seconds = now() - t0;
    status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);

    FILE *f = fopen(argv[1], "w");
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    if (!f || fprintf(f, "%.3f %ld %d %.3f\n", seconds, ru.ru_maxrss, status, cpu) < 0 ||
        fclose(f)) {
        fprintf(stderr, "peakrss: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    return status;
}
