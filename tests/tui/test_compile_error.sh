#!/bin/sh
# test_compile_error.sh - a compile error shows under the prompt as
# <prompt>:line:col with the source line and a caret under that column.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'BEGIN { x = 1 +; }' Enter
wait_for '<prompt>:1:' || exit 1
wait_for '^' || exit 1		# the screen may be caught half drawn
$T capture-pane -p > "$tmp/screen"
line=$(grep -n '^<prompt>:1:' "$tmp/screen" | head -1 | cut -d: -f1)
col=$(sed -n "${line}p" "$tmp/screen" | cut -d: -f3)
src=$(sed -n "$((line + 1))p" "$tmp/screen")
caret=$(sed -n "$((line + 2))p" "$tmp/screen")
echo "column $col; source [$src]; caret [$caret]"
[ "$src" = 'BEGIN { x = 1 +; }' ] || exit 1
pos=$(printf '%s' "$caret" | awk '{ print index($0, "^") }')
[ "$pos" = "$col" ] || { echo "caret at $pos, message says $col"; exit 1; }
# the error names the place where the expression ends: at or after '+'
[ "$col" -ge 15 ] && [ "$col" -le 16 ] || { echo "column $col"; exit 1; }
# the prompt is still alive: a good clause runs
$T send-keys 'BEGIN { trace("after-error"); }' Enter
wait_for 'after-error' || exit 1
exit 0
