#!/bin/sh
# asserts: dtrace -r refuses what is not an experiment (a file, an empty
# or foreign directory, a data file with a bad header) with a message
# naming the file and offset; an experiment cut short or damaged in the
# middle replays up to its last whole block, with a warning naming the
# file and offset, printing a prefix of the live text; garbage never
# crashes or hangs the reader.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
printf 'int i;\ntick-1ms { printf("line %%d\\n", i++); }\ntick-1ms /i == 120/ { exit(0); }\n' > lines.d
"$DTRACE" -q -x switchrate=5ms -x record=good.er -s lines.d > live 2> live.err ||
    { cat live.err; exit 1; }
[ "$(wc -l < live)" -ge 120 ] || { echo "live: $(wc -l < live) lines"; exit 1; }

# refuse EXP WANT...: replay of EXP fails (exit 1, not a crash) and
# stderr holds every WANT
refuse() {
	e=$1; shift
	timeout 20 "$DTRACE" -r "$e" > out 2> err
	rc=$?
	if [ $rc -ne 1 ]; then echo "$e: exit $rc, want 1: $(cat err)"; exit 1; fi
	for w in "$@"; do
		grep -q -- "$w" err || { echo "$e: stderr lacks '$w': $(cat err)"; exit 1; }
	done
}

# partial EXP WANT...: replay succeeds with a warning holding every WANT,
# and prints a non-empty prefix of the live text
partial() {
	e=$1; shift
	timeout 20 "$DTRACE" -r "$e" > out 2> err
	rc=$?
	if [ $rc -ne 0 ]; then echo "$e: exit $rc: $(cat err)"; exit 1; fi
	for w in warning "$@"; do
		grep -q -- "$w" err || { echo "$e: stderr lacks '$w': $(cat err)"; exit 1; }
	done
	n=$(wc -c < out)
	[ "$n" -gt 0 ] || { echo "$e: nothing replayed"; exit 1; }
	head -c "$n" live | cmp -s - out || { echo "$e: not a prefix of the live text"; exit 1; }
	[ "$n" -lt "$(wc -c < live)" ] || { echo "$e: all of it replayed"; exit 1; }
}

"$DTRACE" -r good.er > out 2> err && cmp -s live out ||
    { echo "good.er does not replay: $(cat err)"; exit 1; }

touch afile; refuse afile "afile" "not a directory"
mkdir empty; refuse empty "empty/log.xml"
mkdir foreign; echo '<x/>' > foreign/log.xml; refuse foreign "foreign/descriptions"

cp -r good.er magic.er; printf 'NOTMAGIC' | dd of=magic.er/principal conv=notrunc 2>/dev/null
refuse magic.er "magic.er/principal" "offset 0" "magic"
cp -r good.er ver.er; printf '\007' | dd of=ver.er/events bs=1 seek=8 conv=notrunc 2>/dev/null
refuse ver.er "ver.er/events" "version" "offset 8"
cp -r good.er empty.er; : > empty.er/aggregations
refuse empty.er "empty.er/aggregations" "offset 0"

# cut short inside the principal file's last blocks
size=$(stat -c %s good.er/principal)
cp -r good.er cut.er; truncate -s $((size * 2 / 3)) cut.er/principal
partial cut.er "cut.er/principal" "offset"
# one byte changed inside a block in the middle
cp -r good.er flip.er
printf '\377' | dd of=flip.er/principal bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
partial flip.er "flip.er/principal" "offset"

# garbage after the headers of every data file: refused or partial,
# never a crash or a hang
for seed in 1 2 3 4 5 6; do
	cp -r good.er g$seed.er
	for f in events principal aggregations descriptions archives/symbols; do
		size=$(stat -c %s g$seed.er/$f)
		[ "$size" -gt 80 ] || continue
		off=$(( 64 + (seed * 977) % (size - 64) ))
		head -c 64 /dev/urandom | dd of=g$seed.er/$f bs=1 seek=$off conv=notrunc 2>/dev/null
	done
	timeout 20 "$DTRACE" -r g$seed.er > out 2> err
	rc=$?
	if [ $rc -gt 1 ]; then echo "g$seed.er: exit $rc: $(cat err)"; exit 1; fi
done
exit 0
