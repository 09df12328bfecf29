#!/bin/sh
# asserts: a load from address 0 reports dtrace's error message on stderr,
# the clause stops, and the exit status stays 0
out=$("$DTRACE" -q -n 'BEGIN { trace(*(int *)0); printf("not reached"); } BEGIN { exit(0); }' 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $out"; exit 1; }
echo "$out" | grep -Eq '^dtrace: error on enabled probe ID [0-9]+ \(ID [0-9]+: dtrace:::BEGIN\): invalid address \(0x0\) in action #1 at DIF offset [0-9]+$' \
    || { echo "no error message: $out"; exit 1; }
echo "$out" | grep -q "not reached" && { echo "clause went on: $out"; exit 1; }
exit 0
