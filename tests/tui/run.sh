#!/bin/sh
# tests/tui/run.sh - end-to-end TUI tests: each tests/tui/test_*.sh drives
# the real dtui in a private tmux server.  Exit 0 pass, 77 skip (first line
# of stdout is the reason), anything else fail.
B=${B:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
DTUI="$top/$B/dtui"
export DTUI B
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/select.sh"
for t in $(find "$top/tests/tui" -name 'test_*.sh' | sort); do
	name=tui/$(basename "$t")
	selected "$name" || continue
	if ! command -v tmux >/dev/null 2>&1; then
		echo "SKIP $name: tmux is not installed"; continue
	fi
	timeout 120 sh "$t" > "$tmp/out" 2>&1
	rc=$?
	case $rc in
	0) echo "PASS $name" ;;
	77) echo "SKIP $name: $(head -n 1 "$tmp/out")" ;;
	*) echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$tmp/out" | tail -n 20 ;;
	esac
done
