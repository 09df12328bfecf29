#!/bin/sh
# Asserts: proc's lwpsinfo_t * and psinfo_t * arguments (dtrace's table)
# describe the thread or process the probe is about, not the one firing:
# create's args[0] is the child (its pid arg0, parent the target, the
# parent's name and arguments); lwp-create's args[0] the new thread,
# args[1] the target; signal-send's args[0] and args[1] the child it
# signals, args[2] the signal; exit's args[0] is CLD_EXITED.  Only the
# target's own events are counted; the lines are compared sorted (events
# on different CPUs are consumed CPU by CPU).  signal-handle's args[1] is
# the siginfo_t of a signal a shell sends itself (SIGUSR1, si_code
# SI_USER 0, no errno) and args[2] the shell's handler.
. ./lib.sh
need_root
build family
out=$($DTRACE -q -n '
proc:::lwp-create /pid == $target/ {
	printf("lwp-create %d %d %s\n", args[0]->pr_lwpid == arg0 &&
	    arg0 != $target, args[1]->pr_pid == $target, args[0]->pr_name);
}
proc:::create /pid == $target/ {
	printf("create %d %d %d %d %s [%s]\n", args[0]->pr_pid == arg0,
	    args[0]->pr_pid != $target, args[0]->pr_ppid == $target,
	    args[0]->pr_uid == uid, args[0]->pr_fname, args[0]->pr_psargs);
	child = arg0;
}
proc:::signal-send /pid == $target && args[2] == SIGUSR2/ {
	printf("signal-send %d %d %d %d\n", args[0]->pr_lwpid == child,
	    args[1]->pr_pid == child, args[1]->pr_ppid == $target,
	    args[2] == SIGUSR2);
}
proc:::exit /pid == $target/ { printf("exit %d\n", args[0] == CLD_EXITED); }
' -c "$W/family" 2>&1 | sed '/^$/d' | sort)
want=$(printf '%s\n' "lwp-create 1 1 family" \
    "create 1 1 1 1 family [$W/family]" "signal-send 1 1 1 1" "exit 1" |
    sort)
[ "$out" = "$want" ] || fail "got:
$out
want:
$want"
printf '#!/bin/sh\ntrap "echo handled" USR1\nkill -USR1 $$\n' > "$W/self.sh"
chmod 755 "$W/self.sh"
out=$($DTRACE -q -n 'proc:::signal-handle /pid == $target/ {
	printf("%d %d %d %d %d\n", args[0], args[1]->si_signo,
	    args[1]->si_code, args[1]->si_errno, args[2] != 0);
}' -c "$W/self.sh" 2>&1 | sed '/^$/d' | sort)
want="10 10 0 0 1
handled"
[ "$out" = "$want" ] || fail "signal-handle: <$out>"
exit 0
