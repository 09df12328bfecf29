# tests/tui/lib.sh - what every TUI test shares; sourced after the test's
# header comment.  Sets top, B, DTUI, T (tmux on a private socket with no
# user configuration), tmp (a scratch directory, removed at exit with the
# tmux server), and defines wait_for, wait_until and nobody_setup.  Tests exit 0 pass, 77 skip (reason
# on the first line of stdout), anything else fail.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
DTUI=${DTUI:-$top/$B/dtui}
S=dtui-test-$$
T="tmux -L $S -f /dev/null"
sock=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S	# kill-server leaves it behind
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 77; }
"$DTUI" -V 2>/dev/null | grep -q dtui || { echo "$DTUI does not run"; exit 1; }

# wait_for TEXT [seconds]: poll the pane until TEXT shows; on time-out
# print the pane and fail.  The deadline (default 30 s) only bounds a
# failure: a loaded machine may take seconds to draw what is asserted.
wait_for() {
	n=$(( ${2:-30} * 10 ))
	while [ $n -gt 0 ]; do
		$T capture-pane -p | grep -qF -- "$1" && return 0
		sleep 0.1; n=$((n - 1))
	done
	# the runner shows the last lines: the reason goes after the pane too
	echo "timed out waiting for: $1"; $T capture-pane -p
	echo "(timed out waiting for: $1)"; return 1
}

# wait_until COMMAND [seconds]: poll until the shell COMMAND succeeds
# (default 30 s); on time-out print the pane and fail.
wait_until() {
	n=$(( ${2:-30} * 10 ))
	while [ $n -gt 0 ]; do
		eval "$1" && return 0
		sleep 0.1; n=$((n - 1))
	done
	echo "timed out waiting until: $1"; $T capture-pane -p
	echo "(timed out waiting until: $1)"; return 1
}

tmp=$(mktemp -d)
trap '$T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT

# nobody_setup WORKLOAD: for a test of dtui run as nobody: skip unless
# root with setpriv and cc; build tests/scripts/providers/w_WORKLOAD.c
# into $tmp/WORKLOAD; make $tmp readable and $tmp/home (dtui's
# XDG_DATA_HOME) writable by nobody; set NOBODY_DTUI to the command that
# runs dtui as nobody with that home (to run from /, in a script tmux
# starts).
nobody_setup() {
	[ "$(id -u)" = 0 ] || { echo "needs root to run dtui as nobody"; exit 77; }
	command -v setpriv > /dev/null || { echo "no setpriv"; exit 77; }
	command -v cc > /dev/null || { echo "no C compiler for the workload"; exit 77; }
	chmod 755 "$tmp"
	mkdir -m 777 "$tmp/home"
	cc -O1 -o "$tmp/$1" "$top/tests/scripts/providers/w_$1.c" || exit 1
	NOBODY_DTUI="XDG_DATA_HOME=$tmp/home setpriv --reuid=nobody \
    --regid=nogroup --clear-groups $DTUI"
}
