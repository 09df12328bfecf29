#!/bin/sh
# test_jumpback.sh - going back in time lands on exactly the state that
# playing forward reached: in dtui -r, the output, aggregations, buffers
# and enablings panes at 1 s are captured after moving forward to 1 s
# from the start, then again after going to the end and back to 1 s
# (which rebuilds the state from the experiment), and each pane must be
# the same, character for character (counts, rates, histogram bars, the
# cursor's time).  The dtui started is killed by its PID at the end.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
DTRACE=$top/$B/dtrace
cat > "$tmp/t.d" <<'EOD'
int i;
tick-50ms { printf("line %d\n", i++); @n = count(); @h = quantize(i); }
tick-50ms /i % 3 == 0/ { @t[i % 4] = sum(i); }
tick-50ms /i == 40/ { exit(0); }
EOD
"$DTRACE" -q -x switchrate=50ms -x aggrate=50ms -x record="$tmp/t.er" \
    -s "$tmp/t.d" > "$tmp/live" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/live")"; exit 1; }
trap '[ -s "$tmp/pid" ] && kill "$(cat "$tmp/pid")" 2>/dev/null; $T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 120 -y 40 "echo \$\$ > $tmp/pid; XDG_DATA_HOME=$tmp exec $DTUI -r $tmp/t.er" || exit 1
wait_for 'replaying' 10 || exit 1
$T send-keys ':pause' Enter
wait_for 'paused at' 10 || exit 1

# panes NAME: capture panes 1, 2, 3 and 6 into $tmp/NAME.N
panes() {
	for p in "1 Output" "2 Aggregations" "3 Buffers" "6 Enablings"; do
		$T send-keys Escape
		$T send-keys "${p%% *}"
		wait_for "$p]" 10 || exit 1
		$T capture-pane -p > "$tmp/$1.${p%% *}"
	done
}

$T send-keys ':jump 1' Enter			# forward, from the start
wait_for 'paused at 1.' 10 || exit 1
panes fwd
grep -q 'line 1[0-9]' "$tmp/fwd.1" || { echo "no output at 1 s:"; cat "$tmp/fwd.1"; exit 1; }
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
$T send-keys ':jump 1' Enter			# back, rebuilt
wait_for 'paused at 1.' 10 || exit 1
panes back
for n in 1 2 3 6; do
	cmp -s "$tmp/fwd.$n" "$tmp/back.$n" || {
		echo "pane $n differs after going back:"
		diff "$tmp/fwd.$n" "$tmp/back.$n"; exit 1; }
done
exit 0
