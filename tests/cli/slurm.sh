# slurm.sh - examples/slurm-array.sh on a real single-node Slurm: a throwaway slurm.conf,
# munged, slurmctld and slurmd started here as root on localhost and stopped by PID at the
# end. Every result is either frame for frame the single run or a refused join that names
# the chunk: 0- and 1-based arrays, a cancelled task, a task resubmitted alone, a requeued
# task, stale chunks of another seed. Slow: make check-all runs it (SLURM_TESTS=1).
source "$(dirname "$0")/lib.sh"

if [ "${SLURM_TESTS:-0}" != 1 ]; then
    echo "slurm.sh: skipped: a real Slurm runs in make check-all (SLURM_TESTS=1)"
    exit 0
fi
skip() { echo "slurm.sh: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "starting slurmd and munged needs root"
for c in munged slurmctld slurmd sbatch scancel scontrol sinfo; do
    command -v $c >/dev/null || { bad "$c is not installed (scripts/install-deps installs it)"; exit 0; }
done

# ---- a throwaway cluster ----
S=$WORK/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"
head -c 1024 /dev/urandom >"$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
pids=()
stop_cluster() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
}
trap 'rc=$?; stop_cluster; cli_exit $rc' EXIT
munged --key-file="$S/munge/munge.key" --socket="$S/munge/munge.sock" \
    --pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" \
    --seed-file="$S/munge/seed" -f >/dev/null 2>&1 || skip "munged does not start here"
for _ in $(seq 50); do [ -s "$S/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$S/munge/munged.pid")")
port=$((20000 + RANDOM % 20000))
node=$(hostname -s)
cat >"$S/slurm.conf" <<EOF
ClusterName=rockpooltest
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(($(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo) / 2)) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$S/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$S/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$S/d.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 0.5
done
if [ $up = 0 ]; then
    tail -n 3 "$S/slurmctld.log" "$S/slurmd.log" "$S/ctld.out" "$S/d.out" 2>/dev/null
    skip "slurmctld and slurmd did not come up in this sandbox"
fi
ok "a single-node Slurm is up ($(sinfo -V))"

# ---- the clip ----
# The scene and the outputs in this test's directory; jobs submitted from the repository,
# whose build the script finds (rockpool is not on PATH here).
cp "$TOP/examples/rain.scene" rain.scene
opts=(-s 64x48 -n 24 -c ffv1)
"$ROCKPOOL" -q rain.scene "${opts[@]}" -o single.mkv
decoded() { ffmpeg -v error -i "$1" -f framemd5 -; }
packets() { ffprobe -v error -select_streams v -show_entries packet=pts,dts,duration -of csv "$1"; }
equal_to_single() { # NAME FILE
    if [ -s "$2" ] && cmp -s <(decoded single.mkv) <(decoded "$2") &&
        cmp -s <(packets single.mkv) <(packets "$2"); then ok "$1"; else bad "$1"; fi
}
# (the script's default resources, 2 CPUs and 4G a task, are more than this node may have:
# the tests ask for one CPU and 1G, on sbatch's command line, which wins over #SBATCH)
submit() { (cd "$TOP" && env -u ROCKPOOL sbatch --parsable --chdir="$WORK" --cpus-per-task=1 --mem=1G "$@"); }
array() { # OUTPUT ARRAY [SBATCH OPTION...]: submit, wait; prints the job id
    local out=$1 range=$2
    shift 2
    submit --array="$range" --wait "$@" examples/slurm-array.sh rain.scene "$out" "${opts[@]}"
}
join_job() { # OUTPUT: the join as a job of its own; its exit status
    submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
        rain.scene "$1" "${opts[@]}" >/dev/null
}

# 0-based array, then the join chained with afterok as the script's comment says.
jid=$(submit --array=0-3 examples/slurm-array.sh rain.scene a.mkv "${opts[@]}")
submit --wait --dependency=afterok:"$jid" --export=ALL,JOIN=1 --output="$WORK/join.log" \
    examples/slurm-array.sh rain.scene a.mkv "${opts[@]}" >/dev/null
check "--array=0-3 and an afterok join: exit 0" test $? = 0
equal_to_single "--array=0-3: equal to the single run, frames and timestamps" a.mkv
check "--array=0-3: no chunk directory or task log left" \
    test -z "$(ls -A | grep -e '^\.a\.mkv\.chunks$' -e '^rockpool-.*\.log$')"

# Spaces in every path: the scene, the output's directory and the output's name, for a
# video and a PNG pattern (each word reaches rockpool and the join as one argument).
cp rain.scene "my rain.scene"
mkdir -p "out dir" "png dir"
array "out dir/my clip.mkv" 0-2 >/dev/null
check "spaces in the paths: the tasks' chunks are in 'out dir/.my clip.mkv.chunks'" \
    test -s "out dir/.my clip.mkv.chunks/chunk_2.mkv"
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    "my rain.scene" "out dir/my clip.mkv" "${opts[@]}" >/dev/null
check "spaces in the paths: join exit 0" test $? = 0
equal_to_single "... the joined 'out dir/my clip.mkv' equals the single run" "out dir/my clip.mkv"
check "... no chunk directory left" test ! -e "out dir/.my clip.mkv.chunks"
check "... and nothing written under the words of a split name" \
    test ! -e out -a ! -e dir -a ! -e my -a ! -e clip.mkv -a ! -e rain.scene.mkv
submit --array=0-1 --wait examples/slurm-array.sh "my rain.scene" "png dir/f %03d.png" \
    "${opts[@]}" >/dev/null
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    "my rain.scene" "png dir/f %03d.png" "${opts[@]}" >/dev/null
check "spaces in a PNG pattern and its directory: join exit 0" test $? = 0
"$ROCKPOOL" -q -y rain.scene "${opts[@]}" -o "single %03d.png"
check "... the single run's pixels, frame for frame" cmp -s \
    <(ffmpeg -v error -i "png dir/f %03d.png" -f framemd5 -) <(decoded "single %03d.png")

# 1-based array.
array b.mkv 1-3 >/dev/null
join_job b.mkv
check "--array=1-3: join exit 0" test $? = 0
equal_to_single "--array=1-3: equal to the single run" b.mkv

# A cancelled task: the join refuses, naming the chunk; the task resubmitted alone renders
# its own chunk (the split recorded by the array), then the join succeeds.
jid=$(submit --hold --array=1-4 examples/slurm-array.sh rain.scene c.mkv "${opts[@]}")
scancel "${jid}_3"
scontrol release "$jid"
for _ in $(seq 240); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.5; done
join_job c.mkv
check "a cancelled task: the join fails" test $? != 0
check "... naming the missing chunk" grep -q "chunk 2 (.*chunk_2.mkv) is missing" join.log
check "... and writes no output" test ! -e c.mkv
array c.mkv 3 >/dev/null
check "the task resubmitted alone (--array=3) rendered chunk 2 only" \
    test -s .c.mkv.chunks/chunk_2.mkv -a ! -e .c.mkv.chunks/chunk_4.mkv
join_job c.mkv
check "... then the join: exit 0" test $? = 0
equal_to_single "... equal to the single run" c.mkv

# The plan survives resubmission: --array=0-7, chunks 3 and 5 lost, --array=3,5 renders
# those two (the old script took 3 chunks from the new array's span and rendered others).
opts8=(-s 64x48 -n 24 -c ffv1 -q)
jid=$(submit --hold --array=0-7 examples/slurm-array.sh rain.scene p.mkv "${opts8[@]}")
scancel "${jid}_3" "${jid}_5"
scontrol release "$jid"
for _ in $(seq 240); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.5; done
check "--array=0-7 with tasks 3 and 5 cancelled: chunks 3 and 5 missing" \
    test ! -e .p.mkv.chunks/chunk_3.mkv -a ! -e .p.mkv.chunks/chunk_5.mkv -a -s .p.mkv.chunks/chunk_4.mkv
c0=$(stat -c %Y.%s .p.mkv.chunks/chunk_0.mkv)
sleep 1
submit --array=3,5 --wait examples/slurm-array.sh rain.scene p.mkv "${opts8[@]}" >/dev/null
check "... --array=3,5 renders chunks 3 and 5" test -s .p.mkv.chunks/chunk_3.mkv -a -s .p.mkv.chunks/chunk_5.mkv
check "... and leaves chunk 0 alone" test "$(stat -c %Y.%s .p.mkv.chunks/chunk_0.mkv)" = "$c0"
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    rain.scene p.mkv "${opts8[@]}" >/dev/null
check "... then the join: exit 0" test $? = 0
"$ROCKPOOL" -q rain.scene "${opts8[@]}" -o single_p.mkv
check "... equal to the single run" cmp -s <(decoded single_p.mkv) <(decoded p.mkv)
# -j under --cpus-per-task=1: the task's own CPU count, not the node's
cat >"$WORK/jlog" <<EOF
#!/usr/bin/env bash
case " \$* " in *" --start "*) echo "\$*" >>"$WORK/j.log" ;; esac
exec "$ROCKPOOL" "\$@"
EOF
chmod +x "$WORK/jlog"
(cd "$TOP" && sbatch --parsable --chdir="$WORK" --cpus-per-task=1 --mem=200M --wait --array=0 \
    --export=ALL,ROCKPOOL="$WORK/jlog" examples/slurm-array.sh rain.scene jj.mkv "${opts8[@]}") >/dev/null
check "--cpus-per-task=1: rockpool runs with -j 1" grep -q -- " -j 1 " j.log
check "... and --max-memory 200M (--mem=200M)" grep -q -- " --max-memory 200M " j.log

# A requeued task finds its chunk complete and leaves it alone.
jid=$(array d.mkv 0-2)
before=$(stat -c %Y.%s .d.mkv.chunks/chunk_1.mkv)
sleep 1
scontrol requeue "${jid}_1" 2>/dev/null
for _ in $(seq 240); do
    st=$(squeue -h -j "${jid}_1" -o %t 2>/dev/null)
    [ -z "$st" ] && break
    sleep 0.5
done
check "a requeued task keeps its complete chunk" test "$(stat -c %Y.%s .d.mkv.chunks/chunk_1.mkv)" = "$before"
join_job d.mkv
equal_to_single "... and the join equals the single run" d.mkv

# Stale chunks: chunks of seed 7 are left (no join), the seed is changed, and the array
# again with one task cancelled: the old chunk is refused, not mixed in.
array e.mkv 0-3 >/dev/null
sed -i 's/^seed 7$/seed 8/' rain.scene
jid=$(submit --hold --array=0-3 examples/slurm-array.sh rain.scene e.mkv "${opts[@]}")
scancel "${jid}_2"
scontrol release "$jid"
for _ in $(seq 240); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.5; done
join_job e.mkv
check "stale chunk: the join fails" test $? != 0
check "... naming the stale chunk" grep -q "chunk 2 (.*chunk_2.mkv) is of another job, which differs in: scene" join.log
check "... and writes no output" test ! -e e.mkv
array e.mkv 2 >/dev/null
check "the stale chunk's task resubmitted alone renders it again" \
    grep -q "^seed 8" rain.scene
join_job e.mkv
check "... then the join: exit 0" test $? = 0
"$ROCKPOOL" -q rain.scene "${opts[@]}" -o single8.mkv
check "... equal to the single run of the new seed" cmp -s <(decoded single8.mkv) <(decoded e.mkv)

# CHUNKS inside arrays: 4 chunks run as --array=0-1 then --array=2-3 (a task's chunk is its
# index); the join reads the split the tasks recorded.
submit --array=0-1 --wait --export=ALL,CHUNKS=4 examples/slurm-array.sh rain.scene f.mkv \
    "${opts[@]}" >/dev/null
check "CHUNKS=4 with --array=0-1: chunks 0 and 1 only" \
    test -s .f.mkv.chunks/chunk_1.mkv -a ! -e .f.mkv.chunks/chunk_2.mkv
submit --array=2-3 --wait --export=ALL,CHUNKS=4 examples/slurm-array.sh rain.scene f.mkv \
    "${opts[@]}" >/dev/null
join_job f.mkv
check "... then --array=2-3 and the join without CHUNKS: exit 0" test $? = 0
"$ROCKPOOL" -q -y rain.scene "${opts[@]}" -o single.mkv
equal_to_single "... equal to the single run" f.mkv

# PNG frames and a framemd5 manifest through the array.
"$ROCKPOOL" -q -y rain.scene "${opts[@]}" -f framemd5 -o single.framemd5
array g.framemd5 1-3 >/dev/null
join_job g.framemd5
check "framemd5 through --array=1-3: join exit 0" test $? = 0
check "... the single run's manifest byte for byte" cmp -s single.framemd5 g.framemd5
mkdir -p png
array png/f_%03d.png 0-2 >/dev/null
check "PNG through --array=0-2: no frame is in place before the join" test ! -e png/f_000.png
join_job png/f_%03d.png
check "... join exit 0" test $? = 0
"$ROCKPOOL" -q -y rain.scene "${opts[@]}" -o single_%03d.png
check "... the single run's pixels, frame for frame" \
    cmp -s <(ffmpeg -v error -i png/f_%03d.png -f framemd5 -) <(decoded single_%03d.png)
check "... and no chunk directory left" test ! -e png/.f__03d.png.chunks

# A task cancelled while it renders (scancel sends SIGTERM): rockpool finishes its file
# properly but short; the task keeps it under no chunk name, so the join refuses the chunk
# as missing, and the task resubmitted alone renders it.
big=(-s 1280x720 -n 240 -c ffv1)
jid=$(submit --array=0-1 examples/slurm-array.sh rain.scene h.mkv "${big[@]}")
caught=0
for _ in $(seq 600); do
    # rockpool writes part_1.mkv under a temporary name until it is done
    if [ -n "$(find .h.mkv.chunks -name '.part_1.mkv.tmp-*' -size +100k 2>/dev/null)" ]; then
        scancel "${jid}_1"
        caught=1
        break
    fi
    sleep 0.1
done
for _ in $(seq 600); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.5; done
check "a task cancelled mid-render (caught while its file grew)" test $caught = 1
check "... leaves neither its chunk nor its part file" \
    test ! -e .h.mkv.chunks/chunk_1.mkv -a ! -e .h.mkv.chunks/part_1.mkv
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    rain.scene h.mkv "${big[@]}" >/dev/null
check "... the join fails, naming chunk 1" grep -q "chunk 1 (.*chunk_1.mkv) is missing" join.log
submit --array=1 --wait examples/slurm-array.sh rain.scene h.mkv "${big[@]}" >/dev/null
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    rain.scene h.mkv "${big[@]}" >/dev/null
check "... resubmitted alone, then joined: exit 0" test $? = 0
"$ROCKPOOL" -q -y rain.scene "${big[@]}" -o single_big.mkv
check "... equal to the single run" cmp -s <(decoded single_big.mkv) <(decoded h.mkv)

# The join's shell alone given SIGTERM (scancel --batch --signal=TERM: "children of the batch
# step are not signaled"), while rockpool-join runs (a wrapper that waits 3 s before it): the
# join stops it, writes no output and leaves the chunk directory as the tasks left it (no
# reference frame of its own); the join run again joins it.
cat >sigjoin <<EOF
#!/usr/bin/env bash
case " \$* " in *" --placed "*) touch "$WORK/sigjoin.started"; sleep 3 ;; esac
exec "$TOP/scripts/rockpool-join" "\$@"
EOF
chmod +x sigjoin
array s.mkv 0-2 >/dev/null
ls -A .s.mkv.chunks | sort >s.before
rm -f sigjoin.started
jid=$(submit --export=ALL,JOIN=1,ROCKPOOL_JOIN="$WORK/sigjoin" --output="$WORK/join.log" \
    examples/slurm-array.sh rain.scene s.mkv "${opts[@]}")
for _ in $(seq 600); do [ -e sigjoin.started ] && break; sleep 0.1; done
scancel --batch --signal=TERM "$jid"
for _ in $(seq 240); do [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.5; done
sleep 4 # (the wrapped join would have placed the output by now, had it been left running)
check "the join's shell given SIGTERM alone (scancel --batch): no output" test ! -e s.mkv
check "... the chunk directory as the tasks left it" cmp -s s.before <(ls -A .s.mkv.chunks | sort)
join_job s.mkv
check "... the join again: exit 0" test $? = 0
equal_to_single "... equal to the single run" s.mkv
check "... no chunk directory left" test ! -e .s.mkv.chunks

# Sound rockpool re-encodes (FLAC into MP4's AAC), with spaces in the background's, the
# output's and its directory's names: each task's chunk starts with AAC's priming, which the
# join decodes and encodes once; the joined sound is the single run's length to the sample
# (a packet copy played every chunk's priming and padding: 2.112 s for 2.005).
mkdir -p "snd dir"
ffmpeg -v error -y -f lavfi -i testsrc2=s=64x48:r=30:d=1 \
    -f lavfi -i sine=f=440:d=1:sample_rate=48000 -c:v libx264 -pix_fmt yuv420p -c:a flac \
    -shortest "snd dir/bg clip.mkv"
sopts=(-s 64x48 -n 24 -i "snd dir/bg clip.mkv")
"$ROCKPOOL" -q rain.scene "${sopts[@]}" -o "snd dir/single.mp4"
submit --array=0-2 --wait examples/slurm-array.sh rain.scene "snd dir/my clip.mp4" \
    "${sopts[@]}" >/dev/null
submit --wait --export=ALL,JOIN=1 --output="$WORK/join.log" examples/slurm-array.sh \
    rain.scene "snd dir/my clip.mp4" "${sopts[@]}" >/dev/null
check "re-encoded sound, spaces in the paths: the join's exit 0" test $? = 0
samples() { ffmpeg -v error -i "$1" -map 0:a -f s16le -ac 1 - | wc -c; }
check "... the joined sound is the single run's length ($(samples "snd dir/single.mp4") bytes)" \
    test "$(samples "snd dir/my clip.mp4")" = "$(samples "snd dir/single.mp4")"
