/* tmpdir.h - a fresh temporary directory per test for the cmocka tests that write files:
 * make_dir / remove_dir as setup and teardown (the directory is *state), join() for paths
 * in it (a few at a time: each call returns one of 8 static buffers in turn). Include after
 * cmocka.h. */
#ifndef RP_TEST_TMPDIR_H
#define RP_TEST_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline int make_dir(void **state)
{
    char *dir = strdup("/tmp/rp-test-XXXXXX");

    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    *state = dir;
    return 0;
}

static inline int remove_dir(void **state)
{
    nftw(*state, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(*state);
    return 0;
}

static inline char *join(const char *dir, const char *name)
{
    static char paths[8][4096];
    static int next;
    char *p = paths[next++ % 8];

    snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
    return p;
}

#endif
