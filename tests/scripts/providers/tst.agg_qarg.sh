# quantize kinds of an argument counted in the kernel by bucket
# (aggplan.c kap_qarg, bpf_agg.c): the map keys on a value of argN's
# bucket, not on argN, and the output is exactly the shim's path's
# (DTUI_AGG_KERNEL=0) for quantize, lquantize (below and above its range)
# and llquantize, on a pid probe and on a syscall.  w_qargs.c passes
# 6000 distinct values and the edges, and makes 600 reads of distinct
# sizes.
. ./lib.sh
need_root
build qargs
TO=
command -v timeout > /dev/null && TO="timeout 120"	# a hang fails

# run ENV...: dtrace on the workload, stdout and stderr
run() {
	env "$@" $TO $DTRACE -q -c "$W/qargs" -n "$prog" > "$W/out" 2>&1 ||
	    fail "dtrace failed ($*): $(cat "$W/out")"
	cat "$W/out"
}

# both WHAT: the same output on both paths ($kern after this)
both() {
	kern=$(run DTUI_AGG_KERNEL=1)
	shim=$(run DTUI_AGG_KERNEL=0)
	[ "$kern" = "$shim" ] || fail "$1: kernel and shim differ:
$kern
---
$shim"
	s=$(echo "$kern" | awk '/\|/ { s += $NF } END { print s + 0 }')
	[ -z "$2" ] || [ "$s" = "$2" ] || fail "$1: $s in the buckets, not $2: $kern"
}

pid='pid$target::qa_val:entry'
prog="$pid { @ = quantize(arg0); }"
both "quantize" 6023
prog="$pid { @ = lquantize(arg0, -100, 1000, 50); }"
both "lquantize" 6023
prog="$pid { @ = llquantize(arg0, 10, 0, 6, 20); }"
both "llquantize" 6023
prog="$pid { @[arg0 < 0] = quantize(args[0]); }"
both "args[0], keyed on its sign (exact)" 6023
prog="$pid { @q = quantize(arg0); @s = sum(arg0); }
END { printa(\"%@d\n\", @s); }"
both "quantize beside sum (exact)" 6023
prog="$pid { @q = quantize(arg0); @l = lquantize(arg0, 0, 100, 10); }"
both "two quantize kinds (exact)" 12046

# a syscall: 600 distinct return values in a map with room for 100 keys:
# bucketed, they fit; sum() needs the exact values, which do not
prog='syscall::read:return /pid == $target/ { @ = quantize(arg0); }'
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=100)
echo "$out" | grep -q "aggregation drops" && fail "quantize not bucketed: $out"
prog='syscall::read:return /pid == $target/ { @ = quantize(arg0); }'
both "syscall quantize" ""
echo "$kern" | awk '/\|/ { s += $NF } END { exit !(s >= 600) }' ||
    fail "syscall quantize: fewer than 600 reads: $kern"
prog='syscall::read:return /pid == $target/ { @ = lquantize(arg0, 0, 400, 100); }'
both "syscall lquantize" ""
prog='syscall::read:return /pid == $target/ { @ = sum(arg0); @q = quantize(arg0); }'
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=100)
echo "$out" | grep -q "aggregation drops" ||
    fail "exact values kept fewer keys than they need: $out"
exit 0
