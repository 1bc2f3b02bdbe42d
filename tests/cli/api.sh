#!/usr/bin/env bash
# api.sh - the example program of the public API (examples/frames.c, built beside the
# program as examples/frames) renders in memory exactly the frames the program writes:
# its "INDEX MD5" lines equal `rockpool --hash` of the same scene, for every preset. The
# same for the core API's example (examples/core_frames.c) and harbour; both headers
# compile alone.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"
example=$(dirname "$ROCKPOOL")/examples/frames
if [ ! -x "$example" ]; then bad "examples/frames was built"; exit 0; fi
cat >s.scene <<'SCENE'
size 96x64
fps 30
duration 12f
at 0f drop 48 32 radius 6 height 2000
at 5f drop 20 20 radius 3 height -1500
SCENE
# same_lines NAME N GOT WANT: GOT has N lines and equals WANT byte for byte.
same_lines() {
    if [ "$(wc -l <"$3")" -eq "$2" ] && cmp -s "$3" "$4"; then ok "$1"; else
        bad "$1"
        diff "$3" "$4" | head -4
    fi
}
for p in rockpool elias applet silverlight codeproject; do
    "$example" $p >ex.txt 2>ex.err || { bad "example $p ran"; cat ex.err; continue; }
    cut -d' ' -f1,2 ex.txt >ex.hash
    "$ROCKPOOL" -q s.scene --preset $p --hash -f framemd5 -o /dev/null >cli.hash
    same_lines "API example equals rockpool --hash ($p)" 12 ex.hash cli.hash
done
expect_status "API example refuses an unknown preset" 2 "$example" nosuch

# The public header is the library's boundary: it compiles alone, with no other include
# directory and only the C library's headers, in C11 and C++ alike.
header=$root/include/rockpool.h
if grep -n '^#include "' "$header" | grep -v '#include "rpcore.h"' >inc.txt; then
    bad "rockpool.h includes only the C library's headers and rpcore.h"; cat inc.txt
else
    ok "rockpool.h includes only the C library's headers and rpcore.h"
fi
printf '#include "rockpool.h"\nint main(void) { rp_run r; rp_run_init(&r); return 0; }\n' >alone.c
for cc in ${CC:-cc} clang; do
    command -v "$cc" >/dev/null || continue
    check "rockpool.h compiles on its own ($cc)" "$cc" -std=c11 -pedantic -Wall -Wextra -Werror \
        -fsyntax-only -I"$root/include" alone.c
done

# ... and a C++ program that includes it links against the library (its declarations are
# extern "C", as rpcore.h's are: before, rp_run_init was looked up as a C++ symbol).
lib=$(dirname "$ROCKPOOL")/librockpool.a
libs=$(pkg-config --libs zlib libdeflate libavformat libavcodec libswscale libavutil libxxhash)
# a sanitizer build's library needs its runtime (make SAN=1's flags)
if nm "$lib" 2>/dev/null | grep -q __asan_; then
    libs="-fsanitize=address,undefined $libs"
fi
if command -v g++ >/dev/null; then
    printf '#include "rockpool.h"\nint main() { rp_run r; rp_run_init(&r); return r.threads == 1 ? 0 : 1; }\n' >alone.cc
    # shellcheck disable=SC2086 # the libraries' flags are words
    check "rockpool.h links from C++" g++ -Wall -Wextra -pedantic -Werror -I"$root/include" \
        alone.cc -o alone_cc "$lib" $libs -lm -pthread
    check "the C++ program runs" ./alone_cc
fi

# Misuse of a session gets an error, not a crash: rp_session_next before rp_session_start,
# rp_session_close of no session (rp_session_abort and rp_session_free take one), and a
# run whose start, end or threads are out of rp_run's ranges (a negative start rendered
# from frame 0 with no output, the summary saying -3; negative threads meant every CPU).
cat >misuse.c <<'C'
#include <stdio.h>
#include <string.h>
#include "rockpool.h"
static const char text[] = "size 96x64\nfps 30\nduration 12f\nat 0f drop 48 32 radius 6 height 2000\n";
static int refused_out(const char *what, long long start, long long end, int threads, int crf,
                       long long bitrate)
{
    rp_scene *scene = NULL;
    rp_session *s = NULL;
    rp_error err;
    rp_run run;
    rp_scene_from_text(&scene, text, strlen(text), "<t>", &err);
    rp_run_init(&run);
    run.out.path = NULL;
    run.start = start;
    run.end = end;
    run.threads = threads;
    if (crf != 23 || bitrate) { /* an MP4 that is never made: the session is refused */
        run.out.path = "never.mp4";
        run.out.crf = crf;
        run.out.crf_given = 1;
        run.out.bitrate = bitrate;
    }
    int r = rp_session_new(&s, scene, &run, &err);
    if (!r && run.out.path) /* the outputs are checked before anything is made */
        r = rp_session_check_outputs(s, &err);
    rp_session_abort(&s);
    rp_scene_free(&scene);
    printf("%s: %s\n", what, r == RP_ERR_INVALID && err.bad_input ? "refused" : "ACCEPTED");
    return r == RP_ERR_INVALID && err.bad_input;
}
static int refused(const char *what, long long start, long long end, int threads)
{
    return refused_out(what, start, end, threads, 23, 0);
}
int main(void)
{
    rp_scene *scene = NULL;
    rp_session *s = NULL, *none = NULL;
    const rp_frame *f = NULL;
    rp_error err;
    rp_run run;
    int ok = 1;
    rp_scene_from_text(&scene, text, strlen(text), "<t>", &err);
    rp_run_init(&run);
    run.out.path = NULL;
    if (rp_session_new(&s, scene, &run, &err))
        return 3;
    int r = rp_session_next(s, &f, &err);
    printf("next before start: %d %s\n", r, err.msg);
    ok &= r == RP_ERR_INVALID && !f;
    rp_session_abort(&s);
    r = rp_session_close(&none, NULL, &err);
    printf("close of no session: %d\n", r);
    ok &= r == RP_ERR_INVALID;
    ok &= refused("start -3", -3, -1, 1);
    ok &= refused("end -7", 0, -7, 1);
    ok &= refused("threads -5", 0, -1, -5);
    /* the encoder's numbers as the command line takes them (they fell back to defaults) */
    ok &= refused_out("crf -100", 0, -1, 1, -100, 0);
    ok &= refused_out("crf 64", 0, -1, 1, 64, 0);
    ok &= refused_out("bit rate -5", 0, -1, 1, 23, -5);
    rp_scene_free(&scene);
    return ok ? 0 : 1;
}
C
# shellcheck disable=SC2086
if ${CC:-cc} -std=c11 -I"$root/include" misuse.c -o misuse "$lib" $libs -lm -pthread 2>misuse.err; then
    if ./misuse >misuse.out 2>&1; then ok "session misuse gets errors, not crashes"; else
        bad "session misuse gets errors, not crashes (status $?)"
        sed 's/^/    /' misuse.out | head -8
    fi
else
    bad "the misuse program builds"; head -3 misuse.err
fi

# The core API (include/rpcore.h): it includes only the C library's headers and compiles
# alone as C99 with -pedantic and as C++.
if grep -n '^#include "' "$root/include/rpcore.h" >inc.txt; then
    bad "rpcore.h includes only the C library's headers"; cat inc.txt
else
    ok "rpcore.h includes only the C library's headers"
fi
# The core's users outside the library (the frei0r plugin, the playground's glue, the core
# driver, the API's example and unit test) include no header of src/: the public API only.
# The plugin's images.h (its decoder, over the program's loaders in images.c) is its own and
# includes rpcore.h alone too.
for user in src/frei0r/plugin.c src/frei0r/images.h web/rpweb.c tests/tools/rpcore.c \
    examples/core_frames.c tests/unit/test_core.c; do
    if grep -n '^#include "' "$root/$user" |
        grep -v '#include "rpcore.h"\|#include "frei0r/images.h"' >inc.txt; then
        bad "$user includes rpcore.h and no private header"; cat inc.txt
    else
        ok "$user includes rpcore.h and no private header"
    fi
done
# The session API's unit test (tests/unit/test_session.c) is a program embedding the library:
# rockpool.h and the tests' temporary-directory helper, no header of src/.
if grep -n '^#include "' "$root/tests/unit/test_session.c" |
    grep -v '#include "rockpool.h"\|#include "tmpdir.h"' >inc.txt; then
    bad "tests/unit/test_session.c includes rockpool.h and no private header"; cat inc.txt
else
    ok "tests/unit/test_session.c includes rockpool.h and no private header"
fi
# includes_only DIR ALLOWED WHAT: every .c and .h of src/DIR includes only the quoted
# headers the grep pattern ALLOWED matches ("ok DIR/FILE WHAT").
includes_only() {
    local user name
    for user in "$root/src/$1"/*.c "$root/src/$1"/*.h; do
        name=src/$1/${user##*/}
        if grep -n '^#include "' "$user" | grep -v "$2" >inc.txt; then
            bad "$name $3"; cat inc.txt
        else
            ok "$name $3"
        fi
    done
}
# The program (src/cli/) is a user of the library's public header like any other: it
# includes rockpool.h (and through it rpcore.h) and its own headers, no private one.
includes_only cli '#include "\(rockpool\|rpcore\|cli\|identity\)\.h"' \
    "includes the public headers and its own only"
# The session (src/session/, the library's frame loop) stands on the core's public API: it
# includes no header of the core's folders (scene, sim, look, engine, core), only rpcore.h
# and rockpool.h, and the library's own folders (base, input, output, check, session).
includes_only session '#include "\(rockpool\|rpcore\)\.h"\|#include "\(base\|input\|output\|check\|session\)/' \
    "includes the core through rpcore.h only"
# The core's folders are below the library: none includes rockpool.h or a header of the
# library's own folders (its x86 kernels of YUV, the PNG filter and MD5 are the output's
# and the check's, in src/x86 with the rest).
for dir in base scene sim look engine core; do
    if grep -n '^#include "\(rockpool\.h\|input/\|output/\|check/\|session/\|cli/\)' \
        "$root/src/$dir"/*.[ch] >inc.txt; then
        bad "src/$dir includes nothing of the library above the core"; cat inc.txt
    else
        ok "src/$dir includes nothing of the library above the core"
    fi
done
printf '#include "rpcore.h"\n' >core_alone.c
check "rpcore.h compiles alone as C99 (-pedantic -Werror)" ${CC:-cc} -std=c99 -pedantic -Wall \
    -Wextra -Werror -fsyntax-only -I"$root/include" core_alone.c
if command -v g++ >/dev/null; then
    check "rpcore.h compiles alone as C++" g++ -Wall -Wextra -pedantic -Werror -fsyntax-only \
        -x c++ -I"$root/include" core_alone.c
else
    bad "g++ is installed (rpcore.h as C++)"
fi

# The core API's example (examples/core_frames.c) links the core library alone and renders
# harbour's frames into memory: its lines are those of `rockpool -f framemd5` (whose MD5 is
# FFmpeg's framemd5 layout, computed apart from the example's own MD5), at two sizes.
core_example=$(dirname "$ROCKPOOL")/examples/core_frames
if [ ! -x "$core_example" ]; then
    bad "examples/core_frames was built"
else
    if nm -u "$core_example" | grep -E ' (av|sws|png|deflate|libdeflate|XXH)_' >libs.txt; then
        bad "core_frames links no FFmpeg, libpng, libdeflate or xxhash"; head -3 libs.txt
    else
        ok "core_frames links no FFmpeg, libpng, libdeflate or xxhash"
    fi
    for size in 320x180 131x77; do
        "$core_example" "$root/examples/harbour.scene" $size >core.txt 2>core.err ||
            { bad "core_frames renders harbour at $size"; head -3 core.err; continue; }
        "$ROCKPOOL" -q "$root/examples/harbour.scene" -s $size -f framemd5 -o - 2>/dev/null |
            grep -v '^#' >cli.txt
        same_lines "core_frames prints rockpool -f framemd5's lines for harbour at $size" 180 \
            core.txt cli.txt
    done
    expect_status "core_frames refuses a bad scene with status 2" 2 "$core_example" \
        "$root/tests/bad/radius-zero.scene"
fi
