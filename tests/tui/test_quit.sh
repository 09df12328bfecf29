#!/bin/sh
# test_quit.sh - Ctrl-C stops tracing without quitting; q while tracing
# asks first; quitting restores the terminal (stty settings as before,
# normal screen back); SIGTERM quits cleanly and a fatal signal restores
# the terminal before dtui dies of it.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for the profile provider"; exit 77; }
cat > "$tmp/run" <<EOS
stty -g > $tmp/before
XDG_DATA_HOME=$tmp sh -c 'echo \$\$ > $tmp/pid; exec "\$0" "\$@"' \
    $DTUI -n 'profile:::tick-10hz { @c = count(); }'
echo "rc=\$?" > $tmp/rc
stty -g > $tmp/after
echo SHELL-IS-BACK
sleep 30
EOS
$T new-session -d -x 80 -y 24 "sh $tmp/run" || exit 1
wait_for 'dtui tracing' || exit 1
$T send-keys Escape C-c
wait_for 'dtui stopped' || exit 1
wait_for 'tracing stopped' || exit 1
$T send-keys Escape q		# stopped: quits at once
wait_for 'SHELL-IS-BACK' || exit 1
cmp -s "$tmp/before" "$tmp/after" || { echo "stty changed"; exit 1; }
grep -q 'rc=0' "$tmp/rc" || { cat "$tmp/rc"; exit 1; }
$T capture-pane -p | grep -q 'dtui>' && { echo "screen not restored"; exit 1; }
$T kill-server; sleep 0.2
# q while tracing asks; n keeps running, y quits
$T new-session -d -x 80 -y 24 "sh $tmp/run" || exit 1
wait_for 'dtui tracing' || exit 1
$T send-keys Escape q
wait_for 'Quit dtui? (y/n)' || exit 1
$T send-keys n
sleep 0.3
$T capture-pane -p | grep -q 'dtui tracing' || exit 1
$T send-keys q y
wait_for 'SHELL-IS-BACK' || exit 1
cmp -s "$tmp/before" "$tmp/after" || { echo "stty changed"; exit 1; }
# signals: SIGTERM ends it cleanly, SIGSEGV restores and re-raises
for sig in TERM SEGV; do
	$T kill-server; sleep 0.2; rm -f "$tmp/after" "$tmp/rc"
	$T new-session -d -x 80 -y 24 "sh $tmp/run" || exit 1
	wait_for 'dtui tracing' || exit 1
	kill -s $sig "$(cat "$tmp/pid")"
	wait_for 'SHELL-IS-BACK' || exit 1
	cmp -s "$tmp/before" "$tmp/after" ||
		{ echo "stty changed after SIG$sig"; exit 1; }
	want=0; [ $sig = SEGV ] && want=139
	grep -q "rc=$want" "$tmp/rc" || { echo "SIG$sig: $(cat "$tmp/rc")"; exit 1; }
done
# a terminal that cannot move the cursor is refused, the terminal intact
cat > "$tmp/dumb" <<EOS
stty -g > $tmp/before
TERM=dumb $DTUI -n 'BEGIN { }'
echo "rc=\$?" > $tmp/rc
stty -g > $tmp/after
echo SHELL-IS-BACK
sleep 30
EOS
$T kill-server; sleep 0.2; rm -f "$tmp/after" "$tmp/rc"
$T new-session -d -x 80 -y 24 "sh $tmp/dumb" || exit 1
wait_for 'SHELL-IS-BACK' || exit 1
wait_for 'cannot use terminal type "dumb"' || exit 1
grep -q 'rc=1' "$tmp/rc" || { echo "TERM=dumb: $(cat "$tmp/rc")"; exit 1; }
cmp -s "$tmp/before" "$tmp/after" || { echo "stty changed (dumb)"; exit 1; }
exit 0
