# usdt probes' predicates and simple aggregations done in the kernel, as
# pid probes' (uprobe_kern.c): a program with its own provider
# (build_usdtprov) counted with a perf ring far too small for a record
# per firing (8 KiB) is counted exactly, with a predicate on a register
# operand (-4@%eax) filtered there; and no firing is lost to the
# enabling: the uprobes (and so the semaphore the program waits for) are
# placed at GO, after the programs are loaded, for -c and for a -p
# process already waiting.
. ./lib.sh
need_root
build_usdtprov
readelf -n "$W/usdtprov" | grep -A3 'Name: tick' | grep -q 'Arguments: -4@%eax' ||
    { echo "tick's operands are not -4@%eax here: $(readelf -n "$W/usdtprov" | grep -A3 'Name: tick')"; exit 77; }
N=200000
got=$(DTUI_PERF_RING_KB=8 timeout 60 $DTRACE -q -c "$W/usdtprov $N wait" -n '
dtuitest$target:::tick { @t = count(); }
dtuitest$target:::always { @a = count(); }
END { printa("tick %@d\n", @t); printa("always %@d\n", @a); }' 2>&1) ||
    fail "dtrace failed: $got"
want="enabled $N
tick $N
always $N"
[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "8 KiB ring: got: $got"
got=$(DTUI_PERF_RING_KB=8 timeout 60 $DTRACE -q -c "$W/usdtprov $N wait" -n '
dtuitest$target:::tick /arg0 <= 10 && arg0 > -5/ { @lt = count(); }
END { printa("lt %@d\n", @lt); }' 2>&1) || fail "dtrace failed: $got"
want="enabled $N
lt 10"
[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "predicate: got: $got"
# -p: the program waits for its semaphore; every round after it rose is
# counted (placed at GO, always's before tick's: none fires before the
# shim is active or before the other probe is placed)
N=20000
for round in 1 2 3; do
	"$W/usdtprov" $N wait > "$W/out" &
	pid=$!
	wait_maps $pid usdtprov
	got=$(timeout 60 $DTRACE -q -p $pid -n '
	dtuitest$target:::always { @a = count(); }
	dtuitest$target:::tick { @t = count(); }
	END { printa("tick %@d\n", @t); printa("always %@d\n", @a); }' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { kill $pid; fail "-p: dtrace failed ($rc): $got"; }
	wait $pid
	[ "$(cat "$W/out")" = "enabled $N" ] || fail "-p: workload: $(cat "$W/out")"
	want="tick $N
always $N"
	[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "-p round $round: got: $got"
done
exit 0
