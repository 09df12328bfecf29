# Asserts: -x quietresize keeps dtrace from saying that a size it had to
# lower was lowered; quietresize=no (and no option) keeps the notice.
# The option is settable from a #pragma and takes yes/no like the other
# booleans.
f=qr.$$.d
printf '#pragma D option quietresize=no\n#pragma D option bufresize=auto\n#pragma D option aggsize=100t\nBEGIN { @a = count(); exit(0); }\n' > $f
msg=$($DTRACE -q -s $f 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { rm -f $f; echo "quietresize=no: exit $rc: $msg"; exit 1; }
case $msg in
"dtrace: aggregation size lowered to "*) ;;
*) rm -f $f; echo "quietresize=no: <$msg>"; exit 1 ;;
esac
msg=$($DTRACE -q -x quietresize -x aggsize=100t -n 'BEGIN { @a = count(); exit(0); }' 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || { rm -f $f; echo "-x quietresize: exit $rc: $msg"; exit 1; }
[ -z "$msg" ] || { rm -f $f; echo "-x quietresize said <$msg>"; exit 1; }
sed 's/quietresize=no/quietresize=yes/' $f > $f.2
msg=$($DTRACE -q -s $f.2 2>&1 >/dev/null)
rm -f $f $f.2
[ -z "$msg" ] || { echo "pragma quietresize=yes said <$msg>"; exit 1; }
exit 0
