#!/usr/bin/env bash
# newcomer.sh - what a video maker meets with their own photos and footage (issue 45).
# Sizes: with no -s, a background with an odd side gives an encodable size (one less on
# that side) and one warning line, for an output that needs even sides (H.264 yuv420p);
# only an odd -s is refused; outputs that take odd sides keep them. Expected sizes are
# worked out by hand from the inputs and read back with ffprobe.
source "$(dirname "$0")/lib.sh"

size() { ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 "$1"; }
warnings() { grep -c 'warning' "$WORK/err"; }

# ---- sizes: odd backgrounds ---------------------------------------------------------------
ffmpeg -v error -f lavfi -i testsrc2=size=1002x778 -frames:v 1 -vf format=rgb24,crop=1001:777:0:0 \
    photo.png
check "the photo is 1001x777 (ffprobe)" test "$(size photo.png)" = 1001,777
expect_status "a 1001x777 photo to MP4 without -s: exit 0" 0 "$ROCKPOOL" -i photo.png -n 3 -o p.mp4
check "... the MP4 is 1000x776 (ffprobe)" test "$(size p.mp4)" = 1000,776
check "... one warning line" test "$(warnings)" = 1
stderr_has "... saying the size, the reason and the size written" \
    "1001x777, is odd and H.264 with yuv420p needs even sides: the output is 1000x776"
expect_status "an explicit -s 1001x777 to MP4: exit 2" 2 "$ROCKPOOL" -i photo.png -s 1001x777 \
    -n 3 -o s.mp4
stderr_has "... says why and what works" "needs an even width and height (got 1001x777)"
check "... and writes nothing" test ! -e s.mp4
expect_status "the photo to PNG frames: exit 0" 0 "$ROCKPOOL" -i photo.png -n 1 -o f_%d.png
check "... the frames keep 1001x777" test "$(size f_0.png)" = 1001,777
check "... no warning" test "$(warnings)" = 0
expect_status "the photo to Y4M: exit 0" 0 "$ROCKPOOL" -i photo.png -n 1 -o p.y4m
check "... 1001x777 kept (4:4:4)" test "$(size p.y4m)" = 1001,777
expect_status "the photo to WebP: exit 0" 0 "$ROCKPOOL" -i photo.png -n 1 -o p.webp
check "... 1001x777 kept (fed RGB)" test "$(webpinfo p.webp | grep -oE '(Width|Height): [0-9]+' |
    tr '\n' ' ')" = "Width: 1001 Height: 777 "
# --help says so: the default size is made even for a 4:2:0 video alone (it said "even" for
# every output)
"$ROCKPOOL" --help >help.txt
check "--help: -s's default is even for 4:2:0 video alone" \
    grep -qE -- '^  -s, --size WxH .*\(even for 4:2:0 video\)$' help.txt
expect_status "the photo to MP4 with --pix-fmt yuv444p: exit 0" 0 "$ROCKPOOL" -i photo.png -n 2 \
    --pix-fmt yuv444p -o q.mp4
check "... 1001x777 kept (4:4:4 takes odd sides)" test "$(size q.mp4)" = 1001,777

# 1920x1080 stored, pixels 22423:22429 (what ffmpeg's scale gives): 1920 * 22423 / 22429 =
# 1919.49, shown 1919 wide, so 1918x1080 is what H.264 yuv420p can take.
ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=25 -frames:v 4 \
    -vf setsar=sar=22423/22429:max=30000 -c:v libx264 -preset ultrafast -pix_fmt yuv420p clip.mp4
check "the clip's pixel aspect is 22423:22429 (ffprobe)" test "$(ffprobe -v error -select_streams \
    v:0 -show_entries stream=sample_aspect_ratio -of csv=p=0 clip.mp4)" = 22423:22429
expect_status "the clip to MP4 without -s: exit 0" 0 "$ROCKPOOL" -i clip.mp4 -n 2 -o c.mp4
check "... the MP4 is 1918x1080 (ffprobe)" test "$(size c.mp4)" = 1918,1080
stderr_has "... one line saying so" "1919x1080, is odd and H.264 with yuv420p needs even sides"
check "... one warning" test "$(warnings)" = 1

# ---- the photo given as SCENE (rockpool photo.png -o p.mp4: -i forgotten) ----------------
# The parser's 'invalid UTF-8 byte 0x89' over a line of binary said nothing of the mistake.
expect_status "a photo as SCENE: exit 2" 2 "$ROCKPOOL" photo.png -o asscene.mp4
stderr_has "... says it is a PNG image and what to type" \
    "photo.png is a PNG image, not a scene (rockpool-scene(5)): to render water over it, give it as the background: rockpool -i photo.png -o out.mp4"
check "... and writes nothing" test ! -e asscene.mp4
expect_status "the clip as SCENE: exit 2" 2 "$ROCKPOOL" clip.mp4 --check
stderr_has "... an MP4 file, not a scene" "clip.mp4 is an MP4, QuickTime or HEIF file, not a scene"
# ... and the output given as a second argument, as ffmpeg takes it (-o forgotten)
expect_status "an output name after SCENE: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" \
    second.mp4
stderr_has "... says to give it with -o" \
    "unexpected argument 'second.mp4' (only one SCENE is read): to write to it, give it with -o, as in rockpool $TOP/examples/rain.scene -o second.mp4"
check "... and writes nothing" sh -c 'test ! -e second.mp4 && test ! -e rockpool.mp4'
# The commands suggested are as a shell takes them: a name with a space, a quote or a $ is
# single-quoted ('\'' for a quote). Each is checked by running it: the shell must give
# back the names, and rockpool must take them (--check).
cp photo.png "my photo's \$HOME.png"
cp "$TOP/examples/rain.scene" "it's a scene.scene"
expect_status "a photo with a space and a quote as SCENE: exit 2" 2 "$ROCKPOOL" \
    "my photo's \$HOME.png"
stderr_has "... the suggested command quoted" \
    "give it as the background: rockpool -i 'my photo'\\''s \$HOME.png' -o out.mp4"
cmd=$(sed -n 's/.*give it as the background: rockpool //p' "$WORK/err")
eval "set -- $cmd"
check "... the shell gives back the photo's name" test "$#:$2:$4" = "4:my photo's \$HOME.png:out.mp4"
expect_status "... and the command runs (--check)" 0 "$ROCKPOOL" "$@" --check
expect_status "an output name with a space after a SCENE with a quote: exit 2" 2 "$ROCKPOOL" \
    "it's a scene.scene" "out put.mp4"
stderr_has "... the suggested command quoted" \
    "as in rockpool 'it'\\''s a scene.scene' -o 'out put.mp4'"
cmd=$(sed -n 's/.*as in rockpool //p' "$WORK/err")
eval "set -- $cmd"
check "... the shell gives back both names" test "$#:$1:$3" = "3:it's a scene.scene:out put.mp4"
expect_status "... and the command runs (--check)" 0 "$ROCKPOOL" "$@" --check
check "... nothing written" sh -c 'test ! -e "out put.mp4" && test ! -e out.mp4'
# A name no command could show (a line break, shown as '?' in messages; over 400 bytes, cut
# in messages) gets the option alone, not a command naming another file.
cp photo.png $'line\nbreak.png'
expect_status "a photo with a line break in its name as SCENE: exit 2" 2 "$ROCKPOOL" \
    $'line\nbreak.png'
stderr_has "... the option alone" "not a scene (rockpool-scene(5)): to render water over it, give it as the background, with -i"
check "... and no command naming 'line?break.png'" sh -c '! grep -q "rockpool -i" "$1"' sh "$WORK/err"
long=$(printf 'd%.0s' $(seq 200))/$(printf 'p%.0s' $(seq 220)).png
mkdir -p "${long%/*}" && cp photo.png "$long"
expect_status "a photo with a 425-byte path as SCENE: exit 2" 2 "$ROCKPOOL" "$long"
stderr_has "... the option alone" "give it as the background, with -i"
check "... no command (it would be cut)" sh -c '! grep -q "rockpool -i" "$1"' sh "$WORK/err"
expect_status "an output name with a line break after SCENE: exit 2" 2 "$ROCKPOOL" \
    "$TOP/examples/rain.scene" $'a\nb.mp4'
stderr_has "... give it with -o, no command" "(only one SCENE is read): to write to it, give it with -o"
check "... and no 'as in'" sh -c '! grep -q "as in rockpool" "$1"' sh "$WORK/err"
expect_status "another second argument: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" notes.txt
stderr_has "... says only that one SCENE is read" \
    "error: unexpected argument 'notes.txt' (only one SCENE is read)"
# ... and other tools' names for rockpool's options get the option's name (no spelling
# distance finds them: '--resolution' said only 'see rockpool --help')
for w in resolution:size framerate:fps background:input quality:crf length:duration; do
    expect_status "--${w%:*}: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" --"${w%:*}" 1 \
        --check
    stderr_has "... did you mean --${w#*:}?" \
        "error: unknown option '--${w%:*}' (did you mean --${w#*:}?)"
    check "... and --${w#*:} is an option of rockpool(1)" \
        grep -qF -- "\\-\\-${w#*:}" "$TOP/man/rockpool.1"
done
# ... also with one dash, which getopt read as -r and a glued value ('-resolution': "--fps:
# 'esolution' is not a frame rate"); a glued value that is one still works (-r25)
expect_status "-resolution 640x360: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" \
    -resolution 640x360 --check
stderr_has "... did you mean --size?" "error: unknown option '-resolution' (did you mean --size?)"
expect_status "-sise 64x48 (a typo): exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -sise 64x48 \
    --check
stderr_has "... did you mean --size?" "error: unknown option '-sise' (did you mean --size?)"
# FFmpeg's options rockpool has not, with one dash, are named whole: getopt read them as
# clusters of short options and named the first letter that is none ('-movflags' was
# "unknown option '-m'", '-q:v' "'-:'"), or took a letter and the rest as its value
# ('-qscale:v' was -q -s 'cale:v': "--size: 'cale:v' is not WIDTHxHEIGHT", '-tune' "-t: 'une'
# is not a time")
for w in -movflags -x265-params -q:v -qscale:v -tune -vsync -fflags -g; do
    expect_status "$w: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 "$w" 1 -o fw.mp4
    stderr_has "... named whole" "error: unknown option '$w' (see rockpool --help)"
    check "... and nothing written" test ! -e fw.mp4
done
# ... and FFmpeg's -sn and -vn, which getopt read as -s 'n' and -v 'n' ("--size: 'n' is not
# WIDTHxHEIGHT", "--loglevel: unknown level 'n'")
expect_status "-sn: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 -sn -o fw.mp4
stderr_has "... named whole" "error: unknown option '-sn' (rockpool writes no subtitles: leave it out)"
expect_status "-vn: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 -vn -o fw.mp4
stderr_has "... named whole" "error: unknown option '-vn' (rockpool writes video: see rockpool --help)"
check "... nothing written" test ! -e fw.mp4
# ... but a cluster of rockpool's own whose last value is digits is that value's error, as
# with the option alone ('-qs64x4x' was "unknown option '-qs64x4x'", while -qs64x48 works)
for a in "-qs64x4x|--size: '64x4x' is not WIDTHxHEIGHT" "-qn5x|--frames: '5x' is not a whole number" \
    "-qr30x|--fps: '30x' is not a frame rate"; do
    expect_status "${a%%|*}: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 "${a%%|*}" \
        -o fw.mp4
    stderr_has "... the value's own error" "error: ${a#*|}"
    check "... nothing written" test ! -e fw.mp4
done
expect_status "-qs64x48 (a cluster and its size): still read" 0 "$ROCKPOOL" \
    "$TOP/examples/rain.scene" -n 2 -qs64x48 -o fw.mp4
check "... 64x48 (ffprobe)" test "$(ffprobe -v error -select_streams v:0 -show_entries \
    stream=width,height -of csv=p=0 fw.mp4)" = 64,48
rm -f fw.mp4
expect_status "-qyn 2 (a cluster of rockpool's own): still read" 0 "$ROCKPOOL" \
    "$TOP/examples/rain.scene" -qyn 2 -o fw.mp4
check "... 2 frames (ffprobe)" test "$(probe fw.mp4 nb_read_frames)" = 2
# ffmpeg -i A -i B reads two inputs; rockpool has one background, and took B without a word
ffmpeg -v error -f lavfi -i testsrc2=size=64x48 -frames:v 1 bga.png
ffmpeg -v error -f lavfi -i color=blue:size=64x48 -frames:v 1 bgb.png
expect_status "-i bga.png -i bgb.png: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 \
    -i bga.png -i bgb.png -o two.mp4
stderr_has "... says -i is given twice, naming both" \
    "error: -i is given twice ('bga.png', then 'bgb.png'): rockpool reads one background; give one -i"
check "... nothing written" test ! -e two.mp4
expect_status "-i bga.png -i bga.png (one file): exit 0" 0 "$ROCKPOOL" -q -s 64x48 -n 2 \
    -i bga.png -i bga.png --hash
"$ROCKPOOL" -q -s 64x48 -n 2 -i bga.png --hash >one-i.hash
check "... the frames of -i bga.png" cmp -s "$WORK/out" one-i.hash
# An option's value left out, the next option taken for it: said so, not 'cannot open '-s''
# or a run that writes its CSV to a file named '-o'
expect_status "-i -s 64x48 (the background left out): exit 2" 2 "$ROCKPOOL" \
    "$TOP/examples/rain.scene" -n 2 -i -s 64x48 -o lo.mp4
stderr_has "... says so" "error: option '-i' needs an argument, not the option '-s' after it"
expect_status "-stats -o lo.mp4 (ffmpeg's -stats; rockpool's --stats takes a FILE): exit 2" 2 \
    "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 -stats -o lo.mp4
stderr_has "... says so" "error: option '-stats' needs an argument, not the option '-o' after it"
check "... no file named -o, nor lo.mp4" test ! -e ./-o -a ! -e lo.mp4
expect_status "-o -y: exit 2" 2 "$ROCKPOOL" "$TOP/examples/rain.scene" -n 2 -o -y
stderr_has "... says so" "error: option '-o' needs an argument, not the option '-y' after it"
# FFmpeg's names of sizes (-s hd720) are not read; the refusal gives the size to type, which
# is FFmpeg's own reading of the name (ffprobe) and is taken (--check)
for z in hd480 hd720 hd1080 uhd2160 2k 4k nhd qhd vga qvga svga xga ntsc pal cif qcif; do
    wh=$(ffprobe -v error -f lavfi -i "color=size=$z" -show_entries stream=width,height \
        -of csv=s=x:p=0)
    expect_status "-s $z: exit 2" 2 "$ROCKPOOL" -n 1 -s "$z" --check
    stderr_has "... gives FFmpeg's $z, $wh" \
        "error: --size: '$z' is not WIDTHxHEIGHT (FFmpeg's $z is $wh: give -s $wh)"
    expect_status "... and -s $wh is taken" 0 "$ROCKPOOL" -n 1 -s "$wh" --check
done
expect_status "-s HD720 (no FFmpeg name; it reads none in capitals): exit 2" 2 "$ROCKPOOL" -n 1 \
    -s HD720 --check
check "... no size offered" sh -c "! grep -q FFmpeg '$WORK/err'"
expect_status "-r25 -s64x36: exit 0" 0 "$ROCKPOOL" "$TOP/examples/rain.scene" -r25 -s64x36 -n 1 \
    --check
check "... 25 fps, 64x36" sh -c "grep -q '^fps: *25\$' '$WORK/out' && grep -q '64x36 (output)' '$WORK/out'"
printf 'size 64x48\n\x89 drop\n' >binary.scene
expect_status "a scene with a stray byte: exit 2" 2 "$ROCKPOOL" binary.scene --check
stderr_has "... still the parser's message, at its line" \
    "binary.scene:2:1: error: invalid UTF-8 byte 0x89"

# ---- duration: footage sets the length ----------------------------------------------------
# A 5 s clip at 30 fps: 150 frames (ffprobe counts them); 4 s is 120 frames.
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30 -t 5 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p clip5.mp4
check "the clip has 150 frames (ffprobe)" test "$(probe clip5.mp4 nb_read_frames)" = 150
frames() { grep -vc '^#' "$1"; }
expect_status "examples/photo-rain.scene over the 5 s clip: exit 0" 0 "$ROCKPOOL" \
    "$TOP/examples/photo-rain.scene" -i clip5.mp4 -s 64x36 -f framemd5 -o rain.md5
check "... the footage sets the length: 150 frames" test "$(frames rain.md5)" = 150
check "... and nothing is said about the length" sh -c "! grep -q duration err"
expect_status "examples/photo-rain.scene over a photo: exit 0" 0 "$ROCKPOOL" \
    "$TOP/examples/photo-rain.scene" -i photo.png -s 96x54 -f framemd5 -o still.md5
check "... 4 s: 120 frames" test "$(frames still.md5)" = 120
# The example as a fixed-length scene (duration 4s, the rain to 4.2 s) gives the same frames
# over a still. A rain span holds floor(span x rate) drops (events.c expand_rain): 4 s at
# 6/s is a whole 24, the same first 24 draws as the 600 s span, and every later draw falls
# after 4.2 s, past the clip's end. (Ending the rain at 4 s, 22.8 drops, would leave out the
# 23rd, which falls at 3.87 s to 4.03 s.)
sed -e 's/^duration background or 4s$/duration 4s/' -e 's/at 0\.2s\.\.600s rain/at 0.2s..4.2s rain/' \
    "$TOP/examples/photo-rain.scene" >old-rain.scene
check "... the old text differs only there" test "$(diff "$TOP/examples/photo-rain.scene" \
    old-rain.scene | grep -c '^>')" = 2
"$ROCKPOOL" -q old-rain.scene -i photo.png -s 96x54 -f framemd5 -o old.md5
check "... the same frames as the example before (framemd5)" cmp -s old.md5 still.md5

printf 'duration 4s\nat 0s drop 50%% 50%% radius 5 height 900\n' >d4.scene
expect_status "a scene's duration 4s over the 5 s clip: exit 0" 0 "$ROCKPOOL" d4.scene \
    -i clip5.mp4 -s 64x36 -f framemd5 -o d4.md5
check "... 120 frames, as the scene says" test "$(frames d4.md5)" = 120
check "... one warning" test "$(warnings)" = 1
stderr_has "... saying the scene ends before the video and what to write" \
    "the scene's duration (120 frames, 4.00 s) ends before the background video (150 frames, 5.00 s): 'duration background'"
expect_status "... with -t 2 given: exit 0" 0 "$ROCKPOOL" d4.scene -i clip5.mp4 -t 2 -s 64x36 \
    -f framemd5 -o t2.md5
check "... 60 frames and no warning (the user chose the length)" sh -c \
    "test \"\$(grep -vc '^#' t2.md5)\" = 60 && ! grep -q warning err"
# The other way: a scene going on past a clip given with -i (which has no hold or loop of
# its own) held its last frame with no word: 1 s of clip gave 6 s of the built-in rain.
printf 'duration 6s\nat 0s drop 50%% 50%% radius 5 height 900\n' >d6.scene
expect_status "a scene's duration 6s over the 5 s clip: exit 0" 0 "$ROCKPOOL" d6.scene \
    -i clip5.mp4 -s 64x36 -f framemd5 -o d6.md5
check "... 180 frames, as the scene says" test "$(frames d6.md5)" = 180
check "... one warning" test "$(warnings)" = 1
stderr_has "... saying the clip ends first and its last frame is held" \
    "the background video (150 frames, 5.00 s) ends before the scene's duration (180 frames, 6.00 s): its last frame is held to the end"
expect_status "... with -t 6s given: exit 0" 0 "$ROCKPOOL" d6.scene -i clip5.mp4 -t 6s \
    -s 64x36 -f framemd5 -o d6t.md5
check "... no warning (the user chose the length)" sh -c "! grep -q warning err"
printf 'duration background\nat 0s drop 50%% 50%% radius 5 height 900\n' >db.scene
expect_status "duration background over the clip: exit 0" 0 "$ROCKPOOL" db.scene -i clip5.mp4 \
    -s 64x36 -f framemd5 -o db.md5
check "... 150 frames" test "$(frames db.md5)" = 150
expect_status "duration background over the built-in texture: exit 0" 0 "$ROCKPOOL" db.scene \
    -s 32x18 -f framemd5 -o dt.md5
check "... the default 10 s: 300 frames" test "$(frames dt.md5)" = 300
printf 'duration background 4s\n' >dx.scene
expect_status "duration background 4s (no 'or'): exit 2" 2 "$ROCKPOOL" dx.scene --check
stderr_has "... names the place and the spelling" "dx.scene:1:21: error: unexpected '4s' after 'duration background' (the length over a still is written 'duration background or 4s')"

# ---- scene words: colours, points, --check ------------------------------------------------
# walls visible #ff0000 draws the wall as 0xff0000 does (lit, so read back as a reddish
# pixel, not 255 0 0), and not in the default colour a comment would leave.
wall_px() { # SPELLING: the RGB of the wall's centre pixel (80,48) in frame 1
    printf 'size 160x96\nduration 4f\nwalls visible %s\nat 0s wall circle 80 48 20\n' "$1" >w.scene
    "$ROCKPOOL" -q w.scene -n 2 -y -o w_%d.png && ffmpeg -v error -i w_1.png -vf crop=1:1:80:48 \
        -f rawvideo -pix_fmt rgb24 - | od -An -tu1 | tr -s ' ' | sed 's/^ //'
}
hex=$(wall_px 0xff0000)
default=$(wall_px '')
check "0xff0000 draws a red wall ($hex): red above green and blue" \
    sh -c "set -- $hex; test \$1 -gt \$2 -a \$1 -gt \$3"
check "... unlike the default colour ($default)" test "$hex" != "$default"
for spelling in '#ff0000' '#FF0000 # red walls'; do
    check "walls visible $spelling: the wall of 0xff0000" test "$(wall_px "$spelling")" = "$hex"
done
printf 'size 160x96\nduration 4f\nwalls visible #8a857\nat 0s wall circle 80 48 20\n' >w5.scene
expect_status "walls visible #8a857 (five digits): exit 2, not a silent comment" 2 "$ROCKPOOL" \
    w5.scene --check
stderr_has "... names the place and the spelling" \
    "w5.scene:3:15: error: a colour is written #rrggbb or 0xrrggbb, six hex digits"
printf 'size 160x96\nduration 4f\n# 8a8578 stays a comment\n#8a8578 too, at the line start\n' >c.scene
expect_status "a comment at the line's start, even '#8a8578 ...': exit 0" 0 "$ROCKPOOL" c.scene --check
printf 'size 160x96\nduration 4f\ntint #c0e0f0\nsky #c8dcff\n' >ts.scene
expect_status "tint and sky take #rrggbb: exit 0" 0 "$ROCKPOOL" ts.scene --check
printf 'size 640x480\nduration 4s\nat 1s..3s stroke 40, 400 -> 600,60 radius 5 height 300\n' >st.scene
expect_status "stroke 40, 400: exit 2" 2 "$ROCKPOOL" st.scene --check
stderr_has "... says points are written X,Y without spaces" \
    "st.scene:3:18: error: expected a point X,Y after 'stroke', got '40,' and a space: a point is written X,Y without spaces, like 40,400"

# --check counts what the scene has: 1 emitter, 2 keys, 1 path, 2 walls of which 1 moves.
cat >k.scene <<'SCENE'
size 320x180
duration 4s
path loop 40,40 280,40 280,140
key azimuth 0s 0 4s 90
key depth 0s 32 4s 64
at 0s..4s emit point 50% 50% freq 3hz amplitude 400 radius 6
at 0s wall circle 30 30 8
at 0s..4s wall circle along loop 10
at 1s drop 50% 50% radius 5 height 900
SCENE
expect_status "--check of a scene with an emitter, keys, a path, a moving wall: exit 0" 0 \
    "$ROCKPOOL" k.scene --check
# (counts with their nouns' number: '0 stroke, 2 wall' read as broken English)
check "... events: 1 drop, 0 rain, 0 strokes, 2 walls (1 moving), 1 emitter" \
    grep -q '^events: *1 drop, 0 rain, 0 strokes, 2 walls (1 moving), 1 emitter$' out
check "... motion: 1 path, 2 keys" grep -q '^motion: *1 path, 2 keys$' out
# -ss 1 -t 1 at 30 fps writes frames 30..59.
expect_status "--check -ss 1 -t 1: exit 0" 0 "$ROCKPOOL" k.scene -ss 1 -t 1 --check
check "... the timeline stays 120 frames" grep -q '^frames: *120 ' out
check "... writes: frames 30 to 59 (30 frames)" grep -q '^writes: *frames 30 to 59 (30 frames, ' out
"$ROCKPOOL" -q k.scene -ss 1 -t 1 -s 64x36 -f framemd5 -o ss.md5
check "... and the render writes those 30 frames, 30 first" sh -c \
    "test \"\$(grep -vc '^#' ss.md5)\" = 30 && grep -v '^#' ss.md5 | head -n 1 | grep -q '^0, *30,'"

# ---- --verify writes its PNGs where the user is, not among the goldens --------------------
# Goldens made with seed 1; the run with a drop moved differs from frame 4 (the drop at 3f
# shows there), which is the frame written.
mkdir -p gold run
printf 'size 96x64\nfps 10\nduration 6f\nseed 1\nat 3f drop 50%% 50%% radius 6 height 900\n' >v.scene
"$ROCKPOOL" -q v.scene -f framemd5 -o gold/v.framemd5
"$ROCKPOOL" -q v.scene -o gold/f_%05d.png
sed 's/^at 3f drop 50% 50%/at 3f drop 40% 50%/' v.scene >run/v2.scene
cd run || exit 1
expect_status "--verify with a difference at frame 4: exit 3" 3 "$ROCKPOOL" -q v2.scene \
    --verify ../gold/v.framemd5 --verify-ref ../gold/f_%05d.png
check "... nothing new among the goldens" test "$(ls ../gold | grep -c 'actual\|diff')" = 0
check "... the actual frame in the current directory" test -s v.actual-00004.png
check "... the difference image in the current directory" test -s v.diff-00004.png
stderr_has "... the message names the actual frame's path" "written to v.actual-00004.png"
stderr_has "... and the difference image's" "written to v.diff-00004.png"
check "... the PNG is frame 4 of the run (ffmpeg's framemd5)" test "$(ffmpeg -v error \
    -i v.actual-00004.png -pix_fmt rgb24 -f framemd5 - | awk -F', ' '!/^#/ { print $6 }')" = \
    "$("$ROCKPOOL" -q v2.scene --hash | awk '$1 == 4 { print $2 }')"
mkdir vd
expect_status "--verify-dir still names another directory: exit 3" 3 "$ROCKPOOL" -q v2.scene \
    --verify ../gold/v.framemd5 --verify-dir vd
check "... the PNG is there" test -s vd/v.actual-00004.png
stderr_has "... and named" "written to vd/v.actual-00004.png"
cd "$WORK" || exit 1

# ---- the README's first screen (its first 30 lines) -----------------------------------------
head -n 30 "$TOP/README.md" >first.md
check "README's first screen: a picture and a clip from the gallery that exist" sh -c "
    grep -o 'examples/gallery/[^)]*\.png' first.md | head -n 1 | grep -q . &&
    grep -o 'examples/gallery/[^)]*\.gif' first.md | head -n 1 | grep -q . &&
    for f in \$(grep -o 'examples/gallery/[^)]*' first.md); do test -s '$TOP'/\$f || exit 1; done"
check "... the two set-up commands" sh -c \
    "grep -qx '    make demo' first.md && grep -qx '    make check' first.md"
check "... five usage lines: over a photo, over footage, a PNG still, golden frames, the plugin" \
    sh -c "test \$(grep -c '^    build/rockpool \|^    FREI0R_PATH=.* ffmpeg ' first.md) = 5 &&
    grep -q '^    build/rockpool .*-i photo.jpg' first.md &&
    grep -q '^    build/rockpool .*-i clip.mp4' first.md &&
    grep -q '^    build/rockpool .*-o still.png' first.md &&
    grep -q '^    build/rockpool .*-f framemd5' first.md && grep -q 'frei0r=rockpool' first.md"
for f in $(grep -o 'examples/[a-z-]*\.scene' first.md | sort -u); do
    check "... $f exists" test -s "$TOP/$f"
done

# ---- a size too narrow for the water ------------------------------------------------------
# At the default speed (15% of the width a second) a grid 1 cell wide makes 0 steps a
# second. The message led with that speed ('the speed asks for 0 steps per second on a
# 1-cell-wide grid'), a setting the user never gave; it names the size as given, and the
# least width, which is checked here by rendering it.
mkdir narrow && cd narrow || exit 1
expect_status "-s 1x100: exit 2" 2 "$ROCKPOOL" -n 3 -s 1x100 -o n.y4m
stderr_has "... leads with -s 1x100 and the least width" \
    "error: -s 1x100 is too narrow: the water needs a width of at least 2 at its default speed"
check "... nothing written" test ! -e n.y4m
expect_status "-s 2x100, the least width it names: exit 0" 0 "$ROCKPOOL" -q -n 3 -s 2x100 -o n.y4m
check "... 3 frames of 2x100 (ffprobe)" test "$(probe n.y4m width,height,nb_read_frames |
    tr '\n' ' ')" = "2 100 3 "
ffmpeg -v error -f lavfi -i color=gray:size=2x100 -frames:v 1 -vf scale=1:100 thin.png
check "the background thin.png is 1x100 (ffprobe)" test "$(size thin.png)" = 1,100
expect_status "-i thin.png (no -s): exit 2" 2 "$ROCKPOOL" -n 3 -i thin.png --hash
stderr_has "... names the background's size" \
    "error: the size 1x100 of the background 'thin.png' is too narrow: the water needs a width of at least 2"
printf 'size 1x100\n' >narrow.scene
expect_status "a scene's size 1x100: exit 2" 2 "$ROCKPOOL" narrow.scene -n 3 --hash
stderr_has "... placed at its size, named as written" \
    "narrow.scene:1:6: error: the size 1x100 is too narrow"
printf 'size 1x100\nrate 30\n' >narrow-rate.scene
expect_status "... with a rate, as the message offers: exit 0" 0 "$ROCKPOOL" -q narrow-rate.scene \
    -n 3 --hash
check "... 3 hash lines" test "$(wc -l <"$WORK/out")" = 3
printf 'speed 1%%/s\n' >slow.scene
expect_status "a speed given (1%/s) on -s 4x100: exit 2" 2 "$ROCKPOOL" slow.scene -s 4x100 -n 3 --hash
stderr_has "... is the speed's refusal, at the speed" "slow.scene:1:7: error: the speed asks for 0 steps"
cd "$WORK" || exit 1
