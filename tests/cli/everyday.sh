#!/usr/bin/env bash
# everyday.sh - what a new user meets first: the bars of --fit contain stay black (and
# transparent with --alpha) over a still and a video; FFmpeg's spellings (-ss, -t, -to,
# -frames:v, -c:v, -vcodec, -pix_fmt, -crf, -v/-loglevel, ...) mean what they mean to ffmpeg,
# and each time form (units for -t, --start and --end) gives the same frames as its
# frame-number form; -vf and the like say how to pipe into ffmpeg, and a mistyped option
# gets "did you mean"; no arguments at all give a short usage (exit 2, nothing rendered);
# encoder defaults, where the file went, single stills, photo sizes, colour tags,
# --check and --verify-ref; a scene without statements is warned of.
# Pixels are read back with ffmpeg and counted by Python; expected rectangles are worked
# out by hand from the sizes.
source "$(dirname "$0")/lib.sh"

# rgb FILE [PIX_FMT]: the frame's raw bytes on stdout (rgb24 unless PIX_FMT)
rgb() { ffmpeg -v error -i "$1" -frames:v 1 -f rawvideo -pix_fmt "${2:-rgb24}" -; }

# ---- --fit contain: the bars are not water ------------------------------------------------
# A square picture in a 320x180 frame is drawn 180x180 at x = 70: bars 0..69 and 250..319.
# Drops on both bars and inside would light the bars where they are taken for water.
printf 'size 320x180\nfps 30\nduration 20f\nseed 5\nat 0s drop 5%% 50%% radius 20 height 3000
at 0s drop 95%% 20%% radius 20 height 3000\nat 0s drop 50%% 50%% radius 20 height 3000\n' >c.scene
ffmpeg -v error -f lavfi -i testsrc2=size=320x320 -frames:v 1 sq.png
ffmpeg -v error -f lavfi -i testsrc2=size=320x320:rate=30 -frames:v 20 -pix_fmt yuv420p sq.mp4
bars() { # NAME RAW BPP: every byte of the bars is 0, the picture has lit pixels
    check "$1" python3 - "$2" "$3" <<'PY'
import sys
d, bpp, W, H = open(sys.argv[1], "rb").read(), int(sys.argv[2]), 320, 180
assert len(d) == W * H * bpp, len(d)
px = lambda x, y: d[(y * W + x) * bpp:(y * W + x + 1) * bpp]
bars = [x for x in range(W) if x < 70 or x >= 250]
lit = sum(1 for y in range(H) for x in bars if any(px(x, y)))
assert lit == 0, "%d bar pixels are not black" % lit
assert sum(1 for y in range(H) for x in range(70, 250) if any(px(x, y))) > 0
PY
}
for bg in sq.png sq.mp4; do
    "$ROCKPOOL" -q c.scene -i "$bg" --fit contain --start 12 --end 13 -o "c-${bg/./-}-%02d.png"
    rgb "c-${bg/./-}-12.png" >c.rgb
    bars "--fit contain over $bg: the bars stay black" c.rgb 3
    "$ROCKPOOL" -q c.scene -i "$bg" --fit contain --alpha --start 12 --end 13 \
        -o "a-${bg/./-}-%02d.png"
    rgb "a-${bg/./-}-12.png" rgba >a.rgb
    bars "--fit contain --alpha over $bg: the bars stay transparent" a.rgb 4
done

# ---- FFmpeg's spellings ---------------------------------------------------------------------
# Frame numbers by hand at 30 fps: 1 s is frame 30, 1.5 s frame 45, the 3 s timeline ends
# at frame 90.
printf 'size 64x48\nfps 30\nduration 3s\nseed 5\nat 0s drop 32 24 radius 5 height 1500
at 0.1s..3s rain rate 20/s radius 2..4 height 300..900\n' >h.scene
H() { "$ROCKPOOL" -q h.scene --hash "$@"; }
frames() { # NAME WANT OPTION...: the frames --hash writes are WANT
    local name=$1 want=$2
    shift 2
    local got
    got=$(H "$@" 2>&1 | awk '{ print $1 }' | tr '\n' ' ')
    if [ "$got" = "$want " ]; then ok "$name"; else bad "$name (got '$got', wanted '$want')"; fi
}
frames "-ss 1 -frames:v 3: frames 30..32" "30 31 32" -ss 1 -frames:v 3
# past the timeline's end (h.scene is 90 frames): -ss S -t T writes up to its last frame, as
# -frames:v does (rockpool(1)); -to is --end, refused there
frames "-ss 2.9 -t 100: frames 87..89 (the timeline ends first)" "87 88 89" -ss 2.9 -t 100
frames "-ss 87f -frames:v 100: frames 87..89" "87 88 89" -ss 87f -frames:v 100
expect_status "-ss 2.9 -to 100 (past the end): exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 2.9 \
    -to 100
stderr_has "-to past the end: says so" "is past the last frame"
# A range written otherwise than as frame numbers is named as written, with the frame it
# means (h.scene: 90 frames at 30 fps; 4 s is frame 120, -to 100 is --end 3000,
# --frame-range 85-95 is --end 96); it said '--start 120', which the command line never gave.
stderr_has "-to past the end: -to as written, and its --end" \
    "-to 100 (--end 3000) is past the last frame (the timeline has 90 frames)"
expect_status "--start 4s past the end: exit 2" 2 "$ROCKPOOL" -q h.scene --hash --start 4s
stderr_has "--start 4s: named as written, and its frame" \
    "--start 4s (frame 120) is past the last frame (the timeline has 90 frames, 0 to 89)"
expect_status "-ss 00:00:04 past the end: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 00:00:04
stderr_has "-ss 00:00:04: named as written" "-ss 00:00:04 (frame 120) is past the last frame"
expect_status "--frame-range 85-95 past the end: exit 2" 2 "$ROCKPOOL" -q h.scene --hash \
    --frame-range 85-95
stderr_has "--frame-range 85-95: named as written, and its --end" \
    "--frame-range 85-95 (--end 96) is past the last frame (the timeline has 90 frames)"
expect_status "-ss 2 -to 1: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 2 -to 1
stderr_has "-ss 2 -to 1: both as written" "-ss 2 (frame 60) is past -to 1 (--end 30)"
# -t with -to: ffmpeg uses -t (30 frames for -ss 0.1 -to 0.2 -t 1); rockpool ended at the
# earlier (3 frames), with no word. Refused in either order, with -ss or without.
for o in "-ss 0.1 -to 0.2 -t 1" "-t 1 -ss 0.1 -to 0.2" "-to 0.2 -t 1"; do
    read -ra args <<<"$o"
    expect_status "$o: exit 2" 2 "$ROCKPOOL" -q h.scene --hash "${args[@]}"
    stderr_has "$o: says so" "-t and -to are both given (ffmpeg would use -t and ignore -to)"
done
# ... also where the session finds it later: a checkpoint of frame 59's end loaded at an
# earlier --start given as a time (0.5 s is frame 15)
"$ROCKPOOL" -q h.scene -n 60 --save-state h60.bin --hash >/dev/null
expect_status "--load-state past --start 0.5s: exit 2" 2 "$ROCKPOOL" -q h.scene \
    --load-state h60.bin --start 0.5s --hash
stderr_has "... names --start 0.5s as written, and its frame" "after --start 0.5s (frame 15): give"
# ... and an empty range written with FFmpeg's spellings is said as written: it was 'the range
# has no frames: --start and --end are both 3', options the command line never gave
expect_status "-frames:v 0: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 0.1 -frames:v 0
stderr_has "... -frames:v's range" "error: -frames:v: 0 is out of range (1..100000000)"
# ... by the spelling typed: -vframes, -frames and --vframes were all named -frames:v
for v in -vframes -frames --vframes; do
    expect_status "$v 0: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 0.1 "$v" 0
    stderr_has "... named $v, as typed" "error: $v: 0 is out of range (1..100000000)"
done
expect_status "-vframes x after the scene: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -vframes x
stderr_has "... named -vframes" "error: -vframes: 'x' is not a whole number"
# A start past a short timeline with -t or -frames:v is past its last frame, not past an --end
# never given ('-ss 1 -t 0.5' on 3 frames said "-ss 1 (frame 30) is past --end 3")
for w in "-t 0.5" "-frames:v 2"; do
    expect_status "-ss 1 $w, 3 frames: exit 2" 2 "$ROCKPOOL" -q h.scene -n 3 --hash -ss 1 $w
    stderr_has "... past the last frame" \
        "error: -ss 1 (frame 30) is past the last frame (the timeline has 3 frames, 0 to 2)"
    check "... naming no --end" sh -c "! grep -q -- '--end' '$WORK/err'"
done
expect_status "--start 5 -frames:v 2, 3 frames: exit 2" 2 "$ROCKPOOL" -q h.scene -n 3 --hash \
    --start 5 -frames:v 2
stderr_has "... past the last frame" "error: --start 5 is past the last frame (the timeline has 3"
expect_status "-ss 0.05 -t 1 on 3 frames: frames 1 and 2 (the end at the timeline's)" 0 \
    "$ROCKPOOL" -q h.scene -n 3 --hash -ss 0.05 -t 1
check "... 2 hash lines, frames 1 and 2" test "$(awk '{ printf "%s ", $1 }' "$WORK/out")" = "1 2 "
expect_status "-ss 0.1 -t 0: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -ss 0.1 -t 0
stderr_has "... says -t 0 from -ss writes no frame" "error: -ss with -t 0 writes no frame"
check "... naming no --start or --end" sh -c "! grep -q -- '--start and --end' '$WORK/err'"
expect_status "--start 95 (a frame number): exit 2" 2 "$ROCKPOOL" -q h.scene --hash --start 95
stderr_has "--start 95: as before, a frame number named as it is" \
    "error: --start 95 is past the last frame (the timeline has 90 frames, 0 to 89)"
frames "-ss 00:00:01 -vframes 3: frames 30..32" "30 31 32" -ss 00:00:01 -vframes 3
frames "-ss 0:01.5 -frames 2: frames 45, 46" "45 46" -ss 0:01.5 -frames 2
# --start and --end take the clock form -ss takes (rockpool(1)); it was refused there.
# A bare number stays a frame.
frames "--start 00:00:01.5 --end 0:01.6: frames 45..47" "45 46 47" --start 00:00:01.5 \
    --end 0:01.6
frames "--start 00:00:00.5 -frames:v 2: frames 15, 16" "15 16" --start 00:00:00.5 -frames:v 2
frames "--start 45 --end 47: frames 45, 46 (a bare number is a frame)" "45 46" --start 45 \
    --end 47
expect_status "--start 1:00f (a clock with a unit) is refused" 2 "$ROCKPOOL" -q h.scene --hash \
    --start 1:00f
frames "-ss 1.5 -t 0.1: 0.1 s from 1.5 s" "45 46 47" -ss 1.5 -t 0.1
frames "-ss 2.9 -t 5: to the timeline's end" "87 88 89" -ss 2.9 -t 5
# with -ss, -t is a span and -n still the timeline's length, whichever comes first
frames "-ss 1.9 -t 5 -n 60: to -n's end" "57 58 59" -ss 1.9 -t 5 -n 60
frames "-n 60 -ss 1.9 -t 5: to -n's end" "57 58 59" -n 60 -ss 1.9 -t 5
frames "-n 60 -ss 1.9 -t 0.1: 0.1 s from 1.9 s" "57 58 59" -n 60 -ss 1.9 -t 0.1
frames "-n 60 -t 0.1: the last given is the timeline" "0 1 2" -n 60 -t 0.1
frames "-to 0.1: frames 0..2" "0 1 2" -to 0.1
frames "-ss 1 -to 1.1: frames 30..32" "30 31 32" -ss 1 -to 1.1
frames "-frames:v 2: frames 0, 1" "0 1" -frames:v 2
# -ss and -to take rockpool's frame unit as --start and --end do (45f is frame 45, not
# ignored), and -ss S -t T writes ceil(T x fps) frames from the frame S falls in, as -t T
# alone covers: -ss 0 -t 0.11 is -t 0.11's ceil(3.3) = 4 frames, a span within one frame is
# that frame, and at 30000/1001 fps -ss 1 -t 1 is ceil(29.97) = 30 frames from frame
# floor(29.97) = 29.
frames "-ss 45f -frames:v 2: frames 45, 46" "45 46" -ss 45f -frames:v 2
frames "-to 3f: frames 0..2" "0 1 2" -to 3f
frames "-ss 45f -to 48f: frames 45..47" "45 46 47" -ss 45f -to 48f
frames "-ss 45f -t 0.1: 0.1 s from frame 45" "45 46 47" -ss 45f -t 0.1
frames "-ss 1 --start 45 -t 0.1: 0.1 s from frame 45" "45 46 47" -ss 1 --start 45 -t 0.1
# and the other way round: a time replaces an earlier frame number, before the times are
# resolved too (the range 3..3, or 4..3, was refused: "the range has no frames", "-ss 0
# (frame 4) is past --end 3")
frames "--start 3 -ss 0 --end 3: frames 0..2" "0 1 2" --start 3 -ss 0 --end 3
frames "--start 4 -ss 0 --end 3: frames 0..2" "0 1 2" --start 4 -ss 0 --end 3
frames "--end 2 -to 0.1 --start 2: frames 2" "2" --end 2 -to 0.1 --start 2
frames "-t 0.11: ceil(3.3) = 4 frames" "0 1 2 3" -t 0.11
frames "-ss 0 -t 0.11: the frames of -t 0.11" "0 1 2 3" -ss 0 -t 0.11
frames "-ss 1 -t 0.11: frames 30..33" "30 31 32 33" -ss 1 -t 0.11
frames "-ss 1 -t 0.01: frame 30, the span's one frame" "30" -ss 1 -t 0.01
check "-r ntsc -ss 1 -t 1: 30 frames from frame 29" \
    test "$(H -r ntsc -ss 1 -t 1 | awk 'NR == 1 { f = $1 } END { print f, NR }')" = "29 30"
check "-ss 1 -frames:v 3 hashes equal --start 30 --end 33" \
    test "$(H -ss 1 -frames:v 3)" = "$(H --start 30 --end 33)"
check "-seed 3 is --seed 3" test "$(H -n 3 -seed 3)" = "$(H -n 3 --seed 3)"
check "-threads 2 -hide_banner -nostdin: the frames of -j 1" \
    test "$(H -n 4 -threads 2 -hide_banner -nostdin)" = "$(H -n 4 -j 1)"
check "-seed 3 differs from the default seed (the check can fail)" \
    test "$(H -n 30 -seed 3)" != "$(H -n 30)"
# --seed takes what the scene's seed line takes: hexadecimal after 0x (0x2a is 42, as the
# scene's 'seed 0x2a' and 'seed 42' are), and a bad one is refused with the forms it takes
check "--seed 0x2a is --seed 42" test "$(H -n 30 --seed 0x2a)" = "$(H -n 30 --seed 42)"
check "--seed 0x2a is not --seed 43 (the check can fail)" \
    test "$(H -n 30 --seed 0x2a)" != "$(H -n 30 --seed 43)"
sed 's/^seed 5$/seed 0x2a/' h.scene >h42.scene
check "--seed 0x2a is the scene's 'seed 0x2a'" \
    test "$(H -n 30 --seed 0x2a)" = "$("$ROCKPOOL" -q h42.scene --hash -n 30)"
expect_status "--seed 0xg: exit 2" 2 "$ROCKPOOL" -q h.scene --seed 0xg --check
stderr_has "--seed 0xg: the forms it takes" \
    "--seed: '0xg' is not a whole number 0..18446744073709551615 (decimal, or hexadecimal after 0x)"
R() { "$ROCKPOOL" -q h.scene -n 3 "$@"; }
R -c:v libx264 -crf 30 -preset ultrafast -o a.mp4
R --codec libx264 --crf 30 --encoder-preset ultrafast -o b.mp4
check "-c:v -crf -preset equal --codec --crf --encoder-preset (bytes)" cmp -s a.mp4 b.mp4
R -crf 40 -preset ultrafast -o c.mp4
differ "-crf reaches the encoder (another CRF, other bytes)" a.mp4 c.mp4
R -b:v 50k -codec:v libx264 -o d.mp4
R --bitrate 50k -o e.mp4
check "-b:v equals --bitrate (bytes)" cmp -s d.mp4 e.mp4
# FFmpeg's decimals before a suffix: -b:v 1.5M is 1500k (it was refused as not a rate).
R -b:v 0.05M -o f.mp4
check "-b:v 0.05M equals 50k (bytes)" cmp -s e.mp4 f.mp4
expect_status "-b 1.0005k (half a bit a second) is refused" 2 "$ROCKPOOL" -q h.scene -n 3 \
    -b 1.0005k -o g.mp4
stderr_has "... as not a rate" "is not a rate like"
# a plain count of bits over 10^9 is as good as its G (2000000000 was refused while 2G was
# taken), and zeros past the ninth decimal change nothing
bitrate_of() { "$ROCKPOOL" --job-id -q h.scene -n 3 -b "$1" -o jb.mp4 2>&1 | tr ' ' '\n' |
    sed -n 's/^bitrate=//p'; }
check "-b 2000000000 is 2G" test "$(bitrate_of 2000000000)" = "$(bitrate_of 2G)"
check "-b 1.5000000000M is 1.5M" test "$(bitrate_of 1.5000000000M)" = 1500000
expect_status "-b 1.0000000001G (a tenth of a bit) is refused" 2 "$ROCKPOOL" -q h.scene -n 3 \
    -b 1.0000000001G -o g.mp4
ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=30 -f lavfi -i sine=sample_rate=48000 \
    -t 0.2 -c:v libx264 -pix_fmt yuv420p -c:a aac snd.mp4
R -i snd.mp4 -an -o an.mkv
check "-an: a video without an audio stream" test -s an.mkv -a -z "$(ffprobe -v error \
    -select_streams a -show_entries stream=index -of csv=p=0 an.mkv)"
R -i snd.mp4 -o with.mkv
check "... which is there without -an" test -n "$(ffprobe -v error -select_streams a \
    -show_entries stream=index -of csv=p=0 with.mkv)"
cp a.mp4 keep.mp4
expect_status "-n: an existing output is refused" 2 "$ROCKPOOL" -q h.scene -n 3 -o a.mp4 -n
check "-n: the file is unchanged" cmp -s a.mp4 keep.mp4
expect_status "-y: an existing output is replaced" 0 "$ROCKPOOL" -q h.scene -n 4 -o a.mp4 -y
check "-n 4 still means 4 frames" test "$(probe a.mp4 nb_read_frames)" = 4
for o in -vf -filter_complex -map -af; do
    expect_status "$o: exit 2" 2 "$ROCKPOOL" h.scene "$o" x -o v.mp4
    stderr_has "$o: says how to pipe into ffmpeg" "rockpool SCENE -o - | ffmpeg -i - $o"
done
check "-vf: nothing written" test ! -e v.mp4
expect_status "-c:a: exit 2" 2 "$ROCKPOOL" h.scene -c:a mp3 -o v.mp4
stderr_has "-c:a: says how to re-mux" "-c:v copy -c:a"
expect_status "--frmaes 3: exit 2" 2 "$ROCKPOOL" h.scene --frmaes 3
stderr_has "--frmaes: did you mean --frames" "did you mean --frames?"
expect_status "--ovewrite: exit 2" 2 "$ROCKPOOL" h.scene --ovewrite
stderr_has "--ovewrite: did you mean --overwrite" "did you mean --overwrite?"
expect_status "--zzzzzz: exit 2" 2 "$ROCKPOOL" h.scene --zzzzzz
check "--zzzzzz: no guess" sh -c '! grep -q "did you mean" err'
# A value given to an option that takes none, and an abbreviation of several options, are
# said as such (not a garbled "unknown option '-<byte>'", nor "unknown" for a prefix).
for a in --hash=1 --overwrite=yes --alp=1; do
    expect_status "$a: exit 2" 2 "$ROCKPOOL" h.scene -n 2 "$a" -o v.mp4
done
stderr_has "--alp=1: the option it abbreviates takes no value" \
    "option '--alpha' takes no value (got '--alp=1')"
"$ROCKPOOL" h.scene --hash=1 2>err.txt
check "--hash=1: the option takes no value" grep -qF "option '--hash' takes no value (got '--hash=1')" err.txt
"$ROCKPOOL" h.scene --overwrite=yes 2>err.txt
check "--overwrite=yes: the option takes no value" grep -qF "option '--overwrite' takes no value" err.txt
expect_status "--ver (--verify..., --version): exit 2" 2 "$ROCKPOOL" h.scene --ver
stderr_has "--ver: ambiguous, with what it abbreviates" \
    "option '--ver' is ambiguous: it abbreviates --verify, --verify-dir, --verify-ref, --version"
expect_status "--has (--hash, --hash-algo): exit 2" 2 "$ROCKPOOL" h.scene --has -n 2
stderr_has "--has: ambiguous" "option '--has' is ambiguous: it abbreviates --hash, --hash-algo"
check "no video from the refused runs" test ! -e v.mp4
expect_status "--vers (--version alone): still the version" 0 "$ROCKPOOL" --vers
# An empty path or name (an unset variable: -i "$BG") is refused before anything is done, not
# taken for the built-in texture or a default, nor found out after the render (--stats '').
for opt in -i --stats --dump-heights --save-state --load-state --verify --verify-ref \
    --hash-algo --encoder-preset; do
    expect_status "$opt '': exit 2" 2 timeout 20 "$ROCKPOOL" h.scene -n 100000 "$opt" '' -o v.mp4
    stderr_has "$opt '': says it is empty" "${opt/#-i/--input}: the "
done
check "no video from the empty arguments' runs" test ! -e v.mp4
expect_status "-ss 1:75 (seconds past 59): exit 2" 2 "$ROCKPOOL" h.scene --hash -ss 1:75

# ---- times with units: each gives the frames of its frame-number form -------------------
same() { # NAME, then the two option lists separated by '::'
    local name=$1 a=() b=() side=a
    shift
    for x in "$@"; do
        if [ "$x" = :: ]; then side=b; elif [ $side = a ]; then a+=("$x"); else b+=("$x"); fi
    done
    H "${a[@]}" >a.txt 2>a.err
    H "${b[@]}" >b.txt 2>b.err
    if [ -s a.txt ] && cmp -s a.txt b.txt; then ok "$name"; else
        bad "$name ($(wc -l <a.txt) and $(wc -l <b.txt) lines)"
        head -3 a.err b.err
    fi
}
same "-t 2s equals -n 60" -t 2s :: -n 60
same "-t 2 (seconds, as FFmpeg reads it) equals -n 60" -t 2 :: -n 60
same "-t 500ms equals -n 15" -t 500ms :: -n 15
same "-t 1.5s equals -n 45" -t 1.5s :: -n 45
same "-t 10f equals -n 10" -t 10f :: -n 10
same "--start 2s equals --start 60" --start 2s :: --start 60
same "--start 2s --end 2500ms equals --start 60 --end 75" --start 2s --end 2500ms :: \
    --start 60 --end 75
same "--end 0.1s equals --end 3" --end 0.1s :: --end 3
same "--start 1.01s (inside frame 30) equals --start 30" --start 1.01s :: --start 30
check "--start 2s writes frames 60.." test "$(H --start 2s --end 2100ms | cut -d' ' -f1 |
    tr '\n' ' ')" = "60 61 62 "
expect_status "--start 4s past the 3 s timeline: exit 2" 2 "$ROCKPOOL" -q h.scene --hash \
    --start 4s
stderr_has "--start 4s: says why" "past"
expect_status "--start 2.5f: exit 2" 2 "$ROCKPOOL" -q h.scene --hash --start 2.5f
expect_status "-t 2x: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -t 2x
stderr_has "-t 2x: names the option" "-t: '2x'"
expect_status "-t 0.0000001s: exit 2" 2 "$ROCKPOOL" -q h.scene --hash -t 0.0000001s
check "--check shows -t 1500ms as 45 frames" sh -c "'$ROCKPOOL' h.scene -t 1500ms --check |
    grep -q '^frames: *45 '"

# ---- -v / -loglevel ----------------------------------------------------------------------
H -n 3 >m.txt
expect_status "-v info: verify prints its count" 0 "$ROCKPOOL" -v info h.scene -n 3 --verify m.txt
stderr_has "-v info: the count" "3 frames match"
expect_status "-loglevel quiet: exit 0" 0 "$ROCKPOOL" -loglevel quiet h.scene -n 3 --verify m.txt
check "-loglevel quiet: nothing on stderr" test ! -s err
expect_status "-v error: exit 0" 0 "$ROCKPOOL" -v error h.scene -n 3 --verify m.txt
check "-v error: nothing on stderr" test ! -s err
expect_status "-v warning: exit 0" 0 "$ROCKPOOL" -v warning h.scene -n 3 --verify m.txt
check "-v warning: no count (an info message)" test ! -s err
expect_status "--loglevel 32 (FFmpeg's number for info)" 0 "$ROCKPOOL" --loglevel 32 h.scene \
    -n 3 --verify m.txt
stderr_has "--loglevel 32: the count" "3 frames match"
H -n 1 >m1.txt
expect_status "-v info: verify of one frame" 0 "$ROCKPOOL" -v info h.scene -n 1 --verify m1.txt
stderr_has "-v info: one frame matches (singular)" "1 frame matches"
expect_status "-v loud: exit 2" 2 "$ROCKPOOL" -v loud h.scene -n 3 --hash
stderr_has "-v loud: lists the levels" "quiet, panic, fatal, error, warning, info, verbose, debug, trace"
expect_status "-v error still prints errors" 2 "$ROCKPOOL" -v error h.scene --start 4s --hash
stderr_has "-v error: the error" "error:"

# ---- -pix_fmt, -vcodec -------------------------------------------------------------------
expect_status "-pix_fmt yuv444p -vcodec ffv1: exit 0" 0 "$ROCKPOOL" -q h.scene -n 3 \
    -pix_fmt yuv444p -vcodec ffv1 -o a.mkv
check "-pix_fmt reaches the encoder" test "$(probe a.mkv pix_fmt)" = yuv444p
check "-vcodec reaches the encoder" test "$(probe a.mkv codec_name)" = ffv1
"$ROCKPOOL" -q h.scene -n 3 --pix-fmt yuv444p --codec ffv1 -o b.mkv
decoded() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#'; }
check "-pix_fmt/-vcodec decode to the frames of --pix-fmt/--codec" test \
    "$(decoded a.mkv)" = "$(decoded b.mkv)" -a "$(probe b.mkv pix_fmt)" = yuv444p
expect_status "-vcodec with an unknown encoder: exit 2" 2 "$ROCKPOOL" -q h.scene -n 3 \
    -vcodec nosuchcodec -o c.mkv
stderr_has "-vcodec unknown: names it" "nosuchcodec"
expect_status "an alias after -- is a scene name: exit 2" 2 "$ROCKPOOL" -q -n 3 --hash -- -pix_fmt
stderr_has "an alias after --: read as a file" "-pix_fmt: cannot read scene"
expect_status "an alias as an option's argument is left alone" 2 "$ROCKPOOL" -q -n 3 \
    --preset -vcodec h.scene
# ... and, an option of rockpool's where a value belongs, is said to be one as typed (it was
# "unknown preset '-vcodec'")
stderr_has "an alias as an argument: said as typed" \
    "option '--preset' needs an argument, not the option '-vcodec' after it"

# ---- no arguments ------------------------------------------------------------------------
mkdir empty && cd empty || exit 1
expect_status "no arguments: exit 2" 2 "$ROCKPOOL"
stderr_has "no arguments: a usage line" "Usage: rockpool"
stderr_has "no arguments: points at --help" "--help"
check "no arguments: nothing on stdout" test ! -s "$WORK/out"
check "no arguments: nothing rendered" test -z "$(ls -A)"
expect_status "--help fits a screen (40 lines)" 0 sh -c "test \$('$ROCKPOOL' --help | wc -l) -le 40"
expect_status "--help names exit status 3" 0 sh -c "'$ROCKPOOL' --help | grep -q '3 a frame'"
cd .. || exit 1

# --check opens and checks every input, even when the size is given.
printf 'size 64x48\nat 0s wall mask nosuch.png\n' >cm.scene
expect_status "--check: a missing wall mask is exit 2" 2 "$ROCKPOOL" cm.scene --check
stderr_has "--check: names the mask" "nosuch.png"
printf 'not an image\n' >notimage.png
expect_status "--check -s given: a bad background is exit 2" 2 "$ROCKPOOL" cm.scene \
    -i notimage.png -s 64x48 --check

# ---- encoder defaults: FFmpeg's (x264 CRF 23, preset medium) ------------------------------
# x264 writes its settings into the stream (an SEI): read there, not from rockpool.
x264opts() { strings "$1" | grep -o 'x264 - core.*' | head -n 1; }
R -o d23.mp4
check "default MP4: x264 says crf=23.0" grep -q ' crf=23\.0 ' <(x264opts d23.mp4)
check "default MP4: x264's medium preset (subme=7 ref=3)" \
    grep -q ' ref=3 .* subme=7 ' <(x264opts d23.mp4)
R --crf 18 -o d18.mp4
check "--crf 18: x264 says crf=18.0" grep -q ' crf=18\.0 ' <(x264opts d18.mp4)
if "$ROCKPOOL" -q h.scene -n 3 -c libx265 -o d28.mp4 2>/dev/null; then
    check "libx265 default: crf=28.0 in its SEI" grep -q 'crf=28\.0' <(strings d28.mp4)
fi
R -o v.webm
R --crf 31 -o v31.webm
R --crf 30 -o v30.webm
check "VP9 default is --crf 31 (bytes)" cmp -s v.webm v31.webm
differ "VP9 --crf 30 differs from the default" v.webm v30.webm
check "--help states the default CRF" sh -c "'$ROCKPOOL' --help | grep -q 'default 23'"

# ---- where the file went: a render without -o says so ------------------------------------
mkdir noo && cd noo || exit 1
expect_status "no -o: exit 0" 0 "$ROCKPOOL" ../h.scene -n 3
stderr_has "no -o: names the file and its frames" "rockpool: wrote rockpool.mp4 (3 frames)"
check "no -o: rockpool.mp4 has 3 frames (ffprobe)" test "$(probe rockpool.mp4 nb_read_frames)" = 3
expect_status "no -o, one frame: exit 0" 0 "$ROCKPOOL" -y ../h.scene -n 1
stderr_has "no -o, one frame: singular" "rockpool: wrote rockpool.mp4 (1 frame)"
# --check's summary counts one as one too: a one-frame range is 'frame 3 (1 frame, ...)', and
# a one-frame timeline's steps are not '1 steps' (it said 'frames 3 to 3 (1 frames, ...)').
"$ROCKPOOL" ../h.scene -n 10 --frame-range 3 --check >one.out 2>&1
check "--check, one frame written: 'writes: frame 3 (1 frame, 0.033 s from 0.100 s)'" \
    grep -qx 'writes: *frame 3 (1 frame, 0.033 s from 0.100 s)' one.out
"$ROCKPOOL" ../h.scene -n 1 --check >>one.out 2>&1
check "--check: no '1 frames' or '1 steps'" sh -c "! grep -E '(^|[^0-9.])1 (frames|steps)' one.out"
check "... and still 'N steps in all' for more" grep -qE ' [0-9]*[02-9] steps in all' one.out
expect_status "no -o, -q: exit 0" 0 "$ROCKPOOL" -q -y ../h.scene -n 3
check "no -o, -q: silent" test ! -s "$WORK/err"
expect_status "-o given: exit 0" 0 "$ROCKPOOL" ../h.scene -n 3 -o named.mp4
check "-o given: no 'wrote' line (the user named it)" sh -c "! grep -q wrote '$WORK/err'"
expect_status "-f framemd5 without -o: exit 0" 0 "$ROCKPOOL" ../h.scene -n 3 -f framemd5
check "-f framemd5 to stdout: no 'wrote' line" sh -c "! grep -q wrote '$WORK/err'"
cd .. || exit 1
# -f without -o: the default name takes the format's ending (a GIF was written as
# rockpool.mp4, and -f png was refused as 'rockpool.mp4' naming one still); -f png writes
# the frames rockpool_00000.png, ... (rockpool(1) -o). The codecs are ffprobe's.
mkdir nof && cd nof || exit 1
for f in gif:gif webm:vp9 mkv:h264 y4m:rawvideo; do
    expect_status "-f ${f%:*} without -o: exit 0" 0 "$ROCKPOOL" ../h.scene -n 3 -f "${f%:*}"
    stderr_has "... says it wrote rockpool.${f%:*}" "rockpool: wrote rockpool.${f%:*} (3 frames)"
    check "... rockpool.${f%:*} is ${f#*:}, 3 frames (ffprobe)" test "$(probe "rockpool.${f%:*}" \
        codec_name,nb_read_frames | tr '\n' ' ')" = "${f#*:} 3 "
done
check "... and no rockpool.mp4" test ! -e rockpool.mp4
expect_status "-f png without -o: exit 0" 0 "$ROCKPOOL" ../h.scene -n 3 -f png
check "... the frames rockpool_00000.png to rockpool_00002.png (ffprobe: png)" \
    test "$(for k in 0 1 2; do probe rockpool_0000$k.png codec_name; done | tr '\n' ' ')" = "png png png "
cd .. || exit 1
# --help says what the runs above do (rockpool(1) -o says it too): rockpool.mp4, with -f FMT
# rockpool.FMT, -f png the frames rockpool_%05d.png, -f framemd5|framehash standard output.
# It said 'Default rockpool.mp4' alone. Its lines joined, blanks squeezed.
"$ROCKPOOL" --help | tr -s ' \n' '  ' >help1.txt
check "--help: without -o, the name follows -f" grep -qF -- 'Default rockpool.mp4 (-f FMT: rockpool.FMT; png: rockpool_%05d.png; hashes: -)' help1.txt
"$ROCKPOOL" -h >help2.txt
check "--help: -h, which its usage line names, is this help" cmp -s help2.txt <("$ROCKPOOL" --help)

# ---- a single still: -o NAME.png without a pattern is one PNG of frame --start ------------
mkdir still && cd still || exit 1
pngmd5() { ffmpeg -v error -i "$1" -pix_fmt rgb24 -f framemd5 - | awk -F', ' '!/^#/ { print $6 }'; }
hashof() { "$ROCKPOOL" -q ../h.scene --hash --start "$1" --end "$(($1 + 1))" | awk '{ print $2 }'; }
expect_status "-o s10.png --start 10: exit 0" 0 "$ROCKPOOL" -q ../h.scene --start 10 -o s10.png
check "-o s10.png --start 10: one file, s10.png" test "$(ls)" = s10.png
check "s10.png is frame 10 (ffmpeg's md5 of its pixels)" test "$(pngmd5 s10.png)" = "$(hashof 10)"
check "... and not frame 30 (the check can tell)" test "$(pngmd5 s10.png)" != "$(hashof 30)"
"$ROCKPOOL" -q ../h.scene --start 1s -o s1s.png
check "--start 1s -o s1s.png is frame 30" test "$(pngmd5 s1s.png)" = "$(hashof 30)"
"$ROCKPOOL" -q ../h.scene -o s0.png
check "-o s0.png alone is frame 0" test "$(pngmd5 s0.png)" = "$(hashof 0)"
"$ROCKPOOL" -q ../h.scene --start 10 --alpha -o a10.png
check "--alpha -o a10.png: one RGBA PNG" test "$(probe a10.png pix_fmt)" = rgba
expect_status "--start 10 --end 12 -o two.png: exit 2" 2 "$ROCKPOOL" ../h.scene --start 10 \
    --end 12 -o two.png
stderr_has "two frames into one PNG: says so" "names one PNG (a still)"
check "two frames into one PNG: nothing written" test ! -e two.png
# A directory as the PNG output (-o frames/, or an existing frames) is said to be one, with
# the pattern to give in it; it read "names one PNG (a still)". Nothing is created.
mkdir -p framesdir
for o in framesdir framesdir/ newdir/; do
    expect_status "-o $o -f png: exit 2" 2 "$ROCKPOOL" ../h.scene --start 10 --end 12 -f png -o "$o"
    stderr_has "... says it names a directory and what to give" \
        "'$o' names a directory, not a file: give the frames' names in it, like ${o%/}/f_%05d.png"
done
check "... and creates nothing" sh -c 'test ! -e newdir && test -z "$(ls framesdir)"'
rmdir framesdir
# -ss 1 -t 0.5 is 15 frames from frame 30 (0.5 s at 30 fps), as -ss 1 -to 1.5 is: not a still
# of frame 30 alone.
expect_status "-ss 1 -t 0.5 -o span.png: exit 2" 2 "$ROCKPOOL" ../h.scene -ss 1 -t 0.5 \
    -o span.png
stderr_has "-ss 1 -t 0.5 into one PNG: says 15 frames" "this run writes 15 frames"
check "-ss 1 -t 0.5 into one PNG: nothing written" test ! -e span.png
expect_status "-ss 1 -to 1.5 -o to.png: exit 2 (as the span)" 2 "$ROCKPOOL" ../h.scene -ss 1 \
    -to 1.5 -o to.png
"$ROCKPOOL" -q ../h.scene -ss 1 -t 0.03 -o one.png
check "-ss 1 -t 0.03 (one frame's span) -o one.png is frame 30" \
    test "$(pngmd5 one.png)" = "$(hashof 30)"
# A literal '%' ('%%', as in a pattern) leaves a name a still: 100%%.png is the file 100%.png.
expect_status "-o 100%%.png --start 10: exit 0" 0 "$ROCKPOOL" -q ../h.scene --start 10 \
    -o '100%%.png'
check "-o 100%%.png --start 10 is frame 10, in 100%.png" test "$(pngmd5 '100%.png')" = "$(hashof 10)"
expect_status "-o zoom_%%.png alone: exit 0" 0 "$ROCKPOOL" -q ../h.scene -o 'zoom_%%.png'
check "-o zoom_%%.png alone is frame 0, in zoom_%.png" test "$(pngmd5 'zoom_%.png')" = "$(hashof 0)"
expect_status "--start 10 --end 12 -o two%%.png: exit 2" 2 "$ROCKPOOL" ../h.scene --start 10 \
    --end 12 -o 'two%%.png'
stderr_has "two frames into 'two%%.png': says it is one PNG" "names one PNG (a still)"
check "two frames into 'two%%.png': nothing written" test ! -e 'two%.png'
cd .. || exit 1
check "-threads 0 (ffmpeg's automatic): the frames of -j 1" \
    test "$(H -n 4 -threads 0)" = "$(H -n 4 -j 1)"

# ---- -i photo without a size: at most 3840x2160 (2160x3840 portrait), aspect kept, even ----
# By hand: 6000x4000 -> 3240x2160; 4000x6000 -> 2160x3240; 4999x3001 -> 2160 high and
# 4999 * 2160 / 3001 = 3598.03 -> 3598 wide; 4000x2000 -> 3840x1920; 640x480 stays.
size_of() { "$ROCKPOOL" "$@" --check | awk '/^size:/ { print $4 }'; }
for s in 6000x4000:3240x2160 4000x6000:2160x3240 4999x3001:3598x2160 4000x2000:3840x1920 \
    640x480:640x480; do
    ffmpeg -v error -f lavfi -i "color=c=gray:size=${s%:*}" -frames:v 1 "p${s%:*}.png"
    check "-i a ${s%:*} picture: output ${s#*:}" test "$(size_of -i "p${s%:*}.png")" = "${s#*:}"
done
check "-s 6000x4000 keeps the full size" test "$(size_of -i p6000x4000.png -s 6000x4000)" = \
    6000x4000
"$ROCKPOOL" -q -i p6000x4000.png -frames:v 1 -o photo.mp4
check "the MP4 of a 6000x4000 photo is 3240x2160 (ffprobe)" \
    test "$(probe photo.mp4 width)x$(probe photo.mp4 height)" = 3240x2160

# ---- an animated GIF background is its first frame, said in a warning -------------------
# ffmpeg plays a GIF of 10 frames as a video; rockpool reads it as a still: still water over
# it is exactly the GIF's first frame as ffmpeg decodes it (RGB24 MD5), and the warning
# says so. A GIF of one frame is a plain still, without a warning.
ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=1 anim.gif
ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.1 one.gif
printf 'duration 3f\n' >flat3.scene
expect_status "an animated GIF background: exit 0" 0 "$ROCKPOOL" flat3.scene -i anim.gif \
    --fit stretch --hash --end 1
stderr_has "an animated GIF background: warned" \
    "'anim.gif' is an animated GIF: the background is its first frame alone"
check "an animated GIF background is its first frame (ffmpeg's framemd5)" \
    test "$(awk '{ print $2 }' "$WORK/out")" = \
    "$(ffmpeg -v error -i anim.gif -frames:v 1 -pix_fmt rgb24 -f framemd5 - |
        awk -F', ' '!/^#/ { print $6 }')"
expect_status "a GIF of one frame: exit 0" 0 "$ROCKPOOL" flat3.scene -i one.gif --hash --end 1
check "a GIF of one frame: no warning" test ! -s "$WORK/err"
expect_status "-q: an animated GIF's warning is not printed" 0 "$ROCKPOOL" -q flat3.scene \
    -i anim.gif --hash --end 1
check "-q: nothing on stderr" test ! -s "$WORK/err"

# An animated WebP (rockpool's own .webp output) or APNG is refused as what it is, not as a
# corrupt or unreadable image; a still WebP is read.
"$ROCKPOOL" -q h.scene -n 3 -o anim.webp
ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.5 -plays 0 -f apng anim.apng
ffmpeg -v error -f lavfi -i testsrc2=size=96x64 -frames:v 1 -c:v libwebp still.webp
expect_status "an animated WebP background: exit 2" 2 "$ROCKPOOL" flat3.scene -i anim.webp --check
stderr_has "an animated WebP: said so" "'anim.webp' is an animated WebP, which FFmpeg here cannot"
check "an animated WebP: not called corrupt" sh -c "! grep -q corrupt '$WORK/err'"
expect_status "an animated PNG background: exit 2" 2 "$ROCKPOOL" flat3.scene -i anim.apng --check
stderr_has "an animated PNG: said so" "'anim.apng' is an animated PNG (APNG), which rockpool does"
expect_status "a still WebP background: exit 0" 0 "$ROCKPOOL" flat3.scene -i still.webp --check

# ---- colour: BT.709 from 1280x720 up (converted and tagged), BT.601 below -----------------
tags() { ffprobe -v error -select_streams v:0 -show_entries \
    stream=color_space,color_primaries,color_transfer,color_range -of csv=p=0 "$1"; }
printf 'size 1920x1080\nfps 30\nduration 2f\n' >flat.scene
ffmpeg -v error -f lavfi -i smptehdbars=size=1920x1080 -frames:v 1 chart.png
"$ROCKPOOL" -q flat.scene -i chart.png -o chart-rgb.png
ffmpeg -v error -i chart-rgb.png -f rawvideo -pix_fmt rgb24 truth.rgb
"$ROCKPOOL" -q flat.scene -i chart.png -n 1 --crf 0 -o c709.mp4
"$ROCKPOOL" -q flat.scene -i chart.png -n 1 --pix-fmt yuv422p -c libx264 --crf 0 -o c422.mkv
"$ROCKPOOL" -q flat.scene -i chart.png -n 1 -s 640x360 -o small.mp4
check "1920x1080 MP4: tagged bt709 matrix, primaries, transfer, limited range" \
    test "$(tags c709.mp4)" = "tv,bt709,bt709,bt709"
check "1920x1080 yuv422p (libswscale path): tagged bt709" test "$(tags c422.mkv)" = \
    "tv,bt709,bt709,bt709"
check "640x360 MP4: tagged smpte170m (BT.601)" test "$(tags small.mp4)" = \
    "tv,smpte170m,smpte170m,smpte170m"
# The chart's flat patches decoded by ffmpeg (which reads the tags) against rockpool's own
# RGB frame: within 3 levels; decoded as BT.601 instead they are far off (the conversion
# really is BT.709).
patches() { # DECODED.rgb: the worst difference over the interiors of the chart's patches
    python3 - "$1" <<'PY'
import sys
W, H = 1920, 1080
t, d = open("truth.rgb", "rb").read(), open(sys.argv[1], "rb").read()
px = lambda b, x, y: b[(y * W + x) * 3:(y * W + x) * 3 + 3]
worst = n = 0
for y in range(40, H - 40, 60):
    for x in range(20, W - 20, 40):
        if any(px(t, x + dx, y + dy) != px(t, x, y) for dx, dy in
               ((-9, 0), (9, 0), (0, -9), (0, 9))):
            continue
        n += 1
        worst = max(worst, max(abs(a - b) for a, b in zip(px(t, x, y), px(d, x, y))))
assert n > 200, n
print(worst)
PY
}
for f in c709.mp4 c422.mkv; do
    ffmpeg -v error -i "$f" -frames:v 1 -f rawvideo -pix_fmt rgb24 "$f.rgb"
    w=$(patches "$f.rgb")
    check "$f decoded by ffmpeg: the chart within 3 levels (worst $w)" test "${w:-99}" -le 3
done
ffmpeg -v error -i c709.mp4 -frames:v 1 -vf scale=in_color_matrix=bt601 -f rawvideo \
    -pix_fmt rgb24 as601.rgb
w=$(patches as601.rgb)
check "c709.mp4 read as BT.601 is off by more than 10 levels (worst $w)" test "${w:-0}" -gt 10

# ---- --verify-ref: a difference image at a mismatch ---------------------------------------
mkdir gold vr
"$ROCKPOOL" -q h.scene -n 12 -o gold/f_%03d.png
"$ROCKPOOL" -q h.scene -n 12 --hash >gold.txt
# The expected frame 5 changed in one 3x2 block at (10, 20): the render now differs there
# alone, so the difference image must be red in exactly those 6 pixels.
python3 - <<'PY'
import subprocess
W, H = 64, 48
d = bytearray(subprocess.run(["ffmpeg", "-v", "error", "-i", "gold/f_005.png", "-f", "rawvideo",
                              "-pix_fmt", "rgb24", "-"], capture_output=True).stdout)
for y in (20, 21):
    for x in (10, 11, 12):
        i = (y * W + x) * 3
        d[i] ^= 0x40
open("f5.rgb", "wb").write(d)
PY
ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s 64x48 -i f5.rgb gold/f_005.png
awk '$1 == 5 { $2 = "00000000000000000000000000000000" } { print }' gold.txt >bad.txt
expect_status "--verify-ref: exit 3" 3 "$ROCKPOOL" h.scene -n 12 --verify bad.txt \
    --verify-ref gold/f_%03d.png --verify-dir vr
stderr_has "--verify-ref: names the difference image" "vr/bad.diff-00005.png"
check "--verify-ref: red in exactly the 6 changed pixels" python3 - <<'PY'
import subprocess
W, H = 64, 48
d = subprocess.run(["ffmpeg", "-v", "error", "-i", "vr/bad.diff-00005.png", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", "-"], capture_output=True).stdout
assert len(d) == W * H * 3
red = {(i % W, i // W) for i in range(W * H)
       if d[3 * i] >= 64 and d[3 * i + 1] == 0 and d[3 * i + 2] == 0}
assert red == {(x, y) for y in (20, 21) for x in (10, 11, 12)}, sorted(red)
PY
expect_status "--verify-ref without --verify: exit 2" 2 "$ROCKPOOL" h.scene --verify-ref x_%d.png

# ---- a scene without statements ---------------------------------------------------------
# An empty or comment-only scene file renders still water for the default 10 s: most likely
# the wrong file, so rockpool warns (it rendered without a word); exit 0 as before, nothing
# with -q, nothing for a scene with a statement.
: >empty.scene
printf '\xef\xbb\xbf# only a comment\n\n  \t# another\r\n' >comments.scene
nostmt="the scene has no statements (only blank lines or comments): still water"
expect_status "an empty scene: exit 0" 0 "$ROCKPOOL" empty.scene --check
stderr_has "an empty scene: warns" "warning: empty.scene: $nostmt"
expect_status "a comment-only scene (BOM, CRLF): exit 0" 0 "$ROCKPOOL" comments.scene -n 2 \
    --hash
stderr_has "a comment-only scene: warns" "warning: comments.scene: $nostmt"
expect_status "an empty scene on stdin: exit 0" 0 "$ROCKPOOL" - --check <empty.scene
stderr_has "an empty scene on stdin: warns" "warning: <stdin>: $nostmt"
expect_status "an empty scene with -q: exit 0" 0 "$ROCKPOOL" -q empty.scene --check
check "... and no warning with -q" test ! -s err
printf '# a comment\nsize 64x48\n' >one.scene
expect_status "a scene with one statement: exit 0" 0 "$ROCKPOOL" one.scene --check
check "... and no warning" test ! -s err
