# The ptrace route's seccomp filter is inherited by the -c command's
# descendants.  One that outlives dtrace must keep working: its traced
# call (write) succeeds because the ptrace helper stays behind as a
# passive tracer until the last such descendant has exited, then exits.
# Runs: root forcing the route (DTUI_ROUTE=ptrace) and nobody; then
# dtrace killed with SIGKILL while its -c command still runs (the
# command dies with it, as in dtrace(1M)); a -p target is detached at
# once (not under the filter).
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
D="$W/d"
mkdir "$D" && chmod 777 "$D"
# bg.sh leaves a background child that writes after dtrace has exited
# (once the test has checked it is still traced and made $D/go, at most
# 10 s later); fg.sh itself writes late (for the SIGKILL run).
cat > "$D/bg.sh" <<END
#!/bin/sh
sh -c 'echo \$\$ > $D/pid; i=0; while [ ! -e $D/go ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done; /bin/echo survived > $D/out' &
END
cat > "$D/fg.sh" <<END
#!/bin/sh
echo \$\$ > $D/pid; sleep 2; /bin/echo survived > $D/out
END
chmod 755 "$D/bg.sh" "$D/fg.sh"
# The tracer of pid $1 (the helper), or fail.
tracer() {
	tp=$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ -n "$tp" ] && [ "$tp" != 0 ] || fail "$2: pid $1 not traced"
	echo "$tp"
}
# Wait for the output file and the helper's end (gone or a zombie).
check() {
	hp=$1; what=$2
	for i in $(seq 50); do
		[ -s "$D/out" ] && break
		sleep 0.1
	done
	[ "$(cat "$D/out" 2>/dev/null)" = survived ] ||
	    fail "$what: the descendant's write failed: '$(cat "$D/out")'"
	for i in $(seq 50); do
		st=$(sed 's/.*) \(.\).*/\1/' "/proc/$hp/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1
	done
	fail "$what: helper $hp still there (state $st)"
}
run_bg() {
	what=$1; shift
	rm -f "$D/out" "$D/pid" "$D/go"
	out=$(cd / && timeout 20 "$@" $DTRACE -q -c "$D/bg.sh" \
	    -n 'syscall::write:entry { @ = count(); }' 2>&1) ||
	    fail "$what: dtrace failed: $out"
	[ -s "$D/pid" ] || fail "$what: no pid file: $out"
	hp=$(tracer "$(cat "$D/pid")" "$what")
	touch "$D/go"
	check "$hp" "$what"
}
run_bg root env DTUI_ROUTE=ptrace
run_bg nobody setpriv --reuid=nobody --regid=nogroup --clear-groups
# SIGKILL: the -c command dies with dtrace, as dtrace(1M)'s created
# processes do (kill on last close); the helper then has no one left.
rm -f "$D/out" "$D/pid"
(cd / && exec env DTUI_ROUTE=ptrace $DTRACE -q -c "$D/fg.sh" \
    -n 'syscall::write:entry { @ = count(); }' > /dev/null 2>&1) &
dp=$!
for i in $(seq 50); do
	[ -s "$D/pid" ] && break
	sleep 0.1
done
[ -s "$D/pid" ] || fail "sigkill: no pid file"
cp=$(cat "$D/pid")
hp=$(tracer "$cp" sigkill)
kill -9 $dp
wait $dp 2> /dev/null
for i in $(seq 50); do
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$cp/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.1
done
[ -z "$st" ] || [ "$st" = Z ] || fail "sigkill: -c command $cp still runs"
for i in $(seq 50); do
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$hp/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] && break
	sleep 0.1
done
[ -z "$st" ] || [ "$st" = Z ] || fail "sigkill: helper $hp still there"
[ -e "$D/out" ] && fail "sigkill: the -c command wrote after dtrace died"
# A -p target is not under the filter: at the end it is let go at once.
sleep 30 &
sp=$!
out=$(cd / && timeout 20 env DTUI_ROUTE=ptrace $DTRACE -q -p $sp \
    -n 'syscall::write:entry { } tick-1s { exit(0); }' 2>&1) ||
    { kill $sp; fail "-p: dtrace failed: $out"; }
tp=x
for i in $(seq 20); do
	tp=$(awk '/^TracerPid:/ { print $2 }' "/proc/$sp/status")
	[ "$tp" = 0 ] && break
	sleep 0.1
done
kill $sp
[ "$tp" = 0 ] || fail "-p: target still traced by $tp"
exit 0
