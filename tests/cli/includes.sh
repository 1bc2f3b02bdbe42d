#!/usr/bin/env bash
# includes.sh - no folder of src/ includes a header of a folder that includes it back,
# directly or through others. The graph is computed from the `#include "DIR/NAME.h"` lines
# of src/*/*.c and src/*/*.h (an edge DIR -> OTHER when a file of DIR includes one of
# OTHER); every pair of folders that reach each other is a loop.
#
# Loops known and left (none now: scene/ holds the plain parameter structs that sim/ and
# look/ include, and the per-frame engine is a folder of its own above them). The check
# fails on any other loop, and on a listed one that is gone (take it off the list then).
KNOWN=""
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"

python3 - "$root/src" >loops.txt <<'PY'
import os, re, sys
src = sys.argv[1]
edges = {}
inc = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[A-Za-z0-9_]+\.h"')
for d in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, d)):
        continue
    edges.setdefault(d, set())
    for name in sorted(os.listdir(os.path.join(src, d))):
        if not name.endswith(('.c', '.h')):
            continue
        with open(os.path.join(src, d, name), encoding='utf-8', errors='replace') as f:
            for line in f:
                m = inc.match(line)
                if m and m.group(1) != d:
                    edges[d].add(m.group(1))
def reach(a):
    seen, todo = set(), [a]
    while todo:
        for b in edges.get(todo.pop(), ()):
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return seen
r = {a: reach(a) for a in edges}
for a in sorted(edges):
    for b in sorted(edges):
        if a < b and b in r[a] and a in r.get(b, ()):
            direct = [x for x in (a + ' -> ' + b, b + ' -> ' + a)
                      if x.split(' -> ')[1] in edges[x.split(' -> ')[0]]]
            print(a + '-' + b, '(' + (', '.join(direct) or 'through other folders') + ')')
PY
py=$?
check "python3 computes the include graph" test "$py" = 0
found=$(cut -d' ' -f1 loops.txt | tr '\n' ' ')
[ -n "${found// /}" ] || ok "no folder of src/ includes a header of a folder that includes it back"
for loop in $found; do
    case " $KNOWN " in
    *" $loop "*) ok "known include loop (issue 41): $(grep "^$loop " loops.txt)" ;;
    *) bad "no include loop between folders: $(grep "^$loop " loops.txt)" ;;
    esac
done
for loop in $KNOWN; do
    case " $found " in
    *" $loop "*) ;;
    *) bad "the known include loop $loop is gone: take it off includes.sh's list" ;;
    esac
done
# The layers' arrows point down: the scene (settings, events) under the water and the look,
# the water under the look (issue 41).
for arrow in scene:sim scene:look sim:look; do
    from=${arrow%:*} to=${arrow#*:}
    if grep -ln "^#include \"$to/" "$root/src/$from"/*.[ch] >arrow.txt; then
        bad "no file of src/$from includes a header of src/$to: $(tr '\n' ' ' <arrow.txt)"
    else
        ok "no file of src/$from includes a header of src/$to"
    fi
done
