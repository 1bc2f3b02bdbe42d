#!/usr/bin/env bash
# install_lib.sh - the C library as `make install` installs it (README "Install", rockpool(3),
# rpcore(3)): librockpool.a and librpcore.a, rockpool.h and rpcore.h, rockpool.pc and
# rpcore.pc, and the man pages rockpool(3) and rpcore(3), under PREFIX (and DESTDIR).
# A program that sees only the installed tree (PKG_CONFIG_PATH, `pkg-config --cflags --libs`,
# no -I or -L of its own) builds, links and renders the frames the rockpool
# binary renders (their framemd5 files equal), and compiles as C89, C99 and C11 with
# -pedantic -Werror (gcc and clang); a C99 program of the core alone builds with
# rpcore.pc's; a C++ program includes both headers as they are and links, and compiles as
# C++98 and C++11 with -pedantic -Werror (g++ and clang++); the versions pkg-config reports are VERSION and the header's
# RP_CORE_VERSION_*, as rp_core_version() says at run time; `make uninstall` removes every
# file. The library's archives are this build's (the binary's directory), installed by
# `make install-lib` with make told they are up to date (-o): nothing is rebuilt.
source "$(dirname "$0")/lib.sh"

B=$(dirname "$ROCKPOOL")
P=$WORK/prefix
for f in librockpool.a librpcore.a; do
    check "the build has $f" test -s "$B/$f"
done
# A sanitizer build's archives need its runtime in the program too.
SAN=()
if nm "$B/librpcore.a" 2>/dev/null | grep -q __asan_; then
    SAN=(-fsanitize=address,undefined)
fi

# make installs the archives it is told are up to date from $WORK/b: they go there.
mkdir -p "$WORK/b"
cp "$B/librockpool.a" "$B/librpcore.a" "$WORK/b/"
check "make install-lib PREFIX=... succeeds" make -s -C "$TOP" BUILD="$WORK/b" \
    -o "$WORK/b/librockpool.a" -o "$WORK/b/librpcore.a" PREFIX="$P" install-lib
for f in lib/librockpool.a lib/librpcore.a include/rockpool.h include/rpcore.h \
    lib/pkgconfig/rockpool.pc lib/pkgconfig/rpcore.pc share/man/man3/rockpool.3 \
    share/man/man3/rpcore.3; do
    check "installed: $f" test -s "$P/$f"
done
check "installed rockpool.h is include/rockpool.h" cmp -s "$P/include/rockpool.h" "$TOP/include/rockpool.h"
check "installed rpcore.h is include/rpcore.h" cmp -s "$P/include/rpcore.h" "$TOP/include/rpcore.h"
check "make install installs the library too" sh -c \
    "make -s -n -C '$TOP' BUILD='$WORK/b' PREFIX=/x install 2>/dev/null | grep -q 'librockpool.a .*/x/lib/'"

# ---- pkg-config over the installed tree alone --------------------------------------------
export PKG_CONFIG_PATH=$P/lib/pkgconfig
unset PKG_CONFIG_LIBDIR
version=$(cat "$TOP/VERSION")
core_version=$(awk '/^#define RP_CORE_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $3; s = "." }
    END { print v }' "$TOP/include/rpcore.h")
check "pkg-config --modversion rockpool is VERSION ($version)" \
    test "$(pkg-config --modversion rockpool)" = "$version"
check "pkg-config --modversion rpcore is RP_CORE_VERSION ($core_version)" \
    test "$(pkg-config --modversion rpcore)" = "$core_version"
# The archives are static: what they need is the program's to link (Requires and Libs, not
# their .private forms, which plain --libs leaves out).
check "rockpool.pc requires FFmpeg, libdeflate, zlib and xxHash" sh -c \
    "pkg-config --print-requires rockpool | tr '\n' ' ' | \
     grep -q 'libavformat.*libavcodec.*libswscale.*libavutil.*libdeflate.*zlib.*libxxhash'"
flags=$(pkg-config --cflags --libs rockpool)
check "rockpool.pc links -lrockpool, libm and threads" sh -c \
    "echo '$flags' | grep -q -- '-lrockpool .*-lm' && echo '$flags' | grep -q -- '-pthread'"
check "rpcore.pc requires no other package" test -z "$(pkg-config --print-requires rpcore)"
check "the flags name the installed tree, not the build tree ($flags)" sh -c \
    "echo '$flags' | grep -q -- '-I$P/include' && echo '$flags' | grep -q -- '-L$P/lib' && \
     ! echo '$flags' | grep -qF '$TOP'"

# ---- a C program of the session API, from the installed tree ------------------------------
cat >prog.c <<'EOF'
/* Render SCENE's frames as framemd5 into OUT through the public API. */
#include <rockpool.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    rp_scene *scene = NULL;
    rp_session *s = NULL;
    rp_run run;
    rp_error err;
    const rp_frame *frame;
    int r;
    if (argc != 3)
        return 2;
    if (rp_scene_load(&scene, argv[1], &err))
        goto fail;
    rp_run_init(&run);
    run.out.path = argv[2];
    run.out.format = RP_FORMAT_FRAMEMD5;
    if (rp_session_new(&s, scene, &run, &err) || rp_session_start(s, &err))
        goto fail;
    while (!(r = rp_session_next(s, &frame, &err)) && frame)
        ;
    if (r || rp_session_close(&s, NULL, &err))
        goto fail;
    rp_scene_free(&scene);
    printf("core %u\n", rp_core_version());
    return 0;
fail:
    fprintf(stderr, "prog: %s\n", err.msg);
    rp_session_abort(&s);
    rp_scene_free(&scene);
    return 1;
}
EOF
# shellcheck disable=SC2086 # the flags are words
check "a C program builds with pkg-config --cflags --libs rockpool alone" \
    cc -std=c11 -Wall -Wextra -Werror "${SAN[@]}" prog.c -o prog $flags
printf 'size 64x48\nfps 25\nduration 6f\nat 0f drop 32 24 radius 5 height 1800\n' >t.scene
check "the program renders" sh -c "./prog t.scene got.framemd5 >/dev/null"
"$ROCKPOOL" -q t.scene -f framemd5 -o want.framemd5
check "its framemd5 is the rockpool binary's" cmp -s got.framemd5 want.framemd5
check "... of 6 frames" test "$(grep -vc '^#' got.framemd5)" = 6
# The installed headers are strict C89, C99 and C11 (README "The core API", rockpool(3),
# rpcore(3)): the program compiles under each with -pedantic -Werror (a trailing comma in an
# enum, a // comment, a declaration after a statement is an error there), with gcc and clang.
for ccx in cc clang; do
    command -v "$ccx" >/dev/null || continue
    for std in c89 c99 c11; do
        # shellcheck disable=SC2086
        check "the program compiles as $std with $ccx -pedantic -Werror" "$ccx" -std=$std \
            -pedantic -Wall -Wextra -Werror -c prog.c -o "prog-$ccx-$std.o" $(pkg-config --cflags rockpool)
    done
done
# shellcheck disable=SC2086
check "... and the C89 one links and renders" sh -c "cc ${SAN[*]} prog-cc-c89.o -o prog89 $flags && \
    ./prog89 t.scene got89.framemd5 >/dev/null && cmp -s got89.framemd5 want.framemd5"
v_int=$(awk '/^#define RP_CORE_VERSION_(MAJOR|MINOR|PATCH) / { n = n * 256 + $3 } END { print n }' \
    "$TOP/include/rpcore.h")
check "rp_core_version() is RP_CORE_VERSION ($v_int)" sh -c "./prog t.scene again.framemd5 | grep -qx 'core $v_int'"

# ---- the core alone, and C++ ---------------------------------------------------------------
cat >core.c <<'EOF'
#include <rpcore.h>
#include <stdio.h>
int main(void)
{
    printf("%u.%u.%u\n", rp_core_version() >> 16, rp_core_version() >> 8 & 255,
           rp_core_version() & 255);
    return rp_core_version() == RP_CORE_VERSION ? 0 : 1;
}
EOF
# shellcheck disable=SC2046
check "a C99 program builds with pkg-config --cflags --libs rpcore alone" \
    cc -std=c99 -Wall -Wextra -Werror "${SAN[@]}" core.c -o core $(pkg-config --cflags --libs rpcore)
check "it reports the header's version ($core_version)" test "$(./core)" = "$core_version"
cat >prog.cc <<'EOF'
#include <rockpool.h>
#include <rpcore.h>
#include <cstdio>
int main()
{
    rp_run run;
    rp_run_init(&run);
    std::printf("%s %u %d\n", rp_strerror(RP_ERR_INVALID), rp_core_version(),
                rp_output_format_from_path("x.mp4") == RP_FORMAT_MP4);
    return 0;
}
EOF
if command -v c++ >/dev/null; then
    # shellcheck disable=SC2086
    check "a C++ program includes both headers and links (extern \"C\")" \
        c++ -Wall -Wextra -Werror "${SAN[@]}" prog.cc -o progxx $flags
    check "... and runs" sh -c "./progxx | grep -qx '.* $v_int 1'"
    # ... and the headers are strict C++98 and C++11 (no trailing comma in an enum before
    # C++11, no C-only construct), with g++ and clang++.
    for cxx in c++ clang++; do
        command -v "$cxx" >/dev/null || continue
        for std in c++98 c++11; do
            # shellcheck disable=SC2086
            check "the C++ program compiles as $std with $cxx -pedantic -Werror" "$cxx" \
                -std=$std -pedantic -Wall -Wextra -Werror -c prog.cc -o "progxx-$cxx-$std.o" \
                $(pkg-config --cflags rockpool)
        done
    done
else
    bad "no C++ compiler (scripts/install-deps installs g++)"
fi

# ---- an install directory with a blank: refused, nothing installed or removed --------------
# (make splits it into words: PREFIX="$WORK/p $WORK/q" installed into $WORK/p and $WORK/q, and
# uninstall removed $WORK/q's files. Both pieces are absolute here, so that a make that does
# split them writes nothing into the source tree.)
mkdir -p "$WORK/q/lib" "$WORK/q/bin"
echo other >"$WORK/q/lib/librockpool.a"
echo other >"$WORK/q/bin/rockpool-join"
check "make uninstall PREFIX='a b': refused (exit 2)" test "$(make -s -C "$TOP" \
    PREFIX="$WORK/p $WORK/q" uninstall 2>/dev/null; echo $?)" = 2
check "... removing nothing of either piece" test -s "$WORK/q/lib/librockpool.a" -a \
    -s "$WORK/q/bin/rockpool-join"
check "make install-lib PREFIX='a b': refused (exit 2)" test "$(make -s -C "$TOP" BUILD="$WORK/b" \
    -o "$WORK/b/librockpool.a" -o "$WORK/b/librpcore.a" PREFIX="$WORK/p $WORK/q" install-lib \
    2>blank.err; echo $?)" = 2
check "... naming PREFIX and the blank" grep -q "PREFIX '$WORK/p $WORK/q' holds a blank" blank.err
check "... installing nothing into either piece" test ! -e "$WORK/p" -a "$(find "$WORK/q" -type f | wc -l)" = 2
check "make install-lib DESTDIR='a b': refused (exit 2)" test "$(make -s -C "$TOP" BUILD="$WORK/b" \
    -o "$WORK/b/librockpool.a" -o "$WORK/b/librpcore.a" DESTDIR="$WORK/p $WORK/q" install-lib \
    2>/dev/null; echo $?)" = 2
check "... installing nothing" test ! -e "$WORK/p" -a "$(find "$WORK/q" -type f | wc -l)" = 2
rm -rf "$WORK/q"

# ---- DESTDIR, and make uninstall -------------------------------------------------------------
check "make install-lib DESTDIR=... PREFIX=/usr stages under DESTDIR" make -s -C "$TOP" \
    BUILD="$WORK/b" -o "$WORK/b/librockpool.a" -o "$WORK/b/librpcore.a" DESTDIR="$WORK/stage" \
    PREFIX=/usr install-lib
check "... with prefix=/usr in its .pc" grep -qx 'prefix=/usr' "$WORK/stage/usr/lib/pkgconfig/rockpool.pc"
check "make uninstall removes what it installed" make -s -C "$TOP" BUILD="$WORK/b" PREFIX="$P" uninstall
check "... every file" test -z "$(find "$P" -type f)"
