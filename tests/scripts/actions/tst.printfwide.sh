#!/bin/sh
# tst.printfwide.sh - printf field widths and precisions far beyond any
# line (written, or taken from a '*' argument; issue #14's fuzzing
# finding: the C library allocated a buffer that wide for each
# conversion) print as ENG_PF_MAXWIDTH (65536): the value at the edge of a
# 65536-wide field, digits padded to 65536.
out=$("$DTRACE" -q -n 'BEGIN {
	printf("%*d|\n", 100000000, 7);
	printf("%-2000000000d|\n", 8);
	printf("%.99999999999999999999999d|\n", 9);
	printf("%*s|\n", -2147483647 - 1, "x");
	exit(0);
}') || { echo "dtrace failed"; exit 1; }
check() {	# LINE LENGTH PATTERN
	line=$(printf '%s\n' "$out" | sed -n "$1p")
	[ ${#line} -eq "$2" ] || { echo "line $1: ${#line} characters, want $2"; exit 1; }
	printf '%s\n' "$line" | grep -q "$3" || { echo "line $1 does not match $3"; exit 1; }
}
check 1 65537 '^ *7|$'
check 2 65537 '^8 *|$'
check 3 65537 '^0*9|$'
check 4 65537 '^x *|$'
[ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ] || { echo "not 4 lines"; exit 1; }
exit 0
