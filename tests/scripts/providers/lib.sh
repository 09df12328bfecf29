# lib.sh - shared by the provider shell tests: skip rules and building the
# workloads (small C programs in this directory) with cc.
#   need_root          exit 77 unless root
#   build NAME         compile w_NAME.c into $W/NAME (frame pointers on)
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
