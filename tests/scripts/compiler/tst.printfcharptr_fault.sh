#!/bin/sh
# Asserts: printf %s of a char * that points at unmapped memory faults
# with "invalid address", as stringof( ) does, and prints nothing.
out=$($DTRACE -q -n 'BEGIN { printf("[%s]\n", (char *)0x1); }
    BEGIN { exit(0); }' 2>&1) || exit 1
echo "$out" | grep -q 'invalid address (0x1)' || { echo "$out"; exit 1; }
echo "$out" | grep -q '^\[' && { echo "$out"; exit 1; }
exit 0
