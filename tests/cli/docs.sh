#!/usr/bin/env bash
# docs.sh - the documentation agrees with the program: every long option of --help has an
# entry in rockpool(1)'s OPTIONS; the man pages as built and installed carry VERSION in
# their footer, as -V does; the percentage radii rockpool-scene(5) describes give the
# pixels its formula says; WebM sound is Opus or Vorbis as rockpool(1) says (ffprobe);
# --help's lines fit 80 columns; the man pages' error examples are what rockpool prints;
# --dump-heights, the default video and the signals behave as rockpool(1) and README say;
# rockpool(3) and rpcore(3) are their headers': every function declared has its prototype in
# the SYNOPSIS, as declared, and an entry under FUNCTIONS, and the SYNOPSIS declares nothing
# else; every struct and enum is under TYPES and every macro under CONSTANTS, as written;
# each function's entry says its header comment, word for word;
# rpcore(3) gives the header's version; groff renders both without a warning.
source "$(dirname "$0")/lib.sh"

version=$(cat "$TOP/VERSION")
check "-V prints VERSION ($version)" test "$("$ROCKPOOL" -V)" = "rockpool $version"

# ---- every long option of --help is an OPTIONS entry of rockpool(1) -----------------------
# An entry is the tag line after .TP; roff writes '-' as '\-'.
awk '/^\.SH OPTIONS/ { o = 1; next } /^\.SH/ { o = 0 } o && prev == ".TP" { print }
    { prev = $0 }' "$TOP/man/rockpool.1" | sed 's/\\-/-/g' >tags
"$ROCKPOOL" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >opts
check "--help names some long options ($(wc -l <opts))" test "$(wc -l <opts)" -ge 30
while read -r o; do
    check "rockpool(1) has an entry for $o" grep -qE -- "$o([^a-z0-9-]|$)" tags
done <opts

# ---- every ending -o guesses a format from is in rockpool(1)'s -o entry -------------------
# The endings as the program lists them when it cannot tell (output.c's backends).
"$ROCKPOOL" -q -s 32x24 -n 1 -o x.unknown 2>ext.err
exts=$(grep -o 'a path ending in [^(]*' ext.err | grep -oE '\.[a-z0-9]+')
check "the program lists the endings it guesses ($(echo $exts))" test "$(echo "$exts" | wc -l)" -ge 10
o_entry=$(awk '/^\.SH OPTIONS/ { o = 1 } o && /^\.TP/ { n++ } o && n == 1' "$TOP/man/rockpool.1")
for e in $exts; do
    check "rockpool(1) -o names $e" grep -qF "\\fB$e\\fR" <<<"${o_entry//out.mp4/.mp4}"
    [ "$e" = .png ] && continue
    check "... and -o x$e is taken (--check)" "$ROCKPOOL" -q -s 32x24 -n 1 -o "x$e" --check
done

# ---- FFmpeg with the plugin: the README's and the pages' MP4 examples are playable --------
# Each ffmpeg command with frei0r=rockpool that writes an MP4 (backslash lines joined)
# converts to yuv420p after the filter: without it libx264 gets RGBA and writes yuv444p
# (High 4:4:4), which browsers and phones refuse (rockpool-frei0r(7) HOSTS).
python3 - "$TOP" >frei0r-mp4.txt <<'PY'
import re, sys
top = sys.argv[1]
for name in ('README.md', 'man/rockpool-frei0r.7', 'man/rockpool.1'):
    text = open(f'{top}/{name}').read().replace('\\e\n', ' ').replace('\\\n', ' ')
    for line in text.split('\n'):
        line = line.replace('\\-', '-')
        if 'frei0r=rockpool:' in line and 'ffmpeg' in line and re.search(r'\.mp4\s*$', line):
            print(('ok ' if 'format=yuv420p' in line else 'BAD ') + name + ': ' +
                  ' '.join(line.split()))
PY
check "the pages show ffmpeg with the plugin writing MP4 ($(grep -c . frei0r-mp4.txt))" \
    test "$(grep -c . frei0r-mp4.txt)" -ge 3
while read -r verdict where; do
    check "${where%%:*}: format=yuv420p after the filter (${where#*: })" test "$verdict" = ok
done <frei0r-mp4.txt
# The two runs below load the plugin into FFmpeg, which is not built with ASan: a sanitizer
# build's plugin cannot be loaded there (frei0r.sh skips the same).
san=0
nm "$ROCKPOOL" 2>/dev/null | grep -q __asan_init && san=1
if [ $san = 1 ]; then
    echo "[ SKIPPED  ] README's and rockpool-frei0r(7)'s ffmpeg examples: a sanitizer build's plugin needs an ASan host"
else
    # README's first one, run as written (build/ the build directory): H.264 yuv420p (ffprobe)
    ffmpeg -v error -f lavfi -i testsrc2=size=160x90:rate=30 -t 0.5 -c:v libx264 -pix_fmt yuv420p \
        clip.mp4
    mkdir -p build examples
    ln -s "$(dirname "$ROCKPOOL")/frei0r" build/frei0r
    cp "$TOP/examples/rain.scene" examples/
    readme_cmd=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$TOP/README.md" |
        grep -m 1 '^ *FREI0R_PATH=build/frei0r ffmpeg -i clip.mp4 ')
    bash -c "$readme_cmd -v error -y" 2>frei0r.err
    check "README's ffmpeg -vf frei0r=rockpool example: out.mp4 is h264,yuv420p (ffprobe)" \
        test "$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,pix_fmt \
        -of csv=p=0 out.mp4 2>/dev/null)" = h264,yuv420p

    # rockpool-frei0r(7)'s first example, run as written (bg.png at the scene's size): FFmpeg
    # with the plugin prints rockpool's 120 hashes, and nothing on stderr (with -t 4 after -i,
    # FFmpeg passed the filter the frame at 4 s and the plugin said it was past the scene's end)
    ffmpeg -v error -f lavfi -i testsrc2=size=640x360:rate=1 -frames:v 1 bg.png
    cp "$TOP/examples/rain.scene" rain.scene
    sed -n '/^\.nf/,/^\.fi/p' "$TOP/man/rockpool-frei0r.7" | sed -e 's/\\-/-/g' -e 's/\\e$/\\/' |
        sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >frei0r-example.txt
    f0_cmd=$(grep -m 1 '^FREI0R_PATH=build/frei0r ffmpeg .*frei0r=rockpool:rain.scene' \
        frei0r-example.txt)
    cli_cmd=$(grep -m 1 '^rockpool rain.scene ' frei0r-example.txt)
    check "rockpool-frei0r(7) shows the ffmpeg and rockpool commands" test -n "$f0_cmd" -a -n "$cli_cmd"
    # FFmpeg's banner and progress aside (-v warning): any warning or message fails
    bash -c "${f0_cmd/ ffmpeg / ffmpeg -v warning -nostdin }" >f0.md5 2>f0.err
    f0_status=$?
    check "... ffmpeg with the plugin: exit 0 ($f0_status), nothing on stderr: $(head -c 300 f0.err)" \
        test "$f0_status" = 0 -a ! -s f0.err
    bash -c "\"$ROCKPOOL\" ${cli_cmd#rockpool } -o cli.md5" 2>cli.err
    grep -v '^#' f0.md5 | awk -F, '{gsub(/ /, "", $NF); print $NF}' >f0.h
    grep -v '^#' cli.md5 | awk -F, '{gsub(/ /, "", $NF); print $NF}' >cli.h
    check "... 120 frames from the plugin" test "$(wc -l <f0.h)" = 120
    check "... the same hashes as rockpool's" cmp -s f0.h cli.h
fi

# ---- the man pages' version is VERSION ----------------------------------------------------
# Built into a build tree of the test's own: make's rule, from man/ and VERSION.
make -s -C "$TOP" BUILD="$WORK/b" "$WORK/b/man/rockpool.1" "$WORK/b/man/rockpool-scene.5" \
    "$WORK/b/man/rockpool-frei0r.7" \
    >make.out 2>&1
make -s -C "$TOP" BUILD="$WORK/b" "$WORK/b/man/rockpool.3" "$WORK/b/man/rpcore.3" >make.out 2>&1
for page in rockpool.1 rockpool-scene.5 rockpool-frei0r.7 rockpool.3 rpcore.3; do
    check "$page as built: .TH says rockpool $version" \
        grep -qF "\"rockpool $version\"" <(grep '^\.TH ' "b/man/$page")
    check "$page as built: man's footer line says rockpool $version" sh -c \
        "MANWIDTH=80 man -l b/man/$page 2>/dev/null | tail -n 1 | grep -qF 'rockpool $version'"
done
make -s -C "$TOP" BUILD="$WORK/c" VERSION=9.8.7 "$WORK/c/man/rockpool.1" >make.out 2>&1
check "the version comes from VERSION (VERSION=9.8.7 gives 9.8.7)" \
    grep -q '^\.TH .*"rockpool 9\.8\.7"' c/man/rockpool.1
check "make install installs the built pages" sh -c \
    "make -s -n -C '$TOP' BUILD='$WORK/b' DESTDIR='$WORK/inst' install | \
     grep -q '$WORK/b/man/rockpool.1 .*man1/rockpool.1'"
check "make install installs the built library pages" sh -c \
    "make -s -n -C '$TOP' BUILD='$WORK/b' DESTDIR='$WORK/inst' install | \
     grep -q '$WORK/b/man/rockpool.3 $WORK/b/man/rpcore.3 .*man3/'"

# ---- rockpool(3) and rpcore(3) are include/rockpool.h and include/rpcore.h ---------------
# The header's declarations, comments and preprocessor lines aside; the page's text with
# roff's escapes undone. Each difference is a line of api-docs.txt.
python3 - "$TOP" >api-docs.txt <<'PY'
import re, sys
top = sys.argv[1]

def header(path):
    text = open(path).read()
    text = re.sub(r'#ifdef __cplusplus\s*\n\s*(extern "C" \{|\})\s*\n\s*#endif', '', text)
    defines = [' '.join(m.group(0).replace('\\\n', ' ').split())
               for m in re.finditer(r'^#define (RP_\w+)(?:[^\n]*\\\n)*[^\n]*', text, re.M)
               if m.group(1) != 'RP_API']
    types = [' '.join(m.group(0).split())
             for m in re.finditer(r'^(?:typedef )?(?:struct|enum) \w+ \{.*?^\}[^;]*;', text,
                                  re.M | re.S)]
    code = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
    code = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', code, flags=re.M)
    funcs = {}
    depth, stmt = 0, ''
    for ch in code:
        depth += ch == '{'
        depth -= ch == '}'
        stmt += ch
        if ch == '}' and depth == 0 or ch == ';' and depth == 0:
            s = ' '.join(stmt.split())
            s = re.sub(r'^RP_API ', '', s).replace('( ', '(').replace(' )', ')')
            m = re.match(r'^(?!typedef)[^(){};]*?\b(rp_\w+)\(.*\);$', s)
            if m:
                funcs[m.group(1)] = s
            stmt = ''
    return funcs, types, defines

def page(path):
    text = open(path).read()
    text = re.sub(r'\\f[BIRP]', '', text)
    text = text.replace('\\-', '-').replace('\\&', '').replace("\\(aq", "'")
    text = text.replace('\\e', '\\')
    sections, name = {}, None
    for line in text.split('\n'):
        if line.startswith('.SH '):
            name = line[4:].strip('"')
            sections[name] = []
        elif name:
            sections[name].append(line)
    return sections

for hname, mname in (('rockpool.h', 'rockpool.3'), ('rpcore.h', 'rpcore.3')):
    funcs, types, defines = header(f'{top}/include/{hname}')
    sec = page(f'{top}/man/{mname}')
    if len(funcs) < 30:
        print(f'{hname}: only {len(funcs)} functions found: the parse is broken')
    syn = [' '.join(l.split()) for l in sec.get('SYNOPSIS', []) if l.rstrip().endswith(');')]
    synnames = {re.search(r'\b(rp_\w+)\(', l).group(1): l for l in syn}
    entries = set(re.findall(r'^\.BR (rp_\w+) \(\)$', '\n'.join(sec.get('FUNCTIONS', [])), re.M))
    for f, proto in funcs.items():
        if f not in synnames:
            print(f'{mname}: SYNOPSIS lacks {f} ({hname}: {proto})')
        elif synnames[f] != proto:
            print(f'{mname}: SYNOPSIS says "{synnames[f]}", {hname} "{proto}"')
        if f not in entries:
            print(f'{mname}: FUNCTIONS has no entry for {f}')
    for f in set(synnames) - set(funcs):
        print(f'{mname}: SYNOPSIS declares {f}, which {hname} does not')
    for f in entries - set(funcs):
        print(f'{mname}: FUNCTIONS describes {f}, which {hname} does not declare')
    flat = ' '.join(' '.join(sec.get('TYPES', [])).split())
    for t in types:
        if t not in flat:
            print(f'{mname}: TYPES lacks, as {hname} writes it: {t[:60]}...')
    flat = ' '.join(' '.join(l.rstrip().rstrip('\\') for l in sec.get('CONSTANTS', [])).split())
    for d in defines:
        if d not in flat:
            print(f'{mname}: CONSTANTS lacks, as {hname} writes it: {d}')
    if hname == 'rpcore.h':
        v = {k: re.search(rf'#define RP_CORE_VERSION_{k} (\d+)', open(f'{top}/include/{hname}').read()).group(1)
             for k in ('MAJOR', 'MINOR', 'PATCH')}
        want = f"This page describes version {v['MAJOR']}.{v['MINOR']}.{v['PATCH']} of the core API"
        if want not in ' '.join(' '.join(sec.get('DESCRIPTION', [])).split()):
            print(f'{mname}: DESCRIPTION does not say "{want}"')
    print(f'{mname}: {len(funcs)} functions, {len(types)} types, {len(defines)} macros')
PY
check "rockpool(3) and rpcore(3) agree with their headers" \
    test "$(grep -vc ': [0-9]* functions, ' api-docs.txt)" = 0
grep -v ': [0-9]* functions, ' api-docs.txt | head -20 | sed 's/^/    /'
check "rockpool(3) documents the session API (rockpool.h's functions, at least 30)" \
    grep -qE '^rockpool.3: ([3-9][0-9]|[0-9]{3}) functions, [1-9][0-9]* types' api-docs.txt
check "rpcore(3) documents the core API (rpcore.h's functions, at least 30)" \
    grep -qE '^rpcore.3: ([3-9][0-9]|[0-9]{3}) functions, [1-9][0-9]* types' api-docs.txt
# Each function's FUNCTIONS entry is the header's comment above it (or above the type declared
# between them), word for word: roff's requests and escapes aside, a nested list's tags and
# text joined. Each difference is a line of api-words.txt.
python3 - "$TOP" rockpool rpcore >api-words.txt <<'PY'
import re, sys
top, names = sys.argv[1], sys.argv[2:]

def words(s):
    return ' '.join(s.split())

def comments(path):
    text = open(path).read()
    text = re.sub(r'#ifdef __cplusplus\s*\n\s*(extern "C" \{|\})\s*\n\s*#endif', '', text)
    said, last = {}, None
    for m in re.finditer(r'/\*\*(.*?)\*/|/\*.*?\*/|\{.*?\}|\b(rp_\w+)\((?=[^;{]*\);)', text, re.S):
        if m.group(1) is not None:
            last = words(re.sub(r'\n\s*\*(?!/) ?', '\n', m.group(1)))
        elif m.group(2):
            said.setdefault(m.group(2), last)
    return said

def entries(path):
    text = open(path).read()
    text = re.sub(r'\\f[BIRP]', '', text)
    text = text.replace('\\-', '-').replace('\\&', '').replace("\\(aq", "'")
    text = text.replace('\\e', '\\')
    lines = text.split('\n.SH FUNCTIONS\n', 1)[1].split('\n.SH ', 1)[0].split('\n')
    lines += ['.TP', '.BR end']  # closes the last entry
    said, names, body, depth = {}, [], [], 0
    for i, line in enumerate(lines):
        if line == '.TP' and depth == 0 and lines[i + 1].startswith('.BR '):
            said.update((n, words(' '.join(body))) for n in names)
            names, body = [], []
        elif line.startswith('.BR ') and not body:
            names.append(line.split()[1])
        depth += line.startswith('.RS') - line.startswith('.RE')
        if not line.startswith('.'):
            body.append(line)
    return said

for name in names:
    page, n = entries(f'{top}/man/{name}.3'), 0
    for f, comment in comments(f'{top}/include/{name}.h').items():
        n += f in page
        if f in page and page[f] != comment:
            print(f'{name}.3: {f}: "{page[f]}", {name}.h: "{comment}"')
    print(f'{name}.3: {n} entries compared')
PY
check "rockpool(3)'s and rpcore(3)'s entries say their header comments" \
    test "$(grep -vc ': [0-9]* entries compared$' api-words.txt)" = 0
grep -v ': [0-9]* entries compared$' api-words.txt | sed 's/^/    /'
for page in rockpool rpcore; do
    check "... at least 30 of $page(3)'s compared" \
        grep -qE "^$page.3: ([3-9][0-9]|[0-9]{3}) entries" api-words.txt
done
# rp_settings_set's names (settings_set.c) are each an entry of rpcore(3)'s list: a tag at
# the start of a rendered line (the list was once run together into one paragraph).
MANWIDTH=100 man -l "$TOP/man/rpcore.3" 2>/dev/null >rpcore.txt
names=$(sed -n '/^int rp_settings_set(/,/^}/p' "$TOP/src/scene/settings_set.c" |
    grep -oE 'strcmp\(name, "[a-z]+"\)' | grep -oE '"[a-z]+"')
check "rp_settings_set takes some names ($(echo $names))" test "$(echo "$names" | wc -l)" -ge 9
for n in $names; do
    check "rpcore(3) lists rp_settings_set's $n as an entry" grep -qE "^ +$n +[a-z0-9]" rpcore.txt
done
# rp_aov_from_name's entry in rockpool(3) names every kind of enum rp_aov, as --aov takes them.
aov_entry=$(sed -n '/^\.BR rp_aov_from_name ()/,/^\.TP/p' "$TOP/man/rockpool.3" | tr '\n' ' ')
for k in $(sed -n '/^enum rp_aov {/,/^}/p' "$TOP/include/rockpool.h" | grep -oE 'RP_AOV_[A-Z]+' |
    grep -v KINDS | sed 's/RP_AOV_//' | tr 'A-Z' 'a-z'); do
    check "rockpool(3): rp_aov_from_name names \"$k\"" grep -qF "\"$k\"" <<<"$aov_entry"
    check "... and --aov takes $k" "$ROCKPOOL" -q -s 32x24 -n 1 --aov "$k" "a_${k}_%d.png" --hash
done
for page in rockpool.3 rpcore.3; do
    check "groff renders $page without a warning" \
        test -z "$(groff -man -Tutf8 -ww -z "$TOP/man/$page" 2>&1)"
done

# ---- percentage radii (rockpool-scene(5) COORDINATES): floor(width * p / 100) pixels -----
check "rockpool-scene(5) documents percentage radii" grep -q 'radius 0.8%\.\.1.6%' \
    "$TOP/man/rockpool-scene.5"
pct() { # WIDTH RADIUS...: --hash of a drop of that radius at that width
    local w=$1
    shift
    printf 'size %dx96\nfps 30\nduration 6f\nseed 2\nat 0f drop 50%% 50%% radius %s height 2000
at 1f..6f rain rate 60/s radius %s height 500\n' "$w" "$1" "$2" >p.scene
    "$ROCKPOOL" -q p.scene --hash
}
# by hand: 400 * 2 / 100 = 8, 400 * 1.5 / 100 = 6, 1920 * 2 / 100 = 38.4 -> 38,
# 400 * 0.8 / 100 = 3.2 -> 3, 400 * 1.6 / 100 = 6.4 -> 6
check "radius 2% at width 400 is radius 8" test "$(pct 400 2% 1.5%)" = "$(pct 400 8 6)"
check "radius 2% at width 1920 is radius 38" test "$(pct 1920 2% 2%)" = "$(pct 1920 38 38)"
check "rain radius 0.8%..1.6% at width 400 is 3..6" \
    test "$(pct 400 2% 0.8%..1.6%)" = "$(pct 400 8 3..6)"
check "... and not 4..6 (the test can tell)" test "$(pct 400 2% 0.8%..1.6%)" != "$(pct 400 8 4..6)"

# ---- WebM sound: Opus at 48 kHz, Vorbis at 44.1 kHz (rockpool(1) VIDEO BACKGROUNDS) -------
printf 'size 64x48\nfps 25\nduration 10f\n' >a.scene
for rate in 48000 44100; do
    ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=25 -f lavfi \
        -i "sine=frequency=440:sample_rate=$rate" -t 0.4 -c:v libx264 -pix_fmt yuv420p \
        -c:a aac "a$rate.mp4"
    "$ROCKPOOL" -q a.scene -i "a$rate.mp4" -o "a$rate.webm"
done
codec() { ffprobe -v error -select_streams a -show_entries stream=codec_name -of csv=p=0 "$1"; }
check "WebM sound of a 48 kHz clip is Opus" test "$(codec a48000.webm)" = opus
check "WebM sound of a 44.1 kHz clip is Vorbis" test "$(codec a44100.webm)" = vorbis
check "rockpool(1) says 44.1 kHz becomes Vorbis" grep -q '44.1 kHz.*Vorbis' "$TOP/man/rockpool.1"

# ---- decimal NTSC rates: what rockpool(1) and rockpool-scene(5) say of rockpool and of FFmpeg -
# Both pages say 29.97 and 23.976 are the NTSC ratios to rockpool, while FFmpeg's own -r 29.97
# is 2997/100 (they once said rockpool read them "as FFmpeg" does); both halves are checked.
for r in 29.97:30000/1001 23.976:24000/1001 59.94:60000/1001; do
    check "-r ${r%%:*} is ${r#*:} (rockpool --check)" \
        grep -qF "fps:        ${r#*:} " <("$ROCKPOOL" -r "${r%%:*}" -n 1 --check 2>&1)
done
ffmpeg -v error -f lavfi -i testsrc=size=32x24 -r 29.97 -frames:v 2 ntsc.mp4
check "ffmpeg -r 29.97 gives 2997/100 (as the pages say)" \
    test "$(probe ntsc.mp4 r_frame_rate)" = 2997/100
for page in rockpool.1 rockpool-scene.5; do
    check "$page gives FFmpeg's reading of 29.97 as 2997/100" grep -q '2997/100' "$TOP/man/$page"
    check "$page does not say rockpool reads 29.97 as FFmpeg does" \
        sh -c "! grep -qE 'as (in FFmpeg|FFmpeg reads)' '$TOP/man/$page'"
done

# ---- --help fits a screen: no line over 80 columns -----------------------------------------
"$ROCKPOOL" --help >help.txt
check "--help: no line over 80 columns ($(awk '{ if (length($0) > m) m = length($0) } END { print m }' help.txt) at most)" \
    awk 'length($0) > 80 { bad = 1 } END { exit bad }' help.txt
check "--help: the dump is the grid's cells" grep -q -- '--dump-heights.*grid' help.txt
# ... and so do the scripts' (README: every script in scripts/ prints its usage with --help),
# and examples/slurm-array.sh's, the farm's other entry point.
for s in "$TOP"/scripts/* "$TOP/examples/slurm-array.sh"; do
    n=${s#"$TOP"/}
    "$s" --help >shelp.txt 2>&1
    check "$n --help: exit 0" test $? -eq 0
    check "$n --help: a usage line" grep -qi '^usage: ' shelp.txt
    check "$n --help: no line over 80 columns ($(awk '{ if (length($0) > m) m = length($0) } END { print m }' shelp.txt) at most)" \
        awk 'length($0) > 80 { bad = 1 } END { exit bad }' shelp.txt
done
"$TOP/examples/slurm-array.sh" >shelp.txt 2>&1
check "slurm-array.sh without SCENE and OUTPUT: exit 2, bad usage (it was 1)" test $? -eq 2
check "... saying what to give" grep -q '^slurm-array.sh: error: give SCENE and OUTPUT' shelp.txt

# ---- the ERRORS examples of rockpool-scene(5) and rockpool-frei0r(7) are what rockpool prints
# man_has PAGE LINE: the page holds LINE as a whole line.
man_has() { grep -qxF -- "$2" "$TOP/man/$1"; }
printed() { # SCENE-TEXT: the first line rockpool prints for rain.scene, without "rockpool: "
    printf "$1" >rain.scene
    "$ROCKPOOL" --check rain.scene 2>&1 >/dev/null | head -n 1 | sed 's/^rockpool: //'
}
drpo=$(printed '# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n# 9\n# 10\n# 11\nat 1s drpo 3 4\n')
check "rockpool-scene(5) shows the unknown-action error as printed ($drpo)" \
    man_has rockpool-scene.5 "$drpo"
check "rockpool-frei0r(7) shows it too, after 'rockpool frei0r: '" \
    man_has rockpool-frei0r.7 "rockpool frei0r: $drpo"
for s in 'at 1s drop 5 5 radius height 500' 'at 1s drop 5 5 radius' 'at 1s drop 5 5 radius 0'; do
    e=$(printed "size 640x480\nduration 10s\n$s\n")
    check "rockpool-scene(5) shows '$e' as printed" man_has rockpool-scene.5 "$e"
done
check "... and the check can fail (an old example is not printed)" \
    test "$drpo" != "rain.scene:12:7: error: unknown action 'drpo' (expected drop, rain, stroke, wall)"

# ---- --dump-heights holds the grid's cells (rockpool(1)): harbour at 1280x720 is 640x360 ----
"$ROCKPOOL" -q "$TOP/examples/harbour.scene" -s 1280x720 -n 2 -f framemd5 -o /dev/null \
    --dump-heights h.bin
check "harbour -s 1280x720: 2 frames of 640x360 int16 heights" \
    test "$(stat -c %s h.bin)" -eq $((640 * 360 * 2 * 2))
check "rockpool(1) says so" grep -q 'harbour.scene\\fR at \\fB\\-s 1280x720\\fR dumps 640x360' \
    "$TOP/man/rockpool.1"

# ---- no default video beside --hash, whatever else is asked (README, rockpool(1) -o) --------
"$ROCKPOOL" -q -s 64x48 -n 2 --aov height h/h_%03d.png --hash >hash.out
check "--aov with --hash: the PNGs and the hashes, no rockpool.mp4" \
    sh -c 'test -f h/h_001.png && test "$(wc -l <hash.out)" -eq 2 && test ! -e rockpool.mp4'
"$ROCKPOOL" -q -s 64x48 -n 2 --aov height g/g_%03d.png
check "--aov alone: rockpool.mp4 too (the check can tell)" test -s rockpool.mp4
check "README states the rule" grep -q 'A run with any of `--hash`, `--verify`, `--stats` or `--dump-heights`' \
    "$TOP/README.md"

# ---- signals (rockpool(1) EXIT STATUS): SIGINT keeps the video, SIGHUP leaves nothing ------
printf 'size 64x48\nfps 30\nduration 100000s\nat 0s..10s rain rate 20/s radius 2 height 500\n' \
    >long.scene
for sig in INT:130 HUP:129; do
    timeout --preserve-status -k 5 -s "${sig%:*}" 2 "$ROCKPOOL" -q long.scene -o "s${sig%:*}.mkv" \
        2>sig.err
    check "SIG${sig%:*}: exit ${sig#*:}" test $? -eq "${sig#*:}"
done
check "SIGINT: the video is kept" test -s sINT.mkv
check "SIGHUP: no video" test ! -e sHUP.mkv
check "rockpool(1) says SIGHUP leaves nothing" grep -q 'After SIGHUP, or SIGPIPE' "$TOP/man/rockpool.1"
# ... also once every frame is rendered, while x264 (veryslow: a long lookahead) still
# encodes: the file -y would replace stays as it was, and no side file is left
printf 'original\n' >fin.mp4
"$ROCKPOOL" long.scene -s 640x360 -n 150 -y -o fin.mp4 --encoder-preset veryslow --progress \
    --stats fin.csv 2>fin.err &
pid=$!
for _ in $(seq 400); do grep -q 'frame 150/150' fin.err 2>/dev/null && break; sleep 0.05; done
kill -HUP "$pid"
wait "$pid"
st=$?
check "SIGHUP while the encoder finishes: exit 129" test "$st" -eq 129
check "SIGHUP while the encoder finishes: the file -y would replace is as it was" \
    grep -qx original fin.mp4
check "SIGHUP while the encoder finishes: no side file or temporary file" \
    sh -c 'test ! -e fin.csv && ! ls -a | grep -q "tmp-"'
# The progress line of a range from a later frame also counts within the range: the last
# of --start 10 --end 20 is frame 20 of the timeline's 20 so far, the 10th of 10 written.
"$ROCKPOOL" long.scene -s 64x36 -n 30 --start 10 --end 20 --hash --progress >/dev/null \
    2>range.err
check "progress of --start 10 --end 20 ends 'frame 20/20 (10 of 10)'" \
    sh -c "tr '\\r' '\\n' <range.err | grep -q '^frame 20/20 (10 of 10) '"
"$ROCKPOOL" long.scene -s 64x36 -n 30 --end 20 --hash --progress >/dev/null 2>zero.err
check "progress from frame 0 stays 'frame 20/20'" \
    sh -c "tr '\\r' '\\n' <zero.err | grep -q '^frame 20/20  '"
# SIGINT before the first frame: a video of no frame is no video
timeout --preserve-status -s INT 1 "$ROCKPOOL" -q long.scene -n 100000000 --start 99999999 \
    -o early.mkv 2>early.err
check "SIGINT before the first frame: exit 130" test $? -eq 130
check "SIGINT before the first frame: no video left" test ! -e early.mkv
check "SIGINT before the first frame: says nothing was written" \
    sh -c '! grep -q "holds 0 frames" early.err'
