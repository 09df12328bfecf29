#!/bin/sh
# test_restart.sh - a stop is not the end of the session: after Ctrl-C,
# :set takes an option that only applies before tracing starts (bufsize,
# refused while tracing with the way to apply it), :restart traces again
# with the enablings kept, a new clause after a stop restarts too, and
# :remove works on a stopped session.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
cmd() {	# type a prompt command (from the panes or the prompt)
	$T send-keys -l "$1"; $T send-keys Enter
}
$T new-session -d -x 100 -y 30 \
    "XDG_DATA_HOME=$tmp $DTUI -x bufsize=4k -n 'profile:::tick-50hz { @n = count(); }'" ||
    exit 1
wait_for 'dtui tracing' || exit 1
cmd ':set bufsize=8m'
wait_for 'failed to set bufsize=8m: ' || exit 1
wait_for ':restart)' || exit 1		# refused, with the way to apply it
$T send-keys Escape C-c
wait_for 'dtui stopped' || exit 1
$T send-keys :
cmd 'set bufsize=8m'
wait_for 'bufsize set for the next tracing session' || exit 1
cmd ':restart'
wait_for 'tracing restarted with 1 enabling' 30 || exit 1
wait_for 'dtui tracing' || exit 1
cmd 'profile:::tick-10hz { @m = count(); }'
wait_for 'enabling 2: 1 probe' || exit 1
$T send-keys Escape 2
wait_for '@m  count' || exit 1
wait_for '@n  count' || exit 1
$T send-keys C-c
wait_for 'dtui stopped' || exit 1
$T send-keys :
cmd 'remove 1'
wait_for 'enabling 1 removed' || exit 1
cmd 'profile:::tick-20hz { @k = count(); }'	# restarts with 2, adds 3
wait_for 'enabling 3: 1 probe' 30 || exit 1
wait_for 'dtui tracing' || exit 1
cmd ':list'
wait_for '3 on  1 probes' || exit 1
$T capture-pane -p | grep -q '^1 on' && { echo "removed enabling back"; exit 1; }
$T capture-pane -p | grep -q '^2 on  1 probes' || { $T capture-pane -p; exit 1; }
# a bad -x names the option, as dtrace(1M) does
"$DTUI" -x nosuchopt=1 -n 'BEGIN { }' > "$tmp/out" 2>&1 && exit 1
grep -q 'dtui: failed to set nosuchopt=1: ' "$tmp/out" || { cat "$tmp/out"; exit 1; }
exit 0
