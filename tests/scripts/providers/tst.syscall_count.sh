# An exact count of a known number of system calls from a -c target.
. ./lib.sh
need_root
build calls
out=$($DTRACE -q -c "$W/calls" -n '
syscall::getppid:entry /pid == $target/ { @e = count(); }
syscall::getppid:return /pid == $target/ { @r = count(); }
END { printa("entry %@d\n", @e); printa("return %@d\n", @r); }') ||
    fail "dtrace failed: $out"
[ "$out" = "entry 1234
return 1234" ] || fail "got: $out"
