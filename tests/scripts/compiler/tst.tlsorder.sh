#!/bin/sh
# Asserts: variables come into being in the order dtrace compiles clauses
# (a clause's actions before its predicate): a thread-local read in a
# clause before the clause that first assigns it is refused with
# D_VAR_UNDEF, as dtrace does; after the assignment, a string thread-local
# compares with "", NULL is 0, and assigning 0 clears it.
out=$($DTRACE -q -n '
BEGIN /self->name != ""/ { printf("early [%s]\n", self->name); }
BEGIN { self->name = strjoin("ab", "cd"); }' 2>&1)
case $out in
*"self->name has not yet been declared or assigned") ;;
*) echo "read before assignment: $out"; exit 1 ;;
esac
out=$($DTRACE -q -n '
BEGIN { self->name = strjoin("ab", "cd"); p = NULL; }
BEGIN /self->name != "" && p == NULL/ { printf("set [%s]\n", self->name); self->name = 0; }
BEGIN /self->name == ""/ { printf("cleared [%s]\n", self->name); exit(0); }' 2>&1)
[ "$out" = "set [abcd]
cleared []" ] || { echo "after assignment: $out"; exit 1; }
exit 0
