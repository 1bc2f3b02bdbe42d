#!/usr/bin/env bash
# parallel_overwrite.sh - scripts/render-parallel never replaces what it was not asked to:
# without -y, a file that appears at the output (or at one of its PNG frames) while the
# chunks run is kept and the run fails (exit 1); with -y, a directory, FIFO or device at
# the output is refused up front (exit 2) and one that appears while it runs is left as it
# is (exit 1). Nothing the run did not create is removed: a directory it created is
# removed only when empty again, and what it says of its chunks is true. --aov sequences
# likewise.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
RP=$TOP/scripts/render-parallel
export ROCKPOOL
if ! command -v parallel >/dev/null; then
    bad "GNU parallel is not installed (scripts/install-deps installs it)"
    exit 0
fi
printf 'size 320x240\nduration 40f\nat 0.1s..4s rain rate 30/s radius 3..9 height 900\n' >s.scene

# started PID DIR: wait until render-parallel's chunks are rendering into DIR.
started() {
    for _ in $(seq 3000); do # up to 60 s: render-parallel first asks rockpool --job-id
        compgen -G "$2/.*.chunks/part_*" >/dev/null && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.02
    done
}

# gated: rockpool, but a chunk (--start) says it is running (chunk-running) and waits for
# go (up to 60 s), so that what appears does so while the chunks run, however busy the
# machine (a 40-frame chunk may otherwise be done before this script writes anything).
{
    echo '#!/usr/bin/env bash'
    printf 'case " $* " in *" --start "*)\n    touch %q\n' "$PWD/chunk-running"
    printf '    i=0\n    while [ ! -e %q ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i + 1)); done ;;\n' "$PWD/go"
    printf 'esac\nexec %q "$@"\n' "$R"
} >gated
chmod +x gated
# chunk_running PID: wait until a gated chunk is running (or PID has ended).
chunk_running() {
    for _ in $(seq 3000); do
        [ ! -e chunk-running ] && kill -0 "$1" 2>/dev/null || return 0
        sleep 0.02
    done
}
# appears NAME KIND OUTPUT [-y]: while render-parallel renders s.scene to OUTPUT (with
# the rockpool options in the array extra), NAME appears (KIND file: holding "mine"; dir: a
# directory); the run exits 1 and NAME is unchanged.
extra=()
appears() {
    local name=$1 kind=$2 out=$3 rc
    shift 3
    # chunks an earlier case kept (render-parallel resumes from them) would be seen at once
    rm -rf "$(dirname "$out")"/.*.chunks chunk-running go
    ROCKPOOL=$PWD/gated "$RP" -k 4 -j 2 -o "$out" "$@" -- s.scene -c ffv1 ${extra[@]+"${extra[@]}"} 2>rp.err &
    local pid=$!
    chunk_running $pid
    if [ "$kind" = dir ]; then mkdir "$name"; else echo mine >"$name"; fi
    touch go
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
appears o.mkv dir o.mkv
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

# claims_true NAME DIR: what render-parallel said of its chunks (rp.err) is so: the
# directory it says it kept them in is there, or none is left in DIR.
claims_true() {
    local kept
    kept=$(sed -n 's/.*the chunks done are kept in \(.*\): the same.*/\1/p' rp.err)
    if [ -n "$kept" ]; then
        check "$1: the chunks are where it says it kept them" test -d "$kept"
    else
        check "$1: no chunks left, as it says" test -z "$(compgen -G "$2/.*.chunks")"
    fi
}

# A PNG pattern into a directory the run creates: files of someone else's that appear
# there while it runs (one at a frame's name) are kept, the run fails naming the frame,
# and it removes only its own (no frame of its own, no chunks, the directory stays).
rm -f chunk-running go
ROCKPOOL=$PWD/gated "$RP" -k 4 -j 2 -o 'made/f_%04d.png' -- s.scene 2>rp.err &
pid=$!
chunk_running $pid
echo mine >made/notes.txt
echo precious >made/f_0010.png
touch go
wait $pid
rc=$?
check "files appeared in the directory it created: exit 1 (got $rc)" test $rc = 1
check "... the message names the frame" grep -qF 'made/f_0010.png' rp.err
check "... the file at a frame's name is kept" test "$(cat made/f_0010.png 2>/dev/null)" = precious
check "... the other file is kept" test "$(cat made/notes.txt 2>/dev/null)" = mine
check "... and the directory holds nothing else" test "$(ls -A made 2>/dev/null | tr '\n' ' ')" = \
    "f_0010.png notes.txt "
claims_true "files appeared in the directory it created" made
# Stopped (SIGTERM) while rendering into directories it created: it removes them, but
# not one someone else has written into.
# (a longer scene: no chunk may finish before the signal, or its directory is kept for the
# next run, as it should be; 10000 frames a chunk: at 400 frames a 100-frame chunk took
# 0.2 s, and a busy machine could finish one between started and the signal)
sed 's/duration 40f/duration 40000f/' s.scene >long.scene
"$RP" -k 4 -j 2 -o 'made2/sub/f_%04d.png' -- long.scene 2>rp.err &
pid=$!
started $pid made2/sub
echo mine >made2/notes.txt
kill -TERM $pid
wait $pid
rc=$?
check "stopped, after a file appeared in a directory it created: exit 143 (got $rc)" test $rc = 143
check "... the directory it created inside is removed" test ! -e made2/sub
check "... the file is kept" test "$(ls -A made2 2>/dev/null)" = notes.txt -a \
    "$(cat made2/notes.txt 2>/dev/null)" = mine
sleep 1
check "... and no chunk writes there after it has exited" test "$(ls -A made2 2>/dev/null)" = notes.txt
# A chunk that leaves a process behind in a process group of its own (as parallel starts
# each job in one): a stop ends it too. (The stop once signalled parallel's group alone,
# and such a process went on writing after the run had exited.)
{
    echo '#!/usr/bin/env bash'
    printf 'case " $* " in *" --start "*)\n    set -m\n'
    printf '    (sleep 3; echo late >>%q) &\n    touch %q ;;\nesac\n' "$PWD/late" "$PWD/straggling"
    printf 'exec %q "$@"\n' "$R"
} >straggler
chmod +x straggler
# (env --default-signal: a script cannot trap a signal ignored when it starts, and a suite
# run under nohup hands SIGHUP down ignored; render-parallel run under nohup should outlive a
# hangup, so here it is given SIGHUP's default as from a terminal.)
for sig in TERM:143 HUP:129; do # (SIGHUP: a farm host's ssh session dropped)
    rm -rf late straggling .o3.mkv.chunks
    ROCKPOOL=$PWD/straggler env --default-signal=HUP "$RP" -k 4 -j 2 -o o3.mkv -- long.scene -c ffv1 2>rp.err &
    pid=$!
    for _ in $(seq 3000); do
        [ ! -e straggling ] && kill -0 $pid 2>/dev/null || break
        sleep 0.02
    done
    kill -"${sig%:*}" $pid
    wait $pid
    rc=$?
    sleep 4
    check "SIG${sig%:*} while a chunk's own process runs: exit ${sig#*:} (got $rc)" test $rc = "${sig#*:}"
    check "... that process is ended too (nothing written after the stop)" test ! -e late
done

# --aov sequences: a file that appears at an AOV frame is kept (without -y) and the run
# leaves none of the AOV frames; with -y a directory there is left as it is.
mkdir aov
extra=(--aov height 'aov/h_%04d.png')
appears aov/h_0007.png file o.mkv
check "an AOV sequence refused at the end leaves none of its frames" test -z "$(ls -A aov)"
appears aov/h_0007.png dir o.mkv -y
check "... with -y too" test -z "$(ls -A aov)"
extra=(--aov=normal 'aovmade/n_%04d.png')
rm -rf o.mkv .*.chunks chunk-running go
# gated, as in appears: a busy machine may otherwise finish the chunks before these appear
ROCKPOOL=$PWD/gated "$RP" -k 4 -j 2 -o o.mkv -- s.scene -c ffv1 "${extra[@]}" 2>rp.err &
pid=$!
chunk_running $pid
echo mine >aovmade/notes.txt
echo precious >aovmade/n_0003.png
touch go
wait $pid
rc=$?
check "files appeared in an AOV directory it created: exit 1 (got $rc)" test $rc = 1
check "... the message names the frame" grep -qF 'aovmade/n_0003.png' rp.err
check "... both are kept, and nothing else is there" \
    test "$(cat aovmade/notes.txt aovmade/n_0003.png 2>/dev/null | tr '\n' ' ')" = "mine precious " \
    -a "$(ls -A aovmade | wc -l)" = 2
check "... no joined video" test ! -e o.mkv
claims_true "files appeared in an AOV directory it created" .
extra=()
# The AOV frames of a parallel run are the single run's.
rm -rf .*.chunks
"$R" -q s.scene -c ffv1 --aov height 'a1/h_%04d.png' -o single.mkv
expect_status "a plain run with --aov" 0 "$RP" -k 4 -j 2 -o ok2.mkv -- s.scene -c ffv1 \
    --aov height 'a2/h_%04d.png'
check "... its AOV frames are the single run's" cmp -s \
    <(ffmpeg -v error -i 'a1/h_%04d.png' -f framemd5 - | grep -v '^#') \
    <(ffmpeg -v error -i 'a2/h_%04d.png' -f framemd5 - | grep -v '^#')
check "... 40 of them" test "$(ls a2 | wc -l)" = 40
