#!/bin/sh
# asserts: curpsinfo->pr_psargs and pr_argc hold the exec'd command line
# (bug B6: they were execname and 0).
. ./lib.sh
need_root
# -x evaltime=exec: traced from its exec, whose exec-success fires
out=$("$DTRACE" -x evaltime=exec -qn 'proc:::exec-success /pid == $target/ {
	printf("%s|%s|%d\n", execname, curpsinfo->pr_psargs,
	    curpsinfo->pr_argc); exit(0); }' -c '/bin/true alpha beta gamma')
want="true|/bin/true alpha beta gamma|4"
[ "$out" = "$want" ] || { echo "got '$out', want '$want'"; exit 1; }
