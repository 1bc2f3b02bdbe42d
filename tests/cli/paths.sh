#!/usr/bin/env bash
# paths.sh - outputs that collide with each other or with the run's inputs are refused
# before anything is rendered: exit 2, a message naming both, and the directory exactly
# as it was (no file appeared, changed or vanished).
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
mkdir d && cd d || exit 1
printf 'size 48x32\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >s.scene
"$R" -q s.scene -o st.bin.mp4 --save-state st.bin >/dev/null 2>&1 || bad "state for the tests"
rm -f st.bin.mp4
printf "x" >keep.txt
cp "$TOP/examples/gallery/elias.png" keep.png
ln -s keep.png link-to-keep.png
ln -s nowhere.bin dangling.bin
ln -s keep.txt link-to-keep.txt
ln -s nowhere2.bin dangling2.bin
mkdir -p sub

refused() { refused_unchanged "$@"; }

refused "-o and --dump-heights same name" "name the same file" s.scene -o a.mkv --dump-heights a.mkv
refused "same file through ./ and sub/.." "name the same file" s.scene -o h.bin.mp4 \
    --dump-heights h.bin --save-state sub/../h.bin
refused "--dump-heights and --save-state same name" "name the same file" s.scene -o o.mp4 \
    --dump-heights x.bin --save-state x.bin
refused "dangling link and its target" "name the same file" s.scene -o o.mp4 -y \
    --dump-heights nowhere.bin --save-state dangling.bin
refused "dangling link without -y" "dangling symbolic link" s.scene -o o.mp4 \
    --dump-heights dangling2.bin
refused "-o over the scene" "would overwrite the scene" s.scene -f y4m -o s.scene -y
refused "--dump-heights over the scene" "would overwrite the scene" s.scene -o o.mp4 \
    --dump-heights s.scene -y
refused "--save-state over --load-state" "would overwrite --load-state" s.scene -o o.mp4 -y \
    --load-state st.bin --save-state st.bin
refused "--dump-heights over --load-state" "would overwrite --load-state" s.scene -o o.mp4 -y \
    --load-state st.bin --dump-heights ./st.bin
refused "output over the background through a link" "would overwrite the background" \
    s.scene -i keep.png -f y4m -o link-to-keep.png -y
refused "-o over the background image" "would overwrite the background" s.scene -i keep.png \
    -o keep.png -f y4m -y

# The scene read from stdin, stdin a file: an output naming that file through /dev/stdin or
# /dev/fd/0 is over the scene too (it was written over it, exit 0: 43 KB of Y4M, or the
# stats' CSV over the start of the scene). Stdin a pipe, such an output is the pipe's.
cp s.scene in.scene
for o in "-o /dev/stdin -f y4m" "--stats /dev/stdin --hash" "--dump-heights /dev/fd/0 --hash" \
    "--save-state /dev/stdin --hash" "-o /dev/fd/0 -f framemd5"; do
    before=$(dir_snapshot)
    read -ra args <<<"$o"
    expect_status "scene from stdin, $o: exit 2" 2 "$R" -q - -y "${args[@]}" <in.scene
    stderr_has "scene from stdin, $o: message" "would overwrite the scene (read from stdin) of this run"
    check "scene from stdin, $o: the scene and the directory unchanged" \
        test "$(dir_snapshot)" = "$before" -a "$(cat in.scene)" = "$(cat s.scene)"
done
check "a scene from a pipe renders (--hash: 3 lines)" \
    test "$(cat s.scene | "$R" -q - --hash | wc -l)" = 3

# Devices are written in place and may be named twice.
expect_status "/dev/null twice is fine" 0 "$R" -q s.scene -f y4m -o /dev/null \
    --dump-heights /dev/null

## Outputs of every kind over inputs of every kind, patterns naming the same files, and
## another output leading to stdout while -o - writes it (also with -y).
mkdir oi_seq oi_q
ffmpeg -v error -f lavfi -i testsrc=size=48x32 -frames:v 1 oi_seq/f_1.png
cp oi_seq/f_1.png oi_m.png
ln -s oi_seq/f_1.png oi_link.png
printf 'size 48x32\nduration 3f\nat 0f wall mask oi_m.png\n' >oi_s.scene
printf 'size 48x32\nduration 3f\nat 0f wall mask oi_link.png\n' >oi_l.scene
# frame 0 of a pattern oi_n%d names the scene oi_n0.scene and the mask oi_n0.png
cp oi_m.png oi_n0.png
printf 'size 48x32\nduration 3f\nat 0f wall mask oi_n0.png\n' >oi_n0.scene
refused "PNG pattern over -i" "would overwrite the background" oi_s.scene \
    -i oi_seq/f_1.png \
    -o 'oi_seq/f_%d.png' -y
refused "PNG pattern over the scene" "would overwrite the scene" oi_n0.scene -f png \
    -o 'oi_n%d.scene' -y
refused "PNG pattern over a wall mask" "would overwrite a wall mask" oi_n0.scene \
    -o 'oi_n%d.png' -y
refused "PNG pattern over a wall mask reached by a link" "would overwrite a wall mask" \
    oi_l.scene -o 'oi_seq/f_%d.png' -y
refused "--stats over a wall mask" "would overwrite a wall mask" oi_s.scene -f framemd5 \
    -o /dev/null --stats oi_m.png -y
refused "--dump-heights over a wall mask" "would overwrite a wall mask" oi_s.scene \
    -o 'oi_x_%d.png' --dump-heights oi_m.png -y
refused "--save-state over a wall mask" "would overwrite a wall mask" oi_s.scene -f framemd5 \
    -o /dev/null --save-state oi_m.png -y
refused "--aov over a wall mask" "would overwrite a wall mask" oi_n0.scene -f framemd5 \
    -o /dev/null --aov height 'oi_n%d.png' -y
refused "--stats over a frame of the PNG pattern" "name the same files" oi_s.scene \
    -o 'oi_q/f_%d.png' --stats oi_q/f_2.png
refused "two patterns, %d and %01d" "name the same files" oi_s.scene -o 'oi_q/f_%d.png' \
    --aov height 'oi_q/f_%01d.png'
refused "two patterns, %05d and %d" "name the same files" oi_s.scene -o 'oi_q/f_%05d.png' \
    --aov height 'oi_q/f_%d.png'
# a frame's name that is a hard or symbolic link to a wall mask (the mask named by its own path)
mkdir oi_hl oi_sl
ln oi_m.png oi_hl/f_2.png
ln -s ../oi_m.png oi_sl/f_2.png
refused "PNG pattern whose frame is a hard link to a wall mask" "would overwrite a wall mask" \
    oi_s.scene -o 'oi_hl/f_%d.png' -y
refused "--aov pattern whose frame is a symbolic link to a wall mask" \
    "would overwrite a wall mask" oi_s.scene -f framemd5 -o /dev/null \
    --aov height 'oi_sl/f_%d.png' -y
# patterns that name one directory in two spellings, before it exists
refused "two patterns, new/./f_%d and new/f_%d" "name the same files" oi_s.scene \
    -o 'oi_new/./f_%d.png' --aov height 'oi_new/f_%d.png'
refused "two patterns, new/x/../f_%d and new//f_%d" "name the same files" oi_s.scene \
    -o 'oi_new/x/../f_%d.png' --aov normal 'oi_new//f_%d.png'
check "... nothing created" test ! -e oi_new
refused "--dump-heights /dev/stdout while -o - writes" "is stdout" oi_s.scene -o - \
    --dump-heights /dev/stdout -y
check "nothing written into q" test -z "$(ls -A oi_q)"
expect_status "two patterns of different names are fine" 0 "$R" -q oi_s.scene \
    -o 'oi_q/f_%d.png' \
    --aov height 'oi_q/h_%d.png'
check "both patterns written" test -s oi_q/f_2.png -a -s oi_q/h_2.png

# ---- outputs on the kernel's own file systems (proc, sysfs: statfs's magic numbers) ------
# No output file can be made there: refused before anything is rendered, as bad input (exit
# 2; they were exit 1, "cannot create '/proc/x.png': No such file or directory" once the
# render had started), and nothing appears, here or there. A name in /proc that leads to a
# file elsewhere (/proc/self/fd/1, /dev/stdout) is that file's, and still written.
if [ -d /proc/self ] && [ -d /sys/kernel ]; then
    refused "-o /proc/x.png" "cannot write '/proc/x.png': it would be on the kernel's proc file system (/proc)" \
        s.scene -o /proc/x.png
    refused "-o /sys/foo.mp4" "it would be on the kernel's sysfs file system (/sys)" s.scene \
        -o /sys/foo.mp4
    refused "-o in a directory of /proc that is not there" "kernel's proc file system" s.scene \
        -o /proc/rockpool-new/f_%d.png
    refused "-o over a file of /proc, -y" "kernel's proc file system" s.scene -f y4m \
        -o /proc/self/comm -y
    for opt in --save-state --dump-heights --stats; do
        refused "$opt in /sys" "$opt: cannot write '/sys/kernel/x': it would be on the kernel's" \
            s.scene -f framemd5 -o /dev/null $opt /sys/kernel/x
    done
    refused "--aov in /proc" "--aov height: cannot write" s.scene -f framemd5 -o /dev/null \
        --aov height /proc/h_%d.png
    printf '0 00000000000000000000000000000000\n' >wrong.md5
    refused "--verify-dir /sys" "--verify-dir /sys: it is on the kernel's sysfs file system" \
        s.scene --hash --verify wrong.md5 --verify-dir /sys
    rm wrong.md5
    check "nothing made in /proc or /sys" test ! -e /proc/x.png -a ! -e /sys/foo.mp4 -a \
        ! -e /proc/rockpool-new -a ! -e /sys/kernel/x
    check "-o /proc/self/fd/1 (a pipe) is still written" \
        test "$("$R" -q s.scene -f y4m -o /proc/self/fd/1 | head -c 9)" = "YUV4MPEG2"
    "$R" -q s.scene -f y4m -o /dev/stdout -y >through-stdout.y4m
    check "-o /dev/stdout -y into a file is still written" test -s through-stdout.y4m
    rm -f through-stdout.y4m
fi
