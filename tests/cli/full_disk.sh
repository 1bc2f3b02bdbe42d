#!/usr/bin/env bash
# full_disk.sh - a write that fails at its first byte (a file size limit of 0 blocks, which
# fails each write with EFBIG as a full disk fails it with ENOSPC), for every output format
# and every side file (--stats, --dump-heights, --save-state, --aov): exit 1, a message
# naming the file, no temporary file left, nothing created, and an older file that -y would
# replace left as it was.
source "$(dirname "$0")/lib.sh"

# limited ARGS...: rockpool at a file size limit of 0 (SIGXFSZ ignored, as rockpool does);
# its stderr through a pipe (a file would take no message under the limit), stdout dropped
limited() {
    bash -c 'set -o pipefail; trap "" XFSZ; (ulimit -f 0; exec "$@") 2>&1 >/dev/null | cat >&2' \
        limited "$ROCKPOOL" -q -s 32x24 -n 3 "$@"
}

# case_of NAME NEWFILE ARGS...: in an empty directory, exit 1, NEWFILE not created, no
# temporary file; then again with -y over an older NEWFILE, which stays as it was.
case_of() {
    local name=$1 file=$2
    shift 2
    rm -rf d && mkdir d && cd d || return
    expect_status "$name: exit 1" 1 limited "$@"
    stderr_has "$name: says what failed" "File too large"
    check "$name: nothing left (no $file, no temporary file)" \
        test -z "$(find . -mindepth 1 | head -1)"
    echo "older $file" >"$file.want"
    cp "$file.want" "$file"
    expect_status "$name, -y over an older file: exit 1" 1 limited -y "$@"
    check "$name, -y: the older file is as it was" cmp -s "$file" "$file.want"
    check "$name, -y: no temporary file" test -z "$(find . -name '.*tmp-*' | head -1)"
    cd .. || return
}

for o in out.mp4 out.mkv out.mov out.webm out.gif out.webp out.y4m out.framemd5 still.png; do
    case_of "-o $o" "$o" -o "$o"
done
case_of "-o f_%d.png" f_0.png -o 'f_%d.png'
case_of "--stats" s.csv --hash --stats s.csv
case_of "--dump-heights" h.bin --hash --dump-heights h.bin
case_of "--save-state" st.bin --hash --save-state st.bin
case_of "--aov height" a_0.png --hash --aov height 'a_%d.png'
