#!/bin/sh
# test_aggonly.sh - after a clause that only aggregates, dtui shows the
# aggregations pane (its tab selected, the aggregation drawn) while the
# prompt keeps the keyboard.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
$T new-session -d -x 100 -y 30 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
wait_for '[1 Output]' || exit 1
$T send-keys 'profile:::tick-20ms { @ticks[probename] = count(); }' Enter
wait_for '[2 Aggregations]' 10 || exit 1
wait_for 'tick-20ms' 10 || exit 1
$T send-keys 'abc'
wait_for 'dtui> abc' 10 || exit 1
exit 0
