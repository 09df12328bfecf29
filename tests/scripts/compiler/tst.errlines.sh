#!/bin/sh
# Asserts: a script's error lines as dtrace gives them.  The checks dtrace
# makes while cooking a clause (types, undefined identifiers, prototypes,
# printf formats) report with its lexer's line, which dt_node_cook sets to
# the line of the node it cooks (printf's checks to the call's); syntax
# errors and the action checks that name their node (D_VAR_UNDEF ...)
# keep the line of the error too.  -n programs have no line.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
check() {	# file, expected message after "failed to compile script F: "
	msg=$($DTRACE -q -s "$t/$1" 2>&1 | head -n 1) &&
	[ "$msg" = "dtrace: failed to compile script $t/$1: $2" ] ||
	    { echo "$1: got <$msg>"; exit 1; }
}
printf '\nBEGIN,\nEND\n{\n\tx = 1;\n\ty = x + "a";\n}\n' > "$t/type.d"
check type.d "line 6: operator + requires operands of arithmetic type"
printf '\nBEGIN\n{\n\tx = 1;\n\ttrace(nosuch);\n}\n' > "$t/undef.d"
check undef.d "line 5: failed to resolve nosuch: Unknown variable name"
printf '\nBEGIN\n{\n\tx = 1;\n\tprintf("%%s\\n", x);\n}\n' > "$t/printf.d"
check printf.d "line 5: printf( ) argument #2 is incompatible with conversion #1 prototype:"
printf '\nBEGIN\n{\n\tx = 1;\n\ttrace(x +);\n}\n' > "$t/syntax.d"
check syntax.d "line 5: syntax error near \")\""
printf 'BEGIN { exit(0); }\n\ntick-1s\n{\n\tw = timestamp + "s";\n}\n' > "$t/second.d"
check second.d "line 5: operator + requires operands of arithmetic type"
printf '\nBEGIN\n{\n\tx += "s";\n}\n' > "$t/varundef.d"
check varundef.d "line 4: x has not yet been declared or assigned"
exit 0
