#!/bin/sh
# Asserts: -S lists every DIF object: the predicate and each action, with
# opcode names, operands, tables and variable names.
$DTRACE -S -e -n 'BEGIN /arg0 > 2/ { x = arg0 + 1; trace(x); }' 2>&1 |
    grep -v '^dtrace:'
