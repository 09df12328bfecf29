# openat's path reads back right although the workload rewrites the buffer
# right after each call (captured at event time).
. ./lib.sh
need_root
build paths
$DTRACE -q -c "$W/paths" -n '
syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(arg1)); }' \
    > "$W/out" 2> "$W/err" || fail "dtrace failed: $(cat "$W/err")"
grep dtui-w- "$W/out" > "$W/got"
i=0
while [ $i -lt 200 ]; do
	printf '/nonexistent/dtui-w-%03d\n' $i
	i=$((i + 1))
done > "$W/want"
cmp -s "$W/want" "$W/got" || fail "paths differ: $(diff "$W/want" "$W/got" | head)"
