#!/bin/sh
# asserts: -p PID sets $target and dtrace ends when the process exits
sleep 3 &	# long enough for a slow attach under load
p=$!
out=$("$DTRACE" -q -p $p -n 'BEGIN { printf("target=%d\n", $target); }' 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $out"; exit 1; }
[ "$(echo "$out" | head -n 1)" = "target=$p" ] || { echo "got: $out"; exit 1; }
out=$("$DTRACE" -q -p 999999999 -n 'BEGIN { exit(0); }' 2>&1)
[ $? -eq 1 ] || { echo "bad pid accepted: $out"; exit 1; }
exit 0
