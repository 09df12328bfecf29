# String keys counted in the kernel: @[copyinstr(arg1)] on openat counts
# in BPF with the path in the key (bpf_agg.c), and gives exactly what the
# shim's path gives (DTUI_AGG_KERNEL=0): the same counts, the same
# truncation to strsize, the same faults for NULL and bad pointers (those
# firings, and paths too long for the kernel's key, go through the shim).
# w_openstr.c opens known paths a known number of times.
. ./lib.sh
need_root
build openstr

# run ENV... -- PROGRAM: dtrace on the workload, stdout and stderr sorted
run() {
	env "$@" $DTRACE -q -c "$W/openstr" -n "$prog" > "$W/out" 2>&1 ||
	    fail "dtrace failed ($*): $(cat "$W/out")"
	sort "$W/out"
}

prog='syscall::openat:entry /pid == $target/ { @[copyinstr(arg1)] = count(); }
END { printa("%s %@d\n", @); }'
kern=$(run DTUI_AGG_KERNEL=1)
shim=$(run DTUI_AGG_KERNEL=0)
[ "$kern" = "$shim" ] || fail "kernel and shim differ:
$kern
---
$shim"
a=$(printf '/nonexistent/%0113d' 0 | tr 0 a)	# 126 bytes
b=$(printf '/nonexistent/%0114d' 0 | tr 0 b)	# 127
c=$(printf '/nonexistent/%0115d' 0 | tr 0 c)	# 128
d=$(printf '/nonexistent/%0242d' 0 | tr 0 d)	# 300 cut to 255
for want in "/dev/null 300" "/nonexistent/dtui-kstr-b 200" "$a 30" \
    "$b 31" "$c 32" "$d 20"; do
	echo "$kern" | grep -qx -- "$want" || fail "no '$want' in: $kern"
done
[ "$(echo "$kern" | grep -c 'invalid address (0x0) in action #1')" = 7 ] ||
    fail "NULL paths: $kern"
[ "$(echo "$kern" | grep -c 'invalid address (0x8) in action #1')" = 3 ] ||
    fail "bad paths: $kern"

# a smaller strsize cuts the same way: the a, b, c and d paths fall on
# their first 15 bytes, dtui-kstr-b too
prog='#pragma D option strsize=16
syscall::openat:entry /pid == $target/ { @[copyinstr(arg1)] = count(); }
END { printa("%s %@d\n", @); }'
kern=$(run DTUI_AGG_KERNEL=1)
shim=$(run DTUI_AGG_KERNEL=0)
[ "$kern" = "$shim" ] || fail "strsize=16: kernel and shim differ:
$kern
---
$shim"
for want in "/dev/null 300" "/nonexistent/dt 200" "/nonexistent/aa 30" \
    "/nonexistent/bb 31" "/nonexistent/cc 32" "/nonexistent/dd 20"; do
	echo "$kern" | grep -qx -- "$want" || fail "strsize=16: no '$want' in: $kern"
done

# the string in a predicate, with execname and the pointer as keys
prog='syscall::openat:entry /pid == $target && copyinstr(arg1) != "/dev/null"/
{ @[execname, strlen(copyinstr(arg1))] = count(); }
END { printa("%s %d %@d\n", @); }'
kern=$(run DTUI_AGG_KERNEL=1)
shim=$(run DTUI_AGG_KERNEL=0)
[ "$kern" = "$shim" ] || fail "predicate: kernel and shim differ:
$kern
---
$shim"
echo "$kern" | grep -qx "openstr 24 200" || fail "predicate: $kern"

# counted in the kernel indeed: with room for 2 keys the kernel's map
# fills and drops are reported; the shim path has no such map and keeps
# every key (it may still report drops of its own: under load the perf
# ring can overrun, and those lost updates are aggregation drops too)
out=$(run DTUI_AGG_KERNEL=1 DTUI_AGG_MAXKEYS=2)
echo "$out" | grep -q "aggregation drops" || fail "no kernel map drops: $out"
out=$(run DTUI_AGG_KERNEL=0 DTUI_AGG_MAXKEYS=2)
[ "$(echo "$out" | grep -c '^openstr ')" -ge 4 ] ||
    fail "shim path kept fewer keys than it saw: $out"
exit 0
