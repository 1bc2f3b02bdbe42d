# tests/cli/lib.sh - helpers sourced by every CLI test script (tests/cli/*.sh).
# The runner sets ROCKPOOL (the binary) and gives each script a fresh WORK directory,
# removed on exit. A script calls ok/bad per check; the last line it prints is
# "cli-summary: PASSED FAILED" for tests/run-all to add up.
set -u
: "${ROCKPOOL:?ROCKPOOL must name the rockpool binary}"
ROCKPOOL=$(cd "$(dirname "$ROCKPOOL")" && pwd)/$(basename "$ROCKPOOL")
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rockpool-cli.XXXXXX")
cli_passed=0
cli_failed=0
# A script that stops early (set -u, a failed cd, a crash) counts as one more failure.
cli_exit() {
    local rc=$1 f
    # A sanitizer report from any run of the script fails it, whatever that run's status.
    for f in "$WORK"/.sanitizer.*; do
        [ -e "$f" ] || continue
        cli_failed=$((cli_failed + 1))
        echo "[  FAILED  ] a sanitizer reported (pid ${f##*.}):"
        head -n 40 "$f" | sed 's/^/    /'
    done
    rm -rf "$WORK"
    if [ "$rc" -ne 0 ]; then
        cli_failed=$((cli_failed + 1))
        echo "[  FAILED  ] $(basename "$0") stopped early (exit $rc)"
    fi
    echo "cli-summary: $cli_passed $cli_failed"
}
trap 'cli_exit $?' EXIT
cd "$WORK" || exit 1
# Sanitizer builds write their reports into WORK, where cli_exit finds them (a report on a
# stderr that a check discards, or in a run expected to fail, would pass unseen).
for v in ASAN_OPTIONS UBSAN_OPTIONS; do
    export "$v=${!v:+${!v}:}log_path=$WORK/.sanitizer"
done

ok() { cli_passed=$((cli_passed + 1)); echo "[       OK ] $*"; }
bad() { cli_failed=$((cli_failed + 1)); echo "[  FAILED  ] $*"; }

# check NAME COMMAND...: passes when the command exits 0.
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

# expect_status NAME STATUS COMMAND...: runs the command (stdout/stderr to $WORK/out, err),
# passes when it exits with STATUS.
expect_status() {
    local name=$1 want=$2 got
    shift 2
    "$@" >"$WORK/out" 2>"$WORK/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else
        bad "$name (exit $got, wanted $want)"
        sed 's/^/    /' "$WORK/err" | head -5
    fi
}

# stderr_has NAME FRAGMENT: the last expect_status's stderr contains FRAGMENT.
stderr_has() {
    if grep -qF -- "$2" "$WORK/err"; then ok "$1"; else
        bad "$1 (stderr lacks '$2')"
        sed 's/^/    /' "$WORK/err" | head -5
    fi
}

# differ NAME A B: both files exist, are not empty, and differ.
differ() {
    if [ -s "$2" ] && [ -s "$3" ] && ! cmp -s "$2" "$3"; then ok "$1"; else
        bad "$1 ($2 and $3 missing, empty or equal)"
    fi
}

# probe FILE ENTRY: one value from ffprobe's first video stream (e.g. nb_read_frames).
probe() {
    ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream="$2" -of default=nokey=1:noprint_wrappers=1 "$1"
}

# pool_scene FILE [SIZE [LINE...]]: a scene (160x96 unless SIZE, with LINEs after the size)
# with drops from the first frame and rain after (layers.sh, sky_and_walls.sh).
pool_scene() {
    local file=$1
    printf 'size %s\n' "${2:-160x96}" >"$file"
    [ $# -gt 2 ] && printf '%s\n' "${@:3}" >>"$file"
    cat >>"$file" <<'EOF'
fps 30
duration 8f
seed 7
at 0s      drop 50% 50% radius 12 height 1200
at 0f      drop 20% 30% radius 6 height -900
at 0.1s..4s rain rate 30/s radius 3..9 height 300..900
EOF
}

# same_everywhere NAME SCENE SIZE JOBS...: --hash of SCENE at SIZE equals the -j 1 --simd c
# render at each thread count in JOBS and at every vector level.
same_everywhere() {
    local name=$1 scene=$2 size=$3 j level
    shift 3
    "$ROCKPOOL" -q "$scene" -s "$size" -j 1 --simd c --hash -f framemd5 -o /dev/null \
        >"$WORK/ref.hash" ||
        bad "$name: the reference render"
    for j in "$@"; do
        for level in c sse2 avx2 avx512 avx512icl; do
            "$ROCKPOOL" -q "$scene" -s "$size" -j "$j" --simd $level --hash -f framemd5 -o /dev/null \
                >"$WORK/got.hash" 2>/dev/null
            check "$name: -j $j --simd $level equals -j 1 --simd c" \
                cmp -s "$WORK/got.hash" "$WORK/ref.hash"
        done
    done
}

# refuse_scene NAME FRAGMENT LINE...: a 160x96, 1 s scene of these lines is refused with
# exit 2, FRAGMENT (its file:line:col or reason) on stderr, and no output created.
refuse_scene() {
    local name=$1 fragment=$2
    shift 2
    printf '%s\n' "size 160x96" "duration 1s" "$@" >"$WORK/bad.scene"
    rm -f "$WORK/bad.mp4"
    expect_status "refused: $name" 2 "$ROCKPOOL" bad.scene -o bad.mp4
    stderr_has "refused: $name says why" "$fragment"
    check "refused: $name writes nothing" test ! -e "$WORK/bad.mp4"
}

# dir_snapshot: every entry under the current directory with its size, time and link.
# catches PID SIGNUM: the process has a handler of its own for the signal (bit SIGNUM - 1
# of /proc's SigCgt mask, checked as hex digits before any arithmetic).
catches() {
    local m
    m=$(awk '/^SigCgt:/ { print $2 }' /proc/"$1"/status 2>/dev/null)
    [[ $m =~ ^[0-9a-fA-F]{1,16}$ ]] && (((16#$m >> ($2 - 1)) & 1))
}

dir_snapshot() { find . -printf '%p %s %T@ %l\n' | sort; }

# interrupt NAME PID LIMIT_MS: SIGINT to PID (a child of this shell), which must end with
# exit 130 within LIMIT_MS; one that goes on is killed after 10 s (and fails), so a
# script never hangs on it. Returns 1 when it failed.
interrupt() {
    local name=$1 pid=$2 limit=$3 t0 rc ms
    t0=$(date +%s%N)
    kill -INT "$pid"
    for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    wait "$pid"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$rc" -eq 130 ] && [ "$ms" -lt "$limit" ]; then ok "$name: stopped in $ms ms"; else
        bad "$name: exit $rc after $ms ms (wanted 130 within $limit ms)"
        return 1
    fi
}

# refused_unchanged NAME FRAGMENT ARGS...: rockpool -q ARGS exits 2 with FRAGMENT on
# stderr, and the current directory is exactly as it was (paths.sh, hardening4.sh).
refused_unchanged() {
    local name=$1 fragment=$2 before
    shift 2
    before=$(dir_snapshot)
    expect_status "$name: exit 2" 2 "$ROCKPOOL" -q "$@"
    stderr_has "$name: message" "$fragment"
    if [ "$(dir_snapshot)" = "$before" ]; then ok "$name: nothing changed"; else
        bad "$name: the directory changed"
        diff <(echo "$before") <(dir_snapshot) | head -5 | sed 's/^/    /'
    fi
}

# onset FILE [AFTER]: the seconds from FILE's first video frame to its first audio sample
# over 0.02 (a tone's start) at or after AFTER seconds (default 0), as FFmpeg places the
# decoded sound by its timestamps (aresample async=1 with first_pts=0 fills the time before
# the first sample, and gaps, with silence, as a player waits); "none" when there is none.
onset() {
    local v
    v=$(ffprobe -v error -select_streams v:0 -read_intervals %+#1 \
        -show_entries frame=best_effort_timestamp_time -of default=nw=1:nk=1 "$1" | grep -m 1 .)
    ffmpeg -v error -i "$1" -map 0:a:0 -af aresample=async=1:first_pts=0 -ac 1 -ar 48000 \
        -f f32le - | python3 -c '
import sys, array
a = array.array("f", sys.stdin.buffer.read()); v = float(sys.argv[1])
i = next((k for k in range(int((float(sys.argv[2]) + v) * 48000), len(a)) if abs(a[k]) > 0.02), None)
print("none" if i is None else "%.4f" % (i / 48000 - v))' "${v:-0}" "${2:-0}"
}
