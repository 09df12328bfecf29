#!/bin/sh
# asserts: -c runs the command after tracing starts, $target is its pid,
# and dtrace ends when it exits
out=$("$DTRACE" -q -c 'sleep 0.3' -n 'BEGIN { printf("target %d\n", $target); }' 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $out"; exit 1; }
echo "$out" | grep -Eq '^target [1-9][0-9]*$' || { echo "no target: $out"; exit 1; }
exit 0
