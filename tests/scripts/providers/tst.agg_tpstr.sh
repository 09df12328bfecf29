# Tracepoint string fields as aggregation keys, counted in the kernel
# (bpf_agg.c): @[args[0]] of sched_process_exec (a __data_loc char[]
# filename) and of sched_process_fork (parent_comm, a char[16]) key on
# the text BPF reads from the record, and give exactly what the shim's
# path gives (DTUI_AGG_KERNEL=0).  A filename longer than the kernel
# key's string (127 bytes) goes through the shim one firing at a time.
# w_execs.c execs known paths a known number of times; the exec counts of
# other processes on the machine are not looked at.
. ./lib.sh
need_root
build execs
cp /bin/true "$W/dtui-tpstr-short" || fail "no /bin/true"
long="$W/$(printf 'l%0150d' 0)"
mkdir "$long" && cp /bin/true "$long/dtui-tpstr-long" || fail "mkdir $long"

# run ENV...: dtrace on the workload; our lines, sorted (traced from its
# exec, -x evaltime=exec: its own exec counts too)
run() {
	env "$@" $DTRACE -q -x evaltime=exec -c "$W/execs $W/dtui-tpstr-short 20 $long/dtui-tpstr-long 7" \
	    -n "$prog" > "$W/out" 2>&1 || fail "dtrace failed ($*): $(cat "$W/out")"
	grep -e "$W" -e '^fork ' -e 'dtrace:' "$W/out" | sort
}

prog='sdt:sched::sched_process_exec { @[args[0]] = count(); }
sdt:sched::sched_process_fork /args[1] == $target/ { @f[args[0]] = count(); }
END { printa("%s %@d\n", @); printa("fork %s %@d\n", @f); }'
kern=$(run DTUI_AGG_KERNEL=1)
shim=$(run DTUI_AGG_KERNEL=0)
[ "$kern" = "$shim" ] || fail "kernel and shim differ:
$kern
---
$shim"
for want in "$W/execs 1" "$W/dtui-tpstr-short 20" "$long/dtui-tpstr-long 7" \
    "fork execs 27"; do
	echo "$kern" | grep -qx -- "$want" || fail "no '$want' in: $kern"
done

# counted in the kernel indeed: with room for 1 key the kernel's map
# fills and drops are reported; the shim path has no such map
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=1)
echo "$out" | grep -q "aggregation drops" || fail "no kernel map drops: $out"
out=$(run DTUI_AGG_KERNEL=0 DTUI_AGG_MAXKEYS=1)
echo "$out" | grep -q "aggregation drops" && fail "shim path drops: $out"
exit 0
