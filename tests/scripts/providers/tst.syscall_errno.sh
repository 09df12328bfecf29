# Return values and errno: 200 failed opens (-1, ENOENT) and one success.
. ./lib.sh
need_root
build paths
out=$($DTRACE -q -c "$W/paths" -n '
syscall::openat:return /pid == $target && arg0 == -1/ { @f[errno, arg1] = count(); }
syscall::openat:return /pid == $target && arg0 >= 0 && errno == 0/ { @ok = count(); }
END { printa("fail errno=%d arg1=%d n=%@d\n", @f); printa("ok %@d\n", @ok); }') ||
    fail "dtrace failed: $out"
echo "$out" | grep -q '^fail errno=2 arg1=-1 n=200$' || fail "failures: $out"
echo "$out" | grep -q '^ok [1-9]' || fail "no successful open: $out"
