#!/bin/sh
# Asserts: a thread-local read in a clause that comes before the clause
# assigning it takes the type of that assignment (a string here); NULL
# is 0; assigning 0 clears a string thread-local.
$DTRACE -q -n '
BEGIN /self->name != ""/ { printf("early [%s]\n", self->name); self->name = 0; }
BEGIN { self->name = strjoin("ab", "cd"); p = NULL; }
BEGIN /self->name != "" && p == NULL/ { printf("late [%s]\n", self->name); exit(0); }'
