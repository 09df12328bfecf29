#!/bin/sh
# test_buffers.sh - the buffers pane: per-CPU rows with policy, principal
# buffer drops counted live with the option that relieves them, the
# status line's drop total; -c runs a command whose output reaches the
# output pane and whose exit stops tracing.
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
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI -x bufsize=256 \
    -x switchrate=1hz -n 'profile:::tick-1000hz { printf(\"%s %s\\n\", \
    execname, execname); }'" || exit 1
wait_for 'dtui tracing' || exit 1
$T send-keys Escape 3
wait_for 'CPU policy fill' || exit 1
wait_for '  0 switch' || exit 1
wait_for 'principal buffer drops: raise bufsize (-b) or switchrate' 10 ||
	exit 1
$T capture-pane -p | head -1 | grep -q 'drops [1-9]' ||
	{ echo "no drops in the status line"; exit 1; }
$T kill-server; sleep 0.2
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI \
    -c 'sleep 1; echo output-of-the-child' \
    -n 'profile:::tick-10hz { @n = count(); }'" || exit 1
wait_for 'dtui tracing' || exit 1
wait_for 'output-of-the-child' 10 || exit 1
wait_for 'dtui stopped' 10 || exit 1
exit 0
