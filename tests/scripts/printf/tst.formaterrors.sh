#!/bin/sh
# Asserts: malformed printf conversions are refused with dtrace's texts
# (D_SYNTAX, as dtrace's yywarn tags them), numbered as dtrace counts
# them ("%%" is a conversion too).
fail() { echo "$*"; exit 1; }
check() {	# FORMAT EXPECTED-MESSAGE
	out=$("$DTRACE" -xerrtags -q -n "BEGIN { printf(\"$1\", 1); }" 2>&1)
	case $out in
	*"[D_SYNTAX] $2") ;;
	*) fail "printf(\"$1\"): $out (want: $2)" ;;
	esac
}
check '%%%r' 'format conversion #2 is undefined: %r'
check '%1.2.3d' "format conversion #1 has more than one '.' specified"
check '%1$d' 'format conversion #1 uses unsupported positional format (%n$)'
check '%d %' 'format conversion #2 name expected before end of format string'
check '%**d' "format conversion #1 has more than one '*' specified for the output width"
check '%5%' 'format conversion #1 cannot be combined with other format flags: %%'
check '%F' 'format conversion #1 is undefined: %F'
check '%m' 'format conversion #1 is undefined: %m'
check '%hhd' 'format conversion #1 is undefined: %hhd'
exit 0
