# The ptrace route counts every system call of threads and child
# processes created in quick succession, some exiting while others are
# created (w_lwps.c): exact counts per thread and child, each call
# under the right pid, entries and returns; through -c (seccomp filter)
# as nobody and as root (DTUI_ROUTE=ptrace), and through -p (no filter).
# A new thread's first stop may reach the helper before its creator's
# clone event: its calls must still be counted, under its process's pid.
# RUNS (default 3) runs of N (default 40) threads per way.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build lwps
N=${N:-40}
RUNS=${RUNS:-3}
script='
syscall::getpgid:entry /arg0 >= 1000000 && arg0 < 3000000/
{
	self->m = arg0 - 999999;
	@m[arg0 - 1000000, tid == pid ? (ppid == $target ? "c" : "?") :
	    (pid == $target ? "t" : "?")] = count();
}
syscall::getppid:entry /pid == $target || ppid == $target/
{ @e[self->m] = count(); }
syscall::getppid:return /pid == $target || ppid == $target/
{ @r[self->m] = count(); }
END
{
	printa("m %d %s %@d\n", @m);
	printa("e %d %@d\n", @e);
	printa("r %d %@d\n", @r);
}'
want=$(awk -v n=$N 'BEGIN {
	for (i = 0; i < n; i++) {
		printf("m %d t 1\ne %d %d\nr %d %d\n", i, i + 1, 1 + i % 5,
		    i + 1, 1 + i % 5);
		if (i % 8 == 7)
			printf("m %d c 1\ne %d 2\nr %d 2\n", 1000000 + i,
			    1000001 + i, 1000001 + i);
	}
}' | sort)
# check OUT WAY
check() {
	got=$(echo "$1" | grep -v '^$' | sort)
	[ "$got" = "$want" ] ||
	    fail "$2: counts differ (-want +got):
$(printf '%s\n' "$want" > "$W/want"; printf '%s\n' "$got" | diff -u "$W/want" - | grep '^[-+][^-+]')"
}
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
i=0
while [ $i -lt "$RUNS" ]; do
	out=$(cd / && timeout 60 $NOBODY $DTRACE -q -c "$W/lwps $N" \
	    -n "$script" 2>&1) || fail "nobody -c: dtrace failed: $out"
	check "$out" "nobody -c"
	out=$(cd / && timeout 60 env DTUI_ROUTE=ptrace $DTRACE -q \
	    -c "$W/lwps $N" -n "$script" 2>&1) ||
	    fail "root -c: dtrace failed: $out"
	check "$out" "root -c"
	# -p: the workload waits (calling getpgid(3000000)) until dtrace
	# has seen one of those calls; syscall probes are enabled after
	# the attach there.
	rm -f "$W/go" "$W/pout"
	(cd / && exec $NOBODY "$W/lwps" $N "$W/go") &
	wp=$!
	k=0			# attach once it runs the workload as nobody
	while [ $k -lt 200 ] &&
	    [ "$(readlink "/proc/$wp/exe")" != "$W/lwps" ]; do
		sleep 0.05
		k=$((k + 1))
	done
	(cd / && exec timeout 60 $NOBODY $DTRACE -q -p $wp -n "int ready;
$script
syscall::getpgid:entry /arg0 == 3000000 && !ready/
{ ready = 1; printf(\"ready\\n\"); }" > "$W/pout" 2>&1) &
	dp=$!
	k=0
	while [ $k -lt 200 ] && ! grep -qs '^ready$' "$W/pout"; do
		sleep 0.05
		k=$((k + 1))
	done
	touch "$W/go"
	wait $dp
	rc=$?
	wait $wp
	out=$(cat "$W/pout")
	[ $rc -eq 0 ] || fail "nobody -p: dtrace failed: $out"
	echo "$out" | grep -q '^ready$' ||
	    fail "nobody -p: no syscall seen before the workload went on: $out"
	check "$(echo "$out" | grep -v '^ready$')" "nobody -p"
	i=$((i + 1))
done
exit 0
