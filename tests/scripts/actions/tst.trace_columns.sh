#!/bin/sh
# tst.trace_columns.sh - without -q, trace() of a typed integer takes the
# Linux dtrace's columns: a space, then 3, 5, 10 or 19 (20 unsigned 64-bit)
# characters by the value's size; each firing line starts with the
# 44-character "CPU ID FUNCTION:NAME " prefix, cut here.
"$DTRACE" -n 'BEGIN {
	trace((char)-1); trace((short)2); trace(3); trace((unsigned)4);
	trace(-5ll); trace((uint64_t)6); exit(0);
}' 2>/dev/null | sed -n 2p | cut -c 45-
