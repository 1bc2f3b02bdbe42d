#!/usr/bin/env bash
# slurm-array.sh - render a rockpool clip as a Slurm array job, one chunk per task, then check
# and join the chunks without re-encoding (scripts/rockpool-join). Submit from a directory
# every node can see (the repository's, or one with rockpool on PATH):
#
#   sbatch --array=0-15 examples/slurm-array.sh examples/rain.scene out.mkv [OPTION]...
#   # when the tasks are done (or chain it: sbatch --dependency=afterok:JOBID ...):
#   JOIN=1 bash examples/slurm-array.sh examples/rain.scene out.mkv [OPTION]...
#
# OPTIONs are rockpool's (-s 1920x1080 -c libx265 --crf 20 -i clip.mp4 ...), the same for
# the tasks and the join. OUTPUT is a video (.mp4 .mkv .mov .webm), a framemd5 file, or a
# PNG pattern (frames/f_%05d.png: each task writes its frames into a directory of its own,
# and the join moves them to the pattern once every chunk is complete and of this run).
#
# The chunk count is the array's own (--array=0-15 or 1-16: 16 chunks; a task's chunk is
# its index from the array's first), or CHUNKS (CHUNKS=16 with --array=0-7, then 8-15: a
# task's chunk is its index from 0). The tasks record it in OUTPUT's chunk
# directory (.OUTPUT.chunks), so one task resubmitted alone (sbatch --array=3 ...) and the
# join use the same split. A task whose chunk is already complete does nothing, so a
# requeued or resubmitted array renders only what is missing; a chunk stopped by SIGTERM
# is never kept under its final name. The join refuses a missing, short or stale chunk,
# naming it; after a join the chunk directory and the tasks' logs are removed. Side outputs
# (--aov, --stats, --dump-heights, --save-state, --verify, --hash) are refused (exit 2).
#SBATCH --job-name=rockpool
#SBATCH --output=rockpool-%j.log
set -euo pipefail

usage="usage: slurm-array.sh SCENE OUTPUT [ROCKPOOL OPTION]..."
scene=${1:?$usage}
output=${2:?$usage}
shift 2
opts=("$@")
die() { echo "slurm-array.sh: error: $*" >&2; exit "${status:-1}"; }

# rockpool and rockpool-join: ROCKPOOL, PATH, or the repository's build (sbatch runs a copy
# of this script, so the repository is looked for from the submit directory too).
repo=""
for d in "$(cd "$(dirname "$0")/.." && pwd)" "${SLURM_SUBMIT_DIR:-$PWD}"; do
    if [ -x "$d/scripts/rockpool-join" ]; then repo=$d; break; fi
done
rockpool=${ROCKPOOL:-}
if [ -z "$rockpool" ]; then
    if [ -n "$repo" ] && [ -x "$repo/build/rockpool" ]; then rockpool=$repo/build/rockpool
    elif command -v rockpool >/dev/null; then rockpool=rockpool
    else die "rockpool not found: build it (make) or set ROCKPOOL"; fi
fi
join=${ROCKPOOL_JOIN:-${repo:+$repo/scripts/rockpool-join}}
[ -n "$join" ] || join=$(command -v rockpool-join) || die "scripts/rockpool-join not found: submit from the repository"

# Side outputs would be written by every task (and by the reference renders, with -y):
# refused here; render them in a run of their own, or use scripts/render-parallel.
for o in "${opts[@]}"; do
    case $o in
    --aov | --aov=* | --stats | --stats=* | --dump-heights | --dump-heights=* | --save-state | \
        --save-state=* | --verify | --verify=* | --verify-ref | --verify-ref=* | --hash)
        status=2 die "$o: every task would write it; render side outputs in a run of their own (or use scripts/render-parallel, which handles --aov)" ;;
    esac
done

case $output in
*%*d*.png | *%*d*.PNG) kind=png; ext=png ;;
*.mp4 | *.mkv | *.mov | *.webm) kind=video; ext=${output##*.} ;;
*.framemd5 | *.md5) kind=framemd5; ext=${output##*.} ;;
*) status=2 die "'$output' is neither a video, a framemd5 file nor a PNG pattern" ;;
esac
fmt=()
[ $kind != framemd5 ] || fmt=(-f framemd5)
overwrite=""
for o in "${opts[@]}"; do [ "$o" != -y ] || overwrite=-y; done
dir=$(dirname "$output")/.$(basename "$output" | tr '%' '_').chunks
mkdir -p "$dir" "$(dirname "$output")"
frames=$("$rockpool" "$scene" "${opts[@]}" --check | sed -n 's/^frames: *\([0-9]*\).*/\1/p')
[ -n "$frames" ] || die "cannot read the frame count of $scene"

# The split: CHUNKS, or the array's own range; a task alone (a resubmission) uses the one
# recorded by the first array. With CHUNKS, the array's index is the chunk's number from 0,
# unless the array covers every chunk (CHUNKS=8 with --array=1-8 counts from 1), so
# CHUNKS=8 can be run as --array=0-3 then --array=4-7.
plan=$dir/plan
chunks=${CHUNKS:-}
base=""
planned=()
[ ! -f "$plan" ] || read -r -a planned <"$plan"
# The plan's words are data: plain decimals, checked before any arithmetic.
for w in ${planned[@]+"${planned[@]}"}; do
    [[ $w =~ ^[0-9]{1,9}$ ]] || die "$plan: '$w' is not a plain decimal (a damaged plan: remove it)"
done
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    size=$((SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1))
    if [ -z "$chunks" ] && [ "$size" = 1 ] && [ ${#planned[@]} = 2 ]; then
        chunks=${planned[0]} base=${planned[1]}
    fi
    [ -n "$chunks" ] || chunks=$size
    if [ -z "$base" ]; then
        if [ "$size" = "$chunks" ]; then base=$SLURM_ARRAY_TASK_MIN
        elif [ "${planned[0]:-}" = "$chunks" ]; then base=${planned[1]}
        else base=0; fi
    fi
    if [ "$size" = "$chunks" ] || [ -n "${CHUNKS:-}" ]; then
        echo "$chunks $base" >"$plan.$SLURM_ARRAY_TASK_ID"
        mv -f "$plan.$SLURM_ARRAY_TASK_ID" "$plan"
    fi
elif [ -z "$chunks" ] && [ ${#planned[@]} = 2 ]; then
    chunks=${planned[0]}
fi
[ -n "$chunks" ] || die "no chunk count: run through sbatch --array, or give CHUNKS"
[[ $chunks =~ ^[1-9][0-9]*$ ]] || status=2 die "CHUNKS: '$chunks' is not a count"
[ "$chunks" -le "$frames" ] || die "$chunks chunks for $frames frames: use at most $frames tasks"
range() { echo "$((frames * $1 / chunks)) $((frames * ($1 + 1) / chunks))"; }

# A chunk: a file, or for PNG frames a directory named so.
chunk_of() { if [ $kind = png ]; then echo "$dir/$1_$2"; else echo "$dir/$1_$2.$ext"; fi; }

if [ "${JOIN:-0}" = 1 ]; then
    # The chunks must have this run's settings: a reference of its first frame.
    like=$dir/like.$ext
    "$rockpool" -q -y "$scene" "${opts[@]}" "${fmt[@]}" --frame-range 0 -o "$like"
    list=()
    for ((i = 0; i < chunks; i++)); do list+=("$(chunk_of chunk $i)"); done
    "$join" $overwrite --like "$like" --frames "$frames" -o "$output" "${list[@]}"
    rm -rf "$dir"
    echo "slurm-array.sh: $frames frames in $chunks chunks -> $output" >&2
    exit 0
fi

[ -n "${SLURM_ARRAY_TASK_ID:-}" ] || die "run through sbatch --array, or with JOIN=1 to join"
i=$((SLURM_ARRAY_TASK_ID - base))
if [ "$i" -lt 0 ] || [ "$i" -ge "$chunks" ]; then
    die "task $SLURM_ARRAY_TASK_ID is outside the $chunks chunks (array from $base)"
fi
read -r start end <<<"$(range $i)"
threads=(-j "${SLURM_CPUS_PER_TASK:-$(nproc)}")
chunk=$(chunk_of chunk $i)
part=$(chunk_of part $i)
# A chunk already there is kept when it is complete and of this run's scene and settings
# (checked against this task's own render of frame 0).
like=$dir/like_$i.$ext
trap 'rm -rf "$part" "$like"' EXIT
sha=()
[ ! -f "$scene" ] || sha=(--scene-sha256 "$(sha256sum <"$scene" | cut -c1-64)")
if [ -e "$chunk" ] &&
    "$rockpool" -q -y "$scene" "${opts[@]}" "${fmt[@]}" --frame-range 0 -o "$like" &&
    "$join" --check "${sha[@]}" --like "$like" --range "$start-$((end - 1))/$frames" "$chunk" \
        2>/dev/null; then
    echo "slurm-array.sh: chunk $i (frames $start-$((end - 1))) is already complete"
else
    # Written under the part_ name and renamed once complete: a task stopped by scancel or
    # preemption (SIGTERM) leaves no chunk under its final name.
    target=$part
    if [ $kind = png ]; then
        rm -rf "$part"
        mkdir "$part"
        target=$part/$(basename "$output")
    fi
    # scancel and preemption send SIGTERM to the task's every process: rockpool finishes its
    # file (short) and this shell waits for it before removing it.
    "$rockpool" -q -y "${threads[@]}" "$scene" "${opts[@]}" "${fmt[@]}" --start "$start" \
        --end "$end" -o "$target" &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; rm -rf "$part" "$like"; exit 143' TERM INT
    rc=0
    wait "$child" || rc=$?
    trap - TERM INT
    [ "$rc" = 0 ] || exit "$rc"
    rm -rf "$chunk"
    mv -f "$part" "$chunk"
fi
# A task that succeeded leaves no log (the failed ones keep theirs).
log=$PWD/rockpool-${SLURM_JOB_ID:-}.log
[ -z "${SLURM_JOB_ID:-}" ] || rm -f "$log"
