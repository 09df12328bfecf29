# python3's usdt probes: gc-start fires once per gc.collect(2) with the
# generation (a -4@112(%rsp) operand: read from the stack sampled at the
# hit) as arg0, only while its semaphore is up.  A run with no collection
# of its own gives the baseline (the interpreter collects at exit); a run
# with N collections must count exactly N more.  Also listed by a glob on
# the provider (python*).
. ./lib.sh
need_root
gcpython
base=$(gcpython_run 0 env env)
[ -n "$base" ] || base=0
n=$(gcpython_run 40 env env)
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
