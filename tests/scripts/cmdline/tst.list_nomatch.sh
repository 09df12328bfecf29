#!/bin/sh
# Asserts: -l of a description that matches nothing prints the header and
# "dtrace: failed to match P:M:F:N: No probe matches description" on
# stderr, lists what the other descriptions match, and exits 0; -l of a
# script lists what its clauses match.
$DTRACE -l -n nosuchprov:nomod:nofunc:noname -n BEGIN > out.$$ 2> err.$$
rc=$?
err=$(cat err.$$); n=$(wc -l < out.$$); rm -f out.$$ err.$$
[ $rc -eq 0 ] || { echo "exit $rc: $err"; exit 1; }
[ "$err" = "dtrace: failed to match nosuchprov:nomod:nofunc:noname: No probe matches description" ] ||
    { echo "stderr <$err>"; exit 1; }
[ "$n" -eq 2 ] || { echo "$n lines listed, want header and BEGIN"; exit 1; }
printf 'BEGIN, END { exit(0); }\n' > s.$$.d
out=$($DTRACE -l -s s.$$.d | awk 'NR > 1 { print $NF }' | tr '\n' ' ')
rm -f s.$$.d
[ "$out" = "BEGIN END " ] || { echo "-l -s listed <$out>"; exit 1; }
exit 0
