/* replay_main.h - the main() of a fuzz target built without libFuzzer (-DRP_FUZZ_MAIN):
 * replays every file named on the command line, or every file of every directory named,
 * through LLVMFuzzerTestOneInput, so a corpus runs under plain builds, valgrind or the
 * sanitizers. RP_FUZZ_VERBOSE=1 names each file as it goes.
 *
 * The including file defines RP_FUZZ_NAME (a string) and `static int verbose`, and
 * includes this at its end, inside #ifdef RP_FUZZ_MAIN. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, got;

    if (verbose)
        fprintf(stderr, "%s\n", path);

    if (!f) {
        perror(path);
        return 1;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *b = realloc(buf, cap ? 2 * cap : 4096);
            if (!b) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = b;
            cap = cap ? 2 * cap : 4096;
        }
        got = fread(buf + len, 1, cap - len, f);
        if (got == 0)
            break;
        len += got;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

/* Replay every file named, or every file of every directory named. */
int main(int argc, char **argv)
{
    int i, failed = 0, count = 0;

    verbose = getenv("RP_FUZZ_VERBOSE") != NULL;
    for (i = 1; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        struct dirent *de;
        if (!dir) {
            failed |= replay_file(argv[i]);
            count++;
            continue;
        }
        while ((de = readdir(dir))) {
            char path[4096];
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
            failed |= replay_file(path);
            count++;
        }
        closedir(dir);
    }
    fprintf(stderr, RP_FUZZ_NAME ": replayed %d inputs\n", count);
    return failed;
}
