#!/bin/sh
# asserts: aggregations keyed by umod()/ufunc() and mod()/func() merge per
# object and per function (libdtrace re-keys them at snapshot), so no key
# is printed twice in one aggregation, and the -c program's own function
# resolves by name (object`function) in one row.
[ "$(id -u)" = 0 ] || { echo "needs root (profile provider)"; exit 77; }
command -v cc > /dev/null || { echo "needs cc"; exit 77; }
t=$(mktemp -d)
cat > "$t/spin.c" <<'C'
volatile unsigned long n;
void spin_loop(void);
void spin_loop(void)
{
	for (;;)
		n = n * 3 + 1;
}
int main(void)
{
	spin_loop();
	return 0;
}
C
cc -O0 -o "$t/spinner" "$t/spin.c" || { echo "cc failed"; exit 77; }
# ends once enough samples are in (not after a fixed time: a loaded
# machine gives the spinner few of them)
timeout 120 "$DTRACE" -q -c "$t/spinner" -n '
BEGIN { nu = 0; nk = 0; }
profile-997 /pid == $target/ { @m[umod(arg1)] = count(); @f[ufunc(arg1)] = count(); nu++; }
profile-997 /arg0 != 0/ { @k[mod(arg0)] = count(); @kf[func(arg0)] = count(); nk++; }
tick-100ms /nu >= 100 && nk >= 10/ { exit(0); }' > "$t/out" 2> "$t/err"
rc=$?
[ $rc -eq 0 ] || { echo "exit $rc: $(cat "$t/err")"; rm -rf "$t"; exit 1; }
# no key twice (the four key sets differ, but for 0x0: umod and ufunc
# of kernel-mode samples, whose user address is 0), except a kernel
# function whose name several functions share (kallsyms has eleven
# lruvec_stat_mod_folio.constprop.0): those are different keys that
# print alike, as in dtrace
shared=$(awk '{ print "vmlinux`" $3 }' /proc/kallsyms 2> /dev/null | sort | uniq -d)
dups=$(awk 'NF == 2 && $1 != "0x0" { print $1 }' "$t/out" | sort | uniq -d |
    grep -vxF "$shared")
[ -z "$dups" ] || { echo "keys printed twice: $dups"; cat "$t/out"; rm -rf "$t"; exit 1; }
for want in '^  spinner +[0-9]+$' '^  spinner`spin_loop +[0-9]+$' \
    '^  vmlinux +[0-9]+$'; do
	[ "$(grep -Ec "$want" "$t/out")" = 1 ] ||
	    { echo "not one row /$want/"; cat "$t/out"; rm -rf "$t"; exit 1; }
done
rm -rf "$t"
exit 0
