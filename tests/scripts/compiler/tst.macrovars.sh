#!/bin/sh
# Asserts: the macro variables $pid, $ppid, $pgid, $sid, $uid and $gid are
# dtrace's own process's values. They are compared with what the kernel
# reports for the same process in this PID namespace: under a CI runner the
# process group or session leader may sit outside the namespace, where
# getpgid()/getsid() give 0, so no value may be assumed positive.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A background job of a non-interactive shell stays in the shell's process
# group and session, and its parent is the shell.
$DTRACE -q -n 'BEGIN { printf("%d %d %d %d %d %d\n", $pid, $ppid, $pgid, $sid, $uid, $gid); exit(0); }' > "$tmp/out" &
wait $! || exit 1
read -r pid ppid pgid sid uid gid < "$tmp/out" || exit 1
# /proc/PID/stat fields 5 and 6 (after the parenthesised comm) are pgrp and session.
set -- $(sed 's/.*) //' /proc/$$/stat)
want_pgid=$3 want_sid=$4
[ "$ppid" = "$$" ] || { echo "ppid $ppid, want $$"; exit 1; }
[ "$pid" -gt 0 ] && [ "$pid" != "$$" ] || { echo "pid $pid"; exit 1; }
[ "$pgid" = "$want_pgid" ] || { echo "pgid $pgid, want $want_pgid"; exit 1; }
[ "$sid" = "$want_sid" ] || { echo "sid $sid, want $want_sid"; exit 1; }
[ "$uid" = "$(id -u)" ] || { echo "uid $uid"; exit 1; }
[ "$gid" = "$(id -g)" ] || { echo "gid $gid"; exit 1; }
exit 0
