#!/bin/sh
# asserts: division by zero reports divide-by-zero in the action
out=$("$DTRACE" -q -n 'self int x; BEGIN { trace(1 / self->x); } BEGIN { exit(0); }' 2>&1)
echo "$out" | grep -Eq '^dtrace: error on enabled probe ID [0-9]+ \(ID [0-9]+: dtrace:::BEGIN\): divide-by-zero in action #1 at DIF offset [0-9]+$' \
    || { echo "unexpected: $out"; exit 1; }
exit 0
