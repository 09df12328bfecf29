#!/bin/sh
# test_usdt_browser.sh - the probe browser lists the usdt probes of every
# running process, made or not (a process started before dtui, with a
# library that has dtuibrowse:::tick: w_usdtlib.c; not dtuilib, which
# tst.usdt_dlopen.sh enables by a glob), Enter puts one in a
# clause, and the enabling counts its 5 firings exactly; the status line
# then shows the user probes' route and cost per hit.
# Exit 0 pass, 77 skip (reason on the first line), else fail.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root for uprobes"; exit 77; }
command -v cc > /dev/null || { echo "no C compiler for the workload"; exit 77; }
[ -f /usr/include/sys/sdt.h ] || [ -f /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
    { echo "no <sys/sdt.h> (systemtap-sdt-dev) to build the workload"; exit 77; }
src=$top/tests/scripts/providers
cc -O1 -DUL_PROV=dtuibrowse -shared -fPIC -o "$tmp/libusdtlib.so" \
    "$src/w_usdtlib.c" &&
    cc -O1 -DLINKED -o "$tmp/usdtdl_linked" "$src/w_usdtdl.c" -L"$tmp" \
    -lusdtlib -Wl,-rpath,"$tmp" || exit 1
# waits (up to 20 s) for its probe to be enabled, then fires it 5 times
"$tmp/usdtdl_linked" 5 linked > "$tmp/wl.out" 2>&1 &
wl=$!
trap 'kill $wl 2>/dev/null; $T kill-server 2>/dev/null; rm -rf "$tmp" "$sock"' EXIT
wait_until "grep -q libusdtlib /proc/$wl/maps" || exit 1
$T new-session -d -x 100 -y 30 "XDG_DATA_HOME=$tmp $DTUI" || exit 1
wait_for 'dtui>' || exit 1
$T send-keys Escape 4
wait_for 'filter:' || exit 1
$T send-keys / d t u i b r o w s e
wait_for 'filter: dtuibrowse_' || exit 1
wait_for "dtuibrowse$wl (1)" 10 || exit 1
wait_for 'ul_run (1)' || exit 1
$T send-keys Enter End Enter
wait_for "dtui> dtuibrowse$wl:libusdtlib.so:ul_run:tick { }" || exit 1
$T send-keys '@n = count()\;' Enter	# tmux: \; is a literal ;
wait_for 'enabling 1: 1 probe' || exit 1
wait_until "grep -qx 'enabled 5' $tmp/wl.out" 20 || exit 1
$T send-keys Escape 2
wait_for '@n' || exit 1
wait_until "$T capture-pane -p | grep -Eq '^ +5 *\$'" 10 || exit 1
wait_for 'user uprobe_multi' 10 || wait_for 'user perf' 1 || exit 1
exit 0
