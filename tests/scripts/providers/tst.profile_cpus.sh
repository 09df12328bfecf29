# profile-997 samples land on every CPU the workload keeps busy, in the
# workload's own function.
. ./lib.sh
need_root
build spin
n=$(getconf _NPROCESSORS_ONLN)
cat > "$W/p.d" <<'D'
int n;
profile-997 /pid == $target/ { @c[cpu] = count(); n++; }
profile-997 /pid == $target && arg1 != 0/ { @f[ufunc(arg1)] = count(); }
profile-997 /n >= 1000/ { exit(0); }
END { printa("cpu %d %@d\n", @c); printa("%A %@d\n", @f); }
D
out=$($DTRACE -q -c "$W/spin 5000" -s "$W/p.d") || fail "dtrace failed: $out"
cpus=$(echo "$out" | grep -c '^cpu ')
[ "$cpus" -eq "$n" ] || fail "samples on $cpus of $n CPUs: $out"
echo "$out" | grep -q 'dtui_spin_leaf' || fail "no sample in dtui_spin_leaf: $out"
