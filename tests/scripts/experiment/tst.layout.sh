#!/bin/sh
# asserts: -x record names experiments test.1.er, test.2.er ... in the
# current directory, -x record=NAME.er and #pragma D option record work,
# and the directory holds what the Analyzer's layout lists: log.xml (D
# source, options, probes matched, versions, word size, session events),
# map.xml, overview (one entry per tick), the data files, notes (with
# recordnote) and archives/.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
prog='tick-10ms { @c = count(); } tick-50ms { printf("%d\n", 3); exit(0); }'
"$DTRACE" -q -x switchrate=10ms -x record -n "$prog" > out1 2> err1 || { cat err1; exit 1; }
"$DTRACE" -q -x switchrate=10ms -x record -x recordnote='a <note>' -n "$prog" > out2 2> err2 || exit 1
[ -d test.1.er ] && [ -d test.2.er ] || { echo "not test.1.er, test.2.er:"; ls; exit 1; }
# one past the highest, as collect numbers them
mv test.1.er keep.er
"$DTRACE" -q -x record -n 'BEGIN { exit(0); }' > /dev/null || exit 1
[ -d test.3.er ] && [ ! -d test.1.er ] || { echo "not test.3.er:"; ls; exit 1; }
"$DTRACE" -q -x switchrate=10ms -x record=mine.er -n "$prog" > /dev/null || exit 1
[ -d mine.er ] || { echo "no mine.er"; exit 1; }
printf '#pragma D option record=prag\n%s\n' "$prog" > p.d
"$DTRACE" -q -x switchrate=10ms -s p.d > /dev/null || exit 1
[ -d prag.1.er ] || { echo "no prag.1.er"; ls; exit 1; }

e=test.2.er
for f in log.xml map.xml overview events principal aggregations \
    descriptions archives/symbols notes; do
	[ -f "$e/$f" ] || { echo "missing $e/$f"; exit 1; }
done
grep -q 'a <note>' $e/notes || { echo "notes: $(cat $e/notes)"; exit 1; }
log=$e/log.xml
for want in '<experiment version="1.2">' 'wordsize="64"' \
    'printf("%d\\n", 3)' 'probes="2"' '<event kind="start"' \
    '<event kind="exit" t="[0-9.]*" status="0"/>' '<event kind="stop"' \
    '<option name="switchrate"' 'release="'"$(uname -r)"'"' '</experiment>'; do
	grep -q "$want" $log || { echo "log.xml lacks $want:"; cat $log; exit 1; }
done
grep -q '</map>' $e/map.xml || { echo "map.xml not closed"; exit 1; }
# overview: a 64-byte header, then entries of the size it gives
size=$(stat -c %s $e/overview)
ent=$(od -An -tu8 -j32 -N8 $e/overview | tr -d ' ')
[ "$ent" -gt 0 ] && [ $(( (size - 64) % ent )) -eq 0 ] &&
    [ $(( (size - 64) / ent )) -ge 1 ] ||
    { echo "overview: size $size, entries of $ent"; exit 1; }
head -c 8 $e/principal | grep -q DTUIEXP || { echo "principal: no magic"; exit 1; }
exit 0
