#!/usr/bin/env bash
# regress.sh - frames of every example scene under every seed preset, at 1, 2 and 3
# threads, equal the hashes recorded in tests/golden/v1-frames.txt by version 1's program
# (commit c919462) before the render session redesign. Each block of that file is
# "# ARGS" followed by the `--hash` lines of `rockpool ARGS`. The hashes were made with the
# preset named by a `preset` line of the scene: version 1's `--preset` option left the
# rockpool preset's drop shape in place (a bug, fixed), so the option must now give what
# the scene line gave. The `rockpool` preset is not here: version 2 gave it a new look.
source "$(dirname "$0")/lib.sh"
golden=$TOP/tests/golden/v1-frames.txt
cd "$TOP" || exit 1
args=""
want="$WORK/want"
: >"$want"
flush() {
    [ -n "$args" ] || return 0
    for j in 1 2 3; do
        # shellcheck disable=SC2086
        "$ROCKPOOL" -q $args -j $j --hash -f framemd5 -o /dev/null >"$WORK/got" 2>"$WORK/err"
        if cmp -s "$want" "$WORK/got"; then ok "v1 frames: $args -j $j"; else
            bad "v1 frames: $args -j $j"
            diff "$want" "$WORK/got" | head -4 | sed 's/^/    /'
        fi
    done
}
while IFS= read -r line; do
    case $line in
    "# "*) flush; args=${line#\# }; : >"$want" ;;
    *) printf '%s\n' "$line" >>"$want" ;;
    esac
done <"$golden"
flush
