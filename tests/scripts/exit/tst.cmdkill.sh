#!/bin/sh
# asserts: the process created by -c is killed when dtrace lets go of it
# before it has exited (exit() in the script, as libdtrace's PRELEASE_KILL
# for created processes); a -p process is left running.
f=$(mktemp)
timeout 20 "$DTRACE" -q -c 'sleep 37' \
    -n 'BEGIN { printf("%d\n", $target); } tick-200ms { exit(0); }' > "$f"
rc=$?
out=$(cat "$f"); rm -f "$f"
[ $rc -eq 0 ] || { echo "exit $rc : $out"; exit 1; }
pid=$(echo "$out" | head -n 1)
case $pid in ''|*[!0-9]*) echo "no target: $out"; exit 1 ;; esac
if kill -0 "$pid" 2> /dev/null && grep -q '^sleep' "/proc/$pid/comm"; then
	kill "$pid"
	echo "-c process $pid left running"; exit 1
fi
sleep 37 &
p=$!
timeout 20 "$DTRACE" -q -p $p -n 'tick-200ms { exit(0); }' > /dev/null
alive=0; kill -0 $p 2> /dev/null && alive=1
kill $p 2> /dev/null
[ $alive -eq 1 ] || { echo "-p process was killed"; exit 1; }
exit 0
