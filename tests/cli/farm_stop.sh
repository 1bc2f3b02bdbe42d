#!/usr/bin/env bash
# farm_stop.sh - a signal at the moment render-parallel and rockpool-join put the output in
# place. Placing is the commit: a signal before it leaves no output and no frame (the chunks
# are kept for the next run); one that comes after it (or while the join links the output,
# which it does not let a signal interrupt) leaves the run complete, exit 0, the output and
# every AOV frame in place, no work directory. A frame being linked when the signal came is
# taken back too (bash takes the signal once ln has returned, before the name was recorded).
# The moments are held deterministically: an `ln` on PATH that signals its caller once it
# has placed a given name, and a join that signals render-parallel as it ends.
source "$(dirname "$0")/lib.sh"

RP=$TOP/scripts/render-parallel
J=$TOP/scripts/rockpool-join
export ROCKPOOL
scene=$TOP/examples/rain.scene
opts=(-q -s 64x48 -n 30 -c ffv1)

if ! command -v parallel >/dev/null; then
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
    exit 0
fi
"$ROCKPOOL" "$scene" "${opts[@]}" -o single.mkv --aov height single_%02d.png
"$ROCKPOOL" "$scene" "${opts[@]}" -o 'single_f_%02d.png'
decoded() { ffmpeg -v error -i "$1" -f framemd5 -; }
# same_frames A B: A_00.png..A_29.png decode as B_00.png..B_29.png (the pixels: their tags
# differ, a chunk's naming its range and job), and B's directory holds those 30 files alone
same_frames() {
    local f n
    for ((f = 0; f < 30; f++)); do
        printf -v n %02d $f
        [ -f "$2_$n.png" ] && cmp -s <(decoded "$1_$n.png" | tail -n 1) <(decoded "$2_$n.png" | tail -n 1) ||
            return 1
    done
    test "$(ls -A "$(dirname "$2")" | wc -l)" = 30
}

# ln that, once it has placed the name $LN_SIGNAL_AT, sends SIGTERM to its caller
mkdir shim
cat >shim/ln <<EOF
#!/usr/bin/env bash
$(command -v ln) "\$@" || exit \$?
for a; do last=\$a; done
[ "\$last" != "\${LN_SIGNAL_AT:-}" ] || kill -TERM \$PPID
EOF
chmod +x shim/ln

# complete NAME: the output is the single run's, with its 30 AOV frames, and nothing else
complete() {
    check "$1: the output decodes as the single run's" cmp -s <(decoded single.mkv) <(decoded o.mkv)
    check "... with its 30 AOV frames, the single run's" same_frames single th/th
    check "... and no work directory left" test ! -e .o.mkv.chunks
}
# nothing NAME: no output, no AOV frame nor its directory (the run created it), chunks kept
nothing() {
    check "$1: no output" test ! -e o.mkv
    check "... no AOV frame, nor the directory the run created for them" test ! -e th
    check "... the 3 chunks kept for the next run" test -s .o.mkv.chunks/chunk_2.mkv
}
run() { "$RP" -k 3 -j 1 -o o.mkv -- "$scene" "${opts[@]}" --aov height th/th_%02d.png; }

# ---- the join has placed the output when render-parallel is signalled ----------------------
mkdir rp
cp "$RP" rp/
cat >rp/rockpool-join <<EOF
#!/usr/bin/env bash
# the real join; a placing one then signals render-parallel (its caller) as it ends
$(printf %q "$J") "\$@" || exit \$?
# (not itself stopped by render-parallel's SIGTERM then: a join that has placed the output
# does not stop)
trap '' TERM
case " \$* " in *" -o "*) kill -TERM \$PPID ;; esac
exit 0
EOF
chmod +x rp/rockpool-join
expect_status "SIGTERM as the join ends, the output placed: exit 0" 0 rp/render-parallel -k 3 -j 1 \
    -o o.mkv -- "$scene" "${opts[@]}" --aov height th/th_%02d.png
complete "SIGTERM as the join ends"
rm -rf o.mkv th

# ---- the join is signalled while it links the output into place ---------------------------
expect_status "SIGTERM to the join as it links the output: exit 0" 0 \
    env LN_SIGNAL_AT=o.mkv PATH="$WORK/shim:$PATH" "$RP" -k 3 -j 1 -o o.mkv -- "$scene" \
    "${opts[@]}" --aov height th/th_%02d.png
complete "SIGTERM to the join as it links the output"
rm -rf o.mkv th

# ---- render-parallel is signalled while it links an AOV frame (the first, the last) --------
for at in th/th_00.png th/th_29.png; do
    expect_status "SIGTERM as $at is linked: exit 143" 143 \
        env LN_SIGNAL_AT=$at PATH="$WORK/shim:$PATH" "$RP" -k 3 -j 1 -o o.mkv -- "$scene" \
        "${opts[@]}" --aov height th/th_%02d.png
    nothing "SIGTERM as $at is linked"
done
expect_status "... the same command again: exit 0" 0 run
complete "... the same command again"
rm -rf o.mkv th

# ---- a PNG output: the join is signalled while it links a frame (the first, the last) ------
for at in seq/f_00.png seq/f_29.png; do
    expect_status "PNG: SIGTERM to the join as $at is linked: exit 1 (the join failed)" 1 \
        env LN_SIGNAL_AT=$at PATH="$WORK/shim:$PATH" "$RP" -k 3 -j 1 -o 'seq/f_%02d.png' -- \
        "$scene" "${opts[@]}"
    check "... no frame left in place" test -z "$(ls -A seq 2>/dev/null | grep -v '^\.f_%02d\.png\.chunks$')"
done
expect_status "PNG: the same command again: exit 0" 0 "$RP" -k 3 -j 1 -o 'seq/f_%02d.png' -- \
    "$scene" "${opts[@]}"
check "... 30 frames, the single run's, nothing else" same_frames single_f seq/f
