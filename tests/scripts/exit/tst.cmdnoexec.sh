#!/bin/sh
# asserts: -c with a program that cannot be executed fails before tracing
# with libproc's words (Pcreate_error) and exit status 1, tracing nothing
t=$(mktemp -d)
printf 'not a program\n' > "$t/plain"
chmod -x "$t/plain"
check() {
	out=$("$DTRACE" -c "$1" -n 'BEGIN { printf("traced\n"); }' 2> "$t/err")
	rc=$?
	err=$(cat "$t/err")
	[ $rc -eq 1 ] || { echo "$1: exit $rc"; exit 1; }
	[ -z "$out" ] || { echo "$1: traced: $out"; exit 1; }
	[ "$err" = "dtrace: failed to execute $2" ] || { echo "$1: $err"; exit 1; }
}
check /nonexistent/prog "/nonexistent/prog: cannot find executable file"
check no-such-program-here "no-such-program-here: cannot find executable file"
check "$t/plain" "$t/plain: cannot execute file"
check "$t" "$t: cannot execute file"
rm -rf "$t"
exit 0
