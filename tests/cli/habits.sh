#!/usr/bin/env bash
# habits.sh - what FFmpeg users type: -t DURATION, times with units for --start/--end,
# -v/-loglevel, -pix_fmt and -vcodec, and no arguments at all (a short usage, exit 2,
# nothing rendered). Each time form must give the same frames as its frame-number form.
source "$(dirname "$0")/lib.sh"

cat >h.scene <<'SCENE'
size 64x48
fps 30
duration 3s
seed 5
at 0s drop 32 24 radius 5 height 1500
at 0.1s..3s rain rate 20/s radius 2..4 height 300..900
SCENE
H() { "$ROCKPOOL" -q h.scene --hash "$@"; }
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

# ---- times -------------------------------------------------------------------------------
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
expect_status "-v loud: exit 2" 2 "$ROCKPOOL" -v loud h.scene -n 3 --hash
stderr_has "-v loud: lists the levels" "quiet, error, warning, info"
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
stderr_has "an alias as an argument: --preset sees it" "unknown preset '-vcodec'"

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
