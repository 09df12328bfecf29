#!/bin/sh
# Asserts: -C runs the C preprocessor with -D definitions and #include,
# and line numbers in errors follow the original file.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/defs.h" <<'H'
#define TWICE(x) ((x) * 2)
H
cat > "$tmp/a.d" <<'D'
#include "defs.h"
BEGIN
{
	printf("%d %d\n", TWICE(21), VALUE);
	exit(0);
}
D
$DTRACE -q -C -I"$tmp" -DVALUE=7 -s "$tmp/a.d" || exit 1
printf '#define X 1\n\nBEGIN\n{\n\ttrace(nosuch);\n}\n' > "$tmp/b.d"
$DTRACE -q -C -s "$tmp/b.d" 2>&1 | grep -q 'line 5: failed to resolve nosuch' || exit 1
exit 0
