# The ptrace route's helper killed mid-session (issue #14): dtrace says
# so on stderr ("the ptrace helper (pid N) was killed by signal 9: ..."),
# keeps what was counted before (the -c command's 6 writes), goes on with
# the rest of the session (tick-1ms keeps firing), and ends cleanly with
# its command, status 0.  Run as root on the forced route
# (DTUI_ROUTE=ptrace).
. ./lib.sh
need_root
cat > "$W/cmd.sh" <<END
#!/bin/sh
i=0
while [ \$i -lt 5 ]; do echo x > /dev/null; i=\$((i + 1)); done
echo \$\$ > $W/pid
while [ ! -e $W/go ]; do sleep 0.02; done
END
chmod 755 "$W/cmd.sh"
DTUI_ROUTE=ptrace timeout 60 $DTRACE -q -c "$W/cmd.sh" -n '
syscall::write:entry /pid == $target/ { @w = count(); }
tick-1ms { @t = count(); }
END { printa("writes %@d\n", @w); printa("ticks %@d\n", @t); }' \
    > "$W/out" 2> "$W/err" &
dt=$!
i=0
while [ ! -s "$W/pid" ]; do
	kill -0 $dt 2> /dev/null || fail "dtrace ended early: $(cat "$W/out" "$W/err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "the command never started"
	sleep 0.01
done
pid=$(cat "$W/pid")
tp=$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status")
[ -n "$tp" ] && [ "$tp" != 0 ] || fail "pid $pid not traced"
kill -9 "$tp"
i=0
until grep -q 'ptrace helper' "$W/err"; do
	kill -0 $dt 2> /dev/null || fail "dtrace ended: $(cat "$W/out" "$W/err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "no message about the helper: $(cat "$W/err")"
	sleep 0.01
done
touch "$W/go"
wait $dt || fail "dtrace failed ($?): $(cat "$W/out" "$W/err")"
grep -q "^dtrace: the ptrace helper (pid $tp) was killed by signal 9: syscall and proc probes of the -c/-p targets fire no more" "$W/err" ||
    fail "message: $(cat "$W/err")"
grep -q '^writes 6$' "$W/out" || fail "writes before the kill: $(cat "$W/out")"
t=$(awk '/^ticks/ { print $2 }' "$W/out")
[ "${t:-0}" -gt 0 ] || fail "tick-1ms stopped: $(cat "$W/out")"
exit 0
