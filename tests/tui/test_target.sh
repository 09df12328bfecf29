#!/bin/sh
# test_target.sh - -p PID: as dtrace(1M), tracing stops when the process
# exits (here it stays a zombie of this shell, which must count as gone),
# and dtui stays up with what it collected.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
sleep 60 &
pid=$!
$T new-session -d -x 80 -y 24 \
    "XDG_DATA_HOME=$tmp $DTUI -p $pid -n 'profile:::tick-10hz { @n = count(); }'" ||
    exit 1
wait_for 'dtui tracing' || exit 1
# the first tick counted before the kill (beside CPU hogs the kill could
# come before any tick, leaving nothing to show)
$T send-keys Escape 2
wait_for '@n  count' || exit 1
kill $pid
wait_for "pid $pid has exited" || exit 1
wait_for 'dtui stopped' || exit 1
wait_for '@n  count' || exit 1
wait $pid
# a pid that is not there is refused before the screen is taken
"$DTUI" -p "$pid" -n 'BEGIN { }' > "$tmp/out" 2>&1 && { cat "$tmp/out"; exit 1; }
grep -q "dtui: failed to grab pid $pid: No such process" "$tmp/out" ||
	{ cat "$tmp/out"; exit 1; }
exit 0
