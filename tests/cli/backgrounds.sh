#!/usr/bin/env bash
# backgrounds.sh - the pictures a user brings as -i: every still format FFmpeg writes is read
# (TIFF too, raw or LZW, deflate or PackBits compressed, and TIFF frames in a MOV), and gives
# the frames the same picture gives as a PNG or as a lossless FFV1 video; a TIFF cut short is
# still refused (exit 2, no output).
# The oracle is FFmpeg: it converts each file to the reference format itself.
source "$(dirname "$0")/lib.sh"

printf 'size 160x90\nfps 30\nduration 6f\nseed 3\nat 0s drop 50%% 50%% radius 12 height 1500
at 1f drop 20%% 30%% radius 6 height -900\n' >b.scene
ffmpeg -v error -f lavfi -i testsrc2=size=160x90 -frames:v 1 pic.png
ffmpeg -v error -i pic.png -pix_fmt rgb24 ref.png
"$ROCKPOOL" -q b.scene -i ref.png --hash >ref.hash
check "the PNG's render has 6 frames" test "$(wc -l <ref.hash)" -eq 6

# ---- TIFF stills ------------------------------------------------------------------------------
for algo in raw lzw deflate packbits; do
    ffmpeg -v error -i pic.png -pix_fmt rgb24 -compression_algo "$algo" "pic-$algo.tiff"
    # FFmpeg's reading of the TIFF is the picture the PNG holds (the writer is lossless)
    ffmpeg -v error -i "pic-$algo.tiff" -pix_fmt rgb24 "back-$algo.png"
    check "ffmpeg reads pic-$algo.tiff back as the picture" \
        cmp -s <(ffmpeg -v error -i ref.png -f rawvideo -pix_fmt rgb24 -) \
        <(ffmpeg -v error -i "back-$algo.png" -f rawvideo -pix_fmt rgb24 -)
    expect_status "a $algo TIFF background renders (exit 0)" 0 \
        "$ROCKPOOL" -q b.scene -i "pic-$algo.tiff" --hash
    check "a $algo TIFF background gives the PNG's frames" cmp -s out ref.hash
done

# A TIFF cut short (FFmpeg writes the directory last: gone) is still refused, nothing written.
head -c 20000 pic-raw.tiff >cut.tiff
expect_status "a TIFF cut short is refused (exit 2)" 2 \
    "$ROCKPOOL" -q b.scene -i cut.tiff -o cut.mp4
stderr_has "a TIFF cut short: the file is named" "cut.tiff"
check "a TIFF cut short: no output" test ! -e cut.mp4

# ---- TIFF frames in a MOV as a video background ----------------------------------------------
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30 -frames:v 6 -pix_fmt rgb24 \
    -c:v tiff clip-tiff.mov
ffmpeg -v error -i clip-tiff.mov -c:v ffv1 -pix_fmt rgb24 clip-ffv1.mkv
check "ffmpeg decodes the TIFF MOV (6 frames)" test "$(probe clip-tiff.mov nb_read_frames)" = 6
"$ROCKPOOL" -q b.scene -i clip-ffv1.mkv --hash >vref.hash
expect_status "a MOV of TIFF frames is a video background (exit 0)" 0 \
    "$ROCKPOOL" -q b.scene -i clip-tiff.mov --hash
check "a MOV of TIFF frames gives the FFV1 copy's frames" cmp -s out vref.hash
check "the video background moves (its frames differ from the still's)" \
    test "$(sort -u -k2 vref.hash | wc -l)" -eq 6
