# scene.sh - the scene language from the command line: stdin, --check, relative paths,
# diagnostics with file:line:col and a caret, and every tests/bad scene refused.
source "$(dirname "$0")/lib.sh"

printf 'size 64x48\nfps 24\nduration 2s\nseed 5\nat 0s..2s rain rate 10/s radius 2..4 height 100..300\nat 1s drop 50%% 50%% radius 5 height 900\nat 0s wall circle 10 10 4\nat 0.5s..1s stroke 5,5 -> 60,40 radius 2 height 200\n' \
    >good.scene

expect_status "--check exits 0" 0 "$ROCKPOOL" --check good.scene
check "--check prints size, fps and frames" sh -c "grep -q '^size: *64x48' '$WORK/out' &&
    grep -q '^fps: *24' '$WORK/out' && grep -q '^frames: *48 ' '$WORK/out'"
check "--check counts events by kind" grep -q '1 drop, 1 rain, 1 stroke, 1 wall' "$WORK/out"
check "--check counts rain drops (10/s over 2 s = 20)" grep -q '20 from rain' "$WORK/out"
check "--check creates no output" test ! -e rockpool.mp4

expect_status "scene from stdin" 0 sh -c "'$ROCKPOOL' - --check <good.scene"
check "stdin scene read" grep -q '^size: *64x48' "$WORK/out"

# The same seed gives the same rain; another seed another one.
"$ROCKPOOL" -q good.scene -f framemd5 -o a.md5
"$ROCKPOOL" -q good.scene -f framemd5 -o b.md5
"$ROCKPOOL" -q good.scene --seed 6 -f framemd5 -o c.md5
check "same seed, same frames" sh -c 'test -s a.md5 && cmp -s a.md5 b.md5'
differ "another seed, other frames" a.md5 c.md5

# `background` is relative to the scene file's directory.
mkdir -p sub
ffmpeg -v error -f lavfi -i testsrc=size=64x48 -frames:v 1 sub/bg.png
printf 'background bg.png\nduration 3f\n' >sub/bg.scene
expect_status "background relative to the scene" 0 "$ROCKPOOL" -q sub/bg.scene --check
check "background resolved to sub/bg.png" grep -q 'sub/bg.png' "$WORK/out"

# Diagnostics: file:line:col, what was expected, the line and a caret under the column.
printf 'size 64x48\n\nat 1s drpo 3 4\n' >typo.scene
expect_status "unknown action is exit 2" 2 "$ROCKPOOL" typo.scene -o t.mp4
stderr_has "error has file:line:col" "rockpool: typo.scene:3:7: error: unknown action 'drpo'"
stderr_has "error says what was expected" "expected"
check "the line is shown" grep -q '|  *at 1s drpo 3 4$' "$WORK/err"
check "the caret sits under column 7" grep -qE '^ +\|       \^$' "$WORK/err"
check "no output after a scene error" test ! -e t.mp4
# A message or line longer than the diagnostic keeps is cut, never inside a UTF-8
# character (a wall mask's path of 2-byte characters after 16 bytes: the message and the
# line kept end inside one); the caret counts characters, not bytes.
{ printf 'size 64x48\nat 0s wall mask '; for i in $(seq 300); do printf '\303\251'; done; printf '.png\n'; } >long.scene
expect_status "a long line of UTF-8: exit 2" 2 "$ROCKPOOL" long.scene --check
stderr_has "a long line of UTF-8: the mask is named" "cannot read wall mask"
check "a long line of UTF-8: the error is UTF-8" iconv -f UTF-8 -t UTF-8 "$WORK/err" -o /dev/null
printf 'size 64x48\nsky \303\251.png 2 flatx\n' >accent.scene
expect_status "a word after an accented one: exit 2" 2 "$ROCKPOOL" accent.scene --check
# 'flatx' is the line's 13th character (its 14th byte): the column and the caret count
# characters, the caret under the word's first letter
stderr_has "a word after an accented one: its character column" "accent.scene:2:13:"
check "the caret sits under the word's first character" grep -qE '^ +\| {13}\^$' "$WORK/err"
printf 'fps 30\nfps 25\n' >twice.scene
expect_status "a setting twice is exit 2" 2 "$ROCKPOOL" twice.scene --check
stderr_has "twice: names both lines" "twice.scene:2:1"
printf 'size 64x48\nat 0s drop 80 10 radius 3 height 100\n' >off.scene
expect_status "coordinates off the grid are exit 2" 2 "$ROCKPOOL" off.scene --check
stderr_has "off grid: line and column of the coordinate" "off.scene:2:12"
# Seed presets: -s is the scene's size too (version 1), so a coordinate can fall off it;
# the rockpool preset keeps the scene's coordinates and only scales the output.
expect_status "off the grid after -s shrinks it (seed preset)" 2 "$ROCKPOOL" good.scene \
    --preset elias -s 32x24 --check
expect_status "-s scales the rockpool preset's output only" 0 "$ROCKPOOL" good.scene -s 32x24 \
    --check

# Every scene in tests/bad fails with exit 2 at the line:col its first line states, with
# a message holding the text that follows it there.
for f in "$TOP"/tests/bad/*.scene; do
    want=$(sed -n '1s/^# expect: \([0-9]*:[0-9]*\).*/\1/p' "$f")
    msg=$(sed -n '1s/^# expect: [0-9]*:[0-9]* *//p' "$f" | tr -d '\r')
    "$ROCKPOOL" "$f" --check >/dev/null 2>err.txt
    status=$?
    if [ "$status" = 2 ] && [ -n "$msg" ] && grep -qF "$(basename "$f"):$want: error: " err.txt &&
        grep -qF -- "$msg" err.txt; then
        ok "bad scene $(basename "$f") at $want"
    else
        bad "bad scene $(basename "$f"): exit $status, wanted 2 at $want: $(head -c 200 err.txt)"
    fi
done
# A point in quotes is refused for its quotes (point-quoted*.scene): the hint '(no spaces)'
# it got was wrong for "10,10", which has none.
printf 'size 64x48\nat 0s..1s stroke "10,10" -> 20,20 radius 3 height 300\n' >qp.scene
expect_status "a quoted point: exit 2" 2 "$ROCKPOOL" qp.scene --check
check "... no '(no spaces)' hint" sh -c "! grep -q 'no spaces' '$WORK/err'"
stderr_has "... says the quotes are what is wrong" "a point is written without quotes, like 40,400"

# The golden rain drops pasted in tests/unit/test_scene.c are what the independent
# tests/tools/rain_ref.py prints for the command lines quoted above each table.
check "test_scene.c rain goldens equal rain_ref.py's output" python3 - "$TOP" <<'PY'
import re, subprocess, sys
top = sys.argv[1]
src = open(top + "/tests/unit/test_scene.c").read()
# "/*   rain_ref.py ARGS \ ARGS ... */ static const golden NAME[] = { ... };"
pat = re.compile(r"rain_ref\.py (.*?)(?:\(|\*/).*?static const golden (\w+)\[\] = \{(.*?)\};", re.S)
found = 0
for args, name, body in pat.findall(src):
    argv = re.sub(r"[\\*]", " ", args).split()
    out = subprocess.run([sys.executable, top + "/tests/tools/rain_ref.py"] + argv,
                         capture_output=True, text=True, check=True).stdout
    want = [l.split() for l in out.splitlines() if l and not l.startswith("#")]
    rows = [re.findall(r"-?\d+", r) for r in re.findall(r"\{([^{}]*)\}", body)]
    assert rows and rows == want[:len(rows)], (name, rows[:2], want[:2])
    found += 1
assert found == 3, found
PY

# A scene holds at most 4096 named paths: the 4097th is refused at its line (exit 2); it was
# "error: out of memory", exit 1, with no line.
{
    printf 'size 64x48\nduration 2f\n'
    for i in $(seq 0 4095); do printf 'path p%d 0,0 63,47\n' "$i"; done
    printf 'at 0f..2f stroke along p4095 radius 3 height 300\n'
} >paths4096.scene
expect_status "4096 paths: accepted" 0 "$ROCKPOOL" paths4096.scene --check
sed '$d' paths4096.scene >paths4097.scene
printf 'path p4096 0,0 63,47\nat 0f..2f stroke along p4096 radius 3 height 300\n' >>paths4097.scene
expect_status "4097 paths: refused (exit 2)" 2 "$ROCKPOOL" paths4097.scene --check
stderr_has "... at the 4097th, with the limit" \
    "paths4097.scene:4099:1: error: a scene has at most 4096 paths"
# A radius in percent is held to the 1..2048 pixels a radius in pixels is, once it is
# pixels of the width: 50% of 16384 is refused as 'radius 8192' is (file:line:col, exit 2,
# no output); 12.5% (2048 pixels) is taken.
printf 'size 16384x64\nduration 1f\nrate 100\nat 0s drop 5 5 radius 8192 height 100\n' >r8192.scene
expect_status "radius 8192: exit 2" 2 "$ROCKPOOL" r8192.scene --check --max-memory 16G
stderr_has "... out of range" "r8192.scene:4:23: error: radius 8192 is out of range (1..2048)"
sed 's/radius 8192/radius 50%/' r8192.scene >r50.scene
expect_status "radius 50% of 16384: exit 2" 2 "$ROCKPOOL" r50.scene -o r50.mp4 --max-memory 16G
stderr_has "... the same range, in pixels" \
    "r50.scene:4:23: error: radius 50% of the width 16384 is 8192 pixels, out of range (1..2048)"
check "... no output" test ! -e r50.mp4
printf 'size 16384x64\nduration 1f\nrate 100\nat 0s..1s rain rate 1/s radius 1%%..12.6%% height 1..2\n' >rrain.scene
expect_status "rain radius 1%..12.6% of 16384: exit 2" 2 "$ROCKPOOL" rrain.scene --check \
    --max-memory 16G
stderr_has "... the range's end" "rrain.scene:4:36: error: radius 12.6% of the width 16384 is 2064"
sed 's/radius 50%/radius 12.5%/' r50.scene >r125.scene
expect_status "radius 12.5% of 16384 (2048 pixels): taken" 0 "$ROCKPOOL" r125.scene --check \
    --max-memory 16G
