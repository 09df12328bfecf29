# Asserts: dtrace's options that tune its own library (preallocate,
# lazyload, pgmax, procfspath, modpath) are accepted and checked as
# dtrace checks them (a size, a count, a path), procfspath and modpath
# only from the command line; strsize below 2 (no room for a character
# and its NUL) is refused as Oracle's dtrace refuses it.
ok() {
	out=$($DTRACE "$@" -qn 'BEGIN { trace(1); exit(0); }' 2>&1) ||
	    { echo "$*: refused: $out"; exit 1; }
	[ "$out" = 1 ] || { echo "$*: printed <$out>"; exit 1; }
}
bad() {	# bad OPTION VALUE TEXT
	msg=$($DTRACE -x "$1" -qn 'BEGIN { exit(0); }' 2>&1)
	rc=$?
	[ $rc -eq 1 ] || { echo "-x $1: exit $rc, want 1"; exit 1; }
	want="dtrace: failed to set -x ${1%%=*}: $2"
	[ "$msg" = "$want" ] || { echo "-x $1: <$msg>, want <$want>"; exit 1; }
}
ok -x preallocate=100t
ok -x preallocate=4096
ok -x lazyload
ok -x pgmax=8
ok -x procfspath=/proc
ok -x modpath=/nonexistent
ok -x strsize=2
bad preallocate "Invalid value for specified option"
bad preallocate=lots "Invalid value for specified option"
bad pgmax=-1 "Invalid value for specified option"
bad procfspath "Invalid value for specified option"
bad strsize=1 "Invalid value for specified option"
bad strsize=0 "Invalid value for specified option"
f=tuning.$$.d
printf '#pragma D option preallocate=1m\n#pragma D option lazyload\nBEGIN { trace(2); exit(0); }\n' > $f
out=$($DTRACE -qs $f 2>&1)
[ "$out" = 2 ] || { rm -f $f; echo "pragma preallocate: <$out>"; exit 1; }
printf '#pragma D option procfspath=/proc\nBEGIN { exit(0); }\n' > $f
msg=$($DTRACE -qs $f 2>&1)
rc=$?
rm -f $f
[ $rc -eq 1 ] || { echo "pragma procfspath: exit $rc"; exit 1; }
want="dtrace: failed to compile script $f: line 1: failed to set option 'procfspath' to '/proc': Option cannot be used from within a D program"
[ "$msg" = "$want" ] || { echo "pragma procfspath: <$msg>"; exit 1; }
exit 0
