# Thread-local variables held in the kernel (tlsplan.c, bpf_tls.c): the
# entry/return idiom runs in BPF, self-> in a per-thread hash, and gives
# exactly what the shim's path gives (DTUI_AGG_KERNEL=0): quantize and
# lquantize of a value carried from entry to return, the same counts for
# a latency quantize, the same dynamic variable drops when dynvarsize is
# too small.  w_tls.c makes a known number of calls in several threads.
. ./lib.sh
need_root
build tls
TO=
command -v timeout > /dev/null && TO="timeout 120"	# a hang fails

# run ENV... -- ARG: dtrace on the workload, stdout and stderr; traced
# from its exec (-x evaltime=exec): the dynamic loader's reads count
run() {
	env "$@" $TO $DTRACE -q -x evaltime=exec -c "$W/tls $arg" -n "$prog" > "$W/out" 2>&1 ||
	    fail "dtrace failed ($*): $(cat "$W/out")"
	cat "$W/out"
}

# both paths: the same output, which is $kern after this
both() {
	kern=$(run DTUI_AGG_KERNEL=1)
	shim=$(run DTUI_AGG_KERNEL=0)
	[ "$kern" = "$shim" ] || fail "$1: kernel and shim differ:
$kern
---
$shim"
}

# a value from entry to return: 14 sizes, 5 times, in 4 threads, and the
# 2 reads of the dynamic loader (4 and 832 bytes); assigning 0 deletes
arg=reads
prog='syscall::read:entry /pid == $target/ { self->sz = arg2; }
syscall::read:return /self->sz/ { @q = quantize(self->sz);
    @l = lquantize(self->sz, 0, 4096, 512); @c = count(); self->sz = 0; }
END { printa(@q); printa(@l); printa("count %@d\n", @c); }'
both "sizes"
echo "$kern" | grep -qx "count 282" || fail "sizes: $kern"
for want in "1 20" "4 21" "64 40" "512 21" "2048 40" "0 201" "2560 20"; do
	echo "$kern" | awk '/\|/ { print $1, $NF }' | grep -qx "$want" ||
	    fail "sizes: no bucket '$want' in: $kern"
done

# predicates with execname, && and || lowered to BPF as well
prog='syscall::read:entry /execname == "tls" || pid == 1/ { self->sz = arg2; }
syscall::read:return /self->sz && execname != "nothere"/ {
    @q[arg0 > 0] = quantize(self->sz); @c = count(); self->sz = 0; }
END { printa(@q); printa("count %@d\n", @c); }'
both "execname"	# not the -c child's read before its exec (comm dtrace)
echo "$kern" | grep -qx "count 281" || fail "execname: $kern"

# a kernel clause the provider cannot lower (arg2 is not in a return
# probe's record): it vetoes, every self-> of the program stays in the
# shim, and the answer is the same
prog='syscall::read:entry /pid == $target/ { self->sz = arg2; }
syscall::read:return /self->sz/ { @q = quantize(self->sz + arg2 * 0);
    @c = count(); self->sz = 0; }
END { printa("count %@d\n", @c); }'
both "veto"
echo "$kern" | grep -qx "count 282" || fail "veto: $kern"

# the latency idiom: every read measured once, on either path
prog='syscall::read:entry /pid == $target/ { self->ts = timestamp; }
syscall::read:return /self->ts/ { @t = quantize(timestamp - self->ts);
    @n = count(); self->ts = 0; }
END { printa("count %@d\n", @n); }'
for k in 1 0; do
	out=$(run DTUI_AGG_KERNEL=$k)
	s=$(echo "$out" | awk '/\|/ { s += $NF } END { print s + 0 }')
	[ "$s" = 282 ] && echo "$out" | grep -qx "count 282" ||
	    fail "latency ($k): $s in the buckets: $out"
done
# counted in the kernel indeed: with room for 2 keys the kernel's map
# fills and drops are reported; the shim path has no such map
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=2)
echo "$out" | grep -q "aggregation drops" || fail "no kernel map drops: $out"
out=$(run DTUI_AGG_KERNEL=0 DTUI_AGG_MAXKEYS=2)
echo "$out" | grep -q "aggregation drops" && fail "shim path drops: $out"

# integers narrower than 8 bytes (an int flag, a char that wraps: sizes
# of 128 and up read negative, 256 and 0 alike), which the shim keeps in
# 8 bytes as the kernel's map does
arg=reads
prog='syscall::read:entry /pid == $target/ { self->n = 1; self->c = (char)arg2; }
syscall::read:return /self->n/ { @q = lquantize(self->c, -128, 128, 32);
    @c = count(); self->n = 0; self->c = 0; }
END { printa(@q); printa("count %@d\n", @c); }'
both "narrow"
echo "$kern" | grep -qx "count 282" || fail "narrow: $kern"
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=2)
echo "$out" | grep -q "aggregation drops" || fail "narrow: not in the kernel: $out"

# llquantize of a value carried from entry to return: the kernel keys on
# the bucket's lower edge (bpf_tls.c llq_key), the shim builds the same
prog='syscall::read:entry /pid == $target/ { self->sz = arg2; }
syscall::read:return /self->sz/ { @l = llquantize(self->sz, 4, 0, 6, 8);
    @c = count(); self->sz = 0; }
END { printa(@l); printa("count %@d\n", @c); }'
both "llquantize"
echo "$kern" | grep -qx "count 282" || fail "llquantize: $kern"
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=2)
echo "$out" | grep -q "aggregation drops" ||
    fail "llquantize: not in the kernel: $out"

# 50 threads set a variable and never clear it; dynvarsize holds 10 of
# them (48 bytes each in the shim's arena, as many in the kernel's map)
arg=threads
prog='#pragma D option dynvarsize=480
syscall::getppid:entry /pid == $target/ { self->ts = timestamp; }
syscall::getppid:entry /pid == $target/ { @ = count(); }
END { printa("calls %@d\n", @); }'
both "drops"
echo "$kern" | grep -qx "dtrace: 40 dynamic variable drops" &&
    echo "$kern" | grep -qx "calls 50" || fail "drops: $kern"
exit 0
