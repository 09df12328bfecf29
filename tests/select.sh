# tests/select.sh - sourced by the test runners.
# selected NAME: is the test NAME (as the runners print it: eng/test_order,
# compiler/tst.thisacross.d, tui/test_target.sh) chosen by $TESTS, a
# blank-separated list of shell patterns (unset or empty: every test)?
selected() {
	[ -z "${TESTS:-}" ] && return 0
	set -f
	for _p in $TESTS; do
		case $1 in
		$_p) set +f; return 0 ;;
		esac
	done
	set +f
	return 1
}
