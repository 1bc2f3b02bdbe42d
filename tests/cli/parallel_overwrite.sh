#!/usr/bin/env bash
# parallel_overwrite.sh - scripts/render-parallel never replaces what it was not asked to:
# without -y, a file that appears at the output (or at one of its PNG frames) while the
# chunks run is kept and the run fails (exit 1); with -y, a directory, FIFO or device at
# the output is refused up front (exit 2) and one that appears while it runs is left as it
# is (exit 1).
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
RP=$TOP/scripts/render-parallel
export ROCKPOOL
if ! command -v parallel >/dev/null; then
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
    exit 0
fi
printf 'size 320x240\nduration 40f\nat 0.1s..4s rain rate 30/s radius 3..9 height 900\n' >s.scene

# appears NAME KIND OUTPUT [-y]: while render-parallel renders s.scene to OUTPUT, NAME
# appears (KIND file: holding "mine"; dir: a directory); the run exits 1 and NAME is
# unchanged.
appears() {
    local name=$1 kind=$2 out=$3 rc
    shift 3
    # chunks an earlier case kept (render-parallel resumes from them) would be seen at once
    rm -rf "$(dirname "$out")"/.*.chunks
    "$RP" -k 4 -j 2 -o "$out" "$@" -- s.scene -c ffv1 2>rp.err &
    local pid=$!
    for _ in $(seq 200); do
        compgen -G "$(dirname "$out")/.*.chunks/*" >/dev/null && break
        sleep 0.05
    done
    if [ "$kind" = dir ]; then mkdir "$name"; else echo mine >"$name"; fi
    wait $pid
    rc=$?
    if [ $rc -eq 1 ]; then ok "$name appeared ($kind${1:+, $1}): exit 1"; else
        bad "$name appeared ($kind${1:+, $1}): exit $rc, wanted 1"
        sed 's/^/    /' rp.err | head -3
    fi
    if [ "$kind" = dir ]; then
        check "$name appeared ($kind${1:+, $1}): still an empty directory" \
            test -d "$name" -a -z "$(ls -A "$name" 2>/dev/null)"
    else
        check "$name appeared ($kind${1:+, $1}): still holds what was written" \
            test "$(cat "$name" 2>/dev/null)" = mine
    fi
    rm -rf "$name"
}
appears o.mkv file o.mkv
mkdir seq
appears seq/f_0007.png file 'seq/f_%04d.png'
check "a PNG sequence refused at the end leaves none of its frames" test -z "$(ls seq)"
check "... and keeps its chunks for the next run" test -d seq/.f__04d.png.chunks
appears o.mkv dir o.mkv -y
appears seq/f_0007.png dir 'seq/f_%04d.png' -y

# -y and something other than a file already at the output: refused before any chunk.
mkdir d.mkv
mkfifo p.mkv
expect_status "-y over a directory: exit 2" 2 "$RP" -o d.mkv -y -- s.scene -c ffv1
stderr_has "-y over a directory: says so" "is a directory"
check "-y over a directory: left empty" test -z "$(ls -A d.mkv)"
expect_status "-y over a FIFO: exit 2" 2 timeout 20 "$RP" -o p.mkv -y -- s.scene -c ffv1
check "-y over a FIFO: still a FIFO" test -p p.mkv
mkdir -p seq2/f_0003.png
expect_status "-y over a directory named like a frame: exit 2" 2 \
    "$RP" -o 'seq2/f_%04d.png' -y -- s.scene
check "-y over a directory named like a frame: nothing written" \
    test "$(ls -A seq2)" = f_0003.png
# The usual case still works, with and without -y.
expect_status "a plain run" 0 "$RP" -k 4 -j 2 -o ok.mkv -- s.scene -c ffv1
expect_status "a plain run again with -y" 0 "$RP" -k 4 -j 2 -o ok.mkv -y -- s.scene -c ffv1
check "the joined video has every frame" test "$(probe ok.mkv nb_read_frames)" = 40
