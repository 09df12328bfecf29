#!/bin/sh
# Asserts: committed and discarded speculations are cleaned back to free
# (at cleanrate) without the consumer's help: every 100 ms tick gets
# speculation 1 again, and no speculation fails.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$DTRACE -q -n 'BEGIN { n = 0; } tick-100ms { s = speculation(); speculate(s);
    printf("spec %d\n", s); }
    tick-100ms { commit(s); n++; }
    tick-100ms /n == 5/ { exit(0); }' > "$tmp/out" 2> "$tmp/err" || exit 1
$DTRACE -q -n 'BEGIN { m = 0; } tick-100ms { s = speculation(); printf("got %d\n", s);
    discard(s); m++; }
    tick-100ms /m == 5/ { exit(0); }' >> "$tmp/out" 2>> "$tmp/err" || exit 1
grep -v "^$" "$tmp/out"
cat "$tmp/err"
