#!/bin/sh
# bench/providers/pid.sh - the pid provider side by side with bpftrace on
# the same workload (w_pidbench.c: pb_f called N times, default 100000),
# each tracer starting the workload itself (-c): the per-call cost on the
# workload over the untraced run, best of REPS runs (default 3), for
#   pid$target::pb_f:entry { @ = count(); }      / uprobe: @ = count()
#   pid$target::pb_f:entry { @ = quantize(arg0); } / uprobe: @ = hist(arg0)
#   entry { self->ts = timestamp; } return /self->ts/ { @ = quantize(
#   timestamp - self->ts); self->ts = 0; }  / uprobe + uretprobe, @s[tid]
# the same through the ptrace route (breakpoints, root forced and nobody),
# then the time dtrace takes to enable pid$target:::entry on python3.11
# (and how many probes that is, against the functions dtrace -l lists).
# ONLY=uprobes: the uprobe rows alone.  dtrace's and bpftrace's runs of a
# row alternate.  Needs root, cc; bpftrace rows are skipped without
# bpftrace.
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$top/build/dtrace}
N=${N:-100000}
REPS=${REPS:-3}
# METRIC=cpu: the workload's CPU time per call (its own and the uprobes'
# traps and programs, run in its thread) instead of wall time: steadier
# on a loaded machine
M=ns_per_call
[ "${METRIC:-}" = cpu ] && M=cpu_ns_per_call
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cc -O2 -o "$W/w" "$(dirname "$0")/w_pidbench.c" || exit 1

# best CMD...: the least ns_per_call of REPS runs of CMD
best() {
	for i in $(seq "$REPS"); do
		"$@" 2>/dev/null | sed -n "s/^$M //p"
	done | sort -n | head -n 1
}

base=$(best "$W/w" "$N")
echo "untraced: $base ns per call ($N calls; $M)"
echo
echo "| one-liner | tracer | ns/call traced | overhead ns/call | ratio to bpftrace |"
echo "| --- | --- | --- | --- | --- |"
row() {	# NAME DPROG BPROG
	# dtrace and bpftrace runs alternate, so that a change in the
	# machine's load falls on both
	: > "$W/d"
	: > "$W/b"
	for i in $(seq "$REPS"); do
		"$DTRACE" -q -n "$2" -c "$W/w $N" 2>/dev/null |
		    sed -n "s/^$M //p" >> "$W/d"
		command -v bpftrace > /dev/null || continue
		bpftrace -e "$3" -c "$W/w $N" 2>/dev/null |
		    sed -n "s/^$M //p" >> "$W/b"
	done
	d=$(sort -n "$W/d" | head -n 1)
	b=$(sort -n "$W/b" | head -n 1)
	do=$(awk -v a="$d" -v b="$base" 'BEGIN { printf "%.0f", a - b }')
	if [ -n "$b" ]; then
		bo=$(awk -v a="$b" -v b="$base" 'BEGIN { printf "%.0f", a - b }')
		r=$(awk -v a="$do" -v b="$bo" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	fi
	echo "| $1 | dtrace | $d | $do | ${r:--} |"
	[ -n "$b" ] && echo "| $1 | bpftrace | $b | $bo | 1 |"
}
row 'pb_f:entry count()' 'pid$target::pb_f:entry { @ = count(); }' \
    "uprobe:$W/w:pb_f { @ = count(); }"
row 'pb_f:entry quantize(arg0)' 'pid$target::pb_f:entry { @ = quantize(arg0); }' \
    "uprobe:$W/w:pb_f { @ = hist(arg0); }"
# the latency idiom: self-> from entry to return, in the kernel on both
# (the return a uretprobe on both: it shares the entry's breakpoint)
row 'pb_f latency quantize' 'pid$target::pb_f:entry { self->ts = timestamp; }
    pid$target::pb_f:return /self->ts/ { @ = quantize(timestamp - self->ts);
    self->ts = 0; }' \
    "uprobe:$W/w:pb_f { @s[tid] = nsecs; }
    uretprobe:$W/w:pb_f /@s[tid]/ { @ = hist(nsecs - @s[tid]); delete(@s[tid]); }"
# ONLY=uprobes: the rows above alone
[ "${ONLY:-}" = uprobes ] && exit 0
# the ptrace route (int3 breakpoints: a stop, a message and a step or
# emulation per call), as root with -x uroute=ptrace and as nobody, on NP
# calls (default 20000: it is slow), niced; no bpftrace counterpart
NP=${NP:-20000}
pbase=$(best "$W/w" "$NP")
chmod 755 "$W"
prow() {	# NAME WHO DPROG
	if [ "$2" = nobody ]; then
		command -v setpriv > /dev/null || return 0
		d=$(cd / && best nice -n 19 setpriv --reuid=nobody --regid=nogroup \
		    --clear-groups "$DTRACE" -q -n "$3" -c "$W/w $NP")
	else
		d=$(best nice -n 19 "$DTRACE" -x uroute=ptrace -q -n "$3" \
		    -c "$W/w $NP")
	fi
	do=$(awk -v a="$d" -v b="$pbase" 'BEGIN { printf "%.0f", a - b }')
	echo "| $1 | dtrace ptrace route ($2, $NP calls) | $d | $do | - |"
}
prow 'pb_f:entry count()' root 'pid$target::pb_f:entry { @ = count(); }'
prow 'pb_f:entry count()' nobody 'pid$target::pb_f:entry { @ = count(); }'
prow 'pb_f:entry quantize(arg0)' nobody \
    'pid$target::pb_f:entry { @ = quantize(arg0); }'
echo
py=/usr/bin/python3.11
if [ -x "$py" ]; then
	nf=$("$DTRACE" -l -n 'pid$target:::entry' -c "$py -c pass" | tail -n +2 | wc -l)
	# from dtrace's start to BEGIN: compile, probe creation, ENABLE and
	# the uprobe_multi links, best of REPS
	for i in $(seq "$REPS"); do
		"$DTRACE" -q -n 'pid$target:::entry { @ = count(); }
		    BEGIN { printf("%d\n", (walltimestamp - $1) / 1000000); exit(0); }' \
		    -c "$py -c pass" "$(date +%s%N)" 2>/dev/null | head -n 1
	done | sort -n | head -n 1 > "$W/ms"
	echo "enabling pid\$target:::entry on python3.11: $nf probes, $(cat "$W/ms") ms from dtrace's start to BEGIN"
else
	echo "no $py: enabling time not measured"
fi
