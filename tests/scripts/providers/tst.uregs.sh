# uregs[] holds the firing thread's user registers (R_* in x86_64
# pt_regs order): at a system call's entry the first argument register is
# arg0, the stack pointer is a user address and the PC is in libc's
# system call wrapper; a profile sample's PC is its user pc (arg1).
# Through perf as root and through ptrace as nobody.
. ./lib.sh
need_root
[ "$(uname -m)" = x86_64 ] || { echo "uregs[] R_* constants are x86_64"; exit 77; }
build vtime
script='
syscall::close:entry /pid == $target && arg0 == 4242/
{
	printf("rdi %d\n", uregs[R_RDI] == arg0);
	printf("sp %d\n", uregs[R_SP] > 0x10000 && uregs[R_SP] < 0x800000000000);
	printf("pc %d\n", uregs[R_PC] == uregs[R_RIP] && uregs[R_PC] > 0x10000 &&
	    uregs[R_PC] < 0x800000000000);
	umod(uregs[R_PC]);
}'
# check OUT ROUTE
check() {
	[ "$(echo "$1" | grep -c 'rdi 1$')" -eq 2 ] || fail "$2: rdi: $1"
	[ "$(echo "$1" | grep -c 'sp 1$')" -eq 2 ] || fail "$2: sp: $1"
	[ "$(echo "$1" | grep -c 'pc 1$')" -eq 2 ] || fail "$2: pc: $1"
	[ "$(echo "$1" | grep -c 'libc\.so')" -eq 2 ] ||
	    fail "$2: pc not in libc: $1"
}
out=$(timeout 60 $DTRACE -q -c "$W/vtime 20 1" -n "$script" 2>&1) ||
    fail "perf route: dtrace failed: $out"
check "$out" perf
out=$(timeout 60 $DTRACE -q -c "$W/vtime 200 1" -n '
profile-997 /pid == $target && arg1 != 0/
{ @[arg1 == uregs[R_PC] ? "same" : "diff"] = count(); }
END { printa("%s %@d\n", @); }' 2>&1) || fail "profile: dtrace failed: $out"
echo "$out" | grep -q '^diff' && fail "profile: pc differs: $out"
echo "$out" | awk '/^same/ && $2 >= 20 { ok = 1 } END { exit !ok }' ||
    fail "profile: too few user samples: $out"
command -v setpriv > /dev/null || { echo "no setpriv for the ptrace half"; exit 77; }
out=$(cd / && timeout 60 setpriv --reuid=nobody --regid=nogroup \
    --clear-groups $DTRACE -q -c "$W/vtime 20 1" -n "$script" 2>&1) ||
    fail "ptrace route: dtrace failed: $out"
check "$out" ptrace
exit 0
