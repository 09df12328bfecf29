# Without privileges (as nobody, on a process of its own): usdt probes are
# listed from the notes, and enabling one is refused with the reason
# (uprobes need root or CAP_PERFMON), not "does not match any probes".
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv to run as nobody"; exit 77; }
PY=""
for p in /usr/bin/python3 /usr/bin/python3.11; do
	[ -x "$p" ] && readelf -n "$(readlink -f "$p")" 2>/dev/null | grep -q 'Name: gc__start' &&
	    { PY=$p; break; }
done
[ -n "$PY" ] || { echo "no python3 with a gc__start stapsdt note here"; exit 77; }
as_nobody() {
	(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@")
}
setpriv --reuid=nobody --regid=nogroup --clear-groups $PY -c 'import time
while True:
    time.sleep(1)' &
pid=$!
wait_maps $pid python3
list=$(as_nobody $DTRACE -l -n "python$pid:::gc-start" 2>&1)
echo "$list" | grep -q "python$pid .*gc-start" || { kill $pid; fail "not listed: $list"; }
msg=$(as_nobody timeout 30 $DTRACE -q -p $pid -n 'python$target:::gc-start { exit(0); }' 2>&1)
rc=$?
kill $pid
[ $rc -eq 1 ] || fail "exit $rc: $msg"
echo "$msg" | grep -q "usdt probes need root or CAP_PERFMON" || fail "message: $msg"
exit 0
