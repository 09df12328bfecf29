#!/bin/sh
# asserts: bad usage prints the usage text and exits 2; -V prints the version
"$DTRACE" -K > /dev/null 2> err.$$
rc=$?
grep -q '^Usage: dtrace' err.$$ || { echo "no usage: $(cat err.$$)"; rm -f err.$$; exit 1; }
rm -f err.$$
[ $rc -eq 2 ] || { echo "exit $rc"; exit 1; }
[ "$("$DTRACE" -V)" = "dtrace: Sun D 1.13" ] || { echo "bad -V"; exit 1; }
exit 0
