#!/bin/sh
# test_enablings.sh - the enablings pane counts what each clause's ECBs
# did against a known number of firings: of two clauses on tick-20ms, the
# first is true 7 times (i < 7) and the second exits when i reaches 7,
# so both run exactly 7 times and their predicates are false 0 and 6
# times.  The same rows show live, after 'd' disables the enabling
# ("off"), and in dtui -r of the session recorded by dtrace, at the end
# of its replay.  Each dtui started is killed by its PID at the end.
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

# rows: the pane's clause rows as "state runs pred-f drops errors" (a
# replay's rows have no enabling: "-").
rows() {
	$T capture-pane -p | awk '/tick-20ms/ && NF >= 8 {
	    print ($1 == "-" ? "-" : $2), $(NF-4), $(NF-2), $(NF-1), $NF }'
}

# expect_rows STATE: both clauses as counted, in clause order.
expect_rows() {
	want="$1 7 0 0 0
$1 7 6 0 0"
	wait_until '[ "$(rows)" = "$want" ]' 20 || {
		echo "rows: $(rows)"; echo "want: $want"; exit 1; }
}

start -s "$tmp/t.d"
wait_for 'tracing stopped' 20 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
expect_rows on
$T send-keys d
wait_for 'enabling 1 disabled' 10 || exit 1
expect_rows off

"$DTRACE" -q -x record="$tmp/t.er" -s "$tmp/t.d" > "$tmp/live" 2>&1 ||
    { echo "recording failed: $(cat "$tmp/live")"; exit 1; }
start -r "$tmp/t.er"
wait_for 'replaying' 10 || exit 1
$T send-keys ':jump 100' Enter
wait_for 'replay ended' 10 || exit 1
$T send-keys Escape
$T send-keys 6
wait_for 'Enablings]' 10 || exit 1
expect_rows -
exit 0
