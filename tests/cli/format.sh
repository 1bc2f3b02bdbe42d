#!/usr/bin/env bash
# tests/cli/format.sh - every C file follows the project's .clang-format (the list `make format`
# formats): clang-format --dry-run -Werror reports any deviation. Then proof the check can
# fail: a copy of one file with its indentation broken must be refused.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
if ! command -v clang-format >/dev/null; then
    bad "clang-format is installed (scripts/install-deps installs it)"
    exit 0
fi
files=$(make -s --no-print-directory -f - print-format-files <<'MK'
include Makefile
print-format-files: ; @echo $(FORMAT_FILES)
MK
)
check "the format list names C files" test -n "$files"
# One clang-format for the whole list (a second, where twenty a file took twenty); only when
# it finds a deviation is each file checked on its own, to name them.
if clang-format --dry-run -Werror $files 2>/dev/null; then
    for f in $files; do ok "$f follows .clang-format"; done
else
    for f in $files; do
        check "$f follows .clang-format" clang-format --dry-run -Werror "$f"
    done
fi
cd "$WORK" || exit 1
cp "$TOP/.clang-format" .
printf 'int f(void)\n{\n      return 1;\n}\n' >broken.c
check "a badly indented file is refused" sh -c '! clang-format --dry-run -Werror broken.c 2>/dev/null'
