#!/bin/sh
# bench/soak/run.sh - the soak: dtrace and a dtui (in tmux, refreshing at
# 10 Hz) trace a workload of about RATE events a second for MINUTES
# (default 5; the long run is MINUTES=60) through printf, aggregations
# whose keys churn (a new string key per event, new pids every 1000
# events, trunc() every 10 s), and speculations committed or discarded.
# Every minute it samples both programs' RSS and open descriptors; at the
# end it checks that every event was counted or reported as a drop.
#   sudo sh bench/soak/run.sh            (needs root: syscall probes)
#   MINUTES=60 RATE=100000 sh bench/soak/run.sh
# Prints one line per sample and a summary; exit 1 if RSS grew more than
# 5% after the first sample past warm-up (2 minutes, or 1 for short runs),
# descriptors grew, or events went missing without a drop report.
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
MINUTES=${MINUTES:-5}
RATE=${RATE:-100000}
[ "$(id -u)" = 0 ] || { echo "soak: needs root (syscall probes)"; exit 77; }
command -v cc > /dev/null || { echo "soak: needs cc"; exit 77; }
[ -x "$B/dtrace" ] && [ -x "$B/dtui" ] || { echo "soak: build first (make)"; exit 1; }
d=$(mktemp -d)
S=dtui-soak-$$
T="tmux -L $S -f /dev/null"
cleanup() {
	[ -n "${wpid:-}" ] && kill "$wpid" 2> /dev/null
	[ -n "${dpid:-}" ] && kill "$dpid" 2> /dev/null
	$T kill-server 2> /dev/null
	rm -rf "$d"
}
trap cleanup EXIT
cc -O2 -o "$d/soakload" bench/soak/w_soak.c || exit 1
secs=$((MINUTES * 60))
cat > "$d/soak.d" <<'D'
#pragma D option quiet
#pragma D option bufsize=16m
#pragma D option switchrate=20hz
#pragma D option nspec=16
#pragma D option specsize=1m
#pragma D option dynvarsize=16m
#pragma D option aggsize=16m
syscall::lseek:entry /pid == $target || ppid == $target/
{
	@events = count();
	@bypid[pid] = count();
	@keys[lltostr(arg1)] = count();
}
syscall::lseek:entry /(pid == $target || ppid == $target) && arg1 % 100 == 0/
{
	printf("%d %d %s\n", pid, arg1, execname);
}
syscall::lseek:entry /pid == $target && arg1 % 50 == 0/
{
	self->spec = speculation();
}
syscall::lseek:entry /self->spec/
{
	speculate(self->spec);
	printf("speculative %d\n", arg1);
}
syscall::lseek:entry /self->spec && arg1 % 100 == 0/
{
	commit(self->spec);
	self->spec = 0;
}
syscall::lseek:entry /self->spec/
{
	discard(self->spec);
	self->spec = 0;
}
tick-10s
{
	trunc(@keys, 1000);
	trunc(@bypid, 100);
}
END
{
	printa("events %@d\n", @events);
}
D
"$B/dtrace" -s "$d/soak.d" -o "$d/out" -c "$d/soakload $RATE $secs" \
    > "$d/stdout" 2> "$d/err" &
dpid=$!
# the dtui: the same events counted per pid and by key, refreshed at 10 Hz
$T new-session -d -x 120 -y 40 "$B/dtui -x aggrate=10hz -x switchrate=10hz \
    -n 'syscall::lseek:entry /execname == \"soakload\"/ { @[pid] = count(); @k[arg1 % 997] = sum(1); }'" ||
    exit 1
# the pane's process is dtui, or the sh -c that runs it
upid=$($T list-panes -F '#{pane_pid}' 2> /dev/null | head -1)
if [ -n "$upid" ] && [ "$(cat "/proc/$upid/comm" 2> /dev/null)" != dtui ]; then
	n=50
	while [ $n -gt 0 ] && [ -z "$(pgrep -P "$upid" dtui)" ]; do
		sleep 0.1; n=$((n - 1))
	done
	upid=$(pgrep -P "$upid" dtui | head -1)
fi
sample() {	# sample MINUTE: one line of figures for both programs
	drss=$(awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status" 2> /dev/null)
	dfd=$(ls "/proc/$dpid/fd" 2> /dev/null | wc -l)
	ursd=""; ufd=""
	if [ -n "$upid" ]; then
		ursd=$(awk '/^VmRSS/ { print $2 }' "/proc/$upid/status" 2> /dev/null)
		ufd=$(ls "/proc/$upid/fd" 2> /dev/null | wc -l)
	fi
	echo "minute $1: dtrace rss ${drss:-?} kB fds $dfd; dtui rss ${ursd:-?} kB fds ${ufd:-?}"
	echo "$1 ${drss:-0} $dfd ${ursd:-0} ${ufd:-0}" >> "$d/samples"
}
m=0
while [ $m -lt "$MINUTES" ] && kill -0 "$dpid" 2> /dev/null; do
	n=60
	while [ $n -gt 0 ] && kill -0 "$dpid" 2> /dev/null; do
		sleep 1; n=$((n - 1))
	done
	m=$((m + 1))
	kill -0 "$dpid" 2> /dev/null && sample $m
done
wait "$dpid"
rc=$?
dpid=""
$T capture-pane -p > "$d/pane" 2> /dev/null
calls=$(sed -n 's/^calls //p' "$d/stdout" "$d/out" | head -1)
events=$(sed -n 's/^events //p' "$d/out" | head -1)
drops=$(sed -n 's/^dtrace: \([0-9]*\) drops* on CPU.*/\1/p' "$d/err" |
    awk '{ s += $1 } END { print s + 0 }')
aggdrops=$(sed -n 's/^dtrace: \([0-9]*\) aggregation drops* on CPU.*/\1/p' "$d/err" |
    awk '{ s += $1 } END { print s + 0 }')
specdrops=$(grep -c 'speculative drop\|failed speculation' "$d/err")
lines=$(wc -l < "$d/out")
echo "dtrace exit $rc; workload calls ${calls:-?}; counted ${events:-?}; drops $drops; aggregation drops $aggdrops; speculation drop reports $specdrops; output lines $lines"
grep -v 'drops* on CPU\|speculative drop\|failed speculation' "$d/err" | head -5
bad=0
[ "$rc" = 0 ] || bad=1
if [ -n "$calls" ] && [ -n "$events" ]; then
	missing=$((calls - events))
	# @events has one key, so it is never an aggregation drop: what it
	# did not count must be records lost in the rings ("drops on CPU")
	echo "events missing: $missing (principal drops reported: $drops)"
	[ "$missing" -le "$drops" ] || { echo "FAIL: events lost without a drop report"; bad=1; }
else
	echo "FAIL: no counts"; bad=1
fi
warm=2; [ "$MINUTES" -le 5 ] && warm=1
awk -v warm="$warm" '
$1 == warm + 0 { r0 = $2; f0 = $3; u0 = $4; g0 = $5 }
$1 > warm + 0 && r0 > 0 {
	if ($2 > r0 * 1.05) { printf "FAIL: dtrace rss %d kB at minute %d, %d kB at minute %d\n", $2, $1, r0, warm; bad = 1 }
	if ($3 > f0) { printf "FAIL: dtrace fds %d at minute %d, %d at minute %d\n", $3, $1, f0, warm; bad = 1 }
	if (u0 > 0 && $4 > u0 * 1.05) { printf "FAIL: dtui rss %d kB at minute %d, %d kB at minute %d\n", $4, $1, u0, warm; bad = 1 }
	if (g0 > 0 && $5 > g0) { printf "FAIL: dtui fds %d at minute %d, %d at minute %d\n", $5, $1, g0, warm; bad = 1 }
}
END { exit bad }' "$d/samples" 2> /dev/null || bad=1
[ $bad = 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $bad
