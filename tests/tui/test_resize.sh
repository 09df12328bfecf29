#!/bin/sh
# test_resize.sh - the layout follows the terminal size: status on the
# first row, prompt on the last, at 80x24, larger, and smaller.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
# fits COLS ROWS: status on the first row, prompt on row ROWS (now)
fits() {
	$T capture-pane -p > "$tmp/s"
	head -1 "$tmp/s" | grep -q '^ dtui idle' &&
	    [ "$(grep -n 'dtui>' "$tmp/s" | cut -d: -f1)" = "$2" ]
}
check() {	# check COLS ROWS: status first, prompt last, width fits
	$T resize-window -x "$1" -y "$2" 2>/dev/null ||
		$T resize-pane -x "$1" -y "$2"
	wait_until "fits $1 $2" || { echo "not redrawn for $1x$2"; return 1; }
	last=$(grep -v '^ *$' "$tmp/s" | tail -1)
	echo "ok at $1x$2: last row [$last]"
}
check 80 24 || exit 1
check 120 40 || exit 1
check 60 16 || exit 1
check 80 24 || exit 1
exit 0
