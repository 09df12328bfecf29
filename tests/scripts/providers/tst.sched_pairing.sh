# on-cpu and off-cpu pair up for a thread that sleeps 30 times.  What
# dtrace said on stderr (drops) goes with a failure's message.
. ./lib.sh
need_root
build sleeps
out=$($DTRACE -q -c "$W/sleeps" -n '
sched:::off-cpu /pid == $target/ { @off = count(); }
sched:::on-cpu /pid == $target/ { @on = count(); }
END { printa("%@d ", @on); printa("%@d\n", @off); }' 2> "$W/err") ||
    fail "dtrace failed: $out $(cat "$W/err")"
set -- $out
[ "$1" -ge 30 ] && [ "$2" -ge 30 ] || fail "too few: on $1 off $2 $(cat "$W/err")"
d=$(($1 - $2))
[ $d -ge -1 ] && [ $d -le 1 ] || fail "unpaired: on $1 off $2 $(cat "$W/err")"
