# pid probes' predicates and simple aggregations done in the kernel
# (uprobe_kern.c, with bpf_filter.c and bpf_agg.c): exact counts, sums
# and predicates on arguments at entry and on the return value (filtered
# in the kernel; sums of arguments through records), a key the kernel
# cannot take (a return's offset); quantize of 100000 distinct arguments
# exact (more than a kernel map would hold); and
# the point of it: no record per counted call, so a perf ring far too
# small for the records still counts every call.
. ./lib.sh
need_root
build pidloop
cd "$W" || exit 1
N=1000
out=$($DTRACE -q -c "./pidloop $N" -n '
pid$target:a.out:pl_f:entry { @e = count(); @a = sum(arg0); }
pid$target:a.out:pl_f:entry /arg0 < 10/ { @lt = count(); }
pid$target:a.out:pl_f:return { @r = count(); @v = sum(arg1); }
pid$target:a.out:pl_f:return /arg1 == 77/ { @eq = count(); }
END { printa("e %@d a %@d lt %@d r %@d v %@d eq %@d\n", @e, @a, @lt, @r,
    @v, @eq); }' 2>&1) || fail "dtrace failed: $out"
want="e $N a $((N * (N - 1) / 2)) lt 10 r $N v $((N * (N + 1) / 2)) eq 1"
echo "$out" | grep -qx "$want" || fail "counts: want '$want': $out"
# a key the kernel does not have (arg0 of a return: its ret's offset)
out=$($DTRACE -q -c "./pidloop 1000" -n '
pid$target:a.out:pl_f:return { @[arg0 > 0 ? "ret" : "zero"] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'ret 1000' || fail "return offset key: $out"
out=$($DTRACE -q -c "./pidloop 100000" -n '
pid$target:a.out:pl_f:entry { @ = quantize(arg0); }
END { printa(@); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -q drop && fail "quantize of distinct arguments: $out"
echo "$out" | grep -Eq '^ +65536 \|@+ +34464 *$' ||
    fail "quantize of distinct arguments: $out"
# thread-local variables between entry and return (in the kernel:
# tst.pid_ktls.sh compares them with the shim's)
out=$($DTRACE -q -c "./pidloop 1000" -n '
pid$target:a.out:pl_f:entry { self->ts = timestamp; }
pid$target:a.out:pl_f:return /self->ts/ { @ = count(); self->ts = 0; }
END { printa("n %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'n 1000' || fail "self-> entry to return: $out"
# counted in the kernel, no record per call: exact with a perf ring far
# too small for 200000 records (8 KiB: ~40 of them), where a clause the
# kernel cannot aggregate loses most of its firings
N=200000
out=$(DTUI_PERF_RING_KB=8 $DTRACE -q -c "./pidloop $N" -n '
pid$target:a.out:pl_f:entry { @ = count(); }
END { printa("n %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx "n $N" || fail "8 KiB ring: $out"
echo "$out" | grep -q drop && fail "drops counting in the kernel: $out"
exit 0
