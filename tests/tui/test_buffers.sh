#!/bin/sh
# test_buffers.sh - the buffers pane: per-CPU rows with policy, principal
# buffer drops counted live with the option that relieves them, the
# status line's drop total; -c runs a command whose output reaches the
# output pane and whose exit stops tracing.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI -x bufsize=256 \
    -x switchrate=1hz -n 'profile:::tick-1000hz { printf(\"%s %s\\n\", \
    execname, execname); }'" || exit 1
wait_for 'dtui tracing' || exit 1
$T send-keys Escape 3
wait_for 'CPU policy fill' || exit 1
wait_for '  0 switch' || exit 1
wait_for 'principal buffer drops: raise bufsize (-b) or switchrate' ||
	exit 1
$T capture-pane -p | head -1 | grep -q 'drops [1-9]' ||
	{ echo "no drops in the status line"; exit 1; }
# the fill column is sampled before the buffers are consumed: a small
# buffer is seen filling (it read 0% when sampled after)
$T kill-server; sleep 0.2
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI -x bufsize=4k \
    -n 'profile:::tick-997hz { printf(\"%d %d\\n\", cpu, timestamp); }'" ||
    exit 1
wait_for 'dtui tracing' || exit 1
$T send-keys Escape 3
wait_for '  0 switch' || exit 1
n=300; seen=0
while [ $n -gt 0 ] && [ $seen = 0 ]; do
	$T capture-pane -p | grep -Eq '^ +[0-9]+ switch .* +([1-9][0-9]|100)% ' &&
	    seen=1
	sleep 0.1; n=$((n - 1))
done
[ $seen = 1 ] || { echo "fill never above 9%"; $T capture-pane -p; exit 1; }
$T kill-server; sleep 0.2
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI \
    -c 'sleep 1; echo output-of-the-child' \
    -n 'profile:::tick-10hz { @n = count(); }'" || exit 1
wait_for 'dtui tracing' || exit 1
wait_for 'output-of-the-child' || exit 1
wait_for 'dtui stopped' || exit 1
exit 0
