# openat's path reads back right although the workload rewrites the buffer
# right after each call (captured at event time), whatever strsize is (a
# capture serves copyinstr up to its NUL, however long the read).
. ./lib.sh
need_root
build paths
i=0
while [ $i -lt 200 ]; do
	printf '/nonexistent/dtui-w-%03d\n' $i
	i=$((i + 1))
done > "$W/want"
for strsize in 256 1024 4096; do
	$DTRACE -q -x strsize=$strsize -c "$W/paths" -n '
	syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(arg1)); }' \
	    > "$W/out" 2> "$W/err" || fail "dtrace failed: $(cat "$W/err")"
	grep dtui-w- "$W/out" > "$W/got"
	cmp -s "$W/want" "$W/got" ||
	    fail "strsize=$strsize: paths differ: $(diff "$W/want" "$W/got" | head)"
done
