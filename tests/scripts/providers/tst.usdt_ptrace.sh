# usdt probes through the ptrace route (int3 breakpoints at the notes'
# sites, semaphores raised by the helper), as nobody and as root with -x
# uroute=ptrace: a program with its own provider (dtrace -h and -G) fires
# each probe exactly as often as it makes it, with its arguments, its
# is-enabled test true exactly while traced, under -p and -c; after a -p
# trace the semaphore is down again (the program's next rounds see the
# probe disabled: it exits by itself).
. ./lib.sh
need_root
command -v setpriv > /dev/null || { echo "no setpriv to run as nobody"; exit 77; }
N=500
build_usdtprov
chmod 777 "$W"
nobody() {
	(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@")
}
# check HOW FLAGS: the checks with dtrace run by HOW (nobody, or env: as
# root) with FLAGS
check() {
	how=$1
	f=$2
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$W/usdtprov" $N \
	    wait > "$W/out" &
	pid=$!
	wait_maps $pid usdtprov
	got=$($how timeout 60 $DTRACE $f -q -p $pid -n '
dtuitest$target:::always { @a = count(); }
dtuitest$target:::tick { @t = count(); @s = sum(arg1); @i = sum(arg0); }
dtuitest$target:::never-fired { @n = count(); }
END { printa("always %@d\n", @a); printa("tick %@d\n", @t);
      printa("sum %@d\n", @s); printa("isum %@d\n", @i); }' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { kill $pid; fail "$how: dtrace failed ($rc): $got"; }
	wait $pid
	[ "$(cat "$W/out")" = "enabled $N" ] || fail "$how: traced: $(cat "$W/out")"
	want="always $N
tick $N
sum $((N * (N + 1)))
isum $((N * (N + 1) / 2))"
	[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "$how: got: $got"
	got=$($how timeout 60 $DTRACE $f -q -c "$W/usdtprov $N" -n '
dtuitest$target:::tick { @t = count(); @s = sum(arg1); }
END { printa("tick %@d\n", @t); printa("sum %@d\n", @s); }' 2>&1) ||
	    fail "$how: -c: dtrace failed: $got"
	want="enabled $N
tick $N
sum $((N * (N + 1)))"
	[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "$how: -c: got: $got"
}
check nobody ""
check env "-x uroute=ptrace"
# a bad value of the option is refused
msg=$($DTRACE -x uroute=nosuch -n BEGIN 2>&1) && fail "uroute=nosuch accepted: $msg"
echo "$msg" | grep -q "Invalid value for specified option" || fail "uroute=nosuch: $msg"
exit 0
