# Strings of tracepoints and captured paths are typed string and print
# their text (B5, B7): sched_switch's prev_comm/next_comm (char[16]),
# proc:::exec's path; the pid fields sit where the format file puts them
# (args[1] prev_pid, args[5] next_pid); copyinstr() of a user pointer
# from sdt:syscalls::sys_enter_openat reads what the process passed, as
# from syscall::openat:entry, even though the process has exited by then.
# Traced from its exec (-x evaltime=exec): the exec and the loader's
# openat are seen.
. ./lib.sh
need_root
build sleeps
types=$($DTRACE -lv -n sdt:sched::sched_switch -n proc:::exec 2>&1)
n=$(echo "$types" | grep -c 'args\[[04]\]: string')
[ "$n" -eq 3 ] || fail "want args[0], args[4] of sched_switch and args[0] of exec typed string: $types"
out=$($DTRACE -q -x evaltime=exec -c "$W/sleeps" -n '
sdt:sched::sched_switch /args[1] == $target/ { @p[args[0]] = count(); }
sdt:sched::sched_switch /args[5] == $target/ { @n[args[4]] = count(); }
sdt:syscalls::sys_enter_openat /pid == $target/ { @o[copyinstr(args[2])] = count(); }
proc:::exec /pid == $target/ { printf("exec %s|%s\n", args[0], stringof(args[0])); }
END { printa("prev %s %@d\n", @p); printa("next %s %@d\n", @n);
    printa("open %s %@d\n", @o); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -q 'error' && fail "errors: $out"
echo "$out" | grep -qx "exec $W/sleeps|$W/sleeps" || fail "exec path: $out"
p=$(echo "$out" | sed -n 's/^prev sleeps //p')
# The counts show the comm strings are read for the sleeper's switches;
# exactness is tst.syscall_count.sh's job.  A few are allowed: on the
# test VM the kernel reports no sched_switch away from PID 1's threads,
# so a switch-in straight from one of them is never seen by any tracer
# (see tst.sched_switch_stress.sh).
[ -n "$p" ] && [ "$p" -ge 27 ] || fail "prev_comm sleeps ${p:-0} times, want >= 27: $out"
nx=$(echo "$out" | sed -n 's/^next sleeps //p')
[ -n "$nx" ] && [ "$nx" -ge 27 ] || fail "next_comm sleeps ${nx:-0} times, want >= 27: $out"
echo "$out" | grep -q '^open /etc/ld.so.cache ' || fail "openat path: $out"
exit 0
