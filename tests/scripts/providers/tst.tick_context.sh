#!/bin/sh
# Asserts: tick-N fires on one CPU in the context of the thread it
# interrupted, as DTrace's cyclic does: with a spinner pinned to that CPU
# (0), tick-100 sees the spinner's pid, and every firing is on CPU 0.
# requires: root (the perf route; without it tick fires in dtrace itself)
if [ "$(id -u)" != 0 ]; then echo "needs root"; exit 77; fi
command -v taskset > /dev/null || { echo "no taskset"; exit 77; }
taskset -c 0 sh -c 'while :; do :; done' &
spin=$!
trap 'kill $spin 2> /dev/null' EXIT
out=$($DTRACE -q -n "tick-100 /pid == $spin/ { n++; }
    tick-100 /cpu != 0/ { bad++; }
    tick-100 /++t == 200/ { printf(\"%d %d\", n, bad); exit(0); }" 2>&1)
set -- $out
[ "$#" -eq 2 ] || { echo "got <$out>"; exit 1; }
[ "$1" -gt 0 ] || { echo "tick never fired as the spinner: <$out>"; exit 1; }
[ "$2" -eq 0 ] || { echo "tick fired off CPU 0: <$out>"; exit 1; }
exit 0
