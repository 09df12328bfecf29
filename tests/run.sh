#!/bin/sh
# tests/run.sh - run every test and print one summary line:
#   N passed, M failed, K skipped
#
# 1. cmocka unit binaries in $B/tests/unit (each test case counts once);
# 2. D script tests through the real dtrace (tests/scripts/run.sh);
# 3. TUI tests driving the real dtui in tmux (tests/tui/*.sh);
# 4. the layering check (tests/layers.sh: no module includes another's
#    private header);
# 5. every D_* tag the compiler raises has an err.D_<TAG>.*.d test
#    (tests/errtags.sh);
# 6. every fuzz target's corpus replayed (tests/fuzz/run.sh).
# A test that cannot run here prints "SKIP name: reason"; none passes
# silently.  Exit status: 0 if nothing failed, 1 otherwise.
# TESTS='eng/* compiler/tst.this*' runs only the tests whose names match
# (tests/select.sh); tests/repeat.sh runs all of this several times.
B=${B:-build}
export B TESTS
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
. "$top/tests/select.sh"
log=$(mktemp -d)
pass=0 fail=0 skip=0

# count_unit FILE: add a cmocka binary's results to the totals.
count_unit() {
	# a binary may run several groups: sum every summary line
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {if (NR) print s}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {if (NR) print s}')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {if (NR) print s}')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ -z "$p$f" ]; then
		fail=$((fail + 1))	# crashed before reporting
	fi
}

echo "== unit tests"
for t in $(find "$B/tests/unit" -type f -perm -u+x 2>/dev/null | sort); do
	name=${t#"$B/tests/unit/"}
	selected "$name" || continue
	timeout 300 "$t" > "$log/out" 2>&1
	rc=$?
	count_unit "$log/out"
	if [ $rc -ne 0 ] || grep -q '^\[  FAILED  \]' "$log/out"; then
		echo "FAIL $name (exit $rc)"
		grep -E '^\[  (FAILED|ERROR)|error:|Assert|FAILURE' "$log/out" | head -n 20
		[ -z "$(grep '^\[  FAILED  \]' "$log/out")" ] && [ $rc -ne 0 ] &&
		    grep -q '^\[  PASSED' "$log/out" && fail=$((fail + 1))
	else
		echo "ok   $name"
	fi
done

# run_suite SCRIPT: a suite prints PASS/FAIL/SKIP lines; count them.
run_suite() {
	sh "$1" > "$log/suite" 2>&1
	cat "$log/suite"
	pass=$((pass + $(grep -c '^PASS ' "$log/suite")))
	fail=$((fail + $(grep -c '^FAIL ' "$log/suite")))
	skip=$((skip + $(grep -c '^SKIP ' "$log/suite")))
}

echo "== script tests"
run_suite tests/scripts/run.sh
echo "== tui tests"
run_suite tests/tui/run.sh
echo "== layering"
run_suite tests/layers.sh
echo "== error tags"
run_suite tests/errtags.sh
echo "== fuzz corpora"
run_suite tests/fuzz/run.sh

rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
