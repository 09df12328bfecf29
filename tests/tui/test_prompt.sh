#!/bin/sh
# test_prompt.sh - the prompt: Tab completes probe fields and actions, a
# multi-line clause runs when its braces balance, :list numbers it, and
# history survives a restart (Up recalls the clause).
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI; sleep 30" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'dtra' Tab
wait_for 'dtui> dtrace:' || exit 1
$T send-keys ':' Tab
wait_for 'dtui> dtrace::' || exit 1
$T send-keys C-u 'BEGIN { tra' Tab
wait_for 'dtui> BEGIN { trace' || exit 1
# globs and dashes stay in the word: the name field completes
$T send-keys C-u 'syscall::*read*:' Tab Tab
wait_for 'syscall::*read*:entry  syscall::*read*:return' || exit 1
$T send-keys C-u 'profile:::tick-1' Tab Tab
wait_for 'profile:::tick-1  profile:::tick-10 ' || exit 1
$T send-keys C-u 'BEGIN' Enter '{' Enter
wait_for '...>' || exit 1
$T send-keys -l 'printf("multi-%s\n", "line")\;'
$T send-keys Enter '}' Enter
wait_for 'enabling 1: 1 probe' || exit 1
$T send-keys Escape 1
wait_for 'multi-line' || exit 1
# Esc abandons a clause being continued, the line being typed with it
$T send-keys ':'
$T send-keys BSpace 'tick-1s' Enter '{' Enter 'trace(1)'
wait_for '...> trace(1)' || exit 1
$T send-keys Escape
wait_until "$T capture-pane -p | grep -q '^dtui> *\$'" || exit 1
$T capture-pane -p | grep -q 'trace(1)' && { echo "line kept"; exit 1; }
$T send-keys ':list' Enter
wait_for '1 on  1 probes: BEGIN' || exit 1
$T send-keys ':quit' Enter
wait_until "grep -q '^:quit\$' '$tmp/dtui/history' 2> /dev/null" ||
	{ echo "history file:"; cat "$tmp/dtui/history"; exit 1; }
grep -q '^BEGIN { printf("multi-%s\\n", "line"); }$' "$tmp/dtui/history" ||
	{ echo "history file:"; cat "$tmp/dtui/history"; exit 1; }
$T kill-server; sleep 0.2
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys Up Up Up		# :quit, :list, then the clause
wait_for 'dtui> BEGIN { printf(' || exit 1
exit 0
