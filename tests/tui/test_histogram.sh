#!/bin/sh
# test_histogram.sh - type a clause at the prompt, switch to the
# aggregations pane, watch a quantize histogram appear and its counts grow.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
total() {	# sum of the count column of the histogram rows
	$T capture-pane -p | awk -F'|' '/^ +[0-9<>-]+ \|/ {
		n = split($2, f, " "); for (i = 1; i <= n; i++)
		if (f[i] ~ /^[0-9]+$/) { s += f[i]; break } } END { print s + 0 }'
}
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'profile:::tick-100hz { @lat = quantize(timestamp % 4096); }' Enter
wait_for 'dtui tracing' || exit 1
$T send-keys Escape 2
wait_for 'Distribution' || exit 1
wait_for '@lat  quantize' || exit 1
a=$(total)
[ "$a" -gt 0 ] || { $T capture-pane -p; exit 1; }
wait_until '[ "$(total)" -gt "$a" ]' || { echo "counts stayed at $a"; exit 1; }
echo "counts: $a then $(total)"
$T capture-pane -p | grep -q 'p50' || { echo "no median mark"; exit 1; }
exit 0
