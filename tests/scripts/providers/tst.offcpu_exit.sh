# sched:::off-cpu for a thread's last switch (in do_exit, after the kernel
# unhashed its pid, which perf samples as tid -1): the firing names the
# exiting thread (tid from the record's prev_pid, pid of its process),
# never tid -1.  20 threads each sleep once and exit: every one of them
# fires off-cpu at least twice with its own tid.
. ./lib.sh
need_root
build threads
out=$($DTRACE -q -c "$W/threads 20" -n '
sched:::off-cpu /tid < 0/ { @bad = count(); }
sched:::off-cpu /pid == $target && tid != $target/ { @n[tid] = count(); }
END { printa("bad %@d\n", @bad); printa("tid %d %@d\n", @n); }' 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -q '^bad' && fail "off-cpu fired with tid -1: $out"
threads=$(echo "$out" | grep -c '^tid')
[ "$threads" -eq 20 ] || fail "expected 20 threads off-cpu, got $threads: $out"
echo "$out" | awk '/^tid/ && $3 < 2 { bad = 1 } END { exit bad }' ||
    fail "a thread switched off-cpu fewer than twice: $out"
exit 0
