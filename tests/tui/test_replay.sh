#!/bin/sh
# test_replay.sh - dtui -r shows an experiment recorded by dtrace: the
# output pane fills with the recorded lines as the time cursor plays,
# :pause holds it (no new lines), :step moves it one tick, :jump to the
# end shows every line and the aggregation's final count in the
# aggregations pane, and the end is announced.  A directory that is not
# an experiment is refused before the screen is taken.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
DTRACE=$top/$B/dtrace
cat > "$tmp/t.d" <<'EOD'
int i;
tick-50ms { printf("line %d\n", i++); @n["ticks"] = count(); }
tick-50ms /i == 40/ { exit(0); }
EOD
"$DTRACE" -q -x switchrate=50ms -x record="$tmp/t.er" -s "$tmp/t.d" > "$tmp/live" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/live")"; exit 1; }
"$DTUI" -r "$tmp" > "$tmp/out" 2>&1 && { echo "not an experiment accepted"; exit 1; }
grep -q 'failed to open experiment' "$tmp/out" || { echo "refusal: $(cat "$tmp/out")"; exit 1; }
$T new-session -d -x 100 -y 30 "XDG_DATA_HOME=$tmp $DTUI -r $tmp/t.er" || exit 1
wait_for 'replaying' 10 || exit 1
wait_for 'line 3' 10 || exit 1
$T send-keys ':pause' Enter
wait_for 'paused at' 10 || exit 1
at() { $T capture-pane -p | sed -n 's/.*paused at \([0-9.]*\) s.*/\1/p' | tail -n 1; }
t1=$(at)
$T send-keys ':step' Enter
n=0
while [ "$(at)" = "$t1" ]; do
	n=$((n + 1)); [ $n -gt 100 ] && { echo "step did not move the cursor from $t1"; exit 1; }
	sleep 0.1
done
t2=$(at)
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b > a) }' || { echo "cursor $t1 -> $t2"; exit 1; }
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
$T capture-pane -p | grep -q 'line 39' || { echo "last line not shown"; $T capture-pane -p; exit 1; }
$T send-keys Escape 2
wait_for 'ticks' 10 || exit 1
$T capture-pane -p | grep -E 'ticks +40' > /dev/null ||
    { echo "final count not 40:"; $T capture-pane -p; exit 1; }
exit 0
