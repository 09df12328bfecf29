#!/bin/sh
# Asserts: sched's lwpsinfo_t *, psinfo_t * and cpuinfo_t * arguments
# (dtrace's table) describe the thread the probe is about: off-cpu's the
# thread switched to (on this CPU), wakeup's the woken one, enqueue's and
# dequeue's the thread and its run queue's CPU (dequeue's is this CPU,
# enqueue's args[3] 0, at the back), tick's the thread interrupted (the
# firing one), change-pri's the thread whose priority changes with the new
# priority in args[2] and the old in args[0]->pr_pri.  Workloads: 30
# sleeps (20 switches to the target are asked for: under load a few are
# lost, as tst.sched_switch_stress.sh says; and only some wakeups, as
# Linux traces none for a sleeper whose timer fired before it slept: the
# sched_wakeup tracepoint itself showed 20 to 31 of the 30 here); real-time waiters on a priority-inheritance mutex (10 raises of
# its holder's priority to 98, 10 restores to what it was); a 300 ms
# spinner.
. ./lib.sh
need_root
build sleeps
build pimutex
build spin
n=$(getconf _NPROCESSORS_CONF)
out=$($DTRACE -q -n '
BEGIN { bad = 0; }
sched:::off-cpu /args[1]->pr_pid == $target &&
    stringof(args[1]->pr_fname) == "sleeps"/ {
	off++;
	bad += args[0]->pr_lwpid != $target || args[0]->pr_onpro != cpu ||
	    args[0]->pr_sname != 0x4f;
}
sched:::wakeup /args[1]->pr_pid == $target/ {
	wake++;
	bad += args[0]->pr_lwpid != $target;
}
sched:::enqueue /args[1]->pr_pid == $target/ {
	enq++;
	bad += args[2]->cpu_id < 0 || args[2]->cpu_id >= $1 || args[3] != 0;
}
sched:::dequeue /args[1]->pr_pid == $target/ {
	deq++;
	bad += args[2]->cpu_id != cpu && args[2]->cpu_id != arg2;
}
END { printf("%d %d %d %d %d", off >= 20, wake > 0, enq > 0,
    deq >= 20, bad); }' -c "$W/sleeps" "$n" 2>&1)
[ "$out" = "1 1 1 1 0" ] ||
    fail "off-cpu >= 20, wakeup > 0, enqueue > 0, dequeue >= 20, bad: <$out>"
out=$($DTRACE -q -n '
BEGIN { prio = -1; bad = 0; }
sched:::change-pri /args[1]->pr_pid == $target && args[2] == 98/ {
	raise++;
	bad += args[0]->pr_lwpid != $target || args[0]->pr_pri == 98 ||
	    (prio >= 0 && args[0]->pr_pri != prio);
	prio = args[0]->pr_pri;
}
sched:::change-pri /args[1]->pr_pid == $target && args[2] != 98/ {
	restore++;
	bad += args[0]->pr_lwpid != $target || args[0]->pr_pri != 98 ||
	    args[2] != prio;
}
END { printf("%d %d %d", raise, restore, bad); }' -c "$W/pimutex" 2>&1)
[ "$out" = "10 10 0" ] || fail "change-pri raises, restores, bad: <$out>"
if grep -q ' tick_nohz_handler$\| tick_sched_timer$' /proc/kallsyms; then
	out=$($DTRACE -q -n '
	BEGIN { bad = 0; }
	sched:::tick /args[1]->pr_pid == $target/ {
		t++;
		bad += args[0]->pr_lwpid != tid || args[0]->pr_onpro != cpu;
	}
	END { printf("%d %d", t > 0, bad); }' -c "$W/spin 300" 2>&1)
	[ "$out" = "1 0" ] || fail "ticks of the spinner > 0, bad: <$out>"
fi
exit 0
