#!/bin/sh
# asserts: SIGINT stops tracing: END runs and aggregations are printed,
# exit status 0
out=$(mktemp); err=$(mktemp)
"$DTRACE" -q -n 'BEGIN { t = 0; } tick-100ms { @ticks = count(); } tick-100ms /!t/ {
    printf("ticking\n"); t = 1; } END { printf("end ran\n"); }' \
    > "$out" 2> "$err" &
pid=$!
# interrupt once it is tracing and has counted (not after a guessed delay)
n=600
until grep -q '^ticking$' "$out" || [ $n -eq 0 ]; do sleep 0.1; n=$((n - 1)); done
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
