#!/bin/sh
# asserts: -p PID sets $target and dtrace ends when the process exits
d=$(mktemp -d)
sleep 120 &
p=$!
timeout 60 "$DTRACE" -q -p $p -n 'BEGIN { printf("target=%d\n", $target); }' \
    > "$d/out" 2>&1 &
dt=$!
# the process exits once dtrace has grabbed it and is tracing
n=600
until grep -q '^target=' "$d/out" || [ $n -eq 0 ]; do sleep 0.1; n=$((n - 1)); done
kill $p
wait $dt
rc=$?
out=$(cat "$d/out"); rm -rf "$d"
[ $rc -eq 0 ] || { echo "exit $rc (124: did not end with the process): $out"; exit 1; }
[ "$(echo "$out" | head -n 1)" = "target=$p" ] || { echo "got: $out"; exit 1; }
out=$("$DTRACE" -q -p 999999999 -n 'BEGIN { exit(0); }' 2>&1)
[ $? -eq 1 ] || { echo "bad pid accepted: $out"; exit 1; }
exit 0
