#!/bin/sh
# tests/repeat.sh - run the whole suite (tests/run.sh) REPEAT times in a
# row, optionally beside a CPU hog on every core (STRESS=1), to find the
# tests that depend on timing or on the machine's load:
#   make check REPEAT=5 STRESS=1          (make check-stress)
#   make check REPEAT=20 STRESS=1 TESTS='compiler/tst.thisacross.d tui/*'
# Each run prints its own summary; the last line adds them up in the
# runner's words ("N passed, M failed, K skipped"), with the runs that
# failed named above it.  Exit status 0 only if no run failed.
B=${B:-build}
export B
top=$(cd "$(dirname "$0")/.." && pwd)
n=${REPEAT:-1}
case $n in ''|*[!0-9]*|0) echo "REPEAT must be a positive number"; exit 2 ;; esac
hogs=""
stop_hogs() {
	for p in $hogs; do kill "$p" 2> /dev/null; done
	for p in $hogs; do wait "$p" 2> /dev/null; done
	hogs=""
}
trap 'stop_hogs' EXIT
trap 'exit 130' INT TERM
if [ -n "${STRESS:-}" ] && [ "${STRESS:-}" != 0 ]; then
	cores=$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
	i=0
	while [ $i -lt "$cores" ]; do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
		i=$((i + 1))
	done
	echo "== stress: $cores CPU hog(s) running (pids$hogs)"
fi
[ "$n" = 1 ] && { sh "$top/tests/run.sh"; exit $?; }
tp=0 tf=0 ts=0 bad=""
r=1
while [ "$r" -le "$n" ]; do
	echo "== run $r of $n"
	out=$(mktemp)
	sh "$top/tests/run.sh" > "$out" 2>&1
	grep -E '^(FAIL|    )' "$out"
	last=$(tail -n 1 "$out")
	echo "run $r: $last"
	set -- $(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
	if [ $# -ne 3 ]; then
		set -- 0 1 0		# the runner died before its summary
	fi
	tp=$((tp + $1)); tf=$((tf + $2)); ts=$((ts + $3))
	[ "$2" = 0 ] || bad="$bad $r"
	rm -f "$out"
	r=$((r + 1))
done
[ -z "$bad" ] || echo "runs with failures:$bad"
echo "$n runs: $tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
