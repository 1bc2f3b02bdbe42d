# farm.sh - farm rendering that cannot lie: scripts/render-parallel on GNU parallel and
# scripts/rockpool-join, checked with ffprobe against a single run. Joined files have the
# single run's packet timestamps and durations at awkward chunk counts (7, 16, 120) and at
# 30000/1001; framemd5 joins equal the single run's manifest; a short, stale, missing or
# foreign chunk is refused with its name; a failed run resumes with only the missing
# chunks; nothing is left beside the output.
source "$(dirname "$0")/lib.sh"

RP=$TOP/scripts/render-parallel
J=$TOP/scripts/rockpool-join
export ROCKPOOL
scene=$TOP/examples/rain.scene
ntsc=(-q -s 64x48 -n 120 -r 30000/1001)

# packets FILE [STREAM]: every packet's stream, pts, dts and duration, as ffprobe reads them.
packets() {
    ffprobe -v error ${2:+-select_streams "$2"} -show_entries packet=stream_index,pts,dts,duration \
        -of csv "$1"
}
# same_timing NAME A B: the two files' video packets and container duration agree exactly.
same_timing() {
    if cmp -s <(packets "$2" v) <(packets "$3" v) &&
        [ "$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$2")" = \
            "$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$3")" ]; then
        ok "$1"
    else
        bad "$1"
        diff <(packets "$2" v) <(packets "$3" v) | head -4 | sed 's/^/    /'
    fi
}
decoded() { ffmpeg -v error -i "$1" -f framemd5 -; }

if ! command -v parallel >/dev/null; then
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
    exit 0
fi

# ---- awkward chunk counts at 30000/1001: MKV (FFV1, frame for frame) and MP4 (x264) ----
"$ROCKPOOL" "$scene" "${ntsc[@]}" -c ffv1 -o single.mkv
"$ROCKPOOL" "$scene" "${ntsc[@]}" --encoder-preset ultrafast -o single.mp4
for k in 7 16 120; do
    expect_status "-k $k MKV: exit 0" 0 "$RP" -k $k -j 2 -o k$k.mkv -- "$scene" "${ntsc[@]}" -c ffv1
    same_timing "-k $k MKV: the single run's timestamps, durations and length" single.mkv k$k.mkv
    check "-k $k MKV: frames decode equal to the single run" cmp -s <(decoded single.mkv) \
        <(decoded k$k.mkv)
    [ $k != 120 ] || continue # (the MP4 at 120 chunks adds time, not cases)
    expect_status "-k $k MP4: exit 0" 0 "$RP" -k $k -j 2 -o k$k.mp4 -- "$scene" "${ntsc[@]}" \
        --encoder-preset ultrafast
    same_timing "-k $k MP4: the single run's timestamps, durations and length" single.mp4 k$k.mp4
done
check "-k 120 MKV: the frames tag says the whole clip" \
    test "$(ffprobe -v error -show_entries format_tags=rockpool_frames -of csv=p=0 k120.mkv)" = "0-119/120"
check "no chunk directory or file left beside the outputs" \
    test "$(ls -A | grep -c -v -e '^single\.' -e '^k[0-9]*\.mp4$' -e '^k[0-9]*\.mkv$' -e '^out$' -e '^err$')" = 0

# ---- framemd5 joined from chunks: the single run's manifest, byte for byte ----
"$ROCKPOOL" "$scene" "${ntsc[@]}" -f framemd5 -o single.framemd5
expect_status "-k 16 framemd5: exit 0" 0 "$RP" -k 16 -j 2 -o k16.framemd5 -- "$scene" "${ntsc[@]}"
check "-k 16 framemd5 equals the single run's" cmp -s single.framemd5 k16.framemd5

# ---- over a video with sound: video exact, audio within one audio frame ----
ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=25:duration=2 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=2 -c:v libx264 -pix_fmt yuv420p \
    -c:a aac -shortest bg.mp4
"$ROCKPOOL" -q -i bg.mp4 --encoder-preset ultrafast -o sound.mp4
expect_status "-k 7 over sound: exit 0" 0 "$RP" -k 7 -j 2 -o sound7.mp4 -- -i bg.mp4 \
    --encoder-preset ultrafast
same_timing "-k 7 over sound: video timestamps equal" sound.mp4 sound7.mp4
# audio_span FILE: the first packet's start and the last one's end, in samples, and the
# packet duration (one audio frame).
audio_span() {
    packets "$1" a | awk -F, 'NR == 1 { s = $3 } { e = $3 + $5; d = $5 } END { print s, e, d }'
}
read -r s0 e0 d0 <<<"$(audio_span sound.mp4)"
read -r s1 e1 d1 <<<"$(audio_span sound7.mp4)"
within() { [ $(($1 - $2)) -le "$3" ] && [ $(($2 - $1)) -le "$3" ]; }
check "-k 7 over sound: audio starts where the single run's does ($s0, $s1)" within "$s0" "$s1" "$d0"
check "-k 7 over sound: audio ends within one audio frame of it ($e0, $e1; frame $d0)" \
    within "$e0" "$e1" "$d0"
check "-k 7 over sound: as many audio packets give or take one" \
    within "$(packets sound.mp4 a | wc -l)" "$(packets sound7.mp4 a | wc -l)" 1
check "-k 7 over sound: the AAC is copied, packet for packet (sizes as the single run's)" \
    cmp -s <(ffprobe -v error -select_streams a -show_entries packet=size -of csv sound.mp4) \
    <(ffprobe -v error -select_streams a -show_entries packet=size -of csv sound7.mp4)

# ---- re-encoded sound: each chunk's priming dropped, placed as the single run's ----
# A chunk's re-encoded sound (AAC for MP4 from FLAC, Opus or Vorbis for WebM from AAC)
# starts with the encoder's priming before its 0 and ends padded: joined as packets, every
# boundary played them (AAC: 35 ms more a boundary). The joined sound is the single run's
# length within one audio frame, and a beep at 1.3 s starts within 5 ms of the single
# run's (decoded, placed by its timestamps).
beep_bg() { # NAME RATE CODEC: 2 s of picture, silence, a beep from 1.3 s
    ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=2 -f lavfi \
        -i "sine=frequency=1000:duration=0.5:sample_rate=$2,adelay=1300:all=1,apad=whole_dur=2" \
        -c:v libx264 -pix_fmt yuv420p -c:a "$3" -shortest "$1"
}
samples() { ffmpeg -v error -i "$1" -map 0:a -ac 1 -f s16le - | wc -c | awk '{ print $1 / 2 }'; }
onset() { # FILE RATE: the first sample louder than 0.1, in microseconds
    ffmpeg -v error -i "$1" -map 0:a -af aresample=async=1:first_pts=0 -ac 1 -f f32le - |
        od -An -v -f -w4 | awk -v r="$2" '!t && ($1 > 0.1 || $1 < -0.1) { t = (NR - 1) * 1e6 / r }
            END { printf "%d\n", t }'
}
near() { [ "$1" -gt "$4" ] && within "$1" "$2" "$3"; } # A B TOLERANCE: A beyond MIN too
beep_bg beep_flac.mkv 48000 flac
beep_bg beep_aac.mp4 48000 aac
beep_bg beep_aac44.mp4 44100 aac
for run in "mp4 beep_flac.mkv 48000 1024 AAC" "webm beep_aac.mp4 48000 960 Opus" \
    "webm beep_aac44.mp4 44100 1024 Vorbis"; do
    read -r ext bg rate frame codec <<<"$run"
    o=(-i "$bg" -t 2)
    [ "$ext" != mp4 ] || o+=(--encoder-preset ultrafast)
    "$ROCKPOOL" -q "${o[@]}" -o "beep1_$codec.$ext"
    expect_status "-k 4, $codec re-encoded: exit 0" 0 "$RP" -k 4 -j 2 -o "beep4_$codec.$ext" \
        -- "${o[@]}"
    l1=$(samples "beep1_$codec.$ext") l4=$(samples "beep4_$codec.$ext")
    check "-k 4, $codec re-encoded: the sound's length within one audio frame ($l1, $l4)" \
        near "$l1" "$l4" "$frame" "$rate"
    t1=$(onset "beep1_$codec.$ext" "$rate") t4=$(onset "beep4_$codec.$ext" "$rate")
    check "-k 4, $codec re-encoded: the beep starts within 5 ms of the single run's ($t1, $t4 us)" \
        near "$t1" "$t4" 5000 1290000
    same_timing "-k 4, $codec re-encoded: video timestamps equal" \
        "beep1_$codec.$ext" "beep4_$codec.$ext"
done

# ---- sound that begins after chunk 0, and the chunks' other streams ----
# A background whose sound begins at 1.5 s, in three chunks of 1 s: chunk 0 has no sound
# (an MP4's copied AAC: no audio stream at all; an MKV's: an empty one; FLAC re-encoded
# to AAC: silence). Each joins (it was refused: "chunk 1 has other streams", "chunk 1 has
# sound, but chunk 0 before it has none"), the beep at the single run's time.
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -itsoffset 1.5 -f lavfi \
    -i sine=frequency=1000:duration=1.5:sample_rate=48000 -map 0:v -map 1:a -c:v libx264 \
    -pix_fmt yuv420p -c:a aac late_aac.mp4
ffmpeg -v error -i late_aac.mp4 -map 0 -c:v copy -c:a flac late_flac.mkv
for run in "mp4 late_aac.mp4 copied" "mkv late_aac.mp4 copied" "mp4 late_flac.mkv re-encoded"; do
    read -r ext bg how <<<"$run"
    o=(-i "$bg" -t 3 -r 30 --encoder-preset ultrafast)
    "$ROCKPOOL" -q "${o[@]}" -o "late1_$how.$ext"
    expect_status "sound from 1.5 s in 1 s chunks, $how ($ext): exit 0" 0 "$RP" -k 3 -j 2 \
        -o "late3_$how.$ext" -- "${o[@]}"
    t1=$(onset "late1_$how.$ext" 48000) t3=$(onset "late3_$how.$ext" 48000)
    check "sound from 1.5 s, $how ($ext): it starts within 5 ms of the single run's ($t1, $t3 us)" \
        near "$t1" "$t3" 5000 1490000
    l1=$(samples "late1_$how.$ext") l3=$(samples "late3_$how.$ext")
    check "sound from 1.5 s, $how ($ext): its length within one audio frame ($l1, $l3)" \
        near "$l1" "$l3" 1024 48000
    check "sound from 1.5 s, $how ($ext): video timestamps equal" \
        cmp -s <(packets "late1_$how.$ext" v) <(packets "late3_$how.$ext" v)
done
check "sound from 1.5 s, copied (mp4): the AAC is copied, packet for packet" \
    cmp -s <(ffprobe -v error -select_streams a -show_entries packet=size -of csv late1_copied.mp4) \
    <(ffprobe -v error -select_streams a -show_entries packet=size -of csv late3_copied.mp4)
# Streams added to the chunks (a subtitle, a font attachment) are kept as a stream-copied
# join keeps them (FFmpeg's concat takes chunk 0's streams) when the sound is re-encoded
# too (they were dropped); a data stream (a timecode track) or a second audio stream beside
# re-encoded sound cannot be carried, and is refused (exit 2), never dropped.
nothing_left() { [ ! -e "$1" ] && [ -z "$(find . -maxdepth 1 -name '.rockpool-join.*' -print -quit)" ]; }
types() { ffprobe -v error -show_entries stream=codec_type -of csv=p=0 "$1" | paste -sd' '; }
for sound in "copied beep_aac.mp4" "re-encoded beep_flac.mkv"; do
    read -r how bg <<<"$sound"
    for r in 0-29 30-59; do
        "$ROCKPOOL" -q -y -i "$bg" -t 2 -r 30 --encoder-preset ultrafast --frame-range $r -o "st$r.mp4"
        printf '1\n00:00:00,200 --> 00:00:00,500\nchunk %s\n' $r >"st$r.srt"
        ffmpeg -v error -y -i "st$r.mp4" -i "st$r.srt" -map 0 -map 1 -c copy -c:s mov_text \
            -movflags +use_metadata_tags "sub_$how$r.mp4"
        ffmpeg -v error -y -i "st$r.mp4" -map 0 -c copy -timecode 00:00:01:00 \
            -movflags +use_metadata_tags "tc_$how$r.mp4"
        ffmpeg -v error -y -i "st$r.mp4" -map 0 -map 0:a -c copy -movflags +use_metadata_tags \
            "a2_$how$r.mp4"
    done
    expect_status "$how sound, subtitled chunks: exit 0" 0 "$J" -o "sub_$how.mp4" \
        "sub_$how"{0-29,30-59}.mp4
    check "$how sound, subtitled chunks: the subtitle stream is kept ($(types "sub_$how.mp4"))" \
        test "$(types "sub_$how.mp4")" = "video audio subtitle"
    check "$how sound, subtitled chunks: every chunk's subtitle, at its time" \
        test "$(ffmpeg -v error -i "sub_$how.mp4" -map 0:s -f srt - | grep -e '-->' -e '^chunk' |
            paste -sd' ')" = "00:00:00,200 --> 00:00:00,500 chunk 0-29 00:00:01,200 --> 00:00:01,500 chunk 30-59"
    expect_status "$how sound, chunks with a timecode track: exit 2" 2 "$J" -o "tc_$how.mp4" \
        "tc_$how"{0-29,30-59}.mp4
    stderr_has "$how sound, chunks with a timecode track: says why" \
        "chunk 0 (tc_${how}0-29.mp4) has a data stream (stream 2), which the join cannot carry"
    check "$how sound, chunks with a timecode track: nothing written" nothing_left "tc_$how.mp4"
done
expect_status "copied sound in two audio streams: exit 0" 0 "$J" -o a2_copied.mp4 \
    a2_copied{0-29,30-59}.mp4
check "copied sound in two audio streams: both kept" test "$(types a2_copied.mp4)" = "video audio audio"
expect_status "re-encoded sound beside a second audio stream: exit 2" 2 "$J" -o a2_re.mp4 \
    a2_re-encoded{0-29,30-59}.mp4
stderr_has "re-encoded sound beside a second audio stream: says why" "has more than one audio stream"
check "re-encoded sound beside a second audio stream: nothing written" test ! -e a2_re.mp4
# Opus re-encoded from mu-law into MKV, with a font attached to each chunk: kept
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=2 -f lavfi \
    -i sine=frequency=1000:duration=2:sample_rate=8000 -c:v mjpeg -c:a pcm_mulaw mu.avi
printf 'not a font' >font.ttf
for r in 0-29 30-59; do
    "$ROCKPOOL" -q -i mu.avi -t 2 -r 30 -c ffv1 --frame-range $r -o "mu$r.mkv"
    ffmpeg -v error -i "mu$r.mkv" -map 0 -c copy -attach font.ttf \
        -metadata:s:t mimetype=application/x-truetype-font "font$r.mkv"
done
expect_status "Opus re-encoded, chunks with an attachment: exit 0" 0 "$J" -o font.mkv \
    font{0-29,30-59}.mkv
check "Opus re-encoded, chunks with an attachment: kept ($(types font.mkv))" \
    test "$(types font.mkv)" = "video audio attachment"
check "Opus re-encoded, chunks with an attachment: its name" \
    test "$(ffprobe -v error -show_entries stream_tags=filename -select_streams t -of csv=p=0 \
        font.mkv)" = font.ttf

# ---- a chunk without sound: shorter than a packet (joined), or its sound removed (refused) ----
# A chunk's sound is the packets that start in its span (copied), or its span's samples
# (re-encoded). A chunk shorter than a packet can hold none (FLAC's 96 ms packets over
# 33 ms chunks): it joins, with the single run's sound (it was refused: "chunk 4 has sound,
# but chunk 3 before it has none"). A chunk whose sound was removed (a video-only copy)
# where the sound runs is refused, naming it, and nothing is written (it joined, exit 0,
# the sound cut off or begun at it).
sine_bg() { # NAME CODEC...: 3 s of picture and a 1 kHz tone throughout
    local name=$1
    shift
    ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -f lavfi \
        -i sine=frequency=1000:duration=3:sample_rate=48000 -map 0:v -map 1:a "$@" "$name"
}
sound_md5() { ffmpeg -v error -i "$1" -map 0:a -f md5 -; }
sine_bg full_flac.mkv -c:v libx264 -pix_fmt yuv420p -c:a flac
o=(-q -i full_flac.mkv -t 0.5 -r 30 -c ffv1)
"$ROCKPOOL" "${o[@]}" -o flac1.mkv
expect_status "FLAC's 96 ms packets over 33 ms chunks: exit 0" 0 "$RP" -k 15 -j 2 \
    -o flac15.mkv -- "${o[@]}"
check "FLAC over 33 ms chunks: the single run's sound, sample for sample" \
    cmp -s <(sound_md5 flac1.mkv) <(sound_md5 flac15.mkv)
sine_bg full_aac.mp4 -c:v libx264 -pix_fmt yuv420p -c:a aac
sine_bg full_mu.avi -c:v mjpeg -c:a pcm_mulaw
for run in "mp4 full_aac.mp4 copied" "mkv full_aac.mp4 copied" "mkv full_mu.avi re-encoded"; do
    read -r ext bg how <<<"$run"
    for r in 0-29 30-59 60-89; do
        "$ROCKPOOL" -q -y -i "$bg" -t 3 -r 30 --encoder-preset ultrafast --frame-range $r \
            -o "snd$r.$ext"
        ffmpeg -v error -y -i "snd$r.$ext" -map 0 -an -c copy -movflags +use_metadata_tags \
            "mute$r.$ext"
    done
    expect_status "$how sound ($ext), every chunk's: exit 0" 0 "$J" -o "snd.$ext" \
        snd{0-29,30-59,60-89}."$ext"
    rm -f "snd.$ext"
    for mute in 0-29 30-59 60-89; do
        c=() && for r in 0-29 30-59 60-89; do
            if [ $r = $mute ]; then c+=("mute$r.$ext"); else c+=("snd$r.$ext"); fi
        done
        # Its rockpool_sound tag says the sound runs over its span: refused, wherever it is
        # (at the sound's start or end it joined with a warning before the tag).
        expect_status "$how sound ($ext), chunk $mute's removed: exit 2" 2 "$J" \
            -o "mute.$ext" "${c[@]}"
        stderr_has "$how sound ($ext), chunk $mute's removed: says so" \
            "its sound was lost or removed"
        check "$how sound ($ext), chunk $mute's removed: nothing written" \
            nothing_left "mute.$ext"
    done
    # Without the tag (a chunk of an older rockpool), told by the packets alone: at the
    # sound's start or end it cannot be told from a sound that begins or ends there, and
    # joins with a warning naming it.
    for mute in 0-29 60-89; do
        ffmpeg -v error -y -i "mute$mute.$ext" -map 0 -c copy -metadata rockpool_sound= \
            -movflags +use_metadata_tags "untagged$mute.$ext"
        c=() && for r in 0-29 30-59 60-89; do
            if [ $r = $mute ]; then c+=("untagged$r.$ext"); else c+=("snd$r.$ext"); fi
        done
        expect_status "$how sound ($ext), chunk $mute's removed, no tag: joined (exit 0)" 0 \
            "$J" -o "mute.$ext" "${c[@]}"
        stderr_has "$how sound ($ext), chunk $mute's removed, no tag: a warning names it" \
            "rockpool-join: warning: chunk $([ $mute = 0-29 ] && echo '1 (snd30' || echo '2 (untagged60')"
        rm -f "mute.$ext"
    done
done
# Every chunk's sound removed: the tags still say where it was (joined silent before them).
expect_status "re-encoded sound (mkv), every chunk's removed: exit 2" 2 "$J" -o mute.mkv \
    mute{0-29,30-59,60-89}.mkv
stderr_has "... names the first" "chunk 0 (mute0-29.mkv) has no sound, but the background's sound"
check "... nothing written" nothing_left mute.mkv
# A chunk whose tag says none where the others' say where the sound lies (a chunk rendered
# with --no-audio is of another job, refused as such; a copy with its tag changed): refused
# (it joined without a word, the sound cut off at it).
ffmpeg -v error -y -i mute60-89.mkv -map 0 -c copy -metadata rockpool_sound=none na60-89.mkv
expect_status "a last chunk without sound, its tag none: exit 2" 2 "$J" -o na.mkv \
    snd{0-29,30-59}.mkv na60-89.mkv
stderr_has "... says why" "chunk 2 (na60-89.mkv) says the background's sound is none"
check "... nothing written" nothing_left na.mkv
# A sound that really ends at a chunk boundary (2 s of sound under 3 s of picture, chunks
# of 1 s: a plain farm job) joins as the single run's sound, and without a warning: the
# last chunk's tag says the sound ends before its span (it warned before the tag).
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -f lavfi \
    -i sine=frequency=1000:duration=2:sample_rate=48000 -map 0:v -map 1:a -c:v libx264 \
    -pix_fmt yuv420p -c:a aac end2.mp4
"$ROCKPOOL" -q -y -i end2.mp4 -t 3 -r 30 --encoder-preset ultrafast -o end2_single.mp4
for r in 0-29 30-59 60-89; do
    "$ROCKPOOL" -q -y -i end2.mp4 -t 3 -r 30 --encoder-preset ultrafast --frame-range $r \
        -o "end2_$r.mp4"
done
expect_status "sound ending at a chunk boundary: joined (exit 0)" 0 "$J" -o end2_join.mp4 \
    end2_{0-29,30-59,60-89}.mp4
check "... without a warning" test "$(grep -c warning "$WORK/err")" = 0
check "... the single run's sound" cmp -s <(sound_md5 end2_single.mp4) <(sound_md5 end2_join.mp4)
check "... the tag: the sound's 2 s (AAC's priming before 0)" \
    grep -Eqx -- '-[0-9]{5}\.\.2000000' <(ffprobe -v error -show_entries format_tags=rockpool_sound \
        -of csv=p=0 end2_60-89.mp4)
rm -f end2*.mp4
# Copied Opus (WebM): its packets' times are its codec delay before its samples; the join
# took that for re-encoded sound and re-encoded it, and FFmpeg's stream copy wrote it 7 ms
# early (a sound that begins late too). Both join as the single run's packets.
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -f lavfi \
    -i "sine=frequency=1000:duration=3:sample_rate=48000,volume=enable='lt(t,1.5)':volume=0" \
    -map 0:v -map 1:a -c:v libvpx-vp9 -deadline realtime -c:a libopus opus.webm
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -itsoffset 1.5 -f lavfi \
    -i sine=frequency=1000:duration=1.5:sample_rate=48000 -map 0:v -map 1:a -c:v libvpx-vp9 \
    -deadline realtime -c:a libopus late_opus.webm
apackets() { ffprobe -v error -select_streams a -show_entries packet=pts,size -of csv "$1"; }
for bg in opus.webm late_opus.webm; do
    o=(-q -i "$bg" -t 3 -r 30)
    "$ROCKPOOL" "${o[@]}" -o "${bg%.webm}1.webm"
    expect_status "copied Opus ($bg), 3 chunks: exit 0" 0 "$RP" -k 3 -j 2 \
        -o "${bg%.webm}3.webm" -- "${o[@]}"
    check "copied Opus ($bg), 3 chunks: the single run's packets and times" \
        cmp -s <(apackets "${bg%.webm}1.webm") <(apackets "${bg%.webm}3.webm")
done
expect_status "copied Opus, 7 chunks: exit 0" 0 "$RP" -k 7 -j 2 -o opus7.webm -- \
    -q -i opus.webm -t 3 -r 30
check "copied Opus, 7 chunks: copied, packet for packet (not re-encoded)" \
    cmp -s <(apackets opus1.webm | cut -d, -f3) <(apackets opus7.webm | cut -d, -f3)
check "copied Opus, 7 chunks: the single run's sound, sample for sample" \
    cmp -s <(sound_md5 opus1.webm) <(sound_md5 opus7.webm)
check "copied Opus, 7 chunks: its first packet at the single run's time" \
    test "$(apackets opus1.webm | sed -n 1p)" = "$(apackets opus7.webm | sed -n 1p)"
# A 1-frame H.264 MKV chunk whose sound starts after its video (FFmpeg moves the video to
# the sound's start, before 0): it was refused as cut short, and placed a frame early.
for r in 0-1 2-2 3-89; do
    "$ROCKPOOL" -q -i full_aac.mp4 -t 3 -r 30 --encoder-preset ultrafast --frame-range $r \
        -o "one$r.mkv"
done
"$ROCKPOOL" -q -i full_aac.mp4 -t 3 -r 30 --encoder-preset ultrafast -o one.mkv
expect_status "a 1-frame H.264 chunk, sound after its frame: exit 0" 0 "$J" -o one3.mkv \
    one{0-1,2-2,3-89}.mkv
check "a 1-frame H.264 chunk: the single run's video timestamps" \
    cmp -s <(packets one.mkv v) <(packets one3.mkv v)
check "a 1-frame H.264 chunk: the single run's sound" cmp -s <(sound_md5 one.mkv) <(sound_md5 one3.mkv)

# Chunks whose streams the output's container cannot hold (H.264 and AAC into .webm), or
# MP4 chunks into Matroska, are bad input: refused before anything runs (they failed in
# FFmpeg, exit 1). WebM chunks remuxed by FFmpeg (their video moved 7 ms later) join as
# the single run (they failed the joined file's timing check, exit 1).
expect_status "MP4 chunks into .webm: exit 2" 2 "$J" -o cross.webm snd{0-29,30-59,60-89}.mp4
stderr_has "MP4 chunks into .webm: says why" "its streams cannot be joined into a .webm file"
check "MP4 chunks into .webm: nothing written" nothing_left cross.webm
expect_status "MP4 chunks into .mkv: exit 2" 2 "$J" -o cross.mkv snd{0-29,30-59,60-89}.mp4
stderr_has "MP4 chunks into .mkv: says why" "is an MP4 or MOV file"
check "MP4 chunks into .mkv: nothing written" nothing_left cross.mkv
"$ROCKPOOL" -q -i full_aac.mp4 -t 3 -r 30 -o opus_re1.webm
for r in 0-29 30-59 60-89; do
    "$ROCKPOOL" -q -i full_aac.mp4 -t 3 -r 30 --frame-range $r -o "re$r.webm"
    ffmpeg -v error -i "re$r.webm" -map 0 -c copy "remux$r.webm"
done
expect_status "re-encoded Opus, chunks remuxed by FFmpeg: exit 0" 0 "$J" -o remux.webm \
    remux{0-29,30-59,60-89}.webm
check "re-encoded Opus, chunks remuxed by FFmpeg: the single run's video timestamps" \
    cmp -s <(packets opus_re1.webm v) <(packets remux.webm v)
"$J" -o re.webm re{0-29,30-59,60-89}.webm
check "re-encoded Opus, chunks remuxed by FFmpeg: the sound of the chunks joined as they were" \
    cmp -s <(sound_md5 re.webm) <(sound_md5 remux.webm)
# Opus that rockpool re-encoded at 8 kHz (from mu-law), its sound from 1.5 s: the join
# encoded it at 48 kHz and placed it 6 ms late (its first packet at -7 ms, the single
# run's at -1 ms).
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -f lavfi \
    -i "sine=frequency=1000:duration=1.5:sample_rate=8000,adelay=1500:all=1" -c:v mjpeg \
    -c:a pcm_mulaw late_mu.avi
"$ROCKPOOL" -q -i late_mu.avi -t 3 -r 30 -c ffv1 -o late_mu1.mkv
for r in 0-29 30-59 60-89; do
    "$ROCKPOOL" -q -i late_mu.avi -t 3 -r 30 -c ffv1 --frame-range $r -o "late_mu$r.mkv"
done
expect_status "Opus re-encoded at 8 kHz, sound from 1.5 s: exit 0" 0 "$J" -o late_mu3.mkv \
    late_mu{0-29,30-59,60-89}.mkv
t1=$(onset late_mu1.mkv 48000) t3=$(onset late_mu3.mkv 48000)
check "Opus re-encoded at 8 kHz: the tone starts within 1 ms of the single run's ($t1, $t3 us)" \
    near "$t1" "$t3" 1000 1490000
check "Opus re-encoded at 8 kHz: its first packet at the single run's time" \
    test "$(apackets late_mu1.mkv | sed -n 1p | cut -d, -f2)" = \
    "$(apackets late_mu3.mkv | sed -n 1p | cut -d, -f2)"
# Subtitled MP4 chunks whose sound starts late or ends early: the chunks without sound
# have the subtitle at another index (they were refused: "has other streams", naming the
# same video stream). They join with the single run's video and sound, every subtitle kept.
ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30:duration=3 -f lavfi \
    -i sine=frequency=1000:duration=1.5:sample_rate=48000 -map 0:v -map 1:a -c:v libx264 \
    -pix_fmt yuv420p -c:a aac early_aac.mp4
for bg in late_aac.mp4 early_aac.mp4; do
    o=(-q -i "$bg" -t 3 -r 30 --encoder-preset ultrafast)
    "$ROCKPOOL" "${o[@]}" -o "subs1_$bg"
    for r in 0-29 30-59 60-89; do
        "$ROCKPOOL" "${o[@]}" -y --frame-range $r -o "subs$r.mp4"
        printf '1\n00:00:00,200 --> 00:00:00,500\nchunk %s\n' $r >"subs$r.srt"
        ffmpeg -v error -y -i "subs$r.mp4" -i "subs$r.srt" -map 0 -map 1 -c copy -c:s mov_text \
            -movflags +use_metadata_tags "subs_$bg$r.mp4"
    done
    expect_status "subtitled chunks, sound of $bg: exit 0" 0 "$J" -o "subs3_$bg" \
        "subs_$bg"{0-29,30-59,60-89}.mp4
    check "subtitled chunks, sound of $bg: the single run's video timestamps" \
        cmp -s <(packets "subs1_$bg" v) <(packets "subs3_$bg" v)
    check "subtitled chunks, sound of $bg: the single run's sound" \
        cmp -s <(sound_md5 "subs1_$bg") <(sound_md5 "subs3_$bg")
    check "subtitled chunks, sound of $bg: every chunk's subtitle, at its time" \
        test "$(ffmpeg -v error -i "subs3_$bg" -map 0:s -f srt - | grep -e '-->' -e '^chunk' |
            paste -sd' ')" = "00:00:00,200 --> 00:00:00,500 chunk 0-29 00:00:01,200 --> 00:00:01,500 chunk 30-59 00:00:02,200 --> 00:00:02,500 chunk 60-89"
done
# ---- the join refuses what is not the clip, naming the chunk ----
opts=(-q -s 64x48 -n 30 -c ffv1)
for r in 0-9 10-19 20-29; do "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range $r -o c$r.mkv; done
"$ROCKPOOL" "$scene" "${opts[@]}" --seed 99 --frame-range 10-19 -o stale10-19.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" -s 32x32 --frame-range 10-19 -o small10-19.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 10-18 -o c10-18.mkv
ffmpeg -v error -i c10-19.mkv -c copy -map_metadata -1 untagged.mkv
# A range rendered without --job-id=LINE carries its own job line: chunks without one (an
# older rockpool's) are made by removing it, so that the other tags and the streams are
# what tells a stale chunk from the others.
nojob() { ffmpeg -v error -i "$1" -map 0 -c copy -metadata rockpool_job= "$2"; }
for f in c0-9 c20-29 stale10-19 small10-19; do nojob $f.mkv n$f.mkv; done
refused() { # NAME FRAGMENT CHUNK...
    local name=$1 frag=$2
    shift 2
    expect_status "join refuses $name: exit 2" 2 "$J" --frames 30 -o joined.mkv "$@"
    stderr_has "join refuses $name: message" "$frag"
    check "join refuses $name: no output" test ! -e joined.mkv
}
# examples/slurm-array.sh refuses side outputs, which every task would write (with -y)
for side in "--aov height sa_h_%d.png" "--stats sa.csv" "--dump-heights sa.bin" "--hash"; do
    # shellcheck disable=SC2086
    expect_status "slurm-array.sh $side: exit 2" 2 env ROCKPOOL="$ROCKPOOL" \
        bash "$TOP/examples/slurm-array.sh" "$scene" sa.mkv -n 4 $side
    stderr_has "slurm-array.sh $side: says why" "every task would write it"
done
check "slurm-array.sh: nothing written" test -z "$(ls -A | grep '^sa\|^\.sa')"
expect_status "join of three good chunks: exit 0" 0 "$J" --frames 30 -o joined.mkv c0-9.mkv \
    c10-19.mkv c20-29.mkv
rm -f joined.mkv
refused "a stale chunk (other seed)" "chunk 1 (stale10-19.mkv) is of another job, which differs in: options" \
    c0-9.mkv stale10-19.mkv c20-29.mkv
refused "a chunk of another size" "chunk 1 (small10-19.mkv) is of another job, which differs in: options" \
    c0-9.mkv small10-19.mkv c20-29.mkv
check "(the chunks without a job line have none)" test -z "$(ffprobe -v error -show_entries \
    format_tags=rockpool_job -of default=nw=1:nk=1 nstale10-19.mkv)"
refused "a stale chunk without a job line (other seed)" \
    "chunk 1 (nstale10-19.mkv) was made with other settings" nc0-9.mkv nstale10-19.mkv nc20-29.mkv
refused "a chunk without a job line of another size" "chunk 1 (nsmall10-19.mkv) has other streams" \
    nc0-9.mkv nsmall10-19.mkv nc20-29.mkv
refused "a missing chunk file" "chunk 1 (gone.mkv) is missing" c0-9.mkv gone.mkv c20-29.mkv
refused "a gap" "chunk 1 (c20-29.mkv) holds frames 20-29: frames 10-19 are missing" \
    c0-9.mkv c20-29.mkv
refused "a short clip" "frames 20-29 of 30 are missing" c0-9.mkv c10-19.mkv
refused "overlapping chunks" "overlap" c0-9.mkv c10-19.mkv c10-19.mkv c20-29.mkv
refused "a chunk without rockpool's tags" "chunk 1 (untagged.mkv): no rockpool_frames tag" \
    c0-9.mkv untagged.mkv c20-29.mkv
expect_status "join refuses a clip of another length: exit 2" 2 "$J" --frames 31 -o joined.mkv \
    c0-9.mkv c10-19.mkv c20-29.mkv
stderr_has "another length: message" "is from a clip of 30 frames, this one has 31"
expect_status "--scene-sha256 of another scene: exit 2" 2 "$J" --scene-sha256 \
    "$(printf 'other' | sha256sum | cut -c1-64)" -o joined.mkv c0-9.mkv c10-19.mkv c20-29.mkv
stderr_has "another scene: message" "chunk 0 (c0-9.mkv) is from another scene"
expect_status "--scene-sha256 of this scene: exit 0" 0 "$J" --scene-sha256 \
    "$(sha256sum <"$scene" | cut -c1-64)" -o joined.mkv c0-9.mkv c10-19.mkv c20-29.mkv
expect_status "an existing output without -y: exit 2" 2 "$J" -o joined.mkv c0-9.mkv c10-19.mkv \
    c20-29.mkv
rm -f joined.mkv
# A chunk stopped by SIGTERM: rockpool finishes the file properly, its tag still says the
# range asked for, and the count gives it away.
"$ROCKPOOL" "$scene" -q -s 320x240 -n 3000 -c ffv1 --frame-range 0-2999 --progress-fd 3 \
    -o cut.mkv 3>cut.progress &
pid=$!
# (up to 60 s: farm.sh runs under AddressSanitizer in make check-all, and a SIGTERM before
# the handler kills the run with no file)
for _ in $(seq 600); do grep -q '^frame=[1-9]' cut.progress 2>/dev/null && break; sleep 0.1; done
kill -TERM $pid
wait $pid
check "SIGTERM: rockpool exits 143 and keeps a playable, short chunk" test $? = 143 -a -s cut.mkv
expect_status "join --check refuses the short chunk: exit 2" 2 "$J" --check --range 0-2999/3000 cut.mkv
stderr_has "short chunk: message" "chunk 0 (cut.mkv) holds"
stderr_has "short chunk: says to render it again" "of the 3000 frames of its range 0-2999 (cut short"
expect_status "join --check takes a complete chunk: exit 0" 0 "$J" --check --range 10-19/30 c10-19.mkv
expect_status "join --check of another range: exit 2" 2 "$J" --check --range 10-20/30 c10-19.mkv

# framemd5 chunks: frames counted line by line.
for r in 0-9 10-19 20-29; do
    "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range $r -f framemd5 -o m$r.framemd5
done
head -n -2 m10-19.framemd5 >short.framemd5
expect_status "framemd5 join of a cut chunk: exit 2" 2 "$J" --frames 30 -o m.framemd5 \
    m0-9.framemd5 short.framemd5 m20-29.framemd5
stderr_has "framemd5 cut chunk: message" "frames 18-19 are missing before it (chunk 1, short.framemd5, ends at 17)"
check "framemd5 refused: no output" test ! -e m.framemd5
"$ROCKPOOL" "$scene" "${opts[@]}" -f framemd5 -o mfull.framemd5
expect_status "framemd5 join: exit 0" 0 "$J" --frames 30 -o m.framemd5 m0-9.framemd5 \
    m10-19.framemd5 m20-29.framemd5
check "framemd5 join equals the single run's" cmp -s m.framemd5 mfull.framemd5
# a framemd5 file has no tags: the clip's length comes from --frames (or --range)
expect_status "framemd5 join without --frames: exit 2" 2 "$J" -o m2.framemd5 m0-9.framemd5 \
    m10-19.framemd5 m20-29.framemd5
stderr_has "... asks for it" "does not say the clip's length (a framemd5 file has no tags): give --frames N"
expect_status "framemd5 join without its last chunk: exit 2" 2 "$J" --frames 30 -o m2.framemd5 \
    m0-9.framemd5 m10-19.framemd5
check "framemd5 joins refused: no output" test ! -e m2.framemd5
for r in 0-9 10-19 20-29; do
    expect_status "framemd5 --check --range $r/30 of a complete chunk: exit 0" 0 "$J" --check \
        --range $r/30 m$r.framemd5
done

# A chunk's fields are data, never code: a dts or pts field that is a shell expression
# (bash arithmetic would run its command substitution) is refused, and nothing runs.
for field in 2 3; do
    awk -F, -v f=$field 'BEGIN { OFS = "," } !/^#/ && !done { $f = " chunks[$(touch${IFS}pwned)]"; done = 1 } 1' \
        m0-9.framemd5 >evil$field.framemd5
    expect_status "framemd5 chunk with a shell expression in field $field: exit 2" 2 "$J" \
        -o evil.framemd5 evil$field.framemd5
    # (line 11: the chunk's first line is its #rockpool_job line)
    stderr_has "... names the line" "chunk 0 (evil$field.framemd5):11: not a framemd5 frame line"
    check "... and runs nothing" test ! -e pwned -a ! -e evil.framemd5
done
sed 's/^0, *0, *0,/0, 0, chunks[$(touch pwned)],/' m0-9.framemd5 >evil.framemd5.in
expect_status "framemd5 pts 'chunks[\$(touch pwned)]': exit 2" 2 "$J" -o evil.framemd5 evil.framemd5.in
check "... runs nothing" test ! -e pwned -a ! -e touchpwned
# slurm-array.sh's plan file is data too: a word that is not a decimal is refused.
mkdir -p .plan.mkv.chunks
planid=$("$ROCKPOOL" "$scene" "${opts[@]}" -f mkv --job-id | sed -n 's/^job-id: *//p')
echo '4 opts[$(touch${IFS}pwned)]' >".plan.mkv.chunks/plan-$planid"
expect_status "slurm-array.sh, a plan file with a shell expression: exit 1" 1 env ROCKPOOL="$ROCKPOOL" \
    SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_MAX=2 \
    bash "$TOP/examples/slurm-array.sh" "$scene" plan.mkv "${opts[@]}"
stderr_has "... names it" "is not a plain decimal"
check "... and runs nothing" test ! -e pwned
rm -rf .plan.mkv.chunks plan.mkv
# Run outside an array task, or joined before any task ran or with other options than the
# tasks': bad usage (exit 2), saying so, and nothing created (no output directory, no
# chunk directory).
expect_status "slurm-array.sh outside an array task: exit 2" 2 env ROCKPOOL="$ROCKPOOL" \
    bash "$TOP/examples/slurm-array.sh" "$scene" "nd/x.mkv" "${opts[@]}"
stderr_has "... says so" "run through sbatch --array, or with JOIN=1 to join"
check "... creates nothing" test ! -e nd
expect_status "slurm-array.sh JOIN=1 before any task: exit 2" 2 env JOIN=1 ROCKPOOL="$ROCKPOOL" \
    bash "$TOP/examples/slurm-array.sh" "$scene" "nd/x.mkv" "${opts[@]}"
stderr_has "... says so" "no chunks to join in nd/.x.mkv.chunks: run the array first"
check "... creates nothing" test ! -e nd
env SLURM_JOB_ID=5 SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=1 \
    ROCKPOOL="$ROCKPOOL" bash "$TOP/examples/slurm-array.sh" "$scene" "nd/x.mkv" "${opts[@]}"
expect_status "slurm-array.sh JOIN=1 with other options than the tasks': exit 2" 2 env JOIN=1 \
    ROCKPOOL="$ROCKPOOL" bash "$TOP/examples/slurm-array.sh" "$scene" "nd/x.mkv" "${opts[@]}" --seed 4
stderr_has "... says so" "nd/.x.mkv.chunks holds no plan of this job"
rm -rf nd

# slurm-array.sh outside Slurm's own machinery (its variables set by hand, as sbatch would):
# the plan is recorded once per job by its first task, and read by later tasks whatever
# their array spec; -j and --max-memory come from the task's allocation.
cat >logrp <<EOF
#!/usr/bin/env bash
case " \$* " in *" --start "*) echo "\$*" >>"$WORK/tasks.log" ;; esac
exec "$ROCKPOOL" "\$@"
EOF
chmod +x logrp
task() { # ID MIN MAX [VAR=VALUE...]
    local id=$1 lo=$2 hi=$3
    shift 3
    env ROCKPOOL="$WORK/logrp" SLURM_JOB_ID=77 SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=$lo \
        SLURM_ARRAY_TASK_MAX=$hi "$@" bash "$TOP/examples/slurm-array.sh" "$scene" arr.framemd5 \
        -q -s 64x48 -n 16
}
: >tasks.log
for id in 0 1 2 4 6 7; do task $id 0 7 2>/dev/null; done
rm -f tasks.log
expect_status "slurm-array.sh --array=3,5 after losing chunks 3 and 5 of 0-7: task 3" 0 task 3 3 5
expect_status "... task 5" 0 task 5 3 5
check "... they rendered chunks 3 and 5 (frames 6-7 and 10-11), nothing else" \
    test "$(sed 's/.*--start \([0-9]*\) --end \([0-9]*\).*/\1-\2/' tasks.log | sort -n | tr '\n' ' ')" = "6-8 10-12 "
expect_status "... a task outside the plan: exit 2" 2 task 8 8 8
stderr_has "... says so" "task 8 is outside this job's plan: 8 chunks, array indices 0-7"
expect_status "... task 08 (a leading zero: decimal, not octal): exit 2" 2 task 08 08 08
stderr_has "... says it is outside the plan" "task 08 is outside this job's plan"
expect_status "... CHUNKS=4 against the plan's 8: exit 2" 2 task 1 0 7 CHUNKS=4
stderr_has "... says so" "CHUNKS=4, but this job's plan (recorded by its first task) has 8 chunks"
expect_status "... task 'x': exit 2" 2 task x 0 7
stderr_has "... says so" "SLURM_ARRAY_TASK_ID: 'x' is not an array index"
expect_status "... the join: exit 0" 0 env JOIN=1 ROCKPOOL="$ROCKPOOL" bash "$TOP/examples/slurm-array.sh" \
    "$scene" arr.framemd5 -q -s 64x48 -n 16
"$ROCKPOOL" "$scene" -q -s 64x48 -n 16 -f framemd5 -o arr_single.framemd5
check "... the single run's manifest" cmp -s arr.framemd5 arr_single.framemd5
# An output that exists without -y: each task refuses it before rendering (the join would,
# once every chunk is rendered); -y as rockpool reads it (--overwrite, a bundle) is -y.
: >tasks.log
expect_status "slurm-array.sh, a task over an existing output without -y: exit 2" 2 task 0 0 1
stderr_has "... says so" "'arr.framemd5' already exists (use -y to overwrite)"
check "... renders nothing" test ! -s tasks.log
check "... leaves no chunk directory" test ! -e .arr.framemd5.chunks
slurm_y() { # ID|JOIN -Y: task ID of 0-1 (or the join) over arr.framemd5 with -Y
    local id=$1 y=$2
    if [ "$id" = JOIN ]; then
        env JOIN=1 ROCKPOOL="$ROCKPOOL" bash "$TOP/examples/slurm-array.sh" "$scene" arr.framemd5 \
            "$y" -s 64x48 -n 16
    else
        env ROCKPOOL="$WORK/logrp" SLURM_JOB_ID=77 SLURM_ARRAY_TASK_ID="$id" SLURM_ARRAY_TASK_MIN=0 \
            SLURM_ARRAY_TASK_MAX=1 bash "$TOP/examples/slurm-array.sh" "$scene" arr.framemd5 "$y" \
            -s 64x48 -n 16
    fi
}
for y in --overwrite -qy; do
    echo stale >arr.framemd5
    slurm_y 0 "$y" && slurm_y 1 "$y"
    expect_status "slurm-array.sh $y over an existing output: the join, exit 0" 0 slurm_y JOIN "$y"
    check "... the single run's manifest" cmp -s arr.framemd5 arr_single.framemd5
done
rm -f arr.framemd5
: >tasks.log
task 0 0 1 2>/dev/null
check "-j 1 when Slurm gives no --cpus-per-task" grep -q -- " -j 1 " tasks.log
rm -rf .arr2.framemd5.chunks
: >tasks.log
env ROCKPOOL="$WORK/logrp" SLURM_JOB_ID=78 SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_MIN=0 \
    SLURM_ARRAY_TASK_MAX=1 SLURM_CPUS_PER_TASK=3 SLURM_MEM_PER_CPU=500 \
    bash "$TOP/examples/slurm-array.sh" "$scene" arr2.framemd5 -q -s 64x48 -n 16 2>/dev/null
check "-j and --max-memory from --cpus-per-task=3 --mem-per-cpu=500" \
    grep -q -- " -j 3 --max-memory 1500M " tasks.log
rm -rf .arr2.framemd5.chunks arr.framemd5 arr_single.framemd5
# The join stopped by SIGTERM sent to its shell alone (a kill of the batch script's PID):
# what it runs is stopped too, so no output appears after it has exited 143, and the chunk
# directory stays as the tasks left it (without the join's reference frame), which JOIN=1
# run again joins. A join that had placed the output when the signal came ends as done.
# rockpool-join is wrapped: slow to start, or slow to exit once the output is in place.
cat >sigjoin <<EOF
#!/usr/bin/env bash
case " \$* " in
*" --placed "*)
    if [ -e "$WORK/sigjoin.late" ]; then
        "$TOP/scripts/rockpool-join" "\$@" || exit
        touch "$WORK/sigjoin.started"
        exec sleep 30
    fi
    touch "$WORK/sigjoin.started"
    sleep 3 ;;
esac
exec "$TOP/scripts/rockpool-join" "\$@"
EOF
chmod +x sigjoin
sig_opts=(-q -s 64x48 -n 30 -c ffv1)
sig_run() { # task ID, or JOIN: slurm-array.sh over sig.mkv
    if [ "$1" = JOIN ]; then
        env JOIN=1 ROCKPOOL="$ROCKPOOL" ROCKPOOL_JOIN="$WORK/sigjoin" \
            bash "$TOP/examples/slurm-array.sh" "$scene" sig.mkv "${sig_opts[@]}"
    else
        env ROCKPOOL="$ROCKPOOL" SLURM_JOB_ID=79 SLURM_ARRAY_TASK_ID="$1" SLURM_ARRAY_TASK_MIN=0 \
            SLURM_ARRAY_TASK_MAX=2 bash "$TOP/examples/slurm-array.sh" "$scene" sig.mkv "${sig_opts[@]}"
    fi
}
sig_join_shell() { # the join in the background, its shell's PID in sigpid (exec: no subshell between)
    (exec env JOIN=1 ROCKPOOL="$ROCKPOOL" ROCKPOOL_JOIN="$WORK/sigjoin" \
        bash "$TOP/examples/slurm-array.sh" "$scene" sig.mkv "${sig_opts[@]}" 2>/dev/null) &
    sigpid=$!
}
for id in 0 1 2; do sig_run $id 2>/dev/null; done
ls -A .sig.mkv.chunks | sort >sig.before
rm -f sigjoin.started sigjoin.late
sig_join_shell
for _ in $(seq 600); do [ -e sigjoin.started ] && break; sleep 0.1; done
kill -TERM $sigpid
wait $sigpid
check "slurm-array.sh JOIN=1, SIGTERM to its shell alone during the join: exit 143" test $? = 143
sleep 4 # (the wrapped join would have placed the output by now, had it been left running)
check "... no output, then or later" test ! -e sig.mkv
check "... the chunk directory as the tasks left it" cmp -s sig.before <(ls -A .sig.mkv.chunks | sort)
expect_status "... JOIN=1 again: exit 0" 0 sig_run JOIN
"$ROCKPOOL" "$scene" "${sig_opts[@]}" -o sig_single.mkv
check "... the single run's frames" cmp -s <(decoded sig.mkv) <(decoded sig_single.mkv)
check "... the chunk directory is removed" test ! -e .sig.mkv.chunks
rm -f sig.mkv
for id in 0 1 2; do sig_run $id 2>/dev/null; done
rm -f sigjoin.started
touch sigjoin.late
sig_join_shell
for _ in $(seq 600); do [ -e sigjoin.started ] && break; sleep 0.1; done
kill -TERM $sigpid
wait $sigpid
check "... SIGTERM once the join has placed the output: exit 0" test $? = 0
check "... the output is the single run's" cmp -s <(decoded sig.mkv) <(decoded sig_single.mkv)
check "... the chunk directory is removed" test ! -e .sig.mkv.chunks
rm -rf sig.mkv sig_single.mkv sig.before sigjoin.late sigjoin.started .sig.mkv.chunks

# PNG chunks: directories of frames, moved to the pattern once all are right.
for r in 0-9 10-19 20-29; do
    mkdir -p p$r && "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range $r -o p$r/f_%02d.png
done
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 0 -o plike.png
mkdir -p pseed && "$ROCKPOOL" "$scene" "${opts[@]}" --seed 3 --frame-range 10-19 -o pseed/f_%02d.png
mkdir -p pout
expect_status "PNG join of a chunk of another seed: exit 2" 2 "$J" --like plike.png --frames 30 \
    -o pout/f_%02d.png p0-9 pseed p20-29
stderr_has "... names it" "chunk 1 (pseed) is of another job, which differs in: options"
mkdir -p pcut && cp p10-19/f_1[0-8].png pcut/
expect_status "PNG join of a chunk missing a frame: exit 2" 2 "$J" --like plike.png --frames 30 \
    -o pout/f_%02d.png p0-9 pcut p20-29
stderr_has "... names it" "chunk 1 (pcut) holds 9 files for the 10 frames of its range 10-19"
# every frame's tags, not one's: a chunk whose frames are another seed's but the one the
# join reads first (the first the directory lists; copied over, the listing stays)
cp -r p10-19 pmix
first_listed=$(find pmix -mindepth 1 -maxdepth 1 -type f -print -quit)
for f in pseed/*.png; do
    [ "pmix/${f#pseed/}" = "$first_listed" ] || cp "$f" "pmix/${f#pseed/}"
done
expect_status "PNG join of a chunk of two renders' frames: exit 2" 2 "$J" --like plike.png \
    --frames 30 -o pout/f_%02d.png p0-9 pmix p20-29
stderr_has "... names it" "chunk 1 (pmix): its frames are not all of one render"
expect_status "PNG join --check of a complete chunk: exit 0" 0 "$J" --check --like plike.png \
    --range 10-19/30 p10-19
check "refused PNG joins place no frame" test -z "$(ls -A pout)"
: >pout/f_25.png
expect_status "PNG join over an existing frame without -y: exit 2" 2 "$J" --frames 30 \
    -o pout/f_%02d.png p0-9 p10-19 p20-29
check "... places none and keeps the chunks" test "$(ls -A pout)" = f_25.png -a -e p0-9/f_00.png
# every frame is checked before any moves: an empty one, a link to a file outside
for bad in empty link; do
    rm -rf pbad && cp -r p10-19 pbad
    if [ $bad = empty ]; then : >pbad/f_15.png; else rm pbad/f_15.png && ln -s "$TOP/README.md" pbad/f_15.png; fi
    expect_status "PNG join, a chunk with an $bad frame: exit 2" 2 "$J" -y --frames 30 \
        -o pout/f_%02d.png p0-9 pbad p20-29
    stderr_has "... names it" "chunk 1 (pbad): pbad/f_15.png is not a frame"
    check "... and moves nothing" test "$(ls -A pout)" = f_25.png -a -e p0-9/f_00.png
done
expect_status "PNG join with -y: exit 0" 0 "$J" -y --like plike.png --frames 30 \
    -o pout/f_%02d.png p0-9 p10-19 p20-29
# PNG chunks on another filesystem (/dev/shm) are copied into place
if [ -d /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$WORK")" ]; then
    shm=$(mktemp -d /dev/shm/rockpool-farm.XXXXXX)
    for r in 0-9 10-19 20-29; do
        mkdir -p "$shm/q$r" && "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range $r -o "$shm/q$r/g_%02d.png"
    done
    mkdir -p qout
    expect_status "PNG chunks on another filesystem, without -y: exit 0" 0 "$J" --frames 30 \
        -o qout/g_%02d.png "$shm/q0-9" "$shm/q10-19" "$shm/q20-29"
    check "... 30 frames in place, none left in the chunks" \
        test "$(ls qout | wc -l)" = 30 -a -z "$(find "$shm" -type f)" -a -z "$(ls -A qout | grep '^\.')"
    # the first chunk on the output's filesystem, the others not: each chunk's own is
    # looked at (only chunk 0's was, and the others failed as if a frame had appeared)
    mkdir -p r0-9 rout
    "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 0-9 -o r0-9/g_%02d.png
    for r in 10-19 20-29; do
        mkdir -p "$shm/r$r" && "$ROCKPOOL" "$scene" "${opts[@]}" --frame-range $r -o "$shm/r$r/g_%02d.png"
    done
    expect_status "PNG chunks on two filesystems: exit 0" 0 "$J" --frames 30 \
        -o rout/g_%02d.png r0-9 "$shm/r10-19" "$shm/r20-29"
    check "... 30 frames in place" test "$(ls rout | wc -l)" = 30
    rm -rf "$shm"
else
    echo "[ SKIPPED  ] PNG chunks on another filesystem: /dev/shm is missing or on the test's filesystem"
fi
"$ROCKPOOL" "$scene" "${opts[@]}" -o pfull_%02d.png
check "PNG join: the single run's pixels, frame for frame" \
    cmp -s <(ffmpeg -v error -i pout/f_%02d.png -f framemd5 -) <(ffmpeg -v error -i pfull_%02d.png -f framemd5 -)
check "... the chunks' frames were moved" test -z "$(find p0-9 p10-19 p20-29 -type f)"

# ---- the join proves what it wrote ----
# A chunk removed between the check and the concat (a fake ffmpeg removes chunk 1 first):
# the joined file is short, refused, and an existing output is kept, with -y too.
mkdir -p fakebin
cat >fakebin/ffmpeg <<EOF
#!/usr/bin/env bash
case " \$* " in *" concat "*) rm -f "$WORK/gone10-19.mkv" ;; esac
exec "$(command -v ffmpeg)" "\$@"
EOF
chmod +x fakebin/ffmpeg
cp c10-19.mkv gone10-19.mkv
expect_status "a chunk removed during the concat: exit 1" 1 env PATH="$WORK/fakebin:$PATH" "$J" \
    --frames 30 -o vanish.mkv c0-9.mkv gone10-19.mkv c20-29.mkv
check "... no output" test ! -e vanish.mkv
"$J" --frames 30 -o vanish.mkv c0-9.mkv c10-19.mkv c20-29.mkv
cp vanish.mkv vanish.good
cp c10-19.mkv gone10-19.mkv
expect_status "... with -y over a good output: exit 1" 1 env PATH="$WORK/fakebin:$PATH" "$J" -y \
    --frames 30 -o vanish.mkv c0-9.mkv gone10-19.mkv c20-29.mkv
stderr_has "... says the result is short" "nothing written"
check "... the good output is kept as it was" cmp -s vanish.mkv vanish.good
# A second join while one holds the output's directory waits, then checks afresh.
# (The holder says when it holds the lock and keeps it until told: with fixed sleeps, a busy
# machine could start the join before the holder had the lock, or after it had let go.)
# hold_lock SCRIPT: flock on WORK, touch locked, wait for release, then run SCRIPT.
hold_lock() {
    rm -f locked release
    flock "$WORK" sh -c 'touch locked; i=0
        while [ ! -e release ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; '"$1" &
    lockpid=$!
    for _ in $(seq 1200); do [ -e locked ] && break; sleep 0.05; done
}
hold_lock :
expect_status "a join while another holds the lock (ROCKPOOL_JOIN_WAIT=1): exit 1" 1 \
    env ROCKPOOL_JOIN_WAIT=1 "$J" -y --frames 30 -o vanish.mkv c0-9.mkv c10-19.mkv c20-29.mkv
stderr_has "... says so" "another join has held"
touch release
wait $lockpid
cp c10-19.mkv gone10-19.mkv
hold_lock 'rm -f gone10-19.mkv'
"$J" -y --frames 30 -o vanish.mkv c0-9.mkv gone10-19.mkv c20-29.mkv >out 2>err &
jpid=$!
# released once the join waits for the lock (its flock), so that it checks afresh after
for _ in $(seq 1200); do
    pgrep -P $jpid -x flock >/dev/null && break
    kill -0 $jpid 2>/dev/null || break
    sleep 0.05
done
touch release
wait $jpid
rc=$?
if [ $rc = 2 ]; then ok "a join waiting for one that removes a chunk: exit 2 (a missing chunk)"; else
    bad "a join waiting for one that removes a chunk: exit $rc, wanted 2"
    sed 's/^/    /' err | head -5
fi
wait $lockpid
check "... the output is kept as it was" cmp -s vanish.mkv vanish.good
# An MP4 chunk cut inside its last packet: its packets are all there, its frames are not.
"$ROCKPOOL" "$scene" -q -s 64x48 -n 40 --encoder-preset ultrafast --frame-range 20-39 -o mp20-39.mp4
cp mp20-39.mp4 mpcut.mp4 && truncate -s -40 mpcut.mp4
expect_status "an MP4 chunk cut inside its last packet: refused (exit 2)" 2 "$J" --check --range 20-39/40 mpcut.mp4
stderr_has "... counted in decoded frames" "of the 20 frames of its range 20-39"

# ---- render-parallel resumes: after a failed chunk only the missing chunks are rendered ----
cat >flaky <<EOF
#!/usr/bin/env bash
# rockpool that fails the chunk starting at frame 24 while fail.flag exists; logs each chunk.
case " \$* " in *" --start 24 "*) [ -e "$WORK/fail.flag" ] && exit 1 ;; esac
case " \$* " in *" --start "*) echo "\$*" >>"$WORK/chunks.log" ;; esac
exec "$ROCKPOOL" "\$@"
EOF
chmod +x flaky
touch fail.flag
expect_status "a failing chunk: exit 1" 1 "$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o resume.mkv \
    -- "$scene" "${opts[@]}"
stderr_has "a failing chunk: the chunks are kept" "the same command renders only the others"
check "a failing chunk: no output" test ! -e resume.mkv
check "a failing chunk: the chunks done are kept" test -s .resume.mkv.chunks/chunk_3.mkv
# a chunk cut short by a signal under the final name is never taken for done, nor one with
# bytes damaged (FFV1's slice CRCs: FFmpeg itself reports it)
cp cut.mkv .resume.mkv.chunks/chunk_1.mkv
c2=.resume.mkv.chunks/chunk_2.mkv
printf '\377\000\377\000\336\255\276\357' |
    dd of=$c2 bs=1 seek=$(($(stat -c %s $c2) / 2)) conv=notrunc status=none
check "(FFmpeg reports the damage to chunk 2)" \
    test -n "$(ffmpeg -nostdin -v error -i $c2 -f null - 2>&1)"
rm fail.flag
: >chunks.log
expect_status "the same command again: exit 0" 0 "$RP" --rockpool "$WORK/flaky" -k 5 -j 1 \
    -o resume.mkv -- "$scene" "${opts[@]}"
check "... rendered only the failed chunk, the cut one and the damaged one" \
    test "$(sed 's/.*--start \([0-9]*\).*/\1/' chunks.log | sort -n | tr '\n' ' ')" = "6 12 24 "
"$ROCKPOOL" "$scene" "${opts[@]}" -o resume_single.mkv
check "... and the result equals the single run" cmp -s <(decoded resume.mkv) <(decoded resume_single.mkv)
same_timing "... with its timestamps" resume_single.mkv resume.mkv
check "... and the chunk directory is gone" test ! -e .resume.mkv.chunks
# A kept chunk whose AOV frame is damaged is rendered again too (the AOV frames were only
# counted): a failed run with --aov, a byte flipped in chunk 2's h_14.png, the same command.
touch fail.flag
"$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o raov.mkv -- "$scene" "${opts[@]}" \
    --aov height ra/h_%02d.png 2>/dev/null
a14=.raov.mkv.chunks/aov_2_height/h_14.png
check "(a failed run with --aov keeps chunk 2's AOV frames)" test -s $a14
printf '\377\000' | dd of=$a14 bs=1 seek=$(($(stat -c %s $a14) / 2)) conv=notrunc status=none
check "(FFmpeg reports the damage to h_14.png)" \
    test -n "$(ffmpeg -nostdin -v error -err_detect +crccheck -i $a14 -f null - 2>&1)"
rm fail.flag
: >chunks.log
expect_status "--aov, a kept chunk's AOV frame damaged: the same command, exit 0" 0 "$RP" \
    --rockpool "$WORK/flaky" -k 5 -j 1 -o raov.mkv -- "$scene" "${opts[@]}" --aov height ra/h_%02d.png
check "... rendered the damaged chunk again, and the failed one" \
    test "$(sed 's/.*--start \([0-9]*\).*/\1/' chunks.log | sort -n | tr '\n' ' ')" = "12 24 "
"$ROCKPOOL" "$scene" "${opts[@]}" --aov height ra_single_%02d.png -o raov_single.mkv
check "... its AOV frames are the single run's, every one" cmp -s \
    <(ffmpeg -v error -i ra/h_%02d.png -f framemd5 -) <(ffmpeg -v error -i ra_single_%02d.png -f framemd5 -)
rm -rf ra raov.mkv raov_single.mkv ra_single_*.png
# hide_damage FILE: flips one byte of FILE where FFmpeg decodes it without an error into
# other frames (damage a decode cannot tell); prints the offset (none: FILE unchanged).
hide_damage() {
    local at
    cp "$1" hide.good
    for at in $(seq 200 37 "$(($(stat -c %s "$1") - 300))"); do
        cp hide.good "$1"
        printf '\132' | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
        if [ -z "$(ffmpeg -nostdin -v error -err_detect +crccheck -i "$1" -f framecrc - 2>&1 >/dev/null)" ] &&
            ! cmp -s <(decoded "$1") <(decoded hide.good); then echo "$at" && return; fi
    done
    cp hide.good "$1"
}
# A kept H.264 chunk with bytes flipped that FFmpeg's decoder conceals (no error, other
# frames: a decode cannot tell) is rendered again: its SHA-256, recorded when it finished
# (rockpool-join --digest), no longer matches.
mopts=(-q -s 64x48 -n 30 --encoder-preset ultrafast)
touch fail.flag
"$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o hid.mp4 -- "$scene" "${mopts[@]}" 2>/dev/null
m2=.hid.mp4.chunks/chunk_2.mp4
check "(a failed run keeps chunk 2 and its seal)" test -s $m2 -a -s .hid.mp4.chunks/seal_2
check "--digest: the SHA-256 of the file's sha256sum line" \
    test "$("$J" --digest $m2)" = "$(sha256sum <$m2 | sha256sum | cut -c1-64)"
hidden=$(hide_damage $m2)
check "(a byte of chunk 2 whose damage FFmpeg decodes without an error: at ${hidden:-none})" test -n "$hidden"
check "(rockpool-join --check alone passes it)" "$J" --check --range 12-17/30 $m2
rm fail.flag
: >chunks.log
expect_status "... the same command: exit 0" 0 "$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o hid.mp4 \
    -- "$scene" "${mopts[@]}"
check "... rendered the damaged chunk again, and the failed one" \
    test "$(sed 's/.*--start \([0-9]*\).*/\1/' chunks.log | sort -n | tr '\n' ' ')" = "12 24 "
"$RP" --rockpool "$ROCKPOOL" -k 5 -j 1 -o hid_clean.mp4 -- "$scene" "${mopts[@]}" 2>/dev/null
check "... and the result equals an undamaged run's" cmp -s <(decoded hid.mp4) <(decoded hid_clean.mp4)
rm -f hid.mp4 hid_clean.mp4
# The same in slurm-array.sh: each task records its chunk's digest; the join refuses a
# chunk that no longer gives it (exit 2, nothing written), and the task run again renders it.
sarr() { env ROCKPOOL="$ROCKPOOL" SLURM_JOB_ID=78 "$@" bash "$TOP/examples/slurm-array.sh" "$scene" \
    sh.mp4 "${mopts[@]}"; }
for id in 0 1 2 3; do
    sarr SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 2>/dev/null
done
s1=.sh.mp4.chunks/chunk_1.mp4
check "slurm-array.sh: each task records its chunk's digest" test -s $s1.sha256 -a -s .sh.mp4.chunks/chunk_3.mp4.sha256
hidden=$(hide_damage $s1)
check "(a byte of chunk 1 whose damage FFmpeg decodes without an error: at ${hidden:-none})" test -n "$hidden"
expect_status "... the join with it: exit 2" 2 sarr JOIN=1
stderr_has "... names the chunk" "chunk 1 (./$s1) changed since its task finished"
check "... writes nothing" test ! -e sh.mp4
expect_status "... task 1 again: exit 0" 0 sarr SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=1
check "... renders it again" test "$("$J" --digest $s1)" = "$(cat $s1.sha256)" -a "$(cmp -s $s1 hide.good; echo $?)" = 0
expect_status "... the join: exit 0" 0 sarr JOIN=1
rm -f sh.mp4 hide.good
# Stopped: the finished chunks stay (an earlier run's and this one's), the partial go.
touch fail.flag
"$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o stopped.mkv -- "$scene" "${opts[@]}" 2>/dev/null
rm fail.flag
cat >slow <<EOF
#!/usr/bin/env bash
# rockpool whose chunk at frame 24 hangs (until a signal), logging when it starts
case " \$* " in *" --start 24 "*) touch "$WORK/slow.started"; exec sleep 60 ;; esac
exec "$ROCKPOOL" "\$@"
EOF
chmod +x slow
rm -f .stopped.mkv.chunks/chunk_1.mkv slow.started
"$RP" --rockpool "$WORK/slow" -k 5 -j 1 -o stopped.mkv -- "$scene" "${opts[@]}" 2>/dev/null &
rppid=$!
for _ in $(seq 600); do [ -e slow.started ] && break; sleep 0.1; done
kill -TERM $rppid
wait $rppid
check "a rerun stopped by SIGTERM: exit 143" test $? = 143
check "... keeps the earlier run's chunks and its own (0-3), no partial one" \
    test -s .stopped.mkv.chunks/chunk_0.mkv -a -s .stopped.mkv.chunks/chunk_1.mkv -a \
    -s .stopped.mkv.chunks/chunk_3.mkv -a -z "$(ls .stopped.mkv.chunks | grep -v '^\(chunk_[0-3]\.mkv\|seal_[0-3]\)$')"
: >chunks.log
expect_status "... the same command again: exit 0" 0 "$RP" --rockpool "$WORK/flaky" -k 5 -j 1 \
    -o stopped.mkv -- "$scene" "${opts[@]}"
check "... rendering only the chunk stopped" \
    test "$(sed 's/.*--start \([0-9]*\).*/\1/' chunks.log | tr '\n' ' ')" = "24 "
# SIGTERM to render-parallel itself while the join runs (an ffmpeg on PATH that waits
# first): the join is stopped too, so no output is placed; the chunks stay for a rerun
mkdir -p shim
printf '#!/bin/sh\ntouch "%s/join.started"\nsleep 5\nexec %s "$@"\n' "$WORK" "$(command -v ffmpeg)" \
    >shim/ffmpeg
chmod +x shim/ffmpeg
rm -f join.started
PATH=$WORK/shim:$PATH "$RP" -k 3 -j 1 -o termjoin.mkv -- "$scene" "${opts[@]}" \
    --aov height th/th_%02d.png 2>/dev/null &
rppid=$!
for _ in $(seq 600); do [ -e join.started ] && break; sleep 0.1; done
kill -TERM $rppid
wait $rppid
check "SIGTERM during the join: exit 143" test $? = 143
check "... no output placed, nor its AOV frames" test ! -e termjoin.mkv -a -z "$(ls th 2>/dev/null)"
expect_status "... the same command again: exit 0" 0 "$RP" -k 3 -j 1 -o termjoin.mkv -- "$scene" \
    "${opts[@]}" --aov height th/th_%02d.png
check "... the output and its 30 AOV frames" test -s termjoin.mkv -a "$(ls th | wc -l)" = 30
# Each chunk's threads: the CPUs over the job slots, or --threads-per-chunk; installed
# side by side (make install), the scripts find rockpool beside them.
: >tasks.log
expect_status "render-parallel -j 2: exit 0" 0 "$RP" --rockpool "$WORK/logrp" -k 2 -j 2 -o tpc.mkv \
    -- "$scene" "${opts[@]}"
check "... each chunk runs rockpool -j (CPUs / 2, at least 1)" \
    test "$(grep -c -- " -j $(($(nproc) / 2 > 0 ? $(nproc) / 2 : 1)) " tasks.log)" = 2
: >tasks.log
expect_status "render-parallel --threads-per-chunk 3: exit 0" 0 "$RP" --rockpool "$WORK/logrp" -k 2 \
    -j 1 --threads-per-chunk 3 -o tpc3.mkv -- "$scene" "${opts[@]}"
check "... each chunk runs rockpool -j 3" test "$(grep -c -- " -j 3 " tasks.log)" = 2
mkdir -p inst
cp "$TOP/scripts/render-parallel" "$TOP/scripts/rockpool-join" inst/
cp logrp inst/rockpool
: >tasks.log
expect_status "render-parallel installed beside rockpool: exit 0" 0 env -u ROCKPOOL inst/render-parallel \
    -k 2 -j 1 -o inst.mkv -- "$scene" "${opts[@]}"
check "... ran the rockpool beside it" test "$(wc -l <tasks.log)" = 2
rm -f tpc.mkv tpc3.mkv inst.mkv
# chunks of another seed left from an earlier run are rendered again, not joined
touch fail.flag
"$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o reseed.mkv -- "$scene" "${opts[@]}" 2>/dev/null
rm fail.flag
: >chunks.log
expect_status "another seed over kept chunks: exit 0" 0 "$RP" --rockpool "$WORK/flaky" -k 5 -j 1 \
    -o reseed.mkv -- "$scene" "${opts[@]}" --seed 99
check "... every chunk rendered again" test "$(wc -l <chunks.log)" = 5
"$ROCKPOOL" "$scene" "${opts[@]}" --seed 99 -o reseed_single.mkv
check "... equal to the single run of the new seed" cmp -s <(decoded reseed.mkv) \
    <(decoded reseed_single.mkv)

# ---- a kept chunk must be of this job: the background swapped under the same path ----
cp "$TOP/examples/island.png" plate.png
touch fail.flag
"$RP" --rockpool "$WORK/flaky" -k 5 -j 1 -o plate.mkv -- "$scene" "${opts[@]}" -i plate.png 2>/dev/null
cp "$TOP/examples/sky.png" plate.png
rm fail.flag
: >chunks.log
expect_status "another background at the same path over kept chunks: exit 0" 0 "$RP" \
    --rockpool "$WORK/flaky" -k 5 -j 1 -o plate.mkv -- "$scene" "${opts[@]}" -i plate.png
check "... every chunk rendered again (the inputs differ)" test "$(wc -l <chunks.log)" = 5
"$ROCKPOOL" "$scene" "${opts[@]}" -i plate.png -o plate_single.mkv
check "... equal to the single run over the new plate" cmp -s <(decoded plate.mkv) \
    <(decoded plate_single.mkv)
# the digests, against sha256sum: the scene's bytes; the inputs as "ROLE SHA256" lines
ident=$("$ROCKPOOL" "$scene" "${opts[@]}" -i plate.png -f mkv --job-id)
check "--job-id: scene is the SHA-256 of the scene's bytes" test "$(printf '%s\n' "$ident" |
    sed -n 's/^scene: *//p')" = "$(sha256sum <"$scene" | cut -c1-64)"
check "--job-id: inputs is the SHA-256 of 'background SHA256(plate)'" test "$(printf '%s\n' "$ident" |
    sed -n 's/^inputs: *\([0-9a-f]*\).*/\1/p')" = "$(printf 'background %s\n' \
    "$(sha256sum <plate.png | cut -c1-64)" | sha256sum | cut -c1-64)"
check "--job-id: job-id is the SHA-256 of the job line" test "$(printf '%s\n' "$ident" |
    sed -n 's/^job-id: *//p')" = "$(printf '%s' "$(printf '%s\n' "$ident" | sed -n 's/^job: *//p')" |
    sha256sum | cut -c1-64)"
# every option that reaches the frames changes the options digest
opts_of() { "$ROCKPOOL" "$@" -f mkv --job-id | sed -n 's/^options: *//p'; }
base=$(opts_of "$scene" "${opts[@]}")
for o in "--strength 0.5" "--seed 8" "--fit contain" "-r 25" "-s 320x180" "--preset elias"; do
    # shellcheck disable=SC2086 # (each is an option and its value)
    check "--job-id: $o changes the options digest" test "$(opts_of "$scene" "${opts[@]}" $o)" != "$base"
done
# an option that changes nothing in the outputs leaves it, so a chunk rendered with it joins
# the others (--png-level on a video chunk made it 'of another job, which differs in:
# options'): the PNG level reaches PNG frames and AOV sequences alone, the hash algorithm a
# framehash manifest alone
for o in "--png-level 3" "--hash-algo sha256"; do
    # shellcheck disable=SC2086 # (each is an option and its value)
    check "--job-id: $o on a video leaves the options digest" test "$(opts_of "$scene" "${opts[@]}" $o)" = "$base"
done
pattern_opts() { "$ROCKPOOL" "$@" --job-id | sed -n 's/^options: *//p'; }
check "--job-id: --png-level 3 changes a PNG sequence's options digest" \
    test "$(pattern_opts "$scene" -o f%03d.png)" != "$(pattern_opts "$scene" -o f%03d.png --png-level 3)"
check "--job-id: --png-level 3 changes the options digest of a video with --aov" \
    test "$(opts_of "$scene" --aov height h%03d.png)" != "$(opts_of "$scene" --aov height h%03d.png --png-level 3)"
check "--job-id: --hash-algo sha256 changes a framehash manifest's options digest" \
    test "$(pattern_opts "$scene" -f framehash -o x.fh)" != "$(pattern_opts "$scene" -f framehash -o x.fh --hash-algo sha256)"
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 0-14 -o pl0-14.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 15-29 --png-level 3 -o pl15-29.mkv
expect_status "join, a video chunk rendered with --png-level: exit 0" 0 "$J" -o jpl.mkv \
    pl0-14.mkv pl15-29.mkv
# rockpool-join --job names what differs
job_of() { "$ROCKPOOL" "$@" -f mkv --job-id | sed -n 's/^job: *//p'; }
job=$(job_of "$scene" "${opts[@]}" -i plate.png)
cp "$TOP/examples/island.png" plate2.png
for r in 0-9 10-19 20-29; do
    "$ROCKPOOL" "$scene" "${opts[@]}" -i plate.png --frame-range $r --job-id="$job" -o jc$r.mkv
done
"$ROCKPOOL" "$scene" "${opts[@]}" -i plate2.png --frame-range 10-19 \
    --job-id="$(job_of "$scene" "${opts[@]}" -i plate2.png)" -o jbg10-19.mkv
expect_status "join --job of the chunks' job: exit 0" 0 "$J" --job "$job" -o jjob.mkv \
    jc0-9.mkv jc10-19.mkv jc20-29.mkv
check "... the joined file carries the job" test "$(ffprobe -v error -show_entries \
    format_tags=rockpool_job -of default=nw=1:nk=1 jjob.mkv)" = "$job"
expect_status "join --job, a chunk over another background: exit 2" 2 "$J" --job "$job" \
    -o jbg.mkv jc0-9.mkv jbg10-19.mkv jc20-29.mkv
stderr_has "... names the chunk and the inputs" "chunk 1 (jbg10-19.mkv) is of another job, which differs in: inputs"
"$ROCKPOOL" "$scene" "${opts[@]}" -i plate.png -c libx264 --crf 3 --frame-range 10-19 \
    --job-id="$(job_of "$scene" "${opts[@]}" -i plate.png -c libx264 --crf 3)" -o jcrf10-19.mkv 2>/dev/null
expect_status "join --job, a chunk of another encoder setting: exit 2" 2 "$J" --job "$job" \
    -o jbg.mkv jc0-9.mkv jcrf10-19.mkv jc20-29.mkv
stderr_has "... names the options" "which differs in: options"
nojob c10-19.mkv nc10-19.mkv
expect_status "join --job, a chunk without a job: exit 2" 2 "$J" --job "$job" -o jbg.mkv \
    jc0-9.mkv nc10-19.mkv jc20-29.mkv
stderr_has "... says so" "chunk 1 (nc10-19.mkv) has no job identity"
# without --job the chunks still agree with each other's jobs
expect_status "join, no --job, a chunk over another background: exit 2" 2 "$J" -o jbg.mkv \
    jc0-9.mkv jbg10-19.mkv jc20-29.mkv
stderr_has "... names the chunk and the inputs" "chunk 1 (jbg10-19.mkv) is of another job, which differs in: inputs"
expect_status "join, no --job, a chunk without a job among chunks with one: exit 2" 2 "$J" \
    -o jbg.mkv jc0-9.mkv nc10-19.mkv jc20-29.mkv
stderr_has "... says so" "chunk 1 (nc10-19.mkv) has no job identity, but chunk 0 has one"
expect_status "join, no --job, chunks of one job: exit 0" 0 "$J" -o jnojob.mkv \
    jc0-9.mkv jc10-19.mkv jc20-29.mkv
check "... no output from the refusals" test ! -e jbg.mkv
# A chunk started from a checkpoint (--load-state) has the checkpoint among its inputs: joined
# with a chunk rendered from frame 0 it is refused as of another job, and the refusal names
# the checkpoint and says how to join it (it named the background, sky image and wall masks
# alone, and called the chunk stale); every chunk rendered with the job's line joins, into
# the single run's frames.
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 0-14 --save-state ck.bin -o ck0-14.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 15-29 --load-state ck.bin -o ck15-29.mkv
expect_status "join, a chunk from --load-state without the job's line: exit 2" 2 "$J" \
    -o jck.mkv ck0-14.mkv ck15-29.mkv
stderr_has "... names the checkpoint among the inputs" \
    "differs in: inputs (background, sky image, wall masks, --load-state checkpoint)"
stderr_has "... says how to join it" "render every chunk with --job-id=LINE, LINE what rockpool --job-id prints without --load-state"
job0=$(job_of "$scene" "${opts[@]}")
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 0-14 --job-id="$job0" --save-state ckj.bin \
    -o ckj0-14.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" --frame-range 15-29 --job-id="$job0" --load-state ckj.bin \
    -o ckj15-29.mkv
expect_status "join, both chunks with the job's line, one from --load-state: exit 0" 0 "$J" \
    -o jckj.mkv ckj0-14.mkv ckj15-29.mkv
"$ROCKPOOL" "$scene" "${opts[@]}" -o ckone.mkv
check "... the single run's frames" cmp -s <(ffmpeg -v error -i jckj.mkv -f framemd5 -) \
    <(ffmpeg -v error -i ckone.mkv -f framemd5 -)
# framemd5 chunks carry the job as a first comment line, which --verify ignores
"$ROCKPOOL" "$scene" "${opts[@]}" -f framemd5 -o jm.framemd5
"$ROCKPOOL" "$scene" "${opts[@]}" --job-id="$job" -f framemd5 -o jmjob.framemd5
check "--job-id=LINE: a framemd5 begins with '#rockpool_job: LINE'" \
    test "$(head -n 1 jmjob.framemd5)" = "#rockpool_job: $job"
check "... then the same lines as without it" cmp -s <(tail -n +2 jmjob.framemd5) jm.framemd5
expect_status "--verify ignores a framemd5's job line" 0 "$ROCKPOOL" "$scene" "${opts[@]}" \
    --verify jmjob.framemd5
# a video named with a line break: its chunks could not be joined, so it is refused before
# any is rendered (render-parallel, and each Slurm task)
mkdir -p nlout
cd nlout || exit 1
expect_status "render-parallel -o 'nl<newline>x.mkv': exit 2" 2 "$RP" -k 3 -j 1 \
    -o $'nl\nx.mkv' -- "$scene" "${opts[@]}"
expect_status "slurm-array.sh, output 'a<newline>b.mkv': exit 2" 2 env SLURM_ARRAY_TASK_ID=0 \
    SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2 \
    bash "$TOP/examples/slurm-array.sh" "$scene" $'a\nb.mkv' "${opts[@]}"
cd .. || exit 1
check "... nothing rendered or created" test -z "$(ls -A nlout)"
# the options rockpool reads, not their spellings: every per-run output and range refused
for o in "-stats st.csv" "--stat st.csv" "-ss 1" "-to 1" "--frame-range 3-9" "-frames:v 3" \
    "--dump-heights dh.bin" "--progress-fd 2"; do
    # shellcheck disable=SC2086
    expect_status "render-parallel $o: exit 2" 2 "$RP" -k 3 -j 1 -o spell.mkv -- "$scene" "${opts[@]}" $o
    check "... nothing written" test ! -e spell.mkv -a ! -e st.csv -a ! -e dh.bin -a ! -e .spell.mkv.chunks
done
# --help names the window options it refuses and the length options it takes: each is so
win=$("$RP" --help | tr '\n' ' ' | sed -n 's/.*a window of it (\([^)]*\)).*/\1/p' | tr -d ,)
check "render-parallel --help names 6 window options ($win)" test "$(echo $win | wc -w)" -eq 6
for o in $win; do
    case $o in --frame-range) v=3-9 ;; *) v=1 ;; esac
    expect_status "render-parallel $o $v (named in --help): exit 2" 2 "$RP" -k 3 -j 1 -o spell.mkv \
        -- "$scene" "${opts[@]}" $o $v
done
check "... nothing written" test ! -e spell.mkv -a ! -e .spell.mkv.chunks
expect_status "render-parallel -t 0.5 (a length, which --help says may be given): exit 0" 0 \
    "$RP" -k 2 -j 2 -o len.mkv -- "$scene" "${opts[@]}" -t 0.5
check "... 15 frames" test "$(probe len.mkv nb_read_frames)" = 15

# ---- leftovers of an earlier run never block a join ----
# (the old join wrote OUTPUT.part.EXT and failed when it was there)
: >left.mkv.part.mkv
mkdir -p .left.mkv.chunks
: >.left.mkv.chunks/part_1.mkv
: >.left.mkv.chunks/chunk_2.mkv
expect_status "leftover .part and empty chunk files: exit 0" 0 "$RP" -k 3 -j 2 -o left.mkv -- \
    "$scene" "${opts[@]}"
check "... the clip is whole (30 frames)" test "$(probe left.mkv nb_read_frames)" = 30
check "... and the chunk directory is gone" test ! -e .left.mkv.chunks
expect_status "more chunks than frames: exit 0 (one chunk a frame)" 0 "$RP" -k 50 -j 2 \
    -o many.mkv -- "$scene" -q -s 64x48 -n 5 -c ffv1
check "... 5 frames" test "$(probe many.mkv nb_read_frames)" = 5

# ---- progress of the whole clip ----
expect_status "render-parallel --progress-fd" 0 "$RP" -k 3 -j 2 --progress-fd 3 -o p.mkv -- \
    "$scene" "${opts[@]}" 3>rp.progress
check "progress ends with frame=30 total_frames=30 progress=end" \
    test "$(tail -n 3 rp.progress | tr '\n' ' ')" = "frame=30 total_frames=30 progress=end "
expect_status "render-parallel --progress-fd on a closed descriptor: exit 2" 2 "$RP" \
    --progress-fd 9 -o p2.mkv -- "$scene" "${opts[@]}"

# ---- the Open Job Description template: the 2023-09 schema's rules, then its scripts ----
# (openjd-cli cannot be installed here: openjd_rules.py below holds the rules of the
# 2023-09 specification that the template uses, and fails a template that breaks them.)
cat >openjd_rules.py <<'PY'
# The rules of Open Job Description's jobtemplate-2023-09 that rockpool's template uses
# (github.com/OpenJobDescription/openjd-specifications, wiki "2023-09 Template Schemas").
import re, sys, yaml
t = yaml.safe_load(open(sys.argv[1]))
errs = []
def need(c, msg):
    if not c: errs.append(msg)
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
need(isinstance(t, dict), "not a mapping")
top = {"specificationVersion", "$schema", "name", "description", "parameterDefinitions",
       "jobEnvironments", "steps", "extensions"}
need(set(t) <= top, "unknown top-level keys %s" % (set(t) - top))
need(t.get("specificationVersion") == "jobtemplate-2023-09", "specificationVersion")
need(set(t.get("extensions", [])) <= {"TASK_CHUNKING", "REDACTED_ENV_VARS", "EXPR", "FEATURE_BUNDLE_1"},
     "unknown extension")
need(isinstance(t.get("name"), str) and 1 <= len(t["name"]) <= 128, "name: 1-128 characters")
params = {}
KEYS = {"STRING": {"name", "type", "description", "default", "allowedValues", "minLength",
                   "maxLength", "userInterface"},
        "INT": {"name", "type", "description", "default", "allowedValues", "minValue",
                "maxValue", "userInterface"},
        "FLOAT": {"name", "type", "description", "default", "allowedValues", "minValue",
                  "maxValue", "userInterface"},
        "PATH": {"name", "type", "description", "default", "allowedValues", "minLength",
                 "maxLength", "objectType", "dataFlow", "userInterface"}}
for p in t.get("parameterDefinitions", []):
    need(IDENT.match(str(p.get("name", ""))) and len(p["name"]) <= 64, "parameter name %r" % p.get("name"))
    need(p.get("type") in KEYS, "parameter %s: type %r" % (p.get("name"), p.get("type")))
    need(set(p) <= KEYS.get(p.get("type"), set()), "parameter %s: keys %s" % (p.get("name"), set(p)))
    if p.get("type") == "PATH":
        need(p.get("objectType", "FILE") in ("FILE", "DIRECTORY"), "objectType")
        need(p.get("dataFlow", "NONE") in ("NONE", "IN", "OUT", "INOUT"), "dataFlow")
    if p.get("type") == "INT" and "default" in p:
        need(isinstance(p["default"], int) and p["default"] >= p.get("minValue", p["default"]),
             "parameter %s: default" % p["name"])
    need(p["name"] not in params, "parameter %s twice" % p["name"])
    params[p["name"]] = p
FMT = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")
def refs(text, allowed, where):
    for m in FMT.finditer(text):
        need(m.group(1) in allowed, "%s: unknown reference {{%s}}" % (where, m.group(1)))
job_refs = {"Param." + n for n in params} | {"RawParam." + n for n in params}
refs(t.get("name", ""), job_refs, "name")
steps = t.get("steps", [])
need(isinstance(steps, list) and steps, "steps: at least one")
names = [s.get("name") for s in steps]
need(len(set(names)) == len(names), "step names repeat")
for s in steps:
    where = "step %s" % s.get("name")
    need(set(s) <= {"name", "description", "script", "parameterSpace", "stepEnvironments",
                    "dependencies", "hostRequirements"}, where + ": unknown keys")
    need(isinstance(s.get("name"), str) and 1 <= len(s["name"]) <= 64, where + ": name")
    for d in s.get("dependencies", []):
        need(d.get("dependsOn") in names and d["dependsOn"] != s["name"], where + ": dependsOn")
    task = set()
    for tp in s.get("parameterSpace", {}).get("taskParameterDefinitions", []):
        need(IDENT.match(tp.get("name", "")), where + ": task parameter name")
        need(tp.get("type") in ("INT", "FLOAT", "STRING", "PATH", "CHUNK[INT]"), where + ": task type")
        if tp.get("type") == "CHUNK[INT]":
            need("TASK_CHUNKING" in t.get("extensions", []), where + ": CHUNK[INT] needs TASK_CHUNKING")
            ch = tp.get("chunks", {})
            need("defaultTaskCount" in ch and ch.get("rangeConstraint") in ("CONTIGUOUS", "NONCONTIGUOUS"),
                 where + ": chunks")
            refs(str(ch.get("defaultTaskCount")), job_refs, where)
        refs(str(tp.get("range", "")), job_refs, where)
        task.add(tp["name"])
    hr = s.get("hostRequirements")
    need(hr is not None and (hr.get("amounts") or hr.get("attributes")), where + ": hostRequirements")
    for a in (hr or {}).get("amounts", []):
        need(re.match(r"^(amount\.worker\.(vcpu|memory|gpu|gpu\.memory|disk\.scratch)|attr\.custom\.[A-Za-z_][A-Za-z0-9_]*)$",
                      str(a.get("name"))) is not None, where + ": amount name %r" % a.get("name"))
        need(set(a) <= {"name", "min", "max"} and ("min" in a or "max" in a), where + ": amount keys")
        for k in ("min", "max"):
            need(k not in a or (isinstance(a[k], (int, float)) and a[k] >= 0), where + ": amount %s" % k)
    sc = s.get("script", {})
    files = {f.get("name") for f in sc.get("embeddedFiles", [])}
    for f in sc.get("embeddedFiles", []):
        need(IDENT.match(f.get("name", "")) and f.get("type") == "TEXT" and isinstance(f.get("data"), str),
             where + ": embedded file")
        # rockpool's own rule: nothing is pasted into script text
        need(not FMT.search(f["data"]), where + ": format string in embedded file %s" % f["name"])
    allowed = job_refs | {"Task.Param." + n for n in task} | {"Task.RawParam." + n for n in task} | \
        {"Task.File." + n for n in files} | {"Session.WorkingDirectory", "Session.HasPathMappingRules",
                                            "Session.PathMappingRulesFile"}
    acts = sc.get("actions", {})
    need("onRun" in acts and set(acts) <= {"onRun"}, where + ": actions")
    for an, a in acts.items():
        need(isinstance(a.get("command"), str), where + ": command")
        need(isinstance(a.get("args", []), list) and all(isinstance(x, str) for x in a.get("args", [])),
             where + ": args must be strings")
        for x in [a["command"]] + a.get("args", []):
            refs(x, allowed, where)
        c = a.get("cancelation")
        if c:
            need(c.get("mode") in ("NOTIFY_THEN_TERMINATE", "TERMINATE"), where + ": cancelation mode")
            need(1 <= c.get("notifyPeriodInSeconds", 120) <= 600, where + ": notifyPeriodInSeconds")
for e in errs:
    print("openjd rules: " + e)
print("ok" if not errs else "invalid")
sys.exit(1 if errs else 0)
PY
R=$WORK/openjd_rules.py
expect_status "OpenJD template: valid under the 2023-09 rules" 0 /usr/bin/python3 "$R" \
    "$TOP/examples/openjd-rockpool.yaml"
# the rules can fail: a parameter pasted into script text, an unknown reference, another
# version, a step without hostRequirements, a bad amount name
/usr/bin/python3 - "$TOP/examples/openjd-rockpool.yaml" <<'PY'
import sys, yaml, copy
t = yaml.safe_load(open(sys.argv[1]))
def out(name, m):
    c = copy.deepcopy(t); m(c); yaml.safe_dump(c, open(name, "w"))
out("bad_paste.yaml", lambda c: c["steps"][0]["script"]["embeddedFiles"][0].__setitem__(
    "data", "scene={{Param.SceneFile}}\n"))
out("bad_ref.yaml", lambda c: c["steps"][0]["script"]["actions"]["onRun"]["args"].append("{{Param.Nope}}"))
out("bad_version.yaml", lambda c: c.__setitem__("specificationVersion", "jobtemplate-2022-01"))
out("bad_host.yaml", lambda c: c["steps"][0].pop("hostRequirements"))
out("bad_amount.yaml", lambda c: c["steps"][0]["hostRequirements"]["amounts"][0].__setitem__("name", "cpus"))
PY
for b in paste ref version host amount; do
    expect_status "OpenJD rules refuse a template with a bad $b" 1 /usr/bin/python3 "$R" bad_$b.yaml
done
# Each step's onRun as a worker runs it: the embedded file written out, each argument's
# format strings filled in (one argument each), then `bash FILE ARG...`; no shell between.
ojd() { # STEP [FRAME]: with SCENE, OUT and OPTIONS from the environment
    /usr/bin/python3 - "$TOP/examples/openjd-rockpool.yaml" "$@" <<'PY'
import os, sys, yaml, re
t = yaml.safe_load(open(sys.argv[1]))
step = next(s for s in t["steps"] if s["name"] == sys.argv[2])
files = {}
for f in step["script"].get("embeddedFiles", []):
    path = os.path.join(os.getcwd(), "ojd_%s_%s.sh" % (step["name"], f["name"]))
    open(path, "w").write(f["data"]); files[f["name"]] = path
vals = {"Param.RockpoolDir": os.environ["TOP"], "Param.SceneFile": os.environ["SCENE"],
        "Param.OutputFile": os.environ["OUT"], "Param.Options": os.environ["OPTIONS"],
        "Param.CpusPerTask": "1", "Param.MemoryMiB": "1024"}
if len(sys.argv) > 3: vals["Task.Param.Frame"] = sys.argv[3]
for k, v in files.items(): vals["Task.File." + k] = v
run = step["script"]["actions"]["onRun"]
fill = lambda a: re.sub(r"\{\{\s*([A-Za-z.]+)\s*\}\}", lambda m: vals[m.group(1)], a)
os.execvp(run["command"], [run["command"]] + [fill(a) for a in run["args"]])
PY
}
export TOP
cp "$scene" "my scene.scene"
export SCENE="$WORK/my scene.scene" OUT="$WORK/ojd out.mkv" OPTIONS="-s 64x48 -n 30 -c ffv1"
for r in 0-11 12-23 24-29; do
    expect_status "OpenJD Render task $r, a scene path with a space: exit 0" 0 ojd Render $r
done
check "... it says openjd_progress: 100" grep -q '^openjd_progress: 100$' out
c12=$(ls .ojd\ out.mkv.chunks/chunk_*_000000012-000000023.mkv)
before=$(stat -c %Y.%s "$c12" 2>&1)
sleep 1
expect_status "OpenJD Render task 12-23 again: exit 0" 0 ojd Render 12-23
check "... over its complete chunk, which is kept" test "$(stat -c %Y.%s "$c12" 2>&1)" = "$before"
# chunks of another FramesPerTask (the same job) and of another job (another seed) lie there
for r in 0-14 15-29; do ojd Render $r >/dev/null 2>&1; done
OPTIONS="-s 64x48 -n 30 -c ffv1 --seed 5" ojd Render 0-29 >/dev/null 2>&1
expect_status "OpenJD Join over chunks of two FramesPerTask and another job: exit 0" 0 ojd Join
"$ROCKPOOL" "my scene.scene" -q -s 64x48 -n 30 -c ffv1 -o ojd_single.mkv
check "OpenJD: the joined clip equals the single run" cmp -s <(decoded "ojd out.mkv") <(decoded ojd_single.mkv)
same_timing "OpenJD: with its timestamps" ojd_single.mkv "ojd out.mkv"
check "OpenJD: the chunk directory is gone" test ! -e ".ojd out.mkv.chunks"
rm -f "ojd out.mkv"
for r in 0-11 24-29; do ojd Render $r >/dev/null 2>&1; done
expect_status "OpenJD Join with a range never rendered: exit 2 (the join refuses)" 2 ojd Join
stderr_has "... naming the gap" "frames 12-23 are missing before it"
rm -rf ".ojd out.mkv.chunks"
# $(...) in the options is a word, never run
OPTIONS='-s 64x48 -n 30 -c ffv1 --seed $(touch${IFS}pwned) $(touch pwned2)' \
    expect_status "OpenJD Render with \$(touch x) in the options: refused (exit 2)" 2 ojd Render 0-9
check "... and nothing ran" test ! -e pwned -a ! -e pwned2 -a ! -e touch
# SIGTERM (cancelation) to the task's bash reaches rockpool: nothing left running or written
OPTIONS="-s 640x360 -n 3000 -c ffv1" ojd Render 0-2999 >/dev/null 2>&1 &
ojdpid=$!
for _ in $(seq 600); do
    [ -n "$(find ".ojd out.mkv.chunks" -name '*part_*' -size +20k 2>/dev/null)" ] && break
    sleep 0.1
done
# (the task's own bash, which the worker signals; $ojdpid is the subshell around it)
kill -TERM "$(pgrep -f '[o]jd_Render_Render.sh' | head -n 1)"
wait $ojdpid
check "OpenJD Render stopped by SIGTERM: exit 143" test $? = 143
check "... no rockpool left running, no part left" sh -c \
    "! pgrep -f 'ojd out.mkv.chunks/[p]art_' >/dev/null && test -z \"\$(ls -A '.ojd out.mkv.chunks' | grep part_)\""

# ---- --sshlogin to localhost through a real sshd (started here, stopped by PID) ----
# A relative scene path (remote commands start in $HOME) and a scene on stdin.
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
    echo "farm.sh: --sshlogin part skipped: needs root and openssh-server"
    exit 0
fi
mkdir -p sshd
# sshd's privilege separation directory (the system's service makes it): made and removed
# here when missing.
made_run=""
if [ ! -d /run/sshd ]; then mkdir -m 755 /run/sshd && made_run=1; fi
ssh-keygen -q -t ed25519 -N '' -f sshd/host_key
ssh-keygen -q -t ed25519 -N '' -f sshd/user_key
cp sshd/user_key.pub sshd/authorized_keys
chmod 600 sshd/authorized_keys
sshport=$((40000 + RANDOM % 20000))
/usr/sbin/sshd -f /dev/null -p $sshport -h "$WORK/sshd/host_key" -o ListenAddress=127.0.0.1 \
    -o PidFile="$WORK/sshd/pid" -o AuthorizedKeysFile="$WORK/sshd/authorized_keys" \
    -o StrictModes=no -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no \
    -o UsePAM=no 2>sshd/err
for _ in $(seq 50); do [ -s sshd/pid ] && break; sleep 0.1; done
if [ ! -s sshd/pid ]; then
    [ -z "$made_run" ] || rmdir /run/sshd
    echo "farm.sh: --sshlogin part skipped: sshd does not start here: $(head -n 1 sshd/err)"
    exit 0
fi
trap 'rc=$?; kill "$(cat "$WORK/sshd/pid")" 2>/dev/null; [ -z "$made_run" ] || rmdir /run/sshd; cli_exit $rc' EXIT
login="2/ssh -p $sshport -i $WORK/sshd/user_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR 127.0.0.1"
mkdir -p sub
cp "$scene" sub/rel.scene
"$ROCKPOOL" sub/rel.scene "${opts[@]}" -o ssh_single.mkv
expect_status "--sshlogin, a relative scene path: exit 0" 0 "$RP" -k 3 --sshlogin "$login" \
    -o ssh_rel.mkv -- sub/rel.scene "${opts[@]}"
check "... equal to the single run" cmp -s <(decoded ssh_rel.mkv) <(decoded ssh_single.mkv)
expect_status "--sshlogin, the scene on stdin: exit 0" 0 "$RP" -k 3 --sshlogin "$login" \
    -o ssh_stdin.mkv -- - "${opts[@]}" <sub/rel.scene
check "... equal to the single run" cmp -s <(decoded ssh_stdin.mkv) <(decoded ssh_single.mkv)
