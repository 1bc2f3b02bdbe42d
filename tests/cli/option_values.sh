#!/usr/bin/env bash
# option_values.sh - option values that rockpool(1) has always read one way (before the
# options' settings went through rpcore.h's rp_settings_set): the refusals' exact messages
# and the edges the library's number reader would move (expected texts written by hand from
# the messages rockpool 0.2.0 printed at 2fe5251).
. "$(dirname "$0")/lib.sh"
R=$ROCKPOOL

# refused NAME MESSAGE ARGS...: exit 2 and exactly MESSAGE on stderr, nothing else.
refused() {
    local name=$1 msg=$2
    shift 2
    expect_status "$name: exit 2" 2 "$R" --check "$@"
    if [ "$(cat "$WORK/err")" = "rockpool: error: $msg" ]; then ok "$name: message"; else
        bad "$name: message (got '$(cat "$WORK/err")')"
    fi
}

# --fps: not a whole number, a whole number out of 1..1000, anything else
refused "--fps abc" "--fps: 'abc' is not a whole number" --fps abc
refused "--fps 0" "--fps: 0 is out of range (1..1000)" --fps 0
refused "--fps -30" "--fps: -30 is out of range (1..1000)" --fps -30
refused "--fps 1001" "--fps: 1001 is out of range (1..1000)" --fps 1001
refused "--fps 1." "--fps: '1.' is not a whole number" --fps 1.
refused "--fps .5" "--fps: '.5' is not a whole number" --fps .5
refused "--fps 24/0" "--fps: '24/0' is not a whole number" --fps 24/0
refused "--fps +30" "--fps: '+30' is not a frame rate above 0 and at most 1000 like 30, \
30000/1001, 29.97, ntsc, pal or film" --fps +30
# --strength: at most 3 decimals, even zeros
refused "--strength 1.0000" "--strength: '1.0000' is not a strength 0 to 4 with at most 3 \
decimals (1: the heights as written)" --strength 1.0000
# --size: a whole number past the library's 10^18 but within 2^63-1 is out of range
refused "--size 2000000000000000000x5" \
    "--size: 2000000000000000000x5 is out of range (1..16384 per side)" -s 2000000000000000000x5
refused "--size 9223372036854775808x5" \
    "--size: '9223372036854775808x5' is not WIDTHxHEIGHT" -s 9223372036854775808x5
# --simd: the five levels only (simd128 is WebAssembly's name)
refused "--simd simd128" "--simd: unknown level 'simd128' (expected c, sse2, avx2, avx512, avx512icl)" \
    --simd simd128
# -t Nf is a time: not held to -n's 0..100000000
expect_status "-t 200000000f: exit 0" 0 "$R" --check -t 200000000f
if grep -qx "frames:     200000000 (6666666.667 s)" "$WORK/out"; then ok "-t 200000000f: frames"; else
    bad "-t 200000000f: frames (got '$(grep frames: "$WORK/out")')"
fi
refused "-n 100000001" "--frames: 100000001 is out of range (0..100000000)" -n 100000001
