# The ptrace route as nobody: a -c target's system calls before its exec
# (dtrace's child setting its death signal and its seccomp filter with
# prctl, and any other it makes there) are dtrace's, not the command's:
# none fires a probe of $target, whenever the helper's seize catches the
# child (under load a getppid there once counted 1235 getppid entries for
# 1234).  true(1) itself calls neither.  Five runs: the seize's moment
# varies.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
true=$(command -v true)
for r in 1 2 3 4 5; do
	out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    $DTRACE -q -c "$true" -n '
syscall::getppid:entry, syscall::prctl:entry
/pid == $target/ { @[probefunc] = count(); }
syscall::exit_group:entry /pid == $target/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
	[ "$(echo "$out" | grep -v '^$')" = "exit_group 1" ] ||
	    fail "run $r: want only 'exit_group 1': $out"
done
exit 0
