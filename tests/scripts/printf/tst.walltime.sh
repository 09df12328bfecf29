#!/bin/sh
# asserts: %Y prints walltimestamp as "%Y %b %e %T" (this year, a time)
out=$("$DTRACE" -q -n 'BEGIN { printf("%Y\n", walltimestamp); exit(0); }') \
    || { echo "dtrace failed"; exit 1; }
year=$(date +%Y)
echo "$out" | grep -Eq "^$year [A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]\$" \
    || { echo "unexpected: $out"; exit 1; }
