#!/bin/sh
# test_prompt.sh - the prompt: Tab completes probe fields and actions, a
# multi-line clause runs when its braces balance, :list numbers it, and
# history survives a restart (Up recalls the clause).
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
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI; sleep 30" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'dtra' Tab
wait_for 'dtui> dtrace:' || exit 1
$T send-keys ':' Tab
wait_for 'dtui> dtrace::' || exit 1
$T send-keys C-u 'BEGIN { tra' Tab
wait_for 'dtui> BEGIN { trace' || exit 1
$T send-keys C-u 'BEGIN' Enter '{' Enter
wait_for '...>' || exit 1
$T send-keys -l 'printf("multi-%s\n", "line")\;'
$T send-keys Enter '}' Enter
wait_for 'enabling 1: 1 probe' || exit 1
$T send-keys Escape 1
wait_for 'multi-line' || exit 1
$T send-keys ':list' Enter
wait_for '1 on  1 probes: BEGIN' || exit 1
$T send-keys ':quit' Enter
sleep 0.5
grep -q '^BEGIN { printf("multi-%s\\n", "line"); }$' "$tmp/dtui/history" ||
	{ echo "history file:"; cat "$tmp/dtui/history"; exit 1; }
$T kill-server; sleep 0.2
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys Up Up Up		# :quit, :list, then the clause
wait_for 'dtui> BEGIN { printf(' || exit 1
exit 0
