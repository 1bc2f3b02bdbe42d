/* wasi_shim.h - included before every core source in the playground's wasm32 build (make
 * web): what wasi-libc leaves out and the core names. WASI has no absolute paths, so
 * realpath (web/wasi_shim.c) resolves nothing: the scene parser then judges a path by its
 * text, as it does a path that names no file yet. The page reads no files anyway. */
#ifndef RP_WASI_SHIM_H
#define RP_WASI_SHIM_H

char *realpath(const char *path, char *resolved);

#endif
