#!/usr/bin/env bash
# make_check.sh - what make check and make demo do for a newcomer. tests/run-all, given two
# scripts of this test's own (a slow one that passes, a quick one that fails), prints a
# line for each as it finishes (the quick one first: name, checks, failures, seconds),
# lists the failure again at the end with its log's lines, keeps every log in LOG_DIR and
# ends with "N passed, N failed"; make check leaves the HEAVY scripts to make check-all;
# make demo builds the program alone, in parallel, after scripts/install-deps --demo, which
# asks apt-get (a stand-in here) for the build's packages and none of the test tools.
source "$(dirname "$0")/lib.sh"
# make check-all runs this script with its own knobs set (ALL=1, CROSS=1, VALGRIND=1...):
# the run-all calls below must see only the ones they name.
unset ALL CROSS VALGRIND SLURM_TESTS UNIT_BUILDS HEAVY PARTS CLI_SCRIPTS LIST JOBS

mkdir s
printf '%s\n' 'echo "[       OK ] slow one"' 'echo "[       OK ] slow two"' \
    'echo "[       OK ] slow three"' 'sleep 3' 'echo "cli-summary: 3 0"' >s/slow.sh
printf '%s\n' 'echo "[       OK ] quick one"' 'echo "[  FAILED  ] quick two: the reason"' \
    'echo "    the detail"' 'echo "cli-summary: 1 1"' 'exit 1' >s/quick.sh
expect_status "run-all over a passing and a failing script: exit 1" 1 \
    env PARTS=cli CLI_SCRIPTS="$WORK/s/slow.sh $WORK/s/quick.sh" JOBS=2 LOG_DIR="$WORK/logs" \
    BUILDS="$(dirname "$ROCKPOOL")" timeout 120 "$TOP/tests/run-all"
cp out run.out
line() { grep -n -- "$1" run.out | head -n 1; }
check "a line for the quick script: FAILED, its name, 2 checks, 1 failed, seconds" \
    grep -qE '^FAILED +.*s/quick\.sh .* 2 checks +1 failed +[0-9]+\.[0-9] s$' run.out
check "a line for the slow script: ok, its name, 3 checks, 0 failed, 3 s or more" \
    grep -qE '^ok +.*s/slow\.sh .* 3 checks +0 failed +([3-9]|[1-9][0-9]+)\.[0-9] s$' run.out
q=$(line 's/quick.sh .*checks' | cut -d: -f1)
l=$(line 's/slow.sh .*checks' | cut -d: -f1)
check "each line comes as its script finishes: the quick one first" test "${q:-9}" -lt "${l:-0}"
check "the last line is the count: 4 passed, 1 failed" test "$(tail -n 1 run.out)" = \
    "4 passed, 1 failed"
f=$(line '^== failed' | cut -d: -f1)
check "the failures are listed again after every script's line" test "${f:-0}" -gt "$l"
check "... with the failed check and its detail" sh -c \
    "sed -n '$f,\$p' run.out | grep -q 'quick two: the reason' &&
     sed -n '$f,\$p' run.out | grep -q 'the detail'"
check "... and not the passed checks" sh -c "! grep -q 'OK \] slow\|OK \] quick' run.out"
check "every script's whole log is kept in LOG_DIR" sh -c \
    "grep -q 'slow three' logs/*slow.sh.log && grep -q 'quick one' logs/*quick.sh.log"

# make check leaves HEAVY's scripts to make check-all, which runs every script.
cd "$TOP" || exit 1
LIST=1 BUILDS=build LOG_DIR="$WORK/logs" timeout 60 tests/run-all >"$WORK/check.jobs"
ALL=1 LIST=1 BUILDS=build LOG_DIR="$WORK/logs" timeout 60 tests/run-all >"$WORK/all.jobs"
cd "$WORK" || exit 1
check "make check runs the everyday scripts (scene.sh)" grep -q ' tests/cli/scene.sh$' check.jobs
for h in farm video web_page; do
    check "make check leaves $h.sh to make check-all" sh -c "! grep -q 'cli/$h.sh' check.jobs"
done
all=$(ls "$TOP"/tests/cli/*.sh | grep -vc '/lib\.sh$')
check "make check-all (ALL=1) runs all $all CLI scripts" \
    test "$(grep -c '^cli .*tests/cli/.*\.sh$' all.jobs)" = "$all"
check "make check-all passes ALL=1 to run-all" sh -c \
    "make -s -n -C '$TOP' check-all | grep -q 'ALL=1.*tests/run-all'"
# check-all's matrix: HEAVY's scripts under gcc and the sanitizer build, not again under
# clang, which runs make check's scripts (the farm scripts once, under the sanitizers).
(cd "$TOP" && ALL=1 LIST=1 BUILDS="build build-san build-clang" LOG_DIR="$WORK/logs" \
    timeout 60 tests/run-all) >matrix.jobs
for b in build build-san; do
    check "check-all runs video.sh under $b" grep -qx "cli $b tests/cli/video.sh" matrix.jobs
done
check "... not under build-clang" sh -c "! grep -q '^cli build-clang .*/video.sh' matrix.jobs"
check "... which runs make check's scripts (scene.sh)" \
    grep -qx "cli build-clang tests/cli/scene.sh" matrix.jobs
for f in farm farm_stop join_hostile; do
    check "... and $f.sh once, under build-san" \
        test "$(grep "/$f.sh\$" matrix.jobs | tr '\n' ' ')" = "cli build-san tests/cli/$f.sh "
done
check "... make check runs farm_stop.sh under its build" grep -qx "cli build tests/cli/farm_stop.sh" check.jobs

# make demo: install-deps --demo, then the program alone, in parallel.
make -s -n -C "$TOP" demo JOBS=2 >demo.n 2>&1
check "make demo runs scripts/install-deps --demo" grep -q 'install-deps --demo' demo.n
check "make demo builds the program with -j" grep -qE 'make.* -j2 .*build/rockpool' demo.n

# install-deps with nothing installed (a PATH of stand-ins): apt-get records what it is asked.
mkdir bin
for t in id mktemp rm find head sed cat; do ln -s "$(command -v $t)" bin/$t; done
printf '#!/bin/sh\necho "$@" >>%s/apt.log\n' "$WORK" >bin/apt-get
printf '#!/bin/sh\nexec "$@"\n' >bin/sudo
chmod +x bin/apt-get bin/sudo
deps() { rm -f apt.log && PATH=$WORK/bin "$(command -v sh)" "$TOP/scripts/install-deps" "$@" \
    >/dev/null 2>&1; }
deps --demo
check "install-deps --demo asks for FFmpeg's, libdeflate's and xxHash's headers" sh -c \
    "grep -q 'libavcodec-dev' apt.log && grep -q 'libdeflate-dev' apt.log &&
     grep -q 'libxxhash-dev' apt.log && grep -qw gcc apt.log && grep -qw pkg-config apt.log"
check "install-deps --demo asks for no test tool (Slurm, qemu, cross compilers, valgrind)" \
    sh -c "! grep -qE 'slurm|qemu|aarch64|valgrind|cmocka|melt' apt.log"
deps
check "install-deps alone still asks for the test tools" sh -c \
    "grep -q slurmd apt.log && grep -q qemu-user apt.log && grep -q libcmocka-dev apt.log"
