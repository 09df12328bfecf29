#!/bin/sh
# asserts: map.xml lists the objects of a -c target from process control's
# view of its mappings, read at every tick: the a.out by its path, libc,
# and a dlopen()ed library with a load and then an unload event (base,
# size, time), in time order; nothing of dtrace's own image (the -c child
# before its exec); a target that exits at once, before its maps were ever
# read, still has its objects listed (from the mappings perf reported);
# every object loaded has its unload once the recording ends (those still
# mapped are unloaded at the end); a library dlopen()ed and dlclose()d at
# once, between two readings of the maps, still has its load and unload
# (from the mappings perf reported); archives/ holds the symbol table of
# every object map.xml loads.
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
here=$(pwd)
cd "$tmp" || exit 1
command -v cc > /dev/null || { echo "no C compiler"; exit 77; }
cc -O1 -o w_dlmap "$here/w_dlmap.c" 2> cc.err ||
    cc -O1 -o w_dlmap "$here/w_dlmap.c" -ldl 2> cc.err ||
    { echo "cannot build the workload: $(cat cc.err)"; exit 1; }
printf 'int dm_lib(int x) { return x + 1; }\n' > dm.c
cc -O1 -shared -fPIC -o "$tmp/libdmap.so" dm.c ||
    { echo "cannot build the library"; exit 1; }
mkfifo go1 go2 || exit 1
"$DTRACE" -q -x switchrate=10ms -x record=m.er \
    -c "$tmp/w_dlmap $tmp/libdmap.so $tmp/go1 $tmp/go2" \
    -n 'tick-1s { }' > out 2> err &
pid=$!
# waituntil PATTERN: map.xml holds a line matching it (at most 30 s)
waituntil() {
	n=0
	until grep -q "$1" m.er/map.xml 2>/dev/null; do
		n=$((n + 1))
		[ $n -gt 600 ] && { echo "map.xml lacks $1:"; cat m.er/map.xml; exit 1; }
		kill -0 $pid 2>/dev/null || { echo "dtrace died: $(cat err)"; exit 1; }
		sleep 0.05
	done
}
waituntil '<load .*path="'"$tmp"'/libdmap.so"'
echo go > go1
waituntil '<unload .*path="'"$tmp"'/libdmap.so"'
echo go > go2
wait $pid
rc=$?
pid=
[ $rc -eq 0 ] || { echo "dtrace exit $rc: $(cat err)"; exit 1; }
m=m.er/map.xml
grep -q '</map>' $m || { echo "map.xml not closed"; cat $m; exit 1; }
for want in '<load pid="[0-9]*" t="[0-9.]*" base="0x[0-9a-f]*" size="[1-9][0-9]*" path="'"$tmp"'/w_dlmap"/>' \
    '<load .*path="/[^"]*/libc\.so[^"]*"' \
    '<load .*path="/[^"]*/ld-linux[^"]*"'; do
	grep -q "$want" $m || { echo "map.xml lacks $want:"; cat $m; exit 1; }
done
# the library: one load, then one unload at the same base, times in order
lib=$(grep "path=\"$tmp/libdmap.so\"" $m)
[ "$(echo "$lib" | wc -l)" -eq 2 ] &&
    echo "$lib" | head -n 1 | grep -q '^<load ' &&
    echo "$lib" | tail -n 1 | grep -q '^<unload ' ||
    { echo "libdmap.so not load then unload:"; cat $m; exit 1; }
[ "$(echo "$lib" | sed 's/.*base="\([^"]*\)".*/\1/' | sort -u | wc -l)" -eq 1 ] ||
    { echo "load and unload at different bases: $lib"; exit 1; }
sed -n 's/^<[a-z]* pid="[0-9]*" t="\([0-9.]*\)".*/\1/p' $m > times
sort -n times | cmp -s - times || { echo "events out of time order:"; cat $m; exit 1; }
# at the end, every object loaded is unloaded: as many of each
for what in load unload; do
	sed -n "s/^<$what pid=\"[0-9]*\" t=\"[0-9.]*\" \(base=.*\)/\1/p" $m | sort > $what.l
done
cmp -s load.l unload.l || { echo "loads and unloads differ:"; cat $m; exit 1; }
# archives/: one file per object loaded, with its path and symbols
for path in $(sed -n 's/^<load .*path="\([^"]*\)".*/\1/p' $m | sort -u); do
	grep -lqx "path $path" m.er/archives/* 2>/dev/null ||
	    { echo "no archive of $path:"; ls m.er/archives; exit 1; }
done
grep -q '^0x[0-9a-f]* 0x[0-9a-f]* F dm_lib$' m.er/archives/libdmap.so.* ||
    { echo "libdmap.so's archive lacks dm_lib:"; cat m.er/archives/libdmap.so.*; exit 1; }
grep -q ' F malloc$' m.er/archives/libc.so* ||
    { echo "libc's archive lacks malloc"; exit 1; }
# a library opened and closed within one tick
mkfifo go3 || exit 1
"$DTRACE" -q -x switchrate=10ms -x record=t.er \
    -c "$tmp/w_dlmap $tmp/libdmap.so - $tmp/go3" \
    -n 'tick-1s { }' > out3 2> err3 &
pid=$!
n=0
until grep -q '<unload .*path="'"$tmp"'/libdmap.so"' t.er/map.xml 2>/dev/null; do
	n=$((n + 1))
	[ $n -gt 600 ] && { echo "t.er/map.xml lacks the unload:"; cat t.er/map.xml; exit 1; }
	kill -0 $pid 2>/dev/null || { echo "dtrace died: $(cat err3)"; exit 1; }
	sleep 0.05
done
echo go > go3
wait $pid
pid=
lib=$(grep "path=\"$tmp/libdmap.so\"" t.er/map.xml)
[ "$(echo "$lib" | wc -l)" -eq 2 ] && echo "$lib" | head -n 1 | grep -q '^<load ' ||
    { echo "libdmap.so within a tick not load then unload:"; cat t.er/map.xml; exit 1; }
# nothing of dtrace itself (the -c child before its exec)
! grep -q 'path="[^"]*/dtrace"' $m || { echo "dtrace's own image in map.xml:"; cat $m; exit 1; }
# a target that exits at once
"$DTRACE" -q -x record=q.er -c /bin/true -n 'tick-1s { }' > /dev/null 2> err2 ||
    { echo "dtrace -c /bin/true: $(cat err2)"; exit 1; }
for want in '<load .*path="/[^"]*/true"' '<load .*path="/[^"]*/libc\.so[^"]*"'; do
	grep -q "$want" q.er/map.xml ||
	    { echo "q.er/map.xml lacks $want:"; cat q.er/map.xml; exit 1; }
done
! grep -q 'path="//anon"\|ld\.so\.cache' q.er/map.xml ||
    { echo "q.er/map.xml lists data or anonymous mappings:"; cat q.er/map.xml; exit 1; }
exit 0
