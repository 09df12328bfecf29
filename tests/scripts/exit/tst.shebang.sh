#!/bin/sh
# asserts: a "#!dtrace -qs" script runs directly, with macro arguments
f=$(mktemp)
printf '#!%s -qs\nBEGIN { printf("arg %%d\\n", $1); exit(0); }\n' "$DTRACE" > "$f"
chmod +x "$f"
out=$("$f" 5 2>&1)
rm -f "$f"
[ "$out" = "arg 5" ] || { echo "got: $out"; exit 1; }
exit 0
