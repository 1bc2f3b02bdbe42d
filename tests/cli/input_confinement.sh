#!/usr/bin/env bash
# input_confinement.sh - a scene's inputs stay inside its directory and are single files:
# symbolic links leading out of the directory are refused like '..' (unless
# --allow-outside-paths), and no input may make FFmpeg open other files (HLS playlists,
# concat lists, whatever the name says), so a playlist cannot read files elsewhere nor
# block on a FIFO it names. Every refusal is exit 2 with nothing created.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir sc outside
ffmpeg -v error -f lavfi -i testsrc=size=48x32 -frames:v 1 outside/secret.png
ffmpeg -v error -f lavfi -i testsrc=size=48x32 -frames:v 1 sc/own.png
ffmpeg -v error -f lavfi -i testsrc=size=48x32:rate=10 -t 1 -c:v mpeg2video -f mpegts outside/seg.ts
ffmpeg -v error -f lavfi -i testsrc=size=48x32:rate=10 -t 1 -c:v mpeg2video -f mpegts sc/seg.ts
ln -s ../outside/secret.png sc/link.png
ln -s ../outside sc/dirlink
ln -s own.png sc/inside-link.png
ln -s "$WORK/sc" sc/self
mkfifo outside/fifo
scene() { printf 'size 48x32\nduration 3f\n%s\n' "$2" >"sc/$1.scene"; }
scene bg-link 'background link.png'
scene mask-link 'at 0f wall mask link.png'
scene dir-link 'background dirlink/secret.png'
scene inside-link 'background inside-link.png'
scene self-link 'at 0f wall mask self/own.png'
# refused NAME FRAGMENT ARGS...: exit 2 within 5 s, FRAGMENT in the message, no o.y4m.
refused() {
    local name=$1 frag=$2
    shift 2
    rm -f o.y4m
    expect_status "$name: exit 2" 2 timeout -s KILL 5 "$R" -q "$@" -o o.y4m
    stderr_has "$name: says why" "$frag"
    check "$name: no output" test ! -e o.y4m
}

## Symbolic links.
refused "background through a link out of the directory" "a symbolic link leads out" \
    sc/bg-link.scene
refused "wall mask through a link out of the directory" "a symbolic link leads out" \
    sc/mask-link.scene
refused "background in a linked directory outside" "a symbolic link leads out" sc/dir-link.scene
expect_status "--check sees the link too" 2 "$R" --check sc/bg-link.scene
expect_status "a link inside the directory is fine" 0 "$R" --check sc/inside-link.scene
expect_status "a link back into the directory is fine" 0 "$R" --check sc/self-link.scene
expect_status "--allow-outside-paths follows the link" 0 \
    "$R" --check --allow-outside-paths sc/bg-link.scene
expect_status "a scene in the current directory: the link still leads out" 2 \
    sh -c 'cd sc && exec "$0" --check bg-link.scene' "$R"

## Playlists and lists of files: never read, whatever the name or where they come from.
printf '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n%s/outside/seg.ts\n#EXT-X-ENDLIST\n' \
    "$WORK" >sc/abs.m3u8
printf '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nseg.ts\n#EXT-X-ENDLIST\n' >sc/own.m3u8
cp sc/abs.m3u8 sc/playlist.mp4
printf '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n%s/outside/fifo\n#EXT-X-ENDLIST\n' \
    "$WORK" >sc/fifo.m3u8
printf 'ffconcat version 1.0\nfile %s/outside/seg.ts\n' "$WORK" >sc/list.ffconcat
scene hls 'background abs.m3u8'
scene hls-own 'background own.m3u8'
scene hls-named-mp4 'background playlist.mp4'
scene hls-fifo 'background fifo.m3u8'
scene hls-mask 'at 0f wall mask abs.m3u8'
scene concat 'background list.ffconcat'
for s in hls hls-own hls-named-mp4 hls-fifo hls-mask concat; do
    expect_status "--check refuses the $s background" 2 timeout -s KILL 5 "$R" --check "sc/$s.scene"
done
refused "HLS background reading segments elsewhere" "abs.m3u8" sc/hls.scene
refused "HLS background naming a FIFO" "fifo.m3u8" sc/hls-fifo.scene
refused "-i of an HLS playlist" "abs.m3u8" sc/inside-link.scene -i sc/abs.m3u8
refused "-i of a concat list" "list.ffconcat" sc/inside-link.scene -i sc/list.ffconcat
# The segment itself is a video rockpool reads.
expect_status "-i of an MPEG-TS file" 0 "$R" --check sc/inside-link.scene -i sc/seg.ts
