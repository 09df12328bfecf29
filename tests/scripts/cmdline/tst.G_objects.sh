# Asserts: dtrace -G -s prov.d a.o takes the words after the options as
# object files (they are not macro arguments): the object is written,
# a missing object file is "failed to link script ...: failed to open
# ...", exit 1.
command -v cc >/dev/null 2>&1 || { echo "no C compiler"; exit 77; }
d=G.$$
mkdir -p $d
trap 'rm -rf $d' EXIT
printf 'provider g_prov {\n\tprobe go(int);\n};\n' > $d/prov.d
printf 'int f(int x) { return x + 1; }\n' > $d/a.c
cc -c -o $d/a.o $d/a.c || { echo "cc failed"; exit 1; }
msg=$($DTRACE -G -s $d/prov.d -o $d/prov.o $d/a.o 2>&1) ||
    { echo "-G with an object refused: $msg"; exit 1; }
[ -s $d/prov.o ] || { echo "-G wrote no object"; exit 1; }
msg=$($DTRACE -G -s $d/prov.d -o $d/p2.o $d/missing.o 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "missing object: exit $rc"; exit 1; }
want="dtrace: failed to link script $d/prov.d: failed to open $d/missing.o: No such file or directory"
[ "$msg" = "$want" ] || { echo "missing object: <$msg>"; exit 1; }
exit 0
