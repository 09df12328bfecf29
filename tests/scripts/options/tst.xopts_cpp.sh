#!/bin/sh
# Asserts: the preprocessor options dtrace has work as -x options: cpp
# (as -C), define, undef, incdir, cppargs, cpphdrs, cpppath, stdc (as -X,
# a|c|s|t only); -D/-I/-U still work; from a D program's pragma they are
# refused with dtrace's "Option cannot be used from within a D program".
out=$($DTRACE -q -x cpp -x define=FOO=7 -n 'BEGIN { trace(FOO); exit(0); }' 2>&1)
[ "$out" = "7" ] || { echo "-x cpp -x define: <$out>"; exit 1; }
out=$($DTRACE -qC -D BAR=8 -n 'BEGIN { trace(BAR); exit(0); }' 2>&1)
[ "$out" = "8" ] || { echo "-C -D: <$out>"; exit 1; }
mkdir -p inc.$$
echo '#define BAZ 9' > inc.$$/baz.h
printf '#include <baz.h>\nBEGIN { trace(BAZ); exit(0); }\n' > s.$$.d
out=$($DTRACE -q -x cpp -x incdir=inc.$$ -s s.$$.d 2>&1)
[ "$out" = "9" ] || { echo "-x incdir: <$out>"; rm -rf inc.$$ s.$$.d; exit 1; }
out=$($DTRACE -q -x cpp -x "cppargs=-Iinc.$$ -DQ=3" -s s.$$.d 2>&1)
[ "$out" = "9" ] || { echo "-x cppargs: <$out>"; rm -rf inc.$$ s.$$.d; exit 1; }
out=$($DTRACE -q -x cpp -x cpphdrs -x incdir=inc.$$ -s s.$$.d 2>&1 >/dev/null)
rm -rf inc.$$ s.$$.d
echo "$out" | grep -q 'baz.h' || { echo "-x cpphdrs printed <$out>"; exit 1; }
printf '#ifdef FOO\nBEGIN { trace(1); exit(0); }\n#else\nBEGIN { trace(2); exit(0); }\n#endif\n' > u.$$.d
out=$($DTRACE -q -C -D FOO -x undef=FOO -s u.$$.d 2>&1)
rm -f u.$$.d
[ "$out" = "2" ] || { echo "-x undef: <$out>"; exit 1; }
msg=$($DTRACE -q -x cpp -x cpppath=/nonexistent/cpp -n 'BEGIN { exit(0); }' 2>&1)
[ $? -eq 1 ] || { echo "cpppath=/nonexistent ran: $msg"; exit 1; }
for v in a c s t; do
	out=$($DTRACE -q -X $v -C -n 'BEGIN { trace(1); exit(0); }' 2>&1)
	[ "$out" = "1" ] || { echo "-X $v: <$out>"; exit 1; }
done
msg=$($DTRACE -x stdc=q -e 2>&1)
[ "$msg" = "dtrace: failed to set -x stdc: Invalid value for specified option" ] ||
    { echo "stdc=q: <$msg>"; exit 1; }
msg=$($DTRACE -X q -e 2>&1)
[ "$msg" = "dtrace: failed to set -X q: Invalid value for specified option" ] ||
    { echo "-X q: <$msg>"; exit 1; }
printf '#pragma D option define=X=1\nBEGIN { exit(0); }\n' > p.$$.d
msg=$($DTRACE -xerrtags -q -s p.$$.d 2>&1)
rc=$?
rm -f p.$$.d
[ $rc -eq 1 ] || { echo "pragma define accepted: $msg"; exit 1; }
echo "$msg" | grep -q 'Option cannot be used from within a D program' ||
    { echo "pragma define: <$msg>"; exit 1; }
exit 0
