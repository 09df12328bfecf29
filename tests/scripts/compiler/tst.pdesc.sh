#!/bin/sh
# Asserts: probe descriptions as dtrace reads them: one field is the name
# (BEGIN), -P/-m/-f/-n put a lone field in their own place, globs and
# empty fields match, and -Z accepts a description that matches nothing.
$DTRACE -l -n BEGIN | awk 'NR > 1 { print $2, $3 }'
$DTRACE -l -P dtrace | awk 'NR > 1 { print $3 }'
$DTRACE -l -n 'dtrace:::E*' | awk 'NR > 1 { print $3 }'
$DTRACE -q -Z -n 'nosuch:::probe { trace(1); } BEGIN { exit(0); }' || exit 1
if $DTRACE -q -n 'nosuch:::probe { trace(1); }' 2>/dev/null; then exit 1; fi
exit 0
