# Asserts: an ERROR record whose faulting clause has an EPID the consumer
# has not looked up yet (here the 301st clause; the 300 before it write
# no records) is reported and the run goes on.  Looking that EPID up
# grows the consumer's EPID cache, which used to leave the record loop
# holding a pointer into the old cache: a use after free that ASan
# (make check-asan) reports at once and that crashed dtrace at times.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt 300 ]; do
	echo "BEGIN { x = $i; }"
	i=$((i + 1))
done > "$tmp/e.d"
echo 'BEGIN { trace(*(int *)8); }' >> "$tmp/e.d"
echo 'BEGIN { trace("after"); exit(0); }' >> "$tmp/e.d"
out=$($DTRACE -q -s "$tmp/e.d" 2>&1) || { echo "dtrace failed: $out"; exit 1; }
want='dtrace: error on enabled probe ID 302 (ID 1: dtrace:::BEGIN): invalid address (0x8) in action #1 at DIF offset 4'
echo "$out" | grep -qxF "$want" || { echo "no error line: $out"; exit 1; }
echo "$out" | grep -q after || { echo "the run did not go on: $out"; exit 1; }
exit 0
