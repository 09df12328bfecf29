# Aggregations counted in the kernel (providers/bpf/bpf_agg.c): a probe whose
# only clause is @[execname] = count() is counted in a BPF map and
# replayed before END, exactly: 1234 getppid() calls of the -c target.
# The same with a pid predicate (filter in front of the counting body),
# and keyed by pid, tid: one key of 1234.
. ./lib.sh
need_root
build calls
out=$($DTRACE -q -c "$W/calls" -n '
syscall::getppid:entry { @[execname] = count(); }
END { printa("%s %@d\n", @); }') || fail "dtrace failed: $out"
echo "$out" | grep -qx 'calls 1234' || fail "execname count: $out"
out=$($DTRACE -q -c "$W/calls" -n '
syscall::getppid:entry /pid == $target/ { @n = count(); @[pid, tid] = count(); }
END { printa("n %@d\n", @n); printa("k %d %d %@d\n", @); }') ||
    fail "dtrace failed: $out"
echo "$out" | grep -qx 'n 1234' || fail "filtered count: $out"
[ "$(echo "$out" | grep -c '^k ')" = 1 ] || fail "pid, tid keys: $out"
echo "$out" | grep -q '^k [0-9]* [0-9]* 1234$' || fail "pid, tid count: $out"
exit 0
