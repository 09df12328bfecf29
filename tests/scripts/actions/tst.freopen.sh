#!/bin/sh
# asserts: freopen() sends later output, aggregations included, to a file
f=$(mktemp)
out=$("$DTRACE" -q -w -n "BEGIN { printf(\"first\\n\"); freopen(\"$f\"); printf(\"second\\n\"); @n = count(); } BEGIN { exit(0); }" 2>&1)
[ "$out" = "first" ] || { echo "stdout: $out"; rm -f "$f"; exit 1; }
printf 'second\n\n                1\n' | cmp -s - "$f" || { echo "file: $(cat "$f")"; rm -f "$f"; exit 1; }
rm -f "$f"
exit 0
