# Processes that start after tracing did: with -Z a glob on the provider
# (dtuitest*) matches nothing when dtrace starts; a program with that
# provider started afterwards is seen at its exec, its probes are made and
# enabled (its is-enabled test, which it waits for, turns true), and its
# N ticks are counted exactly.  The program runs under a name of its own
# (ul<pid of the test>), which the clauses require: another run of this
# test (a second make check) starts programs with the same provider.
. ./lib.sh
need_root
build_usdtprov
N=500
me=ul$$
cp "$W/usdtprov" "$W/$me"
rm -f "$W/ready"
timeout 60 $DTRACE -q -w -Z -n '
BEGIN { system("touch '"$W/ready"'"); }
dtuitest*:::tick /execname == "'$me'"/ { @ = count(); @s = sum(arg1); }
dtuitest*:::tick /execname == "'$me'" && arg0 == '$N'/ { exit(0); }
END { printa("tick %@d\n", @); printa("sum %@d\n", @s); }' > "$W/dt.out" 2> "$W/dt.err" &
dt=$!
i=0
while [ ! -f "$W/ready" ]; do
	kill -0 $dt 2> /dev/null || fail "dtrace ended early: $(cat "$W/dt.out" "$W/dt.err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "dtrace never started tracing"
	sleep 0.01
done
out=$(timeout 30 "$W/$me" $N wait) || fail "workload never saw tick enabled: $out $(cat "$W/dt.err")"
wait $dt || fail "dtrace failed: $(cat "$W/dt.out" "$W/dt.err")"
[ "$out" = "enabled $N" ] || fail "workload: $out"
want="tick $N
sum $((N * (N + 1)))"
[ "$(grep -v '^$' "$W/dt.out")" = "$want" ] || fail "got: $(cat "$W/dt.out" "$W/dt.err")"
exit 0
