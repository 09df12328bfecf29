#!/bin/sh
# asserts: a full disk under -o FILE ends dtrace with "processing aborted:
# No space left on device" and exit status 1: on /dev/full, and on a
# small tmpfs filled by the trace (root only) while tracing goes on.
d=$(mktemp -d)
trap 'umount "$d/mnt" 2> /dev/null; rm -rf "$d"' EXIT
timeout 60 "$DTRACE" -q -o /dev/full -n 'BEGIN { printf("lost\n"); exit(0); }' \
    2> "$d/err"
rc=$?
[ $rc -eq 1 ] || { echo "/dev/full: exit $rc: $(cat "$d/err")"; exit 1; }
grep -q '^dtrace: processing aborted: No space left on device$' "$d/err" ||
    { echo "/dev/full: stderr: $(cat "$d/err")"; exit 1; }
[ "$(id -u)" = 0 ] || exit 0
mkdir "$d/mnt"
mount -t tmpfs -o size=64k tmpfs "$d/mnt" 2> /dev/null || exit 0
timeout 60 "$DTRACE" -q -o "$d/mnt/out" \
    -n 'tick-1ms { printf("%0100d\n", 1); }' 2> "$d/err"
rc=$?
[ $rc -eq 1 ] || { echo "tmpfs: exit $rc (124 is a hang): $(cat "$d/err")"; exit 1; }
grep -q '^dtrace: processing aborted: No space left on device$' "$d/err" ||
    { echo "tmpfs: stderr: $(cat "$d/err")"; exit 1; }
[ -s "$d/mnt/out" ] || { echo "tmpfs: nothing was written"; exit 1; }
exit 0
