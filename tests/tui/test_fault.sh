#!/bin/sh
# test_fault.sh - a provider's source failing mid-session in dtui (issue
# #14): the ptrace helper of a -c command killed.  The buffers pane shows
# the message ("the ptrace helper (pid N) was killed by signal 9"), the
# rest of the session goes on (tick-10ms keeps counting), tracing stops
# when the command ends, and q gives the terminal back to the shell.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root to force the ptrace route"; exit 77; }
cat > "$tmp/cmd.sh" <<EOS
#!/bin/sh
echo x > /dev/null
echo \$\$ > $tmp/pid
while [ ! -e $tmp/go ]; do sleep 0.02; done
EOS
chmod 755 "$tmp/cmd.sh"
cat > "$tmp/run" <<EOS
DTUI_ROUTE=ptrace XDG_DATA_HOME=$tmp $DTUI -c $tmp/cmd.sh \
    -n 'syscall::write:entry /pid == \$target/ { @w = count(); }
    tick-10ms { @t = count(); }'
echo SHELL-IS-BACK
sleep 30
EOS
$T new-session -d -x 120 -y 30 "sh $tmp/run" || exit 1
wait_for 'dtui tracing' 20 || exit 1
wait_until '[ -s "$tmp/pid" ]' 20 || exit 1
pid=$(cat "$tmp/pid")
tp=$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status")
[ -n "$tp" ] && [ "$tp" != 0 ] || { echo "pid $pid not traced"; exit 1; }
kill -9 "$tp"
$T send-keys Escape 3
wait_for "the ptrace helper (pid $tp) was killed by signal 9" 20 || exit 1
touch "$tmp/go"
wait_for 'dtui stopped' 30 || exit 1
$T send-keys Escape 2
wait_for '@t' 20 || exit 1
$T send-keys Escape q
wait_for 'SHELL-IS-BACK' 20 || exit 1
exit 0
