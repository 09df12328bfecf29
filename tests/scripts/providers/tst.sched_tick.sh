#!/bin/sh
# Asserts: sched:::tick fires on the scheduler tick as the thread it
# interrupted: a spinner pinned to CPU 0 is ticked (arg1 its pid, on CPU
# 0) many times in a second, and never as the idle thread.
. ./lib.sh
need_root
grep -q ' tick_nohz_handler$\| tick_sched_timer$' /proc/kallsyms ||
    { echo "no tick hrtimer function in /proc/kallsyms"; exit 77; }
command -v taskset > /dev/null || { echo "no taskset"; exit 77; }
taskset -c 0 sh -c 'while :; do :; done' &
spin=$!
trap 'kill $spin 2> /dev/null; rm -rf "$W"' EXIT
out=$($DTRACE -q -n "sched:::tick /arg1 == $spin && cpu == 0/ { n++; }
    sched:::tick /pid == 0/ { idle++; }
    tick-1s { printf(\"%d %d\", n >= 20, idle); exit(0); }" 2>&1)
[ "$out" = "1 0" ] || fail "ticks of the spinner >= 20, idle ticks: <$out>"
exit 0
