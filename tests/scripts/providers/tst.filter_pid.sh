# In-kernel predicate filters (providers/bpf/bpf_filter.c): while another
# process makes the same system call as fast as it can, an exact count
# with a pid predicate stays exact (counted plus reported ring drops); two clauses with different predicates
# on one probe both see their events; a predicate no firing satisfies
# counts nothing (and, filtered in the kernel, reports no drops).
. ./lib.sh
need_root
build filt
cp "$W/filt" "$W/noise"
"$W/noise" 0 50 &
noise=$!
trap 'kill $noise 2>/dev/null; rm -rf "$W"' EXIT
N=20000
# drops TEXT: events the perf rings lost (reported), when the machine is
# busy enough that the workload outruns the drain thread
drops() {
	echo "$1" | awk '/drops? on CPU/ { s += $2 } END { print s + 0 }'
}
out=$($DTRACE -q -c "$W/filt $N 200" -n 'syscall::getppid:entry /pid == $target/ { @ = count(); }' 2>&1) ||
    fail "dtrace failed: $out"
n=$(echo "$out" | awk 'NF == 1 && $1 ~ /^[0-9]+$/ { v = $1 } END { print v + 0 }')
[ $((n + $(drops "$out"))) = "$N" ] ||
    fail "pid predicate counted $n of $N: $out"
out=$($DTRACE -q -c "$W/filt $N 200" -n '
syscall::getppid:entry /pid == $target/ { @a = count(); }
syscall::getppid:entry /execname == "noise"/ { @b = count(); }
END { printa("a %@d\n", @a); printa("b %@d\n", @b); }' 2>&1) ||
    fail "dtrace failed: $out"
a=$(echo "$out" | sed -n 's/^a //p')
b=$(echo "$out" | sed -n 's/^b //p')
[ "${a:-0}" -le "$N" ] && [ $((${a:-0} + $(drops "$out"))) -ge "$N" ] ||
    fail "first clause counted ${a:-none} of $N: $out"
[ -n "$b" ] && [ "$b" -gt 0 ] || fail "second clause saw nothing: $out"
kill $noise
"$W/noise" 0 &			# now as fast as it can: unfiltered, it
noise=$!			# would overrun the rings
out=$($DTRACE -q -c "$W/filt $N" -n 'syscall::getppid:entry /pid == 1 && execname == "nosuch"/ { @ = count(); }
END { printa("n %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -q '^n' && fail "counted firings no predicate allows: $out"
echo "$out" | grep -qi 'drop' && fail "drops although the kernel filters: $out"
exit 0
