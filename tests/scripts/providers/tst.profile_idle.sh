# profile-N fires on every CPU at its rate whatever the load (B3): busy
# CPUs through perf samples, idle ones (which cpu-clock does not sample)
# through the filler; profile-97 for 2 s gives about 194 on each CPU.
. ./lib.sh
need_root
n=$(getconf _NPROCESSORS_ONLN)
out=$($DTRACE -q -n 'profile-97 { @[cpu] = count(); }
    tick-2s { exit(0); }
    END { printa("cpu %d %@d\n", @); }' 2>&1) || fail "dtrace failed: $out"
cpus=$(echo "$out" | grep -c '^cpu ')
[ "$cpus" -eq "$n" ] || fail "firings on $cpus of $n CPUs: $out"
echo "$out" | while read -r tag cpu count; do
	[ "$tag" = cpu ] || continue
	if [ "$count" -lt 160 ] || [ "$count" -gt 230 ]; then
		echo "CPU $cpu: $count firings, want about 194: $out"
		exit 1
	fi
done || exit 1
exit 0
