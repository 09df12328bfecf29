#!/bin/sh
# Asserts: sched:::enqueue fires for a task put on a run queue (woken:
# arg0 its tid, arg1 its pid, arg2 a CPU) and sched:::dequeue for one
# taken off to run; a target that sleeps 30 times is enqueued and
# dequeued at least 30 times, on CPUs that exist.
. ./lib.sh
need_root
build sleeps
n=$(getconf _NPROCESSORS_CONF)
out=$($DTRACE -q -n 'sched:::enqueue /arg1 == $target/ { e++; }
    sched:::dequeue /arg1 == $target/ { d++; }
    sched:::enqueue, sched:::dequeue /arg1 == $target && arg2 >= $1/ {
        bad++; }
    END { printf("%d %d %d", e >= 30, d >= 30, bad); }' -c "$W/sleeps" "$n" 2>&1)
[ "$out" = "1 1 0" ] || fail "enqueue>=30 dequeue>=30 bad: <$out>"
exit 0
