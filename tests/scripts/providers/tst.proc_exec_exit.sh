# Exec and exit of a target's children: three creates, three execs of sh
# (their path read after the exec replaced the image: captured at the
# event), exit statuses 3 4 5 for the children and 9 for the target.
. ./lib.sh
need_root
build forkexec
out=$($DTRACE -q -c "$W/forkexec" -n '
proc:::create /pid == $target/ { @c = count(); }
proc:::exec /ppid == $target/ { printf("path %s\n", copyinstr(arg0)); }
proc:::exec-success /ppid == $target/ { @e[execname] = count(); }
proc:::exit /ppid == $target/ { printf("child %d %d\n", arg0, arg1); }
proc:::exit /pid == $target/ { printf("target %d %d\n", arg0, arg1); }
END { printa("creates %@d\n", @c); printa("exec %s %@d\n", @e); }') ||
    fail "dtrace failed: $out"
want="child 1 3
child 1 4
child 1 5
creates 3
exec sh 3
path /bin/sh
path /bin/sh
path /bin/sh
target 1 9"
# records of different CPUs print in CPU order, as dtrace does: sort
[ "$(echo "$out" | grep -v '^$' | sort)" = "$want" ] || fail "got: $out"
