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
# the program runs as nobody; dtrace as nobody, then as root (env)
asnobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
usdtprov_traced "$asnobody" nobody ""
usdtprov_traced "$asnobody" env "-x uroute=ptrace"
# a bad value of the option is refused
msg=$($DTRACE -x uroute=nosuch -n BEGIN 2>&1) && fail "uroute=nosuch accepted: $msg"
echo "$msg" | grep -q "Invalid value for specified option" || fail "uroute=nosuch: $msg"
exit 0
