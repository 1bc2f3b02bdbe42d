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
