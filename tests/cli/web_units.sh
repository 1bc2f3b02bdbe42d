#!/usr/bin/env bash
# web_units.sh - the core's unit tests built for wasm32 (make web-tests: the same core
# objects as the playground's rockpool.wasm, tests/wasm/cmocka.h for cmocka) run under
# Node's WASI (tests/tools/wasi-run.js): each passes, and runs as many tests as its native
# build, so the core's bytes on wasm32 are held to the same checks (threads aside: wasm32
# has none, and the thread-count tests run on the caller's thread there).
source "$(dirname "$0")/lib.sh"

WEB=$(dirname "$ROCKPOOL")/web
UNIT=$(dirname "$ROCKPOOL")/tests
if ! command -v node >/dev/null 2>&1; then
    echo "[  SKIPPED ] the core's unit tests under Node: no node (scripts/install-deps installs nodejs)"
    exit 0
fi
# runs LOG: the count cmocka's summary line gives, digits only (empty when there is none)
runs() { sed -n 's/^\[==========\] \([0-9][0-9]*\) test(s) run\.$/\1/p' "$1" | head -n 1; }
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
    grep -q '^\[  PASSED  \]' "$name.out"
    passed=$?
    check "$name under Node: the native build's ${native:-?} tests, all passed" \
        test -n "$native" -a "$wasm" = "$native" -a $passed -eq 0
done
check "make web-tests built the core's unit tests for wasm32 ($n)" test $n -ge 9
