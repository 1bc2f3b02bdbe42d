#!/usr/bin/env bash
# web_page.sh - the playground (make web, README "In the browser") in a real browser: Debian's
# chromium, headless, driven through the DevTools protocol by tests/tools/webdrive.js, over
# scripts/web-serve on 127.0.0.1. The page's test mode writes FFmpeg framemd5 lines for
# the first frames of a scene; they must equal the command line's (`rockpool SCENE -s WxH
# -f framemd5`, whose MD5s FFmpeg's framemd5 muxer computes) for the seed presets and the
# rockpool preset, walls and motion, at two sizes, over the built-in texture and over a PNG
# at the output size. Then the editor: a broken line shows the command line's error at its
# line and column while the last good water plays on; a click adds one drop line at the
# frame on screen. Last the watchdog: a scene too slow to prepare is given up, and the page
# stays responsive with the last good water playing.
source "$(dirname "$0")/lib.sh"

WEB=$(dirname "$ROCKPOOL")/web
if ! command -v chromium >/dev/null 2>&1; then
    echo "[  SKIPPED ] the playground in a browser: no chromium (scripts/install-deps --web installs Debian's)"
    exit 0
fi
check "make web built the playground" test -f "$WEB/index.html" -a -f "$WEB/rockpool.wasm" \
    -a -f "$WEB/examples/harbour.scene"

# The site: the build's page and a background picture beside it (nothing is written into
# the build tree), served on a free port of 127.0.0.1.
mkdir site
cp -R "$WEB/." site/
ffmpeg -v error -f lavfi -i testsrc2=size=320x180:rate=1 -frames:v 1 site/bg.png
scripts_dir=$TOP/scripts
"$scripts_dir/web-serve" site >serve.out 2>serve.err &
srv=$!
# shellcheck disable=SC2154 # rc is set in the trap itself
trap 'rc=$?; kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; cli_exit $rc' EXIT
# served_url FILE PREFIX: the address a server prints as PREFIXhttp://127.0.0.1:PORT/ in
# FILE, waited for up to 10 s (empty if it never comes).
served_url() {
    local u=""
    for _ in $(seq 1 100); do
        u=$(sed -n "s|^$2\\(http://127\\.0\\.0\\.1:[0-9]*/\\)\$|\\1|p" "$1" | head -n 1)
        [ -n "$u" ] && break
        sleep 0.1
    done
    echo "$u"
}
url=$(served_url serve.out "rockpool playground: ")
check "web-serve printed its 127.0.0.1 address" test -n "$url"

# The frame lines of the command line's framemd5 (the header lines aside).
hashes() { grep -v '^#' "$1"; }

# Every page of the frames check in one browser: scene, size, background.
cases=""
n=0
frames=30
for size in 320x180 250x140; do
    for scene in elias applet silverlight codeproject harbour walls wave-machine fountain; do
        n=$((n + 1))
        cases="$cases $n:$scene:$size:-"
    done
done
for scene in harbour elias; do
    n=$((n + 1))
    cases="$cases $n:$scene:320x180:bg.png"
done
urls=()
for c in $cases; do
    IFS=: read -r i scene size bg <<<"$c"
    u="${url}index.html?scene=examples/$scene.scene&size=$size&frames=$frames&out=framemd5"
    [ "$bg" = - ] || u="$u&bg=$bg"
    urls+=("$u")
done
mkdir pages
node "$TOP/tests/tools/webdrive.js" wait framemd5 120 pages "${urls[@]}" >drive.out 2>drive.err
check "chromium rendered every page" test "$(ls pages | wc -l)" -eq "$n"
sed 's/^/    /' drive.err | head -5
for c in $cases; do
    IFS=: read -r i scene size bg <<<"$c"
    opt=()
    [ "$bg" = - ] || opt=(-i "site/$bg")
    "$ROCKPOOL" -q "$TOP/examples/$scene.scene" "${opt[@]}" -s "$size" -f framemd5 -o cli.txt -y \
        2>cli.err
    hashes cli.txt | head -n "$frames" >want.txt
    tail -n +2 "pages/$i.txt" >got.txt
    name="$scene at $size${bg/#-/}: the page's $frames framemd5 lines are the command line's"
    if [ "$(head -n 1 "pages/$i.txt" 2>/dev/null)" = "done" ] && [ "$(wc -l <want.txt)" -eq "$frames" ] &&
        cmp -s want.txt got.txt; then
        ok "$name"
    else
        bad "$name"
        diff want.txt got.txt | head -4 | sed 's/^/    /'
    fi
done

# A picture of another aspect is fitted as the command line fits it (the scene's `fit`, else
# cover for the rockpool preset): a 640x180 PNG under harbour at 320x180 is cropped to its
# centre, and with `fit contain` a 320x90 one sits between black bars; neither is scaled,
# so the frames are the command line's byte for byte (the page had stretched every
# picture over the frame, whatever the scene said).
ffmpeg -v error -f lavfi -i testsrc2=size=640x180:rate=1 -frames:v 1 site/wide.png
ffmpeg -v error -f lavfi -i testsrc2=size=320x90:rate=1 -frames:v 1 site/flat.png
{ cat "$TOP/examples/harbour.scene"; echo 'fit contain'; } >site/contain.scene
node "$TOP/tests/tools/webdrive.js" wait framemd5 120 pages \
    "${url}index.html?scene=examples/harbour.scene&size=320x180&frames=$frames&out=framemd5&bg=wide.png" \
    "${url}index.html?scene=contain.scene&size=320x180&frames=$frames&out=framemd5&bg=flat.png" \
    2>drive.err
sed 's/^/    /' drive.err | head -5
i=0
for c in examples/harbour.scene:wide.png:cover contain.scene:flat.png:contain; do
    IFS=: read -r scene bg fit <<<"$c"
    i=$((i + 1))
    "$ROCKPOOL" -q "site/$scene" -i "site/$bg" -s 320x180 -n "$frames" -f framemd5 -o - 2>cli.err |
        grep -v '^#' >want.txt
    tail -n +2 "pages/$i.txt" >got.txt
    if [ "$(head -n 1 "pages/$i.txt")" = done ] && [ "$(wc -l <want.txt)" -eq "$frames" ] &&
        cmp -s want.txt got.txt; then
        ok "$bg under fit $fit: the page's frames are the command line's"
    else
        bad "$bg under fit $fit: the page's frames are the command line's"
        diff want.txt got.txt | head -4 | sed 's/^/    /'
    fi
done

# A bad scene in the test mode: the command line's message at the same line and column.
cp "$TOP/tests/bad/radius-zero.scene" site/bad.scene
node "$TOP/tests/tools/webdrive.js" wait framemd5 60 pages \
    "${url}index.html?scene=bad.scene&size=320x180&frames=3&out=framemd5" 2>drive.err
"$ROCKPOOL" site/bad.scene -f framemd5 -o - >/dev/null 2>cli.err
want=$(head -n 1 cli.err | sed 's|^rockpool: site/bad.scene:|rockpool: bad.scene:|')
got=$(sed -n 2p pages/1.txt)
if [ "$(head -n 1 pages/1.txt)" = error ] && [ -n "$want" ] && [ "$got" = "error: $want" ]; then
    ok "a bad scene: the page says what the command line says, at its line and column"
else
    bad "a bad scene: the page says '$got', the command line '$want'"
fi

# Bad input never hangs the page: a size past the page's limit is refused with a message.
node "$TOP/tests/tools/webdrive.js" wait framemd5 60 pages \
    "${url}index.html?scene=examples/harbour.scene&size=4000x3000&frames=3&out=framemd5" \
    2>drive.err
check "a size past 3840x2160 is refused with a message" \
    grep -qF "error: the page renders at most 3840x2160 pixels, not 4000x3000" pages/1.txt

# The editor on harbour (the page's default scene): type a broken line, take it out, pause,
# click on the water.
node "$TOP/tests/tools/webdrive.js" edit "${url}index.html" >edit.out 2>drive.err
sed 's/^/    /' drive.err | head -5
val() { sed -n "s/^$1 //p" edit.out; }
lines=$(val lines_before)
err=$(val error)
# The typed line is line lines_before (the text ends with a newline: the last line is empty)
# and its column 27 is radius's 0: `rockpool` says the same of the same text.
printf 'at 1s drop 50%% 50%% radius 0 height 500\n' >typed.scene
"$ROCKPOOL" typed.scene -o - -f framemd5 >/dev/null 2>cli.err
cli_msg=$(head -n 1 cli.err | sed 's|^rockpool: typed.scene:1:27: error: ||')
case $lines in
'' | *[!0-9]*) bad "the page's scene has a line count ('$lines')" ;;
*)
    check "a broken line typed: the error names its line and column, with the message" \
        test "$err" = "rockpool: harbour.scene:$lines:27: error: $cli_msg\\n$(printf ' %5d | ' "$lines")at 1s drop 50% 50% radius 0 height 500\\n       |                           ^" ;;
esac
# A line with a character outside the BMP (U+1F30A, two UTF-16 units) and a tab before the
# error's column 20: the page's error is the command line's for the same line at the same
# line number, caret and all (the page counted UTF-16 units: the caret one column short,
# before the tab).
case $lines in
'' | *[!0-9]*) ;;
*)
    mkdir wide
    { for _ in $(seq 2 "$lines"); do echo "#"; done; printf 'background "\360\237\214\212.png"\tbogus\n'; } >wide/harbour.scene
    (cd wide && "$ROCKPOOL" harbour.scene -o - -f framemd5 >/dev/null 2>../wide.err)
    check "a line with U+1F30A and a tab: the command line's error, caret under column 20" \
        test "$(val error_wide)" = "$(sed -n 1,3p wide.err | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }')" \
        -a "$(sed -n 1p wide.err | grep -c ':20: error: unexpected .bogus.')" = 1 ;;
esac
read -r f1 f2 still <<<"$(val frames_while_broken)"
check "the last good water plays on under the error (frame $f1, then $f2)" \
    test -n "$f2" -a "${f1:-0}" != "${f2:-0}" -a "${still:-0}" = 1
check "the error clears when the line is taken out" test "$(val error_cleared)" = 1
# The click at 25%, 75% of the canvas: one drop line at the paused frame, which the scene
# places at that frame (a time in frame k is in [k/fps, (k+1)/fps)).
frame=$(val paused_frame)
added=$(val added)
fps=$(val fps)
if [[ $added =~ ^at\ ([0-9]+)(\.([0-9]{1,3}))?s\ drop\ 25%\ 75%\ radius\ [0-9.]+%\ height\ [0-9]+$ ]] &&
    [[ $frame =~ ^[0-9]+$ ]] && [[ $fps =~ ^([0-9]+)/([0-9]+)$ ]]; then
    ms=$(printf '%s' "$added" | sed 's/^at \([0-9.]*\)s .*/\1/' |
        python3 -c 'import sys; print(round(float(sys.stdin.read()) * 1000))')
    [[ $ms =~ ^[0-9]+$ ]] || ms=-1
    num=${fps%/*} den=${fps#*/}
    in_frame=$((ms * num / (den * 1000)))
    check "a click adds one drop line at the frame on screen ($added; frame $frame)" \
        test "$in_frame" -eq "$frame"
else
    bad "a click adds one drop line ('$added', frame '$frame', fps '$fps')"
fi
check "the scene with the drop parses" test "$(val error_after_click)" = ok
check "Ctrl+Z in the editor takes the clicked line back" test "$(val undone)" = 1
# A drag from 10%,10% to 40%,20% adds one stroke between those points over a span.
check "a drag adds one stroke line ($(val dragged))" bash -c \
    '[[ $1 =~ ^at\ [0-9.]+s\.\.[0-9.]+s\ stroke\ 10%,10%\ -\>\ 40%,20%\ radius\ [0-9.]+%\ height\ [0-9]+$ ]]' \
    _ "$(val dragged)"
check "the depth slider writes one depth line ($(val depth_lines)), which parses" \
    test "$(val depth_lines)" = "depth 100" -a "$(val error_after_knob)" = ok

# The watchdog: a scene the worker takes longer than the page's limit to prepare (here 0.3 s,
# open_timeout=300; 10 s without it) is given up with a message, the worker is started
# again with the last good scene, which plays on, and the page answers at once. The good
# scene is two drops at 320x180, which a loaded machine still prepares far within the
# limit (harbour, about 20 ms, had been given up on one).
cat >site/calm.scene <<'SCENE'
size 320x180
duration 10s
at 0s drop 50% 50% radius 5% height 800
at 2s drop 30% 40% radius 4% height 700
SCENE
node "$TOP/tests/tools/webdrive.js" watchdog "${url}index.html?scene=calm.scene&open_timeout=300" >dog.out 2>drive.err
sed 's/^/    /' drive.err | head -5
dog() { sed -n "s/^$1 //p" dog.out; }
check "a scene too slow to prepare is given up with a message ($(dog error))" \
    test "$(dog error)" = "rockpool: calm.scene: error: the page gave up preparing this scene after 0.3 s (too much work for the browser: try the command line)"
read -r g1 g2 <<<"$(dog frames_after)"
check "the last good water plays on after the worker is started again (frame $g1, then $g2)" \
    test -n "$g2" -a "${g1:-0}" != "${g2:-0}"
ms=$(dog answer_ms)
case $ms in
'' | *[!0-9]* | ?????*) bad "the page answers at once while it happens ('$ms' ms)" ;;
*) check "the page answers at once while it happens ($ms ms)" test "$ms" -lt 1000 ;;
esac
check "the good scene is taken back once its text is put back" test "$(dog cleared)" = 1


# Seeking, paused: the frame on screen after the time slider moves is the command line's
# frame at that instant, forward (1500), back (700: from a checkpoint of the water) and one
# frame on (701). Then, the slider moved to a frame minutes of simulation ahead (100000 of
# an hour of rain at 640x360), the page says it is on its way there, and an edit a second
# later plays at once: the worker answers between slices of the simulation (it had been
# busy with the whole seek, the edit waited behind it, and after 10 s the page gave up the
# edit as 'too much work' and went back to the seek).
cat >site/long.scene <<'SCENE'
size 640x360
duration 3600s
at 0s..3600s rain rate 2/s radius 2% height 800
SCENE
short='size 320x180
duration 1s
at 0.1s drop 40% 60% radius 5% height 900
'
printf '%s' "$short" >short.scene
node "$TOP/tests/tools/webdrive.js" seek "${url}index.html?scene=long.scene" 1500 700 701 \
    -- 100000 "$short" >seek.out 2>drive.err
sed 's/^/    /' drive.err | head -5
sk() { sed -n "s/^$1 //p" seek.out; }
for k in 1500 700 701; do
    want=$("$ROCKPOOL" site/long.scene --start "$k" --end $((k + 1)) -f framemd5 -o - 2>/dev/null |
        grep -v '^#' | sed 's/.*, //')
    check "seeking to frame $k shows the command line's frame $k ($(sk "frame_$k"))" \
        test -n "$want" -a "$(sk "frame_$k")" = "$want"
done
check "the page says it simulates its way to a far frame ($(sk busy))" \
    bash -c '[[ $1 =~ ^simulating\ the\ water\ to\ frame\ 100000:\ [0-9.]+%$ ]]' _ "$(sk busy)"
ms=$(sk far_ms)
case $ms in
'' | *[!0-9]*) bad "an edit during a seek far ahead plays ('$ms', the page says '$(sk far_error)')" ;;
*) check "an edit during a seek far ahead plays at once ($ms ms)" test "$ms" -lt 5000 ;;
esac
check "the edit's scene is played without an error ($(sk far_error))" test "$(sk far_error)" = ok
want=$("$ROCKPOOL" short.scene -n 1 -f framemd5 -o - 2>/dev/null | grep -v '^#' | sed 's/.*, //')
check "the edit's frame 0 is the command line's" test -n "$want" -a "$(sk far_frame_0)" = "$want"

# Backgrounds a user may choose: a file that is no picture (bytes named .png), one that
# is no video (named .mp4), a picture wider than the command line takes: each refused with
# a message naming it, the background unchanged; a PNG is taken. (The page had said
# nothing: the first two left the built-in texture with no word, and it drew the third.)
head -c 4000 /dev/urandom >photo.png
head -c 4000 /dev/urandom >clip.mp4
python3 - <<'PY'
import struct, zlib
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
w, h = 16385, 8
rows = b''.join(b'\0' + bytes(w * 3) for _ in range(h))
open('wide.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                             chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
PY
node "$TOP/tests/tools/webdrive.js" background "${url}index.html" photo.png site/bg.png wide.png \
    clip.mp4 >bg.out 2>drive.err
sed 's/^/    /' drive.err | head -5
bgv() { sed -n "s/^bg_$1 //p" bg.out; }
check "a file that is no picture is refused with a message ($(bgv 1))" test "$(bgv 1)" = \
    "(or drop one on the water)|rockpool: error: photo.png: not a picture or video the browser can decode; the background is unchanged"
check "a PNG is taken ($(bgv 2))" test "$(bgv 2)" = "bg.png|"
check "a picture wider than 16384 is refused as the command line refuses it ($(bgv 3))" test "$(bgv 3)" = \
    "bg.png|rockpool: error: wide.png is 16385x8: at most 16384 pixels per side are accepted, as by the command line; the background is unchanged"
check "a file that is no video is refused with a message ($(bgv 4))" test "$(bgv 4)" = \
    "bg.png|rockpool: error: clip.mp4: not a picture or video the browser can decode; the background is unchanged"

# Play pressed at the end of a scene that does not loop plays it again from the start (it
# had played one frame past the end and stopped again, the last frame staying on screen).
node "$TOP/tests/tools/webdrive.js" replay "${url}index.html" >replay.out 2>drive.err
sed 's/^/    /' drive.err | head -5
rp() { sed -n "s/^$1 //p" replay.out; }
check "a scene without loop stops on its last frame ($(rp ended))" test "$(rp ended)" = "29 play"
read -r rf rb <<<"$(rp replay)"
check "play at the end plays from the start ($(rp replay))" \
    test "$rb" = pause -a -n "$rf" -a "${rf:-29}" -lt 29

# The size menu's half and quarter follow the scene's size where the scene has no size
# line (its preset's 640x480): they did nothing, the canvas staying 640x480. The command
# line's size for such a scene is checked too, independently of the page.
node "$TOP/tests/tools/webdrive.js" halves "${url}index.html" >halves.out 2>drive.err
sed 's/^/    /' drive.err | head -5
hv() { sed -n "s/^$1 //p" halves.out; }
printf 'at 0s drop 50%% 50%% radius 3%% height 500\n' >nosize.scene
check "(the command line's size for a scene with no size line is 640x480)" \
    bash -c '"$1" nosize.scene --check 2>/dev/null | grep -q "^size: *640x480 (scene)"' _ "$ROCKPOOL"
check "no size line, the scene's size: $(hv nosize_scene)" test "$(hv nosize_scene)" = 640x480
check "... half: $(hv nosize_half)" test "$(hv nosize_half)" = 320x240
check "... quarter: $(hv nosize_quarter)" test "$(hv nosize_quarter)" = 160x120
check "size 1000x562, quarter: 250x140, rounded to even ($(hv sized_quarter))" \
    test "$(hv sized_quarter)" = 250x140

# The slider dragged to the last frame while playing with loop on, over a scene whose last
# frame takes a while to simulate: the clock waits for it, so it is shown, then playing
# loops on from frame 0 (the clock ran on meanwhile: it passed the end and the page looped
# to frame 0 without ever showing the frame chosen). The frame after it is frame 0, not the
# frame before it: the clock counted back from an animation frame's time earlier than its
# start (the page's clock is set ahead for this check, as a loaded machine had it).
node "$TOP/tests/tools/webdrive.js" seekend "${url}index.html" >seekend.out 2>drive.err
sed 's/^/    /' drive.err | head -5
shown=$(sed -n 's/^shown //p' seekend.out)
check "the last frame chosen while playing is shown, then frame 0 ($shown)" \
    bash -c '[[ ,$1, == ,3599,0,* ]]' _ "$shown"

# The command line the page shows (and copies) names the scene and the picture as they
# are, quoted for the shell: a scene named 'my scene;x.scene' and a picture named
# "it's here.png" are one word each when the shell reads it, and nothing in a name runs
# (the picture's name had been rewritten as it_s_here.png, a file that is not there, and
# the scene's name given unquoted: `;` ended the command).
cp "$TOP/examples/harbour.scene" "site/my scene;x.scene"
cp site/bg.png "it's here.png"
node "$TOP/tests/tools/webdrive.js" background "${url}index.html?scene=my%20scene%3Bx.scene" \
    "it's here.png" >cmd.out 2>drive.err
sed 's/^/    /' drive.err | head -5
cmd=$(sed -n 's/^cmd_1 \$ //p' cmd.out)
check "the command names the scene and the picture as one shell word each ($cmd)" python3 -c '
import shlex, sys
sys.exit(shlex.split(sys.argv[1]) != ["rockpool", "my scene;x.scene", "-i", "it'"'"'s here.png",
                                      "-s", "1280x720", "-o", "out.mp4"])' "$cmd"

# A reload gives back the scene as it was typed (it had given harbour back: the text was
# lost), and says so; an example chosen is what a reload gives next.
node "$TOP/tests/tools/webdrive.js" reload "${url}index.html" >reload.out 2>drive.err
sed 's/^/    /' drive.err | head -5
rl() { sed -n "s/^$1 //p" reload.out; }
check "a reload gives back the text typed" test "$(rl kept)" = 1
check "the page says it is the scene as it was left ($(rl status))" test "$(rl status)" = \
    "your scene as you left it (kept by this browser); choose an example to start again"
check "the scene given back plays ($(rl error))" test "$(rl error)" = ok
check "an example chosen is what the next reload gives ($(rl example))" \
    test "$(rl example)" = rain -a "$(rl kept_rain)" = 1

# The page's time limit counts from when the worker has its core: with rockpool.wasm 2 s
# slow to arrive (a slow network; a loaded machine compiling it), a scene under a 0.3 s limit
# plays, and the limit still gives up the slow scene. (The limit had counted from the
# first call, made before the core was loaded: the page gave harbour up as 'too much
# work' and played nothing.) While the file wasm.hold is there (at most 60 s), the server
# holds rockpool.wasm back: webdrive.js removes it once its edits are made.
python3 - site "$PWD/wasm.hold" >slow.out 2>slow.err <<'PY' &
import functools, http.server, os, sys, time
class Slow(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".wasm": "application/wasm", ".js": "text/javascript"})
    def do_GET(self):
        if self.path.endswith("rockpool.wasm"):
            time.sleep(2)
            t0 = time.monotonic()
            while os.path.exists(sys.argv[2]) and time.monotonic() - t0 < 60:
                time.sleep(0.05)
        super().do_GET()
    def log_message(self, *args):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Slow, directory=sys.argv[1]))
print(f"http://127.0.0.1:{srv.server_address[1]}/", flush=True)
srv.serve_forever()
PY
slow=$!
trap 'rc=$?; kill "$srv" "$slow" 2>/dev/null; wait "$srv" "$slow" 2>/dev/null; cli_exit $rc' EXIT
slow_url=$(served_url slow.out "")
node "$TOP/tests/tools/webdrive.js" watchdog "${slow_url}index.html?scene=calm.scene&open_timeout=300" >dog.out 2>drive.err
sed 's/^/    /' drive.err | head -5
read -r g1 g2 <<<"$(dog frames_after)"
check "rockpool.wasm 2 s slow: a scene plays under a 0.3 s limit, which gives up the slow scene ($(dog error))" \
    test "$(dog error)" = "rockpool: calm.scene: error: the page gave up preparing this scene after 0.3 s (too much work for the browser: try the command line)" \
    -a -n "$g2" -a "${g1:-0}" != "${g2:-0}"

# Thirty-two edits made while rockpool.wasm is held back, each a scene of about 0.1 s of
# preparing, under a 2 s limit (more than 2 s in all): the opens are answered in turn once
# the core is there, each with the limit to itself, and the last edit plays, the worker
# never started again. (The limits all ran from the core's arrival: the later edits,
# waiting behind the others, were given up as 'too much work'.)
touch wasm.hold
node "$TOP/tests/tools/webdrive.js" queue "${slow_url}index.html?open_timeout=2000" wasm.hold >queue.out 2>drive.err
sed 's/^/    /' drive.err | head -5
qu() { sed -n "s/^$1 //p" queue.out; }
check "thirty-two edits while the core loads: all made before it is there" test "$(qu edits_before_ready)" = true
check "thirty-two edits while the core loads: the last plays, none given up ($(qu error), worker started $(qu worker_starts) time(s))" \
    test "$(qu error)" = ok -a "$(qu last_taken)" = true -a "$(qu worker_starts)" = 1

# Eight edits under a 0.3 s limit (as the watchdog's), the seventh far over it (4.2 million
# drops: 1.7 s for the command line's --check here): it is given up and the worker started
# again, and the eighth, which waited behind it, still plays (it was shown as 'error:
# restarted' and never played).
touch wasm.hold
node "$TOP/tests/tools/webdrive.js" queue "${slow_url}index.html?open_timeout=300" wasm.hold heavy >queue.out 2>drive.err
sed 's/^/    /' drive.err | head -5
check "an edit given up: the one behind it plays ($(qu error), worker started $(qu worker_starts) times)" \
    test "$(qu error)" = ok -a "$(qu last_taken)" = true -a "$(qu worker_starts)" -ge 2

# A scene the page cannot fetch (?scene= names no file) is said so; the server's error page
# is not put in the editor as the scene (it was: 'unknown statement <!DOCTYPE' at 1:1).
node "$TOP/tests/tools/webdrive.js" look "${url}index.html?scene=nosuch.scene" >look.out 2>drive.err
sed 's/^/    /' drive.err | head -5
lk() { sed -n "s/^$1 //p" look.out; }
check "a scene that is not there: the page says so ($(lk error))" \
    test "$(lk error)" = "rockpool: nosuch.scene: error: cannot fetch the scene: HTTP 404 File not found"
check "a scene that is not there: the editor holds no error page ('$(lk text)')" test -z "$(lk text)"

# Every control a keyboard reaches, and the water, has a name a screen reader says (the
# scene's text area and the time slider had none).
node "$TOP/tests/tools/webdrive.js" names "${url}index.html" >names.out 2>drive.err
sed 's/^/    /' drive.err | head -5
check "every control of the page has an accessible name ($(grep '^unnamed' names.out | tr '\n' ' '))" \
    test "$(cat names.out)" = "done 1"
