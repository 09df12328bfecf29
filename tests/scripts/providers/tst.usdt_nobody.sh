# Without privileges (as nobody, on a process of its own): usdt probes are
# listed from the notes, and fire through the ptrace route's breakpoints
# with their semaphore raised: python's gc-start exactly once per
# gc.collect(2), with the generation read from its stack operand
# (-4@112(%rsp)) as arg0.  A process of another user is refused.
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
cat > "$W/gc.py" <<'PY'
import gc, os, sys, time
gc.disable()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
for i in range(int(sys.argv[2])):
    gc.collect(2)
PY
chmod 644 "$W/gc.py"
chmod 777 "$W"
# run N: gc-start firings with arg0 == 2 in a run traced by nobody
run() {
	rm -f "$W/go"
	setpriv --reuid=nobody --regid=nogroup --clear-groups $PY "$W/gc.py" \
	    "$W/go" "$1" &
	pid=$!
	wait_maps $pid python3
	got=$(as_nobody timeout 60 $DTRACE -q -w -p $pid -n '
python$target:::gc-start /arg0 == 2/ { @ = count(); }
BEGIN { system("touch '"$W/go"'"); }
END { printa("%@d\n", @); }' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { kill $pid; fail "dtrace failed ($rc): $got"; }
	wait $pid || fail "python failed under the breakpoints"
	echo "$got" | grep -v '^$' | tail -n 1
}
rm -f "$W/go"
setpriv --reuid=nobody --regid=nogroup --clear-groups $PY "$W/gc.py" "$W/go" 0 &
pid=$!
wait_maps $pid python3
list=$(as_nobody $DTRACE -l -n "python$pid:::gc-start" 2>&1)
touch "$W/go"
wait $pid
echo "$list" | grep -q "python$pid .*gc-start" || fail "not listed: $list"
base=$(run 0)
[ -n "$base" ] || base=0
n=$(run 30)
[ "$n" = $((base + 30)) ] || fail "gc-start: $n with 30 collections, $base without"
# root's process: nobody may not trace it
rm -f "$W/go"
$PY "$W/gc.py" "$W/go" 0 &
pid=$!
wait_maps $pid python3
msg=$(as_nobody timeout 30 $DTRACE -q -p $pid -n 'python$target:::gc-start' 2>&1)
rc=$?
touch "$W/go"
wait $pid
[ $rc -ne 0 ] || fail "root's process traced by nobody: $msg"
exit 0
