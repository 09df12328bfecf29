#!/bin/sh
# bench/providers/run.sh - the providers side by side with bpftrace: the
# same one-liners on the same workloads (w_bench.c), one after the other.
# For each: per-event overhead on the workload (ns per getppid() over the
# untraced run), the tracer's own CPU per event (utime+stime of the tracer
# process during the workload), and events lost (events the workload made
# that the tracer did not count).  Prints a Markdown table.
# Needs root, bpftrace, cc.  N=1000000 by default (N=... to change);
# ONLY=TEXT runs only the rows whose name contains TEXT.  REPS=K (default
# 1) runs the workload K times under each tracer and K times untraced just
# before it, and keeps the fastest of each: less noise from other load.
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$top/build/dtrace}
N=${N:-1000000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cc -O2 -o "$W/w" "$(dirname "$0")/w_bench.c" || exit 1
hz=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime of a process (all its threads)
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

# run_traced TRACER PROGRAM MODE: start the tracer, run the workload, stop
# the tracer; sets ns (workload ns per call), cpu (tracer CPU ms during the
# workload), out (the tracer's output file).
run_traced() {
	if [ "$1" = dtrace ]; then
		"$DTRACE" ${DFLAGS--q} -n "$2" > "$W/out" 2> "$W/err" &
	else
		bpftrace -e "$2" > "$W/out" 2> "$W/err" &
	fi
	tp=$!
	sleep 6				# attach (bpftrace compiles)
	c0=$(cpu_ticks $tp)
	ns=$(fastest $3)
	sleep 1				# let the tracer drain
	c1=$(cpu_ticks $tp)
	kill -INT $tp
	wait $tp 2> /dev/null
	cpu=$(( (c1 - c0) * 1000 / hz ))
	out="$W/out"
}

# fastest MODE: the least of REPS runs of the workload
fastest() {
	for i in $(seq "${REPS:-1}"); do
		"$W/w" $1 $N
	done | sort -n | head -n 1
}

base=$("$W/w" calls $N)
basecalls=$base
basespin=$("$W/w" spin 2000)
echo "untraced: $base ns per getppid(), spin 2000M iterations $basespin ms"
echo
echo "| one-liner | tracer | ns/event on workload | tracer CPU ns/event | events lost |"
echo "| --- | --- | --- | --- | --- |"

# row NAME TRACER PROGRAM COUNTPATTERN [MODE]: COUNTPATTERN is an awk
# program that prints the number of events counted from the output; MODE
# is the workload's (calls: getppid, open: openat), calls by default.
row() {
	case "$1" in *"${ONLY:-}"*) ;; *) return ;; esac
	mode=${5:-calls}
	if [ "${REPS:-1}" -gt 1 ] || [ "$mode" != calls ]; then
		base=$(fastest "$mode")
	else
		base=$basecalls
	fi
	run_traced "$2" "$3" "$mode"
	counted=$(awk "$4" "$out")
	total=$((N * ${REPS:-1}))
	over=$(awk -v a="$ns" -v b="$base" 'BEGIN { printf "%.0f", a - b }')
	per=$(awk -v c="$cpu" -v n="$total" 'BEGIN { printf "%.0f", c * 1e6 / n }')
	lost=$(( total - ${counted:-0} ))
	[ $lost -lt 0 ] && lost=0	# the workload's own start-up calls
	grep -i "drop\|lost" "$W/err" | head -n 2 >> "$W/notes"
	echo "| $1 | $2 | $over | $per | $lost |"
}

last='{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v = $i } END { print v + 0 }'
wline='/^ *w / || /^@\[w\]/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v = $i } END { print v + 0 }'

row "count syscalls by execname" dtrace \
    'syscall:::entry { @[execname] = count(); }' "$wline"
row "count syscalls by execname" bpftrace \
    'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }' "$wline"
row "filtered count (getppid)" dtrace \
    'syscall::getppid:entry /execname == "w"/ { @ = count(); }' "$last"
row "filtered count (getppid)" bpftrace \
    'tracepoint:syscalls:sys_enter_getppid /comm == "w"/ { @ = count(); }' "$last"
row "entry/return latency quantize" dtrace \
    'syscall::getppid:entry /execname == "w"/ { self->ts = timestamp; }
     syscall::getppid:return /self->ts/ { @ = quantize(timestamp - self->ts); @n = count(); self->ts = 0; }' \
    '/^ *[0-9]+ *$/ { v = $1 } END { print v + 0 }'
row "entry/return latency quantize" bpftrace \
    'tracepoint:syscalls:sys_enter_getppid /comm == "w"/ { @s[tid] = nsecs; }
     tracepoint:syscalls:sys_exit_getppid /@s[tid]/ { @h = hist(nsecs - @s[tid]); @n = count(); delete(@s[tid]); }' \
    '/^@n:/ { v = $2 } END { print v + 0 }'
row "printf per event" dtrace \
    'syscall::getppid:entry /execname == "w"/ { printf("%d %s\n", pid, probefunc); }' \
    '/^[0-9]+ getppid$/ { n++ } END { print n + 0 }'
row "printf per event" bpftrace \
    'tracepoint:syscalls:sys_enter_getppid /comm == "w"/ { printf("%d %s\n", pid, "getppid"); }' \
    '/^[0-9]+ getppid$/ { n++ } END { print n + 0 }'
# a string key copied from user memory at each event
opensum='/^ *\/(dev|proc)\// || /^@\[\/(dev|proc)\// { s += $NF } END { print s + 0 }'
row "open-str count by copyinstr" dtrace \
    'syscall::openat:entry /execname == "w"/ { @[copyinstr(arg1)] = count(); }' \
    "$opensum" open
row "open-str count by copyinstr" bpftrace \
    'tracepoint:syscalls:sys_enter_openat /comm == "w"/ { @[str(args->filename)] = count(); }' \
    "$opensum" open
# dtrace's default action: a record per event with CPU, probe ID, name
# (printed without -q)
DFLAGS= row "default action" dtrace 'syscall::getppid:entry { }' \
    '/ getppid:entry *$/ { n++ } END { print n + 0 }'
row "default action" bpftrace \
    'tracepoint:syscalls:sys_enter_getppid { printf("%d %s\n", cpu, probe); }' \
    '/sys_enter_getppid$/ { n++ } END { print n + 0 }'

# profile-997: slowdown of a CPU-bound loop, tracer CPU per sample.
prow() {
	case "profile-997 count by cpu" in *"${ONLY:-}"*) ;; *) return ;; esac
	run_traced "$1" "$2" "spin"
	samples=$(awk "$3" "$out")
	slow=$(awk -v a="$ns" -v b="$basespin" 'BEGIN { printf "%.1f%%", (a - b) * 100 / b }')
	per=$(awk -v c="$cpu" -v n="$samples" 'BEGIN { if (n > 0) printf "%.0f", c * 1e6 / n; else print "-" }')
	echo "| profile-997 count by cpu ($samples samples) | $1 | slowdown $slow | $per | - |"
}
sum='{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v = $i; s += v; v = 0 } END { print s + 0 }'
N=2000 REPS=1 prow dtrace 'profile-997 { @[cpu] = count(); }' "$sum"
N=2000 REPS=1 prow bpftrace 'profile:hz:997 { @[cpu] = count(); }' "$sum"
if [ -s "$W/notes" ]; then
	echo
	echo "Tracer messages:"
	sed 's/^/    /' "$W/notes"
fi
