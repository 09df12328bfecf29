#!/bin/sh
# test_browser.sh - filter the probe browser as you type, select a probe
# and insert a clause template at the prompt with Enter.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
$T new-session -d -x 80 -y 24 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys 'BEGIN { trace( }' Enter	# an error the template replaces
wait_for 'D_SYNTAX' || exit 1
$T send-keys Escape 4
wait_for 'filter:' || exit 1
wait_for '+ dtrace (' || exit 1
$T send-keys / B E G
wait_for 'filter: BEG_' || exit 1
wait_for '- dtrace (1)' || exit 1
wait_for 'BEGIN' || exit 1
$T capture-pane -p | grep -q 'END' && { echo "END not filtered out"; exit 1; }
$T send-keys Enter End Enter
wait_for 'dtui> dtrace:::BEGIN { }' || exit 1
$T capture-pane -p | grep -q 'D_SYNTAX' && { echo "stale error"; exit 1; }
# the cursor sits inside the braces: type an action and run it
$T send-keys 'trace("hello-from-browser")\;'	# tmux: \; is a literal ;
$T send-keys Enter
wait_for 'enabling 1: 1 probe' || exit 1
$T send-keys Escape 1
wait_for 'hello-from-browser' || exit 1
# globs on the function and name fields; / starts a new filter
$T send-keys 4 /
$T send-keys -l 'syscall::*read*:ent*'
wait_for 'filter: syscall::*read*:ent*_' || exit 1
wait_for '- pread64 (1)' || exit 1
$T capture-pane -p | grep -q 'return' && { echo "return not filtered out"; exit 1; }
$T capture-pane -p | grep -q 'BEGIN' && { echo "old filter kept"; exit 1; }
exit 0
