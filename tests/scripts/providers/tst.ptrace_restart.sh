# A system call interrupted by a signal and restarted (SA_RESTART) is a
# new entry to the kernel each time: the ptrace route as nobody reports
# exactly what the kernel's tracepoints report as root, no entry twice
# and none lost: 21 read entries, 20 returns of -1 with errno 512
# (ERESTARTSYS) and one of 1 (w_restart.c).
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build restart
prog='
syscall::read:entry /pid == $target && tid != pid && arg2 == 1/ { @e = count(); }
syscall::read:return /pid == $target && tid != pid/ { @r[arg0, errno] = count(); }
END { printa("e %@d\n", @e); printa("r %d %d %@d\n", @r); }'
want='read 1
hits 20
e 21
r -1 512 20
r 1 0 1'
for how in root nobody; do
	if [ $how = root ]; then
		set -- env
	else
		set -- setpriv --reuid=nobody --regid=nogroup --clear-groups
	fi
	out=$(cd / && "$@" $DTRACE -q -c "$W/restart" -n "$prog" 2>&1) ||
	    fail "$how: dtrace failed: $out"
	[ "$(echo "$out" | grep -v '^$' | sort)" = "$(echo "$want" | sort)" ] ||
	    fail "$how: want [$want]: $out"
done
exit 0
