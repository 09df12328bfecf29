#!/bin/sh
# Asserts: destructive actions (and the subroutines copyout and copyoutstr)
# are refused when tracing is enabled, as
# dtrace does ("could not enable tracing: Destructive actions not
# allowed"), so the compiler's own checks come first (an argument of the
# wrong type, D_ACT_SPEC); with -w dtrace says "allowing destructive
# actions" and the action runs.
fail() { echo "$*"; exit 1; }
out=$("$DTRACE" -q -n 'BEGIN { system("true"); exit(0); }' 2>&1) &&
    fail "ran without -w: $out"
[ "$out" = "dtrace: could not enable tracing: Destructive actions not allowed" ] ||
    fail "without -w: $out"
# the destructive subroutines too (dtrace marks their DIF destructive)
out=$("$DTRACE" -q -n 'BEGIN { copyoutstr("a", 0, 2); exit(0); }' 2>&1) &&
    fail "copyoutstr ran without -w: $out"
[ "$out" = "dtrace: could not enable tracing: Destructive actions not allowed" ] ||
    fail "copyoutstr without -w: $out"
out=$("$DTRACE" -xerrtags -q -n 'BEGIN { raise("x"); }' 2>&1)
echo "$out" | grep -q '\[D_PROTO_ARG\]' || fail "argument check: $out"
out=$("$DTRACE" -xerrtags -q -n 'BEGIN { speculate(1); raise(0); }' 2>&1)
echo "$out" | grep -q '\[D_ACT_SPEC\]' || fail "D_ACT_SPEC: $out"
out=$("$DTRACE" -w -n 'BEGIN { system("echo ran"); exit(0); }' 2>&1) ||
    fail "with -w: $out"
echo "$out" | grep -q '^dtrace: allowing destructive actions$' ||
    fail "no notice: $out"
echo "$out" | grep -q 'ran$' || fail "system( ) did not run: $out"
out=$("$DTRACE" -q -w -n 'BEGIN { exit(0); }' 2>&1)
echo "$out" | grep -q 'allowing destructive' && fail "notice under -q: $out"
exit 0
