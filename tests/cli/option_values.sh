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

# --fps: one message for every refusal, the rule as the parser holds it (a rate above 0 and
# at most 1000, so 0.5 and 12.5 are rates; not "not a whole number", not "1..1000")
fps_msg() { echo "--fps: '$1' is not a frame rate above 0 and at most 1000 like 30, 12.5, 29.97, \
30000/1001, ntsc, pal or film"; }
for r in abc 0 -30 1001 1. .5 24/0 +30 0/1 1000.5 1001/1 12.1234567; do
    refused "--fps $r" "$(fps_msg "$r")" --fps "$r"
done
for r in 0.5 12.5 1000 2000/2 999.999999 ntsc-film; do
    expect_status "--fps $r: accepted" 0 "$R" --check -s 64x64 --fps "$r"
done
# --strength: at most 3 decimals but for trailing zeros, as a scene's `strength 1.0000`
refused "--strength 1.0005" "--strength: '1.0005' is not a strength 0 to 4 with at most 3 \
decimals (1: the heights as written)" --strength 1.0005
expect_status "--strength 1.0000: accepted, as in a scene" 0 "$R" --check -s 64x64 --strength 1.0000
# --size: a whole number past the library's 10^18 but within 2^63-1 is out of range
refused "--size 2000000000000000000x5" \
    "--size: 2000000000000000000x5 is out of range (1..16384 per side)" -s 2000000000000000000x5
refused "--size 9223372036854775808x5" \
    "--size: '9223372036854775808x5' is not WIDTHxHEIGHT" -s 9223372036854775808x5
# --simd: the five levels only (simd128 is WebAssembly's name)
refused "--simd simd128" "--simd: unknown level 'simd128' (expected c, sse2, avx2, avx512, avx512icl)" \
    --simd simd128
# -y and -n together: FFmpeg refuses them, and rockpool took the last (either order)
for pair in "-y -n" "-n -y" "--overwrite --no-overwrite"; do
    # shellcheck disable=SC2086 # the pair is two options
    refused "$pair" "-y (--overwrite) and -n (--no-overwrite) are both given: give one" $pair
done
# -t Nf is held to -n's 0..100000000 (and a time to the scene's 0s..1000000s), naming -t
refused "-t 200000000f" "-t: 200000000f is out of range (1f..100000000f)" -t 200000000f
expect_status "-t 100000000f: exit 0" 0 "$R" --check -t 100000000f
if grep -qx "frames:     100000000 (3333333.333 s)" "$WORK/out"; then ok "-t 100000000f: frames"; else
    bad "-t 100000000f: frames (got '$(grep frames: "$WORK/out")')"
fi
refused "-n 100000001" "--frames: 100000001 is out of range (1..100000000)" -n 100000001
# -v: the refusal names every level that is accepted, and FFmpeg's nine names are accepted
refused "-v bogus" "--loglevel: unknown level 'bogus' (expected quiet, panic, fatal, error, \
warning, info, verbose, debug, trace or -8..56)" -v bogus
for l in quiet panic fatal error warning info verbose debug trace -8 56; do
    expect_status "-v $l: accepted" 0 "$R" --check -s 64x64 -n 1 -v "$l"
done
refused "-v 57" "--loglevel: unknown level '57' (expected quiet, panic, fatal, error, \
warning, info, verbose, debug, trace or -8..56)" -v 57
# -o: the "cannot tell the output format" message names every extension the program takes
# (each one then renders a frame), and a name it does not take is refused with it
expect_status "-o x.md5: exit 2" 2 "$R" --check -s 64x64 -n 1 -o x.md5
stderr_has "-o x.md5: what is wrong" "cannot tell the output format of 'x.md5'"
exts=$(grep -o 'ending in [^(]*' "$WORK/err" | grep -oE '\.[a-z0-9]+' | sort -u | tr '\n' ' ')
check "-o x.md5: the message names 11 extensions ($exts)" test "$(echo $exts | wc -w)" -eq 11
for e in $exts; do
    expect_status "-o a$e (named by the message): renders" 0 "$R" -q -y -s 64x64 -n 1 -o "a$e"
done

# --job-id says the crf the encoder is given where no --crf was given (31 for VP9, not the
# 23 of x264); a given one as given.
printf 'size 64x36\nduration 4f\nat 0s drop 50%% 50%% radius 6 height 900\n' >jid.scene
check "--job-id without --crf, .webm: crf=31" \
    test "$("$ROCKPOOL" jid.scene -o jid.webm --job-id | sed -n 's/^option: *crf=//p')" = 31
check "--job-id with --crf 20: crf=20" \
    test "$("$ROCKPOOL" jid.scene -o jid.webm --crf 20 --job-id | sed -n 's/^option: *crf=//p')" = 20

# An option given as the value the render takes anyway is the same job as leaving it out,
# and one that changes the output is another: each pair's options digests are compared
# with the files the two command lines render (cmp), which decide.
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)
have() { grep -qE "^ V[^ ]* +$1 " <<<"$encoders"; }
job_pair() { # NAME same|other OUTPUT "ARGS A" "ARGS B"
    local name=$1 want=$2 out=$3 a b ja jb
    read -r -a a <<<"$4"
    read -r -a b <<<"$5"
    ja=$("$ROCKPOOL" jid.scene -o "$out" "${a[@]}" --job-id | sed -n 's/^options: *//p')
    jb=$("$ROCKPOOL" jid.scene -o "$out" "${b[@]}" --job-id | sed -n 's/^options: *//p')
    rm -f "a.$out" "b.$out"
    "$ROCKPOOL" -q jid.scene -o "a.$out" "${a[@]}" && "$ROCKPOOL" -q jid.scene -o "b.$out" "${b[@]}"
    if [ -z "$ja" ] || [ -z "$jb" ] || [ ! -s "a.$out" ] || [ ! -s "b.$out" ]; then
        bad "$name: no digest or no file"
    elif [ "$want" = same ] && [ "$ja" = "$jb" ] && cmp -s "a.$out" "b.$out"; then
        ok "$name: the same job, the same bytes"
    elif [ "$want" = other ] && [ "$ja" != "$jb" ] && ! cmp -s "a.$out" "b.$out"; then
        ok "$name: another job, other bytes"
    else
        bad "$name: digests $([ "$ja" = "$jb" ] && echo equal || echo differ), files $(cmp -s \
            "a.$out" "b.$out" && echo equal || echo differ); wanted $want"
    fi
}
job_pair "mp4, x264's defaults given" same x.mp4 "" \
    "-c libx264 --crf 23 --encoder-preset medium --pix-fmt yuv420p"
job_pair "mp4, --crf 24" other x.mp4 "" "--crf 24"
job_pair "mp4, --encoder-preset fast" other x.mp4 "" "--encoder-preset fast"
job_pair "mp4, --pix-fmt yuv444p" other x.mp4 "" "--pix-fmt yuv444p"
job_pair "mp4, -b 200k" other x.mp4 "" "-b 200k"
job_pair "webm, VP9's defaults given" same x.webm "" "-c libvpx-vp9 --crf 31 --pix-fmt yuv420p"
job_pair "webm, --crf 30" other x.webm "" "--crf 30"
job_pair "mkv, mpeg4's quantiser as default" other x.mkv "-c mpeg4" "-c mpeg4 -b 300k"
if have libx265; then
    job_pair "mov, x265's preset and crf given" same x.mov "-c libx265" \
        "-c libx265 --encoder-preset medium --crf 28"
    job_pair "mov, x265 at --crf 29" other x.mov "-c libx265" "-c libx265 --crf 29"
fi
job_pair "y4m, yuv420p given" same x.y4m "" "--pix-fmt yuv420p"
job_pair "y4m, yuv444p" other x.y4m "" "--pix-fmt yuv444p"
job_pair "framehash, md5 given" same x.framehash "" "--hash-algo MD5"
job_pair "framehash, sha256" other x.framehash "" "--hash-algo sha256"
# --no-audio: another job only where there is sound to leave out
ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -f lavfi \
    -i sine=frequency=440:duration=1 -c:v ffv1 -c:a flac -shortest snd.mkv
ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=10:duration=1 -c:v ffv1 mute.mkv
job_pair "mp4, --no-audio over the built-in picture" same x.mp4 "" "--no-audio"
job_pair "mkv, --no-audio over a video with sound" other x.mkv "-i snd.mkv" "-i snd.mkv --no-audio"
job_pair "mkv, --no-audio over a video without sound" same x.mkv "-i mute.mkv" \
    "-i mute.mkv --no-audio"
job_pair "gif, --no-audio over a video with sound (a GIF has none)" same x.gif "-i snd.mkv" \
    "-i snd.mkv --no-audio"
job_pair "framemd5, encoder options reach nothing" same x.framemd5 "" \
    "-c libx265 --crf 40 --encoder-preset slow --pix-fmt yuv444p -b 100k"
# what the render refuses, --job-id refuses (exit 2, nothing printed on stdout)
expect_status "--job-id with an unknown -c: exit 2" 2 "$R" jid.scene -o x.mp4 -c nosuch --job-id
stderr_has "--job-id with an unknown -c: the message" "unknown video encoder 'nosuch'"
check "--job-id with an unknown -c: nothing on stdout" test ! -s "$WORK/out"

# ---- a file option given twice: ffmpeg writes both; rockpool writes one, and took the last
# without a word (red team). Refused, naming both, nothing written; the same file twice is
# one request.
for o in -o --output --stats --dump-heights --save-state; do
    rm -f two_a two_b
    out=(-o two.y4m) && case $o in -o | --output) out=() ;; esac
    expect_status "$o given twice: exit 2" 2 "$R" jid.scene -y ${out[@]+"${out[@]}"} "$o" two_a \
        "$o" two_b
    stderr_has "$o given twice: names both" "${o/--output/-o} is given twice ('two_a', then 'two_b')"
    check "$o given twice: nothing written" test ! -e two_a -a ! -e two_b -a ! -e two.y4m
done
expect_status "-o given twice, the same file: exit 0" 0 "$R" -q jid.scene -o two.y4m -o two.y4m
check "... written" test -s two.y4m
