#!/bin/sh
# test_follow.sh - dtui -r on an experiment still being written follows
# it: lines recorded after dtui opened it appear, and once the recording
# dtrace exits (log.xml closed) the replay ends with every line shown.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
DTRACE=$top/$B/dtrace
cat > "$tmp/t.d" <<'EOD'
int i;
tick-20ms { printf("line %d\n", i++); }
tick-20ms /i == 200/ { exit(0); }
EOD
"$DTRACE" -q -x switchrate=20ms -x record="$tmp/f.er" -s "$tmp/t.d" > "$tmp/live" 2>&1 &
dp=$!
n=0
until [ -s "$tmp/f.er/principal" ] && grep -q 'line 5' "$tmp/live"; do
	n=$((n + 1)); [ $n -gt 200 ] && { echo "nothing recorded"; kill $dp; exit 1; }
	sleep 0.05
done
$T new-session -d -x 100 -y 30 "XDG_DATA_HOME=$tmp $DTUI -r $tmp/f.er" || { kill $dp; exit 1; }
wait_for 'following' 10 || { kill $dp; exit 1; }
# playing at the recorded pace, the cursor keeps up with the writer
wait_for 'line 150' 30 || { kill $dp; exit 1; }
$T capture-pane -p | grep -q 'replay ended' && { echo "ended while being written"; kill $dp; exit 1; }
wait $dp
grep -q 'line 199' "$tmp/live" || { echo "dtrace did not finish"; exit 1; }
$T send-keys ':jump 1000' Enter
wait_for 'replay ended' 30 || exit 1
$T capture-pane -p | grep -q 'line 199' || { echo "last line not shown"; $T capture-pane -p; exit 1; }
exit 0
