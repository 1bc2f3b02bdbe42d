#!/usr/bin/env bash
# hardening4.sh - the fourth hostile-use round (issue 44): a still over its own input, an
# animated WebP kept after SIGINT, WebP's memory over the clip, limits known before
# anything is created (WebP's sides, GIF's rate, key fade with damping, the 64 MiB scene),
# directories a failed run made, --alpha --verify-ref's difference image, and checkpoints
# and golden frames: --check reads --load-state, a FIFO or pipe checkpoint, --verify-ref;
# grey and yuvj outputs decoded at their tones.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1

refused() { refused_unchanged "$@"; }

## 1. A still PNG (or a still --aov) over its own input goes through the one
## output-over-input check: the background, a wall mask, the sky, and a link to an input.
printf 'size 48x32\nduration 1f\nat 0f drop 24 16 radius 4 height 900\n' >s.scene
ffmpeg -v error -f lavfi -i testsrc=size=48x32 -frames:v 1 bg.png
cp bg.png mask.png
cp bg.png sky.png
ln -s bg.png link.png
printf 'size 48x32\nduration 1f\nat 0f wall mask mask.png\n' >wall.scene
printf 'size 48x32\nduration 1f\nsky sky.png 4\nat 0f drop 24 16 radius 4 height 900\n' \
    >sky.scene
refused "still PNG over -i" "would overwrite the background" s.scene -i bg.png -o bg.png -y
refused "still PNG over a wall mask" "would overwrite a wall mask" wall.scene -o mask.png -y
refused "still PNG over the sky image" "would overwrite the sky image" sky.scene -o sky.png -y
refused "still PNG through a link to -i" "would overwrite the background" s.scene -i bg.png \
    -o link.png -y
refused "still --aov over -i" "would overwrite the background" s.scene -i bg.png \
    -f framemd5 -o /dev/null --aov height bg.png -y

## 2. SIGINT while libwebp's animation encoder works on a 4096x4096 frame: it writes the
## whole file at its end, taking longer than the watchdog's 3 s of unchanged files; the
## watchdog sees the CPU time advance, and the file is finished and kept.
printf 'size 4096x4096\nfps 10\nduration 3f\nat 0f drop 50%% 50%% radius 40 height 900\n' \
    >big.scene
"$R" big.scene -o big.webp -y 2>sigint.err &
pid=$!
for _ in $(seq 600); do # the temporary file: the first frame is on its way
    compgen -G '.big.webp.tmp-*' >/dev/null && break
    sleep 0.1
done
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
check "SIGINT during a 4096x4096 WebP: exit 130 (got $rc)" test "$rc" -eq 130
check "... the WebP is kept" test -s big.webp
# FFmpeg 5.1 reads no animated WebP (web_formats.sh): libwebp's webpinfo checks the file and
# counts its frames (an ANMF chunk each, or one still VP8/VP8L image).
webpinfo big.webp >big.info 2>&1
frames=$(grep -c '^Chunk ANMF' big.info)
[ "$frames" -eq 0 ] && grep -q '^Chunk VP8' big.info && frames=1
check "... a valid WebP (webpinfo)" grep -q 'No error detected' big.info
check "... and holds the frames so far (webpinfo: $frames)" test "$frames" -ge 1
check "... as the message says" grep -q "interrupted: big.webp holds" sigint.err
check "... no temporary file is left" test -z "$(compgen -G '.big.webp.tmp-*')"

## 3. WebP's memory estimate counts the clip's length (libwebp's animation encoder holds
## every encoded frame): 900 frames at 640x360 (over 100 MiB) under --max-memory 68M are
## refused; a clip the estimate lets through stays under the limit (peak resident memory,
## /usr/bin/time).
PHOTO=("$TOP/examples/photo-rain.scene" -i "$TOP/examples/gallery/elias.png" -s 640x360)
expect_status "WebP, 900 frames, --max-memory 68M: refused" 2 "$R" -q "${PHOTO[@]}" -t 900f \
    -o long.webp --max-memory 68M --check
stderr_has "... naming the limit" "over the limit of 68.0 MiB"
check "... nothing created" test ! -e long.webp
case $ROCKPOOL in
*/build-san/*) echo "[ SKIPPED  ] WebP's peak under --max-memory: AddressSanitizer's own memory is not counted" ;;
*) [ -x /usr/bin/time ] || echo "[ SKIPPED  ] WebP's peak under --max-memory: no /usr/bin/time" ;;
esac
if [ -x /usr/bin/time ] && case $ROCKPOOL in */build-san/*) false ;; esac; then
    expect_status "WebP, 60 frames, --max-memory 68M: runs" 0 /usr/bin/time -f 'peak %M' \
        "$R" -q "${PHOTO[@]}" -t 60f -o short.webp --max-memory 68M
    peak=$(sed -n 's/^peak \([0-9]*\)$/\1/p' "$WORK/err")
    check "... and peaks under 68 MiB (${peak:-?} KiB)" test "${peak:-999999}" -le $((68 * 1024))
fi

## 6. Every output kind's limits are checked before anything is created (exit 2, naming
## the limit), where libwebp and the GIF muxer said "Invalid argument" once the file
## existed; 8. GIF rates above 50 fps (browsers play delays under 2 cs as 10 cs) refused.
printf 'size 48x32\nduration 1s\nat 0f drop 24 16 radius 4 height 900\n' >s1.scene
for c in "--check" ""; do
    refused "WebP at 16384x16 ${c:-(a render)}" "WebP's sides are at most 16383 pixels" \
        s1.scene -s 16384x16 -o w.webp -y $c
    refused "GIF at -r 101 ${c:-(a render)}" "GIF plays at most 50 fps" s1.scene -r 101 \
        -o g.gif -y $c
    refused "GIF at -r 60 ${c:-(a render)}" "use -r 50 or less" s1.scene -r 60 -o g.gif -y $c
done
# WebP likewise: its delays are whole milliseconds, played as 100 ms when 10 or less (-r 91
# wrote delays of 10 and 11 ms, -r 1000 of 1, with exit 0); at 1000/11 fps every delay is 11.
for c in "--check" ""; do
    refused "WebP at -r 91 ${c:-(a render)}" "WebP plays at most 90.9 fps" s1.scene -s 16x16 \
        -r 91 -o w.webp -y $c
    refused "WebP at -r 1000 ${c:-(a render)}" "use -r 90 or less" s1.scene -s 16x16 -r 1000 \
        -o w.webp -y $c
done
# (harbour: every frame differs, so libwebp merges none into a longer one)
expect_status "WebP at -r 1000/11 is written" 0 "$R" -q "$TOP/examples/harbour.scene" -s 160x90 \
    -r 1000/11 -n 12 -o w11.webp
check "... every delay 11 ms (webpinfo: $(webpinfo w11.webp | awk '/Duration:/ {print $2}' |
    sort -u | tr '\n' ' '))" test "$(webpinfo w11.webp | awk '/Duration:/ {print $2}' |
    sort -u)" = 11
expect_status "GIF at -r 50 is written" 0 "$R" -q s1.scene -r 50 -o g50.gif
# ffprobe's duration of 50 frames at 2 cs each: 1 s (60 fps played as 2.88 s before)
check "... and plays in 1 s (ffprobe: $(ffprobe -v error -show_entries format=duration \
    -of csv=p=0 g50.gif))" test "$(ffprobe -v error -show_entries format=duration -of csv=p=0 \
    g50.gif)" = 1.000000
# `key fade` with `damping` is refused as `fade` with `damping` is, in either order.
printf 'size 48x32\nduration 1s\ndamping 0.5\nkey fade 0s 1.5 1s 0.4\n' >kf1.scene
printf 'size 48x32\nduration 1s\nkey fade 0s 1.5 1s 0.4\ndamping 0.5\n' >kf2.scene
refused "damping, then key fade" "kf1.scene:4:1: error: key fade and damping are both given" \
    kf1.scene --check
refused "key fade, then damping" "kf2.scene:4:1: error: damping and key fade (on line 3)" \
    kf2.scene --check
# A 65 MiB scene is refused naming the 64 MiB cap, also with --max-memory 8G and from a pipe.
{ printf 'size 48x32\nduration 1s\n'; head -c $((65 << 20)) /dev/zero | tr '\0' '#'; } \
    >big65.scene
refused "a 65 MiB scene" "over the 64 MiB a scene may hold" big65.scene --max-memory 8G -o b.mp4
expect_status "a 65 MiB scene from a pipe" 2 sh -c '"$1" -q - --max-memory 8G --check <"$2"' \
    sh "$R" big65.scene
stderr_has "... names the cap" "stdin: the scene is over the 64 MiB a scene may hold"
rm -f big65.scene

## 7. A failed run removes every directory it created, and only those: a --verify mismatch
## (exit 3) with the pattern zz/../f_%d.png leaves no zz/; a PNG sequence whose encoder
## threads or buffers cannot be had under ulimit -v leaves no nd/.
mkdir keep7 && touch keep7/mine
printf 'size 48x32\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >v.scene
"$R" -q v.scene --hash -f framemd5 -o v.md5 >/dev/null
sed 's/, *[0-9a-f]\{32\}$/, 00000000000000000000000000000000/' v.md5 >bad.md5
expect_status "--verify mismatch with zz/../f_%d.png: exit 3" 3 "$R" -q v.scene \
    --verify bad.md5 -o 'zz/../f_%d.png'
check "... leaves no zz/" test ! -e zz
check "... nor its frames" test -z "$(compgen -G 'f_*.png')"
expect_status "--verify mismatch with keep7/new/../f_%d.png: exit 3" 3 "$R" -q v.scene \
    --verify bad.md5 -o 'keep7/new/../f_%d.png'
check "... removes keep7/new, keeps keep7 and what it held" \
    test ! -e keep7/new -a -e keep7/mine
case $ROCKPOOL in
*/build-san/*)
    echo "[ SKIPPED  ] a PNG sequence under ulimit -v: AddressSanitizer's shadow memory needs more address space" ;;
*)
    png_oom=0 left=0
    for kb in 240000 260000 280000 300000 330000; do
        rm -rf nd
        (ulimit -v $kb; exec "$R" -q v.scene -s 640x360 -j 8 -o 'nd/sub/f_%d.png') 2>oom.err
        st=$?
        grep -q "PNG encoder" oom.err && png_oom=$((png_oom + 1))
        if [ "$st" -ne 0 ] && [ -e nd ]; then
            left=$((left + 1))
            echo "    ulimit -v $kb: exit $st left nd/: $(head -c 200 oom.err)"
        fi
    done
    check "ulimit -v: a failed PNG sequence leaves no directory ($left left)" test "$left" -eq 0
    check "ulimit -v: some limit failed in the PNG encoder ($png_oom)" test "$png_oom" -gt 0
    ;;
esac

## 5. --alpha --verify-ref: the difference image compares the RGBA samples, so only the
## pixels that differ are marked (it compared the layer's RGBA with the reference
## composited over black, and marked every partly transparent pixel). Frame 30 of
## examples/harbour.scene at 96x64 has 341 partly transparent pixels; 10 pixels of the
## reference are changed (R of 5 opaque-free pixels, alpha of 5 partly transparent ones).
H=("$TOP/examples/harbour.scene" -s 96x64 --alpha -ss 1s -t 1f)
mkdir aref
"$R" -q "${H[@]}" -o 'aref/r_%02d.png'
ffmpeg -v error -i aref/r_30.png -f rawvideo -pix_fmt rgba aref/r.rgba
python3 - aref/r.rgba <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
partial = [i for i in range(len(b) // 4) if 0 < b[4 * i + 3] < 255]
for i in partial[:5]:
    b[4 * i + 3] ^= 1
for i in range(5):
    b[4 * (7 * i + 3)] ^= 2
open(p, "wb").write(b)
PY
ffmpeg -v error -f rawvideo -pix_fmt rgba -s 96x64 -i aref/r.rgba -frames:v 1 -y aref/r_30.png
# the manifest: rockpool's framemd5 of the frame, its MD5 replaced by the changed frame's
"$R" -q "${H[@]}" -f framemd5 -o aref/own.framemd5
sed "s/[0-9a-f]\{32\}\$/$(md5sum <aref/r.rgba | cut -c1-32)/" aref/own.framemd5 >aref/m.framemd5
expect_status "--alpha --verify-ref, 10 pixels differ: exit 3" 3 "$R" -q "${H[@]}" \
    --verify aref/m.framemd5 --verify-ref 'aref/r_%02d.png' --verify-dir aref
marked=$(ffmpeg -v error -i aref/m.diff-00030.png -f rawvideo -pix_fmt rgb24 - | python3 -c '
import sys
b = sys.stdin.buffer.read()
print(sum(1 for i in range(0, len(b), 3) if b[i] and not b[i + 1] and not b[i + 2]))')
check "... the difference image marks exactly those 10 (marked: ${marked:-none})" \
    test "${marked:-0}" -eq 10

## 7. Checkpoints and golden frames (a red-team pass). --check reads --load-state as the
## render does: a missing, damaged or foreign checkpoint, or one past --start, was passed
## with exit 0 and then refused by the render.
printf 'size 64x36\nduration 3s\nat 0s..3s rain rate 20/s radius 2..4 height 300..900\n' >st.scene
printf 'size 64x36\nduration 3s\nat 0s..3s rain rate 9/s radius 2..4 height 300..900\n' >st2.scene
"$R" -q st.scene -n 30 -f framemd5 -o /dev/null --save-state s30.st
head -c 200 s30.st >trunc.st
refused "--check, a missing checkpoint" "cannot open state" st.scene --start 30 \
    --load-state nosuch.st --check
refused "--check, a truncated checkpoint" "truncated" st.scene --start 30 --load-state trunc.st \
    --check
refused "--check, another scene's checkpoint" "another scene or other settings" st2.scene \
    --start 30 --load-state s30.st --check
refused "--check, a checkpoint past --start" "give --start 29 or later" st.scene --start 10 \
    --load-state s30.st --check
refused "--check, a directory as the checkpoint" "Is a directory" st.scene --start 30 \
    --load-state . --check
expect_status "--check, the right checkpoint: exit 0" 0 "$R" -q st.scene --start 30 \
    --load-state s30.st --check
## A checkpoint read from a FIFO or a pipe: the chunk's job line was worked out by reading it
## first, so a FIFO's render waited for ever for a writer gone (it opened it twice) and a
## pipe's render dropped its tag with no word. Now it is read once, the frames are the
## file's, and a warning says the outputs are untagged.
"$R" -q st.scene --start 30 --end 33 --load-state s30.st -f framemd5 -o file.md5
mkfifo st.fifo
timeout 60 sh -c 'cat s30.st >st.fifo' &
writer=$!
expect_status "a checkpoint from a FIFO: exit 0" 0 timeout 60 "$R" st.scene --start 30 --end 33 \
    --load-state st.fifo -f framemd5 -o fifo.md5
wait "$writer"
stderr_has "... the outputs are said to be untagged" "not tagged with its job line"
expect_status "a checkpoint from a pipe: exit 0" 0 sh -c \
    "cat s30.st | \"\$0\" st.scene --start 30 --end 33 --load-state /dev/stdin -f framemd5 \
    -o pipe.md5" "$R"
stderr_has "... the outputs are said to be untagged" "not tagged with its job line"
check "... the FIFO's frames are the file's" cmp <(grep -v '^#' file.md5) <(grep -v '^#' fifo.md5)
check "... the pipe's frames are the file's" cmp <(grep -v '^#' file.md5) <(grep -v '^#' pipe.md5)
check "... the file's chunk is tagged" grep -q '^#rockpool_job: ' file.md5
## --verify-ref naming the files a difference writes: the actual frame replaced the
## expected one it was compared with.
"$R" -q st.scene -n 2 -o 'g_%05d.png'
"$R" -q st.scene -n 2 -f framemd5 -o good.md5
sed 's/[0-9a-f]\{32\}$/00000000000000000000000000000000/' good.md5 >bad.md5
mkdir gold
cp g_00000.png gold/bad.actual-00000.png
cp g_00000.png bad.diff-00000.png
refused "--verify-ref over the actual frames" \
    "--verify-ref 'gold/bad.actual-%05d.png' and the PNGs of differing frames" st.scene -n 2 \
    --verify bad.md5 --verify-dir gold --verify-ref 'gold/bad.actual-%05d.png'
refused "--verify-ref over the difference images" "name the same files" st.scene -n 2 \
    --verify bad.md5 --verify-ref './bad.diff-%05d.png'
refused "--verify-ref over the actual frames, --check" "name the same files" st.scene -n 2 \
    --verify bad.md5 --verify-dir gold --verify-ref 'gold/bad.actual-%05d.png' --check
expect_status "--verify-ref beside them: exit 3" 3 "$R" -q st.scene -n 2 --verify bad.md5 \
    --verify-dir gold --verify-ref 'g_%05d.png'
check "... the difference image is written" test -s gold/bad.diff-00000.png

## 8. Grey and yuvj outputs decode to the picture's brightness (a red-team pass): grey was
## written full range below 1280x720 but tagged limited, so FFmpeg decoded grey 20 as 3 and
## 240 as 255; the yuvj formats were written limited from 1280x720 but tagged full (grey 20
## as 32). Each is decoded by FFmpeg to grey and compared with the PNG render's grey (the
## same frame through FFmpeg's RGB to grey): within 2 of it at both tones.
printf 'duration 1f\n' >flat.scene
tone_of() { # FILE: the two commonest grey values of its first frame, as "A B" (ascending)
    ffmpeg -v error -i "$1" -frames:v 1 -f rawvideo -pix_fmt gray - | od -An -tu1 -w1 -v |
        sort -n | uniq -c | sort -rn | head -2 | awk '{ print $2 }' | sort -n | tr '\n' ' '
}
for size in 64x48 1280x720; do
    w=${size%x*} h=${size#*x}
    ffmpeg -v error -f lavfi -i "color=0x141414:s=$((w / 2))x$h" -f lavfi \
        -i "color=0xf0f0f0:s=$((w / 2))x$h" -filter_complex "[0][1]hstack,format=rgb24" \
        -frames:v 1 -y "tones_$size.png"
    "$R" -q flat.scene -i "tones_$size.png" -s "$size" -y -o "ref_$size.png"
    want=$(tone_of "ref_$size.png")
    for pc in gray:ffv1 gray10le:ffv1 gray16le:ffv1 yuvj420p:mjpeg gray:libx264 gray10le:libx264; do
        pf=${pc%:*} c=${pc#*:}
        "$R" -q flat.scene -i "tones_$size.png" -s "$size" --pix-fmt "$pf" -c "$c" -y \
            -o "t_${size}_$pf.mkv"
        got=$(tone_of "t_${size}_$pf.mkv")
        check "$size --pix-fmt $pf -c $c decodes to the picture's tones ($want): $got" \
            awk -v a="$want" -v b="$got" 'BEGIN { split(a, x, " "); split(b, y, " ")
                exit !(y[1] != "" && y[2] != "" && (x[1] - y[1])^2 <= 4 && (x[2] - y[2])^2 <= 4) }'
    done
done

## 9. A reversed span names the frame rate it was found at, whole: at -r 30000/1001 it said
## "at 30000 fps" (the rate's numerator).
printf 'size 64x48\nduration 40f\nat 30f..1s stroke 0,0 -> 60,40 radius 2 height 500\n' >rev.scene
refused "a reversed span at NTSC's rate" \
    "rev.scene:3:4: error: reversed span '30f..1s' at 30000/1001 (29.97003) fps" rev.scene \
    -r 30000/1001 --check
refused "a reversed span at 12.5 fps" "reversed span '30f..1s' at 25/2 (12.5) fps" rev.scene -r 12.5

## 10. A straight stroke whose span runs far past the clip is counted as the build keeps
## it: its dabs from the last frame on are left out (rockpool-scene(5) TIMELINE), but the
## limits counted them all, so a 10-frame clip with a stroke over 420000 s was refused as
## 17 million items ("render fewer frames", which could not help).
printf 'size 160x90\nduration 10f\nat 0s..420000s stroke 0,0 -> 159,89 radius 1 height 300\n' \
    >long_stroke.scene
expect_status "a stroke spanning far past a 10-frame clip: --check exit 0" 0 "$R" \
    long_stroke.scene --check
check "... nothing on stderr" test ! -s "$WORK/err"
check "... its dabs after the clip are counted as left out" grep -q "items fall after the last" \
    "$WORK/out"
expect_status "... and it renders" 0 "$R" -q long_stroke.scene -f framemd5 -o long_stroke.md5
printf 'size 160x90\nduration 20000000f\nat 0s..420000s stroke 0,0 -> 159,89 radius 1 height 300\n' \
    >long_clip.scene
refused "the same stroke over a clip that holds it all" "more than 16777216 items" \
    long_clip.scene --check

## 11. At an odd size, the pixel format the refusal offers is one the encoder takes: mjpeg
## was offered yuv444p, which it refuses ("Non full-range YUV is non-standard"); its
## full-range yuvj444p renders (a red-team pass).
for cp in mjpeg:yuvj420p mjpeg:yuvj422p libx264:yuv420p; do
    c=${cp%:*} pf=${cp#*:}
    expect_status "-c $c --pix-fmt $pf at 65x49: exit 2" 2 "$R" -q flat.scene -s 65x49 -c "$c" \
        --pix-fmt "$pf" -o odd.mkv --check
    offer=$(sed -n 's/.* or --pix-fmt \([a-z0-9]*\)$/\1/p' "$WORK/err")
    check "... a pixel format is offered (${offer:-none})" test -n "$offer"
    expect_status "... and -c $c --pix-fmt ${offer:-none} renders 65x49" 0 "$R" -q flat.scene \
        -s 65x49 -c "$c" --pix-fmt "${offer:-none}" -y -o odd.mkv
done

## 12. A rate over GIF's limit is said exactly: -r 50.004 was refused as "got 50 fps".
refused "GIF at -r 50.004" "got 12501/250 (50.004) fps: use -r 50 or less" s1.scene -r 50.004 \
    -o x.gif --check

## 13. An AOV is a 16-bit PNG: a pattern that names other files (.jpg) was written with PNG
## data under that name (a red-team pass); refused, nothing created. No extension, or one
## inside the pattern's number (h.%05d), is still a name.
refused "--aov height h_%d.jpg" "names .jpg files, but the AOVs are PNGs" s1.scene -n 2 \
    --aov height 'h_%d.jpg'
expect_status "--aov height h.%03d (no extension): exit 0" 0 "$R" -q s1.scene -n 2 \
    --aov height 'h.%03d' -f framemd5 -o /dev/null
check "... its frames are PNGs" sh -c 'file h.000 | grep -q "PNG image data"'

## 14. A frame number is %d or %0Nd: printf's flags made names with spaces or signs
## (f_%-3d.png wrote 'f_0  .png', %+d 'f_+0.png'), and %5d padded with spaces where FFmpeg
## reads %5d as zeros. Refused for -o, --aov and --verify-ref (before any frame; it was read
## only at a difference), naming the pattern.
for p in 'f_%-3d.png' 'f_%+d.png' 'f_% d.png' 'f_%#d.png' 'f_%-05d.png' 'f_%5d.png' \
    'f_%i.png' 'f_%.3d.png'; do
    refused "-o $p" "the PNG pattern '$p' has an unsupported conversion" s1.scene -n 2 -o "$p"
done
refused "--aov height h_%+d.png" "--aov height: the PNG pattern 'h_%+d.png'" s1.scene -n 2 \
    -f framemd5 -o /dev/null --aov height 'h_%+d.png'
refused "--verify-ref g_%-d.png" "--verify-ref: the PNG pattern 'g_%-d.png'" st.scene -n 2 \
    --verify good.md5 --verify-ref 'g_%-d.png'
refused "--verify-ref g_%5d.png" "--verify-ref: the PNG pattern 'g_%5d.png'" st.scene -n 2 \
    --verify good.md5 --verify-ref 'g_%5d.png'
expect_status "-o n_%d.png and --aov n_h_%03d.png: exit 0" 0 "$R" -q s1.scene -n 2 -o 'n_%d.png' \
    --aov height 'n_h_%03d.png'
check "... their frames are n_1.png and n_h_001.png" test -s n_1.png -a -s n_h_001.png

## 15. A wall mask's file is named at its path's column: a missing or undecodable mask was
## reported at the column of 'wall', for a still and a moving mask (quoted path too); a
## moving mask's shape over --max-memory is at its width W.
printf 'not a picture' >junk.png
printf '%s\n' 'size 48x32' 'duration 2f' 'at 0f   wall mask   gone.png' >mask_gone.scene
printf '%s\n' 'size 48x32' 'duration 2f' 'at 0f wall mask junk.png' >mask_junk.scene
printf '%s\n' 'size 48x32' 'duration 2f' 'path p 0,0 40,20' \
    'at 0f..1f wall mask along p 8 8 "gone 2.png" push 3' >mask_along.scene
printf '%s\n' 'size 48x32' 'duration 2f' 'path p 0,0 40,20' \
    'at 0f..1f wall mask along p 16000 16000 bg.png' >mask_big.scene
refused "a missing wall mask" "mask_gone.scene:3:21: error: cannot read wall mask 'gone.png'" \
    mask_gone.scene -f framemd5 -o m.md5
refused "... --check" "mask_gone.scene:3:21: error:" mask_gone.scene --check
refused "a wall mask that is no picture" "mask_junk.scene:3:17: error: cannot decode image" \
    mask_junk.scene -f framemd5 -o m.md5
refused "a missing moving wall mask, quoted" \
    "mask_along.scene:4:33: error: cannot read wall mask 'gone 2.png'" mask_along.scene \
    -f framemd5 -o m.md5
refused "a moving mask's shape over --max-memory" \
    "mask_big.scene:4:29: error: this moving wall mask's shape needs" mask_big.scene \
    --max-memory 1G -f framemd5 -o m.md5

## 16. A path's points are held to the grid whether an event uses the path or not, at the
## path's own line: an unused path off the grid was taken (exit 0), and a used one was
## reported at its event's line with the path's column.
printf '%s\n' 'size 48x32' 'duration 2f' 'path p 0,0 100,20' >path_unused.scene
printf '%s\n' 'size 48x32' 'duration 2f' 'path p 0,0 100,20' \
    'at 0f..1f stroke along p radius 2 height 300' >path_used.scene
refused "an unused path off the grid" \
    "path_unused.scene:3:12: error: path x coordinate 100 is off the grid (0..47)" \
    path_unused.scene -f framemd5 -o p.md5
refused "... --check" "path_unused.scene:3:12: error:" path_unused.scene --check
refused "a used path off the grid, at the path's line" \
    "path_used.scene:3:12: error: path x coordinate 100 is off the grid (0..47)" \
    path_used.scene -f framemd5 -o p.md5
check "... under the path's text" grep -qF '3 | path p 0,0 100,20' "$WORK/err"
printf '%s\n' 'size 48x32' 'duration 2f' 'path p 0,0 47,31' >path_ok.scene
expect_status "an unused path on the grid: exit 0" 0 "$R" -q path_ok.scene -f framemd5 \
    -o path_ok.md5

## 17. A zero-width space (U+200B) or another character that does not show, in a wall
## mask's path (or a background's, a sky's), was printed raw in the message: it is said as
## <U+200B>, as the parser says such characters in a word; the echoed line keeps the file's.
zw=$(printf '\342\200\213')
printf '%s\n' 'size 48x32' 'duration 2f' "at 0f wall mask m${zw}ask.png" >zw_mask.scene
printf '%s\n' 'size 48x32' 'duration 2f' "at 0f wall mask ../m${zw}ask.png" >zw_out.scene
printf '%s\n' 'size 48x32' 'duration 2f' "background b${zw}g.png" >zw_bg.scene
refused "a wall mask path with U+200B" \
    "zw_mask.scene:3:17: error: cannot read wall mask 'm<U+200B>ask.png'" zw_mask.scene \
    -f framemd5 -o zw.md5
check "... no raw U+200B in the message" sh -c '! head -n 1 "$0" | grep -qF "$1"' \
    "$WORK/err" "$zw"
refused "... reaching outside the scene's directory" \
    "zw_out.scene:3:17: error: mask path '../m<U+200B>ask.png' reaches outside" zw_out.scene \
    --check
refused "a background path with U+200B" "zw_bg.scene:3:12: error: cannot open 'b<U+200B>g.png'" \
    zw_bg.scene -f framemd5 -o zw.md5

## A CMYK JPEG (ImageMagick's, Adobe YCCK: FFmpeg decodes it to full-range yuva444p) is
## read at its full range, as FFmpeg reads it: it was read as limited range (shadows
## crushed, colours too strong), 29 dB from FFmpeg's own decode. The picture is
## tests/fuzz/corpus/image/cmyk.jpg, testsrc2 at 64x36.
cp "$TOP/tests/fuzz/corpus/image/cmyk.jpg" cmyk.jpg
check "a CMYK JPEG as the background" "$R" -q --strength 0 -n 1 -s 64x36 --fit stretch \
    -i cmyk.jpg -o cmyk_rp.png
db=$(ffmpeg -nostdin -v info -i cmyk_rp.png -i cmyk.jpg -lavfi "[1:v]format=rgb24[b];[0:v][b]psnr" \
    -f null - 2>&1 | sed -n 's/.*PSNR.* average:\([0-9.inf]*\).*/\1/p')
check "... is FFmpeg's decode of it, within 40 dB (got ${db:-none})" \
    awk -v d="${db:-0}" 'BEGIN { exit !(d == "inf" || d + 0 >= 40) }'
## 18. A path given on the command line (not in a scene) with a character that does not
## show is said as the scene's paths are (rp_text_show): a zero-width space was sent raw
## and an escape shown as '?'; now <U+200B> and <U+001B>, in the messages of the library
## and of the program itself.
esc=$(printf '\033')
refused "-o with U+200B" "cannot tell the output format of 'o<U+200B>ut.xyz'" s.scene \
    -o "o${zw}ut.xyz"
check "... no raw U+200B in the message" sh -c '! grep -qF "$1" "$0"' "$WORK/err" "$zw"
refused "-o with an escape" "cannot tell the output format of 'o<U+001B>[1mut.xyz'" s.scene \
    -o "o${esc}[1mut.xyz"
refused "a SCENE path with U+200B" "error: n<U+200B>o.scene: cannot read scene" "n${zw}o.scene" \
    --check
refused "-i with U+200B" "cannot open 'b<U+200B>g.png'" s.scene -i "b${zw}g.png" --check
cp bg.png "p${zw}hoto.png"
refused "a picture as SCENE, its name with U+200B" \
    "error: p<U+200B>hoto.png is a PNG image, not a scene (rockpool-scene(5)): to render water over it, give it as the background, with -i" \
    "p${zw}hoto.png" -o photo.mp4
refused "an output name after SCENE with U+200B" "unexpected argument 'o<U+200B>.mp4'" \
    s.scene "o${zw}.mp4"
mkfifo "p${zw}.fifo"
refused "--progress-fd into a FIFO named with U+200B" \
    "--progress-fd 3 would mix progress into --stats 'p<U+200B>.fifo'" s.scene -f framemd5 \
    -o /dev/null --stats "p${zw}.fifo" --progress-fd 3 3<>"p${zw}.fifo"
rm -f "p${zw}.fifo" "p${zw}hoto.png"
check "... nothing raw in any of them" sh -c '! grep -qF "$1" "$0"' "$WORK/err" "$zw"
## 19. A gap in a sound's times (a dropout in a recording: its packets jump 0.5 s on) was
## closed up when the sound was re-encoded (into MP4, MOV, WebM), so everything after it
## played 0.5 s early; it is now filled with silence, as FFmpeg places the sound by its
## times. lib.sh's onset FILE 0.6: the tone's return, after 0.6 s.
# a tone, silent from 0.5 s to 1 s, its times 0.5 s on from 0.75 s: it sounds again at 1.5 s
ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x36:rate=25:duration=3 -f lavfi \
    -i "sine=frequency=1000:sample_rate=48000:duration=2,volume='if(between(t,0.5,1.0),0,1)':eval=frame" \
    -af "asetpts=PTS+gte(T\,0.75)*0.5/TB" -c:v libx264 -pix_fmt yuv420p -c:a flac gap.mkv
want=$(onset gap.mkv 0.6)
check "the source's tone comes back at 1.5 s ($want)" python3 -c "
import sys; sys.exit(abs(float('${want/none/99}') - 1.5) > 0.01)"
for o in mp4 mov webm mkv; do
    expect_status "its sound into $o" 0 "$ROCKPOOL" -q s.scene -i gap.mkv -t 3 -o "gap_out.$o"
    got=$(onset "gap_out.$o" 0.6)
    check "... comes back at $want s ($got s)" python3 -c "
import sys; sys.exit(abs(float('${got/none/99}') - float('$want')) > 0.005)"
done
