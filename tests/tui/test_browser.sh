#!/bin/sh
# test_browser.sh - filter the probe browser as you type, select a probe
# and insert a clause template at the prompt with Enter.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
DTUI=${DTUI:-$top/$B/dtui}
S=dtui-test-$$
T="tmux -L $S -f /dev/null"
sock=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S	# kill-server leaves it behind
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
"$DTUI" -V 2>/dev/null | grep -q dtui || { echo "dtui is not built"; exit 77; }
"$top/$B/dtrace" -n 'BEGIN { trace(1); exit(0) }' 2>/dev/null | grep -q 1 ||
	{ echo "the engine does not run BEGIN yet"; exit 77; }
wait_for() {
	n=$(( ${2:-5} * 10 ))
	while [ $n -gt 0 ]; do
		$T capture-pane -p | grep -qF -- "$1" && return 0
		sleep 0.1; n=$((n - 1))
	done
	echo "timed out waiting for: $1"; $T capture-pane -p; return 1
}
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys Escape 4
wait_for 'filter:' || exit 1
wait_for '+ dtrace (' || exit 1
$T send-keys / B E G
wait_for 'filter: BEG_' || exit 1
wait_for '- dtrace (1)' || exit 1
wait_for 'BEGIN' || exit 1
$T capture-pane -p | grep -q 'END' && { echo "END not filtered out"; exit 1; }
$T send-keys Enter End Enter
wait_for 'dtui> dtrace:::BEGIN { }' || exit 1
# the cursor sits inside the braces: type an action and run it
$T send-keys 'trace("hello-from-browser")\;'	# tmux: \; is a literal ;
$T send-keys Enter
wait_for 'enabling 1: 1 probe' || exit 1
$T send-keys Escape 1
wait_for 'hello-from-browser' 5 || exit 1
exit 0
