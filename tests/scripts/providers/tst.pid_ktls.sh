# pid probes' thread-locals and argument-keyed aggregations in the kernel
# (uprobe_kern.c, bpf_tls.c, bpf_agg.c), compared byte for byte with the
# shim's path (DTUI_AGG_KERNEL=0) as tst.tls_kernel.sh does for system
# calls: a value carried from entry to return in self-> (the return
# probe a uretprobe, and at its returning instruction), keys on an
# argument, and a key of 100000 distinct arguments (a plan keyed on a
# user function's arguments keeps at most 4096 keys in the kernel: the
# rest go through records, still exact).  The
# point of it: with a perf ring far too small for a record per call
# (8 KiB), the latency idiom entry { self->ts = timestamp; } return
# /self->ts/ { quantize(timestamp - self->ts) } counts every call.
. ./lib.sh
need_root
build pidloop
cd "$W" || exit 1
TO=
command -v timeout > /dev/null && TO="timeout 120"

# run N ENV...: dtrace on pidloop N with $prog, stdout and stderr
run() {
	n=$1
	shift
	env "$@" $TO $DTRACE -q -c "./pidloop $n" -n "$prog" > out 2>&1 ||
	    fail "dtrace failed ($*): $(cat out)"
	cat out
}

# both N WHAT: kernel and shim print the same; $kern holds it
both() {
	kern=$(run "$1" DTUI_AGG_KERNEL=1)
	shim=$(run "$1" DTUI_AGG_KERNEL=0)
	[ "$kern" = "$shim" ] || fail "$2: kernel and shim differ:
$(echo "$kern" | head -20)
---
$(echo "$shim" | head -20)"
}

prog='pid$target:a.out:pl_f:entry { self->x = arg0; }
pid$target:a.out:pl_f:return /self->x/ { @q = quantize(self->x);
    @l = lquantize(self->x % 100, 0, 100, 10); @c = count(); self->x = 0; }
END { printa(@q); printa(@l); printa("count %@d\n", @c); }'
both 5000 "entry to return"
echo "$kern" | grep -qx "count 4999" || fail "entry to return: $kern"
# the return probe read no arg0, uregs[] or stack: a uretprobe sharing
# the entry's breakpoint; at its returning instruction, the same
rets=$(run 5000 DTUI_PID_RETSITES=1)
[ "$rets" = "$kern" ] || fail "uretprobe and ret sites differ:
$kern
---
$rets"
echo "$kern" | grep -Eq '^ +2048 \|@+ +2048 *$' ||
    fail "entry to return: no 2048 bucket of 2048: $kern"

prog='pid$target:a.out:pl_f:entry { @[arg0 % 7] = count(); @s = sum(arg0); }
pid$target:a.out:pl_f:return { @r[arg1 % 3] = count(); }
END { printa("%d %@d\n", @); printa("s %@d\n", @s); printa("r %d %@d\n", @r); }'
both 5000 "argument keys"
echo "$kern" | grep -qx "s $((5000 * 4999 / 2))" || fail "argument keys: $kern"
echo "$kern" | grep -qx "0 715" || fail "argument keys: $kern"

# 100000 distinct keys: the kernel's map holds 65536, the rest are
# records (no drop, nothing lost)
prog='pid$target:a.out:pl_f:entry { @[arg0] = count(); }
END { printa("%d %@d\n", @); }'
both 100000 "distinct keys"
echo "$kern" | grep -q drop && fail "distinct keys: drops: $(echo "$kern" | grep drop)"
echo "$kern" | awk 'NF == 2 { n++; t += $2 } END { exit !(n == 100000 && t == 100000) }' ||
    fail "distinct keys: $(echo "$kern" | awk 'NF == 2 { n++; t += $2 } END { print n, t }')"

# in the kernel, no record per call: exact with an 8 KiB ring
N=200000
prog='pid$target:a.out:pl_f:entry { self->ts = timestamp; }
pid$target:a.out:pl_f:return /self->ts/ { @n = count();
    @q = quantize(timestamp - self->ts); self->ts = 0; }
END { printa("n %@d\n", @n); }'
out=$(run $N DTUI_PERF_RING_KB=8)
echo "$out" | grep -q drop && fail "8 KiB ring: drops: $out"
echo "$out" | grep -qx "n $N" || fail "8 KiB ring: latency idiom: $out"
prog='pid$target:a.out:pl_k:entry { @k[arg0] = count(); }
END { printa("k %d %@d\n", @k); }'
out=$(run $N DTUI_PERF_RING_KB=8)
echo "$out" | grep -q drop && fail "8 KiB ring: drops: $out"
echo "$out" | grep -qx "k 4 $((N / 5))" || fail "8 KiB ring: keys: $out"
exit 0
