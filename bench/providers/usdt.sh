#!/bin/sh
# bench/providers/usdt.sh - a usdt probe (a program's own provider, built
# through dtrace -h and -G: w_usdt.c) fired N times, counted by dtrace and
# by bpftrace in one run: the workload's ns per call traced minus
# untraced, and whether every call was counted.  Needs root, cc,
# <sys/sdt.h>; bpftrace optional.  N=200000 by default.  Prints a
# Markdown table.
top=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$top/build/dtrace}
N=${N:-200000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat > "$W/usdtbench.d" <<'D'
provider dtuibench { probe tick(long); };
D
(cd "$W" && $DTRACE -h -s usdtbench.d && $DTRACE -G -s usdtbench.d) || exit 1
cc -O2 -I"$W" -o "$W/w" "$(dirname "$0")/w_usdt.c" "$W/usdtbench.o" || exit 1

# run TRACER: start the workload, attach TRACER (none, dtrace, bpftrace),
# let it go; sets ns (per call) and count (calls the tracer counted)
run() {
	rm -f "$W/go" "$W/out"
	"$W/w" "$W/go" $N > "$W/ns" &
	wp=$!
	until grep -q "$W/w" "/proc/$wp/maps" 2> /dev/null; do sleep 0.01; done
	case $1 in
	dtrace) "$DTRACE" -q -p $wp -n 'dtuibench$target:::tick { @ = count(); }
	    END { printa("%@d\n", @); }' > "$W/out" 2> "$W/err" & tp=$! ;;
	bpftrace) bpftrace -p $wp -e "usdt:$W/w:dtuibench:tick { @ = count(); }" \
	    > "$W/out" 2> "$W/err" & tp=$! ;;
	*) tp= ;;
	esac
	[ -n "$tp" ] && sleep 6		# attach (bpftrace compiles)
	touch "$W/go"
	wait $wp
	[ -n "$tp" ] && wait $tp
	ns=$(cat "$W/ns")
	count=$(grep -o '[0-9][0-9]*' "$W/out" 2> /dev/null | tail -n 1)
	drops=$(grep -i drop "$W/err" 2> /dev/null | head -n 1)
}

run none
base=$ns
echo "| tracer | ns per call traced | added per call | calls counted (of $N) | drops reported |"
echo "| --- | --- | --- | --- | --- |"
echo "| none | $base | 0 | - | - |"
for t in dtrace bpftrace; do
	[ $t = bpftrace ] && ! command -v bpftrace > /dev/null && continue
	run $t
	echo "| $t | $ns | $((ns - base)) | ${count:-?} | ${drops:-none} |"
done
