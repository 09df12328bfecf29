#!/bin/sh
# Asserts: $1 as an integer, $$2 as a string, $target-less defaults with
# defaultargs, and refusal of an unreferenced argument.
$DTRACE -q -n 'BEGIN { printf("%d %s\n", $1 + 1, $$2); exit(0) }' 41 hello || exit 1
$DTRACE -q -x defaultargs -n 'BEGIN { printf("%d [%s]\n", $3, $$4); exit(0) }' || exit 1
if $DTRACE -q -n 'BEGIN { exit(0) }' unused 2>/dev/null; then exit 1; fi
exit 0
