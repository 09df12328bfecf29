# Records built in the kernel (recplan.c, bpf_rec.c): a clause that only
# traces values a BPF program has at the event gets its whole record
# written in BPF and copied into the buffer without running DIF, and
# prints exactly what the shim's path prints (DTUI_REC_KERNEL=0).
# DTUI_REC_KERNEL=2 makes dtrace say how many records the kernel built,
# so each case also checks which path ran.  w_krec.c makes N calls each
# of getppid(), umask(022) and lseek(-1, -5, SEEK_SET) in one thread.
. ./lib.sh
need_root
build krec
TO=
command -v timeout > /dev/null && TO="timeout 120"	# a hang fails

# run K N: dtrace -q on the workload making N calls of each kind, with
# DTUI_REC_KERNEL=K; stdout to $W/out, stderr to $W/err
run() {
	DTUI_REC_KERNEL=$1 $TO $DTRACE -q $flags -c "$W/krec $2" -n "$prog" \
	    > "$W/out" 2> "$W/err" || fail "dtrace failed ($1): $(cat "$W/err")"
}

# built K: how many records the kernel built in the last run
built() {
	sed -n 's/^dtrace: \([0-9]*\) records built in the kernel$/\1/p' "$W/err"
}

# same NAME KERNEL: both paths print the same; KERNEL records were built
# in the kernel on the first
same() {
	run 2 3
	kern=$(sed "$norm" "$W/out")
	n=$(built)
	[ "$n" = "$2" ] || fail "$1: $n records built in the kernel, not $2:
$(cat "$W/err")"
	run 0 3
	shim=$(sed "$norm" "$W/out")
	[ -z "$(built)" ] || fail "$1: kernel records with DTUI_REC_KERNEL=0"
	[ "$kern" = "$shim" ] || fail "$1: kernel and shim differ:
$kern
---
$shim"
	[ -n "$kern" ] || fail "$1: no output"
}

flags=
norm="s/@@@//"		# sed: what differs from run to run (pids)
# integers of every size, strings from the task and the probe, constants
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%d %d %s %s %s|", pid == tid, uid, execname, probefunc, "k");
    trace(gid); trace(12345); trace((char)7); trace(epid); trace(id > 0); }'
same "values" 0		# id > 0 is not one step: the shim's
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%d %d %s %s %s|\n", pid - tid, uid, execname, probefunc, "k"); }'
same "arith" 0
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%s|", execname); trace(uid); trace(gid); trace(12345);
    trace(epid); trace((char)-3); }'
same "values" 3
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%s|", probefunc);
    trace(-7); }'
same "probefunc" 3
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    trace("konst"); }'
same "string" 3
# two strings of strsize (256) make a record larger than the BPF stack
# holds: built in a scratch map; four are more than it holds: the shim's
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    trace("a"); trace(execname);
    printf("%s %d\n", probename, pid == 0); }'
same "big" 0		# pid == 0 is not one step
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    trace("a"); trace(execname);
    printf("%s %d\n", probename, 42); }'
same "big" 3
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    trace("a"); trace("b");
    trace("c"); trace("d"); }'
same "bigger" 0
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%d %d\n", pid, tid); }'
norm='s/^\([0-9][0-9]*\) \1$/PID PID/'	# one thread: tid is pid
same "pid" 3
echo "$kern" | grep -qx "PID PID" || fail "pid: $kern"
norm="s/@@@//"

# arguments as D sees them: lseek's fd is an unsigned int, its offset a
# signed 64-bit -5
prog='syscall::lseek:entry /pid == $target && execname == "krec"/ {
    trace(arg0); trace(arg1);
    trace(arg2); printf("|%d %d\n", arg0, arg1); }'
same "args" 3
echo "$kern" | grep -qx "4294967295-50|4294967295 -5" || fail "args: $kern"

# predicates the filter runs exactly: execname, pid, an argument
prog='syscall::umask:entry /execname == "krec" && arg0 == 022/ {
    printf("%o %s\n", arg0, probename); }'
same "pred" 3
echo "$kern" | grep -qx "22 entry" || fail "pred: $kern"
# one it cannot (a thread-local): the shim runs it all
prog='self int x;
syscall::umask:entry
    /pid == $target && execname == "krec" && self->x == 0/ { trace(arg0); }'
same "inexact" 0
# a return probe's arguments the record does not hold: the shim's
prog='syscall::lseek:return /pid == $target && execname == "krec"/ {
    trace(arg0); trace(errno); }'
same "return" 0

# the default action: a bare header, printed as CPU ID FUNCTION:NAME
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ { }'
DTUI_REC_KERNEL=2 $TO $DTRACE -c "$W/krec 3" -n "$prog" > "$W/out" \
    2> "$W/err" || fail "dtrace failed: $(cat "$W/err")"
[ "$(built)" = 3 ] || fail "default: $(cat "$W/err")"
kern=$(awk '{ $1 = ""; print }' "$W/out")
DTUI_REC_KERNEL=0 $TO $DTRACE -c "$W/krec 3" -n "$prog" > "$W/out" \
    2> "$W/err" || fail "dtrace failed: $(cat "$W/err")"
shim=$(awk '{ $1 = ""; print }' "$W/out")
[ "$kern" = "$shim" ] || fail "default: kernel and shim differ:
$kern
---
$shim"
echo "$kern" | grep -q "getppid:entry" || fail "default: $kern"

# every system call: the probes share raw_syscalls' program (bpf_sys.c),
# each with its own record body
prog='syscall:::entry /pid == $target && execname == "krec"/ {
    printf("%s %s\n", probefunc, execname); }'
run 2 3
kern=$(cat "$W/out")
n=$(built)
[ "${n:-0}" -ge 9 ] || fail "raw: $n records built in the kernel"
run 0 3
[ "$kern" = "$(cat "$W/out")" ] || fail "raw: kernel and shim differ:
$kern
---
$(cat "$W/out")"
echo "$kern" | grep -qx "lseek krec" || fail "raw: $kern"

# two clauses on the probe: the shim's (order and both records)
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    trace(1); }
syscall::getppid:entry /pid == $target && execname == "krec"/ { trace(2); }'
same "two" 0

# every firing either printed or counted as a drop: a small buffer
# against 50000 quick calls, on both paths ("1 drop on CPU N" is singular,
# as in dtrace: matching only "drops" once made a run look one event short)
flags="-x bufsize=4k"
prog='syscall::getppid:entry /pid == $target && execname == "krec"/ {
    printf("%d\n", pid); }'
for k in 0 2; do
	run $k 50000
	lines=$(grep -c . "$W/out")
	drops=$(awk '/drops? on CPU/ { s += $2 } END { print s + 0 }' "$W/err")
	[ $((lines + drops)) = 50000 ] ||
	    fail "flood ($k): $lines lines and $drops drops: $(cat "$W/err")"
done
[ "$(run 2 10; built)" = 10 ] || fail "flood: not in the kernel"
echo "ok"
