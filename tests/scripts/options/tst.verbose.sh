#!/bin/sh
# asserts: -v reports the program's stability attributes in dtrace's
# layout (both blocks, after the matched notice) and still runs it
out=$("$DTRACE" -v -q -n 'BEGIN { exit(0); }' 2>/dev/null)
want='
Stability attributes for description BEGIN :

	Minimum Probe Description Attributes
		Identifier Names: Evolving
		Data Semantics:   Evolving
		Dependency Class: Common

	Minimum Statement Attributes
		Identifier Names: Evolving
		Data Semantics:   Evolving
		Dependency Class: Common'
[ "$out" = "$want" ] || { echo "got:"; printf '%s\n' "$out"; exit 1; }
