# Asserts: options dtrace(1M) has but Linux cannot serve (-a, -A, -32)
# are refused with "option -X is not supported on this system" and exit
# 1, not a usage text; -64 (the only data model here) is accepted; an
# unknown -3N is refused.
for o in -a -A -32; do
	msg=$($DTRACE -q $o -n 'BEGIN { exit(0); }' 2>&1)
	rc=$?
	name=$(echo "$o" | cut -d' ' -f1)
	[ $rc -eq 1 ] || { echo "$o: exit $rc, want 1: $msg"; exit 1; }
	[ "$msg" = "dtrace: option $name is not supported on this system" ] ||
	    { echo "$o: got <$msg>"; exit 1; }
done
out=$($DTRACE -q -64 -n 'BEGIN { trace(64); exit(0); }' 2>&1) ||
    { echo "-64 refused: $out"; exit 1; }
[ "$out" = "64" ] || { echo "-64 run printed <$out>"; exit 1; }
msg=$($DTRACE -q -33 -n 'BEGIN { exit(0); }' 2>&1)
[ $? -ne 0 ] || { echo "-33 accepted"; exit 1; }
exit 0
