#!/bin/sh
# asserts: when the experiment's files cannot grow (a full disk; here
# RLIMIT_FSIZE, with SIGXFSZ ignored so writes fail with EFBIG), recording
# stops with one message naming the file, tracing goes on to print all
# its output and exit 0, and what was recorded replays as a prefix.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
printf 'int i;\ntick-1ms { printf("line %%d with some padding to fill the disk\\n", i++); }\ntick-1ms /i == 400/ { exit(0); }\n' > fill.d
(trap '' XFSZ; ulimit -f 24; "$DTRACE" -q -x switchrate=5ms -x record=full.er -s fill.d; echo $? > rc) 2> err | cat > live
[ "$(cat rc)" = 0 ] || { echo "dtrace exit $(cat rc): $(cat err)"; exit 1; }
[ "$(wc -l < live)" -ge 400 ] || { echo "tracing stopped: $(wc -l < live) lines; $(cat err)"; exit 1; }
grep -q 'recording stopped: full.er/.*: File too large' err || { echo "no message: $(cat err)"; exit 1; }
[ "$(grep -c 'recording stopped' err)" -eq 1 ] || { echo "said more than once: $(cat err)"; exit 1; }
timeout 20 "$DTRACE" -r full.er > out 2> rerr
rc=$?
[ $rc -eq 0 ] || { echo "replay exit $rc: $(cat rerr)"; exit 1; }
n=$(wc -c < out)
head -c "$n" live | cmp -s - out || { echo "not a prefix of the live text"; exit 1; }
[ "$n" -lt "$(wc -c < live)" ] || { echo "all replayed: the limit did not bite"; exit 1; }
exit 0
