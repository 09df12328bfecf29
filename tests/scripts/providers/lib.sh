# lib.sh - shared by the provider shell tests: skip rules and building the
# workloads (small C programs in this directory) with cc.
#   need_root          exit 77 unless root
#   build NAME         compile w_NAME.c into $W/NAME (frame pointers on)
#   wait_maps PID TEXT wait until PID maps an object whose path has TEXT
#   wait_untraced PID WHAT  wait until PID has no tracer (fails: died or traced)
#   build_usdtprov     w_usdtprov.c with its provider through dtrace -h and
#                      -G into $W/usdtprov (exit 77 without cc or sys/sdt.h);
#                      holds a machine-wide lock until the script ends
#   usdtprov_traced RUN HOW FLAGS
#                      $W/usdtprov $N traced under -p and -c (below)
#   gcpython           PY: a python3 with usdt probes (exit 77 without),
#                      and $W/gc.py, which collects when told to go
#   gcpython_run N RUN HOW
#                      python's gc-start firings in a traced run (below)
# $W is a temporary directory readable by everyone (for the nobody tests).
# Workloads exit right after their last counted event: eng_stop calls
# prov_flush() before DTRACEIOC_STOP, so events still in the perf rings
# when the -c child exits are counted.
W=$(mktemp -d)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "needs root (perf tracepoints)"
		exit 77
	fi
}

build() {
	if ! command -v cc > /dev/null; then
		echo "no C compiler to build the workload"
		exit 77
	fi
	cc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$W/$1" "w_$1.c" -lpthread ||
	    exit 1
}

# fail MSG: print and exit 1
fail() {
	echo "$*"
	exit 1
}

build_usdtprov() {
	command -v cc > /dev/null || { echo "no C compiler to build the workload"; exit 77; }
	# A -Z glob over dtuitest* (tst.usdt_later, tst.usdt_emfile) enables
	# the probes of every program with this provider, another run's too
	# (a second make check), which may then start before its own tracer
	# is attached: the tests that run it take turns, machine-wide, for
	# the rest of the script.
	if command -v flock > /dev/null; then
		exec 9> /tmp/dtui-usdtprov.lock
		flock 9
	fi
	[ -f /usr/include/sys/sdt.h ] || [ -f /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
	    { echo "no <sys/sdt.h> (systemtap-sdt-dev) to build the workload"; exit 77; }
	cat > "$W/usdtprov.d" <<'D'
provider dtuitest {
	probe tick(int, long);
	probe always();
	probe never__fired(char *);
};
D
	(cd "$W" && $DTRACE -h -s usdtprov.d && $DTRACE -G -s usdtprov.d) ||
	    fail "dtrace -h/-G failed"
	[ -f "$W/usdtprov.h" ] && [ -f "$W/usdtprov.o" ] || fail "no usdtprov.h or usdtprov.o"
	cc -O1 -I"$W" -o "$W/usdtprov" w_usdtprov.c "$W/usdtprov.o" ||
	    fail "workload build failed"
}

# wait_untraced PID WHAT: wait until no tracer holds process PID (its
# TracerPid is 0); fail saying whether it died (a breakpoint or a
# replaced return address left behind kills it) or stayed traced.
wait_untraced() {
	i=0
	while :; do
		if ! [ -e "/proc/$1/status" ] ||
		    grep -q '^State:.*zombie' "/proc/$1/status" 2> /dev/null; then
			wait "$1"
			fail "$2: the target died (exit status $?)"
		fi
		grep -Eq 'TracerPid:[[:space:]]+0$' "/proc/$1/status" 2> /dev/null &&
		    break
		i=$((i + 1))
		[ $i -lt 3000 ] || { kill "$1"; fail "$2: the target is still traced"; }
		sleep 0.01
	done
}

# wait_maps PID TEXT: wait until process PID maps an object whose path
# has TEXT (it exec'd, its libraries are loaded); kill it and fail if that
# does not happen within 30 s.
wait_maps() {
	i=0
	until grep -q "$2" "/proc/$1/maps" 2> /dev/null; do
		i=$((i + 1))
		[ $i -lt 3000 ] || { kill "$1" 2> /dev/null; fail "pid $1 never mapped $2"; }
		sleep 0.01
	done
}

# usdtprov_traced RUN HOW FLAGS: $W/usdtprov $N, started by RUN (env, or
# a command running it as another user), traced under -p by a dtrace
# started by HOW with FLAGS, fires each probe exactly as often as it makes
# it, with its arguments, its is-enabled test true in every round; the
# same under -c.  The -p target starts its rounds once tick is enabled
# (its semaphore rose, at the ENABLE) and BEGIN made $W/go: tracing is
# then active, and no firing falls between ENABLE and GO, where dtrace
# does not trace.  always's clause comes first: enabled before tick.
usdtprov_traced() {
	run=$1 how=$2 f=$3
	rm -f "$W/go"
	$run "$W/usdtprov" $N wait "$W/go" > "$W/out" &
	pid=$!
	wait_maps $pid usdtprov
	got=$($how timeout 60 $DTRACE $f -q -w -p $pid -n '
BEGIN { system("touch '"$W/go"'"); }
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
	# -c: the command's probes come from its file before it runs (it
	# is held before its exec, until GO), and fire from its first round
	got=$($how timeout 60 $DTRACE $f -q -c "$W/usdtprov $N" -n '
dtuitest$target:::tick { @t = count(); @s = sum(arg1); }
END { printa("tick %@d\n", @t); printa("sum %@d\n", @s); }' 2>&1) ||
	    fail "$how: -c: dtrace failed: $got"
	want="enabled $N
tick $N
sum $((N * (N + 1)))"
	[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "$how: -c: got: $got"
}

gcpython() {
	PY=""
	for p in /usr/bin/python3 /usr/bin/python3.11; do
		[ -x "$p" ] && readelf -n "$(readlink -f "$p")" 2>/dev/null |
		    grep -q 'Name: gc__start' && { PY=$p; break; }
	done
	[ -n "$PY" ] || { echo "no python3 with a gc__start stapsdt note here"; exit 77; }
	cat > "$W/gc.py" <<'PY'
import gc, os, sys, time
gc.disable()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
for i in range(int(sys.argv[2])):
    gc.collect(2)
PY
	chmod 644 "$W/gc.py"
}

# gcpython_run N RUN HOW: prints the gc-start firings with arg0 == 2 of
# $W/gc.py making N collections, started by RUN (env, or a command
# running it as another user), traced under -p by a dtrace started by
# HOW; the collections start once BEGIN ran.
gcpython_run() {
	rm -f "$W/go"
	$2 $PY "$W/gc.py" "$W/go" "$1" &
	pid=$!
	wait_maps $pid python3
	got=$($3 timeout 60 $DTRACE -q -w -p $pid -n '
python$target:::gc-start /arg0 == 2/ { @ = count(); }
BEGIN { system("touch '"$W/go"'"); }
END { printa("%@d\n", @); }' 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { kill $pid; fail "dtrace failed ($rc): $got"; }
	wait $pid || fail "python failed while traced"
	echo "$got" | grep -v '^$' | tail -n 1
}
