#!/bin/sh
# asserts: -x oformat=json prints one JSON object per probe firing and per
# aggregation entry and error
out=$("$DTRACE" -q -x oformat=json -n 'BEGIN { trace(7); @a["k"] = count(); exit(0); }' 2>&1)
echo "$out" | grep -q '"type":"probe".*"name":"BEGIN".*{"action":"trace","value":7}' \
    || { echo "probe: $out"; exit 1; }
echo "$out" | grep -q '{"type":"aggregation","name":"a","id":[0-9]*,"function":"count","keys":\["k"\],"value":1}' \
    || { echo "aggregation: $out"; exit 1; }
out=$("$DTRACE" -q -x oformat=json -n 'BEGIN { trace(*(int *)0); } BEGIN { exit(0); }' 2>/dev/null)
echo "$out" | grep -q '^{"type":"error","epid":[0-9]*,"id":[0-9]*,"probe":"dtrace:::BEGIN","fault":"invalid address","action":1,' \
    || { echo "error: $out"; exit 1; }
exit 0
