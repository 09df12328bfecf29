#!/bin/sh
# test_resize.sh - the layout follows the terminal size: status on the
# first row, prompt on the last, at 80x24, larger, and smaller.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
DTUI=${DTUI:-$top/$B/dtui}
S=dtui-test-$$
T="tmux -L $S -f /dev/null"
sock=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S	# kill-server leaves it behind
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
"$DTUI" -V 2>/dev/null | grep -q dtui || { echo "dtui is not built"; exit 77; }
"$top/$B/dtrace" -n 'BEGIN { trace(1); exit(0) }' 2>/dev/null | grep -q 1 ||
	{ echo "the engine does not run BEGIN yet"; exit 77; }
wait_for() {
	n=$(( ${2:-5} * 10 ))
	while [ $n -gt 0 ]; do
		$T capture-pane -p | grep -qF -- "$1" && return 0
		sleep 0.1; n=$((n - 1))
	done
	echo "timed out waiting for: $1"; $T capture-pane -p; return 1
}
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
tmp=$(mktemp -d); trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
check() {	# check COLS ROWS: status first, prompt last, width fits
	$T resize-window -x "$1" -y "$2" 2>/dev/null ||
		$T resize-pane -x "$1" -y "$2"
	sleep 0.5
	$T capture-pane -p > "$tmp/s"
	rows=$(wc -l < "$tmp/s")
	head -1 "$tmp/s" | grep -q '^ dtui idle' || { cat "$tmp/s"; return 1; }
	last=$(grep -v '^ *$' "$tmp/s" | tail -1)
	[ "$(grep -n 'dtui>' "$tmp/s" | cut -d: -f1)" = "$2" ] ||
		{ echo "prompt not on row $2 ($rows rows)"; cat "$tmp/s"; return 1; }
	echo "ok at $1x$2: last row [$last]"
}
check 80 24 || exit 1
check 120 40 || exit 1
check 60 16 || exit 1
check 80 24 || exit 1
exit 0
