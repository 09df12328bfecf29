# Out of file descriptors mid-session (issue #14): dtrace -Z is tracing a
# usdt provider glob when its descriptor limit drops to the ones it holds
# (prlimit, as `ulimit -n` small would for a new process, but exactly at
# the point where tracing runs).  A program with that provider started
# then cannot be looked at: dtrace says why ("Too many open files", and
# how many processes it cost) instead of losing it silently, and keeps
# tracing; with the limit back, the next such program is traced in full
# (nothing about its object was cached from the failure).  dtrace ends
# cleanly on SIGINT, status 0.  The programs run under a name of this
# run's (another run of the test starts the same provider).
. ./lib.sh
need_root
command -v prlimit > /dev/null || { echo "no prlimit (util-linux)"; exit 77; }
build_usdtprov
me=ue$$
cp "$W/usdtprov" "$W/$me"
rm -f "$W/ready"
timeout 120 $DTRACE -q -w -Z -n '
BEGIN { system("touch '"$W/ready"'"); }
dtuitest*:::tick /execname == "'$me'"/ { @[pid] = count(); }
END { printa("tick %d %@d\n", @); }' > "$W/out" 2> "$W/err" &
dt=$!
i=0
while [ ! -f "$W/ready" ]; do
	kill -0 $dt 2> /dev/null || fail "dtrace ended early: $(cat "$W/err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "dtrace never started tracing"
	sleep 0.01
done
# timeout runs dtrace as its child
dpid=$(pgrep -P $dt -x dtrace) || dpid=$dt
soft=$(prlimit --pid "$dpid" --nofile --noheadings --output SOFT)
hard=$(prlimit --pid "$dpid" --nofile --noheadings --output HARD)
low=0
while [ -e "/proc/$dpid/fd/$low" ]; do low=$((low + 1)); done
prlimit --pid "$dpid" --nofile="$low:$hard" || fail "prlimit failed"
first=$("$W/$me" 50)	# does not wait: not looked at, not traced
i=0
until grep -q 'Too many open files' "$W/err"; do
	kill -0 $dt 2> /dev/null || fail "dtrace ended: $(cat "$W/err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "no message about the descriptors: $(cat "$W/err")"
	sleep 0.01
done
prlimit --pid "$dpid" --nofile="$soft:$hard" || fail "prlimit failed"
out=$(timeout 30 "$W/$me" 50 wait) || fail "the next program never saw tick enabled: $out $(cat "$W/err")"
[ "$out" = "enabled 50" ] || fail "workload: $out"
kill -INT $dt
wait $dt || fail "dtrace failed ($?): $(cat "$W/err")"
grep -q '^dtrace: usdt: .*: Too many open files: [0-9]* process' "$W/err" ||
    fail "message: $(cat "$W/err")"
[ "$(grep -c '^tick ' "$W/out")" = 1 ] && grep -q '^tick [0-9]* 50$' "$W/out" ||
    fail "counts: $(cat "$W/out") (first run: $first)"
exit 0
