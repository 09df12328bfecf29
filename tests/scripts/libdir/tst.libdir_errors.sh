#!/bin/sh
# Asserts: D libraries' errors as dtrace reports them.  A library that
# fails to compile fails the program, named with its line ("failed to
# compile script F: "dir/x.d", line N: ..." and, for -n, "invalid probe
# specifier S: [TAG] "dir/x.d", line N: ..."); a dependency cycle is
# "Cyclic dependency detected: a => b"; a dropped library's identifiers
# are unknown; -x libdir is -L; a missing directory is no error.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "$1: got <$2>"; exit 1; }
mkdir "$t/bad" "$t/cyc"
printf '\ninline int X = ;\n' > "$t/bad/x.d"
printf 'BEGIN { exit(0); }\n' > "$t/prog.d"
msg=$($DTRACE -L "$t/bad" -s "$t/prog.d" 2>&1) && fail "syntax error accepted" "$msg"
[ "$msg" = "dtrace: failed to compile script $t/prog.d: \"$t/bad/x.d\", line 2: syntax error near \";\"" ] ||
    fail "-s syntax error" "$msg"
msg=$($DTRACE -xerrtags -x libdir="$t/bad" -n 'BEGIN { exit(0); }' 2>&1) &&
    fail "syntax error accepted (-n)" "$msg"
[ "$msg" = "dtrace: invalid probe specifier BEGIN { exit(0); }: [D_SYNTAX] \"$t/bad/x.d\", line 2: syntax error near \";\"" ] ||
    fail "-n syntax error" "$msg"
printf '#pragma D depends_on library q.d\n' > "$t/cyc/p.d"
printf '#pragma D depends_on library p.d\n' > "$t/cyc/q.d"
msg=$($DTRACE -L "$t/cyc" -s "$t/prog.d" 2>&1) && fail "cycle accepted" "$msg"
[ "$msg" = "dtrace: failed to compile script $t/prog.d: Cyclic dependency detected: $t/cyc/q.d => $t/cyc/p.d" ] ||
    fail "cycle" "$msg"
msg=$($DTRACE -L lib1 -L lib2 -qn 'BEGIN { trace(D); }' 2>&1) &&
    fail "a dropped library's inline is defined" "$msg"
[ "$msg" = "dtrace: invalid probe specifier BEGIN { trace(D); }: failed to resolve D: Unknown variable name" ] ||
    fail "dropped library" "$msg"
out=$($DTRACE -x libdir=lib1 -L "$t/none" -qn 'BEGIN { printf("%d", A); exit(0); }' 2>&1) ||
    fail "-x libdir" "$out"
[ "$out" = "42" ] || fail "-x libdir value" "$out"
exit 0
