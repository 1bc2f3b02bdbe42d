#!/usr/bin/env bash
# api.sh - the example program of the public API (examples/frames.c, built beside the
# program as examples/frames) renders in memory exactly the frames the program writes:
# its "INDEX MD5" lines equal `rockpool --hash` of the same scene, for every preset.
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
for p in rockpool elias applet silverlight codeproject; do
    "$example" $p >ex.txt 2>ex.err || { bad "example $p ran"; cat ex.err; continue; }
    cut -d' ' -f1,2 ex.txt >ex.hash
    "$ROCKPOOL" -q s.scene --preset $p --hash -f framemd5 -o /dev/null >cli.hash
    if [ "$(wc -l <ex.hash)" -eq 12 ] && cmp -s ex.hash cli.hash; then
        ok "API example equals rockpool --hash ($p)"
    else
        bad "API example equals rockpool --hash ($p)"
        diff ex.hash cli.hash | head -3
    fi
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
