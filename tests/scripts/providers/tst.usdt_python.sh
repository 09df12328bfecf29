# python3's usdt probes: gc-start fires once per gc.collect(2) with the
# generation (a -4@112(%rsp) operand: read from the stack sampled at the
# hit) as arg0, only while its semaphore is up.  A run with no collection
# of its own gives the baseline (the interpreter collects at exit); a run
# with N collections must count exactly N more.  Also listed by a glob on
# the provider (python*).
. ./lib.sh
need_root
PY=""
for p in /usr/bin/python3 /usr/bin/python3.11; do
	[ -x "$p" ] && readelf -n "$(readlink -f "$p")" 2>/dev/null | grep -q 'Name: gc__start' &&
	    { PY=$p; break; }
done
[ -n "$PY" ] || { echo "no python3 with a gc__start stapsdt note here"; exit 77; }
cat > "$W/gc.py" <<'PY'
import gc, os, sys, time
gc.disable()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
for i in range(int(sys.argv[2])):
    gc.collect(2)
PY
# run N: the number of gc-start firings with arg0 == 2 in a traced run
run() {
	rm -f "$W/go"
	$PY "$W/gc.py" "$W/go" "$1" &
	pid=$!
	wait_maps $pid python3
	got=$(timeout 60 $DTRACE -q -w -p $pid -n '
python$target:::gc-start /arg0 == 2/ { @ = count(); }
BEGIN { system("touch '"$W/go"'"); }
END { printa("%@d\n", @); }' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { kill $pid; fail "dtrace failed ($rc): $got"; }
	wait $pid
	echo "$got" | grep -v '^$' | tail -n 1
}
base=$(run 0)
[ -n "$base" ] || base=0
n=$(run 40)
[ "$n" = $((base + 40)) ] || fail "gc-start: $n with 40 collections, $base without"
# a glob on the provider finds the running python process
rm -f "$W/go"
$PY "$W/gc.py" "$W/go" 0 &
pid=$!
wait_maps $pid python3
list=$($DTRACE -l -n 'python*:::gc-start' 2>&1)
touch "$W/go"
wait $pid
echo "$list" | grep -q "python$pid .*gc-start" || fail "python* did not list python$pid: $list"
exit 0
