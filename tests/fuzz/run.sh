#!/bin/sh
# tests/fuzz/run.sh - replay every fuzz target's corpus (corpus/ and the
# inputs fuzzers found, regress/) through the target built without
# libFuzzer ($B/tests/fuzz/<target>/fuzz_<target>, tests/fuzz/replay.c).
# One PASS/FAIL line per target; a crash, abort or sanitizer report fails.
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in $(find "$top/tests/fuzz" -name 'fuzz_*.c' | sort); do
	t=$(basename "$(dirname "$src")")
	name=fuzz/$t
	selected "$name" || continue
	bin=$top/$B/tests/fuzz/$t/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: $bin was not built"; continue
	fi
	set --
	for d in corpus regress; do
		[ -d "$top/tests/fuzz/$t/$d" ] && set -- "$@" "$top/tests/fuzz/$t/$d"
	done
	if [ $# -eq 0 ]; then
		echo "FAIL $name: no corpus in tests/fuzz/$t"; continue
	fi
	(cd "$tmp" && timeout 600 "$bin" "$@") > "$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS $name ($(tail -n 1 "$tmp/out"))"
	else
		echo "FAIL $name (exit $rc)"; tail -n 20 "$tmp/out" | sed 's/^/    /'
	fi
done
