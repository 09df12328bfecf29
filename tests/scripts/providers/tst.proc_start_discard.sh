#!/bin/sh
# Asserts: proc:::start fires in each new process (pid == tid) and
# proc:::lwp-start in each new thread (pid != tid), before they run user
# code; proc:::signal-discard fires for a signal the target ignores, with
# the target's pid (arg1) and the signal (arg2); proc:::exec-failure
# fires with the errno (ENOENT for a program that is not there).
. ./lib.sh
need_root
build threads
cat > "$W/forks.sh" <<'SH'
#!/bin/sh
/bin/true
/bin/true
/bin/true
SH
cat > "$W/ignore.sh" <<'SH'
#!/bin/sh
trap "" USR1
kill -USR1 $$
kill -USR1 $$
SH
cat > "$W/noexec.sh" <<'SH'
#!/bin/sh
exec /nonexistent/program 2> /dev/null
SH
chmod +x "$W/forks.sh" "$W/ignore.sh" "$W/noexec.sh"
out=$($DTRACE -q -n 'proc:::start /ppid == $target && pid == tid/ { n++; }
    END { printf("%d", n); }' -c "$W/forks.sh" 2>&1)
[ "$out" = "3" ] || fail "start in the 3 children: <$out>"
out=$($DTRACE -q -n 'proc:::lwp-start /pid == $target && pid != tid/ { n++; }
    END { printf("%d", n); }' -c "$W/threads 5" 2>&1)
[ "$out" = "5" ] || fail "lwp-start in the 5 threads: <$out>"
out=$($DTRACE -q -n 'proc:::signal-discard /arg1 == $target/ {
    printf("%d ", arg2); }' -c "$W/ignore.sh" 2>&1)
[ "$out" = "10 10 " ] || fail "signal-discard of SIGUSR1 twice: <$out>"
out=$($DTRACE -q -n 'proc:::exec-failure /pid == $target/ {
    printf("%d %d ", args[0] == ENOENT, errno == ENOENT); }' -c "$W/noexec.sh" 2>&1)
[ "$out" = "1 1 " ] || fail "exec-failure with ENOENT: <$out>"
exit 0
