# i386 system calls (int $0x80 from a 64-bit process) on the ptrace route
# as nobody: the -c target's seccomp filter sends them to the helper,
# which fires the x86_64 probe of the same name (write, getppid) with the
# i386 arguments; exact counts; a call with no such probe is a warning.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build int80
"$W/int80" || { echo "no i386 system calls here (IA32 emulation off?)"; exit 77; }
out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
    $DTRACE -q -c "$W/int80" -n '
syscall::write:entry /pid == $target && arg2 == 13/ { @w = count(); }
syscall::write:return /pid == $target && arg1 == 13/ { @r = count(); }
syscall::getppid:entry /pid == $target/ { @p = count(); }
syscall::stat:entry /pid == $target/ { @s = count(); }
END { printa("w %@d\n", @w); printa("r %@d\n", @r); printa("p %@d\n", @p);
    printa("s %@d\n", @s); }' 2>&1) || fail "dtrace failed: $out"
echo "$out" | grep -qx 'w 321' || fail "write entries: $out"
echo "$out" | grep -qx 'r 321' || fail "write returns: $out"
echo "$out" | grep -qx 'p 77' || fail "getppid entries: $out"
echo "$out" | grep -q '^s' && fail "i386 write (4) fired stat: $out"
# socketcall has no x86_64 probe: said once, not silently dropped
[ "$(echo "$out" | grep -c '^dtrace: i386 system call socketcall is not traced')" = 1 ] ||
    fail "no note for socketcall: $out"
exit 0
