#!/bin/sh
# asserts: SIGINT stops tracing: END runs and aggregations are printed,
# exit status 0
out=$(mktemp); err=$(mktemp)
"$DTRACE" -q -n 'tick-100ms { @ticks = count(); } END { printf("end ran\n"); }' \
    > "$out" 2> "$err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $(cat "$err")"; exit 1; }
grep -q '^end ran$' "$out" || { echo "END did not run: $(cat "$out")"; exit 1; }
grep -Eq '^ +[0-9]+$' "$out" || { echo "no aggregation: $(cat "$out")"; exit 1; }
# END output comes before the aggregation
[ "$(grep -n 'end ran' "$out" | cut -d: -f1)" -lt \
  "$(grep -En '^ +[0-9]+$' "$out" | cut -d: -f1)" ] || { echo "order: $(cat "$out")"; exit 1; }
rm -f "$out" "$err"
exit 0
