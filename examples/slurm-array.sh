#!/usr/bin/env bash
# slurm-array.sh - render a rockpool clip as a Slurm array job, one chunk per task, then check
# and join the chunks without re-encoding (scripts/rockpool-join). Submit from a directory
# every node can see (the repository's, or one with rockpool on PATH):
#
#   sbatch --array=0-15 examples/slurm-array.sh examples/rain.scene out.mkv [OPTION]...
#   # when the tasks are done (or chain it: sbatch --dependency=afterok:JOBID
#   # --kill-on-invalid-dep=yes ..., so a failed task cancels the join):
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
# is never kept under its final name. The join refuses a missing, short, damaged or stale
# chunk, naming it; after a join the chunk directory and the tasks' logs are removed. A join
# stopped by a signal (scancel, or SIGTERM to its shell alone) stops its rockpool and
# rockpool-join, writes no output and keeps the chunks for the next JOIN=1. Side outputs
# (--aov, --stats, --dump-heights, --save-state, --verify, --hash, however spelled: rockpool
# --job-id says which the options hold) are refused (exit 2). Every chunk carries the job's
# identity (rockpool --job-id: the scene, the files it names, the options, the build); a
# kept chunk of another job is rendered again, and the join refuses one, naming what differs.
# Resources, stated here in one place (edit them, or override on sbatch's command line):
# each task renders with the CPUs and memory it is given (-j, --max-memory).
#SBATCH --job-name=rockpool
#SBATCH --output=rockpool-%j.log
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
set -euo pipefail

die() { echo "slurm-array.sh: error: $*" >&2; exit "${status:-1}"; }
case ${1:-} in
-h | --help)
    cat <<'USAGE'
Usage: sbatch --array=0-15 slurm-array.sh SCENE OUTPUT [ROCKPOOL OPTION]...
       JOIN=1 slurm-array.sh SCENE OUTPUT [ROCKPOOL OPTION]...
Render a rockpool clip as a Slurm array job, one chunk per task (the array's
range, or CHUNKS, is the chunk count), then join the chunks without re-encoding:
JOIN=1, by hand or as a job (sbatch --dependency=afterok:JOBID
--kill-on-invalid-dep=yes --export=ALL,JOIN=1 slurm-array.sh ...). OUTPUT is a
video (.mp4 .mkv .mov .webm), a framemd5 file or a PNG pattern
(frames/f_%05d.png); the OPTIONs are rockpool's, the same for the tasks and the
join. Side outputs and -o are refused. The comment at the top of this script
says more.
Exit status: 0 done, 1 failed, 2 bad usage.
USAGE
    exit 0
    ;;
esac
[ $# -ge 2 ] || status=2 die "give SCENE and OUTPUT: slurm-array.sh SCENE OUTPUT" \
    "[ROCKPOOL OPTION]... (see --help)"
scene=$1
output=$2
shift 2
opts=("$@")

# rockpool and rockpool-join: ROCKPOOL, PATH, or the repository's build (sbatch runs a copy
# of this script, so the repository is looked for from the submit directory too).
repo=""
for d in "$(cd "$(dirname -- "$0")/.." && pwd)" "${SLURM_SUBMIT_DIR:-$PWD}"; do
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

case $output in
*%*d*.png | *%*d*.PNG) kind=png; ext=png; job_fmt=png ;;
*.mp4 | *.mkv | *.mov | *.webm) kind=video; ext=${output##*.}; job_fmt=$ext ;;
*.framemd5 | *.md5) kind=framemd5; ext=${output##*.}; job_fmt=framemd5 ;;
*) status=2 die "'$output' is neither a video, a framemd5 file nor a PNG pattern" ;;
esac
# A video's chunks are named after it, and FFmpeg's concat list (the join) cannot name a
# path with a line break or carriage return: refused now, not at the join.
abs_output=$output
[[ $abs_output == /* ]] || abs_output=$PWD/$abs_output
[ "$kind" != video ] || [[ $abs_output != *[$'\n\r']* ]] ||
    status=2 die "$(printf '%q' "$output"): its path holds a line break, which the join's" \
        "concat list cannot name: rename it (or its directory)"

# The job's identity (the scene, every file it names, the options, the build: each input
# hashed once a task) and what the options hold, as rockpool reads them, not as spelled
# here. Side outputs would be written by every task: refused, as are a range and -o.
ident=$("$rockpool" "$scene" "${opts[@]}" -f "$job_fmt" --job-id) || exit $?
field() { printf '%s\n' "$ident" | sed -n "s/^$1: *//p" | head -n 1; }
job=$(field job)
[[ $job =~ ^scene=[0-9a-f]{16},inputs=[0-9a-f]{16},options=[0-9a-f]{16},build=[0-9a-f]{16}$ ]] ||
    die "$rockpool --job-id printed no job line (an older rockpool?)"
side=$(field side-outputs)
[ "$side" = none ] || status=2 die "$side: every task would write it; render side outputs in a run of their own (or use scripts/render-parallel, which handles --aov)"
[ "$(field range)" = none ] || status=2 die "the options ask for frames $(field range): each task renders its own chunk"
[ "$(field output-given)" = no ] || status=2 die "give the output as OUTPUT, not with -o"
fmt=()
[ "$kind" != framemd5 ] || fmt=(-f framemd5)
# -y as rockpool reads it (-y, --overwrite, -yq...), not as spelled here
overwrite=""
[ "$(field overwrite)" != yes ] || overwrite=-y
dir=$(dirname -- "$output")/.$(basename -- "$output" | tr '%' '_').chunks
jobid=$(field job-id)
[[ $jobid =~ ^[0-9a-f]{64}$ ]] || die "$rockpool --job-id printed no job id"
# Run outside an array task, or a join with no chunks of this job (nothing rendered yet,
# or another SCENE, OUTPUT or options than the tasks'): bad usage (exit 2), and nothing is
# created.
if [ "${JOIN:-0}" = 1 ]; then
    if [ -z "${CHUNKS:-}" ] && [ ! -f "$dir/plan-$jobid" ]; then
        if ls "$dir"/plan-* >/dev/null 2>&1; then
            status=2 die "$dir holds no plan of this job: its tasks ran with another SCENE," \
                "options or rockpool (the join takes the tasks' SCENE, OUTPUT and options)"
        fi
        status=2 die "no chunks to join in $dir: run the array first (the join takes the" \
            "tasks' SCENE, OUTPUT and options)"
    fi
elif [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    status=2 die "run through sbatch --array, or with JOIN=1 to join"
fi
mkdir -p "$(dirname -- "$output")"
# A task: an output that exists without -y would be refused by the join once every chunk
# is rendered; refused now (exit 2), as rockpool checks it (a PNG pattern's frames too).
if [ "${JOIN:-0}" != 1 ]; then
    "$rockpool" "$scene" "${opts[@]}" "${fmt[@]}" --check -o "$output" >/dev/null || exit $?
fi
mkdir -p "$dir"
frames=$(field frames)
[[ $frames =~ ^[0-9]{1,12}$ ]] || die "cannot read the frame count of $scene"

# The split (the chunk count and the array index of chunk 0) is recorded once per job, by
# its first task, in plan-JOBID (JOBID: rockpool --job-id's digest of everything that makes
# the chunks); every later task and the join read it, whatever their array spec, so
# --array=3,5 after losing chunks 3 and 5 renders those two. The first array's range gives
# it: --array=0-15 or 1-16 is 16 chunks from 0 or 1; CHUNKS=N splits in N whatever the
# array's size, a task's chunk being its index from 0 (unless the array covers every chunk,
# as CHUNKS=8 with --array=1-8, counted from 1), so CHUNKS=8 runs as --array=0-3, then 4-7.
plan=$dir/plan-$jobid
chunks="" base=""
read_plan() { # the plan's words are data: two plain decimals, checked before any arithmetic
    local planned=() w
    read -r -a planned <"$plan" || true
    [ ${#planned[@]} = 2 ] || die "$plan: not a plan of two numbers (damaged: remove it)"
    for w in "${planned[@]}"; do
        [[ $w =~ ^[0-9]{1,9}$ ]] || die "$plan: '$w' is not a plain decimal (a damaged plan: remove it)"
    done
    chunks=$((10#${planned[0]})) base=$((10#${planned[1]}))
}
if [ ! -f "$plan" ] && [ -n "${SLURM_ARRAY_TASK_ID:-}" ] && [ "${JOIN:-0}" != 1 ]; then
    for v in SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX; do
        [[ ${!v:-} =~ ^[0-9]{1,9}$ ]] || status=2 die "$v: '${!v:-}' is not an array index"
    done
    # (10#: checked as digits, and read as decimal: Slurm writes no leading zero, a user might)
    size=$((10#$SLURM_ARRAY_TASK_MAX - 10#$SLURM_ARRAY_TASK_MIN + 1))
    first=${CHUNKS:-$size}
    [[ $first =~ ^[1-9][0-9]{0,8}$ ]] || status=2 die "CHUNKS: '$first' is not a count"
    from=$((10#$SLURM_ARRAY_TASK_MIN))
    [ -z "${CHUNKS:-}" ] || [ "$size" = "$first" ] || from=0
    # the first task's plan wins: written aside, then linked (ln refuses an existing name)
    echo "$first $from" >"$plan.$$"
    ln -T "$plan.$$" "$plan" 2>/dev/null || true
    rm -f "$plan.$$"
fi
if [ -f "$plan" ]; then
    read_plan
    [ -z "${CHUNKS:-}" ] || [ "$CHUNKS" = "$chunks" ] ||
        status=2 die "CHUNKS=$CHUNKS, but this job's plan (recorded by its first task) has $chunks chunks"
else
    chunks=${CHUNKS:-}
fi
[ -n "$chunks" ] || status=2 die "no chunk count: run through sbatch --array, or give CHUNKS"
[[ $chunks =~ ^[1-9][0-9]*$ ]] || status=2 die "CHUNKS: '$chunks' is not a count"
[ "$chunks" -le "$frames" ] || status=2 die "$chunks chunks for $frames frames: use at most $frames tasks"
range() { echo "$((frames * $1 / chunks)) $((frames * ($1 + 1) / chunks))"; }

# A chunk: a file, or for PNG frames a directory named so.
chunk_of() { if [ "$kind" = png ]; then echo "$dir/$1_$2"; else echo "$dir/$1_$2.$ext"; fi; }
# CHUNK.sha256: the chunk's digest (rockpool-join --digest), recorded when it was finished.
# A chunk that no longer gives it is rendered again, and not joined: damage FFmpeg's
# decoder conceals (a lossy chunk with bytes flipped decodes without an error) changes it.
sealed() { # CHUNK: it gives its recorded digest (or none was recorded)
    local want
    [ -e "$1.sha256" ] || return 0
    read -r want <"$1.sha256" || return 1
    [[ $want =~ ^[0-9a-f]{64}$ ]] && [ "$("$join" --digest "$1" 2>/dev/null)" = "$want" ]
}

if [ "${JOIN:-0}" = 1 ]; then
    # The chunks must have this run's settings: a reference of its first frame.
    like=$dir/like.$ext
    placed=$dir/placed
    joined() {
        rm -rf "$dir"
        echo "slurm-array.sh: $frames frames in $chunks chunks -> $output" >&2
        exit 0
    }
    # rockpool and rockpool-join run in the background, waited for, so that SIGTERM (scancel,
    # or sent to this shell alone), SIGINT or SIGHUP stops them too: the join then writes no
    # output and leaves the chunk directory as the tasks left it (JOIN=1 again joins it),
    # without its reference frame. A join that had placed the output when the signal came
    # (rockpool-join --placed: it is not stopped while placing) ends as a finished one.
    child=""
    stop_join() {
        trap '' INT TERM HUP
        if [ -n "$child" ]; then
            kill -TERM "$child" 2>/dev/null || true
            # (until it is gone: a wait in a trap may return before)
            while kill -0 "$child" 2>/dev/null; do wait "$child" 2>/dev/null || sleep 0.05; done
        fi
        [ ! -e "$placed" ] || joined
        rm -f "$like"
        exit "$1"
    }
    trap 'rm -f "$like" "$placed"' EXIT
    trap 'stop_join 130' INT
    trap 'stop_join 143' TERM
    trap 'stop_join 129' HUP
    waited() { # COMMAND...: run it in the background (stdin kept) and wait for it; its status
        local rc=0
        "$@" <&0 &
        child=$!
        wait "$child" || rc=$?
        child=""
        return "$rc"
    }
    rm -f "$placed"
    waited "$rockpool" -q -y "$scene" "${opts[@]}" "${fmt[@]}" --frame-range 0 -o "$like"
    list=()
    for ((i = 0; i < chunks; i++)); do
        list+=("$(chunk_of chunk $i)")
        sealed "${list[i]}" || status=2 die "chunk $i (${list[i]}) changed since its task" \
            "finished (its SHA-256 is not the one recorded then: damaged on disk?): run task $i again"
    done
    waited "$join" $overwrite --job "$job" --like "$like" --frames "$frames" --placed "$placed" \
        -o "$output" "${list[@]}"
    joined
fi

[ -n "${SLURM_ARRAY_TASK_ID:-}" ] || status=2 die "run through sbatch --array, or with JOIN=1 to join"
[[ $SLURM_ARRAY_TASK_ID =~ ^[0-9]{1,9}$ ]] || status=2 die "SLURM_ARRAY_TASK_ID: '$SLURM_ARRAY_TASK_ID' is not an array index"
i=$((10#$SLURM_ARRAY_TASK_ID - base))
if [ "$i" -lt 0 ] || [ "$i" -ge "$chunks" ]; then
    status=2 die "task $SLURM_ARRAY_TASK_ID is outside this job's plan: $chunks chunks, array indices" \
        "$base-$((base + chunks - 1)) (recorded in $plan by its first task)"
fi
read -r start end <<<"$(range $i)"
# The CPUs and memory Slurm gave the task (not the node's): -j from --cpus-per-task (1 when
# Slurm says nothing: one CPU is what a task gets by default), --max-memory from --mem-per-cpu
# or --mem (in MB), unless the options give their own.
cpus=${SLURM_CPUS_PER_TASK:-}
if [ -z "$cpus" ]; then if [ -n "${SLURM_JOB_ID:-}" ]; then cpus=1; else cpus=$(nproc); fi; fi
[[ $cpus =~ ^[1-9][0-9]{0,4}$ ]] || die "SLURM_CPUS_PER_TASK: '$cpus' is not a CPU count"
threads=(-j "$cpus")
mem=""
if [[ ${SLURM_MEM_PER_CPU:-} =~ ^[1-9][0-9]{0,9}$ ]]; then mem=$((SLURM_MEM_PER_CPU * cpus))
elif [[ ${SLURM_MEM_PER_NODE:-} =~ ^[1-9][0-9]{0,9}$ ]]; then mem=$SLURM_MEM_PER_NODE; fi
[ -z "$mem" ] || threads+=(--max-memory "${mem}M")
chunk=$(chunk_of chunk $i)
part=$(chunk_of part $i)
# A chunk already there is kept when it is complete and of this run's scene and settings
# (checked against this task's own render of frame 0).
like=$dir/like_$i.$ext
trap 'rm -rf "$part" "$like"' EXIT
sha=()
[ ! -f "$scene" ] || sha=(--scene-sha256 "$(sha256sum <"$scene" | cut -c1-64)")
if [ -e "$chunk" ] && sealed "$chunk" &&
    "$rockpool" -q -y "$scene" "${opts[@]}" "${fmt[@]}" --frame-range 0 -o "$like" &&
    "$join" --check --job "$job" "${sha[@]}" --like "$like" --range "$start-$((end - 1))/$frames" "$chunk" \
        2>/dev/null; then
    echo "slurm-array.sh: chunk $i (frames $start-$((end - 1))) is already complete"
else
    # Written under the part_ name and renamed once complete: a task stopped by scancel or
    # preemption (SIGTERM) leaves no chunk under its final name.
    target=$part
    if [ "$kind" = png ]; then
        rm -rf "$part"
        mkdir "$part"
        target=$part/$(basename -- "$output")
    fi
    # scancel and preemption send SIGTERM to the task's every process: rockpool finishes its
    # file (short) and this shell waits for it before removing it.
    "$rockpool" -q -y "--job-id=$job" "${threads[@]}" "$scene" "${opts[@]}" "${fmt[@]}" --start "$start" \
        --end "$end" -o "$target" &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; rm -rf "$part" "$like"; exit 143' TERM INT
    rc=0
    wait "$child" || rc=$?
    trap - TERM INT
    [ "$rc" = 0 ] || exit "$rc"
    rm -rf "$chunk" "$chunk.sha256"
    mv -f "$part" "$chunk"
    "$join" --digest "$chunk" >"$chunk.sha256.part"
    mv -f "$chunk.sha256.part" "$chunk.sha256"
fi
# A task that succeeded leaves no log (the failed ones keep theirs).
log=$PWD/rockpool-${SLURM_JOB_ID:-}.log
[ -z "${SLURM_JOB_ID:-}" ] || rm -f "$log"
