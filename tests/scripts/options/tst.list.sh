#!/bin/sh
# asserts: -l prints dtrace's listing header and the dtrace provider's probes
out=$("$DTRACE" -l -n 'dtrace:::BEGIN' 2>&1)
echo "$out" | head -n 1 | grep -q '^   ID   PROVIDER            MODULE                          FUNCTION NAME$' \
    || { echo "header: $out"; exit 1; }
echo "$out" | grep -Eq '^ +[0-9]+ +dtrace +BEGIN$' || { echo "rows: $out"; exit 1; }
exit 0
