# libstdc++'s usdt probes: a C++ program throws and catches N exceptions;
# libstdcxx$target:::throw and :::catch each fire exactly N times, throw's
# arg1 (the type_info pointer, 8@%rsi) the same every time.
. ./lib.sh
need_root
command -v c++ > /dev/null || { echo "no C++ compiler to build the workload"; exit 77; }
lib=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ { print $NF; exit }')
[ -n "$lib" ] && readelf -n "$(readlink -f "$lib")" 2>/dev/null | grep -q 'Name: throw' ||
    { echo "this libstdc++ has no throw stapsdt note"; exit 77; }
cat > "$W/thr.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), caught = 0;

	while (access(argv[1], F_OK) != 0)
		usleep(10000);
	for (int i = 0; i < n; i++) {
		try {
			throw std::runtime_error("x");
		} catch (const std::exception &) {
			caught++;
		}
	}
	printf("caught %d\n", caught);
	return 0;
}
CC
c++ -O1 -o "$W/thr" "$W/thr.cc" || fail "workload build failed"
N=300
"$W/thr" "$W/go" $N > "$W/out" &
pid=$!
wait_maps $pid libstdc++
got=$(timeout 60 $DTRACE -q -w -p $pid -n '
libstdcxx$target:::throw { @t = count(); @ty[arg1] = count(); }
libstdcxx$target:::catch { @c = count(); }
BEGIN { system("touch '"$W/go"'"); }
END { printa("throw %@d\n", @t); printa("catch %@d\n", @c);
      printa("type %@d\n", @ty); }' 2>&1)
rc=$?
[ $rc -eq 0 ] || { kill $pid; fail "dtrace failed ($rc): $got"; }
wait $pid
[ "$(cat "$W/out")" = "caught $N" ] || fail "workload: $(cat "$W/out")"
want="throw $N
catch $N
type $N"
[ "$(echo "$got" | grep -v '^$')" = "$want" ] || fail "got: $got"
exit 0
