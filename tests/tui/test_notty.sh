#!/bin/sh
# test_notty.sh - dtui reads its keys from standard input: when that is
# not a terminal (</dev/null, a pipe, a file) it refuses at once with a
# message and exit status 1 (a -c command is never let run) instead of
# drawing a screen no key can reach; -V and -h still answer, and errors
# in the options or clauses still come first.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
want="dtui: standard input is not a terminal"
for how in null pipe file; do
	case $how in
	null) out=$(timeout 30 "$DTUI" -n BEGIN < /dev/null 2>&1) ;;
	pipe) out=$(echo ':quit' | timeout 30 "$DTUI" -n BEGIN 2>&1) ;;
	file) echo ':quit' > "$tmp/keys"
	      out=$(timeout 30 "$DTUI" -c "touch $tmp/ran" < "$tmp/keys" 2>&1) ;;
	esac
	rc=$?
	[ $rc = 1 ] || { echo "$how: exit $rc (124: still running): $out"; exit 1; }
	[ "$out" = "$want" ] || { echo "$how: said: $out"; exit 1; }
done
[ ! -e "$tmp/ran" ] || { echo "the -c command ran"; exit 1; }
out=$(timeout 30 "$DTUI" -n 'BEGIN { nosuchfunc(); }' < /dev/null 2>&1)
[ $? = 1 ] && echo "$out" | grep -q 'nosuchfunc' ||
    { echo "a clause's error did not come first: $out"; exit 1; }
"$DTUI" -V < /dev/null | grep -q '^dtui: ' || { echo "-V without a terminal"; exit 1; }
"$DTUI" -h < /dev/null | grep -q '^Usage: dtui' || { echo "-h without a terminal"; exit 1; }
exit 0
