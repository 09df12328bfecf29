# Asserts: -x empty lets an empty program compile (it then matches no
# probes: "matched 0 probes", "no probes matched", exit 1) where without
# it the program is D_EMPTY; -x nolibs loads no D library of -L; both
# take no value.
f=empty.$$.d
printf '/* nothing but a comment */\n' > $f
msg=$($DTRACE -xerrtags -s $f 2>&1)
rc=$?
[ $rc -eq 1 ] || { rm -f $f; echo "empty: exit $rc"; exit 1; }
[ "$msg" = "dtrace: failed to compile script $f: [D_EMPTY] line 2: empty D program translation unit" ] ||
    { rm -f $f; echo "empty: <$msg>"; exit 1; }
msg=$($DTRACE -x empty -s $f 2>&1)
rc=$?
rm -f $f
[ $rc -eq 1 ] || { echo "-x empty: exit $rc"; exit 1; }
want="dtrace: script '$f' matched 0 probes
dtrace: no probes matched"
[ "$msg" = "$want" ] || { echo "-x empty: <$msg>"; exit 1; }
msg=$($DTRACE -x empty=yes -e 2>&1)
[ "$msg" = "dtrace: failed to set -x empty: Invalid value for specified option" ] ||
    { echo "-x empty=yes: <$msg>"; exit 1; }
d=libs.$$
mkdir -p $d
printf 'inline int suite2_libval = 42;\n' > $d/val.d
out=$($DTRACE -L $d -qn 'BEGIN { trace(suite2_libval); exit(0); }' 2>&1)
[ "$out" = 42 ] || { rm -rf $d; echo "-L library not loaded: <$out>"; exit 1; }
msg=$($DTRACE -L $d -x nolibs -qn 'BEGIN { trace(suite2_libval); exit(0); }' 2>&1)
rc=$?
rm -rf $d
[ $rc -eq 1 ] || { echo "-x nolibs: exit $rc: $msg"; exit 1; }
case $msg in
*"failed to resolve suite2_libval"*) ;;
*) echo "-x nolibs: <$msg>"; exit 1 ;;
esac
exit 0
