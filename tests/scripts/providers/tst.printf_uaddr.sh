# printf("%A", v) of a plain address with -c names it in $target as
# dtrace's pfprint_uaddr does ("spin`dtui_spin_leaf+0x..."), where %a of
# the same value (a kernel symbol address conversion) prints it in hex.
# Printed while the workload still runs, so its symbols can be read.
. ./lib.sh
need_root
build spin
cat > "$W/a.d" <<'D'
profile-199 /pid == $target/ { printf("A[%A] a[%a]\n", uregs[R_PC], uregs[R_PC]); exit(0); }
D
out=$($DTRACE -q -c "$W/spin 5000" -s "$W/a.d") || fail "dtrace failed: $out"
echo "$out" | grep -q 'A\[spin`[A-Za-z_0-9]*+0x[0-9a-f]*\]' ||
    echo "$out" | grep -q 'A\[[A-Za-z_0-9.-]*`[A-Za-z_0-9]*+0x[0-9a-f]*\]' ||
    fail "%A not symbolized: $out"
echo "$out" | grep -q 'a\[0x[0-9a-f]*\]' || fail "%a of a user address not hex: $out"
exit 0
