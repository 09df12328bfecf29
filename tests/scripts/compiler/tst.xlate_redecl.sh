#!/bin/sh
# Asserts: a translator lives as long as the handle, as dtrace's do: the
# same translator in a second program compiled on the handle (two -s of
# one script) is D_XLATE_REDECL "translator from T to S has already been
# declared"; one program alone compiles.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat > "$t/x.d" <<'X'
translator lwpsinfo_t < int x > { pr_lwpid = x; };
BEGIN { exit(0); }
X
out=$($DTRACE -q -s "$t/x.d" 2>&1) || { echo "one program refused: $out"; exit 1; }
msg=$($DTRACE -xerrtags -q -s "$t/x.d" -s "$t/x.d" 2>&1) &&
    { echo "second definition accepted: $msg"; exit 1; }
[ "$msg" = "dtrace: failed to compile script $t/x.d: [D_XLATE_REDECL] line 1: translator from int to lwpsinfo_t has already been declared" ] ||
    { echo "got <$msg>"; exit 1; }
exit 0
