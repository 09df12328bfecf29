#!/bin/sh
# test_histogram.sh - type a clause at the prompt, switch to the
# aggregations pane, watch a quantize histogram appear and its counts grow.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
DTUI=${DTUI:-$top/$B/dtui}
S=dtui-test-$$
T="tmux -L $S -f /dev/null"
sock=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S	# kill-server leaves it behind
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
"$DTUI" -V 2>/dev/null | grep -q dtui || { echo "dtui is not built"; exit 77; }
"$top/$B/dtrace" -n 'BEGIN { trace(1); exit(0) }' 2>/dev/null | grep -q 1 ||
	{ echo "the engine does not run BEGIN yet"; exit 77; }
wait_for() {	# wait_for TEXT [seconds]: poll the pane for TEXT
	n=$(( ${2:-5} * 10 ))
	while [ $n -gt 0 ]; do
		$T capture-pane -p | grep -qF -- "$1" && return 0
		sleep 0.1; n=$((n - 1))
	done
	echo "timed out waiting for: $1"; $T capture-pane -p; return 1
}
total() {	# sum of the count column of the histogram rows
	$T capture-pane -p | awk -F'|' '/^ +[0-9<>-]+ \|/ {
		n = split($2, f, " "); for (i = 1; i <= n; i++)
		if (f[i] ~ /^[0-9]+$/) { s += f[i]; break } } END { print s + 0 }'
}
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'profile:::tick-100hz { @lat = quantize(timestamp % 4096); }' Enter
wait_for 'dtui tracing' || exit 1
$T send-keys Escape 2
wait_for 'Distribution' 10 || exit 1
wait_for '@lat  quantize' || exit 1
a=$(total)
sleep 2
b=$(total)
echo "counts: $a then $b"
[ "$a" -gt 0 ] && [ "$b" -gt "$a" ] || { $T capture-pane -p; exit 1; }
$T capture-pane -p | grep -q 'p50' || { echo "no median mark"; exit 1; }
exit 0
