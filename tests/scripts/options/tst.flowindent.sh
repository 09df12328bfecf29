#!/bin/sh
# asserts: -F prints "CPU FUNCTION", syscall entries as "=> name" and
# returns as "<= name" at the same indent
if [ "$(id -u)" != 0 ]; then echo "needs root (syscall tracepoints)"; exit 77; fi
out=$("$DTRACE" -F -n 'syscall::openat:entry,syscall::openat:return /pid == $target/ {}' -c 'cat /dev/null' 2>/dev/null)
echo "$out" | head -n 1 | grep -q '^CPU FUNCTION *$' || { echo "header: $out"; exit 1; }
echo "$out" | sed -n 2p | grep -Eq '^ *[0-9]+ => openat +$' || { echo "entry: $out"; exit 1; }
echo "$out" | sed -n 3p | grep -Eq '^ *[0-9]+ <= openat +$' || { echo "return: $out"; exit 1; }
exit 0
