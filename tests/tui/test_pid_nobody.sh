#!/bin/sh
# test_pid_nobody.sh - dtui as nobody with -c: the target's pid probes
# fire through the ptrace route's breakpoints (w_pidcalls.c: pc_add 1000
# times, counted exactly), and the status line names the route and its
# cost per hit ("user ptrace N.Nus/hit").
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
nobody_setup pidcalls
cat > "$tmp/run" <<EOS
cd / && $NOBODY_DTUI -c '$tmp/pidcalls wait' \
    -n 'pid\$target:a.out:pc_add:entry { @calls = count(); }'
EOS
$T new-session -d -x 120 -y 30 "sh $tmp/run" || exit 1
wait_for 'dtui tracing' 20 || exit 1
wait_for 'user ptrace' 20 || exit 1
$T send-keys Escape 2
wait_for '1000' 20 || exit 1
$T capture-pane -p | grep -Eq 'user ptrace [0-9.]+us/hit' ||
    { echo "no cost per hit:"; $T capture-pane -p; exit 1; }
exit 0
