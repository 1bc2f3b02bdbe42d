#!/usr/bin/env bash
# farm_names.sh - render-parallel and rockpool-join with outputs whose names begin with '-'
# (an output, a PNG pattern, an AOV pattern, a directory), as rockpool itself takes them:
# each is rendered and placed, frame for frame the single run's, and never read as an
# option of dirname, basename, printf, mkdir or ln ("dirname: invalid option -- 'x'", exit
# 1; an AOV pattern '-h_%02d.png' was "/: is a directory", exit 2).
source "$(dirname "$0")/lib.sh"

RP=$TOP/scripts/render-parallel
export ROCKPOOL
scene=$TOP/examples/rain.scene
opts=(-q -s 64x48 -n 10)

if ! command -v parallel >/dev/null; then
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
    exit 0
fi
decoded() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#'; }
# frames_equal A B: patterns A and B (frames 0..9) decode to the same pixels
frames_equal() {
    local f a b
    for ((f = 0; f < 10; f++)); do
        # shellcheck disable=SC2059 # a PNG pattern is a printf format
        printf -v a -- "$1" $f
        # shellcheck disable=SC2059
        printf -v b -- "$2" $f
        [ -f "$b" ] && cmp -s <(decoded "$a" | cut -d, -f6) <(decoded "$b" | cut -d, -f6) || return 1
    done
}
"$ROCKPOOL" "$scene" "${opts[@]}" -f framemd5 -o single.framemd5
"$ROCKPOOL" "$scene" "${opts[@]}" -o 'single_%02d.png' --aov height 'single_h_%02d.png'

expect_status "-o -x.framemd5: exit 0" 0 "$RP" -k 2 -j 2 -o -x.framemd5 -- "$scene" "${opts[@]}"
check "... the single run's manifest" cmp -s single.framemd5 ./-x.framemd5
expect_status "-o '-f_%02d.png' with --aov height '-h_%02d.png': exit 0" 0 "$RP" -k 2 -j 2 \
    -o '-f_%02d.png' -- "$scene" "${opts[@]}" --aov height '-h_%02d.png'
check "... the single run's frames" frames_equal 'single_%02d.png' './-f_%02d.png'
check "... and AOV frames" frames_equal 'single_h_%02d.png' './-h_%02d.png'
expect_status "in directories named '-d' and '-e' (created): exit 0" 0 "$RP" -k 2 -j 2 \
    -o '-d/f_%02d.png' -- "$scene" "${opts[@]}" --aov height '-e/h_%02d.png'
check "... the single run's frames" frames_equal 'single_%02d.png' './-d/f_%02d.png'
check "... and AOV frames" frames_equal 'single_h_%02d.png' './-e/h_%02d.png'
check "... and no work directory left" test -z "$(find . -name '.*chunks' -print -quit)"
# rockpool-join alone: PNG chunks (directories of frames named by the pattern) joined to
# '-g_%02d.png' (it takes the output as ./-g_%02d.png; the frames' names came from printf)
mkdir c0 c1
"$ROCKPOOL" "$scene" "${opts[@]}" --start 0 --end 5 -o 'c0/-g_%02d.png'
"$ROCKPOOL" "$scene" "${opts[@]}" --start 5 --end 10 -o 'c1/-g_%02d.png'
expect_status "rockpool-join -o '-g_%02d.png' c0 c1: exit 0" 0 "$TOP/scripts/rockpool-join" \
    --frames 10 -o '-g_%02d.png' c0 c1
check "... the single run's frames" frames_equal 'single_%02d.png' './-g_%02d.png'
