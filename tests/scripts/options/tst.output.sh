#!/bin/sh
# asserts: -o file appends output to the file instead of stdout
f=$(mktemp)
"$DTRACE" -q -o "$f" -n 'BEGIN { printf("to file\n"); exit(0); }' > out.$$
grep -q '^to file$' "$f" || { echo "file: $(cat "$f")"; rm -f "$f" out.$$; exit 1; }
[ ! -s out.$$ ] || { echo "stdout: $(cat out.$$)"; rm -f "$f" out.$$; exit 1; }
rm -f "$f" out.$$
exit 0
