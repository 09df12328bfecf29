#!/bin/sh
# tests/errtags.sh - every D_* error tag the compiler can raise has a test
# (STYLE.md section 11: err.D_<TAG>.<what>.d under tests/scripts, run with
# -xerrtags, which must fail with that tag).
#
# The tags are the string literals "D_..." in engine/*.c (the compiler
# names each tag in full where it raises it, never builds one from parts,
# so a literal is a tag it can raise).  A tag that cannot be provoked from
# a D program is listed in EXEMPT with the reason, which is printed.
# Prints one PASS or FAIL line (tests/run.sh counts it); a FAIL names every
# tag without a test.
top=$(cd "$(dirname "$0")/.." && pwd)

EXEMPT="D_NOMEM:raised only when memory allocation fails
D_UNKNOWN:internal errors the code generator cannot reach from valid trees"

tags=$(cat "$top"/engine/*.c | grep -o '"D_[A-Z0-9_]*"' | tr -d '"' |
    sort -u)
[ -n "$tags" ] || { echo "FAIL errtags: no tags found in engine/*.c"; exit 0; }
missing=
for t in $tags; do
	if printf '%s\n' "$EXEMPT" | grep -q "^$t:"; then
		continue
	fi
	if [ -z "$(find "$top/tests/scripts" -name "err.$t.*.d" | head -n 1)" ]
	then
		missing="$missing $t"
	fi
done
n=$(printf '%s\n' $tags | wc -l)
if [ -n "$missing" ]; then
	echo "FAIL errtags: no err.D_<TAG>.*.d test for:$missing"
else
	echo "PASS errtags ($n tags tested; exempt: $(printf '%s\n' "$EXEMPT" |
	    sed 's/:/ (/; s/$/)/' | tr '\n' ';' | sed 's/;$//; s/;/; /g'))"
fi
