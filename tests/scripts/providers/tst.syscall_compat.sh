# 32-bit (ia32) system calls of a 64-bit process are not x86_64 calls: the
# i386 getpid (number 20) must not fire syscall::writev (x86_64 number
# 20), as syscalls:sys_enter_writev would not; native calls count exactly.
. ./lib.sh
need_root
[ "$(uname -m)" = x86_64 ] || { echo "x86_64 only"; exit 77; }
build compat32
"$W/compat32" || { echo "no 32-bit system call entry (ia32 emulation off)"; exit 77; }
out=$($DTRACE -q -c "$W/compat32" -n '
syscall::writev:entry,syscall::writev:return /pid == $target/ { @w = count(); }
syscall::getppid:entry /pid == $target/ { @p = count(); }
END { printa("writev %@d\n", @w); printa("getppid %@d\n", @p); }') ||
    fail "dtrace failed: $out"
[ "$out" = "getppid 300" ] || fail "got: $out"
