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
fi
