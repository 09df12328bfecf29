# execname is the process's name even for processes that exit right away
# (B1): the system calls a process makes as it starts and ends (anyone's,
# while 200 short-lived /bin/true processes come and go) carry a
# non-empty execname, and the exit_group of each /bin/true says "true".
# (Not every system call: a busy machine would drop records.)
. ./lib.sh
need_root
cat > "$W/e.d" <<'D'
syscall::execve:entry, syscall::mmap:entry, syscall::openat:entry,
syscall::wait4:entry, syscall::exit_group:entry, syscall::getpid:entry
/execname == ""/ { @e[pid, probefunc] = count(); }
syscall::exit_group:entry /execname == "true"/ { @t = count(); }
proc:::exit /execname == ""/ { @x = count(); }
END { printa("empty %d %s %@d\n", @e); printa("true %@d\n", @t);
    printa("exitempty %@d\n", @x); }
D
printf 'for i in $(seq 200); do /bin/true; done\n' > "$W/loop.sh"
out=$($DTRACE -q -c "/bin/sh $W/loop.sh" -s "$W/e.d" 2>&1) ||
    fail "dtrace failed: $out"
echo "$out" | grep -q '^empty' && fail "empty execname: $out"
echo "$out" | grep -q '^exitempty' && fail "proc:::exit with empty execname: $out"
t=$(echo "$out" | sed -n 's/^true *//p')
[ -n "$t" ] && [ "$t" -ge 150 ] || fail "exit_group of true seen ${t:-0} times of 200: $out"
exit 0
