#!/bin/sh
# Asserts: sched:::enqueue fires for a task put on a run queue (woken:
# arg0 its tid, arg1 its pid, arg2 a CPU) and sched:::dequeue for one
# taken off to run; a target that sleeps 30 times is dequeued at least 30
# times and enqueued at least once, on CPUs that exist.  (Not 30
# enqueues: Linux traces no wakeup of a sleeper whose timer fired before
# it slept, which under load is a third of them; the sched_wakeup
# tracepoint itself shows 20 to 31 of the 30.)
. ./lib.sh
need_root
build sleeps
n=$(getconf _NPROCESSORS_CONF)
out=$($DTRACE -q -n 'sched:::enqueue /arg1 == $target/ { e++; }
    sched:::dequeue /arg1 == $target/ { d++; }
    sched:::enqueue, sched:::dequeue /arg1 == $target && arg2 >= $1/ {
        bad++; }
    END { printf("%d %d %d", e > 0, d >= 30, bad); }' -c "$W/sleeps" "$n" 2>&1)
[ "$out" = "1 1 0" ] || fail "enqueue>0 dequeue>=30 bad: <$out>"
exit 0
