#!/usr/bin/env bash
# backgrounds.sh - the pictures a user brings as -i: every still format FFmpeg writes is read
# (TIFF too, raw or LZW, deflate or PackBits compressed, and TIFF frames in a MOV), and gives
# the frames the same picture gives as a PNG or as a lossless FFV1 video; a TIFF, an OpenEXR,
# a QOI, a JPEG-LS or a Sun raster cut short is still refused (exit 2, no output), and so is
# a photo whose EXIF orientation says to turn it; and a background gives the same frames when
# FFmpeg is held to its plain C code or to SSE2, as on another machine.
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

# ---- a photo whose EXIF orientation says to turn it (a phone's portrait photo is stored on
# its side) is refused, as a rotated video is: it was drawn on its side, exit 0. Orientation
# 1 (upright) gives the plain JPEG's frames -------------------------------------------------
ffmpeg -v error -i pic.png -q:v 2 pic.jpg
# exif_jpeg IN OUT N: IN with an EXIF APP1 segment (TIFF IFD0: Orientation = N) after SOI
exif_jpeg() {
    python3 - "$@" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
tiff = b"II*\0" + struct.pack("<IH", 8, 1) + struct.pack("<HHIHH", 0x0112, 3, 1, int(sys.argv[3]), 0) \
    + struct.pack("<I", 0)
app1 = b"Exif\0\0" + tiff
open(sys.argv[2], "wb").write(d[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + d[2:])
PY
}
"$ROCKPOOL" -q b.scene -i pic.jpg --hash >jpg.hash
for o in 1 2 3 4 5 6 7 8; do
    exif_jpeg pic.jpg "o$o.jpg" "$o"
    # the orientation as FFmpeg's decoder reads it from the file
    got=$(ffprobe -v error -show_entries frame_tags=Orientation -of csv=p=0 "o$o.jpg" | tr -d ' ,')
    check "ffprobe reads o$o.jpg's EXIF orientation as $o ($got)" test "$got" = "$o"
    if [ "$o" = 1 ]; then
        expect_status "EXIF orientation 1 (upright): rendered" 0 "$ROCKPOOL" -q b.scene \
            -i o1.jpg --hash
        check "... the plain JPEG's frames" cmp -s out jpg.hash
        continue
    fi
    case $o in 2 | 4 | 5 | 7) what="is stored mirrored (its EXIF orientation)" ;;
    3) what="is to be shown rotated by 180 degrees (its EXIF orientation)" ;;
    *) what="is to be shown rotated by 90 degrees (its EXIF orientation)" ;;
    esac
    expect_status "EXIF orientation $o: refused (exit 2)" 2 "$ROCKPOOL" -q b.scene -i "o$o.jpg" \
        -o "o$o.mp4"
    stderr_has "... naming the file and why" "image 'o$o.jpg' $what"
    check "... no output" test ! -e "o$o.mp4"
done
check "ffmpeg turns orientation 6 upright (90x160)" test "$(ffmpeg -v error -i o6.jpg \
    -frames:v 1 -f image2 -c:v png - | ffprobe -v error -show_entries stream=width,height \
    -of csv=s=x:p=0 -)" = 90x160
mkdir -p m
cp o6.jpg m/mask.jpg
printf 'size 160x90\nduration 2f\nat 0s wall mask mask.jpg\n' >m/w.scene
expect_status "a wall mask with EXIF orientation 6: refused (exit 2)" 2 "$ROCKPOOL" -q m/w.scene \
    -o w.mp4
stderr_has "... at the scene's line" "w.scene:3:"
stderr_has "... saying why" "is to be shown rotated by 90 degrees"
check "... no output" test ! -e w.mp4

# ---- an OpenEXR cut short is refused: FFmpeg's EXR decoder drops the error of each block
# past the cut, and the picture rendered black below it, exit 0 -------------------------------
ffmpeg -v error -i pic.png -pix_fmt gbrpf32le -compression zip1 pic.exr
expect_status "a whole OpenEXR background: rendered" 0 "$ROCKPOOL" -q b.scene -i pic.exr --hash
size=$(stat -c %s pic.exr)
for pc in 10 50 90 99; do
    head -c $((size * pc / 100)) pic.exr >"cut$pc.exr"
    expect_status "the EXR cut at $pc%: refused (exit 2)" 2 "$ROCKPOOL" -q b.scene \
        -i "cut$pc.exr" -o "cut$pc.mp4"
    stderr_has "... naming the file, damaged or cut short" \
        "cannot decode image 'cut$pc.exr' (exr): Invalid data found when processing input (damaged, or cut short)"
    check "... no output" test ! -e "cut$pc.mp4"
done

# ---- FFmpeg's CPU paths -----------------------------------------------------------------------
# The same frames on any machine: libswscale, which converts and scales every background, has
# SIMD code chosen by the CPU, and rockpool asks it for its bit-exact results (SWS_BITEXACT,
# SWS_ACCURATE_RND). A library preloaded into rockpool holds FFmpeg to its plain C code
# (av_force_cpu_flags(0)), as on a CPU without SSE, or to SSE2 at most (an old x86-64): a
# JPEG (YUV 4:2:0, 1001x777, scaled down and up) and an H.264 clip (YUV 4:2:0, 200x112) give
# the frames they give with every CPU feature. Without those two flags the YUV backgrounds'
# frames differ between the CPU paths. (Not under the sanitizers: their runtime must be the
# first library loaded.)
if nm "$ROCKPOOL" 2>/dev/null | grep -q __asan_init; then
    echo "[ SKIPPED  ] FFmpeg held to its C code: a preloaded library cannot come before the sanitizers' runtime"
elif ! avutil_flags=$(pkg-config --cflags --libs libavutil 2>/dev/null); then
    echo "[ SKIPPED  ] FFmpeg held to its C code: no pkg-config data for libavutil"
else
    # FORCE_CPU: the flags (decimal; 0 = none); the flags in force are written to FORCE_CPU_OUT
    printf '%s\n' '#include <libavutil/cpu.h>' '#include <stdio.h>' '#include <stdlib.h>' \
        '__attribute__((constructor)) static void force(void)' \
        '{ const char *s = getenv("FORCE_CPU"), *o = getenv("FORCE_CPU_OUT"); FILE *f;' \
        '  av_force_cpu_flags(s ? atoi(s) : 0);' \
        '  if (o && (f = fopen(o, "w"))) { fprintf(f, "%d\n", av_get_cpu_flags()); fclose(f); } }' \
        >forcecpu.c
    # shellcheck disable=SC2086 # pkg-config's flags are words
    ${CC:-cc} -shared -fPIC -o forcecpu.so forcecpu.c $avutil_flags
    ffmpeg -v error -f lavfi -i testsrc2=size=1001x777 -frames:v 1 -pix_fmt yuvj420p odd.jpg
    ffmpeg -v error -f lavfi -i testsrc2=size=200x112:rate=30 -frames:v 10 -pix_fmt yuv420p \
        -c:v libx264 clip264.mp4
    # sse2: AV_CPU_FLAG_MMX | MMXEXT | SSE | SSE2
    for cpu in 0:none 27:sse2; do
        flags=${cpu%%:*} name=${cpu#*:}
        rm -f cpu.txt
        FORCE_CPU=$flags FORCE_CPU_OUT=$PWD/cpu.txt LD_PRELOAD=$PWD/forcecpu.so "$ROCKPOOL" -q \
            b.scene -n 1 --hash >/dev/null
        check "FFmpeg held to $name: its CPU flags are $flags in rockpool" \
            test "$(cat cpu.txt 2>/dev/null)" = "$flags"
        for bg in odd.jpg:160x90 odd.jpg:1282x722 clip264.mp4:160x90; do
            file=${bg%%:*} size=${bg#*:}
            "$ROCKPOOL" -q b.scene -i "$file" -s "$size" --hash >all.hash
            FORCE_CPU=$flags LD_PRELOAD=$PWD/forcecpu.so "$ROCKPOOL" -q b.scene -i "$file" \
                -s "$size" --hash >forced.hash
            check "$file at $size, FFmpeg held to $name: the frames of every CPU feature" \
                sh -c 'test "$(wc -l <all.hash)" -eq 6 && cmp -s all.hash forced.hash'
        done
    done
fi

# ---- a QOI cut short is refused: FFmpeg's QOI decoder repeats the last pixel where the data
# stops, and the picture rendered smeared below the cut, exit 0. A whole QOI (lossless) gives
# the PNG's frames ---------------------------------------------------------------------------
ffmpeg -v error -i ref.png pic.qoi
expect_status "a QOI background: rendered" 0 "$ROCKPOOL" -q b.scene -i pic.qoi --hash
check "... the PNG's frames" cmp -s out ref.hash
size=$(stat -c %s pic.qoi)
for pc in 10 50 99; do
    head -c $((size * pc / 100)) pic.qoi >"cut$pc.qoi"
    expect_status "the QOI cut at $pc%: refused (exit 2)" 2 "$ROCKPOOL" -q b.scene \
        -i "cut$pc.qoi" -o "cut$pc.mp4"
    stderr_has "... naming the file, cut short" \
        "cannot decode image 'cut$pc.qoi' (qoi): it does not end with the QOI end marker (cut short, or damaged)"
    check "... no output" test ! -e "cut$pc.mp4"
done

# ---- a QOI with its end marker but too few pixels before it (a header of 160x90, half the
# data; or its last op cut by the end marker) is refused: FFmpeg's QOI decoder reports no
# error and left the rest of the picture as it was. The files are written here by hand, by
# qoiformat.org's specification (ops: RGB 4 bytes, RGBA 5, INDEX and DIFF 1, LUMA 2, RUN 1
# for 1..62 pixels); one whose ops give every pixel, each kind of op among them, renders as
# the PNG FFmpeg decodes it to. ------------------------------------------------------------
python3 - <<'PY'
import struct
W, H = 160, 90
END = bytes(7) + b'\x01'
def qoi(ops, w=W, h=H):
    return b'qoif' + struct.pack('>IIBB', w, h, 3, 0) + b''.join(ops) + END
rgb = lambda i: bytes([0xfe, i % 256, (i * 7) % 256, (i * 13) % 256])
half = [rgb(i) for i in range(W * H // 2)]
open('half.qoi', 'wb').write(qoi(half))
# every pixel but the last, then an RGB op whose three bytes would be the end marker's
open('lastcut.qoi', 'wb').write(qoi([rgb(i) for i in range(W * H - 1)] + [b'\xfe']))
ops, n = [], 0
for i in range(400):  # RGB, RGBA, INDEX, DIFF, LUMA, RUN of 3: 8 pixels a round
    ops += [rgb(i), bytes([0xff, i % 256, 40, 90, 255]), bytes([i % 64]),
            bytes([0x40 | (i % 64)]), bytes([0x80 | (i % 64), 0x88]), bytes([0xc0 | 2])]
    n += 8
while n < W * H:
    k = min(62, W * H - n)
    ops.append(bytes([0xc0 | (k - 1)]))
    n += k
open('whole.qoi', 'wb').write(qoi(ops))
# every pixel given, the last by an op of several bytes (all there, before the end marker)
last = {'rgb': b'\xfe\x10\x20\x30', 'rgba': b'\xff\x10\x20\x30\xff', 'luma': b'\xa0\x88'}
for k, op in last.items():
    open('last%s.qoi' % k, 'wb').write(qoi([rgb(i) for i in range(W * H - 1)] + [op]))
PY
expect_status "a QOI with half its pixels before the end marker: refused (exit 2)" 2 \
    "$ROCKPOOL" -q b.scene -i half.qoi -o half.mp4
stderr_has "... naming the file and the pixels it holds against its header's" \
    "cannot decode image 'half.qoi' (qoi): its data gives 7200 pixels before the end marker, and its header 160x90 = 14400 (cut short, or damaged)"
check "... no output" test ! -e half.mp4
expect_status "... and with --check: exit 2" 2 "$ROCKPOOL" --check b.scene -i half.qoi
expect_status "a QOI whose last op is cut by the end marker: refused (exit 2)" 2 \
    "$ROCKPOOL" -q b.scene -i lastcut.qoi -o lastcut.mp4
stderr_has "... one pixel short" "its data gives 14399 pixels before the end marker, and its header 160x90 = 14400"
check "... no output" test ! -e lastcut.mp4
ffmpeg -v error -i whole.qoi -pix_fmt rgb24 whole.png
"$ROCKPOOL" -q b.scene -i whole.png --hash >whole.hash
expect_status "a QOI of every kind of op, every pixel given: rendered" 0 \
    "$ROCKPOOL" -q b.scene -i whole.qoi --hash
check "... the frames of the PNG FFmpeg decodes it to" cmp -s out whole.hash
for k in rgb rgba luma; do
    ffmpeg -v error -i "last$k.qoi" -pix_fmt rgb24 "last$k.png"
    "$ROCKPOOL" -q b.scene -i "last$k.png" --hash >"last$k.hash"
    expect_status "a QOI whose last pixel is a whole $k op: rendered" 0 \
        "$ROCKPOOL" -q b.scene -i "last$k.qoi" --hash
    check "... the frames of the PNG FFmpeg decodes it to" cmp -s out "last$k.hash"
done

# ---- FITS and Alias PIX, stills FFmpeg reads with demuxers of their own (not image2): they
# were refused as 'not a still image FFmpeg can read'. Both lossless: the PNG's frames. A
# FITS cut inside its data is refused ---------------------------------------------------------
for e in fits pix; do
    ffmpeg -v error -i ref.png "pic.$e"
    expect_status "a .$e background: rendered" 0 "$ROCKPOOL" -q b.scene -i "pic.$e" --hash
    check "... the PNG's frames" cmp -s out ref.hash
done
head -c $(($(stat -c %s pic.fits) / 2)) pic.fits >cut50.fits
expect_status "the FITS cut at 50%: refused (exit 2)" 2 "$ROCKPOOL" -q b.scene -i cut50.fits \
    -o cut50f.mp4
stderr_has "... naming the file" "cannot decode image 'cut50.fits' (fits)"
check "... no output" test ! -e cut50f.mp4

# ---- JPEG-LS and Sun raster cut short are refused too: their decoders read a cut scan as
# zeros or leave the rows past the cut as they were, and the picture rendered, exit 0. Both
# are lossless here: a whole file gives the PNG's frames --------------------------------------
ffmpeg -v error -i ref.png -pix_fmt bgr24 -c:v jpegls pic.jls
ffmpeg -v error -i ref.png -pix_fmt bgr24 -c:v sunrast pic.sun
for f in pic.jls pic.sun; do
    ext=${f#pic.}
    expect_status "a .$ext background: rendered" 0 "$ROCKPOOL" -q b.scene -i "$f" --hash
    check "... the PNG's frames" cmp -s out ref.hash
    size=$(stat -c %s "$f")
    for pc in 50 98; do
        head -c $((size * pc / 100)) "$f" >"cut$pc.$ext"
        check "... (ffmpeg decodes cut$pc.$ext without an error)" \
            bash -c 'ffmpeg -v error -i "$1" -f null - 2>&1 | grep -q . && exit 1 || exit 0' _ "cut$pc.$ext"
        expect_status "the .$ext cut at $pc%: refused (exit 2)" 2 "$ROCKPOOL" -q b.scene \
            -i "cut$pc.$ext" -o "cut$pc-$ext.mp4"
        case $ext in
        jls) what="cannot decode image 'cut$pc.jls' (jpegls): it does not end with the JPEG end marker FF D9 (cut short, or damaged)" ;;
        sun) what="cannot decode image 'cut$pc.sun' (sunrast): it holds $((size * pc / 100 - 32)) bytes after its header, which gives $((size - 32)) (cut short, or damaged)" ;;
        esac
        stderr_has "... naming the file, cut short" "$what"
        check "... no output" test ! -e "cut$pc-$ext.mp4"
    done
done

# ---- interlaced footage (DV, broadcast MPEG-2, 1080i camcorders) is drawn a whole frame at a
# time, as ffmpeg converts it without a deinterlacer: said once, with the field order and the
# bwdif command that deinterlaces it first; progressive footage is not called interlaced ------
ffmpeg -v error -f lavfi -i testsrc2=size=160x96:rate=25:duration=1 -vf setfield=tff \
    -flags +ildct+ilme -top 1 -bf 0 -c:v mpeg2video il-tff.mpg
ffmpeg -v error -f lavfi -i testsrc2=size=160x96:rate=25:duration=1 -vf setfield=bff \
    -pix_fmt yuv420p -c:v libx264 -x264-params interlaced=1:bff=1 il-bff.mkv
ffmpeg -v error -f lavfi -i testsrc2=size=160x96:rate=25:duration=1 -pix_fmt yuv420p \
    -c:v libx264 il-prog.mp4
for spec in "il-tff.mpg top" "il-bff.mkv bottom"; do
    set -- $spec
    expect_status "an interlaced clip, $1: rendered (exit 0)" 0 "$ROCKPOOL" b.scene -i "$1" \
        -o "$1.png"
    stderr_has "... with a warning naming its field order" "'$1' is interlaced ($2 field first)"
    stderr_has "... and the command that deinterlaces it" "-vf bwdif=mode=send_frame"
    check "... once" test "$(grep -c 'is interlaced' "$WORK/err")" = 1
done
expect_status "a progressive clip: rendered (exit 0)" 0 "$ROCKPOOL" b.scene -i il-prog.mp4 \
    -o il-prog.png
check "... is not called interlaced" test "$(grep -c 'interlaced' "$WORK/err")" = 0
