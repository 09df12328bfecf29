#!/bin/sh
# asserts: sub-experiments are named as the seed names them for every
# kind of descendant and every target.  A -c command whose thread forks
# a child (_f1.er) that clone(2)s one with CLONE_FS (on Linux a C
# descendant: _f1_C1.er) and execs (_f1_x1.er), which clone(2)s a child
# with CLONE_FS itself (_C1.er) and vfork()s a child that execs (_f2.er,
# _f2_x1.er): exactly those six, and its thread's
# creation and end are events of the founder's log.xml (threads are no
# descendants).  With a -p process as well, the -c command stays the
# founder and the -p process is a sub-experiment of its own named as the
# seed names user processes in a kernel experiment, _sh_PID_N.er, whose
# fork and exec nest in its name (_sh_PID_N_f1.er, _sh_PID_N_f1_x1.er).
tmp=$(mktemp -d)
bg=
trap '[ -n "$bg" ] && kill "$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
here=$(pwd)
cd "$tmp" || exit 1
command -v cc > /dev/null || { echo "no C compiler"; exit 77; }
cc -O1 -o w_clone "$here/w_clone.c" -lpthread 2> cc.err ||
    { echo "cannot build the workload: $(cat cc.err)"; exit 1; }
true=$(readlink -f /bin/true)
"$DTRACE" -q -x record=c.er -c "$tmp/w_clone $true" -n 'tick-1s { }' \
    > out 2> err || { echo "dtrace: $(cat err)"; exit 1; }
grep -q 'kind="descendants" watched="no"' c.er/log.xml &&
    { echo "perf refused to watch the descendants"; exit 77; }
subs() { (cd "$1" && LC_ALL=C ls -d _*.er | tr '\n' ' '); }
[ "$(subs c.er)" = "_C1.er _f1.er _f1_C1.er _f1_x1.er _f2.er _f2_x1.er " ] ||
    { echo "sub-experiments: $(subs c.er)"; cat c.er/log.xml; exit 1; }
ev() { sed -n 's/^<event kind="\([a-z]*\)".*/\1/p' "$1/log.xml" | tr '\n' ' '; }
[ "$(ev c.er/_C1.er)" = "clone exit end " ] || { echo "_C1: $(ev c.er/_C1.er)"; exit 1; }
[ "$(ev c.er/_f1_C1.er)" = "clone exit end " ] || { echo "_f1_C1: $(ev c.er/_f1_C1.er)"; exit 1; }
[ "$(ev c.er/_f1.er)" = "fork exec end " ] || { echo "_f1: $(ev c.er/_f1.er)"; exit 1; }
[ "$(ev c.er/_f2_x1.er)" = "exec exit end " ] || { echo "_f2_x1: $(ev c.er/_f2_x1.er)"; exit 1; }
grep -q 'how="clone" experiment="_C1.er"' c.er/log.xml ||
    { echo "founder's log.xml lacks the clone:"; cat c.er/log.xml; exit 1; }
tid=$(sed -n 's/^<event kind="thread" t="[0-9.]*" tid="\([0-9]*\)" creator="[0-9]*"\/>$/\1/p' c.er/log.xml)
[ -n "$tid" ] && grep -q "^<event kind=\"thread-exit\" t=\"[0-9.]*\" tid=\"$tid\"/>\$" c.er/log.xml ||
    { echo "no thread and thread-exit events:"; cat c.er/log.xml; exit 1; }
[ "$(grep -c 'kind="thread"' c.er/log.xml)" -eq 1 ] ||
    { echo "not one thread:"; cat c.er/log.xml; exit 1; }

# a -p process blocked on a fifo until the -c command writes it; then
# it runs TRUE (a fork and an exec) and exits
mkfifo go
printf 'echo go > %s/go\n' "$tmp" > w.sh
sh -c "read x < $tmp/go; $true; exit 3" &
bg=$!
"$DTRACE" -q -x record=m.er -p "$bg" -c "sh $tmp/w.sh" -n 'tick-1s { }' \
    > out 2> err || { echo "dtrace: $(cat err)"; exit 1; }
wait "$bg"
bg=
p="_sh_PID_$(sed -n 's/.*how="target" experiment="_sh_PID_\([0-9]*\).er".*/\1/p' m.er/log.xml)"
[ "$(subs m.er)" = "$p.er ${p}_f1.er ${p}_f1_x1.er " ] ||
    { echo "sub-experiments: $(subs m.er) ($p)"; cat m.er/log.xml; exit 1; }
[ "$(ev m.er/$p.er)" = "target exit end " ] || { echo "$p: $(ev m.er/$p.er)"; exit 1; }
[ "$(ev m.er/${p}_f1_x1.er)" = "exec exit end " ] || { echo "${p}_f1_x1: $(ev m.er/${p}_f1_x1.er)"; exit 1; }
grep -q "<load pid=\"[0-9]*\" t=\"[0-9.]*\" base=\"0x[0-9a-f]*\" size=\"[1-9][0-9]*\" path=\"$true\"/>" "m.er/${p}_f1_x1.er/map.xml" ||
    { echo "${p}_f1_x1.er/map.xml lacks $true:"; cat "m.er/${p}_f1_x1.er/map.xml"; exit 1; }
"$DTRACE" -r "m.er/$p.er" > r.out 2> r.err || { echo "dtrace -r $p.er: $(cat r.err)"; exit 1; }
exit 0
