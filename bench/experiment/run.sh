#!/bin/sh
# bench/experiment/run.sh - what recording an experiment costs, and how
# soon a large one shows its first screen.
#  1. printf per getppid() of the workload (bench/providers/w_bench.c), the
#     consumer flat out: tracer CPU per record printed, without and with
#     -x record, alternating, REPS runs each (default 3).
#  2. an experiment of SIZE_MB (default 1024) of principal-buffer data
#     (records of eight 8-byte values), then the time dtrace -r takes to print its
#     first screen (50 lines) and to replay all of it.
# Needs root and cc.  Prints Markdown rows for bench/RESULTS.md.
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$top/build/dtrace}
N=${N:-2000000}
REPS=${REPS:-3}
SIZE_MB=${SIZE_MB:-1024}
W=$(mktemp -d ${WORKDIR:-/tmp}/benchexp.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ "$(id -u)" = 0 ] || { echo "needs root (syscall provider)"; exit 0; }
cc -O2 -o "$W/w" "$top/bench/providers/w_bench.c" || exit 1
hz=$(getconf CLK_TCK)

cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}


# One run: tracer CPU from its rusage (it exits), records printed.
run() {
	rm -rf "$W/r.er" "$W/out"
	( "$DTRACE" -q -x bufsize=64m -x switchrate=50ms "$@" -o "$W/out" -n \
	    'syscall::getppid:entry /execname == "w"/ { printf("%d %s %x\n", pid, execname, arg0); }' \
	    2> "$W/err" & tp=$!
	  while ! [ -s "$W/out" ]; do "$W/w" calls 1 > /dev/null; sleep 0.1; done
	  "$W/w" calls $N > /dev/null
	  kill -INT $tp; wait $tp; times > "$W/times.all"; tail -n 1 "$W/times.all" > "$W/times" )
	recs=$(wc -l < "$W/out")
	# "0m1.23s 0m0.45s": user and system of the subshell's children
	ns=$(awk -v r="$recs" '{ gsub(/s/, "", $1); gsub(/s/, "", $2);
	    split($1, u, "m"); split($2, s, "m");
	    printf "%.0f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e9 / r }' "$W/times")
	echo "$recs $ns"
}

echo "== recording cost: printf per getppid(), N=$N, $REPS runs each"
plain="" rec=""
for i in $(seq "$REPS"); do
	set -- $(run); plain="$plain $2"; pr=$1
	set -- $(run -x record="$W/r.er"); rec="$rec $2"; rr=$1
	du -sh "$W/r.er" | awk '{ printf "experiment %s, ", $1 }'
	echo "run $i: plain $pr records, recording $rr records"
done
best() { echo $* | tr ' ' '\n' | sort -n | head -n 1; }
bp=$(best $plain) br=$(best $rec)
echo "| printf per event, tracer CPU per record printed (best of $REPS; all:$plain /$rec) | $bp ns | $br ns | $(awk -v a=$bp -v b=$br 'BEGIN { printf "%+.1f%%", (b - a) * 100 / a }') |"

echo "== a ${SIZE_MB} MB experiment"
# records of non-zero words, which the zero-run coding cannot shrink
printf 'syscall::getppid:entry /execname == "w"/ { printf("%%d %%d %%d %%d %%d %%d %%d %%d\\n", timestamp, walltimestamp, timestamp + 1, timestamp + 2, timestamp + 3, timestamp + 4, timestamp + 5, timestamp + 6); }\n' > "$W/big.d"
"$DTRACE" -q -x bufsize=64m -x switchrate=50ms -x record="$W/big.er" -o /dev/null -s "$W/big.d" 2> "$W/err" &
tp=$!
while [ "$(du -sm "$W/big.er" 2>/dev/null | cut -f1)" -lt "${SIZE_MB:-1024}" ] 2>/dev/null || [ ! -d "$W/big.er" ]; do
	kill -0 $tp 2> /dev/null || { echo "dtrace died: $(cat "$W/err")"; exit 1; }
	"$W/w" calls 200000 > /dev/null
done
kill -INT $tp; wait $tp
du -sh "$W/big.er"
t0=$(date +%s.%N)
"$DTRACE" -r "$W/big.er" 2> /dev/null | head -n 50 > "$W/first"
t1=$(date +%s.%N)
"$DTRACE" -r "$W/big.er" > /dev/null 2>&1
t2=$(date +%s.%N)
echo "| $(du -sh "$W/big.er" | cut -f1) experiment: dtrace -r to its first screen (50 lines: $(wc -l < "$W/first")) | $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.3f s", b - a }') | whole replay $(awk -v a=$t1 -v b=$t2 'BEGIN { printf "%.1f s", b - a }') |"
