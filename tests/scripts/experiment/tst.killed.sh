#!/bin/sh
# asserts: an experiment can be read while it is being written, and a
# recording dtrace killed with SIGKILL leaves an experiment that replays
# (exit 0) up to its last whole block: a non-empty prefix of what the
# live run printed.
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
printf 'int i;\ntick-1ms { printf("line %%d\\n", i++); }\n' > forever.d
"$DTRACE" -q -x switchrate=5ms -x record=k.er -o live -s forever.d 2> live.err &
pid=$!
# wait (at most 20 s) for 300 lines of live output
n=0
while [ "$(cat live 2>/dev/null | wc -l)" -lt 300 ]; do
	n=$((n + 1))
	[ $n -gt 400 ] && { echo "no output: $(cat live.err)"; exit 1; }
	kill -0 $pid 2>/dev/null || { echo "dtrace died: $(cat live.err)"; exit 1; }
	sleep 0.05
done
# read while it is being written
timeout 20 "$DTRACE" -r k.er > during 2> during.err ||
    { echo "reading while written: $(cat during.err)"; exit 1; }
[ -s during ] || { echo "nothing read while written"; exit 1; }
kill -9 $pid
wait $pid 2>/dev/null
pid=
timeout 20 "$DTRACE" -r k.er > out 2> err
rc=$?
[ $rc -eq 0 ] || { echo "replay exit $rc: $(cat err)"; exit 1; }
n=$(wc -c < out)
[ "$n" -ge "$(wc -c < during)" ] || { echo "replay shorter than the read while written"; exit 1; }
head -c "$n" live | cmp -s - out || { echo "not a prefix of the live text"; diff live out | head; exit 1; }
exit 0
