#!/bin/sh
# Asserts: dtrace -lv shows proc's and sched's argument types as dtrace's
# table has them: the translated types (lwpsinfo_t *, psinfo_t *,
# cpuinfo_t *), not the native struct ks_task * behind them, and
# signal-handle's siginfo_t * and handler.
. ./lib.sh
need_root
out=$($DTRACE -lv -n proc:::create -n proc:::lwp-create \
    -n proc:::signal-send -n proc:::exit -n proc:::signal-handle \
    -n sched:::off-cpu \
    -n sched:::enqueue -n sched:::dequeue -n sched:::change-pri \
    -n sched:::wakeup -n sched:::tick 2>&1 |
    awk '/^ *[0-9]+ / { printf "%s:", $NF } /args\[/ { sub(/^[ \t]+/, ""); printf " %s", $0 } /None/ { printf " None" } /Argument Types/ { a = 1 } /^$/ && a { print ""; a = 0 }' |
    sed 's/ *$//; /^$/d')
want="create: args[0]: psinfo_t *
lwp-create: args[0]: lwpsinfo_t * args[1]: psinfo_t *
signal-send: args[0]: lwpsinfo_t * args[1]: psinfo_t * args[2]: int
exit: args[0]: int
signal-handle: args[0]: int args[1]: siginfo_t * args[2]: void (*)(void)
off-cpu: args[0]: lwpsinfo_t * args[1]: psinfo_t *
enqueue: args[0]: lwpsinfo_t * args[1]: psinfo_t * args[2]: cpuinfo_t * args[3]: int
dequeue: args[0]: lwpsinfo_t * args[1]: psinfo_t * args[2]: cpuinfo_t *
change-pri: args[0]: lwpsinfo_t * args[1]: psinfo_t * args[2]: pri_t
wakeup: args[0]: lwpsinfo_t * args[1]: psinfo_t *
tick: args[0]: lwpsinfo_t * args[1]: psinfo_t *"
[ "$out" = "$want" ] || fail "got:
$out
want:
$want"
exit 0
