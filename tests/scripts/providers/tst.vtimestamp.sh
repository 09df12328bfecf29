# vtimestamp is the firing thread's own CPU time: over a spin of N ms of
# CPU it grows by about N ms (not by the wall time, however loaded the
# machine), over a sleep of N ms by almost nothing, and it never goes
# back, for two threads at once; through perf as root and through ptrace
# as nobody.
. ./lib.sh
need_root
build vtime
MS=60
ITERS=3
script='
self uint64_t last;
syscall::getppid:entry, syscall::getpgrp:entry, syscall::getsid:entry,
syscall::getpgid:entry, syscall::getppid:return, syscall::getpgrp:return,
syscall::getsid:return, syscall::getpgid:return /pid == $target/
{
	this->v = vtimestamp;
	printf("%s", this->v < self->last ? "nonmono\n" : "");
	self->last = this->v;
}
syscall::getppid:entry /pid == $target/ { self->s0 = vtimestamp; }
syscall::getpgrp:entry /pid == $target && self->s0/
{ printf("spin %d %d\n", tid, (vtimestamp - self->s0) / 1000); self->s0 = 0; }
syscall::getsid:entry /pid == $target/ { self->z0 = vtimestamp; }
syscall::getpgid:entry /pid == $target && self->z0/
{ printf("sleep %d %d\n", tid, (vtimestamp - self->z0) / 1000); self->z0 = 0; }'

# Every pair prints, through either route (tst.ptrace_lwps.sh has the
# ptrace route's exact counts for new threads).
# check OUT ROUTE
check() {
	echo "$1" | grep -q nonmono && fail "$2: vtimestamp went back: $1"
	[ "$(echo "$1" | grep -c '^spin ')" -eq $((2 * ITERS)) ] ||
	    fail "$2: spin lines: $1"
	[ "$(echo "$1" | grep -c '^sleep ')" -eq $((2 * ITERS)) ] ||
	    fail "$2: sleep lines: $1"
	[ "$(echo "$1" | awk '/^spin /{print $2}' | sort -u | wc -l)" -eq 2 ] ||
	    fail "$2: not two threads: $1"
	echo "$1" | awk -v ms=$MS '
	    /^spin / && ($3 < ms * 800 || $3 > ms * 1300 + 5000) { bad = 1 }
	    /^sleep / && $3 > 3000 { bad = 1 }
	    END { exit bad }' || fail "$2: deltas (us) off for $MS ms: $1"
}
out=$(timeout 60 $DTRACE -q -c "$W/vtime $MS $ITERS" -n "$script" 2>&1) ||
    fail "perf route: dtrace failed: $out"
check "$out" perf
command -v setpriv > /dev/null || { echo "no setpriv for the ptrace half"; exit 77; }
out=$(cd / && timeout 60 setpriv --reuid=nobody --regid=nogroup \
    --clear-groups $DTRACE -q -c "$W/vtime $MS $ITERS" -n "$script" 2>&1) ||
    fail "ptrace route: dtrace failed: $out"
check "$out" ptrace
exit 0
