#!/bin/sh
# Asserts: an integer probe specifier (-i, or -n, as dtrace parses them)
# names a probe by its id; an unknown id, an id above UINT_MAX, an id
# under -P/-m/-f and a specifier that starts with a digit but is no
# integer are refused (exit 1, dtrace's texts), listed or enabled.
fail() {	# WANT ARGS...
	want=$1; shift
	msg=$($DTRACE "$@" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || { echo "$*: exit $rc: $msg"; exit 1; }
	[ "$msg" = "$want" ] || { echo "$*: got <$msg> want <$want>"; exit 1; }
}
fail "dtrace: invalid probe specifier 0: invalid probe identifier 0: Unknown probe identifier" -i 0
fail "dtrace: invalid probe specifier 0: invalid probe identifier 0: Unknown probe identifier" -li 0
fail "dtrace: invalid probe specifier 4000000000: invalid probe identifier 4000000000: Unknown probe identifier" -i 4000000000
fail "dtrace: invalid probe specifier 99999999999: identifier 99999999999 exceeds maximum probe id" -i 99999999999
fail "dtrace: invalid probe specifier 2-2: syntax error near \"-2\"" -li 2-2
fail "dtrace: invalid probe specifier 1: probe identifier 1 not permitted when specifying provider" -P 1
fail "dtrace: invalid probe specifier 1: probe identifier 1 not permitted when specifying module" -m 1
fail "dtrace: invalid probe specifier 1: probe identifier 1 not permitted when specifying function" -f 1
fail "dtrace: invalid probe specifier 0: invalid probe identifier 0: Unknown probe identifier" -i 1 -i 2 -i 0
# ids 1 and 2 are BEGIN and END
out=$($DTRACE -l -i 1 -i 2 | awk 'NR > 1 { print $1, $3 }' | tr '\n' ' ')
[ "$out" = "1 BEGIN 2 END " ] || { echo "-l -i 1 -i 2 gave <$out>"; exit 1; }
out=$($DTRACE -q -i '1 { printf("begun"); exit(0); }' 2>&1)
[ "$out" = "begun" ] || { echo "-i 1 ran <$out>"; exit 1; }
out=$($DTRACE -q -n '1 { printf("begun"); exit(0); }' 2>&1)
[ "$out" = "begun" ] || { echo "-n 1 ran <$out>"; exit 1; }
# a probe listed by -l is found again by its id
id=$($DTRACE -lP profile | awk '$NF == "tick-1s" { print $1 }')
[ -n "$id" ] || { echo "no profile:::tick-1s"; exit 1; }
out=$($DTRACE -li "$id" | awk 'NR == 2 { print $2, $NF }')
[ "$out" = "profile tick-1s" ] || { echo "-li $id gave <$out>"; exit 1; }
exit 0
