# video.sh - video backgrounds (rockpool(1) -i, --no-audio; rockpool-scene(5) `background`):
# clips made by ffmpeg here, frames checked against ffmpeg's own decode of them, the
# timestamp rule computed from ffprobe's timestamps, audio measured by ffprobe.
source "$(dirname "$0")/lib.sh"

# The same conversion rockpool's fit scaler makes (fit.h), so that with flat water (no
# events: the rockpool preset's light layer adds nothing) a frame equals the input's bytes:
# libswscale with these flags to YUV 4:4:4, then the matrix in integers, which
# tests/tools/yuv_rgb.c transcribes (libswscale's own RGB of limited-range YUV came out
# about 2 levels dark).
SWS=bicubic+accurate_rnd+bitexact
YUV_RGB=$(dirname "$ROCKPOOL")/yuv_rgb

# hashes FILE: the MD5 column of framemd5 lines (ours or ffmpeg's), one a line.
hashes() { grep -v '^#' "$1" | awk -F', *' '{print $6}'; }
# size CLIP: its video's WxH.
size() { ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$1" |
    grep -m 1 . | sed 's/x*$//'; } # (MPEG-TS adds its program's lines, MPEG-2 an empty field)
# rgb_of CLIP OUT: ffmpeg's decode of CLIP's frames (every one, in presentation order) as
# raw RGB24 at their own size, as rockpool converts limited-range YUV (BT.709 where the
# stream says so, else BT.601, as the ffmpeg program reads an unspecified matrix).
rgb_of() {
    local cs k wh
    cs=$(ffprobe -v error -select_streams v:0 -show_entries stream=color_space -of csv=p=0 "$1")
    case $cs in bt709) k=(2126 722) ;; *) k=(2990 1140) ;; esac
    wh=$(size "$1")
    ffmpeg -v error -i "$1" -map 0:v:0 -fps_mode passthrough -sws_flags $SWS -pix_fmt yuv444p \
        -f rawvideo - | "$YUV_RGB" "${wh%x*}" "${wh#*x}" "${k[@]}" >"$2"
}
# theirs CLIP OUT: those frames hashed.
theirs() {
    rgb_of "$1" "$2.rgb" &&
        ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s "$(size "$1")" -i "$2.rgb" -f framemd5 - \
            >"$2.full" && hashes "$2.full" >"$2"
}
# pts CLIP OUT: each frame's presentation time in seconds as an exact fraction
# "ticks*tb_num/tb_den", in presentation order.
pts() {
    local tb
    tb=$(ffprobe -v error -select_streams v:0 -show_entries stream=time_base -of csv=p=0 "$1")
    ffprobe -v error -select_streams v:0 -show_entries frame=best_effort_timestamp \
        -of default=nw=1:nk=1 "$1" | awk -v tb="$tb" '/^-?[0-9]+$/ {print $1 " " tb}' >"$2"
}
# rule PTS THEIRS OURS FPS_NUM FPS_DEN: every one of our frames k shows the input frame whose
# timestamp (from the first's) is the last one at or before k/fps rounded to the nearest
# tick of the stream's time base (halves up), or the last frame past the end; prints the
# first frame that does not, and fails.
rule() {
    python3 - "$@" <<'EOF'
import sys
from fractions import Fraction as F
pts_file, theirs_file, ours_file, fn, fd = sys.argv[1:6]
pts = []
for line in open(pts_file):
    ticks, tb = line.split()
    n, d = tb.split('/')
    tick = F(int(n), int(d))
    pts.append(int(ticks) * tick)
theirs = open(theirs_file).read().split()
ours = open(ours_file).read().split()
assert len(pts) == len(theirs), (len(pts), len(theirs))
assert sorted(pts) == pts
rate = F(int(fn), int(fd))
for k, h in enumerate(ours):
    t = (k / rate / tick + F(1, 2)).__floor__() * tick
    j = max(i for i, p in enumerate(pts) if p - pts[0] <= t)
    if h != theirs[j]:
        sys.exit("frame %d (t=%s): expected input frame %d" % (k, t, j))
if not ours:
    sys.exit("no frames")
EOF
}
# psnr A B W H MIN: every RGB24 frame of A within MIN dB of B's; same frame counts.
psnr() {
    python3 - "$@" <<'EOF'
import sys, math
a, b, w, h, lo = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
fs = w * h * 3
da, db = open(a, 'rb').read(), open(b, 'rb').read()
if len(da) != len(db) or len(da) % fs or not da:
    sys.exit("sizes %d, %d" % (len(da), len(db)))
sq = [d * d for d in range(-255, 256)]
worst = 1e9
for f in range(len(da) // fs):
    fa, fb = da[f * fs:(f + 1) * fs], db[f * fs:(f + 1) * fs]
    se = sum(sq[x - y + 255] for x, y in zip(fa, fb))
    p = 99.0 if se == 0 else 10 * math.log10(255 * 255 * fs / se)
    worst = min(worst, p)
    if p < lo:
        sys.exit("frame %d: %.2f dB" % (f, p))
print("worst %.2f dB" % worst)
EOF
}
# near A B TOL: |A - B| <= TOL (decimals).
near() { python3 -c "import sys; sys.exit(abs($1 - $2) > $3)"; }
# nothing_written NAME: the work dir holds no rendered output (no out.*, no frames).
nothing_written() {
    if ls out.* frames 2>/dev/null | grep -q .; then bad "$1 (left: $(ls out.* frames 2>&1))"
    else ok "$1"; fi
}

printf 'fps 25\n' >flat.scene
printf 'fps 50\n' >flat50.scene
printf 'fps 24\n' >flat24.scene
gen() { ffmpeg -v error -y "$@"; }

# ---- 2 s at 25 fps with a sine track: 50 frames, 35 dB, 2.0 s of audio ----------------
gen -f lavfi -i testsrc2=size=640x360:rate=25:duration=2 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=2 \
    -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest clip.mp4
expect_status "video background render" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 -o v25.mp4
check "the clip's length is the timeline's: 50 frames" test "$(probe v25.mp4 nb_read_frames)" = 50
rgb_of v25.mp4 v25.rgb
rgb_of clip.mp4 clip.rgb
check "each frame within 35 dB PSNR of the input's" psnr v25.rgb clip.rgb 640 360 35
adur=$(ffprobe -v error -select_streams a:0 -show_entries stream=duration -of csv=p=0 v25.mp4)
check "an audio stream of 2.0 s (within one AAC frame, 1024/48000 s): ${adur:-none}" \
    near "${adur:-99}" 2.0 0.0214
check "the audio is AAC, copied" test "$(ffprobe -v error -select_streams a:0 \
    -show_entries stream=codec_name -of csv=p=0 v25.mp4)" = aac
# Flat water leaves the background as it is: frame k is the input's frame k, byte for byte.
expect_status "framemd5 at 25 fps" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 -f framemd5 -o h25.md5
theirs clip.mp4 clip.hashes
hashes h25.md5 >h25
check "flat water leaves the background unchanged: frame k = input frame k" cmp -s h25 clip.hashes
check "the input's frames all differ (the checks can tell frames apart)" \
    test "$(sort -u clip.hashes | wc -l)" = 50

# ---- 50 fps: 100 frames, 2k and 2k+1 show input frame k ---------------------------------
expect_status "render at 50 fps" 0 "$ROCKPOOL" -q flat50.scene -i clip.mp4 -f framemd5 -o h50.md5
hashes h50.md5 >h50
check "100 frames at 50 fps" test "$(wc -l <h50)" = 100
check "frames 2k and 2k+1 both show input frame k" \
    cmp -s <(awk 'NR % 2 == 1' h50) clip.hashes
check "... and so does 2k+1" cmp -s <(awk 'NR % 2 == 0' h50) clip.hashes
pts clip.mp4 clip.pts
check "50 fps follows the timestamp rule" rule clip.pts clip.hashes h50 50 1

# ---- 24 fps from a 30 fps input: the frame the timestamp rule names ----------------------
gen -f lavfi -i testsrc2=size=160x120:rate=30:duration=2 -c:v libx264 -pix_fmt yuv420p c30.mp4
expect_status "24 fps from 30 fps" 0 "$ROCKPOOL" -q flat24.scene -i c30.mp4 -f framemd5 -o h24.md5
hashes h24.md5 >h24
theirs c30.mp4 c30.hashes
pts c30.mp4 c30.pts
check "48 frames" test "$(wc -l <h24)" = 48
check "frame k shows input frame floor(30k/24)" \
    cmp -s h24 <(awk '{h[NR-1]=$0} END {for (k = 0; k < 48; k++) print h[int(30*k/24)]}' c30.hashes)
check "24 fps follows the timestamp rule (from ffprobe's timestamps)" rule c30.pts c30.hashes h24 24 1
check "NTSC rate 30000/1001 follows the timestamp rule" sh -c \
    "'$ROCKPOOL' -q flat.scene -r 30000/1001 -i c30.mp4 -f framemd5 -o hn.md5 &&
     grep -v '^#' hn.md5 | awk -F', *' '{print \$6}' >hn"
check "... every frame" rule c30.pts c30.hashes hn 30000 1001
# Matroska stores milliseconds: frame 2 of 30 fps is at 67 ms, after 2/30 s. It is still
# frame 2's (before, every third frame showed the frame before it again).
gen -f lavfi -i testsrc2=size=160x120:rate=30:duration=1 -c:v ffv1 c30.mkv
expect_status "30 fps over a 30 fps Matroska clip" 0 "$ROCKPOOL" -q flat.scene -r 30 -i c30.mkv \
    -f framemd5 -o hm.md5
hashes hm.md5 >hm
theirs c30.mkv c30m.hashes
pts c30.mkv c30m.pts
check "Matroska's 67 ms is frame 2's: frame k shows input frame k" cmp -s hm c30m.hashes
check "... the timestamp rule, to the millisecond" rule c30m.pts c30m.hashes hm 30 1

# ---- variable frame rate ----------------------------------------------------------------
# Frame n at n/20 s plus a wobble of 0, 13 or 26 ms: gaps of 37 to 76 ms.
gen -f lavfi -i testsrc2=size=160x120:rate=20:duration=3 \
    -vf "settb=1/1000,setpts=(N/20+mod(N\,3)*0.013)/TB" -fps_mode passthrough \
    -enc_time_base 1/1000 -c:v libx264 -pix_fmt yuv420p vfr.mkv
pts vfr.mkv vfr.pts
check "the VFR clip's gaps vary" test "$(awk 'NR > 1 {print $1 - p} {p = $1}' vfr.pts | sort -u |
    wc -l)" -ge 3
theirs vfr.mkv vfr.hashes
for r in 25 30 60; do
    expect_status "VFR input at $r fps" 0 "$ROCKPOOL" -q -r $r flat.scene -i vfr.mkv -f framemd5 \
        -o vfr$r.md5
    hashes vfr$r.md5 >vfr$r
    check "VFR at $r fps follows its timestamps" rule vfr.pts vfr.hashes vfr$r $r 1
done

# ---- --start/--end chunks equal the full run ---------------------------------------------
# 8 s with a keyframe a second, under moving water, so chunks seek.
gen -f lavfi -i testsrc2=size=192x108:rate=25:duration=8 -c:v libx264 -g 25 -pix_fmt yuv420p \
    long.mp4
printf 'fps 25\nat 0s drop 50%% 50%% radius 12 height 1200\nat 0.2s..8s rain rate 6/s radius 3..9 height 300..900\n' >rain.scene
expect_status "full run" 0 "$ROCKPOOL" -q rain.scene -i long.mp4 -f framemd5 -o full.md5
hashes full.md5 >full
check "200 frames" test "$(wc -l <full)" = 200
rm -f chunks
for range in 0:61 61:137 137:163 163:200; do
    a=${range%:*} b=${range#*:}
    "$ROCKPOOL" -q rain.scene -i long.mp4 --start "$a" --end "$b" --hash -f framemd5 \
        -o /dev/null >"chunk$a" 2>/dev/null
    awk '{print $2}' "chunk$a" >>chunks
done
check "chunks' hashes equal the full run's, byte for byte" test -s full -a "$(cat chunks)" = "$(cat full)"
check "the water moves (frames differ from the flat render's)" test "$(cat full)" != "$(
    "$ROCKPOOL" -q flat.scene -i long.mp4 --hash -f framemd5 -o /dev/null | awk '{print $2}')"
"$ROCKPOOL" -q rain.scene -i long.mp4 --start 180 --end 181 --hash -f framemd5 -o /dev/null \
    >late 2>/dev/null
check "a single late frame (a seek 7.2 s in) equals the full run's" \
    test -s late -a "$(awk '{print $2}' late)" = "$(sed -n 181p full)"

# ---- audio: --no-audio, the outputs without audio ----------------------------------------
expect_status "--no-audio" 0 "$ROCKPOOL" -q --no-audio flat.scene -i clip.mp4 -o na.mkv
check "--no-audio drops the audio" test -z "$(ffprobe -v error -select_streams a \
    -show_entries stream=index -of csv=p=0 na.mkv)"
check "... and keeps the 50 frames" test "$(probe na.mkv nb_read_frames)" = 50
expect_status "audio into mkv" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 -o au.mkv
check "mkv carries the audio" test "$(ffprobe -v error -select_streams a \
    -show_entries stream=codec_name -of csv=p=0 au.mkv)" = aac
expect_status "audio into webm (re-encoded)" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 -o au.webm
check "webm's audio is Opus" test "$(ffprobe -v error -select_streams a \
    -show_entries stream=codec_name -of csv=p=0 au.webm)" = opus
# FLAC, Opus and TrueHD sound, which MP4 and MOV cannot take as they are (libavformat
# accepts the stream and then refuses the header as experimental): re-encoded to AAC, the
# full 2 s. (FFmpeg's TrueHD encoder is itself experimental: -strict -2.)
for ac in flac libopus truehd; do
    gen -i clip.mp4 -map 0 -c:v copy -c:a "$ac" -strict -2 "clip_$ac.mkv"
    for o in mp4 mov; do
        expect_status "$ac sound into $o" 0 "$ROCKPOOL" -q flat.scene -i "clip_$ac.mkv" -o "a_$ac.$o"
        check "$ac sound into $o: AAC" test "$(ffprobe -v error -select_streams a:0 \
            -show_entries stream=codec_name -of csv=p=0 "a_$ac.$o")" = aac
        adur=$(ffprobe -v error -select_streams a:0 -show_entries stream=duration -of csv=p=0 \
            "a_$ac.$o")
        check "$ac sound into $o: 2.0 s (${adur:-none})" near "${adur:-99}" 2.0 0.0427
    done
done
# Sound WebM's encoders take only after a choice (issue 28): 96 kHz mono and 7.1 at 96 kHz
# (Opus cannot take the rate: Vorbis, at its quality setting, as ffmpeg does), 5.1 with
# side channels (Opus takes 5.1 only with back ones: relabelled). --check and the render
# agree, and the sound is all there.
for spec in "96000 mono 1" "96000 7.1 8" "48000 5.1(side) 6"; do
    set -- $spec
    tag="$1_${2//[^a-z0-9]/}"
    gen -f lavfi -i testsrc2=size=160x120:rate=25:duration=2 -f lavfi \
        -i "sine=frequency=440:sample_rate=$1:duration=2,aformat=channel_layouts=$2" \
        -c:v libx264 -c:a flac -shortest "snd_$tag.mkv"
    expect_status "FLAC $1 Hz $2 into webm: --check" 0 "$ROCKPOOL" -q flat.scene \
        -i "snd_$tag.mkv" -o "w_$tag.webm" --check
    expect_status "FLAC $1 Hz $2 into webm: the render" 0 "$ROCKPOOL" -q flat.scene \
        -i "snd_$tag.mkv" -o "w_$tag.webm"
    got=$(ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels \
        -of csv=p=0 "w_$tag.webm")
    check "... $1 Hz, $3 channels ($got)" test "$got" = "$1,$3"
    adur=$(ffprobe -v error -select_streams a:0 -show_entries format=duration -of csv=p=0 \
        "w_$tag.webm")
    check "... 2.0 s (${adur:-none})" near "${adur:-99}" 2.0 0.05
done
# A chunk's audio is the chunk's time: 1 s from frame 25.
expect_status "chunk with audio" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 --start 25 -o half.mp4
adur=$(ffprobe -v error -select_streams a:0 -show_entries stream=duration -of csv=p=0 half.mp4)
check "a chunk's audio lasts the chunk (1.0 s): ${adur:-none}" near "${adur:-99}" 1.0 0.0214
# The sound's place against the picture, copied or re-encoded (found by a red team: a sound
# 0.5 s after the picture, re-encoded, started at 0 in MP4/MOV and WebM), measured by
# lib.sh's onset.
# late: the picture from 0, the tone from 0.5 s (the audio stream starts there); early: the
# picture from about 0.5 s (FFmpeg's muxer moves it 20 to 40 ms on), the audio stream from
# 0 and its tone from 0.7 s. The delay expected is the source's own, measured as the
# outputs' are. Each in FLAC (re-encoded into MP4/MOV/WebM, copied into Matroska) and AAC
# (copied but into WebM).
for src in late_flac.mkv late_aac.mp4 early_flac.mkv early_aac.mkv; do
    ac=${src#*_} ac=${ac%.*}
    case $src in
    late*) gen -f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -itsoffset 0.5 -f lavfi \
        -i sine=frequency=1000:sample_rate=48000:duration=0.5 -c:v libx264 -pix_fmt yuv420p \
        -c:a "$ac" "$src" ;;
    *) gen -itsoffset 0.5 -f lavfi -i testsrc2=size=160x120:rate=25:duration=1 -f lavfi \
        -i "sine=frequency=1000:sample_rate=48000:duration=0.8,adelay=700:all=1" \
        -c:v libx264 -pix_fmt yuv420p -c:a "$ac" "$src" ;;
    esac
    want=$(onset "$src")
    for o in mp4 mov mkv webm; do
        expect_status "$src into $o" 0 "$ROCKPOOL" -q flat.scene -i "$src" -o "d_${src%.*}.$o"
        got=$(onset "d_${src%.*}.$o")
        check "... $o keeps the sound's delay, $want s ($(ffprobe -v error -select_streams a:0 \
            -show_entries stream=codec_name -of csv=p=0 "d_${src%.*}.$o"): $got s)" \
            near "${got/none/99}" "$want" 0.005
    done
done
# A chunk from 0.2 s (frame 5) has the tone 0.3 s after its first frame, whichever way it
# is carried.
for run in "late_flac.mkv mp4 --start 5" "late_flac.mkv mkv --start 5" \
    "late_aac.mp4 mp4 --frame-range 5-24" "late_aac.mp4 webm --frame-range 5-24"; do
    set -- $run
    expect_status "a chunk of $1 into $2 ($3 $4)" 0 "$ROCKPOOL" -q flat.scene -i "$1" "$3" "$4" \
        -o "k_${1%.*}.$2"
    want=$(python3 -c "print('%.4f' % ($(onset "$1") - 0.2))")
    got=$(onset "k_${1%.*}.$2")
    check "... the tone $want s after its first frame ($got s)" near "${got/none/99}" "$want" 0.005
done
expect_status "PNG output of a clip with audio" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 \
    -o png/f_%03d.png
check "50 PNGs" test "$(ls png | wc -l)" = 50
ffmpeg -v error -i png/f_%03d.png -pix_fmt rgb24 -f framemd5 - >png.md5
hashes png.md5 >png.hashes
check "PNG frames equal the hashes (audio ignored)" cmp -s png.hashes h25
"$ROCKPOOL" -q flat.scene -i clip.mp4 -o - >with.y4m 2>y4m.err
"$ROCKPOOL" -q --no-audio flat.scene -i clip.mp4 -o - >without.y4m 2>>y4m.err
check "Y4M ignores audio (the same bytes with --no-audio)" cmp -s with.y4m without.y4m
check "Y4M holds 50 frames" test "$(probe with.y4m nb_read_frames)" = 50
"$ROCKPOOL" -q flat.scene -i clip.mp4 --hash -f framemd5 -o /dev/null >hash.txt 2>/dev/null
check "--hash lines ignore audio (50, equal to framemd5's)" \
    cmp -s <(awk '{print $2}' hash.txt) h25

# ---- hold and loop past the end ----------------------------------------------------------
printf 'fps 25\nduration 3s\nbackground clip.mp4\n' >hold.scene
printf 'fps 25\nduration 4s\nbackground clip.mp4 loop\n' >loop.scene
expect_status "hold (the default)" 0 "$ROCKPOOL" -q hold.scene -f framemd5 -o hold.md5
hashes hold.md5 >hold
check "hold: 75 frames, 50..74 show the last input frame" test \
    "$(wc -l <hold) $(sed -n '51,75p' hold | sort -u) $(head -50 hold | cmp - h25 && echo same)" \
    = "75 $(tail -1 h25) same"
expect_status "background clip.mp4 loop" 0 "$ROCKPOOL" -q loop.scene -f framemd5 -o loop.md5
hashes loop.md5 >loop
check "loop: 100 frames, the clip twice" cmp -s loop <(cat h25 h25)
printf 'fps 25\nbackground clip.mp4 forever\n' >badend.scene
expect_status "an unknown end mode is refused" 2 "$ROCKPOOL" -q badend.scene --check
stderr_has "... naming hold and loop" "expected hold or loop"
expect_status "-n overrides the clip's length" 0 "$ROCKPOOL" -q flat.scene -i clip.mp4 -n 7 \
    -f framemd5 -o n7.md5
check "-n 7: 7 frames" test "$(hashes n7.md5 | wc -l)" = 7

# ---- bad input: clear errors, exit 2, nothing written ------------------------------------
gen -f lavfi -i sine=frequency=440:duration=1 tone.m4a
expect_status "a file with no video stream" 2 "$ROCKPOOL" -q flat.scene -i tone.m4a -o out.mp4
stderr_has "... says so" "has no video stream"
nothing_written "... and writes nothing"
gen -f lavfi -i testsrc2=size=320x240:rate=25:duration=4 -c:v libx264 -pix_fmt yuv420p whole.mkv
head -c $(($(stat -c %s whole.mkv) / 2)) whole.mkv >cut.mkv
expect_status "a truncated video" 2 "$ROCKPOOL" -q flat.scene -i cut.mkv -o out.mp4
stderr_has "... says it is truncated" "truncated"
nothing_written "... and writes nothing"
expect_status "a truncated video, PNG frames" 2 "$ROCKPOOL" -q flat.scene -i cut.mkv -n 5 \
    -o frames/f_%03d.png
nothing_written "... and writes no frame"
# AVI with B-frames: packets carry decode times alone (H.264) or have none where a B-frame
# comes packed with the frame before (MPEG-4 part 2, as Xvid writes), so the decoder times
# its frames by decode times, its reorder delay late, and the frames let out at the end
# have no time. Both were refused at their last frames ('video frame after 0.900 s ... has
# no timestamp', exit 2), and an AVI cut inside its index showed no frame at all. Now each
# shows ffmpeg's 30 frames in order.
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libx264 -pix_fmt yuv420p avc.avi
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v mpeg4 -bf 2 packed.avi
head -c $(($(stat -c %s avc.avi) - 100)) avc.avi >noindex.avi
# (copied from MP4: AVI's time base becomes 1/60, frames two ticks apart, so the last
# frames follow the step between frames, not the rate's tick: it stopped short, exit 1)
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libx264 -bf 2 -pix_fmt yuv420p \
    avc.mp4
gen -i avc.mp4 -c copy copied.avi
for a in avc packed noindex copied; do
    expect_status "an AVI with B-frames ($a)" 0 "$ROCKPOOL" -q -y flat.scene -r 30 -i $a.avi \
        -n 30 -f framemd5 -o $a.md5
    theirs $a.avi $a.theirs
    check "... shows ffmpeg's 30 frames" cmp -s <(hashes $a.md5) $a.theirs
done
rm -f avc.avi packed.avi noindex.avi copied.avi avc.mp4 avc.md5 packed.md5 noindex.md5 copied.md5 \
    ./*.theirs.rgb ./*.theirs.full avc.theirs packed.theirs noindex.theirs copied.theirs
# MPEG-2 with B-frames in an elementary stream (m2v), MPEG-PS (mpg) and ASF, and H.264 with
# B-frames in ASF: the last frame (or two) the decoder lets out at the end has no time, and
# all four were refused there ('video frame after 0.933 s ... has no timestamp', exit 2);
# such a frame follows the last one by the step between frames, and the stream's end found
# at open counts the reorder delay after the last packet's decode time (without it, the
# frame let out at the end fell past the end and frame 28 was held for 29). The mpg drew
# frame 12 for frames 0 to 12 (its rewind by time landed past the first keyframe), and the
# ASF of MPEG-2 drew frame 0 for frame 1 (its first frame was timed by a presentation time
# libavformat made, the others by decode times, a frame later). Each shows ffmpeg's 30
# frames, then holds the last.
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v mpeg2video -bf 2 bf.m2v
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v mpeg2video -bf 2 bf.mpg
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v mpeg2video -bf 2 bf.asf
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libx264 -bf 2 -pix_fmt yuv420p \
    avcbf.asf
for c in bf.m2v bf.mpg bf.asf avcbf.asf; do
    expect_status "B-frames in $c: exit 0" 0 "$ROCKPOOL" -q -y flat.scene -r 30 -i $c -n 34 \
        -f framemd5 -o bf.md5
    theirs $c bf.theirs 2>/dev/null # (ffmpeg warns of its own times for the ASF of MPEG-2)
    check "... shows ffmpeg's 30 frames, then holds the last" cmp -s <(hashes bf.md5) \
        <(cat bf.theirs; for i in 1 2 3 4; do tail -n 1 bf.theirs; done)
done
# The frames let out at the end fall on the frame rate's instants: ASF's milliseconds put
# 60 fps frames 16 or 17 apart, and the last step added again put the last frame 1 ms past
# its instant, shown a frame late with exit 0 (found by a review: output frame 65 showed
# input 64). At 60 fps and at 30000/1001 each output frame k shows input frame k.
gen -f lavfi -i testsrc2=size=96x64:rate=60:duration=1.1 -c:v libx264 -bf 2 -pix_fmt yuv420p \
    bf60.asf
gen -f lavfi -i testsrc2=size=96x64:rate=30000/1001:duration=1.7 -c:v libx264 -bf 2 \
    -pix_fmt yuv420p bfntsc.asf
for spec in "bf60.asf 60 66" "bfntsc.asf 30000/1001 51"; do
    set -- $spec
    expect_status "B-frames in $1 at $2 fps: exit 0" 0 "$ROCKPOOL" -q -y flat.scene -r "$2" \
        -i "$1" -n $(($3 + 3)) -f framemd5 -o bf.md5
    theirs "$1" bf.theirs 2>/dev/null
    check "... shows ffmpeg's $3 frames in turn, then holds the last" cmp -s <(hashes bf.md5) \
        <(cat bf.theirs; for i in 1 2 3; do tail -n 1 bf.theirs; done)
done
# An MPEG-PS cut inside a GOP: its end found at open took its reorder delay from the file's
# first packet, several frames before the first keyframe, and lay past its last frame; the
# render then stopped with exit 1, 'cut or changed while being read', a runtime failure. The
# delay is now taken from the first packet decoded, and frames that end before the end
# found at open in a file that did not change are a damaged file: exit 2, nothing written.
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -c:v mpeg2video -bf 2 -g 12 gop.mpg
tail -c +$(($(stat -c %s gop.mpg) * 55 / 100)) gop.mpg >frontcut.mpg
rm -f frontcut.md5
expect_status "an MPEG-PS cut inside a GOP at its front: refused" 2 "$ROCKPOOL" -q flat.scene \
    -r 30 -i frontcut.mpg -f framemd5 -o frontcut.md5
stderr_has "... as damaged, not changed while read" "found when it was opened: it is damaged"
check "... writes nothing" test ! -e frontcut.md5
rm -f bf.m2v bf.mpg bf.asf avcbf.asf bf60.asf bfntsc.asf gop.mpg frontcut.mpg bf.md5 bf.theirs \
    bf.theirs.rgb bf.theirs.full
# A subtitle shown past the last frame is no cut: Matroska's header counts every track, and
# 1 s of video with a subtitle to 1.3 s was refused as truncated ('its header says 1.300 s').
printf '1\n00:00:00,500 --> 00:00:01,300\nhello\n' >late.srt
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libx264 -pix_fmt yuv420p sub.mp4
gen -i sub.mp4 -i late.srt -map 0 -map 1 -c:v copy -c:s srt sub.mkv
expect_status "1 s of video with a subtitle to 1.3 s (mkv): exit 0" 0 "$ROCKPOOL" -q -y \
    flat.scene -r 30 -i sub.mkv -n 30 -f framemd5 -o sub.md5
rm -f late.srt sub.mp4 sub.mkv sub.md5
# A short clip cut: its frames stop more than three frames before the header's end. One
# second of Matroska or WebM cut to 60% or 80% was taken (exit 0), its last frames held
# from frame 17 (or 22) on, as the old rule wanted half a second missing.
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libx264 -pix_fmt yuv420p short.mkv
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=1 -c:v libvpx-vp9 -pix_fmt yuv420p \
    -deadline realtime short.webm
for ext in mkv webm; do
    expect_status "a whole 1 s $ext clip" 0 "$ROCKPOOL" -q -y flat.scene -i short.$ext -n 30 \
        -f framemd5 -o short.md5
    for pc in 60 80; do
        head -c $(($(stat -c %s short.$ext) * pc / 100)) short.$ext >shortcut.$ext
        expect_status "a 1 s $ext clip cut to $pc%" 2 "$ROCKPOOL" -q flat.scene \
            -i shortcut.$ext -n 30 -f framemd5 -o short.md5
        stderr_has "... says it is truncated" "is truncated: its header says 1.000 s"
    done
done
rm -f short.md5 short.mkv short.webm shortcut.mkv shortcut.webm
# An AVI or a faststart MP4 cut inside its last frame's data: the demuxer reads that frame
# short. An AVI cut to 80% or more was taken by --check (exit 0), then the render stopped at
# that frame with "Invalid data"; cut to 99%, the MP4 had a frame or two missing, within the
# header's slack. Both are now refused at once, --check too, naming the frame.
gen -f lavfi -i testsrc2=size=160x90:rate=25:duration=2 -c:v mpeg4 cutend.avi
gen -f lavfi -i testsrc2=size=160x90:rate=25:duration=2 -c:v libx264 -pix_fmt yuv420p \
    -movflags +faststart cutend.mp4
for ext in avi mp4; do
    expect_status "a whole 2 s $ext clip, --check" 0 "$ROCKPOOL" -q flat.scene -i cutend.$ext \
        --check
    for pc in 80 99; do
        head -c $(($(stat -c %s cutend.$ext) * pc / 100)) cutend.$ext >cutend$pc.$ext
        expect_status "an $ext clip cut to $pc%, --check" 2 "$ROCKPOOL" -q flat.scene \
            -i cutend$pc.$ext --check
        stderr_has "... says it is truncated" "'cutend$pc.$ext' is truncated: the file ends inside"
        rm -f cutend.y4m
        expect_status "... and rendered" 2 "$ROCKPOOL" -q flat.scene -i cutend$pc.$ext -o cutend.y4m
        check "... writes nothing" test ! -e cutend.y4m
    done
done
rm -f cutend*.avi cutend*.mp4
# A whole clip whose timestamps start late (-output_ts_offset, -copyts): Matroska's and MP4's
# header durations end at the last timestamp, so the start is not added to them again (both
# were refused as "truncated: its header says 9.000 s"); NUT's, an estimate from its index,
# too ("its header says 8.960 s").
for ext in mkv mp4 nut; do
    gen -i whole.mkv -c copy -output_ts_offset 5 late.$ext
    expect_status "a whole $ext clip starting at 5 s" 0 "$ROCKPOOL" -q flat.scene -i late.$ext \
        -f framemd5 -o late-$ext.md5
    theirs late.$ext late-$ext.theirs
    check "... shows its 100 frames" cmp -s <(hashes late-$ext.md5) late-$ext.theirs
done
head -c $(($(stat -c %s late.mkv) / 2)) late.mkv >latecut.mkv
expect_status "a truncated clip starting at 5 s" 2 "$ROCKPOOL" -q flat.scene -i latecut.mkv \
    -o out.mp4
stderr_has "... says it is truncated, its header's 4 s" "its header says 4.000 s"
# Damage in the middle: the frame that cannot be decoded is named, and the outputs are removed.
cp whole.mkv broken.mkv
size=$(stat -c %s broken.mkv)
python3 -c "
import random, sys
random.seed(17)
f = open('broken.mkv', 'r+b'); f.seek($size * 6 // 10)
f.write(bytes(random.randrange(256) for _ in range(4000)))"
"$ROCKPOOL" -q flat.scene -i broken.mkv -o out.mp4 2>broken.err
st=$?
if [ $st -eq 0 ]; then
    ok "damage mid-way: decoded anyway (the damage fell where the decoder can tell nothing)"
else
    check "damage mid-way: exit 2 ($st)" test $st = 2
    check "... a clear error: $(head -c 200 broken.err)" grep -qE "frame|truncated|corrupt" broken.err
    nothing_written "... and writes nothing"
fi
# A frame that cannot be decoded mid-way (MJPEG: frame 30's headers wiped): the run stops at
# the timeline frame that needs it, names it, and removes the video being written.
gen -f lavfi -i testsrc2=size=160x120:rate=25:duration=2 -c:v mjpeg -q:v 5 mj.mkv
python3 -c "
d = bytearray(open('mj.mkv', 'rb').read())
soi = [i for i in range(len(d) - 3) if d[i:i + 3] == b'\xff\xd8\xff']
assert len(soi) == 50, len(soi)
d[soi[30]:soi[30] + 400] = bytes(400)
open('mjbad.mkv', 'wb').write(d)"
expect_status "the intact MJPEG clip renders" 0 "$ROCKPOOL" -q flat.scene -i mj.mkv -f framemd5 \
    -o mj.md5
expect_status "an undecodable frame mid-way" 2 "$ROCKPOOL" -q flat.scene -i mjbad.mkv -o out.mp4
# (the frame it was reading for: frame 30's picture is decoded ahead, by the decoder's delay)
check "... names the timeline frame it was reading for" \
    grep -qE "reading the background for frame (2[0-9]|30): cannot decode" "$WORK/err"
stderr_has "... and the video's frame" "cannot decode the video frame at 1.200 s"
nothing_written "... and leaves no video"
expect_status "an undecodable frame mid-way, framemd5" 2 "$ROCKPOOL" -q flat.scene -i mjbad.mkv \
    -f framemd5 -o out.md5
nothing_written "... and leaves no hash file"
echo "not a video" >text.mp4
expect_status "a text file named .mp4" 2 "$ROCKPOOL" -q flat.scene -i text.mp4 -o out.mp4
nothing_written "... writes nothing"

# ---- memory: the decoder counts against --max-memory ---------------------------------------
gen -f lavfi -i testsrc2=size=1920x1080:rate=25:duration=0.2 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p hd.mp4
ffmpeg -v error -i hd.mp4 -frames:v 1 hd.png
expect_status "a 1080p video over --max-memory is refused" 2 "$ROCKPOOL" -q flat.scene -i hd.mp4 \
    -s 320x180 --max-memory 60M -o out.mp4
stderr_has "... naming the video's share" "for the video background's decoder"
nothing_written "... and writes nothing"
expect_status "the same run over its first frame as a still fits" 0 "$ROCKPOOL" -q flat.scene \
    -i hd.png -s 320x180 -n 5 --max-memory 60M -f framemd5 -o still.md5

# ---- memory does not grow with the clip's length -----------------------------------------
gen -f lavfi -i testsrc2=size=1280x720:rate=25:duration=2 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p m2.mp4
gen -f lavfi -i testsrc2=size=1280x720:rate=25:duration=6 -c:v libx264 -preset ultrafast \
    -pix_fmt yuv420p m6.mp4
# (AddressSanitizer keeps freed memory in quarantine, which grows with the work done:
# without it the figures are the program's own.)
rss() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
    /usr/bin/time -f %M -o "$2.rss" "$ROCKPOOL" -q --preset elias flat.scene -i "$1" \
    -f framemd5 -o "$2.md5" 2>/dev/null && cat "$2.rss"; }
r2=$(rss m2.mp4 m2) r6=$(rss m6.mp4 m6)
check "peak RSS of a 720p render: 2 s ${r2:-?} KiB, 6 s ${r6:-?} KiB (within 8 MiB)" \
    test -n "$r2" -a -n "$r6" -a "$((${r6:-0} - ${r2:-0}))" -lt 8192
check "... and both rendered every frame (50, 150)" \
    test "$(hashes m2.md5 | wc -l) $(hashes m6.md5 | wc -l)" = "50 150"

# MPEG-TS with B-frames (x264's default): a seek by time lands past the first keyframe, and
# mid-GOP after it. The frames come in order from the start (within 35 dB of ffmpeg's own
# decode), and a chunk from frame 20 shows the full run's frames.
gen -f lavfi -i testsrc2=size=640x360:rate=25:duration=2 -c:v libx264 -pix_fmt yuv420p \
    -bf 3 -f mpegts bframes.ts
expect_status "B-frame MPEG-TS background" 0 "$ROCKPOOL" -q flat.scene -i bframes.ts -o ts.mp4
rgb_of ts.mp4 ts.rgb
rgb_of bframes.ts bframes.rgb
check "B-frame MPEG-TS: 50 frames, each within 35 dB of ffmpeg's decode" psnr ts.rgb bframes.rgb 640 360 35
"$ROCKPOOL" -q flat.scene -i bframes.ts --hash -f framemd5 -o /dev/null >ts_full.hash
"$ROCKPOOL" -q flat.scene -i bframes.ts --start 20 --hash -f framemd5 -o /dev/null >ts_part.hash
tail -n 30 ts_full.hash >ts_want.hash
check "B-frame MPEG-TS: a chunk from frame 20 equals the full run" cmp -s ts_part.hash ts_want.hash
expect_status "--check with a video background" 0 "$ROCKPOOL" flat.scene -i bframes.ts --check
check "--check says the clip's 50 frames" grep -q '^frames: *50 ' out
# Two MPEG-TS files joined with cat: the second's first packet breaks the continuity counter
# and FFmpeg flags it damaged. Refused as before (it is also what lost packets look like),
# now saying what it is and how to make one file of it; the remuxed file renders.
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=0.3 -c:v libx264 -pix_fmt yuv420p \
    -bf 0 -f mpegts cat1.ts
gen -f lavfi -i testsrc2=size=160x90:rate=30:duration=0.3 -c:v libx264 -pix_fmt yuv420p \
    -bf 0 -output_ts_offset 0.3 -f mpegts cat2.ts
cat cat1.ts cat2.ts >cat12.ts
expect_status "two MPEG-TS files joined with cat" 2 "$ROCKPOOL" -q flat.scene -i cat12.ts \
    -f framemd5 -o cat.md5
stderr_has "... says the continuity breaks and how to remux" \
    "continuity breaks there: packets lost, or files joined with cat, which 'ffmpeg -i FILE -c copy out.mkv' makes one"
gen -i cat12.ts -c copy cat12.mkv
expect_status "... remuxed as it says: exit 0" 0 "$ROCKPOOL" -q flat.scene -i cat12.mkv -n 18 \
    -f framemd5 -o cat.md5
rm -f cat1.ts cat2.ts cat12.ts cat12.mkv cat.md5

# ---- the background cut while it is read (issue 28): exit 1, nothing left ----------------
# The cut comes after the first frame's hash reaches the pipe, half-way through the file:
# the source holds at most a few frames and a demuxer buffer, far from that half.
gen -f lavfi -i testsrc2=size=320x240:rate=25:duration=20 -c:v libx264 -preset ultrafast \
    -g 25 -pix_fmt yuv420p long.mkv
gen -i long.mkv -c copy long.mp4
gen -i long.mkv -c copy long.ts
for e in mkv mp4 ts; do
    cp "long.$e" "bg.$e"
    half=$(($(stat -c %s "long.$e") / 2))
    rm -f out.md5
    "$ROCKPOOL" -q flat.scene -i "bg.$e" -j 1 -f framemd5 -o out.md5 --hash 2>cut.err |
        { read -r _; truncate -s "$half" "bg.$e"; cat >/dev/null; }
    st=${PIPESTATUS[0]}
    check "$e cut while read: exit 1 ($st)" test "$st" = 1
    check "... says it was cut: $(head -c 160 cut.err)" grep -q "was cut while being read" cut.err
    nothing_written "... and leaves no hash file"
    # Cut, then written again to more than its old length: changed, not a bad file.
    cp "long.$e" "bg.$e"
    rm -f out.md5
    "$ROCKPOOL" -q flat.scene -i "bg.$e" -j 1 -f framemd5 -o out.md5 --hash 2>cut.err |
        { read -r _; truncate -s "$half" "bg.$e"; head -c $((half * 3)) /dev/zero >>"bg.$e"
          cat >/dev/null; }
    st=${PIPESTATUS[0]}
    check "$e rewritten while read: exit 1 ($st)" test "$st" = 1
    check "... says it changed: $(head -c 160 cut.err)" grep -qE "was (cut|changed) while being read" cut.err
    nothing_written "... and leaves no hash file"
done

# ---- an MP4 cut before its index (moov at the end) is a truncated video, not an image -----
head -c $(($(stat -c %s long.mp4) / 5)) long.mp4 >trunc.mp4
expect_status "MP4 cut before its index: exit 2" 2 "$ROCKPOOL" -q flat.scene -i trunc.mp4 --check
stderr_has "... called a truncated video" "'trunc.mp4' is a truncated or damaged video"
check "... not a still image" bash -c '! grep -q "not a still image" "$1"' _ "$WORK/err"
stderr_has "... cut before its index" "(cut short before its index, or damaged)"
# A Y4M has no index: one FFmpeg does not open (ffprobe fails on it too: 16384x16384 is
# over FFmpeg's picture size) is not said to be cut before an index, but its header named
printf 'YUV4MPEG2 W16384 H16384 F10:1 Ip A1:1 C420jpeg\nFRAME\n' >huge.y4m
head -c 1000 /dev/zero >>huge.y4m
check "ffprobe does not open huge.y4m" bash -c '! ffprobe -v quiet huge.y4m'
expect_status "Y4M FFmpeg does not open: exit 2" 2 "$ROCKPOOL" -q flat.scene -i huge.y4m \
    -o huge.mp4
stderr_has "... its header named" "'huge.y4m' is a damaged video: FFmpeg recognises it as \
YUV4MPEG pipe but cannot open it (its header is cut short or damaged"
check "... no index named" bash -c '! grep -q "index" "$1"' _ "$WORK/err"
check "... no output" test ! -e huge.mp4

# ---- raw H.264/HEVC streams (no timestamps): timed at their frame rate, as ffmpeg does ----
gen -f lavfi -i testsrc2=size=320x240:rate=25:duration=4 -c:v libx264 -bf 2 -g 25 \
    -pix_fmt yuv420p raw.h264
gen -f lavfi -i testsrc2=size=320x240:rate=30000/1001:duration=3 -c:v libx265 \
    -x265-params log-level=0 -pix_fmt yuv420p raw.hevc
for spec in "raw.h264 25 100" "raw.hevc 30000/1001 90"; do
    set -- $spec
    expect_status "$1: --check" 0 "$ROCKPOOL" -q flat.scene -r "$2" -i "$1" --check
    expect_status "$1: framemd5" 0 "$ROCKPOOL" -q flat.scene -r "$2" -i "$1" -f framemd5 \
        -o "$1.md5"
    hashes "$1.md5" >"$1.ours"
    theirs "$1" "$1.theirs"
    check "$1: $3 frames, each ffmpeg's decode" \
        bash -c 'test "$(wc -l <"$1")" = "$3" && cmp -s "$1" "$2"' _ "$1.ours" "$1.theirs" "$3"
done
printf 'fps 25\nduration 10s\nbackground raw.h264 loop\n' >rawloop.scene
expect_status "raw.h264 looped: framemd5" 0 "$ROCKPOOL" -q rawloop.scene -f framemd5 -o rawloop.md5
check "raw.h264 looped: 250 frames, the clip 2.5 times" \
    cmp -s <(hashes rawloop.md5) <(cat raw.h264.theirs raw.h264.theirs raw.h264.theirs | head -250)
"$ROCKPOOL" -q flat.scene -i raw.h264 --start 80 -f framemd5 -o - 2>/dev/null | hashes /dev/stdin >rawpart
check "raw.h264 from frame 80 equals the full run's end" cmp -s rawpart <(tail -n 20 raw.h264.theirs)

# ---- alpha: composited over black, as a still background's alpha is ---------------------
# testsrc2 under an alpha of 0 (columns 0-15), a ramp, and 255 (columns 80-95), in the
# layouts alpha travels in: PNG and QuickTime RLE (RGBA), FFV1 and VP9 (yuva420p, VP9's
# alpha read by libvpx as ffmpeg needs -c:v libvpx-vp9 for it), ProRes 4444 (12-bit
# yuva444p). Before, the alpha was dropped and the colour shown as if opaque.
printf 'fps 10\n' >flat10.scene
ASRC="testsrc2=size=96x54:rate=10:duration=0.5,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,16),0,if(gte(X,80),255,mod(X*9+Y*5,256)))'"
gen -f lavfi -i "$ASRC" -c:v png a_png.mov
gen -f lavfi -i "$ASRC" -c:v qtrle -pix_fmt argb a_qtrle.mov
gen -f lavfi -i "$ASRC" -c:v ffv1 -pix_fmt yuva420p a_ffv1.mkv
gen -f lavfi -i "$ASRC" -c:v libvpx-vp9 -pix_fmt yuva420p -lossless 1 a_vp9.webm
gen -f lavfi -i "$ASRC" -c:v prores_ks -profile:v 4444 -pix_fmt yuva444p10le a_prores.mov
gen -i a_png.mov -frames:v 1 a_still.png
# over COLOUR ALPHA OURS TOL: OURS (RGB24) is COLOUR (RGB24, or RGBA when ALPHA is -) over
# black, each sample round(c * a / 255), within TOL levels; where a is 0, exactly black.
over() {
    python3 - "$@" <<'PY'
import sys
col, alp, ours, tol = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c, o = open(col, 'rb').read(), open(ours, 'rb').read()
if alp == '-':
    rgb = [c[i] for i in range(len(c)) if i % 4 != 3]
    a = c[3::4]
else:
    rgb, a = c, open(alp, 'rb').read()
if not o or len(o) != len(rgb) or len(a) * 3 != len(rgb):
    sys.exit("sizes %d %d %d" % (len(o), len(rgb), len(a)))
worst = 0
for i, v in enumerate(o):
    al = a[i // 3]
    want = (rgb[i] * al + 127) // 255
    d = abs(v - want)
    if d > tol or (al == 0 and v != 0):
        sys.exit("sample %d (pixel %d): %d, wanted %d (alpha %d)" % (i, i // 3, v, want, al))
    worst = max(worst, d)
print("worst %d" % worst)
PY
}
raw() { ffmpeg -v error "$@" -sws_flags $SWS -f rawvideo -; }
for c in a_png.mov a_qtrle.mov a_ffv1.mkv a_vp9.webm a_prores.mov; do
    rm -rf afr && mkdir afr
    expect_status "$c with alpha: render" 0 "$ROCKPOOL" -q flat10.scene -s 96x54 -i "$c" \
        -o afr/f_%02d.png
    ffmpeg -v error -i afr/f_%02d.png -f rawvideo -pix_fmt rgb24 - >"$c.ours"
    [ "$c" = a_png.mov ] && cp afr/f_00.png a_png.first.png
    dec=()
    case $c in *.webm) dec=(-c:v libvpx-vp9) ;; esac
    case $c in
    a_png.mov | a_qtrle.mov)
        raw -i "$c" -pix_fmt rgba >"$c.rgba"
        check "$c: 5 frames, its alpha over black, exactly" over "$c.rgba" - "$c.ours" 0 ;;
    a_prores.mov) # 12 bits: ffmpeg's RGBA is 8-bit and ~2 levels dark
        raw -i "$c" -pix_fmt rgba >"$c.rgba"
        check "$c: 5 frames, its alpha over black, within 3 levels" \
            over "$c.rgba" - "$c.ours" 3 ;;
    *)  rgb_of "$c" "$c.rgb"
        raw "${dec[@]}" -i "$c" -vf alphaextract -pix_fmt gray >"$c.a"
        check "$c: 5 frames, its alpha over black, exactly" over "$c.rgb" "$c.a" "$c.ours" 0 ;;
    esac
done
expect_status "the PNG clip's first frame as a still" 0 "$ROCKPOOL" -q flat10.scene -s 96x54 \
    -i a_still.png -n 1 -o a_still_out.png
check "... has the video's first frame's pixels, byte for byte" cmp -s \
    <(ffmpeg -v error -i a_still_out.png -f rawvideo -pix_fmt rgb24 -) \
    <(ffmpeg -v error -i a_png.first.png -f rawvideo -pix_fmt rgb24 -)

# ---- a scale libswscale refuses: said so, naming the file (was "cannot convert yuv444p to
# RGB", which it can, and no file) -------------------------------------------------------
# (4000x2 pixels 1:2000 wide, as ffmpeg's scale filter makes a 64x64 picture 4000x2: a square,
# of which cover keeps 4000x1 for 64x36.)
gen -f lavfi -i color=c=0x3366CC:s=64x64:r=25:d=0.2 -vf scale=4000:2 -pix_fmt yuv444p \
    -c:v ffv1 strip.mkv
rm -f out.png
expect_status "a 4000x2 clip fitted into 64x36: exit 2" 2 "$ROCKPOOL" -q flat.scene -s 64x36 \
    -i strip.mkv -o out.png -n 1
stderr_has "... names the file" "video 'strip.mkv': "
stderr_has "... and says the scale is refused" "cannot scale a 4000x2 yuv444p picture (the 4000x1 part fit cover keeps) to 64x36 (libswscale refuses so far a scale)"
nothing_written "... and writes nothing"
expect_status "... stretched: exit 2" 2 "$ROCKPOOL" -q flat.scene -s 64x36 --fit stretch \
    -i strip.mkv -o out.png -n 1
stderr_has "... says so" "video 'strip.mkv': cannot scale a 4000x2 yuv444p picture to 64x36 (libswscale refuses so far a scale)"
nothing_written "... and writes nothing"

# ---- each warning once: a single still (-o x.png), a range given as times and a chunk make
# the session again; its warnings were said three times ------------------------------------
gen -f lavfi -i testsrc2=size=64x36:rate=5:duration=1 anim.gif
gen -f lavfi -i testsrc2=size=320x180:rate=25:duration=1 -vf scale=161:91,setsar=1 -c:v ffv1 odd.mkv
count() { grep -c "$1" "$WORK/err"; }
expect_status "an animated GIF into one PNG" 0 "$ROCKPOOL" flat.scene -i anim.gif -o still.png
check "... warns once ($(count 'animated GIF'))" test "$(count 'animated GIF')" = 1
rm -f odd.mp4
expect_status "an odd-sized clip, frames 0.2s to 0.6s" 0 "$ROCKPOOL" flat.scene -i odd.mkv \
    --start 0.2s --end 0.6s -o odd.mp4
check "... says the size once ($(count 'is odd'))" test "$(count 'is odd')" = 1

# ---- HDR footage (PQ, HLG: an iPhone's HDR video) is drawn by its coded values: said --------
for spec in "hlg.mp4 arib-std-b67 HLG" "pq.mkv smpte2084 PQ"; do
    set -- $spec
    gen -f lavfi -i testsrc2=size=160x90:rate=25:duration=0.2 -pix_fmt yuv420p10le -c:v libx265 \
        -x265-params log-level=0 -colorspace bt2020nc -color_primaries bt2020 -color_trc "$2" "$1"
    expect_status "$3 clip: rendered" 0 "$ROCKPOOL" flat.scene -i "$1" -o "$1.png"
    stderr_has "... with a warning" "'$1' is HDR video, $3 ("
    check "... once" test "$(count 'is HDR video')" = 1
done
expect_status "an SDR clip" 0 "$ROCKPOOL" flat.scene -i a_ffv1.mkv -s 96x54 -o sdr.png
check "... is not called HDR" test "$(count 'HDR')" = 0

# ---- a stream cut mid-GOP (an MPEG-TS recording joined late) starts at its first keyframe,
# as ffmpeg shows it; before, its first packets (pictures referring to ones before the cut)
# stopped the render: "cannot decode the video frame at 2.880 s" ---------------------------
gen -f lavfi -i testsrc2=size=160x90:rate=25:duration=4 -c:v libx264 -g 50 -bf 2 -pix_fmt yuv420p \
    -f mpegts gop.ts
sz=$(stat -c %s gop.ts)
tail -c +$((188 * (sz / 188 / 3) + 1)) gop.ts >cut.ts
expect_status "a TS cut mid-GOP: framemd5" 0 "$ROCKPOOL" -q flat.scene -i cut.ts -f framemd5 \
    -o cut.md5
hashes cut.md5 >cut.ours
theirs cut.ts cut.theirs 2>/dev/null # (ffmpeg's decoder says why the head is skipped)
check "... from its first keyframe, every frame ffmpeg's ($(wc -l <cut.ours) of $(wc -l <cut.theirs))" \
    bash -c 'test "$(wc -l <"$1")" -gt 10 && cmp -s "$1" "$2"' _ cut.ours cut.theirs
"$ROCKPOOL" -q flat.scene -i cut.ts --start 20 -f framemd5 -o - 2>/dev/null | hashes /dev/stdin >cut.part
check "... and a chunk from frame 20 equals the full run's end" \
    bash -c 'test -s "$1" && cmp -s "$1" <(tail -n +21 "$2")' _ cut.part cut.ours

# ---- an image sequence as -i (frames_%04d.png, as ffmpeg reads it): a background is one
# file; the message says how to make the sequence a video (and that video keeps alpha) -----
mkdir -p aseq
gen -f lavfi -i "$ASRC" aseq/f_%04d.png
rm -f out.mp4
expect_status "-i aseq/f_%04d.png: exit 2" 2 "$ROCKPOOL" flat10.scene -i 'aseq/f_%04d.png' -o out.mp4
stderr_has "... says a background is one file, and how to make a video" \
    "(a background is one file: to use an image sequence, make it a video first, such as ffmpeg -framerate 25 -i 'aseq/f_%04d.png' -c:v ffv1 clip.mkv, which keeps alpha)"
nothing_written "... and writes nothing"
gen -framerate 10 -i 'aseq/f_%04d.png' -c:v ffv1 aseq.mkv
expect_status "... the video that command makes is taken" 0 "$ROCKPOOL" -q flat10.scene -s 96x54 \
    -i aseq.mkv -f framemd5 -o aseq.md5
raw -i aseq.mkv -pix_fmt rgba >aseq.rgba
grep -v '^#' aseq.md5 | wc -l | grep -qx 5 &&
    check "... its alpha over black" cmp -s \
        <(python3 -c 'import sys; c=open(sys.argv[1],"rb").read(); sys.stdout.buffer.write(bytes((c[i]*c[i|3]+127)//255 for i in range(len(c)) if i%4!=3))' aseq.rgba |
            ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 96x54 -r 10 -i - -f framemd5 - | hashes /dev/stdin) \
        <(hashes aseq.md5) || bad "... 5 frames"
rm -f out.mp4

# ---- a colour matrix rockpool does not convert (YCgCo, ICtCp) is refused, not taken as
# BT.601 (libswscale's fallback: other colours without a word); the command it gives makes
# a clip it takes ---------------------------------------------------------------------------
for spec in "ycgco.mkv ycgco YCgCo ffv1" "ictcp.mp4 ictcp ICtCp libx264"; do
    set -- $spec
    gen -f lavfi -i color=c=0x336699:size=96x54:rate=10:duration=0.3 -pix_fmt yuv444p \
        -c:v "$4" -colorspace "$2" "$1"
    expect_status "a clip tagged $3: exit 2" 2 "$ROCKPOOL" flat10.scene -i "$1" -o out.mp4
    stderr_has "... names the matrix" "video '$1': its colours are $3, which rockpool does not convert"
    nothing_written "... and writes nothing"
done
check "... ICtCp gets no conversion hint" bash -c '! grep -q "convert it first" "$1"' _ "$WORK/err"
gen -i ycgco.mkv -vf colorspace=all=bt709:iall=bt709:ispace=ycgco -c:v ffv1 ycg709.mkv
expect_status "the converted YCgCo clip (the hint's command) is taken" 0 "$ROCKPOOL" -q flat10.scene \
    -i ycg709.mkv -f framemd5 -o ycg709.md5
rm -f out.mp4

# ---- an open GOP (H.264 with open-gop, as broadcast and some cameras write it): a range
# starts after a seek to a keyframe whose GOP refers past it (leading B-frames, and the next
# P-frame's reference marking); it stopped with "cannot decode the video frame at 2.120 s",
# exit 2, where the whole run decodes it. Each range equals the whole run's end ------------
gen -f lavfi -i testsrc2=size=160x90:rate=25:duration=8 -c:v libx264 -g 50 -bf 3 \
    -x264opts open-gop=1 -pix_fmt yuv420p opengop.mkv
expect_status "an open-GOP clip: the whole run" 0 "$ROCKPOOL" -q flat.scene -i opengop.mkv -t 8 \
    -f framemd5 -o og.md5
hashes og.md5 >og.all
check "... 200 frames" test "$(wc -l <og.all)" = 200
for st in 30 60 120 170; do
    expect_status "... from frame $st (a seek into GOP $((st / 50 + 1)))" 0 "$ROCKPOOL" -q flat.scene \
        -i opengop.mkv -t 8 --start $st -f framemd5 -o og$st.md5
    hashes og$st.md5 >og$st.h 2>/dev/null
    check "... the whole run's frames $st to 199" cmp -s og$st.h <(tail -n +$((st + 1)) og.all)
done

# ---- a file that itself starts inside an open GOP (the quick trim, ffmpeg -ss 2.5 -c copy,
# keeps the GOP from the keyframe at 2 s): its first pictures refer past that keyframe, and
# it stopped with "cannot decode the video frame at 0.120 s", exit 2. Its first GOP is read
# as after a seek; damage that ffmpeg reports in it is still refused ---------------------
gen -ss 2.5 -i opengop.mkv -c copy ogcut.mkv
expect_status "an open-GOP clip trimmed with -c copy" 0 "$ROCKPOOL" -q flat.scene -i ogcut.mkv \
    -t 6 -f framemd5 -o ogcut.md5
hashes ogcut.md5 >ogcut.ours
theirs ogcut.mkv ogcut.theirs 2>/dev/null # (ffmpeg says why: mmco: unref short failure)
check "... 150 frames, each ffmpeg's decode" \
    bash -c 'test "$(wc -l <"$1")" = 150 && cmp -s "$1" "$2"' _ ogcut.ours ogcut.theirs
check "... the untrimmed run's frames 50 to 199" cmp -s ogcut.ours <(tail -n +51 og.all)
reported=0
for k in $(seq 3 14); do # packet k of the first GOPs (not the keyframe), 3 bytes flipped
    IFS=, read -r sz pos < <(ffprobe -v error -show_entries packet=size,pos -of csv=p=0 ogcut.mkv |
        sed -n "${k}p")
    cp ogcut.mkv ogdmg.mkv
    printf '\xff\x00\xff' | dd of=ogdmg.mkv bs=1 seek=$((pos + sz / 2)) conv=notrunc status=none
    # (only damage ffmpeg itself reports counts: CABAC can decode flipped bytes silently)
    ffmpeg -v error -i ogdmg.mkv -f null - 2>&1 | grep -qv 'mmco: unref short failure' || continue
    reported=$((reported + 1))
    expect_status "... packet $k damaged (ffmpeg reports it): exit 2" 2 "$ROCKPOOL" -q flat.scene \
        -i ogdmg.mkv -t 6 -f framemd5 -o ogdmg.md5
    stderr_has "... says so" "cannot decode the video frame at"
done
check "... damage reported by ffmpeg in at least 3 of 12 packets ($reported)" test $reported -ge 3

# ---- an anamorphic clip whose display width is over 16384 (96x64 stored, pixels 200:1, so
# 19200x64 shown) is usable where a size is given: it was refused with "give --size" even
# with -s or the scene's size. Without a size it is refused as before, naming --size -------
gen -f lavfi -i color=c=0x3060a0:size=96x64:rate=10:duration=0.5 -pix_fmt yuv444p \
    -f yuv4mpegpipe wide1.y4m
sed '1s/ A1:1 / A200:1 /' wide1.y4m >wide.y4m
check "an anamorphic clip (pixels 200:1 for ffprobe)" test "$(ffprobe -v error \
    -show_entries stream=sample_aspect_ratio -of csv=p=0 wide.y4m)" = 200:1
printf 'size 64x36\nfps 10\n' >sized.scene
rm -f out.png
expect_status "a clip shown 19200x64 with -s 64x36: rendered" 0 "$ROCKPOOL" -q flat.scene \
    -s 64x36 -i wide.y4m -o out.png -n 1
# its picture is one colour, so any crop of it is that colour: ffmpeg's decode of the clip
ffmpeg -v error -i wide1.y4m -frames:v 1 -f rawvideo -pix_fmt rgb24 - | od -An -v -tu1 -w3 |
    sort -u >wide.theirs
ffmpeg -v error -i out.png -f rawvideo -pix_fmt rgb24 - | od -An -v -tu1 -w3 | sort -u >wide.ours
check "... every pixel the clip's one colour (ffmpeg's decode: $(head -1 wide.theirs))" \
    bash -c 'test "$(wc -l <"$1")" = 1 && read -r a b c <"$1" && read -r x y z <"$2" &&
        for d in $((a - x)) $((b - y)) $((c - z)); do [ ${d#-} -le 2 ] || exit 1; done' \
    _ wide.ours wide.theirs
rm -f out.png
expect_status "... and with the scene's size (size 64x36): rendered" 0 "$ROCKPOOL" -q sized.scene \
    -i wide.y4m -o out.png -n 1
rm -f out.png
expect_status "... without a size: exit 2" 2 "$ROCKPOOL" -q flat.scene -i wide.y4m -o out.png -n 1
stderr_has "... naming the size and --size" \
    "wide.y4m: video is 19200x64, over the 16384 per side limit: give --size"
nothing_written "... and writes nothing"

# ---- a damaged block in an OpenEXR clip's frame (FFmpeg's EXR decoder says "decode_block()
# failed" and drops the error: the block was left black, exit 0) is refused as damage -------
gen -f lavfi -i testsrc2=size=96x64:rate=10:duration=0.6 -pix_fmt gbrpf32le -c:v exr \
    -compression zip1 exr.mov
expect_status "an OpenEXR clip: rendered" 0 "$ROCKPOOL" -q flat.scene -i exr.mov -o out.png -n 1
rm -f out.png
# 64 bytes flipped in the middle of the frame at 0.3 s (its packet's pos and size by ffprobe)
IFS=, read -r pos sz < <(ffprobe -v error -select_streams v:0 -show_entries packet=pos,size \
    -of csv=p=0 exr.mov | sed -n 4p | awk -F, '{print $2 "," $1}')
python3 - exr.mov exrdmg.mov "$((pos + sz / 2))" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at = int(sys.argv[3])
for i in range(at, at + 64):
    d[i] ^= 0x5A
open(sys.argv[2], "wb").write(d)
PY
check "ffmpeg reports the damaged block" \
    bash -c 'ffmpeg -v error -i exrdmg.mov -f null - 2>&1 | grep -q "decode_block() failed"'
expect_status "... rockpool refuses it (exit 2)" 2 "$ROCKPOOL" -q flat.scene -i exrdmg.mov \
    -o out.mp4
stderr_has "... naming the frame" "cannot decode the video frame at 0.300 s"
nothing_written "... and writes nothing"
