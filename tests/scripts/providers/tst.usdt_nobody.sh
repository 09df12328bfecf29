# Without privileges (as nobody, on a process of its own): usdt probes are
# listed from the notes, and fire through the ptrace route's breakpoints
# with their semaphore raised: python's gc-start exactly once per
# gc.collect(2), with the generation read from its stack operand
# (-4@112(%rsp)) as arg0.  A process of another user is refused.
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv to run as nobody"; exit 77; }
gcpython
as_nobody() {
	(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@")
}
chmod 777 "$W"
asnobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
rm -f "$W/go"
setpriv --reuid=nobody --regid=nogroup --clear-groups $PY "$W/gc.py" "$W/go" 0 &
pid=$!
wait_maps $pid python3
list=$(as_nobody $DTRACE -l -n "python$pid:::gc-start" 2>&1)
touch "$W/go"
wait $pid
echo "$list" | grep -q "python$pid .*gc-start" || fail "not listed: $list"
base=$(gcpython_run 0 "$asnobody" as_nobody)
[ -n "$base" ] || base=0
n=$(gcpython_run 30 "$asnobody" as_nobody)
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
