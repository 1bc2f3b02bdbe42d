/* wasi_shim.c - what wasi-libc lacks and the core calls (web/wasm-include/wasi_shim.h), for
 * the playground's rockpool.wasm and the core's unit tests built for wasm32. */
#include <errno.h>
#include <stdlib.h>

/* No realpath: nothing resolves, and the scene parser judges a path by its spelling. */
char *realpath(const char *path, char *resolved)
{
    (void)path, (void)resolved;
    errno = ENOENT;
    return NULL;
}
