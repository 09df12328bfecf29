# A flood of events into small perf rings (and, second, a small principal
# buffer too) through the real dtrace command: the drops it reports plus
# the records kept equal the events fired, exactly.
. ./lib.sh
need_root
build flood
N=200000
export DTUI_PERF_RING_KB=8

# Lost events of any process count as drops, so two runs of this test at
# once (two make checks) would see each other's getcpu() calls: take turns.
if command -v flock > /dev/null; then
	exec 9> /tmp/dtui-tst-drops-flood.lock
	flock 9
fi

# drops DTRACE-STDERR: the sum of "dtrace: N drops on CPU M" lines (and
# "N aggregation drops": what an aggregation-only clause loses)
drops() {
	sed -n 's/^dtrace: \([0-9]*\) \(aggregation \)\{0,1\}drops\{0,1\} on CPU [0-9]*$/\1/p' "$1" |
	    awk '{ s += $1 } END { print s + 0 }'
}

# attempt: one run of each form; 0 if both are exact, else 1 with $why.
# The count clause also stores a thread-local string (the kernel keeps
# integer thread-locals only, tlsplan.c), so its firings travel as records
# through the rings (aggregations alone are counted in the kernel,
# bpf_agg.c: the last form, exact with no drops at all).
attempt() {
	$DTRACE -q -c "$W/flood $N" -n '
	syscall::getcpu:entry /pid == $target/ { @ = count(); self->s = execname; }
	END { printa("kept %@d\n", @); }' > "$W/out1" 2> "$W/err1" ||
	    fail "dtrace failed: $(cat "$W/err1")"
	kept=$(sed -n 's/^kept //p' "$W/out1")
	d=$(drops "$W/err1")
	[ "$d" -gt 0 ] || fail "no drops reported with 8 KiB rings (kept $kept)"
	if [ $((kept + d)) -ne $N ]; then
		why="count: kept $kept + drops $d != $N"
		return 1
	fi
	$DTRACE -q -b 64k -c "$W/flood $N" -n '
	syscall::getcpu:entry /pid == $target/ { printf("x\n"); }' \
	    > "$W/out2" 2> "$W/err2" || fail "dtrace failed: $(cat "$W/err2")"
	kept=$(grep -c '^x$' "$W/out2")
	d=$(drops "$W/err2")
	if [ $((kept + d)) -ne $N ]; then
		why="printf: kept $kept + drops $d != $N"
		return 1
	fi
	$DTRACE -q -c "$W/flood $N" -n '
	syscall::getcpu:entry /pid == $target/ { @ = count(); }
	END { printa("kept %@d\n", @); }' > "$W/out3" 2> "$W/err3" ||
	    fail "dtrace failed: $(cat "$W/err3")"
	kept=$(sed -n 's/^kept //p' "$W/out3")
	d=$(drops "$W/err3")
	if [ "$kept" != $N ] || [ "$d" != 0 ]; then
		why="counted in the kernel: kept $kept, drops $d, of $N"
		return 1
	fi
	return 0
}

# Another process's getcpu() calls lost in the same rings (a second make
# check running an older copy of this test) add drops: three attempts.
for try in 1 2 3; do
	attempt && exit 0
	echo "attempt $try: $why" >> "$W/whys"
done
fail "$(cat "$W/whys")"
