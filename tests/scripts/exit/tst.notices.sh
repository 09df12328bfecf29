#!/bin/sh
# asserts: "matched N probe(s)" notices on stderr, none under -q
# (dtrace crops the specifier at its body or predicate for reporting)
err=$("$DTRACE" -n 'BEGIN { exit(0); }' 2>&1 >/dev/null)
[ "$err" = "dtrace: description 'BEGIN ' matched 1 probe" ] \
    || { echo "notice: $err"; exit 1; }
err=$("$DTRACE" -q -n 'BEGIN { exit(0); }' 2>&1 >/dev/null)
[ -z "$err" ] || { echo "quiet notice: $err"; exit 1; }
exit 0
