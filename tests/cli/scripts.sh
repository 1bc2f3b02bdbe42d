#!/usr/bin/env bash
# scripts.sh - every program in scripts/ answers --help with its usage on stdout (exit 0)
# and a bad argument with a message on stderr (exit 2), never a Python traceback; then
# plot-stats on a real --stats CSV and on files that are not one. The scripts run from a
# copy in WORK, so one that ignored its arguments would not touch the tree.
source "$(dirname "$0")/lib.sh"

mkdir -p tree && cp -r "$TOP/scripts" tree/
for s in tree/scripts/*; do
    name=$(basename "$s")
    expect_status "$name --help: exit 0" 0 "$s" --help
    check "$name --help: a usage on stdout" grep -q '^Usage: ' out
    check "$name --help: nothing on stderr" test ! -s err
    expect_status "$name --no-such-option: exit 2" 2 "$s" --no-such-option
    check "$name --no-such-option: a message on stderr" test -s err
    check "$name --no-such-option: no traceback" sh -c '! grep -q Traceback err'
done

P=tree/scripts/plot-stats
expect_status "plot-stats without arguments: exit 2" 2 "$P"
check "plot-stats without arguments: the usage, no traceback" sh -c \
    'grep -q "^Usage: " err && ! grep -q Traceback err'
expect_status "plot-stats with one argument: exit 2" 2 "$P" s.csv
expect_status "plot-stats on a missing CSV: exit 2" 2 "$P" nosuch.csv o.svg
stderr_has "plot-stats on a missing CSV: names it" "nosuch.csv"
printf 'frame,time,energy\n0,0.0,x\n' >bad.csv
expect_status "plot-stats on a CSV with a word: exit 2" 2 "$P" bad.csv o.svg
stderr_has "plot-stats on a CSV with a word: the line" "bad.csv:2:"
: >empty.csv
expect_status "plot-stats on an empty CSV: exit 2" 2 "$P" empty.csv o.svg
check "plot-stats: no SVG from bad input" test ! -e o.svg
"$ROCKPOOL" -q -n 20 --stats s.csv
expect_status "plot-stats on rockpool's --stats: exit 0" 0 "$P" s.csv o.svg
check "plot-stats: an SVG with a panel per column" test "$(grep -c '<polyline' o.svg)" = 3

# render-parallel refuses what the run would refuse before any chunk renders (exit 2,
# nothing created): a PNG pattern with two conversions, and --aov frames that exist
# without -y (which the chunks, run with -y into their own directory, would replace).
if command -v parallel >/dev/null; then
    RP=tree/scripts/render-parallel
    mkdir -p rpar && printf 'size 96x64\nfps 10\nduration 6f\nat 0s drop 50%% 50%% radius 5 height 900\n' >rpar/s.scene
    expect_status "render-parallel: a pattern with two conversions: exit 2" 2 \
        env ROCKPOOL="$ROCKPOOL" "$RP" -k 2 -j 1 -o rpar/f_%d_%d.png -- rpar/s.scene
    stderr_has "render-parallel: says so" "more than one conversion"
    check "render-parallel: nothing created" test "$(ls -A rpar)" = s.scene
    : >rpar/h_0.png
    expect_status "render-parallel: --aov frames that exist: exit 2" 2 \
        env ROCKPOOL="$ROCKPOOL" "$RP" -k 2 -j 1 -o rpar/f_%d.png -- rpar/s.scene --aov height rpar/h_%d.png
    stderr_has "render-parallel: names the frame" "h_0.png' already exists"
    check "render-parallel: the existing frame untouched, nothing created" \
        test "$(ls -A rpar | tr '\n' ' ')" = "h_0.png s.scene " -a ! -s rpar/h_0.png
    expect_status "render-parallel: with -y it renders" 0 \
        env ROCKPOOL="$ROCKPOOL" "$RP" -k 2 -j 1 -y -o rpar/f_%d.png -- rpar/s.scene --aov height rpar/h_%d.png
    check "render-parallel: 6 frames and 6 height frames" test "$(ls rpar | grep -c '^[fh]_')" = 12

    # Its default job slots and threads a chunk are the CPUs rockpool counts (the affinity
    # mask and the cgroup's CPU quota, which nproc does not see): a rockpool whose --check
    # says "threads: 1" gets one slot (4 chunks) and, with -j 1, chunks of -j 1; one that
    # says something other than a plain number below 64 leaves nproc's count (and runs
    # nothing it says).
    cpus=$(nproc)
    printf 'size 96x64\nfps 10\nduration 24f\nat 0s drop 50%% 50%% radius 5 height 900\n' >rpar/c.scene
    for says in 1 '$(touch pwned)' 99999 64; do
        {
            echo '#!/usr/bin/env bash'
            printf 'case " $* " in *" --start "*) echo "$*" >>%q ;; esac\n' "$PWD/rpar/calls"
            printf 'if [ "$*" = "--preset elias --check" ]; then %q "$@" | sed %q; exit; fi\n' \
                "$ROCKPOOL" "s/^threads: .*/threads: $says/"
            printf 'exec %q "$@"\n' "$ROCKPOOL"
        } >says_cpus
        chmod +x says_cpus
        want=$cpus
        [ "$says" != 1 ] || want=1
        rm -f rpar/calls rpar/o.framemd5
        expect_status "render-parallel, rockpool counts '$says' CPUs: exit 0" 0 \
            env ROCKPOOL="$PWD/says_cpus" "$RP" -o rpar/o.framemd5 -- rpar/c.scene
        check "render-parallel, rockpool counts '$says' CPUs: $((4 * want)) chunks (4 a slot)" \
            test "$(wc -l <rpar/calls)" = $((4 * want))
        rm -f rpar/calls rpar/o.framemd5
        expect_status "render-parallel -j 1, rockpool counts '$says' CPUs: exit 0" 0 \
            env ROCKPOOL="$PWD/says_cpus" "$RP" -j 1 -k 2 -o rpar/o.framemd5 -- rpar/c.scene
        check "render-parallel -j 1, rockpool counts '$says' CPUs: chunks of -j $want" \
            test "$(grep -c -- " -j $want " rpar/calls)" = 2
    done
    check "render-parallel: a count that is not a number runs nothing" test ! -e pwned

    # Names are data: GNU parallel reads {...} in its command as replacement strings and
    # {=...=} as Perl, and %q quotes a name with a control character as $'...', braces
    # bare. A scene, an output directory and an AOV pattern with such names render, and
    # run nothing.
    mkdir -p inj
    sc=$'inj/s\x01{=system("touch PWNED")=}{1}.scene'
    cp rpar/c.scene "$sc"
    od=$'inj/o\x01{=system("touch PWNED")=}'
    mkdir -p "$od"
    expect_status "render-parallel: names with {=...=} and a control character: exit 0" 0 \
        env ROCKPOOL="$ROCKPOOL" "$RP" -k 3 -j 2 -o "$od/f_%02d.png" -- "$sc" --aov height "$od/h_%02d.png"
    check "render-parallel: such names run nothing" test ! -e PWNED -a ! -e inj/PWNED
    check "render-parallel: such names: 24 frames and 24 height frames, where named" \
        test "$(ls "$od" | grep -c '^[fh]_[0-9][0-9]\.png$')" = 48
    check "render-parallel: such names: the chunks' directory removed" \
        test "$(find inj -name '.*chunks' | wc -l)" = 0

    # A chunks directory that was there before keeps what this run did not write in it.
    mkdir -p pre/.o.framemd5.chunks
    echo mine >pre/.o.framemd5.chunks/notes.txt
    expect_status "render-parallel: a chunks directory with other files: exit 0" 0 \
        env ROCKPOOL="$ROCKPOOL" "$RP" -k 2 -j 1 -o pre/o.framemd5 -- rpar/c.scene
    check "render-parallel: the other file and its directory are kept" \
        test "$(cat pre/.o.framemd5.chunks/notes.txt)" = mine -a "$(ls -A pre/.o.framemd5.chunks)" = notes.txt
    stderr_has "render-parallel: says the directory is kept" ".o.framemd5.chunks: kept"
    check "render-parallel: the output is whole (24 frames)" test "$(grep -vc '^#' pre/o.framemd5)" = 24
fi
