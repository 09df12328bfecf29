#!/bin/sh
# asserts: %T prints walltimestamp in RFC 822 form as libdtrace's
# pfprint_time822 ("%a, %d %b %G %T %Z"), in the local time zone
out=$(TZ=UTC "$DTRACE" -q -n 'BEGIN { printf("[%T]\n", walltimestamp);
    exit(0); }') || { echo "dtrace failed"; exit 1; }
want=$(TZ=UTC date +'\[%a, %d %b %G [0-9][0-9]:[0-9][0-9]:[0-9][0-9] UTC\]')
echo "$out" | grep -Eq "^$want\$" || { echo "unexpected: $out (want $want)"; exit 1; }
