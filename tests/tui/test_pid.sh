#!/bin/sh
# test_pid.sh - with -c, the probe browser lists the target's pid
# provider probes (made from its ELF symbols before it runs), and a pid
# enabling counts a user function's calls exactly (w_pidcalls.c:
# pc_add 1000 times).
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for uprobes"; exit 77; }
command -v cc > /dev/null || { echo "no C compiler for the workload"; exit 77; }
cc -O1 -o "$tmp/pidcalls" "$top/tests/scripts/providers/w_pidcalls.c" || exit 1
$T new-session -d -x 100 -y 30 "XDG_DATA_HOME=$tmp $DTUI -c '$tmp/pidcalls wait' \
    -n 'pid\$target:a.out:pc_add:entry { @calls = count(); }'" || exit 1
wait_for 'dtui tracing' 20 || exit 1
$T send-keys Escape 2
wait_for '1000' 20 || exit 1
$T send-keys Escape 4
wait_for 'filter:' || exit 1
$T send-keys / p c _ l e
wait_for 'filter: pc_le_' || exit 1
wait_for 'pc_leaf' 10 || exit 1
$T capture-pane -p | grep -q 'pid[0-9]' || { echo "no pid provider row"; $T capture-pane -p; exit 1; }
exit 0
