#!/usr/bin/env bash
# web_units.sh - the core's unit tests built for wasm32 (make web-tests: the same core
# objects as the playground's rockpool.wasm, tests/wasm/cmocka.h for cmocka) run under
# Node's WASI (tests/tools/wasi-run.js): each passes, and runs the tests its native build
# runs (test_simd leaves out the YUV, PNG and MD5 kernels, which are not the core's), so
# the core's bytes on wasm32 are held to the same checks (threads aside: wasm32 has none,
# and the thread-count tests run on the caller's thread there), and the step's SIMD128
# kernels to the plain C loops. Then the playground's rockpool.wasm, loaded as the page
# loads it (web/core.js), renders a frame.
source "$(dirname "$0")/lib.sh"

WEB=$(dirname "$ROCKPOOL")/web
UNIT=$(dirname "$ROCKPOOL")/tests
if ! command -v node >/dev/null 2>&1; then
    echo "[  SKIPPED ] the core's unit tests under Node: no node (scripts/install-deps installs nodejs)"
    exit 0
fi
# runs LOG: the count cmocka's summary line gives, digits only (empty when there is none)
runs() { sed -n 's/^\[==========\] \([0-9][0-9]*\) test(s) run\.$/\1/p' "$1" | head -n 1; }
# names LOG: the tests it ran, one a line, sorted
names() { sed -n 's/^\[ RUN      \] \([a-z0-9_]*\)$/\1/p' "$1" | sort; }
# Tests of the library outside the core (FFmpeg's side: YUV, PNG, MD5), which the wasm32
# build leaves out, and the one that writes files in a temporary directory (the wasm32 run
# has no /tmp); every other test runs there.
outside_core() {
    case $1 in
    test_simd) printf '%s\n' test_md5x8_entry test_png_paeth_entry test_yuv_entries ;;
    test_core) printf '%s\n' test_image_costs ;;
    esac
}
n=0
for wasm in "$WEB"/tests/test_*.wasm; do
    [ -f "$wasm" ] || continue
    name=$(basename "$wasm" .wasm)
    n=$((n + 1))
    (cd "$TOP" && node --no-warnings tests/tools/wasi-run.js "$wasm") >"$name.out" 2>"$name.err"
    status=$?
    check "$name under Node: exit 0" test $status -eq 0
    [ $status -eq 0 ] || tail -n 5 "$name.err"
    "$UNIT/$name" >"$name.native" 2>&1
    native=$(runs "$name.native") wasm=$(runs "$name.out")
    names "$name.native" >"$name.native.names"
    names "$name.out" >"$name.wasm.names"
    comm -23 "$name.native.names" "$name.wasm.names" >"$name.left"
    outside_core "$name" >"$name.outside"
    grep -q '^\[  PASSED  \]' "$name.out"
    passed=$?
    check "$name under Node: the native build's ${native:-?} tests but those outside the core" \
        cmp -s "$name.left" "$name.outside"
    check "$name under Node: ${wasm:-?} tests, all passed" \
        test -n "$native" -a -n "$wasm" -a "$wasm" -gt 0 -a $passed -eq 0 \
        -a "$wasm" -eq "$(wc -l <"$name.wasm.names")"
done
check "make web-tests built the core's unit tests for wasm32 ($n)" test $n -ge 10
# The step's SIMD128 kernels ran: test_simd under Node reports the 128-bit level.
check "test_simd under Node ran the SIMD128 level" grep -q '^simd: this CPU runs level 1 ' test_simd.out
# The playground's own rockpool.wasm instantiates with the WASI calls web/core.js (the
# page's loader) offers, and opens and renders a scene: a core change that pulls another
# WASI call into it (a file read: fopen's fd_fdstat_get, path_open) breaks the page, which
# otherwise only make check-all's web_page.sh would show.
if [ -f "$WEB/rockpool.wasm" ]; then
    node -e '
const { loadCore } = require(process.argv[1]);
loadCore(require("fs").readFileSync(process.argv[2])).then((c) => {
  const r = c.open("size 64x40\nat 0s drop 50% 50% radius 3 height 900\n", "t.scene", 0, 0, 0, 0);
  const f = r.ok ? c.render(2) : null;
  console.log(f && f.length === 64 * 40 * 3 ? "ok" : "not ok: " + JSON.stringify(r.error));
}).catch((e) => console.log("error: " + e.message));' "$TOP/web/core.js" "$WEB/rockpool.wasm" \
        >page_core.out 2>&1
    check "rockpool.wasm loads with web/core.js's WASI calls and renders a frame" \
        grep -qx ok page_core.out
    grep -vx ok page_core.out | head -3
fi
