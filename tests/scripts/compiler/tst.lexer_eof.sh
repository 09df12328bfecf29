#!/bin/sh
# Asserts: the lexer's end-of-input and comment errors have dtrace's texts
# and lines: "end-of-file encountered before matching */" (line at the
# end), "/* encountered inside a comment", "end-of-file encountered
# before end of control line" (a last line "#pragma ..." without newline).
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
check() {	# file, expected message after "failed to compile script F: "
	msg=$($DTRACE -q -s "$t/$1" 2>&1) && { echo "$1 accepted"; exit 1; }
	[ "$msg" = "dtrace: failed to compile script $t/$1: $2" ] ||
	    { echo "$1: got <$msg>"; exit 1; }
}
printf 'BEGIN { exit(0); }\n/* open\n\n' > "$t/a.d"
check a.d "line 4: end-of-file encountered before matching */"
printf 'BEGIN\n/* a /* b */\n{ exit(0); }\n' > "$t/b.d"
check b.d "line 2: /* encountered inside a comment"
printf 'BEGIN { exit(0); }\n#pragma D option quiet' > "$t/c.d"
check c.d "line 2: end-of-file encountered before end of control line"
printf 'BEGIN { exit(0); }\n#pragma D option quiet\n' > "$t/d.d"
out=$($DTRACE -s "$t/d.d" 2>&1) || { echo "pragma with newline: $out"; exit 1; }
exit 0
