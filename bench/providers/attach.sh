#!/bin/sh
# bench/providers/attach.sh - how long every syscall probe takes to start
# and to go away: `syscall:::entry { @[probefunc] = count(); }` with a
# tick-1s exit, from start to exit.  Prints, per run, when the "matched"
# line came, when END fired (1 s of tracing after the probes were on) and
# when dtrace had exited, in ms since start; "exit after END" is the
# teardown.  With bpftrace installed, the same for
# tracepoint:syscalls:sys_enter_* (for scale; NOBPFTRACE=1: not).  Needs
# root.  R=3 runs.
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$top/build/dtrace}
R=${R:-3}

now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# once CMD...: run the tracer, print "matched END exit" times in ms
once() {
	s=$(now_ms)
	"$@" 2>&1 | {
		m=-; e=-
		while IFS= read -r l; do
			case "$l" in
			*matched*|Attaching*) [ "$m" = - ] && m=$(( $(now_ms) - s ));;
			*END*) [ "$e" = - ] && e=$(( $(now_ms) - s ));;
			esac
		done
		echo "$m $e"
	} > /tmp/attach.$$
	x=$(( $(now_ms) - s ))
	read m e < /tmp/attach.$$
	rm -f /tmp/attach.$$
	echo "| $m | $e | $x | $(( x - e )) |"
}

echo "| tracer | matched / attached (ms) | END (ms) | exited (ms) | exit after END (ms) |"
echo "| --- | --- | --- | --- | --- |"
for i in $(seq "$R"); do
	printf '| dtrace '
	once "$DTRACE" -n 'syscall:::entry { @[probefunc] = count(); }
	    tick-1s { exit(0); } END { printf("END\n"); }'
done
[ -z "$NOBPFTRACE" ] && command -v bpftrace > /dev/null || exit 0
for i in $(seq "$R"); do
	printf '| bpftrace '
	once bpftrace -e 'tracepoint:syscalls:sys_enter_* { @[probe] = count(); }
	    interval:s:1 { printf("END\n"); exit(); }'
done
