#!/bin/sh
# Asserts: a command line of options only is not a usage error: with -e
# dtrace sets the options and exits 0 silently; without it dtrace says
# "no probes specified" and exits 1.
out=$($DTRACE -b 1g -e 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || { echo "-b 1g -e: exit $rc: <$out>"; exit 1; }
out=$($DTRACE -q -x bufsize=4m -e 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || { echo "-x bufsize=4m -e: exit $rc: <$out>"; exit 1; }
out=$($DTRACE -b 1g 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "-b 1g: exit $rc: <$out>"; exit 1; }
[ "$out" = "dtrace: no probes specified" ] || { echo "-b 1g: <$out>"; exit 1; }
exit 0
