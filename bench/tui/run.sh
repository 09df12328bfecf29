#!/bin/sh
# bench/tui/run.sh - build bench_tui against build/libtui.a and run it.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
cd "$top" || exit 1
make -s "$B/libtui.a" || exit 1
cc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Itui -o "$B/bench_tui" \
    bench/tui/bench_tui.c "$B/libtui.a" -lm || exit 1
"$B/bench_tui"
