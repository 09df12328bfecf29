#!/bin/sh
# Asserts: cpu=N runs BEGIN and END on CPU N (skipped on one CPU);
# scratchsize bounds a firing's scratch (a string longer than it is the
# "out of scratch space" fault); maxframes must be positive; noresolve
# prints a kernel address as a number (needs root for kallsyms).
n=$(getconf _NPROCESSORS_ONLN)
if [ "$n" -ge 2 ]; then
	last=$((n - 1))
	out=$($DTRACE -q -x cpu=$last -n 'BEGIN { printf("%d ", cpu); exit(0); }
	    END { printf("%d", cpu); }' 2>&1)
	[ "$out" = "$last $last" ] || { echo "cpu=$last: <$out>"; exit 1; }
fi
msg=$($DTRACE -q -x scratchsize=64 -n 'BEGIN { x = strjoin(
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"); }
    BEGIN { exit(0); }' 2>&1)
echo "$msg" | grep -q 'out of scratch space' ||
    { echo "scratchsize=64: <$msg>"; exit 1; }
out=$($DTRACE -q -x scratchsize=1m -n 'BEGIN { x = strjoin("ab", "cd");
    trace(x); exit(0); }' 2>&1)
[ "$out" = "abcd" ] || { echo "scratchsize=1m: <$out>"; exit 1; }
msg=$($DTRACE -x maxframes=0 -e 2>&1)
[ "$msg" = "dtrace: failed to set -x maxframes: Invalid value for specified option" ] ||
    { echo "maxframes=0: <$msg>"; exit 1; }
$DTRACE -x maxframes=3 -x stackframes=10 -e || { echo "maxframes=3 refused"; exit 1; }
if [ "$(id -u)" = 0 ] && [ -r /proc/kallsyms ]; then
	a=$(awk '$2 == "T" && $3 == "do_sys_open" { print $1; exit }' /proc/kallsyms)
	if [ -n "$a" ] && [ "$a" != 0000000000000000 ]; then
		out=$($DTRACE -q -n "BEGIN { printf(\"%a\", 0x$a); exit(0); }")
		[ "$out" = "vmlinux\`do_sys_open" ] || { echo "%a: <$out>"; exit 1; }
		out=$($DTRACE -q -x noresolve -n "BEGIN { printf(\"%a\", 0x$a); exit(0); }")
		[ "$out" = "0x$a" ] || { echo "noresolve %a: <$out>"; exit 1; }
	fi
fi
exit 0
