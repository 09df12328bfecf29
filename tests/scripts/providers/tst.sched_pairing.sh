# on-cpu and off-cpu pair up for a thread that sleeps 30 times.
. ./lib.sh
need_root
build sleeps
out=$($DTRACE -q -c "$W/sleeps" -n '
sched:::off-cpu /pid == $target/ { @off = count(); }
sched:::on-cpu /pid == $target/ { @on = count(); }
END { printa("%@d ", @on); printa("%@d\n", @off); }') ||
    fail "dtrace failed: $out"
set -- $out
[ "$1" -ge 30 ] && [ "$2" -ge 30 ] || fail "too few: on $1 off $2"
d=$(($1 - $2))
[ $d -ge -1 ] && [ $d -le 1 ] || fail "unpaired: on $1 off $2"
