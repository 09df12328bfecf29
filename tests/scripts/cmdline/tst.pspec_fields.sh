#!/bin/sh
# Asserts: -P, -m, -f and -n place a specifier's fields from the right
# (the last field is the provider under -P, the module under -m, the
# function under -f, the name under -n), and a field left over is
# refused as an overspecified description, listed or enabled.
over() {	# FLAG SPEC
	msg=$($DTRACE $1 "$2" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || { echo "$1 $2: exit $rc: $msg"; exit 1; }
	want="dtrace: invalid probe specifier $2: invalid probe description \"$2\": Overspecified probe description"
	[ "$msg" = "$want" ] || { echo "$1 $2: got <$msg>"; exit 1; }
}
over -P profile:::profile-97
over -lP profile:::profile-97
over -m profile:::profile-97
over -lm profile::profile-97
over -f profile:::profile-97
over -n a:b:c:d:e
# right-aligned: "dtrace" under -P is the provider, "dtrace:" under -m
# names provider dtrace and an empty module
n=$($DTRACE -lP dtrace | wc -l)
[ "$n" -eq 4 ] || { echo "-lP dtrace listed $n lines"; exit 1; }
n=$($DTRACE -lm dtrace: | wc -l)
[ "$n" -eq 4 ] || { echo "-lm dtrace: listed $n lines"; exit 1; }
n=$($DTRACE -lf dtrace:: | wc -l)
[ "$n" -eq 4 ] || { echo "-lf dtrace:: listed $n lines"; exit 1; }
# under -n a single field is the name: BEGIN, not a provider
out=$($DTRACE -ln BEGIN | awk 'NR == 2 { print $2, $3 }')
[ "$out" = "dtrace BEGIN" ] || { echo "-ln BEGIN gave <$out>"; exit 1; }
# and a one-field -P specifier enables its provider's probes
out=$($DTRACE -qP dtrace'{ exit(0); }' 2>&1) || { echo "-P dtrace: $out"; exit 1; }
exit 0
