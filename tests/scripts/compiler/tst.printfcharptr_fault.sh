#!/bin/sh
# Asserts: printf %s of stringof() of a char * that points at unmapped
# memory faults with "invalid address" and prints nothing; the
# fault is in action #1 (printf and its first argument are one action to
# the user, as in dtrace).
out=$($DTRACE -q -n 'BEGIN { printf("[%s]\n", stringof((char *)0x1)); }
    BEGIN { exit(0); }' 2>&1) || exit 1
echo "$out" | grep -q 'invalid address (0x1) in action #1 ' ||
    { echo "$out"; exit 1; }
echo "$out" | grep -q '^\[' && { echo "$out"; exit 1; }
exit 0
