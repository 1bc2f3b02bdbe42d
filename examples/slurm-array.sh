#!/usr/bin/env bash
# slurm-array.sh - render a long rockpool clip as a Slurm array job, one chunk per task,
# then join the chunks without re-encoding. Submit from a directory every node can see:
#
#   sbatch --array=0-15 examples/slurm-array.sh examples/rain.scene out.mkv
#   # when all tasks are done (or chain it with --dependency=afterok:JOBID):
#   JOIN=1 bash examples/slurm-array.sh examples/rain.scene out.mkv
#
# Each task renders frames A..B-1 with --start/--end (simulating from frame 0, which is
# cheap), so the joined clip equals a single run frame for frame.
#SBATCH --job-name=rockpool
#SBATCH --cpus-per-task=4
#SBATCH --output=rockpool-%A_%a.log
set -euo pipefail

scene=${1:?usage: slurm-array.sh SCENE OUTPUT.mkv}
output=${2:?usage: slurm-array.sh SCENE OUTPUT.mkv}
rockpool=${ROCKPOOL:-rockpool}
ext=${output##*.}
chunks=${SLURM_ARRAY_TASK_COUNT:-${CHUNKS:-16}}
dir=${output%.*}.chunks
mkdir -p "$dir"

frames=$("$rockpool" "$scene" --check | sed -n 's/^frames: *\([0-9]*\).*/\1/p')

if [ "${JOIN:-0}" = 1 ]; then
    : >"$dir/list.txt"
    for ((i = 0; i < chunks; i++)); do
        [ -s "$dir/chunk_$i.$ext" ] || { echo "chunk $i is missing" >&2; exit 1; }
        echo "file 'chunk_$i.$ext'" >>"$dir/list.txt"
    done
    ffmpeg -v error -nostdin -f concat -safe 0 -i "$dir/list.txt" -c copy "$output.part.$ext"
    mv "$output.part.$ext" "$output"
    exit 0
fi

i=${SLURM_ARRAY_TASK_ID:?run through sbatch --array, or with JOIN=1 to join}
start=$((frames * i / chunks))
end=$((frames * (i + 1) / chunks))
"$rockpool" -q -y -j "${SLURM_CPUS_PER_TASK:-1}" "$scene" --start "$start" --end "$end" \
    -o "$dir/chunk_$i.$ext"
