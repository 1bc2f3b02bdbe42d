# encoders.sh - encoder options refused before rendering, with the encoder's reason (exit 2,
# nothing created); -q silences the encoders' own loggers; peak memory flat in frame count
# (rockpool(1) EXIT STATUS, LIMITS).
source "$(dirname "$0")/lib.sh"

scene=$TOP/examples/rain.scene
small=(-q -s 96x64 -n 5)
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)
have() { grep -qE "^ V[^ ]* +$1 " <<<"$encoders"; }

# refused NAME FRAGMENT ARGS...: exit 2, FRAGMENT on stderr, nothing created in a fresh
# directory (not even a temporary file).
refused() {
    local name=$1 fragment=$2
    shift 2
    rm -rf case && mkdir case
    # (not in a subshell: lib.sh's counts must see the check)
    cd case || return
    expect_status "$name: exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" "$@"
    cd ..
    stderr_has "$name: message" "$fragment"
    check "$name: nothing created" test -z "$(ls -A case)"
}

# An option the encoder lacks.
refused "--crf for mpeg4" "encoder mpeg4 has no constant rate factor (--crf 20)" \
    -c mpeg4 --crf 20 -o o.mp4
refused "--crf for ffv1" "encoder ffv1 has no constant rate factor (--crf 10)" \
    -c ffv1 --crf 10 -o o.mkv
refused "--crf for prores_ks" "encoder prores_ks has no constant rate factor" \
    -c prores_ks --pix-fmt yuv422p10le --crf 18 -o o.mov
refused "--encoder-preset for ffv1" "encoder ffv1 has no presets (got --encoder-preset fast)" \
    -c ffv1 --encoder-preset fast -o o.mkv
refused "--encoder-preset for mpeg4" "encoder mpeg4 has no presets" \
    -c mpeg4 --encoder-preset slow -o o.mkv
refused "--pix-fmt mpeg4 lacks" "encoder mpeg4 cannot encode pixel format yuv444p" \
    -c mpeg4 --pix-fmt yuv444p -o o.mkv
# An encoder without yuv420p and no --pix-fmt: its format that keeps the most of RGB, as
# FFmpeg picks it (it was refused: 'cannot encode pixel format yuv420p').
for c in prores_ks libx264rgb; do
    have $c || continue
    rm -f nopix.mov
    expect_status "-c $c without --pix-fmt: exit 0" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c $c \
        -o nopix.mov
    got=$(ffprobe -v error -select_streams v:0 -show_entries stream=pix_fmt -of csv=p=0 nopix.mov)
    case $c:$got in prores_ks:yuv444p1[02]le | libx264rgb:gbrp | libx264rgb:bgr0 | libx264rgb:rgb24)
        ok "-c $c without --pix-fmt: a full-chroma format ($got)" ;;
    *) bad "-c $c without --pix-fmt: a full-chroma format (got '$got')" ;;
    esac
done
# dnxhd: its default profile takes 4:2:2 only (the best of its list for RGB, gbrp10le, is
# DNxHR 444's: 'pixel format is incompatible with DNxHD profile' when it opened)
if have dnxhd; then
    rm -f dnx.mov
    expect_status "-c dnxhd -b 145M at 1080p without --pix-fmt: exit 0" 0 "$ROCKPOOL" "$scene" \
        -q -s 1920x1080 -r 30000/1001 -n 1 -c dnxhd -b 145M -o dnx.mov
    check "... yuv422p" test "$(ffprobe -v error -select_streams v:0 -show_entries \
        stream=pix_fmt -of csv=p=0 dnx.mov)" = yuv422p
fi
# A value the encoder refuses, or settings it cannot open with (its own reason).
refused "mpeg4 too wide" "encoder mpeg4 refuses 9000x64 yuv420p at 30/1 fps: dimensions too large" \
    -c mpeg4 -s 9000x64 -o o.mp4
if have libx264; then
    refused "--crf 52 for libx264" "encoder libx264 rejects --crf 52 (its range is 0 to 51)" \
        -c libx264 --crf 52 -o o.mp4
    refused "unknown libx264 preset" "unknown libx264 preset 'warp'" \
        -c libx264 --encoder-preset warp -o o.mp4
fi
if have libvpx-vp9; then
    refused "--encoder-preset for libvpx-vp9" "encoder libvpx-vp9 has no presets" \
        -c libvpx-vp9 --encoder-preset fast -o o.webm
fi
if have libx265; then
    refused "unknown libx265 preset" "encoder libx265 refuses 96x64 yuv420p at 30/1 fps with preset 'warp'" \
        -c libx265 --encoder-preset warp -o o.mp4
    refused "--crf 60 for libx265" "encoder libx265 rejects --crf 60" -c libx265 --crf 60 -o o.mp4
fi
if have libsvtav1; then
    refused "word preset for libsvtav1" "encoder libsvtav1 rejects --encoder-preset fast" \
        -c libsvtav1 --encoder-preset fast -o o.mkv
fi
# A preset that is a number to its encoder (libsvtav1's -1 to 13, libwebp's -1 to 5 or its
# names) is compared by --job-id as the encoder reads it: 4, 04 and +4 made three options
# digests for one file. What the encoder would round or evaluate (4.5, 2*2) or refuse (14)
# is refused, by --job-id as by the render, nothing created.
digest() { "$ROCKPOOL" "$scene" -q -s 64x64 -n 2 "$@" --job-id | sed -n 's/^options: *//p'; }
numbered() { # numbered ENCODER EXT SAME... -- OTHER: one digest and one file for SAME
    local c=$1 ext=$2 first="" name=$3 d f=0
    shift 2
    while [ "$1" != -- ]; do
        d=$(digest -c "$c" --encoder-preset "$1" -o "p_$f.$ext")
        "$ROCKPOOL" "$scene" -q -s 64x64 -n 2 -c "$c" --encoder-preset "$1" -o "p_$f.$ext"
        if [ -z "$first" ]; then first=$d; else
            check "$c --encoder-preset $1: the options digest of $name" test "$d" = "$first"
            check "$c --encoder-preset $1: the same file (cmp)" cmp -s p_0.$ext p_$f.$ext
        fi
        f=$((f + 1))
        shift
    done
    check "$c --encoder-preset $2: another digest" test "$(digest -c "$c" --encoder-preset "$2" \
        -o p.$ext)" != "$first" -a -n "$first"
    rm -f p_*."$ext"
}
if have libsvtav1; then
    numbered libsvtav1 mkv 8 08 +8 -- 9
    check "libsvtav1 without --encoder-preset: the digest of its default, -1" \
        test "$(digest -c libsvtav1 -o p.mkv)" = "$(digest -c libsvtav1 --encoder-preset -1 -o p.mkv)"
    for p in 14 -2 4.5 2*2 0x4 " 4"; do
        for c in "" --job-id; do
            refused "libsvtav1 --encoder-preset '$p' $c" \
                "encoder libsvtav1 rejects --encoder-preset $p (its presets are the whole numbers -1 to 13)" \
                -s 64x64 -c libsvtav1 --encoder-preset "$p" $c -o o.mkv
        done
    done
fi
if have libwebp_anim; then
    numbered libwebp_anim webp photo 2 02 -- 3
    refused "libwebp_anim --encoder-preset 6" "encoder libwebp_anim rejects --encoder-preset 6 (its presets \
are the whole numbers -1 to 5, or their names: none, default, picture, photo, drawing, icon, text)" \
        -c libwebp_anim --encoder-preset 6 --job-id -o o.webp
fi
# vc2 rates by bit rate alone, and refuses one too low for the frame only as it encodes one:
# the render said "encoder vc2: Invalid argument" (exit 1) after --check passed, and without
# -b (a quantiser, bit rate 0) every vc2 render failed. Now the trial encodes a frame, and
# without -b vc2 keeps FFmpeg's default rate.
if have vc2; then
    for c in "" --check --job-id; do
        refused "vc2 -b 20k $c" "encoder vc2 refuses to encode a 96x64 frame at -b 20k" \
            -c vc2 -b 20k $c -o o.mkv
    done
    expect_status "vc2 without -b renders" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c vc2 -o vc2.mkv
    check "vc2 without -b: 5 dirac frames" test "$(probe vc2.mkv nb_read_frames)" = 5 \
        -a "$(ffprobe -v error -select_streams v -show_entries stream=codec_name -of csv=p=0 \
            vc2.mkv)" = dirac
    expect_status "vc2 -b 60k renders" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c vc2 -b 60k -o vc2b.mkv
    check "vc2 -b 60k: a smaller file than without -b" test "$(stat -c %s vc2b.mkv)" -lt \
        "$(stat -c %s vc2.mkv)"
fi
# --job-id refuses what the render refuses: it opens the encoder as the render would (it
# printed an identity for xface in Matroska, which the muxer refuses).
if have xface; then
    refused "xface in mkv --job-id" "the mkv container cannot hold xface video" -s 48x48 \
        -c xface --job-id -o o.mkv
fi
# With -y an existing file is left as it was.
echo keep >kept.mp4
expect_status "refused with -y: exit 2" 2 "$ROCKPOOL" "$scene" "${small[@]}" -y -c mpeg4 --crf 20 \
    -o kept.mp4
check "refused with -y: the old file is untouched" test "$(cat kept.mp4)" = keep
check "refused with -y: no temporary file" test "$(ls -A | grep -c kept)" = 1
# What still works: the default crf on mpeg4 (a quantiser), --crf at the range's end, -b.
expect_status "mpeg4 without --crf renders" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c mpeg4 -o m.mkv
check "mpeg4 without --crf: 5 frames" test "$(probe m.mkv nb_read_frames)" = 5
expect_status "mpeg4 with -b renders" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c mpeg4 -b 300k -o b.mkv
if have libx264; then
    expect_status "libx264 --crf 51 renders" 0 "$ROCKPOOL" "$scene" "${small[@]}" -c libx264 \
        --crf 51 --encoder-preset ultrafast -o x.mp4
fi

# FFV1 one chroma column wide (2 pixels in 4:2:0): FFmpeg found no slice layout and said to
# use -slices, an option rockpool does not have. Up to 288 rows it is one slice, losslessly
# what the Y4M of the same frames holds (ffmpeg decodes both, checking the slices' CRCs);
# past that, rockpool's own refusal, nothing created.
expect_status "ffv1 2x100: renders" 0 "$ROCKPOOL" "$scene" -q -s 2x100 -n 3 -c ffv1 -o n.mkv
check "ffv1 2x100: an FFV1 2x100 video (ffprobe)" test "$(ffprobe -v error -select_streams v:0 \
    -show_entries stream=codec_name,width,height -of csv=p=0 n.mkv)" = "ffv1,2,100"
"$ROCKPOOL" "$scene" -q -s 2x100 -n 3 -o n.y4m
frames() { ffmpeg -v error -err_detect crccheck -i "$1" -f framemd5 - | grep -v '^#' |
    awk -F', *' '{print $6}'; }
check "ffv1 2x100: decodes to the Y4M's 3 frames" test "$(frames n.mkv | wc -l)" = 3 -a \
    "$(frames n.mkv)" = "$(frames n.y4m)"
for c in "" --check; do
    refused "ffv1 2x290 $c" "encoder ffv1 cannot encode 2x290 yuv420p: a frame 2 wide is one \
slice, which FFV1 takes up to 288 high; use -s 2x288 or a width of 4 or more" \
        -s 2x290 -c ffv1 $c -o o.mkv
    check "ffv1 2x290 $c: FFmpeg's -slices not named" sh -c "! grep -q slices '$WORK/err'"
done
# Under 3 columns without subsampled chroma the same encoder damages the frames: 2x100 gray,
# yuv444p and bgr0 decoded to other pixels (2x1000 yuv444p was the advice above, and
# rendered with exit 0). Refused, nothing created; 3 columns of gray decode to the frames.
for c in "2x1000 yuv444p" "2x100 gray" "2x100 bgr0" "2x100 yuv444p --check"; do
    set -- $c
    refused "ffv1 $c" "encoder ffv1 cannot encode $1 $2: FFmpeg's FFV1 encoder damages frames \
under 3 columns without subsampled chroma; use a width of 3 or more" -s "$1" --pix-fmt "$2" \
        ${3:-} -n 1 -c ffv1 -o o.mkv
done
"$ROCKPOOL" "$scene" -q -s 3x100 -n 2 -c ffv1 --pix-fmt gray -o g3.mkv
"$ROCKPOOL" "$scene" -q -s 3x100 -n 2 -c rawvideo --pix-fmt gray -o g3raw.mkv
check "ffv1 3x100 gray: decodes to the raw gray frames" test "$(frames g3.mkv)" = "$(frames g3raw.mkv)" -a \
    "$(frames g3.mkv | wc -l)" = 2

# FFV1 under 3 rows: FFmpeg 5.1's encoder at version 3 (slice CRCs) wrote 640x2 yuv444p with
# row 0 decoding as zeros, and exit 0. Refused in every pixel format, nothing created, the
# advice naming no size that is refused or damaged; 3 rows decode to the frames rendered.
ffv1_rows="FFmpeg's FFV1 encoder damages frames under 3 rows; use a height of 3 or more"
for c in "640x1" "640x2" "640x2 yuv444p" "640x1 yuv444p" "640x2 gray" "64x2 bgr0" "1000x2 bgr0" \
    "16384x1 gray" "640x2 yuv420p --check"; do
    set -- $c
    size=$1 pix=${2:+--pix-fmt $2}
    refused "ffv1 $c" "encoder ffv1 cannot encode $size: $ffv1_rows" -s "$size" $pix ${3:-} \
        -n 1 -c ffv1 -o o.mkv
done
stderr_has "ffv1 under 3 rows: a size to use" "(-s 640x4), or another codec, such as a PNG \
pattern like f_%05d.png or -c libx264 --crf 0"
refused "ffv1 640x3 yuv420p" "ffv1 with yuv420p needs an even width and height (got 640x3): use \
-s 640x4 or --pix-fmt yuv444p" -s 640x3 -n 1 -c ffv1 -o o.mkv
"$ROCKPOOL" "$scene" -q -s 640x3 -n 3 -o h3_%05d.png
"$ROCKPOOL" "$scene" -q -s 640x3 -n 3 --pix-fmt yuv444p -o h3.y4m
rgb() { ffmpeg -v error -err_detect crccheck -i "$1" -f rawvideo -pix_fmt rgb24 - | md5sum; }
yuv() { ffmpeg -v error -err_detect crccheck -i "$1" -f rawvideo -pix_fmt yuv444p - | md5sum; }
for pix in yuv444p bgr0; do
    expect_status "ffv1 640x3 $pix: renders" 0 "$ROCKPOOL" "$scene" -q -s 640x3 -n 3 -c ffv1 \
        --pix-fmt $pix -o h3_$pix.mkv
done
check "ffv1 640x3 yuv444p: decodes to the Y4M's yuv444p frames" \
    test "$(yuv h3_yuv444p.mkv)" = "$(yuv h3.y4m)"
check "ffv1 640x3 bgr0: decodes to the PNG frames' RGB" \
    test "$(rgb h3_bgr0.mkv)" = "$(rgb h3_%05d.png)"

# -q: nothing on stderr, also from encoders with loggers of their own; without -q no banner.
for enc in libx265:mp4 libsvtav1:mkv libaom-av1:mkv libvpx-vp9:webm libx264:mp4; do
    name=${enc%%:*} ext=${enc##*:}
    if ! have "$name"; then
        ok "-q -c $name: not in this FFmpeg, skipped"
        continue
    fi
    expect_status "-q -c $name renders" 0 "$ROCKPOOL" "$scene" -q -s 96x64 -n 3 -c "$name" \
        -o "q_$name.$ext"
    check "-q -c $name: stderr empty" test ! -s "$WORK/err"
    expect_status "-c $name renders" 0 "$ROCKPOOL" "$scene" -s 96x64 -n 3 -c "$name" -y \
        -o "q_$name.$ext"
    check "-c $name: no encoder banner on stderr" \
        test -z "$(grep -E '^(x265|Svt)\[?' "$WORK/err" | grep -v error)"
done

# Peak RSS flat in frame count: 100 against 1000 frames of each output. MP4 and MOV hold
# libavformat's sample index (64 bytes a frame, grown 1024 entries at a time): 58 KB at
# 1000 frames, well inside the margin.
if [ -x /usr/bin/time ]; then
    rss() { # FRAMES ARGS...: peak RSS in KB
        local n=$1
        shift
        # without AddressSanitizer's quarantine, which grows with the work done
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
            /usr/bin/time -f %M -o rss.txt "$ROCKPOOL" "$scene" -q -s 320x180 -n "$n" -y "$@" \
            >/dev/null 2>&1 && cat rss.txt
    }
    # 2 MB; under AddressSanitizer (check-all's build-san) 4 MB, for its allocator's own
    # bookkeeping, which grows with the allocations made (1.5-2.3 MB at 1000 PNG frames)
    margin=2048
    case $ROCKPOOL in */build-san/*) margin=4096 ;; esac
    x264=(-c libx264 --encoder-preset ultrafast)
    have libx264 || x264=(-c mpeg4)
    for spec in mp4 mkv mov webm png y4m framemd5; do
        case $spec in
        mp4 | mkv | mov) args=("${x264[@]}" -o "r.$spec") ;;
        webm) args=(-o r.webm) ;;
        png) args=(-o png/f_%05d.png) ;;
        y4m) args=(-o -) ;;
        framemd5) args=(-f framemd5 -o r.md5) ;;
        esac
        [ "$spec" = webm ] && n=300 || n=1000
        # the short run twice, its larger peak: the encoders' threads make a single peak
        # vary by a couple of MB from run to run on a loaded machine
        a=$(rss 100 "${args[@]}") a2=$(rss 100 "${args[@]}") b=$(rss "$n" "${args[@]}")
        [ -z "$a2" ] || [ -z "$a" ] || [ "$a2" -le "$a" ] || a=$a2
        # Past the margin, both measured once more (the short run's larger peak, the long
        # run's smaller): a busy machine has left a short run's peak 2 MB low (framemd5,
        # 30.1 MB against 32.1 to 32.4 MB in other runs of 100 to 3000 frames), while memory
        # that grows with the frames shows in every long run.
        if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -ge "$margin" ]; then
            a2=$(rss 100 "${args[@]}") b2=$(rss "$n" "${args[@]}")
            [ -z "$a2" ] || [ "$a2" -le "$a" ] || a=$a2
            [ -z "$b2" ] || [ "$b2" -ge "$b" ] || b=$b2
        fi
        if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -lt "$margin" ]; then
            ok "$spec: peak RSS 100 frames $a KB, $n frames $b KB"
        else
            bad "$spec: peak RSS 100 frames ${a:-?} KB, $n frames ${b:-?} KB (grows $((margin / 1024)) MB or more)"
        fi
        rm -rf png r.*
    done
else
    ok "peak RSS: no /usr/bin/time, skipped"
fi

# --max-memory covers what the encoder holds: at the smallest limit a run is accepted with
# (the figure its refusal at 1M names), its peak RSS stays under that limit, past the
# lookahead (90 frames). Under AddressSanitizer the peak is the sanitizer's (skipped).
at_limit() { # SIZE ARGS...: the smallest limit in MiB, then the run's peak under it in MiB
    local size=$1 need mib
    shift
    need=$("$ROCKPOOL" "$scene" -q -s "$size" -n 90 --max-memory 1M -y "$@" 2>&1 |
        sed -n 's/.*needs about \([0-9.]*\) \([MG]\)iB.*/\1 \2/p')
    mib=$(awk '{ v = $1; if ($2 == "G") v *= 1024; printf "%d", v + 1 }' <<<"$need")
    [ -n "$mib" ] && /usr/bin/time -f %M -o rss.txt "$ROCKPOOL" "$scene" -q -s "$size" -n 90 \
        --max-memory "${mib}M" -y "$@" >/dev/null 2>&1 &&
        echo "$mib $(($(tail -n 1 rss.txt) / 1024))"
}
case $ROCKPOOL in
*/build-san/*) echo "[ SKIPPED  ] encoders' peak RSS within --max-memory: not measured under AddressSanitizer" ;;
*)
    for c in "1920x1080 libx264 mp4" "1920x1080 ffv1 mkv" "640x360 libvpx-vp9 webm" \
        "640x360 libx265 mkv"; do
        set -- $c
        have "$2" || { ok "$2: not installed, skipped"; continue; }
        r=$(at_limit "$1" -c "$2" -o "lim.$3")
        set -- $c $r
        if [ -n "$r" ] && [ "$5" -le "$4" ]; then ok "$2 at $1: peak $5 MiB within the limit of $4 MiB it was accepted at"
        else bad "$2 at $1: peak ${5:-?} MiB over the limit of ${4:-?} MiB it was accepted at"; fi
    done
    # -j 256: the render's threads and buffers grow with -j, the encoder's threads stop at 16
    r=$(at_limit 1920x1080 -c libx264 -o lim.mp4 -j 256)
    set -- $r
    if [ -n "$r" ] && [ "$2" -le "$1" ]; then ok "libx264 at 1920x1080 -j 256: peak $2 MiB within the limit of $1 MiB it was accepted at"
    else bad "libx264 at 1920x1080 -j 256: peak ${2:-?} MiB over the limit of ${1:-?} MiB it was accepted at"; fi
    rm -f lim.* rss.txt ;;
esac
