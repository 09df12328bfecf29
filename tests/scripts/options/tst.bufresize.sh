#!/bin/sh
# asserts: size limits as dtrace(1M) with bufresize=auto: a buffer too
# large to allocate is halved until it fits and reported ("buffer size
# lowered to 800m", even under -q) and tracing runs; under
# bufresize=manual it fails; a principal buffer under 8 bytes is refused
# ("Enabling exceeds size of buffer"); strsize above 64k is capped
# silently (dtrace_strsize_max); no DOF wording reaches the user.
t=$(mktemp -d)
run() {
	"$DTRACE" -q "$@" -n 'BEGIN { printf("ran\n"); exit(0); }' \
	    > "$t/out" 2> "$t/err"
	rc=$?
	out=$(cat "$t/out"); err=$(cat "$t/err")
}
fail() { echo "$*: rc $rc, out [$out], err [$err]"; rm -rf "$t"; exit 1; }

run -x bufsize=100g
[ $rc -eq 0 ] && [ "$out" = "ran" ] || fail bufsize=100g
[ "$err" = "dtrace: buffer size lowered to 800m" ] || fail bufsize=100g
run -b 3g -x aggsize=2000000000
[ $rc -eq 0 ] || fail "-b 3g"
[ "$err" = "dtrace: buffer size lowered to 768m
dtrace: aggregation size lowered to 1000000000 bytes" ] || fail "-b 3g"
run -x bufsize=100g -x bufresize=manual
[ $rc -eq 1 ] && [ -z "$out" ] || fail manual
[ "$err" = "dtrace: could not enable tracing: Cannot allocate memory" ] \
    || fail manual
run -x bufsize=1
[ $rc -eq 1 ] && [ -z "$out" ] || fail bufsize=1
[ "$err" = "dtrace: could not enable tracing: Enabling exceeds size of buffer" ] \
    || fail bufsize=1
run -x bufsize=0
[ $rc -eq 1 ] && [ "$err" = "dtrace: could not enable tracing: Enabling exceeds size of buffer" ] \
    || fail bufsize=0
run -x aggsize=0 -x specsize=0 -x dynvarsize=0
[ $rc -eq 0 ] && [ "$out" = "ran" ] && [ -z "$err" ] || fail "zero sizes"
run -x strsize=100000 -x nspec=100000 -x stackframes=5000
[ $rc -eq 0 ] && [ "$out" = "ran" ] && [ -z "$err" ] || fail strsize
rm -rf "$t"
exit 0
