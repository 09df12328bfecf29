#!/bin/sh
# test_enablings.sh - the enablings pane counts what each clause's ECBs
# did against a known number of firings: of two clauses on tick-20ms, the
# first is true 7 times (i < 7) and the second exits when i reaches 7,
# so both run exactly 7 times and their predicates are false 0 and 6
# times.  The same rows, with their predicates, show live, after 'd'
# disables the enabling ("off"), and in dtui -r of the session recorded
# by dtrace, at the end of its replay (the predicates and where they ran
# as recorded).  Then where clauses run (kernel, filter, shim), live and
# in the replay of a recording of the same clauses, and no rows for the
# old ECBs of an enabling enabled again.  Each dtui
# started is killed by its PID at the end.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
DTRACE=$top/$B/dtrace
cat > "$tmp/t.d" <<'EOD'
int i;
tick-20ms /i < 7/ { i++; printf("fired %d\n", i); }
tick-20ms /i == 7/ { exit(0); }
EOD
pids=
stop_dtui() {
	for p in $pids; do kill "$p" 2>/dev/null; done
}
trap 'stop_dtui; $T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT

# start ARGS...: dtui in a new tmux window (the first in a new session),
# shown from then on; the dtui of the window before is killed by its PID,
# and this one's PID is remembered.
start() {
	rm -f "$tmp/pid"
	cmd="echo \$\$ > $tmp/pid; XDG_DATA_HOME=$tmp exec $DTUI $*"
	if [ -z "$pids" ]; then
		$T new-session -d -x 120 -y 30 "$cmd" || exit 1
	else
		$T new-window "$cmd" || exit 1
	fi
	wait_until '[ -s "$tmp/pid" ]' 10 || exit 1
	stop_dtui
	pids=$(cat "$tmp/pid")
}

# rows: the pane's clause rows as "state predicate where runs pred-f
# drops errors" (a replay's rows have no enabling: "-").
rows() {
	$T capture-pane -p | awk '/tick-20ms/ && NF >= 9 {
	    p = ""; if (match($0, /\/[^\/]*\//)) p = substr($0, RSTART, RLENGTH)
	    print ($1 == "-" ? "-" : $2), p, $(NF-7), $(NF-5), $(NF-2),
	    $(NF-1), $NF }'
}

# expect_rows STATE WHERE [PRED1 PRED2]: both clauses as counted, in
# clause order.
expect_rows() {
	want="$1 $3 $2 7 0 0 0
$1 $4 $2 7 6 0 0"
	wait_until '[ "$(rows)" = "$want" ]' 20 || {
		echo "rows: $(rows)"; echo "want: $want"; exit 1; }
}

start -s "$tmp/t.d"
wait_for 'tracing stopped' 20 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
expect_rows on shim '/i < 7/' '/i == 7/'
# what a run costs: both clauses' first runs were timed, so each row has
# a mean number of ns (the clock's cost taken off: it may round to 0)
nsrun() {
	$T capture-pane -p | awk '/tick-20ms/ && NF >= 10 { print $(NF-3) }'
}
[ "$(nsrun | grep -cE '^[0-9]+$')" = 2 ] || {
	echo "ns/run: $(nsrun)"; $T capture-pane -p; exit 1; }
$T send-keys d
wait_for 'enabling 1 disabled' 10 || exit 1
expect_rows off shim '/i < 7/' '/i == 7/'

"$DTRACE" -q -x record="$tmp/t.er" -s "$tmp/t.d" > "$tmp/live" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/live")"; exit 1; }
start -r "$tmp/t.er"
wait_for 'replaying' 10 || exit 1
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
expect_rows - shim '/i < 7/' '/i == 7/'

# Where clauses run, live: a predicate on pid is checked by BPF in the
# kernel ("filter"), a count() behind it is made there ("kernel"), a
# clause on a profile probe runs in the shim.  After :disable and
# :enable, the re-enabled clause's old ECBs (left disabled in the shim)
# are not listed: three rows, all on.
start -n "'syscall::getppid:entry /pid == 1/ { @ = count(); }'" \
    -n "'syscall::getpid:entry /pid == 1/ { x++; }'" -n "'tick-20ms { n++; }'"
wait_for 'dtui tracing' 20 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
where() {
	$T capture-pane -p | awk '/ on  / && NF >= 11 { print $3, $(NF-7) }'
}
want3="syscall::getppid:entry kernel
syscall::getpid:entry filter
profile:::tick-20ms shim"
wait_until '[ "$(where)" = "$want3" ]' 20 || {
	echo "where: $(where)"; echo "want: $want3"; exit 1; }
$T send-keys ':disable 3' Enter
wait_for 'enabling 3 disabled' 10 || exit 1
$T send-keys ':enable 3' Enter
wait_for 'enabling 3 enabled again' 10 || exit 1
# the new tick-20ms clause runs (its count starts again from 0)
wait_until '$T capture-pane -p | grep -q "^  3 on  profile:::tick-20ms .* [1-9][0-9]* *[0-9]* *[0-9]* *0 *0 *0\$"' 20 || exit 1
wait_until '[ "$(where)" = "$want3" ]' 20 || {
	echo "where: $(where)"; echo "want: $want3"; exit 1; }
if $T capture-pane -p | grep -q '^  - '; then
	echo "old ECBs listed:"; $T capture-pane -p; exit 1
fi

# The same three places in the replay of a recording by dtrace: the
# "where" column and the predicates as they were (the tick clause ends
# the session after 5 ticks).
"$DTRACE" -q -x record="$tmp/w.er" \
    -n 'syscall::getppid:entry /pid == 1/ { @ = count(); }' \
    -n 'syscall::getpid:entry /pid == 1/ { x++; }' \
    -n 'tick-20ms /++n == 5/ { exit(0); }' > "$tmp/wlive" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/wlive")"; exit 1; }
start -r "$tmp/w.er"
wait_for 'replaying' 10 || exit 1
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
rwhere() {
	$T capture-pane -p | awk '/^  - / && NF >= 10 { p = ""
	    if (match($0, /\/[^\/]*\//)) p = substr($0, RSTART, RLENGTH)
	    print $2, p, $(NF-7), ($2 ~ /^profile/ ? $(NF-3) : "") }'
}
# ns/run: the tick clause's runs were timed (the first of them at
# least; the syscall clauses run only if pid 1 happened to call)
wantr="syscall::getppid:entry /pid == 1/ kernel 
syscall::getpid:entry /pid == 1/ filter 
profile:::tick-20ms /++n == 5/ shim NS"
wait_until '[ "$(rwhere | sed "3s/ [0-9][0-9]*\$/ NS/")" = "$wantr" ]' 20 || {
	echo "replay where: $(rwhere)"; echo "want: $wantr"; exit 1; }
exit 0
