#!/bin/sh
# test_theme.sh - switch themes with :theme, refuse a bad theme file with
# file:line and the rule, and start with -t NAME; NO_COLOR is respected.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
printf 'name broken\nbar fg=300\n' > "$tmp/broken"
$T new-session -d -x 80 -y 24 \
    "XDG_DATA_HOME=$tmp DTUI_THEMEDIR=$tmp $DTUI -t light" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys ':theme high-contrast' Enter
wait_for 'theme high-contrast' || exit 1
$T send-keys ':theme broken' Enter
wait_for "$tmp/broken:2: colour must be 0-255" || exit 1
$T send-keys ':theme nosuch' Enter
wait_for 'theme "nosuch" not found' || exit 1
# colours on: the status line carries colour escapes
$T capture-pane -p -e | head -1 | grep -q "$(printf '\033')\[" ||
	{ echo "no colour in the status line"; exit 1; }
$T send-keys ':quit' Enter
sleep 0.5
$T kill-server 2>/dev/null
sleep 0.2
# NO_COLOR: attributes only (reverse status line, no colour numbers)
$T new-session -d -x 80 -y 24 "NO_COLOR=1 XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T capture-pane -p -e | head -1 > "$tmp/st"
grep -q "$(printf '\033')\[[0-9;]*3[0-9]m\|38;5" "$tmp/st" &&
	{ echo "colour despite NO_COLOR"; cat -v "$tmp/st"; exit 1; }
grep -q "$(printf '\033')\[7m\|;7m" "$tmp/st" ||
	{ echo "status not reversed under NO_COLOR"; cat -v "$tmp/st"; exit 1; }
exit 0
