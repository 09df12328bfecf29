#!/bin/sh
# asserts: a -c command's descendants get sub-experiments as the seed
# names them: its first fork's child _f1.er, that child's exec of a new
# image _f1_x1.er, its second fork's child _f2.er and that child's own
# fork _f2_f1.er, and the command's own exec _x1.er; each holds log.xml
# (its fork, exec, exit), map.xml (the new image's objects: the exec'd
# file by its path, each unloaded when the image ends) and the data
# files, but no archives/ (the objects' symbols are in the founder's
# archives/); the founder's log.xml names each descendant; dtrace -r
# opens a sub-experiment.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(pwd)
cd "$tmp" || exit 1
command -v cc > /dev/null || { echo "no C compiler"; exit 77; }
cc -O1 -o w_desc "$here/w_desc.c" 2> cc.err ||
    { echo "cannot build the workload: $(cat cc.err)"; exit 1; }
true=$(readlink -f /bin/true)
"$DTRACE" -q -x record=d.er -c "$tmp/w_desc $true" -n 'tick-1s { }' \
    > out 2> err || { echo "dtrace: $(cat err)"; exit 1; }
grep -q 'kind="descendants" watched="no"' d.er/log.xml &&
    { echo "perf refused to watch the descendants"; exit 77; }
for s in _f1 _f1_x1 _f2 _f2_f1 _x1; do
	for f in log.xml map.xml overview events principal aggregations \
	    descriptions; do
		[ -f "d.er/$s.er/$f" ] || { echo "missing d.er/$s.er/$f:"; find d.er | sort; exit 1; }
	done
	[ -d "d.er/$s.er/archives" ] && { echo "$s.er has archives/"; exit 1; }
	grep -q "<event kind=\"descendant\" t=\"[0-9.]*\" pid=\"[0-9]*\" how=\"[a-z]*\" experiment=\"$s.er\"/>" d.er/log.xml ||
	    { echo "founder's log.xml does not name $s.er:"; cat d.er/log.xml; exit 1; }
	grep -q '</experiment>' "d.er/$s.er/log.xml" && grep -q '</map>' "d.er/$s.er/map.xml" ||
	    { echo "$s.er not closed"; cat "d.er/$s.er/log.xml"; exit 1; }
done
[ "$(ls -d d.er/_*.er | wc -l)" -eq 5 ] || { echo "not five sub-experiments:"; ls d.er; exit 1; }
# lives: fork then exec, fork then exit, exec then exit
ev() { sed -n 's/^<event kind="\([a-z]*\)".*/\1/p' "d.er/$1.er/log.xml" | tr '\n' ' '; }
[ "$(ev _f1)" = "fork exec end " ] || { echo "_f1: $(ev _f1)"; exit 1; }
[ "$(ev _f1_x1)" = "exec exit end " ] || { echo "_f1_x1: $(ev _f1_x1)"; exit 1; }
[ "$(ev _f2)" = "fork exit end " ] || { echo "_f2: $(ev _f2)"; exit 1; }
[ "$(ev _f2_f1)" = "fork exit end " ] || { echo "_f2_f1: $(ev _f2_f1)"; exit 1; }
for s in _f1_x1 _x1; do
	grep -q "<load pid=\"[0-9]*\" t=\"[0-9.]*\" base=\"0x[0-9a-f]*\" size=\"[1-9][0-9]*\" path=\"$true\"/>" "d.er/$s.er/map.xml" ||
	    { echo "$s.er/map.xml lacks $true:"; cat "d.er/$s.er/map.xml"; exit 1; }
done
for s in _f1_x1 _x1; do			# its objects end with its image
	l=$(grep -c '^<load ' "d.er/$s.er/map.xml"); u=$(grep -c '^<unload ' "d.er/$s.er/map.xml")
	[ "$l" -eq "$u" ] || { echo "$s.er: $l loads, $u unloads:"; cat "d.er/$s.er/map.xml"; exit 1; }
done
grep -lqx "path $true" d.er/archives/* || { echo "no archive of $true"; ls d.er/archives; exit 1; }
"$DTRACE" -r d.er/_f1.er > r.out 2> r.err || { echo "dtrace -r _f1.er: $(cat r.err)"; exit 1; }
exit 0
