#!/usr/bin/env bash
# small_stack.sh - a run needs no large stack: under `ulimit -s 128` an upscaled render
# (the upscale kernels' rows of the widest grid are on the heap) works at every vector
# level and thread count, with the same frames as with the usual stack, and leaves only
# its output.
source "$(dirname "$0")/lib.sh"
R=$ROCKPOOL
printf 'size 160x96\nduration 3f\nat 0f drop 24 16 radius 4 height 900\n' >s.scene
mkdir out
for size in 1920x1080 4000x64; do
    "$R" -q s.scene -s $size --hash -f framemd5 -o /dev/null >ref.hash ||
        bad "$size: the reference render"
    for level in c sse2 avx2 avx512 avx512icl; do
        for j in 1 3; do
            rm -rf out/*
            (ulimit -s 128 && exec "$R" -q s.scene -s $size --simd $level -j $j --hash \
                -f y4m -o out/o.y4m >got.hash 2>err)
            rc=$?
            if [ $rc -eq 0 ] && cmp -s got.hash ref.hash; then
                ok "ulimit -s 128, $size, --simd $level -j $j: same frames"
            else
                bad "ulimit -s 128, $size, --simd $level -j $j: exit $rc or other frames"
            fi
            check "ulimit -s 128, $size, --simd $level -j $j: only the output left" \
                test "$(ls -A out)" = o.y4m
        done
    done
done
