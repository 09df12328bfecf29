# The switch policy swaps a CPU's buffers when the active one passes half
# full, not only at switchrate.  With a 64 KiB buffer (about 220 printf
# records of ~290 bytes) and switchrate (statusrate, aggrate) at an hour, the workload keeps at
# most 160 calls ahead of the lines written: more than half the buffer,
# so only an early switch lets it go on, and less than all of it, so
# nothing may drop.  Every call must have its line.
. ./lib.sh
need_root
build paced
N=3000
$DTRACE -q -b 64k -x switchrate=1h -x statusrate=1h -x aggrate=1h -o "$W/out" -c "$W/paced $W/out $N 160" -n '
syscall::getppid:entry /pid == $target/ { printf("%d %s\n", pid, probefunc); }' \
    2> "$W/err" || fail "dtrace failed: $(cat "$W/err")"
n=$(grep -c ' getppid$' "$W/out")
[ "$n" -eq $N ] || fail "$n lines of $N; stderr: $(cat "$W/err")"
grep -q drop "$W/err" && fail "drops reported: $(cat "$W/err")"
exit 0
