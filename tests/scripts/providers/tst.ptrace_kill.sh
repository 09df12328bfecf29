# dtrace killed (-9) while the ptrace route has breakpoints and replaced
# return addresses in a -p target whose threads are all in probed
# functions: the helper must take every int3 and return address back
# before it lets each thread go, whatever each thread is doing then
# (stepping over an instruction while the others are held, stopped for
# an interrupt with a breakpoint trap or a return's fault still queued
# behind it, running).  Rounds kill at different moments; each checks
# that the target lives, is untraced, sees its code as it was (no int3)
# and computes the right sums.  The queued-trap case needs the kernel to
# preempt a thread between its trap and its signal: more rounds, more
# chances (ROUNDS=, default 8).
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv to run as nobody"; exit 77; }
build pidthreads
chmod 777 "$W"
nob="setpriv --reuid=nobody --regid=nogroup --clear-groups"
r=0
while [ $r -lt "${ROUNDS:-8}" ]; do
	r=$((r + 1))
	rm -f "$W/stop" "$W/dk.out"
	$nob "$W/pidthreads" "$W/stop" > "$W/pt.out" &
	p=$!
	wait_maps $p pidthreads
	# mt_add steps (its first instruction is not emulated), mt_push's
	# push is emulated; both return through the trampoline, nested
	$nob $DTRACE -q -p $p -n '
pid$target:a.out:mt_add:entry, pid$target:a.out:mt_push:entry,
pid$target:a.out:mt_push:return { @ = count(); }
pid$target:a.out:mt_add:return /++n % 300 == 0/ { printf("traced %d\n", n); }' \
	    > "$W/dk.out" 2>&1 &
	d=$!
	# kill after r lines: a different moment each round
	i=0
	until [ "$(grep -c traced "$W/dk.out" 2> /dev/null)" -ge $r ] 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { kill $p $d; fail "round $r: never traced: $(cat "$W/dk.out")"; }
		sleep 0.01
	done
	kill -9 $d
	wait $d 2> /dev/null
	wait_untraced $p "round $r: dtrace killed"
	grep -q 'State:.*[tT]' /proc/$p/status && { kill -9 $p; fail "round $r: left stopped"; }
	touch "$W/stop"
	wait $p || fail "round $r: target failed after dtrace died: $(cat "$W/pt.out")"
	grep -qx 'code 48' "$W/pt.out" && grep -Eqx 'ok [0-9]+' "$W/pt.out" ||
	    fail "round $r: after dtrace died: $(cat "$W/pt.out")"
done
exit 0
