#!/bin/sh
# asserts: stack() in a tick probe prints one frame per line indented by
# stackindent (14), or nothing when the provider records no kernel pcs.
out=$("$DTRACE" -q -n 'tick-10ms { stack(); exit(0); }' 2>&1) || {
	echo "dtrace failed: $out"; exit 1; }
echo "$out" | grep -v '^$' | grep -vq '^              [^ ]' && {
	echo "bad frame line in: $out"; exit 1; }
exit 0
