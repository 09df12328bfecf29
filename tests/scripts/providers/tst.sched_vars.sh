#!/bin/sh
# Asserts: the sched provider's variables chip, lgrp and pset read, on
# each CPU, its physical package and NUMA node as sysfs gives them, and
# the default processor set 0.
out=$($DTRACE -q -n 'profile-97 { @[cpu, chip, lgrp, pset] = count(); }
    tick-1s { printa("%d %d %d %d\n", @); exit(0); }' 2>&1) ||
    { echo "dtrace: $out"; exit 1; }
n=0
echo "$out" | while read -r c chip lgrp pset; do
	[ -n "$c" ] || continue
	d=/sys/devices/system/cpu/cpu$c
	want=$(cat $d/topology/physical_package_id 2> /dev/null || echo 0)
	[ "$want" -lt 0 ] && want=0
	node=$(ls -d $d/node* 2> /dev/null | head -n 1 | sed 's/.*node//')
	[ "$chip" = "$want" ] || { echo "cpu $c: chip $chip, sysfs $want"; exit 1; }
	[ "$lgrp" = "${node:-0}" ] || { echo "cpu $c: lgrp $lgrp, sysfs ${node:-0}"; exit 1; }
	[ "$pset" = 0 ] || { echo "cpu $c: pset $pset"; exit 1; }
done || exit 1
lines=$(echo "$out" | grep -c '^[0-9]')
[ "$lines" -ge 1 ] || { echo "no firings: <$out>"; exit 1; }
exit 0
