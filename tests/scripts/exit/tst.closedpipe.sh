#!/bin/sh
# asserts: dtrace stops on a write error to its output: with its reader
# gone (| head -1) it says "processing aborted: Broken pipe" and exits 1
# instead of tracing into the closed pipe until killed, and the process
# it created with -c is released (killed) on the way out.
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
{ timeout 60 "$DTRACE" -q -c 'sleep 71' -n 'BEGIN { printf("%d\n", $target); }
    tick-10ms { printf("tick\n"); }' 2> "$d/err"; echo $? > "$d/rc"; } |
    head -n 1 > "$d/pid"
rc=$(cat "$d/rc")
pid=$(cat "$d/pid")
[ "$rc" = 1 ] || { echo "exit $rc (want 1; 124 is a hang): $(cat "$d/err")"; exit 1; }
grep -q '^dtrace: processing aborted: Broken pipe$' "$d/err" ||
    { echo "stderr: $(cat "$d/err")"; exit 1; }
case $pid in ''|*[!0-9]*) echo "no target pid: $pid"; exit 1 ;; esac
if kill -0 "$pid" 2> /dev/null && grep -q '^sleep' "/proc/$pid/comm"; then
	kill "$pid"
	echo "-c process $pid left running"; exit 1
fi
exit 0
