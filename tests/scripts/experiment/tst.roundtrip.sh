#!/bin/sh
# asserts: every D script test of the suite (tst.*.d and drp.*.d: printf,
# trace, stacks, every aggregating function, printa, speculations, drops,
# errors, exit status), recorded with -x record and replayed with
# dtrace -r, prints the same stdout byte for byte, the same drop and
# error messages on stderr, and exits with the same status.
# Not replayed: scripts whose system() or freopen() act outside dtrace
# (a replay neither runs commands nor writes files).
top=$(cd ../../.. && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

magic() {
	head -n 15 "$1" | sed -n "s/.*$2: *\\(.*[^ */]\\) *\\**\\/*\$/\\1/p" | head -n 1
}

# the stderr lines a replay reproduces: drops and errors
reported() {
	grep -E 'drop|error on enabled probe|DTRACEDROP' "$1"
}

for f in $(find "$top/tests/scripts" \( -name 'tst.*.d' -o -name 'drp.*.d' \) | sort); do
	base=$(basename "$f")
	case $base in *system*|*freopen*) continue ;; esac
	grep -q 'system(\|freopen(' "$f" && continue
	if [ "$(magic "$f" requires)" = root ] && [ "$(id -u)" != 0 ]; then
		continue
	fi
	flags=$(magic "$f" dtrace-flags)
	case $base in drp.*) flags="-xdroptags ${flags:--q}" ;; esac
	rm -rf "$tmp/rt.er"
	(cd "$(dirname "$f")" && timeout 30 "$DTRACE" -x record="$tmp/rt.er" \
	    ${flags:--q} -s "$base") > "$tmp/live" 2> "$tmp/live.err"
	live=$?
	[ $live -ge 124 ] && continue		# timed out live: not ours
	n=$((n + 1))
	timeout 30 "$DTRACE" -r "$tmp/rt.er" > "$tmp/replay" 2> "$tmp/replay.err"
	replay=$?
	if [ $live -ne $replay ]; then
		echo "$base: exit $live live, $replay replayed"
		head -n 5 "$tmp/replay.err"
		fail=1
	elif ! cmp -s "$tmp/live" "$tmp/replay"; then
		echo "$base: stdout differs"
		diff "$tmp/live" "$tmp/replay" | head -n 10
		fail=1
	elif [ "$(reported "$tmp/live.err")" != "$(reported "$tmp/replay.err")" ]; then
		echo "$base: drops or errors differ"
		diff "$tmp/live.err" "$tmp/replay.err" | head -n 10
		fail=1
	fi
done
if [ $n -lt 20 ]; then
	echo "only $n scripts recorded"
	exit 1
fi
echo "$n scripts" >&2
exit $fail
