#!/bin/sh
# asserts: a clause whose actions all store no data (assignments only)
# records nothing and prints no probe line, as illumos sizes such an ECB
# at 0 bytes; an empty clause (the default action) still prints one, and
# so does exit().  (The CPU column is dropped: BEGIN's CPU varies.)
out=$("$DTRACE" -n 'BEGIN { x = 1; self->y = 2; this->z = 3; }
    BEGIN { }
    BEGIN { exit(x + self->y + this->z - 6); }' 2>/dev/null | cut -c4-)
want='     ID                    FUNCTION:NAME
      1                           :BEGIN 
      1                           :BEGIN '
[ "$out" = "$want" ] || { echo "got:"; printf '%s\n' "$out"; exit 1; }
