#!/bin/sh
# test_cursor.sh - dtui -r's time cursor goes back as well as forward:
# after the end of a replay, :jump 1 rebuilds the state at 1 s (the
# output pane no longer shows the last lines, the count is that of 1 s);
# the aggregations pane's 'c' shows the count of the tick under the
# cursor instead of the total; the heatmap of @h, chosen after the jump,
# fills in its past with [ and is scrubbed with [ { (back one and ten
# columns) and } (on ten ticks), the cursor's time falling and rising.
# The dtui started is killed by its PID at the end.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
DTRACE=$top/$B/dtrace
cat > "$tmp/t.d" <<'EOD'
int i;
tick-50ms { printf("line %d\n", i++); @n = count(); @h = quantize(i); }
tick-50ms /i == 40/ { exit(0); }
EOD
"$DTRACE" -q -x switchrate=50ms -x record="$tmp/t.er" -s "$tmp/t.d" > "$tmp/live" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/live")"; exit 1; }
trap '[ -s "$tmp/pid" ] && kill "$(cat "$tmp/pid")" 2>/dev/null; $T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 120 -y 40 "echo \$\$ > $tmp/pid; XDG_DATA_HOME=$tmp exec $DTUI -r $tmp/t.er" || exit 1
wait_for 'replaying' 10 || exit 1
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
wait_for 'line 39' 10 || exit 1

# at: the cursor's time in the message line ("paused at 1.003 s").
at() { $T capture-pane -p | sed -n 's/.*paused at \([0-9.]*\) s.*/\1/p' | tail -n 1; }
# lt A B: A < B as numbers.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

$T send-keys ':jump 1' Enter
wait_for 'paused at 1.' 10 || exit 1
t0=$(at)
$T capture-pane -p | grep -q 'line 39' && { echo "line 39 still shown at 1 s"; $T capture-pane -p; exit 1; }
$T send-keys Escape
$T send-keys 2
wait_for '2 Aggregations]' 10 || exit 1
# the value under "@n  count": the line after its title
nval() { $T capture-pane -p | awk '/@n  count/ { getline; print $1; exit }'; }
total=$(nval)
[ "$total" -ge 10 ] && [ "$total" -lt 39 ] || { echo "count at 1 s: $total"; $T capture-pane -p; exit 1; }
$T send-keys c
wait_for '(per interval)' 10 || exit 1
tick=$(nval)
[ -n "$tick" ] && [ "$tick" -le 3 ] || { echo "count of one tick: $tick (total $total)"; $T capture-pane -p; exit 1; }

$T send-keys Right
$T send-keys H
wait_for 'heatmap: @h' 10 || exit 1
$T send-keys 5
wait_for '5 Heatmap]' 10 || exit 1
$T send-keys '['			# fills in the columns up to 1 s
wait_until '$T capture-pane -p | grep -qE "@h +(1[0-9]|2[0-9]) refreshes"' 10 || exit 1
[ "$(at)" = "$t0" ] || { echo "filling in moved the cursor: $t0 -> $(at)"; exit 1; }
$T send-keys '['
wait_until 't=$(at); [ -n "$t" ] && lt "$t" "$t0"' 10 || exit 1
t1=$(at)
$T send-keys '{'
wait_until 't=$(at); [ -n "$t" ] && lt "$t" "$t1"' 10 || exit 1
t2=$(at)
lt "$t2" 0.7 || { echo "ten columns back from $t1: $t2"; exit 1; }
$T send-keys '}'
wait_until 't=$(at); [ -n "$t" ] && lt "$t2" "$t"' 10 || exit 1
exit 0
