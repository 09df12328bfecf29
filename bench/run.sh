#!/bin/sh
# bench/run.sh - run every benchmark (make bench).  Each one prints its own
# figures; bench/RESULTS.md records them with the machine and the date.
# Benchmarks that need root or bpftrace say so and are passed over.
cd "$(dirname "$0")/.." || exit 1
for d in dif shim compile consume; do
	if [ -f "bench/$d/Makefile" ]; then
		echo "== bench/$d"
		make -s -C "bench/$d" run || echo "bench/$d failed"
	fi
done
for s in bench/tui/run.sh bench/providers/run.sh; do
	if [ -f "$s" ]; then
		echo "== $s"
		sh "$s" || echo "$s failed"
	fi
done
