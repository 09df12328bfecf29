#!/bin/sh
# Asserts: through ptrace, as an unprivileged user, proc's create and
# lwp-create have the typed arguments they have as root: create's
# args[0] the child's psinfo_t * (its pid arg0, its parent the target),
# lwp-create's args[0] the new thread's lwpsinfo_t * and args[1] the
# target's psinfo_t *; exit's args[0] is CLD_EXITED; -lv lists them.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build family
asnobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
out=$(cd / && asnobody $DTRACE -q -c "$W/family" -n '
proc:::create /pid == $target/ {
	printf("create %d %d %d %s\n", args[0]->pr_pid == arg0,
	    args[0]->pr_ppid == $target, args[0]->pr_uid == uid,
	    args[0]->pr_fname);
}
proc:::lwp-create /pid == $target/ {
	printf("lwp-create %d %d %s\n", args[0]->pr_lwpid == arg0 &&
	    arg0 != $target, args[1]->pr_pid == $target, args[0]->pr_name);
}
proc:::exit /pid == $target/ { printf("exit %d\n", args[0] == CLD_EXITED); }
' 2>&1 | sed '/^$/d' | sort)
want=$(printf '%s\n' "create 1 1 1 family" "lwp-create 1 1 family" \
    "exit 1" | sort)
[ "$out" = "$want" ] || fail "got:
$out
want:
$want"
out=$(cd / && asnobody $DTRACE -lv -n proc:::create -n proc:::lwp-create \
    2>&1 | grep 'args\[' | tr -s '\t ' ' ')
want=" args[0]: psinfo_t *
 args[0]: lwpsinfo_t *
 args[1]: psinfo_t *"
[ "$out" = "$want" ] || fail "-lv as nobody: <$out>"
exit 0
