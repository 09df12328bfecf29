#!/bin/sh
# test_record.sh - :record NAME while tracing records an experiment that
# dtrace -r replays (the clause's printf lines, in order on each CPU,
# from where recording began); :record stop closes it (log.xml ends); :save folded
# writes the stack() aggregation as collapsed stacks.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
DTRACE=$top/$B/dtrace
$T new-session -d -x 100 -y 30 "cd $tmp && XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'profile:::tick-20ms { printf("tick %d\n", timestamp); } profile:::profile-499 { @s[stack()] = count(); }' Enter
wait_for 'dtui tracing' || exit 1
wait_for 'tick ' || exit 1
$T send-keys ':record mine' Enter
wait_for 'recording to mine.1.er' 30 || exit 1
# let at least ten ticks reach the experiment
n=0
while [ "$(timeout 10 "$DTRACE" -r "$tmp/mine.1.er" 2>/dev/null | grep -c 'tick [0-9]')" -lt 10 ]; do
	n=$((n + 1)); [ $n -gt 100 ] && { echo "nothing recorded"; exit 1; }
	sleep 0.1
done
$T send-keys ':record stop' Enter
wait_for 'recorded mine.1.er' 30 || exit 1
grep -q '</experiment>' "$tmp/mine.1.er/log.xml" || { echo "log.xml not closed"; exit 1; }
timeout 10 "$DTRACE" -r "$tmp/mine.1.er" > "$tmp/out" 2> "$tmp/err" ||
    { echo "replay failed: $(cat "$tmp/err")"; exit 1; }
# the ticks replayed in order: their timestamps increase
awk '/tick [0-9]/ { if ($NF <= last[$1]) bad = 1; last[$1] = $NF; n++ }
    END { exit !(n >= 10 && !bad) }' "$tmp/out" ||
    { echo "replayed ticks out of order or too few:"; head "$tmp/out"; exit 1; }
$T send-keys ':save folded folded.txt' Enter
wait_for 'saved folded to folded.txt' 30 || exit 1
grep -Eq '^vmlinux`[^ ]+ [0-9]+$' "$tmp/folded.txt" || { echo "folded:"; cat "$tmp/folded.txt"; exit 1; }
exit 0
