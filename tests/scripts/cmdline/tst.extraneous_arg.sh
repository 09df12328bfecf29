#!/bin/sh
# Asserts: dtrace checks that the last macro argument is referenced and
# names it when it is not ("extraneous argument 'V' ($N is not
# referenced)"); an unreferenced argument before a referenced one is
# accepted; -xargref and -xdefaultargs turn the check off.
msg=$($DTRACE -i 1 10 -i 2 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "-i 1 10 -i 2: exit $rc: $msg"; exit 1; }
[ "$msg" = "dtrace: invalid probe specifier 1: extraneous argument '10' (\$1 is not referenced)" ] ||
    { echo "got <$msg>"; exit 1; }
msg=$($DTRACE -qn 'BEGIN { trace($1); exit(0); }' 1 2 3 2>&1)
[ "$msg" = "dtrace: invalid probe specifier BEGIN { trace(\$1); exit(0); }: extraneous argument '3' (\$3 is not referenced)" ] ||
    { echo "got <$msg>"; exit 1; }
out=$($DTRACE -qn 'BEGIN { trace($2); exit(0); }' 1 2 2>&1) ||
    { echo "\$2 referenced, \$1 not: refused: $out"; exit 1; }
[ "$out" = "2" ] || { echo "traced <$out>"; exit 1; }
for o in argref defaultargs; do
	out=$($DTRACE -x $o -qn 'BEGIN { exit(0); }' a 2>&1) ||
	    { echo "-x $o: $out"; exit 1; }
done
exit 0
