# Predicates on proc and sched probes are checked in the kernel
# (tprows.c, bpf_fmerge.c); what clauses see stays the same: exit
# statuses with an execname predicate (the exit_group() row is filtered by
# pid only), exec-success by execname, create by pid and its record
# argument, on-cpu by the incoming thread's tid and execname (record
# fields), off-cpu by pid, both on sched_switch at once (OR of filters),
# and a predicate nothing satisfies.  (ppid is not filtered in the kernel:
# with it, other "sh" processes on the machine pass the kernel filter and
# are left out by the clause, as they should.)
. ./lib.sh
need_root
build forkexec
build sleeps
out=$($DTRACE -q -c "$W/forkexec" -n '
proc:::exit /execname == "sh" && ppid == $target/ { printf("sh %d %d\n", arg0, arg1); }
proc:::exit /pid == $target/ { printf("target %d %d\n", arg0, arg1); }
proc:::exec-success /execname == "sh" && ppid == $target/ { @e = count(); }
proc:::create /pid == $target && arg0 > $target/ { @c = count(); }
END { printa("exec %@d\n", @e); printa("creates %@d\n", @c); }') ||
    fail "dtrace failed: $out"
want="creates 3
exec 3
sh 1 3
sh 1 4
sh 1 5
target 1 9"
[ "$(echo "$out" | grep -v '^$' | sort)" = "$want" ] || fail "proc got: $out"
out=$($DTRACE -q -c "$W/sleeps" -n '
sched:::on-cpu /execname == "sleeps"/ { @on = count(); }
sched:::on-cpu /tid == $target/ { @tid = count(); }
sched:::off-cpu /pid == $target/ { @off = count(); }
sched:::on-cpu /execname == "nosuch"/ { @none = count(); }
END { printa("on %@d\n", @on); printa("tid %@d\n", @tid);
    printa("off %@d\n", @off); printa("none %@d\n", @none); }') ||
    fail "dtrace failed: $out"
# 30 sleeps: 30 switch-ins after them (a rare one the kernel does not
# report, see tst.sched_switch_stress.sh, is allowed for)
for k in on tid off; do
	v=$(echo "$out" | sed -n "s/^$k //p")
	[ -n "$v" ] && [ "$v" -ge 28 ] || fail "$k: ${v:-none}: $out"
done
echo "$out" | grep -q '^none' && fail "on-cpu of nosuch: $out"
exit 0
