#!/bin/sh
# tests/scripts/run.sh - D script tests through the real dtrace command.
#
# File kinds (DTrace's test-suite habits, STYLE.md section 11):
#   tst.<what>.d        must exit 0; if tst.<what>.d.out exists, stdout must
#                       equal it exactly
#   err.D_<TAG>.<what>.d must fail to compile with [D_<TAG>] (run with
#                       -xerrtags) and exit 1
#   err.<what>.d        must exit non-zero at run time
#   drp.<KIND>.<what>.d must report a DTRACEDROP_<KIND> drop (-xdroptags)
#   tst.<what>.sh       a shell test: exit 0 pass, 77 skip (first line of
#                       stdout is the reason), else fail; $DTRACE is set;
#                       optional .sh.out compared with stdout
# Magic comments in the first lines of a .d file:
#   dtrace-flags: <flags>   extra flags for dtrace (default: -q -s FILE)
#   requires: root          skip unless running as root
#   exit-status: N          expected exit status instead of 0
# Prints one PASS/FAIL/SKIP line per test.
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE="$top/$B/dtrace"
export DTRACE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/select.sh"

# magic FILE KEY: value of a "KEY:" magic comment in FILE's first 15 lines.
magic() {
	head -n 15 "$1" | sed -n "s/.*$2: *\\(.*[^ */]\\) *\\**\\/*\$/\\1/p" | head -n 1
}

# result NAME OK [DETAIL]
result() {
	if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1"; [ -n "${3:-}" ] && printf '%s\n' "$3" | head -n 15 | sed 's/^/    /'; fi
}

run_d() {
	f=$1; name=${f#"$top/tests/scripts/"}; base=$(basename "$f")
	selected "$name" || return 0
	if [ "$(magic "$f" requires)" = root ] && [ "$(id -u)" != 0 ]; then
		echo "SKIP $name: needs root"; return
	fi
	flags=$(magic "$f" dtrace-flags)
	want=$(magic "$f" exit-status)
	dir=$(dirname "$f")
	case $base in
	err.D_*)
		tag=$(echo "$base" | sed 's/^err\.\(D_[A-Z0-9_]*\)\..*/\1/')
		(cd "$dir" && timeout 30 "$DTRACE" -xerrtags ${flags:--q} -s "$base") \
		    > "$tmp/out" 2> "$tmp/err"
		rc=$?
		if [ $rc -eq 1 ] && grep -q "\[$tag\]" "$tmp/err"; then
			result "$name" 0
		else
			result "$name" 1 "exit $rc, stderr: $(cat "$tmp/err")"
		fi ;;
	err.*)
		(cd "$dir" && timeout 30 "$DTRACE" ${flags:--q} -s "$base") \
		    > "$tmp/out" 2> "$tmp/err"
		rc=$?
		if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ]; then result "$name" 0
		else result "$name" 1 "exit $rc, stderr: $(cat "$tmp/err")"; fi ;;
	drp.*)
		kind=$(echo "$base" | sed 's/^drp\.\([A-Z]*\)\..*/\1/')
		(cd "$dir" && timeout 30 "$DTRACE" -xdroptags ${flags:--q} -s "$base") \
		    > "$tmp/out" 2> "$tmp/err"
		rc=$?
		if grep -q "\[DTRACEDROP_$kind\]" "$tmp/err" && [ $rc -lt 124 ]; then
			result "$name" 0
		else
			result "$name" 1 "exit $rc, stderr: $(cat "$tmp/err")"
		fi ;;
	tst.*)
		(cd "$dir" && timeout 30 "$DTRACE" ${flags:--q} -s "$base") \
		    > "$tmp/out" 2> "$tmp/err"
		rc=$?
		if [ "$rc" != "${want:-0}" ]; then
			result "$name" 1 "exit $rc (want ${want:-0}), stderr: $(cat "$tmp/err")"
		elif [ -f "$f.out" ] && ! cmp -s "$f.out" "$tmp/out"; then
			result "$name" 1 "$(diff "$f.out" "$tmp/out" | head -n 20)"
		else
			result "$name" 0
		fi ;;
	esac
}

run_sh() {
	f=$1; name=${f#"$top/tests/scripts/"}
	selected "$name" || return 0
	(cd "$(dirname "$f")" && timeout 120 sh "$f") > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 77 ]; then
		echo "SKIP $name: $(head -n 1 "$tmp/out")"
	elif [ $rc -ne 0 ]; then
		result "$name" 1 "exit $rc: $(cat "$tmp/out" "$tmp/err")"
	elif [ -f "$f.out" ] && ! cmp -s "$f.out" "$tmp/out"; then
		result "$name" 1 "$(diff "$f.out" "$tmp/out" | head -n 20)"
	else
		result "$name" 0
	fi
}

if [ ! -x "$DTRACE" ]; then
	echo "FAIL dtrace-binary: $DTRACE was not built"
	exit 0
fi
for f in $(find "$top/tests/scripts" -name '*.d' \( -name 'tst.*' -o -name 'err.*' -o -name 'drp.*' \) | sort); do
	run_d "$f"
done
for f in $(find "$top/tests/scripts" -name 'tst.*.sh' | sort); do
	run_sh "$f"
done
