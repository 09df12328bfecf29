#!/bin/sh
# tests/layers.sh - the layering rule (STYLE.md section 1, DESIGN.md): each
# module sees the public headers in include/ and its own directory, nothing
# else.  The build enforces it through the Makefile's INC_* lines; this
# check says which file broke it, and keeps the INC_* lines honest.
#
# For every #include "X" in a module's .c and .h files, X must be found
# next to the including file, in the module's own folders or in include/;
# a header found only in another module's folder is that module's private
# header, and the check fails naming the file.  Public headers in include/
# may include only each other.  In the engine, the consumer half (files
# that include consume.h) asks the compiler through ccinfo.h, never cc.h
# (handle.c owns both halves).  In the TUI, the model files include only
# tui_model.h (never the view, terminal or engine headers), and only
# term.c includes curses.  Tests may see every module's internals.
#
# A self-test first runs the same check on a small tree with one private
# include, which must be reported.  Last, the house rule that keeps files
# readable: no .c file of a module or a test reaches 1000 lines.  Prints
# PASS/FAIL lines (tests/run.sh).
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

MODULES="kernel-shim providers engine tui cmd/dtrace"
TUI_MODEL="model.c probes.c hist.c complete.c save.c mem.c clauses.c"

# module_dirs ROOT MODULE: the folders whose headers MODULE may include
# besides include/ (the providers' event-source folders see each other).
module_dirs() {
	find "$1/$2" -type d | sort
}

# owner ROOT HEADER: the module folder (relative to ROOT) holding HEADER.
owner() {
	for m in $MODULES; do
		[ -d "$1/$m" ] || continue
		hit=$(find "$1/$m" -name "$2" -type f | head -n 1)
		if [ -n "$hit" ]; then
			dirname "${hit#"$1/"}"
			return
		fi
	done
}

# check_file ROOT FILE ALLOWED-DIRS...: print one line per bad include.
check_file() {
	root=$1 file=$2
	shift 2
	sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$file" |
	while read -r h; do
		[ -f "$(dirname "$file")/$h" ] && continue
		[ -f "$root/include/$h" ] && continue
		ok=0
		for d in "$@"; do
			[ -f "$d/$h" ] && ok=1 && break
		done
		[ $ok = 1 ] && continue
		o=$(owner "$root" "$h")
		if [ -n "$o" ]; then
			echo "${file#"$root/"}: includes \"$h\", private to $o/"
		else
			echo "${file#"$root/"}: includes \"$h\", found nowhere"
		fi
	done
}

# check_module ROOT MODULE: bad includes of one module, one per line.
check_module() {
	dirs=$(module_dirs "$1" "$2")
	find "$1/$2" -type f \( -name '*.c' -o -name '*.h' \) | sort |
	while read -r f; do
		# shellcheck disable=SC2086
		check_file "$1" "$f" $dirs
	done
	if [ "$2" = tui ]; then
		for f in $TUI_MODEL; do
			[ -f "$1/tui/$f" ] || continue
			grep -E '^#include "(tui|tui_view|tui_term|engine)\.h"' \
			    "$1/tui/$f" | sed "s|^|tui/$f: the model includes |"
		done
		grep -lE '^#include <n?curses\.h>' "$1"/tui/*.c 2>/dev/null |
		    grep -v '/tui/term\.c$' | sed "s|^$1/||; s|\$|: only term.c may call curses|"
	fi
	if [ "$2" = engine ]; then
		for f in $(grep -l '^#include "consume.h"' "$1"/engine/*.c); do
			case $f in */engine/handle.c) continue ;; esac
			grep -q '^#include "cc.h"' "$f" &&
			    echo "${f#"$1/"}: consumer file includes the compiler's cc.h (use ccinfo.h)"
		done
	fi
}

# check_public ROOT: public headers include only public headers.
check_public() {
	for f in "$1"/include/*.h; do
		sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r h; do
			[ -f "$1/include/$h" ] ||
			    echo "${f#"$1/"}: public header includes \"$h\", not in include/"
		done
	done
}

# check_makefile ROOT: each INC_<module> line names only include/ and the
# module's own folders (-I<dir> of another module would let it compile).
check_makefile() {
	sed -n 's/^\(INC_[a-z]*\)[ 	]*=\(.*\)/\1 \2/p' "$1/Makefile" |
	while read -r var rest; do
		case $var in
		INC_ks) own=kernel-shim ;; INC_prov) own=providers ;;
		INC_eng) own=engine ;; INC_tui) own=tui ;;
		INC_cmd) own=cmd/dtrace ;; *) continue ;;
		esac
		for w in $rest; do
			case $w in
			-I$own | -I$own/* | -Iinclude | *'$('*) ;;
			-I*) echo "Makefile: $var adds $w, outside $own/" ;;
			esac
		done
	done
}

# check_sizes ROOT: .c files of 1000 lines or more.
check_sizes() {
	for d in $MODULES tests; do
		find "$1/$d" -name '*.c' -type f
	done | sort | while read -r f; do
		n=$(wc -l < "$f")
		[ "$n" -lt 1000 ] || echo "${f#"$1/"}: $n lines (split it)"
	done
}

# result NAME OUTPUT: PASS if OUTPUT is empty, else FAIL and the lines.
result() {
	if [ -z "$2" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1"
		printf '%s\n' "$2" | head -n 20 | sed 's/^/    /'
	fi
}

# The self-test: an engine file including the shim's private header, a
# provider including the engine's, must both be named.
st=$tmp/tree
mkdir -p "$st/include" "$st/kernel-shim" "$st/engine" "$st/providers/bpf"
echo '#include "pub.h"' > "$st/include/ks.h"
: > "$st/include/pub.h"
: > "$st/kernel-shim/ks_impl.h"
: > "$st/engine/eng_impl.h"
: > "$st/providers/prov_impl.h"
printf '#include "ks.h"\n#include "ks_impl.h"\n' > "$st/engine/a.c"
printf '#include "prov_impl.h"\n#include "eng_impl.h"\n' > "$st/providers/bpf/b.c"
printf '#include "ks_impl.h"\n' > "$st/kernel-shim/c.c"
out=$(for m in kernel-shim providers engine; do check_module "$st" $m; done)
want='providers/bpf/b.c: includes "eng_impl.h", private to engine/
engine/a.c: includes "ks_impl.h", private to kernel-shim/'
if [ "$out" = "$want" ]; then
	result layers/selftest ""
else
	result layers/selftest "expected:
$want
got:
$out"
fi

for m in $MODULES; do
	result "layers/$m" "$(check_module "$top" "$m")"
done
result layers/include "$(check_public "$top")"
result layers/makefile "$(check_makefile "$top")"
result layers/filesize "$(check_sizes "$top")"
