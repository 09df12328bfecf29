#!/bin/sh
# Asserts: the other -x options dtrace has are accepted and do what they
# do: version (1.0 .. 1.13, dtrace's two refusals), libdir (and -L),
# ctypes/dtypes (the file is created; an uncreatable one is refused),
# aggpercpu, core, pspec and argref; boolean options take yes/no/true/
# false/on/off (Oracle's words) as well as 0/1; zdefs lets a description
# match nothing, as -Z does.
for v in 1.0 1.2.1 1.13; do
	$DTRACE -x version=$v -e 2>/dev/null || { echo "version=$v refused"; exit 1; }
done
msg=$($DTRACE -x version=2.0 -e 2>&1)
[ "$msg" = "dtrace: failed to set -x version: Requested version is not supported by compiler" ] ||
    { echo "version=2.0: <$msg>"; exit 1; }
msg=$($DTRACE -x version=1.x -e 2>&1)
[ "$msg" = "dtrace: failed to set -x version: Version is not properly formatted or is too large" ] ||
    { echo "version=1.x: <$msg>"; exit 1; }
$DTRACE -x libdir=/tmp -L /tmp -e || { echo "libdir refused"; exit 1; }
rm -f ct.$$ dt.$$
$DTRACE -x ctypes=ct.$$ -x dtypes=dt.$$ -e || { echo "ctypes refused"; exit 1; }
[ -f ct.$$ ] && [ -f dt.$$ ] || { echo "ctypes/dtypes files not made"; exit 1; }
rm -f ct.$$ dt.$$
msg=$($DTRACE -x ctypes=/nonexistent/dir/x -e 2>&1)
[ "$msg" = "dtrace: failed to set -x ctypes: No such file or directory" ] ||
    { echo "ctypes in no dir: <$msg>"; exit 1; }
for o in aggpercpu core pspec argref; do
	$DTRACE -x $o -e || { echo "-x $o refused"; exit 1; }
done
out=$($DTRACE -x quiet=yes -n 'BEGIN { trace(1); exit(0); }' 2>&1)
[ "$out" = "1" ] || { echo "quiet=yes printed <$out>"; exit 1; }
out=$($DTRACE -x quiet=TRUE -x quiet=off -n 'BEGIN { exit(0); }' 2>&1 |
    grep -c 'matched 1 probe')
[ "$out" = "1" ] || { echo "quiet=off was not off"; exit 1; }
msg=$($DTRACE -x quiet=maybe -e 2>&1)
[ "$msg" = "dtrace: failed to set -x quiet: Invalid value for specified option" ] ||
    { echo "quiet=maybe: <$msg>"; exit 1; }
printf 'nosuchprovider:::nosuchprobe { trace(0); }\nBEGIN { exit(0); }\n' > z.$$.d
msg=$($DTRACE -q -s z.$$.d 2>&1)
rc=$?
[ $rc -eq 1 ] || { rm -f z.$$.d; echo "no-match compiled without zdefs: $msg"; exit 1; }
msg=$($DTRACE -q -x zdefs -s z.$$.d 2>&1)
rc=$?
rm -f z.$$.d
[ $rc -eq 0 ] || { echo "-x zdefs: exit $rc: $msg"; exit 1; }
exit 0
