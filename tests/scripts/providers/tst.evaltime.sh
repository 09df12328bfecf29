# -x evaltime: where tracing of a -c command starts, as root (the kernel
# route: dtrace holds the command itself) and as nobody (the ptrace
# route's helper holds it).  exec: from its exec, the dynamic linker's
# openat of libc.so.6 and the initializer seen; preinit: the libraries
# loaded (their openat not seen), no initializer run yet (seen);
# postinit (the default) and main: at main, neither seen; main's own
# call always seen, and the program's output unchanged.  A bad value is
# refused with dtrace's message.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
build evaltime
prog='
syscall::openat:entry /pid == $target/ { @o[basename(copyinstr(arg1))] = count(); }
pid$target:a.out:ev_ctor:entry { printf("saw ctor\n"); }
pid$target:a.out:ev_main:entry { printf("saw main\n"); }
END { printa("open %s %@d\n", @o); }'
for how in root nobody; do
	if [ $how = root ]; then
		set -- env
	else
		set -- setpriv --reuid=nobody --regid=nogroup --clear-groups
	fi
	for ev in default exec preinit postinit main; do
		x=
		[ $ev = default ] || x="-x evaltime=$ev"
		out=$(cd / && "$@" timeout 60 $DTRACE -q $x -c "$W/evaltime" \
		    -n "$prog" 2>&1) || fail "$how $ev: dtrace failed: $out"
		echo "$out" | grep -qx 'ctor 1 main 1' || fail "$how $ev: program: $out"
		echo "$out" | grep -qx 'saw main' || fail "$how $ev: no main: $out"
		lib=0 ctor=0
		echo "$out" | grep -qx 'open libc.so.6 1' && lib=1
		echo "$out" | grep -qx 'saw ctor' && ctor=1
		case $ev in
		exec) want="1 1" ;;
		preinit) want="0 1" ;;
		*) want="0 0" ;;
		esac
		[ "$lib $ctor" = "$want" ] ||
		    fail "$how $ev: libc open, initializer seen: want $want, got $lib $ctor: $out"
	done
done
out=$($DTRACE -q -x evaltime=later -c "$W/evaltime" -n 'BEGIN { exit(0); }' 2>&1) &&
    fail "evaltime=later accepted: $out"
echo "$out" | grep -q 'Invalid value for specified option' ||
    fail "evaltime=later: $out"
exit 0
