#!/usr/bin/env bash
# codec_container.sh - a codec the container cannot hold (rockpool(1) -c): webp or gif
# with another codec than their own (libavformat cannot say what they hold; their muxers
# refuse any other only once the header is written) is refused by --check and by a render
# alike, exit 2, naming the container and the encoder, nothing created. The combinations
# that work still pass --check and render.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1 # refused_unchanged compares this directory, apart from out and err

printf '%s\n' "size 64x36" "duration 2f" "at 0s drop 50% 50% radius 4 height 800" >a.scene
mkdir o
for args in "-f webp -c ffv1 -o o/x.webp" "-o o/x_%03d.PNG -f webp -c ffv1" \
    "-f gif -c ffv1 -o o/x.gif" "-c libx264 -o o/x.webp" "-c png -o o/x.gif"; do
    set -- $args
    codec=${args#*-c }
    codec=${codec%% *}
    container=webp
    case $args in *gif*) container=gif ;; esac
    want="the $container container cannot hold"
    refused_unchanged "$args: --check" "$want" a.scene -n 1 "$@" --check
    stderr_has "$args: --check names the encoder" "(encoder $codec)"
    refused_unchanged "$args: the render" "$want" a.scene -n 1 "$@"
    check "$args: o/ is empty" test -z "$(ls -A o)"
done
# an encoder's options where there is no video encoder: not used (a farm gives every kind
# of output the same options), but a name that names nothing is refused
for args in "-c nonsense -o o/x_%03d.png" "-c nonsense -f framemd5 -o o/x.md5" \
    "-c nonsense -o o/x.y4m" "--pix-fmt bogus -o o/x_%03d.png"; do
    set -- $args
    refused_unchanged "$args: --check" "unknown" a.scene -n 1 "$@" --check
    refused_unchanged "$args: the render" "unknown" a.scene -n 1 "$@"
    check "$args: o/ is empty" test -z "$(ls -A o)"
done
refused_unchanged "--hash -c nonsense: an unknown encoder" "unknown video encoder 'nonsense'" \
    a.scene -n 1 --hash -c nonsense
for args in "-c ffv1 --crf 20 -o un_%03d.png" "-c libx264 -b 4M -f framemd5 -o un.md5" \
    "--pix-fmt yuv444p -o y444.y4m" "-c rawvideo -o yraw.y4m"; do
    set -- $args
    expect_status "$args: renders" 0 "$R" a.scene -q -n 1 "$@"
    out=${args##* }
    check "$args: written" test -s "${out/\%03d/000}"
done
# A lossless encoder has no rate to set: -b was dropped without a word, and --crf's refusal
# said "use -b/--bitrate". Refused before anything is created, by --check too.
for a in "-c ffv1 -b 4M|encoder ffv1 is lossless: it takes no bit rate (-b 4M)" \
    "-c png -b:v 2M|encoder png is lossless: it takes no bit rate (-b:v 2M)" \
    "-c utvideo --bitrate 1M|encoder utvideo is lossless: it takes no bit rate (--bitrate 1M)" \
    "-c ffv1 --crf 20|encoder ffv1 has no constant rate factor (--crf 20): it is lossless, and takes no bit rate either"; do
    set -- ${a%%|*}
    for c in "" --check; do
        expect_status "${a%%|*} $c: exit 2" 2 "$R" a.scene -q -n 1 "$@" $c -o lossless.mkv
        stderr_has "... says so" "error: ${a#*|}"
    done
    check "... no -b/--bitrate offered" sh -c "! grep -q 'use -b' '$WORK/err'"
    check "... nothing written" test ! -e lossless.mkv
done
expect_status "-c mpeg4 -b 300k (a lossy encoder): renders" 0 "$R" a.scene -q -n 3 -c mpeg4 \
    -b 300k -o lossy.mkv
check "... an MPEG-4 video (ffprobe)" test "$(probe lossy.mkv codec_name)" = mpeg4
# the combinations that work, as they did
for args in "-o ok.webp" "-c libwebp_anim -o ok2.webp" "-o ok.gif" "-c gif -o ok2.gif" \
    "-c ffv1 -o ok.mkv" "-c mpeg4 -o ok.mp4" "-c libvpx -o ok.webm" "-o ok.mov"; do
    set -- $args
    expect_status "$args: --check passes" 0 "$R" a.scene -q -n 1 "$@" --check
    expect_status "$args: renders" 0 "$R" a.scene -q -n 1 "$@"
    check "$args: written" test -s "${args##* }"
done
# Matroska holds what has a Video for Windows tag, as FFmpeg's muxer writes it (they were
# refused as 'the mkv container cannot hold'); WebM stays VP8, VP9 and AV1
for c in utvideo huffyuv; do
    expect_status "-c $c -o x.mkv: renders" 0 "$R" a.scene -q -n 2 -c $c -o vfw_$c.mkv
    check "-c $c -o x.mkv: ffmpeg decodes its 2 frames" test "$(ffprobe -v error -count_frames \
        -show_entries stream=codec_name,nb_read_frames -of csv=p=0 vfw_$c.mkv)" = "$c,2"
done
refused_unchanged "-c utvideo -o x.webm: refused" "the webm container cannot hold" a.scene -n 1 \
    -c utvideo -o o/x.webm
# ... but not every codec libavformat lists for it: for these FFmpeg's Matroska muxer
# refused the header once the file existed (exit 1, "cannot write the header of x.mkv:
# Invalid argument", after --check had passed). Refused before anything is created.
# FFmpeg's video encoders, listed once; has_encoder NAME: this FFmpeg has it
encoders=$(ffmpeg -hide_banner -encoders 2>/dev/null)
has_encoder() { grep -qE "^ V[^ ]* +$1 " <<<"$encoders"; }
for c in flashsv2 xface qoi roqvideo wrapped_avframe rv10; do
    has_encoder "$c" || continue
    for extra in "" --check; do
        refused_unchanged "-c $c -o x.mkv $extra" \
            "the mkv container cannot hold ${c%video} video (encoder $c): FFmpeg's Matroska muxer refuses it" \
            a.scene -n 1 -s 64x48 -c $c $extra -o o/x.mkv
    done
done
# MOV refuses AV1, VP9 and VP8 (MP4 takes AV1 and VP9) in its header, once the file existed
# (exit 1, "cannot write the header of x.mov"): its header is written in memory first too.
for c in libvpx-vp9:vp9 libaom-av1:av1 libvpx:vp8; do
    has_encoder "${c%%:*}" || continue
    for extra in "" --check; do
        refused_unchanged "-c ${c%%:*} -o x.mov $extra" \
            "the mov container cannot hold ${c##*:} video (encoder ${c%%:*}): FFmpeg's QuickTime / MOV muxer refuses it" \
            a.scene -n 1 -s 64x48 -c ${c%%:*} $extra -o o/x.mov
    done
done
# Matroska takes qtrle's header, but without the bits a pixel its decoder needs: the file
# rendered (exit 0) and nothing read it ("Unsupported colorspace: 0 bits/sample?"). The
# trial header is read back into FFmpeg's decoder; qtrle in MOV renders and decodes.
if has_encoder qtrle; then
    for extra in "" --check; do
        refused_unchanged "-c qtrle -o x.mkv $extra" \
            "the mkv container cannot hold qtrle video (encoder qtrle): FFmpeg's Matroska muxer writes it without what its qtrle decoder needs to read it back" \
            a.scene -n 1 -s 64x48 -c qtrle $extra -o o/x.mkv
    done
    expect_status "-c qtrle -o x.mov: renders" 0 "$R" a.scene -q -n 3 -s 64x48 -c qtrle -o qt.mov
    check "-c qtrle -o x.mov: ffmpeg decodes 3 frames" \
        test "$(ffmpeg -v error -i qt.mov -f framemd5 - | grep -vc '^#')" = 3
fi
# a64multi (and a64multi5) in Matroska: a track FFmpeg reads back as codec "none" (rendered
# with exit 0, and "Decoder (codec none) not found" from ffmpeg); refused like qtrle's
for c in a64multi a64multi5; do
    if ! has_encoder "$c"; then
        echo "[  SKIPPED ] -c $c -o x.mkv: this FFmpeg has no $c encoder"
        continue
    fi
    for extra in "" " --check"; do
        refused_unchanged "-c $c -o x.mkv$extra" \
            "the mkv container cannot hold video from encoder $c: FFmpeg's Matroska muxer writes it as a track that FFmpeg reads back as no known codec" \
            a.scene -n 1 -s 320x200 -c $c $extra -o o/x.mkv # (unquoted: "" is no argument)
    done
done
# Raw video in QuickTime: RGB24, the frames as they are (it was yuv420p, which FFmpeg's mov
# muxer writes with a warning as a file nothing decodes); a layout it has no tag for is
# refused
expect_status "-c rawvideo -o x.mov: renders" 0 "$R" a.scene -q -c rawvideo -o raw.mov
"$R" a.scene -q -f framemd5 -o raw_ours.md5
ffmpeg -v error -i raw.mov -pix_fmt rgb24 -f framemd5 - >raw_theirs.md5
check "-c rawvideo -o x.mov: ffmpeg decodes the frames rockpool hashes, byte for byte" \
    test "$(grep -v '^#' raw_theirs.md5 | awk -F', *' '{print $6}')" = \
    "$(grep -v '^#' raw_ours.md5 | awk -F', *' '{print $6}')"
refused_unchanged "-c rawvideo --pix-fmt yuv420p -o x.mov: refused" \
    "the mov container cannot hold rawvideo as yuv420p" a.scene -n 1 -c rawvideo --pix-fmt yuv420p \
    -o o/x.mov
# Encoders FFmpeg opens with a bit rate and then ignores it (the same bytes at any -b):
# refused, the option named as typed, by --check, a render and --job-id alike (prores_ks
# gave identical files at -b 1M and -b 100M). First, that FFmpeg itself ignores it here.
packets() { # packets ENCODER RATE: the md5 of the packets ffmpeg encodes from testsrc2
    ffmpeg -v error -f lavfi -i testsrc2=s=320x240:d=2 -c:v "$1" -b:v "$2" -f framemd5 - |
        grep -v '^#' | md5sum
}
for c in prores_ks cinepak svq1; do
    has_encoder "$c" || continue
    ext=mkv
    [ $c = prores_ks ] && ext=mov
    check "ffmpeg -c:v $c: -b:v 50k and 20M encode the same packets" \
        test "$(packets $c 50k)" = "$(packets $c 20M)"
    for b in "-b 1M" "-b:v 100M" "--bitrate 4M"; do
        for extra in "" --check --job-id; do
            refused_unchanged "-c $c $b $extra" \
                "encoder $c takes no bit rate ($b): it sets its own rate, and takes no --crf" \
                a.scene -n 2 -c $c $b $extra -o o/x.$ext
        done
    done
    refused_unchanged "-c $c --crf 18" \
        "encoder $c has no constant rate factor (--crf 18): it sets its own rate, and takes no bit rate either" \
        a.scene -n 2 -c $c --crf 18 -o o/x.$ext
    check "-c $c --crf 18: -b is not offered" sh -c "! grep -q 'use -b' '$WORK/err'"
done
# GIF and WebP keep their own quality: the refusal names the option as typed (it said '-b'
# for -b:v 1M, '--crf' for -crf 20)
for a in "-b:v 1M -o o/x.gif|encoder gif takes no bit rate (-b:v 1M): GIF is lossless over its palette" \
    "-crf 20 -o o/x.gif|encoder gif has no constant rate factor (-crf 20): GIF is lossless" \
    "--bitrate 2.5M -o o/x.webp|encoder libwebp_anim takes no bit rate (--bitrate 2.5M)" \
    "-crf 30 -o o/x.webp|encoder libwebp_anim has no constant rate factor (-crf 30)"; do
    set -- ${a%%|*}
    for extra in "" --job-id; do
        refused_unchanged "${a%%|*} $extra" "${a#*|}" a.scene -n 2 "$@" $extra
    done
done
# --job-id refuses what the render refuses (a lossless encoder's -b printed an identity)
refused_unchanged "-c ffv1 -b 4M --job-id" "encoder ffv1 is lossless: it takes no bit rate (-b 4M)" \
    a.scene -n 2 -c ffv1 -b 4M --job-id -o o/x.mkv
expect_status "-c mpeg4 -b 300k --job-id (a bit rate mpeg4 takes): exit 0" 0 "$R" a.scene -q \
    -n 2 -c mpeg4 -b 300k --job-id -o o/x.mkv
check "... o/ is empty" test -z "$(ls -A o)"
# MJPEG and lossless JPEG default to JPEG's full range, yuvj420p: FFmpeg's encoders list
# yuv420p but refuse its limited range ("Non full-range YUV is non-standard"), so -c mjpeg
# with no --pix-fmt was refused. The file decodes as close to the PNG of the same frame as
# ffmpeg's own encoding of that PNG to yuvj420p (q 4, rockpool's quantiser for crf 23), to
# within 1 dB of PSNR.
"$R" a.scene -q -n 3 -f png -o o/ref_%02d.png
psnr() {
    ffmpeg -nostdin -i "$1" -i o/ref_02.png -filter_complex \
        "[0:v]select=eq(n\,$2),format=rgb24[a];[1:v]format=rgb24[b];[a][b]psnr" -f null - 2>&1 |
        sed -n 's/.*average:\([0-9.]*\).*/\1/p'
}
for c in mjpeg ljpeg; do
    expect_status "-c $c -o o/$c.mkv with no --pix-fmt: exit 0" 0 "$R" a.scene -q -n 3 -c $c \
        -o o/$c.mkv
    check "-c $c: ffprobe reads mjpeg yuvj420p" \
        test "$(ffprobe -v error -show_entries stream=codec_name,pix_fmt -of csv=p=0 o/$c.mkv)" = \
        "mjpeg,yuvj420p"
    ffmpeg -nostdin -v error -i o/ref_02.png -c:v $c -pix_fmt yuvj420p -q:v 4 o/ff_$c.mkv
    ours=$(psnr o/$c.mkv 2) theirs=$(psnr o/ff_$c.mkv 0)
    check "-c $c: frame 2 as close to the PNG as ffmpeg's own $c ($ours against $theirs dB)" \
        awk -v a="${ours:-0}" -v b="${theirs:-99}" 'BEGIN { exit !(a > 20 && a >= b - 1) }'
done
rm -f o/ref_*.png o/mjpeg.mkv o/ljpeg.mkv o/ff_mjpeg.mkv o/ff_ljpeg.mkv
# An encoder's reason over two lines is said on one: h261's sizes were joined by a '?'
refused_unchanged "-c h261 at 64x48" \
    "not valid for the H.261 codec. Valid sizes are 176x144, 352x288" \
    a.scene -n 2 -s 64x48 -c h261 -o o/h.mkv
