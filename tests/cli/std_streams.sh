#!/usr/bin/env bash
# std_streams.sh - closed and full standard streams: a closed stdin, stdout or stderr is
# never taken by an output file (so --hash lines, progress and messages never land inside
# a video, a Y4M or a framemd5), a write to stdout that fails gives a non-zero exit, and
# stdout or --progress-fd open on an input (>>, <>) is refused before it is written.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
printf 'size 48x32\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >s.scene
"$R" -q s.scene -o ref.y4m || bad "the reference render"
"$R" -q s.scene -f framemd5 -o ref.md5 || bad "the reference framemd5"
# closed FD COMMAND...: runs COMMAND with descriptor FD closed (in a subshell, so the
# script's own descriptors stay open).
closed() (
    fd=$1
    shift
    eval "exec $fd>&-"
    "$@"
)

# stdout closed: the --hash lines cannot go anywhere, so the run fails and leaves no output.
for o in out.y4m out.mkv; do
    rm -f "$o"
    expect_status "stdout closed, --hash, -o $o: exit 1" 1 closed 1 "$R" -q s.scene --hash -o "$o"
    check "stdout closed, --hash: no $o left" test ! -e "$o"
done
rm -f out.md5
"$R" -q s.scene --hash -f framemd5 -o out.md5 >&- 2>/dev/null
check "stdout closed, --hash -f framemd5: no hash line inside out.md5" \
    sh -c '! test -e out.md5 || cmp -s out.md5 ref.md5'
# Nothing written to stdout: the render is as usual.
rm -f out.y4m
expect_status "stdout closed, no --hash: exit 0" 0 closed 1 "$R" -q s.scene -o out.y4m
check "stdout closed, no --hash: the Y4M equals the reference" cmp -s out.y4m ref.y4m

# stderr closed: progress and messages never go into the output.
rm -f out.y4m
"$R" s.scene --progress -o out.y4m 2>&-
check "stderr closed, --progress: the Y4M equals the reference" cmp -s out.y4m ref.y4m
rm -f out.md5
"$R" s.scene --progress -f framemd5 -o out.md5 2>&-
check "stderr closed, --progress: the framemd5 equals the reference" cmp -s out.md5 ref.md5

# stdin closed: the output is not taken for stdin, the render is as usual.
rm -f out.y4m
expect_status "stdin closed: exit 0" 0 closed 0 "$R" -q s.scene -o out.y4m
check "stdin closed: the Y4M equals the reference" cmp -s out.y4m ref.y4m

# All three closed at once.
rm -f out.y4m
(exec <&- >&- 2>&-; "$R" s.scene --progress --hash -o out.y4m)
check "all three closed, --hash: no out.y4m left" test ! -e out.y4m

# A full stdout: --check and --help report the failed write.
if [ -w /dev/full ]; then
    expect_status "--check >/dev/full: exit 1" 1 sh -c '"$0" --check s.scene >/dev/full' "$R"
    stderr_has "--check >/dev/full: says so" "stdout"
    expect_status "--help >/dev/full: exit 1" 1 sh -c '"$0" --help >/dev/full' "$R"
    expect_status "--version >/dev/full: exit 1" 1 sh -c '"$0" --version >/dev/full' "$R"
    expect_status "--hash -o /dev/null >/dev/full: exit 1" 1 \
        sh -c '"$0" -q s.scene --hash -f y4m -o /dev/null >/dev/full' "$R"
fi

# A name standing for stdout (a link to /proc/self/fd/1, /dev/fd/1, /dev/stdout) with
# stdout redirected to a regular file: written through, the name never renamed over.
ln -s /proc/self/fd/1 out-link
for name in out-link /dev/fd/1 /dev/stdout; do
    rm -f through.y4m
    expect_status "-o $name -y, stdout a file: exit 0" 0 \
        sh -c '"$0" -q s.scene -f y4m -o "$1" -y >through.y4m' "$R" "$name"
    check "-o $name -y: the file behind stdout holds the Y4M" cmp -s through.y4m ref.y4m
done
check "-o out-link -y: the link is still a link" test -L out-link
check "-o /dev/stdout -y: /dev/stdout is not a regular file" test ! -f /dev/stdout -o -L /dev/stdout

# Another name for stdout (/dev/stdout, /proc/self/fd/1) is stdout: --hash lines and
# --progress-fd 1 blocks would land inside the data written there, so such runs are refused
# (exit 2) and write nothing to the pipe; each output alone there is clean (ffmpeg and wc read
# it back).
# piped NAME STATUS ARGS...: rockpool ARGS with stdout a pipe into piped.out; exit STATUS
piped() {
    local name=$1 want=$2 got
    shift 2
    "$R" -q s.scene "$@" 2>"$WORK/err" | cat >piped.out
    got=${PIPESTATUS[0]}
    if [ "$got" -eq "$want" ]; then ok "$name: exit $want"; else
        bad "$name: exit $got, wanted $want"
        sed 's/^/    /' "$WORK/err" | head -3
    fi
    [ "$want" -eq 0 ] || check "$name: nothing on the pipe" test ! -s piped.out
}
piped "--hash -o /dev/stdout -f y4m" 2 --hash -o /dev/stdout -f y4m
stderr_has "--hash -o /dev/stdout: says --hash needs stdout" "--hash prints to stdout"
piped "--hash -o /proc/self/fd/1 -f y4m" 2 --hash -o /proc/self/fd/1 -f y4m
piped "--hash -o /dev/stdout, no -f" 2 --hash -o /dev/stdout
stderr_has "... names the output (it said 'the none output')" \
    "--hash prints to stdout, which the output '/dev/stdout' already uses"
piped "--hash -f framemd5 -o /dev/stdout" 2 --hash -f framemd5 -o /dev/stdout
piped "--hash --stats /dev/stdout" 2 --hash --stats /dev/stdout
stderr_has "--hash --stats /dev/stdout: says so" \
    "--stats '/dev/stdout' is stdout, where --hash prints its lines"
piped "--hash --dump-heights /dev/stdout" 2 --hash --dump-heights /dev/stdout
piped "--stats /dev/stdout --progress-fd 1" 2 --stats /dev/stdout --progress-fd 1
stderr_has "--stats /dev/stdout --progress-fd 1: says so" \
    "--progress-fd 1 would mix progress into --stats '/dev/stdout'"
piped "-o /dev/stdout -f y4m --progress-fd 1" 2 -o /dev/stdout -f y4m --progress-fd 1
piped "-o /dev/stdout -f y4m alone" 0 -o /dev/stdout -f y4m
check "-o /dev/stdout -f y4m alone: the reference Y4M" cmp -s piped.out ref.y4m
piped "--stats /dev/stdout alone" 0 --stats /dev/stdout --hash-algo md5 -f framemd5 -o /dev/null
check "--stats /dev/stdout alone: a header and 3 lines" test "$(wc -l <piped.out)" = 4
piped "--hash with --stats /dev/null" 0 --hash --stats /dev/null
check "--hash with --stats /dev/null: 3 hash lines" test "$(wc -l <piped.out)" = 3

# SCENE '-' on a terminal waits for a scene typed in: a line says so, and what writes to
# standard output instead ('-f mkv -', ffmpeg's way, reads the scene there and writes
# rockpool.mkv). It waited without a word. A pipe gets no line.
mkdir tty && cd tty || exit 1
python3 - "$R" >tty.txt 2>&1 <<'PY'
import os, pty, subprocess, sys, time
m, s = pty.openpty()
p = subprocess.Popen([sys.argv[1], '-s', '64x48', '-n', '1', '-f', 'mkv', '-'], stdin=s,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
time.sleep(0.5)
os.write(m, b'at 0s drop 50% 50% radius 3 height 300\n')
time.sleep(0.2)
os.write(m, b'\x04')
out, err = p.communicate(timeout=60)
print('exit', p.returncode)
sys.stdout.write(err.decode())
PY
check "SCENE '-' on a terminal: exit 0" grep -qx 'exit 0' tty.txt
check "... a line says the scene is read from the terminal, and how to write to stdout" \
    grep -qF "rockpool: warning: reading the scene from standard input, a terminal: type it and end it with Ctrl-D (SCENE '-'; to write to standard output, give -o -)" tty.txt
check "... the scene typed is rendered: rockpool.mkv, 1 frame (ffprobe)" \
    test "$(probe rockpool.mkv nb_read_frames)" = 1
echo 'at 0s drop 50% 50% radius 3 height 300' | "$R" -s 64x48 -n 1 -f mkv -y - 2>pipe.txt
check "... from a pipe: no such line" sh -c "! grep -q 'a terminal' pipe.txt"
cd .. || exit 1
# SCENE '-' without -o writes the default file, not standard output (ffmpeg's '-f mkv -'
# is -o - here): with standard output not a terminal, a warning line says where the video
# goes and what writes to standard output; not under -q, nor with -o, nor for --check.
rm -f rockpool.mkv
"$R" -f mkv - <s.scene >piped.out 2>"$WORK/err"
check "SCENE - -f mkv, stdout a pipe: exit 0, rockpool.mkv written (ffprobe: 3 frames)" \
    test "$(probe rockpool.mkv nb_read_frames)" = 3
check "... nothing on stdout" test ! -s piped.out
stderr_has "... a warning says where the video goes" \
    "rockpool: warning: writing rockpool.mkv: SCENE '-' is the scene, read from standard input, not the output (to write to standard output, give -o -)"
rm -f rockpool.mkv
"$R" -q -f mkv - <s.scene >piped.out 2>"$WORK/err"
check "... with -q: no warning" test ! -s "$WORK/err"
"$R" -f mkv -o - - <s.scene >piped.mkv 2>"$WORK/err"
check "... -o -: the video on stdout (ffprobe: 3 frames), no warning" test \
    "$(probe piped.mkv nb_read_frames)" = 3 -a -z "$(grep warning "$WORK/err")"
"$R" -f mkv -o own.mkv - <s.scene >piped.out 2>"$WORK/err"
check "... -o own.mkv: no warning" test -z "$(grep warning "$WORK/err")"
"$R" -f mkv - --check <s.scene >piped.out 2>"$WORK/err"
check "... --check: no warning" test -z "$(grep warning "$WORK/err")"
rm -f rockpool.mkv
if command -v script >/dev/null; then
    script -qec "'$R' -f mkv - <s.scene" /dev/null >tty.out 2>&1
    check "... stdout a terminal: rockpool.mkv written, no warning" \
        test -s rockpool.mkv -a -z "$(grep warning tty.out)"
fi

# Standard output (or the --progress-fd descriptor) opened on an input with >> or <>: the
# data would be appended to the scene or written over the background. Refused before
# anything is written: exit 2, a message naming the input, the input's bytes unchanged.
mkdir into && cd into || exit 1
printf 'size 48x32\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >a.scene
"$R" -q a.scene -n 1 -f png -o bg.png || bad "the background for the tests"
cp bg.png mask.png
cp bg.png sky.png
printf 'size 48x32\nduration 3f\nat 0f wall mask mask.png\n' >m.scene
printf 'size 48x32\nduration 3f\nrender light\nsky sky.png\n' >k.scene
"$R" -q a.scene -n 1 -o st.y4m --save-state st.bin || bad "the checkpoint for the tests"
"$R" -q a.scene -f framemd5 -o v.md5 || bad "the manifest for the tests"
# into_input NAME FILE REDIRECTION ARGS...: rockpool -q ARGS with the shell's REDIRECTION
# onto FILE, an input of the run: exit 2, FILE as it was, a message.
into_input() {
    local name=$1 file=$2 redir=$3
    shift 3
    cp "$file" saved
    sh -c '"$0" -q "$@" '"$redir" "$R" "$@" 2>"$WORK/err"
    check "$name: exit 2" test $? = 2
    check "$name: $file unchanged" cmp -s "$file" saved
    stderr_has "$name: names the input" "is open on"
    cp saved "$file" # (damaged, it would fail the checks after it too)
}
into_input "-o - >>scene" a.scene '>>a.scene' a.scene -n 3 -o -
into_input "-o - 1<>background" bg.png '1<>bg.png' a.scene -n 3 -i bg.png -o -
stderr_has "... the message names the background" \
    "standard output (-o -) is open on the background 'bg.png', an input of this run"
into_input "--hash >>scene" a.scene '>>a.scene' a.scene --hash -o h.y4m
check "... no h.y4m" test ! -e h.y4m
into_input "-f framemd5 without -o >>scene" a.scene '>>a.scene' a.scene -f framemd5
into_input "-f mkv -o - >>scene" a.scene '>>a.scene' a.scene -f mkv -o -
into_input "--progress-fd 3 3>>scene" a.scene '3>>a.scene' a.scene -o p.y4m --progress-fd 3
stderr_has "... the message names the descriptor and the scene" \
    "--progress-fd 3 is open on the scene 'a.scene'"
check "... no p.y4m" test ! -e p.y4m
into_input "-o - 1<>wall mask" mask.png '1<>mask.png' m.scene -o -
into_input "-o - >>sky image" sky.png '>>sky.png' k.scene -o -
into_input "-o - >>--load-state" st.bin '>>st.bin' a.scene -o - --load-state st.bin
into_input "--hash >>--verify manifest" v.md5 '>>v.md5' a.scene --hash --verify v.md5 \
    -o /dev/null -f y4m
into_input "SCENE - from the scene, -o - >>scene" a.scene '<a.scene >>a.scene' - -o -
# Into a new file, or progress into one: written as ever.
"$R" -q a.scene -o - >fresh.y4m
check "-o - >fresh.y4m: exit 0, the Y4M equals the reference" cmp -s fresh.y4m ../ref.y4m
rm -f p.y4m
"$R" -q a.scene -o p.y4m --progress-fd 3 3>>prog.txt
check "--progress-fd 3 3>>prog.txt: exit 0, progress=end" grep -q progress=end prog.txt
cd .. || exit 1
